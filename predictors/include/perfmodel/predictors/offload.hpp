#pragma once
// The offload advisor: for one computation, the CPU time, the GPU time (kernels + copies), the
// decision, the speedup with its uncertainty and the term that decides it.
//
// Decision (White (2013), Listing 4.18; docs MODELS.md §1.11):
//   run on the CPU  if  T_cpu <= T_h2d + T_kernels + T_d2h,  else on the GPU
//   speedup = T_cpu / (T_h2d + T_kernels + T_d2h)
// T_cpu from the profile's cpu section (perfmodel/predictors/cpu_compute.hpp), the kernels from
// its gpu section (gpu_compute.hpp), the copies from its pcie curves (communication.hpp), issued
// one after another as blocking copies around the kernels (White (2013) §3.4, §4.6). The CPU and
// the GPU side may come from two profiles (a user's CPU calibration beside the bundled GPU one).
//
// Uncertainty: each term moves by a factor (1 + e) either way, its recorded error level
// (OffloadErrorLevels), all against the decision at once:
//   speedup_low  = T_cpu / (1 + e_cpu) / (T_k (1 + e_gpu) + T_x (1 + e_x))
//   speedup_high = T_cpu (1 + e_cpu) / (T_k / (1 + e_gpu) + T_x / (1 + e_x))
// A factor, not T (1 − e): the CPU model misses by several times at small sizes (a 52-element
// cosine at 16 threads on the H100 host, 2026-11-26: 5.2 µs predicted, 26 µs measured), which
// T (1 − e) cannot cover. The levels: e_gpu the GPU model's p90 |error| on the recorded GPU
// validation run of that kernel; e_x the copy curves' largest held-out error; e_cpu, where a
// recorded offload validation run is at hand, the p90 over that kernel's measured sizes (at one
// thread, or at several) of the CPU model's ratio error max(p/m, m/p) − 1 (the spread the
// validation shows, so that ~90 % of the CPU times fall inside), else the CPU model's largest
// held-out error.
// The decision is firm when [low, high] excludes 1. A CPU side given as a signature without a
// fitted efficiency is a roofline time, a lower bound: then speedup_high does not exist.
//
// Sizes: for a built-in kernel the crossover n is solved by bisection on the models over the
// sizes its GPU kernel accepts (multiples of its n_multiple), every crossing labelled by the side
// that wins above it. Reuse: an iterative computation (CG, White (2013) §5.2, MODELS.md §1.12)
// uploads A once; the break-even iteration count solves T_cpu(i) = T_gpu(i), both linear in i.
// Overlap: copies in chunks on pinned memory overlap the kernels (the profile's copy engines).
// Splitting (Listing 4.18 generalised): a fraction f of the work stays on the CPU while the GPU
// does the rest, f minimising max(T_cpu(f), T_gpu(1 − f) + T_copies(1 − f)).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {

// How far each term may be off, with where that level comes from (relative, e.g. 0.19).
struct OffloadErrorLevels {
  double cpu = 0, gpu = 0, copies = 0;
  std::string cpu_source, gpu_source, copies_source;
};

// What the CPU side of a computation is.
struct CpuSignature {  // a computation described by what it moves and computes
  double bytes_read = 0, bytes_written = 0, working_set_bytes = 0;
  double flops_fp32 = 0, flops_fp64 = 0, serial_flops = 0;
  double parallel_regions = 1, threads = 0;  // 0 threads: all the profile measured
  double efficiency = 0;                      // 0: not known (the roofline, a lower bound of the time)
};
struct CpuSide {
  enum class Kind { builtin, signature, measured } kind = Kind::builtin;
  std::string kernel;  // builtin: one of cpu_kernel_names()
  double n = 0;
  int iterations = kCgIterations;  // cg
  double threads = 0;              // 0: the threads the kernel was fitted at (all)
  CpuSignature signature;
  double measured_s = 0;
};

struct CpuSideTime {
  double seconds = 0, threads = 0;
  std::string model;          // how it was obtained, in words
  bool lower_bound = false;   // a roofline without efficiency
  bool outside_fitted_sizes = false;  // built-in: the working set lies outside the CPU model's fitted sizes
  bool extrapolated_threads = false;  // built-in: more threads than the calibration measured
  std::string bound;          // "memory" | "compute" | "measured"
};
// Throws InputError for a profile without the cpu section (unless measured), unknown kernels, n < 1.
CpuSideTime cpu_side_time(const Profile& cpu_profile, const CpuSide& side);

// The GPU side: kernels one after another, copies around them.
struct GpuSide {
  GpuWorkload kernels;
  std::vector<Transfer> copies_in, copies_out;
};

struct OffloadTerms {
  double cpu_s = 0, kernels_s = 0, h2d_s = 0, d2h_s = 0;
  bool cpu_lower_bound = false;
  double gpu_s() const { return kernels_s + h2d_s + d2h_s; }
};

struct OffloadDecision {
  OffloadTerms terms;
  double speedup = 0;                  // T_cpu / T_gpu
  double speedup_low = 0;
  std::optional<double> speedup_high;  // absent: the CPU time is a lower bound
  std::string decision;                // "gpu" | "cpu"
  bool firm = false;                   // the interval lies on one side of 1
  std::string dominant;                // the term that dominates the GPU side or decides
  std::string reason;                  // one sentence
};
OffloadDecision decide_offload(const OffloadTerms& terms, const OffloadErrorLevels& errors);

// The copies of one offloaded operation, one blocking copy after another (White (2013) §3.4),
// with the host side as a repeated operation leaves it — the state the CPU side is predicted in
// too (its bandwidth curves are measured with the working set resident). A pageable copy is
// staged by the driver: the CPU copies between the user's buffer and a pinned one, the DMA moves
// the pinned one. Of a pageable curve's cost per byte s, the pinned curve's s_pinned is the DMA
// and the rest the staging copy. A curve timed on a rotating host buffer (pcie.host_buffer:
// rotating: every copy's host bytes out of the caches) timed that staging copy from memory; where
// the operation's host bytes fit a faster level it runs at the host's one-thread copy bandwidth
// there (cpu.bandwidth.copy of the same profile: the same host):
//   T = T_curve − b · (s − s_pinned) · (1 − r),   r = min(1, BW_copy(1, W_cold) / BW_copy(1, W))
// W = max(2 × the operation's host bytes (in and out; the copy curve counts source and
// destination), 2 × one core's private L2) — the device reads the staging buffer from the
// last-level cache at best, so the copy never runs at a private cache's rate — and W_cold twice
// the pageable curves' largest size. Pinned copies (DMA from wherever the bytes are), curves
// timed on a fixed buffer, and a profile without cpu.bandwidth.copy: the curve as it stands.
// On the H100 host (2026-11-26 run) a pageable mv at n = 1376 (7.6 MB up, whole operation) took
// 0.60 ms where the rotating curve gives 1.11 ms; r = 0.57 there, and 0.73 ms predicted.
// The operation copies the same buffers each time: a single-copy curve's shift for copies issued
// among other kinds at random host pages (TransferCurve::mixed_setup_s) is taken off every copy.
class OffloadCopies {
 public:
  explicit OffloadCopies(const Profile& gpu_profile);  // InputError without a pcie section
  // host_bytes: every host byte the operation copies, in and out (0: those of `list`).
  double seconds(const std::vector<Transfer>& list, double host_bytes = 0) const;
  double seconds(const Transfer& t, double host_bytes) const;
  // r above for an operation of host_bytes (1 where the curves stand as they are).
  double pageable_factor(double host_bytes) const;

 private:
  const Profile& profile_;
  CommunicationPredictor comm_;
  bool warm_pageable_ = false;
};

// The GPU run's starting state in an offloaded operation: the inputs' copies just went through
// the L2 and left it dirty (where the profile measured what that costs); the GPU is idle.
GpuRunStart offload_run_start(const GpuCalibration& gpu);

// ----------------------------------------------------------------------------- built-in kernels
// The GPU kernel each CPU reference kernel is compared with (the seeds' optimised variant).
const std::vector<std::pair<std::string, std::string>>& offload_kernel_pairs();
const std::string& offload_gpu_kernel(const std::string& cpu_kernel);  // InputError for an unknown one

struct OffloadOptions {
  HostMemory memory = HostMemory::pinned;
  double cpu_threads = 0;          // 0: the threads the CPU model was fitted at (all)
  int iterations = kCgIterations;  // cg only; >= 1
};

struct BuiltinOffload {
  std::string cpu_kernel, gpu_kernel;
  double n = 0;
  KernelConfig config;
  CpuSideTime cpu;
  GpuSide gpu;
  std::string gpu_bound;                    // the GPU kernels' limiting term
  double kernels_launch_s = 0;              // the launches' share of the kernels' time (does not shrink with the work)
  std::vector<std::pair<std::string, double>> kernel_phases_s;  // per phase kernel, all launches
  OffloadTerms terms;
};
// The GPU kernel of a built-in pair as the offloaded operation runs it. For cg: `iterations`
// iterations after the set-up (x = 0 and the scalars by two memsets, p = r by a device copy,
// costed as a memset), A and b uploaded once, x downloaded. Throws InputError for an n the GPU
// kernel does not accept (config_problem) or iterations < 1.
GpuWorkload offload_gpu_workload(const std::string& cpu_kernel, double n, int iterations, const ResourceTable& resources,
                                 const GpuCalibration& gpu);
std::vector<Transfer> offload_copies_in(const std::string& cpu_kernel, double n, HostMemory memory);
std::vector<Transfer> offload_copies_out(const std::string& cpu_kernel, double n, HostMemory memory);
// CPU work of a built-in kernel with `iterations` for cg (cpu_workload otherwise).
CpuWorkload offload_cpu_workload(const std::string& cpu_kernel, double n, int iterations);

BuiltinOffload predict_builtin_offload(const Profile& cpu_profile, const Profile& gpu_profile, const std::string& cpu_kernel,
                                       double n, const OffloadOptions& options, const ResourceTable& resources = {});

// ----------------------------------------------------------------------------- sizes
struct Crossing {
  double n = 0;             // interpolated (log-linear between the bracketing sizes)
  double n_below = 0, n_above = 0;  // the accepted sizes that bracket it
  std::string wins_above;   // "gpu" | "cpu"
};
struct CrossoverResult {
  double from_n = 0, to_n = 0;  // the range searched
  std::vector<Crossing> crossings;
  std::string verdict;  // "gpu always wins in [a, b]", "GPU never wins in [a, b]", "GPU wins from n ≈ x" …
  // The first size from which the GPU wins (to the end of the range), if any: the final crossing.
  // `validate --only offload` compares this final crossing with the measured one
  // (perfmodel/validate/offload_validation.hpp, MeasuredCrossing).
  std::optional<double> gpu_from_n() const;
};
// log speedup(n) sampled on `grid_points` log-spaced accepted sizes, each sign change refined by
// bisection over the accepted sizes (multiples of `multiple`). `speedup` may throw InputError for
// a size it cannot predict: that size is skipped.
CrossoverResult find_crossover(const std::function<double(double)>& speedup, double from_n, double to_n, double multiple,
                               int grid_points = 48);
// The range a built-in kernel is searched over: the sizes its GPU kernel accepts.
void offload_size_range(const std::string& cpu_kernel, double& from_n, double& to_n, double& multiple);

// ----------------------------------------------------------------------------- reuse, overlap, split
struct ReuseResult {  // an iterative computation, data resident on the GPU across iterations
  double cpu_fixed_s = 0, cpu_per_iteration_s = 0;
  double gpu_fixed_s = 0, gpu_per_iteration_s = 0;   // fixed: copies + set-up
  std::optional<double> break_even_iterations;        // GPU wins from this count on (null: never / always)
  std::string verdict;
};
// T(i) = fixed + i · per_iteration on each side, from the predictions at 1 and 2 iterations.
ReuseResult reuse_break_even(const std::function<OffloadTerms(int)>& terms_at_iterations);

struct OverlapResult {
  bool possible = false;
  std::string why_not;
  double copy_engines = 0;
  int chunks = 1;
  double serial_s = 0, overlapped_s = 0;  // the GPU side without and with the chunked overlap
};
// Copies in k chunks overlapped with the kernels' chunks (cudaMemcpyAsync on pinned memory; with
// two or more copy engines h2d and d2h run at once, with one they share it). `fixed_in`: copies
// that must land before the first chunk (not chunked). The chunk count is the best of 2 … 64.
OverlapResult chunked_overlap(const Profile& gpu_profile, const std::vector<Transfer>& fixed_in,
                              const std::vector<Transfer>& chunked_in, const std::vector<Transfer>& chunked_out, double kernels_s,
                              HostMemory memory);

struct SplitResult {
  bool possible = false;
  std::string why_not;
  double cpu_fraction = 0;  // f
  double split_s = 0;       // max(T_cpu(f), T_gpu(1 − f))
  double best_alone_s = 0;  // min(T_cpu, T_gpu)
  double saved_s = 0, saved_fraction = 0;
};
// T_cpu(f) and T_gpu(1 − f) as functions; f found by bisection on the balance point.
SplitResult split_work(const std::function<double(double)>& cpu_s_of_fraction, const std::function<double(double)>& gpu_s_of_fraction);

// The built-in kernel's split and chunked overlap: the work divides by rows (bytes, flops and
// working set scale with the fraction on each side; b, B and the filter go whole).
SplitResult split_builtin_offload(const Profile& cpu_profile, const Profile& gpu_profile, const BuiltinOffload& o, const OffloadOptions& options);
OverlapResult overlap_builtin_offload(const Profile& gpu_profile, const BuiltinOffload& o, HostMemory memory);

// Which copies of a built-in kernel scale with the rows it is split or chunked by (the others go
// whole); false when the kernel does not split (cg, cholesky: every step needs the whole matrix).
bool offload_splittable(const std::string& cpu_kernel, std::vector<bool>& in_scales, std::vector<bool>& out_scales);

}  // namespace perfmodel

// ----------------------------------------------------------------------------- workload files

namespace perfmodel {

// A workload file (format 1, perfmodel/model/gpu_workload_file.hpp) for the GPU side — kernels and
// `transfers` — plus the offload advisor's own top-level `cpu:` section for the CPU side, exactly
// one of three forms:
//
//   cpu:                                  # a built-in CPU reference kernel
//     kernel: mv                          #   mv mm dot cg cholesky conv2d blur cosine
//     n: 4096
//     iterations: 10                      #   cg only (default 10)
//     threads: 16                         #   default: the threads its model was fitted at
//   cpu:                                  # a CPU signature (roofline on the cpu section's curves)
//     bytes_read: 6.7e7
//     bytes_written: 1.6e4
//     working_set_bytes: 6.7e7
//     flops_fp32: 3.4e7                   #   each optional, default 0
//     flops_fp64: 0
//     serial_flops: 0                     #   of flops_fp32, run by one thread
//     parallel_regions: 1                 #   fork-join steps (each costs the pool's dispatch)
//     threads: 16                         #   default: all the profile measured
//     efficiency: 0.6                     #   optional: roofline time / real time; absent: a lower bound
//   cpu:                                  # a time the user measured
//     measured_s: 0.0123
//   cpu:                                  # any form may add:
//     splittable: true                    #   the work divides by rows between CPU and GPU (default false)
//
// The `cpu:` section is read here and removed (its lines blanked, line numbers kept) before the
// rest goes to the format-1 reader, so errors anywhere name the file, line and key.
struct OffloadWorkloadFile {
  GpuWorkloadFile gpu;
  std::optional<CpuSide> cpu;  // absent: the file has no `cpu:` section
  bool splittable = false;
};
OffloadWorkloadFile parse_offload_workload(const std::string& text, const std::string& file_name, const GpuCalibration& gpu);
OffloadWorkloadFile read_offload_workload(const std::string& path, const GpuCalibration& gpu);

}  // namespace perfmodel
