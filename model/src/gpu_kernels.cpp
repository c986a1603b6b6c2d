#include "perfmodel/model/gpu_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"

namespace perfmodel {
namespace {

// The largest power of two <= v (1 for v < 2).
int pow2_floor(double v) {
  int p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

std::vector<KernelConfig> blocks_1d(std::initializer_list<int> xs) {
  std::vector<KernelConfig> v;
  for (int x : xs) v.push_back({x, 1, 0});
  return v;
}

std::vector<KernelConfig> mv_opt_configs() {
  std::vector<KernelConfig> v;
  for (int x : {16, 32, 64})
    for (int y = 1; y <= x && x * y <= 1024; y *= 2) v.push_back({x, y, 0});
  return v;
}

std::vector<KernelConfig> mm_opt_configs() {
  std::vector<KernelConfig> v;
  for (int x : {8, 16, 32})
    for (int y : {2, 4, 8, 16})
      for (int ne : {8, 16, 32})
        if (y <= ne && ne % y == 0) v.push_back({x, y, ne});
  return v;
}

std::vector<KernelConfig> with_grids(std::initializer_list<int> blocks, std::initializer_list<int> grids) {
  std::vector<KernelConfig> v;
  for (int b : blocks)
    for (int g : grids) v.push_back({b, 1, g});
  return v;
}

std::vector<GpuKernelSpec> build_specs() {
  std::vector<GpuKernelSpec> s;
  const std::vector<KernelConfig> mm2d = {{8, 8, 0}, {16, 8, 0}, {16, 16, 0}, {32, 4, 0}, {32, 8, 0}, {32, 16, 0}, {32, 32, 0}, {64, 4, 0}, {64, 8, 0}};
  const std::vector<KernelConfig> conv2d = {{16, 4, 0}, {16, 8, 0}, {16, 16, 0}, {32, 4, 0}, {32, 8, 0}, {32, 16, 0}, {64, 1, 0}, {64, 4, 0}, {64, 8, 0}};
  s.push_back({"mv-global", "mv", "White (2013) Listing 4.2", "one thread per row, A and b from global memory", "", blocks_1d({32, 64, 128, 256, 512}), 512, 16384, 512});
  s.push_back({"mv-constant", "mv", "White (2013) Listings 4.4/4.5", "one thread per row, b in constant memory", "", blocks_1d({32, 64, 128, 256, 512}), 512, 16384, 512});
  s.push_back({"mv-shared", "mv", "White (2013) Listing 4.6", "X×X tiles of A staged in shared memory (X-way bank conflicts), b in constant memory", "", blocks_1d({16, 32, 64}), 512, 16384, 64});
  s.push_back({"mv-opt", "mv", "White (2013) Listing 4.16", "Y threads per row, padded tile, rotated start column, b in constant memory", "", mv_opt_configs(), 512, 16384, 64});
  s.push_back({"mm-global", "mm", "White (2013) Listing 4.7", "thread (i,j) computes C_ij from global memory", "", mm2d, 512, 8192, 64});
  s.push_back({"matmul", "mm", "Cecconi Listing 4.2", "naive matmul, 32×32 blocks, bounds-checked", "", {{32, 32, 0}}, 512, 8192, 1});
  s.push_back({"mm-shared", "mm", "White (2013) Listing 4.8", "T×T tiles of A and B in shared memory", "", {{8, 8, 0}, {16, 16, 0}, {32, 32, 0}}, 512, 8192, 32});
  s.push_back({"mm-opt", "mm", "White (2013) Listing 4.17", "NE results per thread, A tile in shared memory, B reused from registers", "e", mm_opt_configs(), 512, 8192, 512});
  s.push_back({"sgemm-tiled", "sgemm", "Bayerl (2012) Listing 1", "32×32 C tile per (32,8) block, k-step 8, 4 results per thread (column-major)", "", {{32, 8, 0}}, 512, 8192, 32});
  s.push_back({"sgemm-256x16", "sgemm", "Bayerl (2012) Listing 3", "256×16 C tile per (16,16) block, A streamed from global, B slab staged, 16 results per thread (column-major)", "", {{16, 16, 0}}, 512, 8192, 256});
  s.push_back({"sgemm-64", "sgemm", "Bayerl (2012) Listing 4", "64×64 C tile per (16,16) block, 4×4 results per thread, prefetch (column-major)", "", {{16, 16, 0}}, 512, 8192, 64});
  s.push_back({"conv2d-global", "conv2d", "White (2013) Listing 5.1", "5×5 correlation from global memory", "", conv2d, 512, 16384, 64});
  s.push_back({"conv2d-shared", "conv2d", "White (2013) Listing 5.3", "5×5 correlation, A rows and filter row staged in shared memory", "", conv2d, 512, 16384, 64});
  s.push_back({"dot", "dot", "ECEC 622 (2013) dot product", "grid-stride partial sums, shared tree, atomic combine", "g", with_grids({128, 256, 512, 1024}, {132, 240, 264, 528, 1056}), 1 << 16, 1 << 28, 1});
  s.push_back({"cg", "cg", "White (2013) §5.2, all on the GPU", "10 CG iterations: mv-opt (b from global), dot, axpy kernels", "", mv_opt_configs(), 512, 16384, 64});
  s.push_back({"cholesky-single", "cholesky", "ECEC 622 (2013) chol_kernel", "one block factors the whole matrix", "", blocks_1d({256, 512, 1024}), 256, 2048, 1});
  s.push_back({"cholesky-opt", "cholesky", "ECEC 622 (2013) division/elimination kernels", "per column: division kernel, elimination kernel with one block per row", "", blocks_1d({64, 128, 256, 512, 1024}), 256, 4096, 1});
  s.push_back({"cosine", "cosine", "Cecconi Listing 4.1", "x ← cos(x), 100 times per element", "", blocks_1d({128, 256, 512, 1024}), 1 << 10, 1 << 24, 1});
  s.push_back({"blur", "blur", "Cecconi Listing 4.3", "11×11 box blur of an RGB byte image, one thread per pixel", "", blocks_1d({128, 256, 512, 1024}), 512, 16384, 1});
  return s;
}

}  // namespace

const std::vector<GpuKernelSpec>& gpu_kernel_specs() {
  static const std::vector<GpuKernelSpec> specs = build_specs();
  return specs;
}

const GpuKernelSpec& gpu_kernel_spec(const std::string& name) {
  for (const GpuKernelSpec& s : gpu_kernel_specs())
    if (s.name == name) return s;
  std::string list;
  for (const GpuKernelSpec& s : gpu_kernel_specs()) list += (list.empty() ? "" : ", ") + s.name;
  throw InputError("unknown GPU kernel '" + name + "' (known: " + list + ")");
}

const GpuKernelSpec& gpu_kernel_or_family(const std::string& name) {
  static const std::map<std::string, std::string> optimised = {
      {"mv", "mv-opt"}, {"mm", "mm-opt"}, {"conv2d", "conv2d-shared"}, {"cholesky", "cholesky-opt"}, {"sgemm", "sgemm-64"}};
  const auto it = optimised.find(name);
  return gpu_kernel_spec(it == optimised.end() ? name : it->second);
}

std::string to_string(const KernelConfig& c, const GpuKernelSpec& spec) {
  std::string s = std::to_string(c.bx) + "x" + std::to_string(c.by);
  if (!spec.param_name.empty()) s += "/" + spec.param_name + std::to_string(c.p);
  return s;
}

KernelConfig parse_kernel_config(const std::string& text, const GpuKernelSpec& spec) {
  const std::string where = "launch configuration '" + text + "' for " + spec.name;
  KernelConfig c;
  std::string rest = text;
  const auto slash = rest.find('/');
  std::string param;
  if (slash != std::string::npos) {
    param = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  auto parse_int = [&](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 7)
      throw InputError(where + ": '" + s + "' is not a positive integer (expected X, XxY" +
                       (spec.param_name.empty() ? "" : " or XxY/" + spec.param_name + "P") + ")");
    return std::stoi(s);
  };
  const auto x = rest.find('x');
  c.bx = parse_int(rest.substr(0, x));
  c.by = x == std::string::npos ? 1 : parse_int(rest.substr(x + 1));
  if (!param.empty()) {
    if (spec.param_name.empty()) throw InputError(where + ": this kernel takes no '/…' parameter");
    if (param.rfind(spec.param_name, 0) != 0) throw InputError(where + ": the parameter must be written /" + spec.param_name + "P");
    c.p = parse_int(param.substr(spec.param_name.size()));
  } else if (!spec.param_name.empty()) {
    throw InputError(where + ": give the parameter as XxY/" + spec.param_name + "P");
  }
  return c;
}

std::string config_problem(const GpuKernelSpec& spec, double n, const KernelConfig& c) {
  if (std::find(spec.configs.begin(), spec.configs.end(), c) == spec.configs.end()) {
    std::string list;
    for (const KernelConfig& k : spec.configs) list += (list.empty() ? "" : " ") + to_string(k, spec);
    return spec.name + " is not compiled for " + to_string(c, spec) + " (configurations: " + list + ")";
  }
  if (!(n >= 1) || n != std::floor(n)) return "n must be a positive integer";
  if (n > limits::kMaxProblemSize) return "n must be at most 2^31 - 1";
  const auto ni = static_cast<long long>(n);
  auto need_multiple = [&](long long m, const char* why) -> std::string {
    return ni % m == 0 ? "" : "n = " + std::to_string(ni) + " must be a multiple of " + std::to_string(m) + " (" + why + ")";
  };
  const std::string& f = spec.family;
  if (spec.name == "mv-constant" || spec.name == "mv-shared" || spec.name == "mv-opt")
    if (ni > 16384) return "n = " + std::to_string(ni) + " exceeds the 16384 floats of b that fit constant memory";
  if (spec.name == "mv-shared" || spec.name == "mv-opt" || spec.name == "cg") {
    if (ni < 512) return "n must be at least 512 (the rotated start column runs over 8·64 floats)";
    return need_multiple(c.bx, "a block covers X rows and tiles of X columns");
  }
  if (spec.name == "mv-global" || spec.name == "mv-constant") return need_multiple(c.bx, "one thread per row, no bounds check");
  if (spec.name == "mm-global") return need_multiple(std::max(c.bx, c.by), "whole blocks, no bounds check");
  if (spec.name == "mm-shared") return need_multiple(c.bx, "whole tiles");
  if (spec.name == "mm-opt") {
    std::string p = need_multiple(static_cast<long long>(c.bx) * c.by, "a block covers X·Y columns");
    if (p.empty()) p = need_multiple(c.p, "a block covers NE rows");
    if (p.empty() && ni / c.bx < 8 * (64 / c.bx)) p = "n too small for the rotated start tile";
    return p;
  }
  if (spec.name == "sgemm-tiled") return need_multiple(32, "32×32 tiles, k-step 8");
  if (spec.name == "sgemm-64") return need_multiple(64, "64×64 tiles, k-step 16");
  if (spec.name == "sgemm-256x16") return need_multiple(256, "256-row tiles, k-step 128");
  if (f == "conv2d") return need_multiple(std::max(c.bx, c.by), "whole blocks, no bounds check");
  return "";
}

KernelConfig default_config(const GpuKernelSpec& spec, double n) {
  const std::string& k = spec.name;
  if (k == "mv-global" || k == "mv-constant") return {256, 1, 0};
  if (k == "mv-shared") return {32, 1, 0};
  if (k == "mv-opt" || k == "cg") return {32, pow2_floor(std::min(32.0, std::max(8192.0 / n, 4.0))), 0};  // S0 (4.24)
  if (k == "mm-global") return {16, 16, 0};
  if (k == "mm-shared") return {16, 16, 0};
  if (k == "mm-opt") {  // S0 (4.41): X = 8, NE = 16, Y = min(16, n/(64·min(n/512, 8)))
    return {8, std::max(2, pow2_floor(std::min(16.0, n / (64 * std::min(n / 512, 8.0))))), 16};
  }
  if (k == "conv2d-global" || k == "conv2d-shared") return {16, 4, 0};  // S0 (5.19) at FS = 5
  if (k == "dot") return {256, 1, 240};                                 // S2
  if (k == "cholesky-single") return {512, 1, 0};
  if (k == "cholesky-opt") return {256, 1, 0};  // S2's optimum at n = 2048
  if (k == "cosine" || k == "blur") return {1024, 1, 0};  // S3
  return spec.configs.front();
}

std::vector<std::string> phase_kernel_names(const std::string& kernel, const KernelConfig& c) {
  const std::string xy = std::to_string(c.bx) + "," + std::to_string(c.by);
  if (kernel == "mv-global") return {"mv_global"};
  if (kernel == "mv-constant") return {"mv_constant"};
  if (kernel == "mv-shared") return {"mv_shared<" + std::to_string(c.bx) + ">"};
  if (kernel == "mv-opt") return {"mv_opt<" + xy + ",const>"};
  if (kernel == "mm-global") return {"mm_global"};
  if (kernel == "matmul") return {"matmul_naive"};
  if (kernel == "mm-shared") return {"mm_shared<" + std::to_string(c.bx) + ">"};
  if (kernel == "mm-opt") return {"mm_opt<" + xy + "," + std::to_string(c.p) + ">"};
  if (kernel == "sgemm-tiled") return {"sgemm_tiled"};
  if (kernel == "sgemm-64") return {"sgemm_64"};
  if (kernel == "sgemm-256x16") return {"sgemm_256x16"};
  if (kernel == "conv2d-global") return {"conv_global"};
  if (kernel == "conv2d-shared") return {"conv_shared<" + xy + ">"};
  if (kernel == "dot") return {"dot_kernel<" + std::to_string(c.bx) + ">"};
  if (kernel == "cg") return {"dot_kernel<256>", "mv_opt<" + xy + ",global>", "cg_update_xr", "cg_update_p"};
  if (kernel == "cholesky-single") return {"chol_single"};
  if (kernel == "cholesky-opt") return {"chol_division", "chol_elimination"};
  if (kernel == "cosine") return {"cosine_loop"};
  if (kernel == "blur") return {"blur_kernel"};
  throw InputError("unknown GPU kernel '" + kernel + "'");
}

namespace {

// E[max load] for whole numbers of balls (0 … 32) and bins (1 … 32), exact:
// P(max ≤ t) = balls! / bins^balls · [x^balls] (Σ_{j ≤ t} x^j / j!)^bins.
double max_load_table(int balls, int bins) {
  static const std::vector<std::vector<double>> table = [] {
    std::vector<std::vector<double>> t(33, std::vector<double>(33, 0.0));
    for (int n = 1; n <= 32; ++n) {
      t[n][1] = n;
      for (int b = 2; b <= 32; ++b) {
        double expected = 0;
        for (int top = 0; top < n; ++top) {
          std::vector<double> term(static_cast<std::size_t>(top) + 1), poly(static_cast<std::size_t>(n) + 1, 0.0);
          double f = 1;
          for (int j = 0; j <= top; ++j) term[static_cast<std::size_t>(j)] = 1 / f, f *= j + 1;
          poly[0] = 1;
          for (int k = 0; k < b; ++k) {
            std::vector<double> next(poly.size(), 0.0);
            for (std::size_t i = 0; i < poly.size(); ++i)
              for (std::size_t j = 0; j < term.size() && i + j < poly.size(); ++j) next[i + j] += poly[i] * term[j];
            poly.swap(next);
          }
          double scale = 1;  // n! / b^n
          for (int k = 1; k <= n; ++k) scale *= static_cast<double>(k) / b;
          expected += 1 - std::min(1.0, scale * poly[static_cast<std::size_t>(n)]);
        }
        t[n][b] = expected;
      }
    }
    return t;
  }();
  return table[static_cast<std::size_t>(balls)][static_cast<std::size_t>(bins)];
}

}  // namespace

double expected_max_load(int balls, double bins) {
  balls = std::clamp(balls, 0, 32);
  if (balls == 0) return 0;
  bins = std::clamp(bins, 1.0, 32.0);
  const int lo = static_cast<int>(std::floor(bins)), hi = static_cast<int>(std::ceil(bins));
  const double frac = bins - lo;
  return max_load_table(balls, lo) * (1 - frac) + max_load_table(balls, hi) * frac;
}

double random_atomic_steps(double lanes, double addresses_per_warp, double footprint_bytes, double element_bytes) {
  const int L = static_cast<int>(std::clamp(std::round(lanes), 1.0, 32.0));
  const double words = std::max(1.0, footprint_bytes / element_bytes), sectors = std::max(1.0, footprint_bytes / 32);
  const double A = std::clamp(addresses_per_warp, 1.0, static_cast<double>(L));
  // K': the words the lanes choose from, so that L lanes hit A distinct ones on average.
  const auto distinct = [&](double k) { return k * -std::expm1(L * std::log1p(-1 / k)); };
  double k = 1;
  if (A > 1) {
    if (distinct(words) <= A) {
      k = words;
    } else {
      double lo = 1, hi = words;
      for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (distinct(mid) < A ? lo : hi) = mid;
      }
      k = lo;
    }
  }
  const double s = std::min(sectors, k), per_sector = std::max(1.0, k / s), p = 1 / s;
  // Lanes per sector: binomial(L, 1/s); each sector's steps are its busiest word's lanes.
  double steps = 0, choose = 1;
  for (int n = 0; n <= L; ++n) {
    if (n > 0) choose *= static_cast<double>(L - n + 1) / n;
    const double prob = p >= 1 ? (n == L ? 1.0 : 0.0) : choose * std::pow(p, n) * std::pow(1 - p, L - n);
    steps += prob * expected_max_load(n, per_sector);
  }
  return s * steps;
}

}  // namespace perfmodel
