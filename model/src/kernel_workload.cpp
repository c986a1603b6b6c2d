#include "perfmodel/model/kernel_workload.hpp"

#include "perfmodel/model/errors.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {

const std::vector<std::string>& cpu_kernel_names() {
  static const std::vector<std::string> names = {"mv", "mm", "dot", "cg", "cholesky", "conv2d", "blur", "cosine"};
  return names;
}

std::string size_meaning(const std::string& kernel) {
  if (kernel == "dot" || kernel == "cosine") return "vector length";
  if (kernel == "conv2d" || kernel == "blur") return "image side (n x n)";
  return "matrix order (n x n)";
}

CpuWorkload cpu_workload(const std::string& kernel, double n) {
  if (!(n >= 1)) throw InputError("kernel " + kernel + ": n must be >= 1");
  constexpr double e = 4;  // bytes per element (float)
  CpuWorkload w;
  if (kernel == "mv") {  // c = A·b
    w = {e * (n * n + n), e * n, 2 * n * n, e * (n * n + 2 * n)};
  } else if (kernel == "mm") {  // C = A·B, each matrix moved once (blocked GEMM)
    w = {e * 2 * n * n, e * n * n, 2 * n * n * n, e * 3 * n * n};
  } else if (kernel == "dot") {
    w = {e * 2 * n, 0, 2 * n, e * 2 * n};
  } else if (kernel == "cg") {  // per iteration: Ap = A·p, 2 dots, 3 axpys
    const double i = kCgIterations;
    w = {i * e * (n * n + 11 * n), i * e * 4 * n, i * (2 * n * n + 10 * n), e * (n * n + 5 * n)};
    w.parallel_regions = 1 + 5 * i;  // r·r, then per iteration: A·p, p·Ap, x/r update, r·r, p update
  } else if (kernel == "cholesky") {  // in place, lower triangle
    w = {e * n * n, e * n * n, n * n * n / 3, e * n * n};
    const double b = kCholeskyBlock, steps = std::ceil(n / b);
    w.serial_flops = n * std::min(b, n) * std::min(b, n) / 3;  // the diagonal blocks' LLT
    w.parallel_regions = std::max(1.0, 2 * steps - 1);        // panel solve + trailing update per step
  } else if (kernel == "conv2d") {
    const double fs = kConvFilter;
    w = {e * (n * n + fs * fs), e * n * n, 2 * fs * fs * n * n, e * (2 * n * n + fs * fs)};
  } else if (kernel == "blur") {  // RGB bytes in and out
    const double window = (2.0 * kBlurRadius + 1) * (2.0 * kBlurRadius + 1);
    w = {3 * n * n, 3 * n * n, 3 * window * n * n, 6 * n * n};
  } else if (kernel == "cosine") {
    w = {e * n, e * n, 10.0 * kCosineRepeats * n, e * n};
  } else {
    std::string list;
    for (const std::string& k : cpu_kernel_names()) list += (list.empty() ? "" : ", ") + k;
    throw InputError("unknown kernel '" + kernel + "' (known: " + list + ")");
  }
  return w;
}

}  // namespace perfmodel
