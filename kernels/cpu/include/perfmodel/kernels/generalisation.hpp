#pragma once
// The generalisation suite: simple CUDA kernels that are not in the reference suite, written as a
// user would write them, to test predictions on kernels the model was never tuned on (issue 36).
// This header is the suite's catalogue (name, class, half, one line, problem sizes) and the CPU
// reference of every kernel's result; the kernels are in kernels/cuda/src/generalisation_kernels.cuh
// and their format-2 signatures in data/workloads/generalisation/<name>.yaml, written from the
// source before any measurement (docs/generalisation-suite.md states the protocol).
// Plain C++: the tests check the references without a GPU.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace perfmodel::gen {

// Problem parameters by name (n, s, m, k, batch …), in name order: the same keys as the
// signature's `params`.
using Params = std::map<std::string, long long>;

struct KernelEntry {
  std::string name;     // also the signature's file name: data/workloads/generalisation/<name>.yaml
  std::string klass;    // streaming, strided, gather-scatter, transpose, stencil, reduction, histogram,
                        // scan, batched-matmul, compute, launch-bound, occupancy-starved, register-heavy
  char half = 'A';      // 'A': model changes may be chosen on it; 'B': held out (docs/generalisation-suite.md);
                        // 'C': the fresh held-out set, pre-registered after A and B had both been looked at;
                        // 'D': fresh held-out atomics, pre-registered after the atomics model was changed on C;
                        // 'E': fresh held-out stencils, gathers with locality, an integer chain and reductions;
                        // 'F': fresh held-out random DRAM accesses (gathers and a read-modify-write);
                        // 'G': fresh held-out random reads and writes, integer chains, stencils and reductions;
                        // 'H': fresh held-out random scatters, shared-memory trees, a gather, an integer chain,
                        // a 3×3 stencil and an FP64 pair stream
  std::string summary;  // one line
  std::vector<Params> sizes;  // the suite's problem sizes (they fill the H100; launch-bound: small)
  Params test_size;           // a small size for the GPU test
};

// Every kernel, in suite order (grouped by class). The half alternates along the first 47: the
// kernel at an even position is in half A, at an odd one in half B; the next 12 are half C, the
// 6 after them half D, the 10 after those half E, the 6 after those half F, the 12 after those half G,
// the 12 after those half H.
const std::vector<KernelEntry>& kernel_catalog();
// Throws InputError naming the known kernels.
const KernelEntry& kernel_entry(const std::string& name);

// "n=134217728 s=8": the form used in measurements.csv and the progress lines.
std::string params_string(const Params& p);
// Inverse of params_string; throws InputError on malformed text.
Params parse_params(const std::string& text);
// p.at(key) with an InputError naming the kernel's missing parameter.
long long param(const Params& p, const std::string& key);

// What a kernel's result must be. Output k (0 <= k < count) lives at element where(k) of the
// kernel's output array and must equal expected(k) within
//   max_k |got(k) − expected(k)| / max_k |expected(k)| <= bound
// (the absolute error when every expected value is 0), over all outputs when count <= samples,
// else over `samples` outputs spread evenly over [0, count) plus the last one.
struct ReferenceCheck {
  std::size_t count = 0;
  std::size_t samples = std::size_t{1} << 20;
  std::function<std::size_t(std::size_t)> where;
  std::function<double(std::size_t)> expected;
  double bound = 0;
  std::string what;  // in words
};

ReferenceCheck reference_check(const std::string& kernel, const Params& p);

// The outputs a check compares (sorted, deterministic).
std::vector<std::size_t> checked_outputs(const ReferenceCheck& check);

// The nearest binary16 value of x (round to nearest even; overflow to ±inf): the FP16 kernels'
// reference rounds each step as the hardware does.
double round_to_half(double x);

}  // namespace perfmodel::gen
