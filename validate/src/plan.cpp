#include "perfmodel/validate/plan.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {
namespace {

const std::vector<int> kMatrixSizes = {512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};

// from, 1.5·from, 4·from, 6·from, …, up to `to` (powers of four times 1 and 1.5).
std::vector<int> geometric_sizes(long long from, long long to) {
  std::vector<int> v;
  for (long long p = from; p <= to; p *= 4) {
    v.push_back(static_cast<int>(p));
    if (p + p / 2 <= to) v.push_back(static_cast<int>(p + p / 2));
  }
  return v;
}

bool selected(const GpuKernelSpec& spec, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  return std::find(only.begin(), only.end(), spec.name) != only.end() || std::find(only.begin(), only.end(), spec.family) != only.end();
}

}  // namespace

std::vector<int> validation_sizes(const GpuKernelSpec& spec, bool quick) {
  if (spec.family == "dot") return quick ? std::vector<int>{1 << 22} : geometric_sizes(1 << 16, 1 << 28);
  if (spec.family == "cosine") return quick ? std::vector<int>{1 << 18} : geometric_sizes(1 << 10, 1 << 24);
  if (spec.name == "cholesky-single") return quick ? std::vector<int>{512} : std::vector<int>{256, 384, 512, 768, 1024};
  std::vector<int> v;
  for (int n : kMatrixSizes)
    if (n >= spec.min_n && n <= spec.max_n && (!quick || n == 1024 || n == 4096)) v.push_back(n);
  if (spec.name == "cholesky-opt") v.insert(v.begin(), {256, 384});
  return v;
}

std::vector<int> sweep_sizes(const GpuKernelSpec& spec) {
  if (spec.family == "dot") return {1 << 24};
  if (spec.family == "cosine") return {1 << 20};
  if (spec.name == "cholesky-single") return {512};
  if (spec.name == "cholesky-opt") return {1024};
  return {1024, 4096};
}

std::vector<ValidationPoint> validation_plan(const ValidationOptions& options) {
  for (const std::string& name : options.only) {
    bool known = false;
    for (const GpuKernelSpec& s : gpu_kernel_specs()) known = known || s.name == name || s.family == name;
    if (!known) gpu_kernel_spec(name);  // throws, listing the kernels
  }
  std::vector<ValidationPoint> plan;
  std::set<std::tuple<std::string, int, KernelConfig>> seen;
  auto add = [&](const GpuKernelSpec& spec, int n, const KernelConfig& c, bool sweep) {
    if (!config_problem(spec, n, c).empty()) return;
    if (!seen.insert({spec.name, n, c}).second) return;
    plan.push_back({spec.name, n, c, sweep});
  };
  for (const GpuKernelSpec& spec : gpu_kernel_specs()) {
    if (!selected(spec, options.only)) continue;
    for (int n : validation_sizes(spec, options.quick)) add(spec, n, default_config(spec, n), false);
    if (!options.quick)
      for (int n : sweep_sizes(spec))
        for (const KernelConfig& c : spec.configs) add(spec, n, c, true);
  }
  std::stable_sort(plan.begin(), plan.end(), [](const ValidationPoint& a, const ValidationPoint& b) {
    const std::string& fa = gpu_kernel_spec(a.kernel).family;
    const std::string& fb = gpu_kernel_spec(b.kernel).family;
    return std::tie(fa, a.n) < std::tie(fb, b.n);
  });
  return plan;
}

}  // namespace perfmodel
