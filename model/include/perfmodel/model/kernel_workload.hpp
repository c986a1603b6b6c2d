#pragma once
// What each reference kernel does, as functions of its problem size: bytes read and written,
// floating-point work and working set. The single source for reported bandwidths and for the
// CPU time model (kernels/cpu implements exactly these). Single precision (4-byte elements),
// as in S0. Fixed parameters: conv2d filter 5×5 (FS), blur radius 5 (a 11×11 window over RGB
// bytes), cg 10 iterations on a dense SPD matrix, cosine 100 cosf per element (S3 counts ≈10
// flop per cosf).
#include <string>
#include <vector>

namespace perfmodel {

struct CpuWorkload {
  double bytes_read = 0, bytes_written = 0;
  double flops = 0;              // floating-point (or, for blur, integer add) operations, all of them
  double working_set_bytes = 0;  // distinct bytes touched
  double serial_flops = 0;       // the part of `flops` done by one thread while the others wait
  double parallel_regions = 1;   // fork-join steps of the thread pool (each costs a dispatch)
};

inline constexpr int kConvFilter = 5;
inline constexpr int kBlurRadius = 5;
inline constexpr int kCgIterations = 10;
inline constexpr int kCosineRepeats = 100;
inline constexpr int kCholeskyBlock = 128;  // blocked right-looking Cholesky: diagonal blocks serial

// "mv", "mm", "dot", "cg", "cholesky", "conv2d", "blur", "cosine", in this order.
const std::vector<std::string>& cpu_kernel_names();
// What `n` means for a kernel ("matrix order", "vector length", "image side", …).
std::string size_meaning(const std::string& kernel);
// Throws InputError for an unknown kernel or n < 1.
CpuWorkload cpu_workload(const std::string& kernel, double n);

}  // namespace perfmodel
