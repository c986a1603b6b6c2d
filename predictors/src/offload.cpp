#include "perfmodel/predictors/offload.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {
namespace {

std::string num(double v, int digits = 3) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

std::string secs(double s) {
  if (s >= 1) return num(s) + " s";
  if (s >= 1e-3) return num(s * 1e3) + " ms";
  return num(s * 1e6) + " µs";
}

// FP64 FMA ceiling at `threads`: the cpu section's compute table, linear in threads between the
// measured counts, held at the ends.
double fp64_flops(const CpuCalibration& c, double threads) {
  const auto& rows = c.compute.rows;
  if (rows.empty() || rows.front().size() < 3) throw InputError("the profile has no measured CPU FP64 ceiling (cpu.compute)");
  if (threads <= rows.front()[0]) return rows.front()[2];
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (threads <= rows[i][0]) {
      const double u = (threads - rows[i - 1][0]) / (rows[i][0] - rows[i - 1][0]);
      return rows[i - 1][2] + u * (rows[i][2] - rows[i - 1][2]);
    }
  return rows.back()[2];
}

constexpr double kF = 4;  // bytes per float

// Every host byte an operation copies, in and out.
double offload_host_bytes(const std::vector<Transfer>& in, const std::vector<Transfer>& out) {
  double b = 0;
  for (const Transfer& t : in) b += static_cast<double>(t.bytes);
  for (const Transfer& t : out) b += static_cast<double>(t.bytes);
  return b;
}

}  // namespace

// ----------------------------------------------------------------------------- CPU side

CpuWorkload offload_cpu_workload(const std::string& cpu_kernel, double n, int iterations) {
  if (cpu_kernel != "cg") return cpu_workload(cpu_kernel, n);
  if (iterations < 1) throw InputError("--iterations must be >= 1, got " + std::to_string(iterations));
  CpuWorkload w = cpu_workload("cg", n);  // the same code, kCgIterations → iterations (kernel_workload.cpp)
  const double i = iterations;
  w.bytes_read = i * kF * (n * n + 11 * n);
  w.bytes_written = i * kF * 4 * n;
  w.flops = i * (2 * n * n + 10 * n);
  w.parallel_regions = 1 + 5 * i;
  return w;
}

CpuSideTime cpu_side_time(const Profile& cpu_profile, const CpuSide& side) {
  CpuSideTime t;
  if (side.kind == CpuSide::Kind::measured) {
    if (!(side.measured_s > 0)) throw InputError("the measured CPU time must be > 0");
    t.seconds = side.measured_s;
    t.threads = side.threads;
    t.model = "measured (given)";
    t.bound = "measured";
    return t;
  }
  const CpuCalibration& c = cpu_profile.require_cpu();
  if (side.kind == CpuSide::Kind::builtin) {
    const CpuPrediction p = predict_cpu(cpu_profile, side.kernel, side.n, offload_cpu_workload(side.kernel, side.n, side.iterations), side.threads);
    t.seconds = p.seconds;
    t.threads = p.threads;
    t.model = "fitted CPU model of " + side.kernel + " (cpu.kernels." + side.kernel + ", roofline / efficiency at its working set)";
    t.bound = p.memory_bound ? "memory" : "compute";
    t.outside_fitted_sizes = p.outside_fitted_sizes;
    t.extrapolated_threads = p.extrapolated_threads;
    return t;
  }
  const CpuSignature& s = side.signature;
  t.threads = s.threads > 0 ? s.threads : c.max_threads();
  if (!(t.threads >= 1)) throw InputError("cpu.threads must be >= 1");
  if (s.serial_flops > s.flops_fp32) throw InputError("cpu.serial_flops cannot exceed cpu.flops_fp32");
  const double ws = std::max(s.working_set_bytes, 1.0);
  double mem = 0, comp = 0;
  if (s.bytes_read > 0) mem += s.bytes_read / c.bandwidth_Bps("read", ws, t.threads);
  if (s.bytes_written > 0) mem += s.bytes_written / c.bandwidth_Bps("write", ws, t.threads);
  if (s.flops_fp32 > 0) comp += s.serial_flops / c.fp32_flops(1) + (s.flops_fp32 - s.serial_flops) / c.fp32_flops(t.threads);
  if (s.flops_fp64 > 0) comp += s.flops_fp64 / fp64_flops(c, t.threads);
  CpuWorkload w;
  w.parallel_regions = s.parallel_regions;
  const double sync = c.synchronisation_seconds(w, t.threads);
  t.seconds = sync + std::max(mem, comp);
  t.bound = mem >= comp ? "memory" : "compute";
  if (s.efficiency > 0) {
    t.seconds /= s.efficiency;
    t.model = "CPU signature: measured bandwidth curves and FMA ceilings / the given efficiency " + num(s.efficiency);
  } else {
    t.lower_bound = true;
    t.model = "CPU signature: measured bandwidth curves and FMA ceilings (a roofline: a lower bound; give cpu.efficiency to refine)";
  }
  if (!(t.seconds > 0)) throw InputError("the CPU signature moves and computes nothing (all of bytes_read, bytes_written, flops are 0)");
  return t;
}

// ----------------------------------------------------------------------------- decision

OffloadDecision decide_offload(const OffloadTerms& t, const OffloadErrorLevels& e) {
  OffloadDecision d;
  d.terms = t;
  const double gpu = t.gpu_s();
  if (!(gpu > 0) || !(t.cpu_s > 0)) throw InputError("offload decision: both times must be > 0");
  d.speedup = t.cpu_s / gpu;
  const double copies = t.h2d_s + t.d2h_s;
  d.speedup_low = t.cpu_s / (1 + e.cpu) / (t.kernels_s * (1 + e.gpu) + copies * (1 + e.copies));
  const double high_den = t.kernels_s / (1 + e.gpu) + copies / (1 + e.copies);
  if (!t.cpu_lower_bound && high_den > 0) d.speedup_high = t.cpu_s * (1 + e.cpu) / high_den;
  d.decision = t.cpu_s <= gpu ? "cpu" : "gpu";  // Listing 4.18: the CPU on a tie
  d.firm = d.decision == "gpu" ? d.speedup_low > 1 : (d.speedup_high && *d.speedup_high < 1);
  // The dominant term of the GPU side.
  const std::vector<std::pair<std::string, double>> parts = {{"GPU kernels", t.kernels_s}, {"host-to-device copies", t.h2d_s},
                                                             {"device-to-host copies", t.d2h_s}};
  const auto top = *std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const std::string share = num(100 * top.second / gpu, 2) + " %";
  if (d.decision == "gpu") {
    d.dominant = top.first;
    d.reason = "the GPU side (" + secs(gpu) + ") beats the CPU (" + secs(t.cpu_s) + ") by " + num(d.speedup) + "x; its largest term is the " +
               top.first + " (" + share + " of it)";
    if (copies > t.kernels_s) d.reason += ": the copies, not the kernels, set the GPU time";
  } else if (copies >= t.cpu_s) {
      d.dominant = "copies";
    d.reason = "the copies alone (" + secs(copies) + ") take longer than the whole CPU computation (" + secs(t.cpu_s) + ")";
  } else if (t.kernels_s >= t.cpu_s) {
    d.dominant = "GPU kernels";
    d.reason = "the GPU kernels alone (" + secs(t.kernels_s) + ") take longer than the CPU (" + secs(t.cpu_s) + ")";
  } else {
    d.dominant = top.first;
    d.reason = "kernels (" + secs(t.kernels_s) + ") and copies (" + secs(copies) + ") together exceed the CPU time (" + secs(t.cpu_s) +
               "); the largest GPU-side term is the " + top.first + " (" + share + ")";
  }
  if (t.cpu_lower_bound) d.reason += "; the CPU time is a roofline lower bound";
  return d;
}

OffloadCopies::OffloadCopies(const Profile& gpu_profile) : profile_(gpu_profile), comm_(gpu_profile) {
  // Only a curve whose host bytes were out of the caches describes the staging copy from memory;
  // the correction needs the same host's one-thread copy bandwidth against the working set.
  warm_pageable_ = gpu_profile.pcie && gpu_profile.pcie->host_buffer == "rotating" && gpu_profile.cpu &&
                   gpu_profile.cpu->bandwidth.count("copy") > 0;
}

double OffloadCopies::pageable_factor(double host_bytes) const {
  if (!warm_pageable_ || !(host_bytes > 0)) return 1;
  double largest = 0;  // the largest size the pageable curves were timed at
  for (const auto& [key, curve] : profile_.pcie->curves)
    if (key.memory == HostMemory::pageable) largest = std::max(largest, curve.max_bytes);
  if (!(largest > 0)) return 1;
  const CpuCalibration& c = *profile_.cpu;
  // The device reads the staging buffer from the last-level cache at best (its private caches
  // are not the device's to read), so the staging copy runs at most at the copy rate of a working
  // set beyond one core's private L2.
  const double beyond_private = c.cpu.l3_bytes > 0 ? 2 * c.cpu.l2_bytes : 0;  // where the L2 is not the last level
  const double cold = c.bandwidth_Bps("copy", 2 * largest, 1), warm = c.bandwidth_Bps("copy", std::max(2 * host_bytes, beyond_private), 1);
  if (!(cold > 0) || !(warm > 0)) return 1;
  return std::min(1.0, cold / warm);
}

double OffloadCopies::seconds(const Transfer& t, double host_bytes) const {
  TransferPrediction p = comm_.predict(t);
  // The operation copies the same buffers each time it runs: the curve's shift for copies issued
  // among other kinds at a random host page (mixed_setup_s, already in its set-up) does not apply.
  // On the H100 host of GPU 5355697b (2026-11-26, the GPU a8fb659b profile) the offloaded
  // operations' GPU side missed by 9.7 % (median, pinned) with it, 5.2 % without.
  const auto curve = profile_.pcie->curves.find(t.key);
  if (curve != profile_.pcie->curves.end()) p.seconds = std::max(0.0, p.seconds - curve->second.mixed_setup_s);
  if (t.key.memory != HostMemory::pageable || t.key.direction == Direction::bidir) return p.seconds;
  const double r = pageable_factor(host_bytes);
  if (r >= 1) return p.seconds;
  double dma_per_byte = 0;  // the pinned curve's: the staging copy cannot make the DMA faster
  if (profile_.pcie->curves.count({t.key.direction, HostMemory::pinned}))
    dma_per_byte = comm_.predict(Transfer{{t.key.direction, HostMemory::pinned}, t.bytes}).s_per_byte;
  const double b = static_cast<double>(t.bytes);
  const double saved = b * std::max(0.0, (p.s_per_byte - dma_per_byte) * (1 - r));
  return std::max(0.0, p.seconds - saved);
}

double OffloadCopies::seconds(const std::vector<Transfer>& list, double host_bytes) const {
  if (!(host_bytes > 0))
    for (const Transfer& t : list) host_bytes += static_cast<double>(t.bytes);
  double s = 0;
  for (const Transfer& t : list) s += seconds(t, host_bytes);
  return s;
}

GpuRunStart offload_run_start(const GpuCalibration& gpu) {
  GpuRunStart s;
  s.l2_dirty = gpu.l2_write_back.has_value();
  return s;
}

// ----------------------------------------------------------------------------- built-in kernels

const std::vector<std::pair<std::string, std::string>>& offload_kernel_pairs() {
  static const std::vector<std::pair<std::string, std::string>> pairs = {
      {"mv", "mv-opt"},  {"mm", "mm-opt"},         {"dot", "dot"},   {"cg", "cg"},
      {"cholesky", "cholesky-opt"}, {"conv2d", "conv2d-shared"}, {"blur", "blur"}, {"cosine", "cosine"}};
  return pairs;
}

const std::string& offload_gpu_kernel(const std::string& cpu_kernel) {
  for (const auto& [c, g] : offload_kernel_pairs())
    if (c == cpu_kernel) return g;
  std::string list;
  for (const auto& [c, g] : offload_kernel_pairs()) list += (list.empty() ? "" : ", ") + c;
  throw InputError("unknown kernel '" + cpu_kernel + "' (built-in CPU/GPU pairs: " + list + ")");
}

GpuWorkload offload_gpu_workload(const std::string& cpu_kernel, double n, int iterations, const ResourceTable& resources,
                                 const GpuCalibration& gpu) {
  const std::string& gk = offload_gpu_kernel(cpu_kernel);
  const GpuKernelSpec& spec = gpu_kernel_spec(gk);
  const KernelConfig cfg = default_config(spec, n);
  const std::string problem = config_problem(spec, n, cfg);
  if (!problem.empty()) throw InputError(gk + " at n = " + num(n, 10) + ": " + problem);
  GpuWorkload w = describe_gpu_kernel(gk, n, cfg, resources, gpu.device.l2_cache_bytes);
  if (cpu_kernel != "cg") return w;
  if (iterations < 1) throw InputError("--iterations must be >= 1, got " + std::to_string(iterations));
  // describe_cg: [dot ×(1 + 2·it), mv (first), mv ×(it − 1), update x/r ×it, update p ×it].
  if (w.phases.size() != 5) throw RuntimeFailure("cg workload: unexpected phases (gpu_workloads.cpp changed)");
  const double it = iterations;
  w.phases[0].launches = 1 + 2 * it;
  w.phases[2].launches = it - 1;
  w.phases[3].launches = it;
  w.phases[4].launches = it;
  w.flops = it * (2 * n * n + 10 * n);
  GpuPhase setup;  // x = 0, the scalars = 0 (memsets) and p = r (a device copy of 4n bytes, costed as one)
  setup.name = "memset";
  setup.block_x = 32;
  setup.launches = 3;
  w.phases.insert(w.phases.begin(), setup);
  return w;
}

std::vector<Transfer> offload_copies_in(const std::string& k, double n, HostMemory m) {
  const auto b = [](double bytes) { return static_cast<std::uint64_t>(std::llround(bytes)); };
  const Direction h = Direction::h2d;
  if (k == "mv" || k == "cg") return {{{h, m}, b(kF * n * n)}, {{h, m}, b(kF * n)}};
  if (k == "mm") return {{{h, m}, b(kF * n * n)}, {{h, m}, b(kF * n * n)}};
  if (k == "dot") return {{{h, m}, b(kF * n)}, {{h, m}, b(kF * n)}};
  if (k == "cholesky") return {{{h, m}, b(kF * n * n)}};
  if (k == "conv2d") return {{{h, m}, b(kF * n * n)}, {{h, m}, b(kF * kConvFilter * kConvFilter)}};
  if (k == "blur") return {{{h, m}, b(3 * n * n)}};
  if (k == "cosine") return {{{h, m}, b(kF * n)}};
  offload_gpu_kernel(k);
  return {};
}

std::vector<Transfer> offload_copies_out(const std::string& k, double n, HostMemory m) {
  const auto b = [](double bytes) { return static_cast<std::uint64_t>(std::llround(bytes)); };
  const Direction d = Direction::d2h;
  if (k == "mv" || k == "cg" || k == "cosine") return {{{d, m}, b(kF * n)}};
  if (k == "mm" || k == "cholesky" || k == "conv2d") return {{{d, m}, b(kF * n * n)}};
  if (k == "dot") return {{{d, m}, 4}};
  if (k == "blur") return {{{d, m}, b(3 * n * n)}};
  offload_gpu_kernel(k);
  return {};
}

bool offload_splittable(const std::string& k, std::vector<bool>& in, std::vector<bool>& out) {
  offload_gpu_kernel(k);
  if (k == "cg" || k == "cholesky") return false;
  if (k == "mv" || k == "mm" || k == "conv2d") in = {true, false}, out = {true};  // rows of A (and C); b, B, F whole
  else if (k == "dot") in = {true, true}, out = {false};
  else in = {true}, out = {true};
  return true;
}

BuiltinOffload predict_builtin_offload(const Profile& cpu_profile, const Profile& gpu_profile, const std::string& cpu_kernel, double n,
                                       const OffloadOptions& options, const ResourceTable& resources) {
  if (options.iterations < 1) throw InputError("--iterations must be >= 1, got " + std::to_string(options.iterations));
  const GpuCalibration& gpu = gpu_profile.require_gpu();
  BuiltinOffload o;
  o.cpu_kernel = cpu_kernel;
  o.gpu_kernel = offload_gpu_kernel(cpu_kernel);
  o.n = n;
  CpuSide side;
  side.kernel = cpu_kernel;
  side.n = n;
  side.iterations = options.iterations;
  side.threads = options.cpu_threads;
  o.cpu = cpu_side_time(cpu_profile, side);
  o.gpu.kernels = offload_gpu_workload(cpu_kernel, n, options.iterations, resources, gpu);
  o.config = o.gpu.kernels.config;
  o.gpu.copies_in = offload_copies_in(cpu_kernel, n, options.memory);
  o.gpu.copies_out = offload_copies_out(cpu_kernel, n, options.memory);
  const GpuPrediction g = predict_gpu(gpu, o.gpu.kernels, offload_run_start(gpu));
  o.gpu_bound = g.bound;
  o.kernels_launch_s = std::min(g.launch_s, g.seconds);
  std::map<std::string, double> by_name;
  std::vector<std::string> order;
  for (const GpuPhasePrediction& p : g.phases) {
    if (!by_name.count(p.name)) order.push_back(p.name);
    by_name[p.name] += p.seconds;
  }
  for (const std::string& name : order) o.kernel_phases_s.push_back({name, by_name[name]});
  const OffloadCopies copies(gpu_profile);
  const double host_bytes = offload_host_bytes(o.gpu.copies_in, o.gpu.copies_out);
  o.terms.cpu_s = o.cpu.seconds;
  o.terms.kernels_s = g.seconds;
  o.terms.h2d_s = copies.seconds(o.gpu.copies_in, host_bytes);
  o.terms.d2h_s = copies.seconds(o.gpu.copies_out, host_bytes);
  return o;
}

// ----------------------------------------------------------------------------- sizes

std::optional<double> CrossoverResult::gpu_from_n() const {
  if (crossings.empty()) return verdict.rfind("GPU always", 0) == 0 ? std::optional<double>(from_n) : std::nullopt;
  if (crossings.back().wins_above == "gpu") return crossings.back().n;
  return std::nullopt;
}

void offload_size_range(const std::string& cpu_kernel, double& from_n, double& to_n, double& multiple) {
  const GpuKernelSpec& spec = gpu_kernel_spec(offload_gpu_kernel(cpu_kernel));
  to_n = spec.max_n;
  const auto ok = [&](double n) { return config_problem(spec, n, default_config(spec, n)).empty(); };
  // The finest step (a power of two up to the spec's n_multiple, which holds for every compiled
  // configuration) whose multiples the launch rule's configuration accepts across the range
  // (mm-opt: 128, where every configuration needs 512), and the smallest such size from 32 up.
  for (double m = 1; m <= spec.n_multiple; m *= 2) {
    if (std::fmod(spec.n_multiple, m) != 0) continue;
    double first = 0;
    for (double k = std::ceil(32.0 / m); k * m <= to_n && first == 0; ++k)
      if (ok(k * m)) first = k * m;
    if (first == 0) continue;
    bool all = true;
    for (int i = 0; i <= 32 && all; ++i) {
      const double n = std::round(std::exp(std::log(first) + i / 32.0 * (std::log(to_n) - std::log(first))) / m) * m;
      all = ok(n) && (n + m > to_n || ok(n + m));
    }
    if (all || m == spec.n_multiple) {
      multiple = m, from_n = first;
      return;
    }
  }
  throw InputError(spec.name + " accepts no size up to " + num(to_n, 10));
}

CrossoverResult find_crossover(const std::function<double(double)>& speedup, double from_n, double to_n, double multiple,
                               int grid_points) {
  if (!(multiple >= 1)) multiple = 1;
  CrossoverResult r;
  const double k_lo = std::ceil(from_n / multiple), k_hi = std::floor(to_n / multiple);
  if (!(k_lo >= 1) || k_hi < k_lo) throw InputError("size range [" + num(from_n, 10) + ", " + num(to_n, 10) + "] holds no accepted size (multiples of " +
                                                    num(multiple, 10) + ")");
  r.from_n = k_lo * multiple, r.to_n = k_hi * multiple;
  std::map<double, double> cache;  // k → log speedup (NaN: cannot be predicted)
  const auto log_s = [&](double k) {
    const auto it = cache.find(k);
    if (it != cache.end()) return it->second;
    double v = std::nan("");
    try {
      const double s = speedup(k * multiple);
      if (s > 0 && std::isfinite(s)) v = std::log(s);
    } catch (const InputError&) {
    }
    return cache[k] = v;
  };
  std::set<double> grid;
  for (int i = 0; i < grid_points; ++i) {
    const double u = grid_points > 1 ? static_cast<double>(i) / (grid_points - 1) : 0;
    grid.insert(std::clamp(std::round(std::exp(std::log(k_lo) + u * (std::log(k_hi) - std::log(k_lo)))), k_lo, k_hi));
  }
  double prev_k = 0, prev_v = 0;
  bool any = false, all_gpu = true;
  for (double k : grid) {
    const double v = log_s(k);
    if (std::isnan(v)) continue;
    any = true;
    all_gpu = all_gpu && v > 0;
    if (prev_k > 0 && (prev_v > 0) != (v > 0)) {
      double a = prev_k, b = k, va = prev_v, vb = v;
      while (b - a > 1) {  // bisection over the accepted sizes
        const double m = std::floor((a + b) / 2);
        const double vm = log_s(m);
        if (std::isnan(vm)) break;
        if ((vm > 0) == (va > 0)) a = m, va = vm;
        else b = m, vb = vm;
      }
      Crossing c;
      c.n_below = a * multiple, c.n_above = b * multiple;
      const double u = va == vb ? 0.5 : va / (va - vb);
      c.n = std::exp(std::log(c.n_below) + u * (std::log(c.n_above) - std::log(c.n_below)));
      c.wins_above = vb > 0 ? "gpu" : "cpu";
      r.crossings.push_back(c);
    }
    prev_k = k, prev_v = v;
  }
  if (!any) throw InputError("no size in [" + num(r.from_n, 10) + ", " + num(r.to_n, 10) + "] could be predicted");
  const std::string range = "[" + num(r.from_n, 10) + ", " + num(r.to_n, 10) + "]";
  if (r.crossings.empty()) {
    r.verdict = all_gpu ? "GPU always wins in " + range : "GPU never wins in " + range;
  } else {
    for (const Crossing& c : r.crossings) {
      r.verdict += (r.verdict.empty() ? "" : "; ") + std::string(c.wins_above == "gpu" ? "GPU" : "CPU") + " wins from n ≈ " + num(c.n, 4) +
                   " (between " + num(c.n_below, 10) + " and " + num(c.n_above, 10) + ")";
    }
    r.verdict += " in " + range;
  }
  return r;
}

// ----------------------------------------------------------------------------- reuse, overlap, split

ReuseResult reuse_break_even(const std::function<OffloadTerms(int)>& terms_at) {
  // Fit the two lines through 1 and 64 iterations (the launch timeline makes the GPU's per-
  // iteration cost settle after a few), then check the integer answer on the models themselves.
  const int i1 = 1, i2 = 64;
  const OffloadTerms a = terms_at(i1), b = terms_at(i2);
  ReuseResult r;
  r.cpu_per_iteration_s = (b.cpu_s - a.cpu_s) / (i2 - i1);
  r.cpu_fixed_s = a.cpu_s - i1 * r.cpu_per_iteration_s;
  r.gpu_per_iteration_s = (b.gpu_s() - a.gpu_s()) / (i2 - i1);
  r.gpu_fixed_s = a.gpu_s() - i1 * r.gpu_per_iteration_s;
  const auto gpu_wins = [&](int i) {
    const OffloadTerms t = terms_at(i);
    return t.gpu_s() < t.cpu_s;
  };
  if (gpu_wins(1)) {
    r.verdict = "the GPU wins from the first iteration (A's upload is already paid for by one iteration)";
    if (r.gpu_per_iteration_s > r.cpu_per_iteration_s) {
      const double i = (r.cpu_fixed_s - r.gpu_fixed_s) / (r.gpu_per_iteration_s - r.cpu_per_iteration_s);
      r.verdict = "the GPU wins only up to about " + num(i, 4) + " iterations (its per-iteration cost is the larger)";
    }
    return r;
  }
  if (r.cpu_per_iteration_s <= r.gpu_per_iteration_s) {
    r.verdict = "the GPU never wins: an iteration costs " + secs(r.gpu_per_iteration_s) + " on the GPU, " + secs(r.cpu_per_iteration_s) +
                " on the CPU, so no iteration count amortises the copies (" + secs(r.gpu_fixed_s) + ")";
    return r;
  }
  // Smallest integer count at which the GPU wins: bisection on the models from the linear estimate.
  const double estimate = (r.gpu_fixed_s - r.cpu_fixed_s) / (r.cpu_per_iteration_s - r.gpu_per_iteration_s);
  int lo = 1, hi = std::max(2, static_cast<int>(std::ceil(estimate * 2)) + 2);
  while (!gpu_wins(hi) && hi < (1 << 24)) lo = hi, hi *= 2;
  if (!gpu_wins(hi)) {
    r.verdict = "the GPU does not win below 2^24 iterations";
    return r;
  }
  while (hi - lo > 1) {
    const int m = lo + (hi - lo) / 2;
    (gpu_wins(m) ? hi : lo) = m;
  }
  r.break_even_iterations = hi;
  r.verdict = "the GPU wins from " + std::to_string(hi) + " iterations on: the copies (" + secs(r.gpu_fixed_s) + " fixed on the GPU side) are paid back at " +
              secs(r.cpu_per_iteration_s - r.gpu_per_iteration_s) + " per iteration";
  return r;
}

OverlapResult chunked_overlap(const Profile& gpu_profile, const std::vector<Transfer>& fixed_in, const std::vector<Transfer>& chunked_in,
                              const std::vector<Transfer>& chunked_out, double kernels_s, HostMemory memory) {
  OverlapResult r;
  const GpuCalibration& gpu = gpu_profile.require_gpu();
  {
    std::vector<Transfer> in = fixed_in;
    in.insert(in.end(), chunked_in.begin(), chunked_in.end());
    const OffloadCopies copies(gpu_profile);
    const double host_bytes = offload_host_bytes(in, chunked_out);
    r.serial_s = copies.seconds(in, host_bytes) + kernels_s + copies.seconds(chunked_out, host_bytes);
  }
  r.overlapped_s = r.serial_s;
  if (memory == HostMemory::pageable) {
    r.why_not = "pageable copies are staged through the driver's pinned buffer and do not overlap kernels: pin the host memory";
    return r;
  }
  if (!gpu.overlap) {
    r.why_not = "the GPU profile has no gpu.overlap section (copy engines): run perfmodel calibrate --only gpu";
    return r;
  }
  r.copy_engines = gpu.overlap->copy_engines;
  if (r.copy_engines < 1) {
    r.why_not = "the GPU reports no asynchronous copy engine";
    return r;
  }
  r.possible = true;
  const double launch = gpu.launch ? gpu.launch->empty_kernel_s : 0;
  const OffloadCopies copies(gpu_profile);  // pinned here: the curves, less the mixed-issue shift, as in serial_s
  const double fixed = copies.seconds(fixed_in, 1);
  for (int k = 2; k <= 64; k *= 2) {
    const auto part = [&](const std::vector<Transfer>& list) {
      double s = 0;
      for (Transfer t : list) {
        t.bytes = std::max<std::uint64_t>(1, t.bytes / static_cast<std::uint64_t>(k));
        s += copies.seconds(t, 1);
      }
      return s;
    };
    const double h = part(chunked_in), d = part(chunked_out), kc = kernels_s / k + launch;
    const double bottleneck = r.copy_engines >= 2 ? std::max({h, kc, d}) : std::max(h + d, kc);
    const double t = fixed + h + kc + d + (k - 1) * bottleneck;
    if (t < r.overlapped_s) r.overlapped_s = t, r.chunks = k;
  }
  return r;
}

SplitResult split_work(const std::function<double(double)>& cpu_of, const std::function<double(double)>& gpu_of) {
  SplitResult r;
  r.possible = true;
  const double cpu_all = cpu_of(1), gpu_all = gpu_of(1);
  r.best_alone_s = std::min(cpu_all, gpu_all);
  double lo = 0, hi = 1;  // f: cpu_of(f) − gpu_of(1 − f) rises from < 0 to > 0
  for (int i = 0; i < 60; ++i) {
    const double f = (lo + hi) / 2;
    (cpu_of(f) < gpu_of(1 - f) ? lo : hi) = f;
  }
  const double f = (lo + hi) / 2;
  const double t = std::max(f > 0 ? cpu_of(f) : 0.0, f < 1 ? gpu_of(1 - f) : 0.0);
  if (t < r.best_alone_s) {
    r.cpu_fraction = f;
    r.split_s = t;
  } else {  // the fixed costs of the split (copies' set-up, launches) eat the gain
    r.cpu_fraction = cpu_all <= gpu_all ? 1 : 0;
    r.split_s = r.best_alone_s;
  }
  r.saved_s = r.best_alone_s - r.split_s;
  r.saved_fraction = r.saved_s / r.best_alone_s;
  return r;
}

SplitResult split_builtin_offload(const Profile& cpu_profile, const Profile& gpu_profile, const BuiltinOffload& o, const OffloadOptions& options) {
  std::vector<bool> in_scales, out_scales;
  SplitResult none;
  if (!offload_splittable(o.cpu_kernel, in_scales, out_scales)) {
    none.why_not = o.cpu_kernel + " does not split: every step needs the whole matrix and the previous step's result";
    return none;
  }
  const CpuWorkload whole = offload_cpu_workload(o.cpu_kernel, o.n, options.iterations);
  const auto cpu_of = [&](double f) {
    if (f <= 0) return 0.0;
    CpuWorkload w = whole;
    w.bytes_read *= f, w.bytes_written *= f, w.flops *= f, w.serial_flops *= f, w.working_set_bytes *= f;
    return predict_cpu(cpu_profile, o.cpu_kernel, o.n, w, options.cpu_threads).seconds;
  };
  const OffloadCopies model(gpu_profile);
  const auto gpu_of = [&](double g) {
    if (g <= 0) return 0.0;
    double t = o.kernels_launch_s + g * (o.terms.kernels_s - o.kernels_launch_s);
    const auto part = [&](const std::vector<Transfer>& list, const std::vector<bool>& scales) {
      std::vector<Transfer> out = list;
      for (std::size_t i = 0; i < out.size(); ++i)
        if (i < scales.size() && scales[i])
          out[i].bytes = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(g * static_cast<double>(out[i].bytes))));
      return out;
    };
    const std::vector<Transfer> in = part(o.gpu.copies_in, in_scales), out = part(o.gpu.copies_out, out_scales);
    const double host_bytes = offload_host_bytes(in, out);
    return t + model.seconds(in, host_bytes) + model.seconds(out, host_bytes);
  };
  return split_work(cpu_of, gpu_of);
}

OverlapResult overlap_builtin_offload(const Profile& gpu_profile, const BuiltinOffload& o, HostMemory memory) {
  std::vector<bool> in_scales, out_scales;
  if (!offload_splittable(o.cpu_kernel, in_scales, out_scales)) {
    OverlapResult r;
    r.serial_s = o.terms.gpu_s();
    r.overlapped_s = r.serial_s;
    r.why_not = o.cpu_kernel + " does not run in independent chunks (every step needs the whole matrix)";
    return r;
  }
  std::vector<Transfer> fixed, chunked_in, chunked_out;
  for (std::size_t i = 0; i < o.gpu.copies_in.size(); ++i) (in_scales[i] ? chunked_in : fixed).push_back(o.gpu.copies_in[i]);
  for (std::size_t i = 0; i < o.gpu.copies_out.size(); ++i) {
    if (out_scales[i]) chunked_out.push_back(o.gpu.copies_out[i]);
    else fixed.push_back(o.gpu.copies_out[i]);  // a scalar result: once, at the end (costed with the fixed copies)
  }
  return chunked_overlap(gpu_profile, fixed, chunked_in, chunked_out, o.terms.kernels_s, memory);
}

}  // namespace perfmodel
