#include "perfmodel/model/cpu_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_fit.hpp"  // fit_line, relative_errors
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

const std::vector<std::string>& cpu_bandwidth_kinds() {
  static const std::vector<std::string> kinds = {"read", "write", "copy", "triad"};
  return kinds;
}

// ------------------------------------------------------------------ CpuCalibration queries
namespace {

// Log-log interpolation of (size, rate) points sorted by size; clamped at both ends.
double interpolate_loglog(const std::vector<std::pair<double, double>>& pts, double x) {
  if (pts.empty()) return 0;
  if (x <= pts.front().first) return pts.front().second;
  if (x >= pts.back().first) return pts.back().second;
  const auto hi = std::lower_bound(pts.begin(), pts.end(), x, [](const auto& p, double v) { return p.first < v; });
  const auto lo = std::prev(hi);
  const double t = std::log(x / lo->first) / std::log(hi->first / lo->first);
  return std::exp(std::log(lo->second) * (1 - t) + std::log(hi->second) * t);
}

// Linear interpolation in threads between the measured thread counts bracketing `threads`.
template <class At>
double interpolate_threads(const std::set<double>& measured, double threads, At&& at) {
  if (measured.empty()) return 0;
  if (threads <= *measured.begin()) return at(*measured.begin());
  if (threads >= *measured.rbegin()) return at(*measured.rbegin());
  const auto hi = measured.lower_bound(threads);
  if (*hi == threads) return at(threads);
  const auto lo = std::prev(hi);
  const double t = (threads - *lo) / (*hi - *lo);
  return at(*lo) * (1 - t) + at(*hi) * t;
}

}  // namespace

double CpuCalibration::bandwidth_Bps(const std::string& kind, double working_set_bytes, double threads) const {
  const auto it = bandwidth.find(kind);
  if (it == bandwidth.end()) throw InputError("the profile has no measured CPU " + kind + " bandwidth (cpu.bandwidth." + kind + ")");
  const NumericTable& t = it->second;
  std::map<double, std::vector<std::pair<double, double>>> by_threads;
  for (const auto& row : t.rows) by_threads[row[0]].push_back({row[1], row[2]});
  std::set<double> counts;
  for (auto& [threads_measured, pts] : by_threads) std::sort(pts.begin(), pts.end()), counts.insert(threads_measured);
  return interpolate_threads(counts, threads, [&](double th) { return interpolate_loglog(by_threads[th], working_set_bytes); });
}

double CpuCalibration::fp32_flops(double threads) const {
  std::set<double> counts;
  std::map<double, double> rate;
  for (const auto& row : compute.rows) counts.insert(row[0]), rate[row[0]] = row[1];
  if (counts.empty()) throw InputError("the profile has no measured CPU compute ceiling (cpu.compute)");
  return interpolate_threads(counts, threads, [&](double th) { return rate[th]; });
}

double CpuCalibration::dispatch_seconds(double threads) const {
  std::set<double> counts;
  std::map<double, double> seconds;
  for (const auto& row : dispatch.rows) counts.insert(row[0]), seconds[row[0]] = row[1];
  return interpolate_threads(counts, threads, [&](double th) { return seconds[th]; });
}

double CpuCalibration::roofline_seconds(const CpuWorkload& w, double threads) const {
  double memory = 0;
  if (w.bytes_read > 0) memory += w.bytes_read / bandwidth_Bps("read", w.working_set_bytes, threads);
  if (w.bytes_written > 0) memory += w.bytes_written / bandwidth_Bps("write", w.working_set_bytes, threads);
  double arithmetic = 0;
  if (w.flops > 0) arithmetic = w.serial_flops / fp32_flops(1) + (w.flops - w.serial_flops) / fp32_flops(threads);
  return std::max(memory, arithmetic);
}

double CpuCalibration::synchronisation_seconds(const CpuWorkload& w, double threads) const {
  return w.parallel_regions * dispatch_seconds(threads);
}

double CpuCalibration::max_threads() const {
  double m = 0;
  for (const auto& row : compute.rows) m = std::max(m, row[0]);
  return m;
}

// ------------------------------------------------------------------ fits
std::vector<std::pair<std::size_t, std::size_t>> find_plateaus(const std::vector<double>& bandwidths, std::size_t max_plateaus) {
  const std::size_t n = bandwidths.size();
  if (n == 0) return {};
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!(bandwidths[i] > 0)) throw std::invalid_argument("bandwidths must be positive");
    y[i] = std::log(bandwidths[i]);
  }
  // prefix sums for O(1) segment SSE
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) s1[i + 1] = s1[i] + y[i], s2[i + 1] = s2[i] + y[i] * y[i];
  auto sse = [&](std::size_t a, std::size_t b) {  // [a, b)
    const double m = static_cast<double>(b - a);
    return std::max(0.0, s2[b] - s2[a] - (s1[b] - s1[a]) * (s1[b] - s1[a]) / m);
  };
  constexpr std::size_t kMinPoints = 2;
  const std::size_t kmax = std::min(max_plateaus, n / kMinPoints);
  const double inf = std::numeric_limits<double>::infinity();
  // cost[k][j]: best SSE of the first j points in k segments
  std::vector<std::vector<double>> cost(kmax + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<std::size_t>> from(kmax + 1, std::vector<std::size_t>(n + 1, 0));
  cost[0][0] = 0;
  for (std::size_t k = 1; k <= kmax; ++k)
    for (std::size_t j = k * kMinPoints; j <= n; ++j)
      for (std::size_t i = (k - 1) * kMinPoints; i + kMinPoints <= j; ++i) {
        if (cost[k - 1][i] == inf) continue;
        const double c = cost[k - 1][i] + sse(i, j);
        if (c < cost[k][j]) cost[k][j] = c, from[k][j] = i;
      }
  // BIC with a floor on the residual variance (0.5 % noise), so perfect fits do not run away.
  std::size_t best_k = 1;
  double best_bic = inf;
  const double nd = static_cast<double>(n);
  for (std::size_t k = 1; k <= kmax; ++k) {
    if (cost[k][n] == inf) continue;
    const double variance = std::max(cost[k][n] / nd, 0.005 * 0.005);
    const double bic = nd * std::log(variance) + (2.0 * static_cast<double>(k) - 1) * std::log(nd);
    if (bic < best_bic) best_bic = bic, best_k = k;
  }
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t j = n;
  for (std::size_t k = best_k; k >= 1; --k) {
    const std::size_t i = from[k][j];
    out.push_back({i, j - 1});
    j = i;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

double CpuKernelModel::efficiency_at(double w) const {
  std::vector<std::pair<double, double>> nodes;
  for (const auto& row : efficiency.rows) nodes.push_back({row[0], row[1]});
  if (nodes.empty()) throw InputError("a CPU kernel model without efficiency nodes");
  if (w <= nodes.front().first) return nodes.front().second;
  if (w >= nodes.back().first) return nodes.back().second;
  const auto hi = std::lower_bound(nodes.begin(), nodes.end(), w, [](const auto& p, double v) { return p.first < v; });
  const auto lo = std::prev(hi);
  const double t = std::log(w / lo->first) / std::log(hi->first / lo->first);
  return lo->second * (1 - t) + hi->second * t;
}

double CpuKernelModel::thread_factor(double w, double t) const {
  if (one_thread.rows.empty() || !(t < threads) || !(threads > 1)) return 1;
  std::vector<std::pair<double, double>> nodes;
  for (const auto& row : one_thread.rows) nodes.push_back({row[0], row[1]});
  double rho = nodes.front().second;
  if (w >= nodes.back().first) rho = nodes.back().second;
  else if (w > nodes.front().first) {
    const auto hi = std::lower_bound(nodes.begin(), nodes.end(), w, [](const auto& p, double v) { return p.first < v; });
    const auto lo = std::prev(hi);
    const double x = std::log(w / lo->first) / std::log(hi->first / lo->first);
    rho = lo->second * (1 - x) + hi->second * x;
  }
  const double along = (std::max(t, 1.0) - 1) / (threads - 1);
  return rho + (1 - rho) * along;
}

double CpuKernelModel::one_thread_efficiency(double w) const {
  if (one_thread.rows.empty()) return 0;
  const auto& rows = one_thread.rows;
  const auto e1 = [&](std::size_t i) { return rows[i][1] * efficiency_at(rows[i][0]); };
  if (w <= rows.front()[0]) return e1(0);
  if (w >= rows.back()[0]) return e1(rows.size() - 1);
  std::size_t i = 1;
  while (rows[i][0] < w) ++i;
  const double x = std::log(w / rows[i - 1][0]) / std::log(rows[i][0] / rows[i - 1][0]);
  return std::exp(std::log(e1(i - 1)) * (1 - x) + std::log(e1(i)) * x);
}

CpuKernelModel fit_kernel_model(std::vector<KernelPoint> fit_set, const std::vector<KernelPoint>& holdout_set) {
  if (fit_set.empty()) throw std::invalid_argument("a kernel model needs at least one fitted size");
  std::sort(fit_set.begin(), fit_set.end(), [](const KernelPoint& a, const KernelPoint& b) { return a.working_set_bytes < b.working_set_bytes; });
  CpuKernelModel m;
  m.efficiency.columns = {"working_set_bytes", "efficiency"};
  for (const KernelPoint& p : fit_set) {
    if (!(p.roofline_s > 0 && p.measured_s > 0)) throw std::invalid_argument("times must be positive");
    if (!m.efficiency.rows.empty() && m.efficiency.rows.back()[0] == p.working_set_bytes) continue;
    m.efficiency.rows.push_back({p.working_set_bytes, p.roofline_s / p.measured_s});
  }
  if (!holdout_set.empty()) {
    std::vector<double> model, measured;
    for (const KernelPoint& p : holdout_set)
      model.push_back(p.roofline_s / m.efficiency_at(p.working_set_bytes)), measured.push_back(p.measured_s);
    m.holdout = relative_errors(model, measured);
  }
  return m;
}

namespace {

double param_of(const SeriesPoint& p, const std::string& name, const std::string& series) {
  const auto it = p.params.find(name);
  if (it == p.params.end()) throw InputError(series + ": a sample has no parameter '" + name + "'");
  return it->second;
}

std::string level_for(const CpuInfo& cpu, double upper_bytes, double threads) {
  for (int level = 1; level <= 3; ++level) {
    const double capacity = cpu.aggregate_cache_bytes(level, threads);
    if (capacity > 0 && upper_bytes <= 2 * capacity) return "L" + std::to_string(level);
  }
  return "memory";
}

}  // namespace

CpuCalibration fit_cpu(const CpuSampleFile& file, const std::string& samples_file) {
  CpuCalibration c;
  c.samples_file = samples_file;
  c.calibration_wall_s = file.calibration_wall_s;
  c.cpu = file.cpu;
  std::set<std::string> series_names;
  for (const BenchmarkSample& s : file.samples) series_names.insert(s.series);
  for (const std::string& name : series_names) {
    const bool known = name.rfind("kernel.", 0) == 0 || name == "compute.fp32" || name == "compute.fp64" || name == "sync.dispatch" ||
                       (name.rfind("bandwidth.", 0) == 0 &&
                        std::count(cpu_bandwidth_kinds().begin(), cpu_bandwidth_kinds().end(), name.substr(10)) == 1);
    if (!known) throw InputError(samples_file + ": unknown series '" + name + "'");
  }
  // Bandwidth curves and their plateaus.
  for (const std::string& kind : cpu_bandwidth_kinds()) {
    const std::string series = "bandwidth." + kind;
    if (!series_names.count(series)) continue;
    NumericTable t{{"threads", "working_set_bytes", "Bps"}, {}};
    std::map<double, std::map<double, double>> curves;  // threads → size → rate
    for (const SeriesPoint& p : series_medians(file.samples, series))
      curves[param_of(p, "threads", series)][param_of(p, "working_set_bytes", series)] = p.median_rate;
    for (const auto& [threads, curve] : curves)
      for (const auto& [size, rate] : curve) t.rows.push_back({threads, size, rate});
    c.bandwidth[kind] = t;
    if (kind != "read") continue;
    for (const auto& [threads, curve] : curves) {
      std::vector<double> sizes, raw;
      for (const auto& [size, rate] : curve) sizes.push_back(size), raw.push_back(rate);
      // A 3-point running median first: one stalled measurement (seen on the H100 host: 9 GB/s
      // between 507 and 1122 GB/s) must not become a plateau of its own.
      std::vector<double> rates = raw;
      for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
        double w[3] = {raw[i - 1], raw[i], raw[i + 1]};
        std::sort(w, w + 3);
        rates[i] = w[1];
      }
      const auto ranges = find_plateaus(rates);
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        const auto [a, b] = ranges[i];
        CachePlateau p;
        p.threads = threads;
        p.from_bytes = i == 0 ? 0 : std::sqrt(sizes[a - 1] * sizes[a]);
        p.to_bytes = i + 1 == ranges.size() ? std::numeric_limits<double>::infinity() : std::sqrt(sizes[b] * sizes[b + 1]);
        p.read_Bps = summarize(std::vector<double>(rates.begin() + static_cast<long>(a), rates.begin() + static_cast<long>(b) + 1)).median;
        p.points = static_cast<double>(b - a + 1);
        p.level = i + 1 == ranges.size() && ranges.size() > 1 ? "memory" : level_for(c.cpu, p.to_bytes, threads);
        c.plateaus.push_back(p);
      }
    }
  }
  // Thread-pool dispatch cost.
  if (series_names.count("sync.dispatch")) {
    c.dispatch.columns = {"threads", "seconds"};
    for (const SeriesPoint& p : series_medians(file.samples, "sync.dispatch"))
      c.dispatch.rows.push_back({param_of(p, "threads", "sync.dispatch"), 1.0 / p.median_rate});
    std::sort(c.dispatch.rows.begin(), c.dispatch.rows.end());
  }
  // Compute ceilings.
  if (series_names.count("compute.fp32")) {
    c.compute.columns = {"threads", "fp32_flops", "fp64_flops"};
    std::map<double, std::pair<double, double>> rates;
    for (const char* precision : {"fp32", "fp64"}) {
      const std::string series = std::string("compute.") + precision;
      for (const SeriesPoint& p : series_medians(file.samples, series)) {
        auto& r = rates[param_of(p, "threads", series)];
        (precision[2] == '3' ? r.first : r.second) = std::max(precision[2] == '3' ? r.first : r.second, p.median_rate);
      }
    }
    for (const auto& [threads, r] : rates) c.compute.rows.push_back({threads, r.first, r.second});
  }
  // Kernel models, on top of the curves just derived. A series holds, per size, batches of
  // back-to-back runs at all threads, and (calibrations from 2026-11-26 on) single runs timed on
  // their own (param single = 1) and batches at one thread at two sizes.
  for (const std::string& name : series_names) {
    if (name.rfind("kernel.", 0) != 0) continue;
    const std::string kernel = name.substr(7);
    const std::vector<SeriesPoint> points = series_medians(file.samples, name);
    const auto single = [](const SeriesPoint& p) {
      const auto it = p.params.find("single");
      return it != p.params.end() && it->second != 0;
    };
    double threads = 0;  // the model's: the most the series measured
    for (const SeriesPoint& p : points) threads = std::max(threads, param_of(p, "threads", name));
    // Where single runs were timed the model is fitted on them: a program times one call, and
    // what a call costs beyond its share of a batch (the pool's wake-up, caches a batch keeps
    // warm) is part of that time. Sizes whose one run lasted a whole sample have batches only
    // (each sample one run: a single run already).
    std::map<std::pair<double, double>, double> batch_s, single_s;  // (n, holdout) → per-run time at `threads`
    std::vector<std::pair<double, double>> one_thread_s;           // n → per-run time at one thread
    for (const SeriesPoint& p : points) {
      const double t = param_of(p, "threads", name), n = param_of(p, "n", name);
      // A sample times `amount` runs. A kernel's typical time is the interquartile mean of its
      // samples, as for PCIe copies: on the H100 host's 16 vCPUs the multi-threaded speed
      // drifts within a run, and the median of its 15 samples jumps with it (mv held out at
      // 13.9 % with medians, 7.9 % with interquartile means, same samples).
      const double per_run = 1.0 / p.typical_rate;
      if (t == threads) (single(p) ? single_s : batch_s)[{n, param_of(p, "holdout", name)}] = per_run;
      else if (t == 1 && !single(p)) one_thread_s.push_back({n, per_run});
    }
    std::vector<KernelPoint> fit_set, holdout_set;
    std::map<double, double> all_threads_s;  // n → the model's per-run time there (fit sizes)
    for (const auto& [key, batch] : batch_s) {
      const auto it = single_s.find(key);
      const double per_run = it != single_s.end() ? it->second : batch;
      const CpuWorkload w = cpu_workload(kernel, key.first);
      const bool holdout = key.second != 0;
      if (!holdout) all_threads_s[key.first] = per_run;
      (holdout ? holdout_set : fit_set).push_back({w.working_set_bytes, c.roofline_seconds(w, threads) + c.synchronisation_seconds(w, threads), per_run});
    }
    try {
      CpuKernelModel m = fit_kernel_model(fit_set, holdout_set);
      m.threads = threads;
      m.one_thread.columns = {"working_set_bytes", "ratio"};
      for (const auto& [n, t1] : one_thread_s) {
        const auto it = all_threads_s.find(n);
        if (it == all_threads_s.end()) continue;
        const CpuWorkload w = cpu_workload(kernel, n);
        const double e1 = (c.roofline_seconds(w, 1) + c.synchronisation_seconds(w, 1)) / t1;
        const double e_all = (c.roofline_seconds(w, threads) + c.synchronisation_seconds(w, threads)) / it->second;
        if (e1 > 0 && e_all > 0) m.one_thread.rows.push_back({w.working_set_bytes, e1 / e_all});
      }
      std::sort(m.one_thread.rows.begin(), m.one_thread.rows.end());
      c.kernels[kernel] = m;
    } catch (const std::invalid_argument& e) {
      throw InputError(samples_file + ": " + name + ": cannot fit: " + e.what());
    }
  }
  return c;
}

namespace {
constexpr double kBusyMeanError = 0.10, kBusyMaxError = 0.30;
std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * fraction);
  return text;
}
}  // namespace

std::vector<std::string> cpu_calibration_warnings(const CpuCalibration& c, double tolerance) {
  if (!(tolerance >= 0) || !std::isfinite(tolerance)) throw std::invalid_argument("cpu_calibration_warnings: the tolerance must be ≥ 0");
  const std::vector<std::string> order = {"L1", "L2", "L3", "memory"};
  // The best read rate of each level per thread count (a level may be split where its curve bends).
  std::map<double, std::map<std::string, double>> best;
  for (const CachePlateau& p : c.plateaus) {
    double& b = best[p.threads][p.level];
    b = std::max(b, p.read_Bps);
  }
  const auto threads_text = [](double t) { return std::to_string(std::lround(t)) + (t == 1 ? " thread" : " threads"); };
  std::vector<std::string> out;
  for (const auto& [threads, levels] : best) {
    const std::string* slower = nullptr;  // the last level present, walking from L1 outwards
    for (const std::string& level : order) {
      const auto it = levels.find(level);
      if (it == levels.end()) continue;
      if (slower && it->second > levels.at(*slower) * (1 + tolerance))
        out.push_back(threads_text(threads) + " read the " + level + " plateau faster (" + format_rate(it->second) + ") than the " + *slower +
                      " plateau (" + format_rate(levels.at(*slower)) + ")");
      slower = &it->first;
    }
  }
  for (const std::string& level : order) {
    double fewer = 0, fewer_rate = 0;
    for (const auto& [threads, levels] : best) {
      const auto it = levels.find(level);
      if (it == levels.end()) continue;
      if (fewer > 0 && it->second < fewer_rate * (1 - tolerance))
        out.push_back(threads_text(threads) + " read the " + level + " plateau slower (" + format_rate(it->second) + ") than " +
                      threads_text(fewer) + " (" + format_rate(fewer_rate) + ")");
      fewer = threads, fewer_rate = it->second;
    }
  }
  // The kernel models judged on their held-out sizes, at twice issue 4's mean target or three
  // times its max: timings that scattered that much came from a busy host, not from the model.
  for (const auto& [name, model] : c.kernels)
    if (model.holdout && (model.holdout->mean_rel_error > kBusyMeanError || model.holdout->max_rel_error > kBusyMaxError))
      out.push_back("the " + name + " model missed its held-out sizes by " + percent(model.holdout->mean_rel_error) + " on average, up to " +
                    percent(model.holdout->max_rel_error));
  for (std::string& m : out) m += ": the host was probably busy; calibrate its CPU again on a quiet machine";
  return out;
}

}  // namespace perfmodel
