#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/stream_calibration.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

// ------------------------------------------------------------------ vocabulary
const std::vector<CeilingKind>& ceiling_kinds() {
  static const std::vector<CeilingKind> kinds = {
      {"dram_read", "B/s", "DRAM read (sum of a far-larger-than-L2 array)"},
      {"dram_write", "B/s", "DRAM write (fill)"},
      {"dram_copy", "B/s", "DRAM copy a = b (bytes read + written)"},
      {"dram_triad", "B/s", "DRAM triad a = b + s*c (bytes read + written)"},
      {"l2_read", "B/s", "L2 read (working set a fraction of L2, re-read)"},
      {"shared_load", "B/s", "shared-memory loads, conflict-free"},
      {"shared_store", "B/s", "shared-memory stores, conflict-free"},
      {"fp32", "flop/s", "FP32 FMA (2 flop each)"},
      {"fp64", "flop/s", "FP64 FMA (2 flop each)"},
      {"fp16", "flop/s", "FP16 half2 FMA, non-tensor (4 flop each)"},
      {"fp16_constant_operand", "flop/s", "FP16 half2 FMA with one constant operand (a*x+c, a a scalar), non-tensor"},
      {"int32", "op/s", "INT32 multiply-add (2 op each)"},
      {"int32_logic", "op/s", "INT32 shift/xor/add chain (each operation as written 1 op)"},
      {"cosf", "call/s", "cosf() (accurate, with range reduction)"},
      {"sinf", "call/s", "sinf() (accurate, with range reduction)"},
      {"fast_cosf", "call/s", "__cosf() (SFU approximation)"},
      {"tensor_fp16", "flop/s", "tensor-core MMA, FP16 inputs, FP32 accumulate (mma.sync m16n8k16, dense)"},
      {"tensor_bf16", "flop/s", "tensor-core MMA, BF16 inputs, FP32 accumulate (mma.sync m16n8k16, dense)"},
      {"tensor_tf32", "flop/s", "tensor-core MMA, TF32 inputs, FP32 accumulate (mma.sync m16n8k8, dense)"},
      {"tensor_int8", "op/s", "tensor-core MMA, INT8 inputs, INT32 accumulate (mma.sync m16n8k32, dense)"},
      {"tensor_fp8", "flop/s", "tensor-core MMA, FP8 E4M3 inputs, FP32 accumulate (mma.sync m16n8k32, dense)"},
  };
  return kinds;
}

const CeilingKind* find_ceiling_kind(const std::string& name) {
  for (const CeilingKind& k : ceiling_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

double SaturationCurve::bandwidth_Bps(double q) const {
  if (q <= 0) return 0;
  const double x = q / (peak_Bps * latency_s);
  // x / (1 + x^k)^(1/k), computed without overflow for large x.
  if (x > 1) return peak_Bps / std::pow(std::pow(x, -sharpness) + 1.0, 1.0 / sharpness);
  return peak_Bps * x / std::pow(1.0 + std::pow(x, sharpness), 1.0 / sharpness);
}

double SaturationCurve::bytes_in_flight(double sms, double warps_per_sm, double loads_per_thread, double request_bytes) const {
  // A limit on outstanding requests, whatever their size: the validation kernels with 128-byte
  // requests (mv-opt) follow it as the 256-byte calibration did.
  const double loads = max_requests_per_warp > 0 ? std::min(loads_per_thread, max_requests_per_warp) : loads_per_thread;
  return sms * warps_per_sm * loads * request_bytes;
}

double SaturationCurve::bytes_in_flight_for(double fraction) const {
  if (!(fraction > 0 && fraction < 1)) throw std::invalid_argument("fraction of peak must be in (0, 1)");
  const double x = fraction / std::pow(1.0 - std::pow(fraction, sharpness), 1.0 / sharpness);
  return x * peak_Bps * latency_s;
}

const std::vector<std::string>& atomic_type_names() {
  static const std::vector<std::string> names = {"int32", "fp32", "fp64"};
  return names;
}

double AtomicCurve::seconds_per_update_at(double distinct_addresses) const {
  if (addresses.empty()) return 0;
  if (distinct_addresses <= addresses.front()) return seconds_per_update.front();
  if (distinct_addresses >= addresses.back()) return seconds_per_update.back();
  std::size_t i = 1;
  while (addresses[i] < distinct_addresses) ++i;
  const double u = std::log(distinct_addresses / addresses[i - 1]) / std::log(addresses[i] / addresses[i - 1]);
  return std::exp(std::log(seconds_per_update[i - 1]) + u * std::log(seconds_per_update[i] / seconds_per_update[i - 1]));
}

double RandomReadCalibration::sectors_per_s_at(double footprint) const {
  if (footprint_bytes.empty()) return 0;
  if (footprint <= footprint_bytes.front()) return sectors_per_s.front();
  if (footprint >= footprint_bytes.back()) return sectors_per_s.back();
  std::size_t i = 1;
  while (footprint_bytes[i] < footprint) ++i;
  const double u = std::log(footprint / footprint_bytes[i - 1]) / std::log(footprint_bytes[i] / footprint_bytes[i - 1]);
  return sectors_per_s[i - 1] + u * (sectors_per_s[i] - sectors_per_s[i - 1]);
}

double random_read_sectors(double reads, double footprint, double l2_bytes, double sector_bytes) {
  const double touched = reads * sector_bytes, distinct = -footprint * std::expm1(-touched / footprint);
  return (distinct + (touched - distinct) * std::max(0.0, 1 - l2_bytes / distinct)) / sector_bytes;
}

double ConflictCurve::penalty(double degree) const {
  if (seconds_per_access.empty() || degree <= 1) return 1.0;
  const double base = seconds_per_access.front();
  const double top = static_cast<double>(seconds_per_access.size());
  if (degree >= top) return (intercept_s + slope_s * degree) / (intercept_s + slope_s * top) * seconds_per_access.back() / base;
  const auto lo = static_cast<std::size_t>(std::floor(degree));  // 1 ≤ lo < size()
  const double frac = degree - static_cast<double>(lo);
  return (seconds_per_access[lo - 1] * (1 - frac) + seconds_per_access[lo] * frac) / base;
}

bool NumericTable::has(const std::string& name) const { return std::find(columns.begin(), columns.end(), name) != columns.end(); }

std::size_t NumericTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  throw std::out_of_range("table has no column '" + name + "'");
}

const MeasuredRate& GpuCalibration::ceiling(const std::string& name) const {
  const auto it = ceilings.find(name);
  if (it == ceilings.end()) throw InputError("the profile has no measured ceiling '" + name + "' (gpu.ceilings)");
  return it->second;
}

// ------------------------------------------------------------------ generic fits
FitQuality relative_errors(const std::vector<double>& model, const std::vector<double>& measured) {
  FitQuality q;
  q.sizes = measured.size();
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double e = std::abs(model[i] - measured[i]) / measured[i];
    q.mean_rel_error += e;
    q.max_rel_error = std::max(q.max_rel_error, e);
  }
  if (q.sizes) q.mean_rel_error /= static_cast<double>(q.sizes);
  return q;
}

LineFit fit_line(const std::vector<XY>& points) {
  if (points.size() < 2) throw std::invalid_argument("a line needs at least 2 points");
  Eigen::MatrixXd a(points.size(), 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(points.size()));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double y = points[i].y;
    if (!(y > 0) || !std::isfinite(y) || !std::isfinite(points[i].x))
      throw std::invalid_argument("line fit needs positive, finite ordinates");
    a(static_cast<Eigen::Index>(i), 0) = 1.0 / y;
    a(static_cast<Eigen::Index>(i), 1) = points[i].x / y;
  }
  const Eigen::Vector2d c = a.colPivHouseholderQr().solve(b);
  LineFit fit;
  fit.intercept = c(0);
  fit.slope = c(1);
  std::vector<double> model, measured;
  for (const XY& p : points) {
    model.push_back(fit.intercept + fit.slope * p.x);
    measured.push_back(p.y);
  }
  fit.quality = relative_errors(model, measured);
  return fit;
}

namespace {

double saturation_objective(const std::array<double, 3>& theta, const std::vector<XY>& points) {
  SaturationCurve c;
  c.peak_Bps = std::exp(theta[0]);
  c.latency_s = std::exp(theta[1]);
  c.sharpness = std::exp(theta[2]);
  double sum = 0;
  for (const XY& p : points) {
    const double r = (c.bandwidth_Bps(p.x) - p.y) / p.y;
    sum += r * r;
  }
  return std::isfinite(sum) ? sum : std::numeric_limits<double>::max();
}

// Nelder–Mead on a 3-vector; small, deterministic, and enough for a smooth 3-parameter fit.
std::array<double, 3> nelder_mead(std::array<double, 3> start, const std::vector<XY>& points) {
  using P = std::array<double, 3>;
  std::array<P, 4> simplex;
  std::array<double, 4> value;
  const std::array<double, 3> step = {0.1, 0.2, 0.3};
  for (int i = 0; i < 4; ++i) {
    simplex[i] = start;
    if (i > 0) simplex[i][i - 1] += step[i - 1];
    value[i] = saturation_objective(simplex[i], points);
  }
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::array<int, 4> order = {0, 1, 2, 3};
    std::sort(order.begin(), order.end(), [&](int a, int b) { return value[a] < value[b]; });
    const int best = order[0], worst = order[3], second_worst = order[2];
    if (value[worst] - value[best] <= 1e-14 * (1 + value[best])) break;
    P centroid{0, 0, 0};
    for (int i : {order[0], order[1], order[2]})
      for (int d = 0; d < 3; ++d) centroid[d] += simplex[i][d] / 3.0;
    auto along = [&](double t) {
      P p;
      for (int d = 0; d < 3; ++d) p[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
      return p;
    };
    const P reflected = along(-1.0);
    const double fr = saturation_objective(reflected, points);
    if (fr < value[best]) {
      const P expanded = along(-2.0);
      const double fe = saturation_objective(expanded, points);
      if (fe < fr) simplex[worst] = expanded, value[worst] = fe;
      else simplex[worst] = reflected, value[worst] = fr;
    } else if (fr < value[second_worst]) {
      simplex[worst] = reflected, value[worst] = fr;
    } else {
      const P contracted = along(0.5);
      const double fc = saturation_objective(contracted, points);
      if (fc < value[worst]) {
        simplex[worst] = contracted, value[worst] = fc;
      } else {
        for (int i = 0; i < 4; ++i) {
          if (i == best) continue;
          for (int d = 0; d < 3; ++d) simplex[i][d] = simplex[best][d] + 0.5 * (simplex[i][d] - simplex[best][d]);
          value[i] = saturation_objective(simplex[i], points);
        }
      }
    }
  }
  return simplex[static_cast<std::size_t>(std::min_element(value.begin(), value.end()) - value.begin())];
}

}  // namespace

SaturationCurve fit_saturation(const std::vector<XY>& fit_set, const std::vector<XY>& holdout_set) {
  if (fit_set.size() < 3) throw std::invalid_argument("a saturation fit needs at least 3 points");
  double y_max = 0;
  for (const XY& p : fit_set) {
    if (!(p.x > 0 && p.y > 0) || !std::isfinite(p.x) || !std::isfinite(p.y))
      throw std::invalid_argument("saturation fit needs positive, finite bytes in flight and bandwidths");
    y_max = std::max(y_max, p.y);
  }
  // Grid start: latency 10 ns … 100 µs, peak 0.8 … 1.5 × the largest bandwidth seen, sharpness 0.5 … 32.
  std::array<double, 3> best{};
  double best_value = std::numeric_limits<double>::max();
  for (int il = 0; il <= 40; ++il)
    for (int ip = 0; ip <= 14; ++ip)
      for (double k : {0.5, 1.0, 2.0, 4.0, 8.0, 32.0}) {
        const std::array<double, 3> theta = {std::log(y_max * (0.8 + 0.05 * ip)), std::log(1e-8) + il * std::log(1e4) / 40,
                                             std::log(k)};
        const double v = saturation_objective(theta, fit_set);
        if (v < best_value) best_value = v, best = theta;
      }
  best = nelder_mead(best, fit_set);
  best = nelder_mead(best, fit_set);  // restart: Nelder–Mead can stall on a degenerate simplex
  SaturationCurve c;
  c.peak_Bps = std::exp(best[0]);
  c.latency_s = std::exp(best[1]);
  c.sharpness = std::exp(best[2]);
  c.points = fit_set.size();
  auto quality = [&](const std::vector<XY>& set) {
    std::vector<double> model, measured;
    for (const XY& p : set) model.push_back(c.bandwidth_Bps(p.x)), measured.push_back(p.y);
    return relative_errors(model, measured);
  };
  c.fit = quality(fit_set);
  if (!holdout_set.empty()) c.holdout = quality(holdout_set);
  return c;
}

SaturationCurve fit_concurrency(const std::vector<ConcurrencyPoint>& fit_set, const std::vector<ConcurrencyPoint>& holdout_set) {
  auto points = [](const std::vector<ConcurrencyPoint>& set, double limit) {
    SaturationCurve shape;
    shape.max_requests_per_warp = limit;
    std::vector<XY> out;
    for (const ConcurrencyPoint& p : set)
      out.push_back({shape.bytes_in_flight(p.sms, p.warps_per_sm, p.loads_per_thread, p.request_bytes), p.bandwidth_Bps});
    return out;
  };
  // One fit per candidate limit (1, 1.5, ... 32), on as many threads as the host has: they are
  // independent, and the choice below visits them in order, so the result is the serial one's.
  // Serially they were 2-3 s of every calibration's fit (2026-11-27).
  std::vector<double> limits;
  for (double limit = 1; limit <= 32; limit += 0.5) limits.push_back(limit);
  std::vector<SaturationCurve> curves(limits.size());
  std::vector<double> rss(limits.size(), 0.0);
  std::vector<std::exception_ptr> failed(limits.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < limits.size();) try {
        const std::vector<XY> fit_points = points(fit_set, limits[i]);
        curves[i] = fit_saturation(fit_points, {});
        for (const XY& p : fit_points) rss[i] += std::pow((curves[i].bandwidth_Bps(p.x) - p.y) / p.y, 2);
      } catch (...) {
        failed[i] = std::current_exception();
      }
  };
  const std::size_t helpers = std::min<std::size_t>(limits.size(), std::max(1u, std::thread::hardware_concurrency())) - 1;
  std::vector<std::thread> threads;
  try {
    for (std::size_t t = 0; t < helpers; ++t) threads.emplace_back(work);
  } catch (const std::system_error&) {  // no more threads: those started and this one do the rest
  }
  work();
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  SaturationCurve best;
  double best_rss = std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < limits.size(); ++i)
    if (rss[i] < best_rss) {
      best_rss = rss[i];
      best = curves[i];
      best.max_requests_per_warp = limits[i];
    }
  if (!holdout_set.empty()) {
    std::vector<double> model, measured;
    for (const XY& p : points(holdout_set, best.max_requests_per_warp)) model.push_back(best.bandwidth_Bps(p.x)), measured.push_back(p.y);
    best.holdout = relative_errors(model, measured);
  }
  return best;
}

// ------------------------------------------------------------------ fit_gpu
namespace {

struct Config {
  std::map<std::string, double> params;
  std::vector<double> seconds, rates;  // per repetition
  double median_seconds() const { return summarize(seconds).median; }
  double median_rate() const { return summarize(rates).median; }
  // Median time per unit of work (per access, per kernel, …).
  double median_seconds_per_unit() const {
    std::vector<double> per;
    for (double r : rates) per.push_back(1.0 / r);
    return summarize(per).median;
  }
  double param(const std::string& name, const std::string& series) const {
    const auto it = params.find(name);
    if (it == params.end()) throw InputError(series + ": a sample has no parameter '" + name + "'");
    return it->second;
  }
};

// Samples of one series grouped by configuration, in a deterministic order.
using Series = std::map<std::string, Config>;

std::map<std::string, Series> group(const std::vector<BenchmarkSample>& samples) {
  std::map<std::string, Series> out;
  for (const BenchmarkSample& s : samples) {
    Config& c = out[s.series][s.params_text()];
    c.params = s.params;
    c.seconds.push_back(s.seconds);
    c.rates.push_back(s.amount / s.seconds);
  }
  return out;
}

// Sectors of `sector` bytes one warp touches when lane i reads `element` bytes at i·stride·element.
double sectors_per_request(double stride_elements, double element_bytes, double warp, double sector) {
  // From a samples file: bounded before the loops and the integer conversions below.
  if (!(stride_elements >= 0 && stride_elements <= 1e6 && element_bytes >= 1 && element_bytes <= 1024 && warp >= 1 &&
        warp <= limits::kMaxWarpSize && sector >= 1 && sector <= 65536))
    throw InputError("dram.stride: stride_elements (0 … 1e6), element_bytes (1 … 1024), the warp size (1 … 64) and the "
                     "sector size (1 … 65536) of the samples lie outside what a GPU has");
  std::set<long long> sectors;
  for (int lane = 0; lane < static_cast<int>(warp); ++lane) {
    const double first = lane * stride_elements * element_bytes;
    for (double b = first; b < first + element_bytes; b += sector)
      sectors.insert(static_cast<long long>(std::floor(b / sector)));
    sectors.insert(static_cast<long long>(std::floor((first + element_bytes - 1) / sector)));
  }
  return static_cast<double>(sectors.size());
}

// Whether the FP16 sweep also ran its register-only variant (square=1): only then does its
// square=0 half measure the constant-operand rate as a separate ceiling.
bool text_has_square_one(const Series& configs) {
  for (const auto& entry : configs)
    if (entry.first.find("square=1") != std::string::npos) return true;
  return false;
}

void fit_ceilings(const std::map<std::string, Series>& all, GpuCalibration& gpu) {
  for (const auto& [series, configs] : all) {
    if (series.rfind("ceiling.", 0) != 0) continue;
    const std::string name = series.substr(8);
    if (!find_ceiling_kind(name)) throw InputError(series + ": unknown ceiling '" + name + "'");
    const Config* best = nullptr;
    const std::string* best_text = nullptr;
    for (const auto& [text, config] : configs)
      if (!best || config.median_rate() > best->median_rate()) best = &config, best_text = &text;
    const SampleSummary s = summarize(best->rates);
    gpu.ceilings[name] = {s.median, s.p10, s.p90, s.count, *best_text};
    // HFMA2 whose multiplier is the same constant for every thread (square=0) issues at half the
    // rate of one on registers alone (square=1) on the H100: the rate a*x+c with a scalar a gets.
    if (name == "fp16") {
      const Config* constant = nullptr;
      const std::string* constant_text = nullptr;
      for (const auto& [text, config] : configs)
        if (text.find("square=0") != std::string::npos && (!constant || config.median_rate() > constant->median_rate()))
          constant = &config, constant_text = &text;
      if (constant && text_has_square_one(configs)) {
        const SampleSummary c = summarize(constant->rates);
        gpu.ceilings["fp16_constant_operand"] = {c.median, c.p10, c.p90, c.count, *constant_text};
      }
    }
  }
}

SaturationCurve fit_concurrency_series(const Series& configs, const std::string& series) {
  std::vector<ConcurrencyPoint> fit_set, holdout_set;
  for (const auto& [text, c] : configs) {
    ConcurrencyPoint p;
    p.sms = c.param("sms", series);
    p.warps_per_sm = c.param("blocks_per_sm", series) * c.param("threads", series) / 32.0;
    p.loads_per_thread = c.param("ilp", series);
    p.request_bytes = 32.0 * c.param("element_bytes", series);
    p.bandwidth_Bps = c.median_rate();
    (c.param("holdout", series) != 0 ? holdout_set : fit_set).push_back(p);
  }
  try {
    return fit_concurrency(fit_set, holdout_set);
  } catch (const std::invalid_argument& e) {
    throw InputError(series + ": cannot fit: " + e.what());
  }
}

void fit_latency(const std::vector<SeriesPoint>& chase, GpuCalibration& gpu) {
  const std::map<double, double> latency = chase_latency_by_footprint(chase);
  auto nearest = [&](double target) {
    auto best = latency.begin();
    for (auto it = latency.begin(); it != latency.end(); ++it)
      if (std::abs(std::log(it->first / target)) < std::abs(std::log(best->first / target))) best = it;
    return *best;
  };
  LatencyLevels levels;
  const double l2 = gpu.device.l2_cache_bytes > 0 ? gpu.device.l2_cache_bytes : 4e7;
  const auto l1 = *latency.begin();
  const auto mid = nearest(l2 / 8);
  const auto far = nearest(l2 * 8);
  levels.l1_s = l1.second, levels.l1_footprint_bytes = l1.first;
  levels.l2_s = mid.second, levels.l2_footprint_bytes = mid.first;
  levels.dram_s = far.second, levels.dram_footprint_bytes = far.first;
  gpu.latency = levels;
}

// A parameter of a samples file that names a small whole quantity (a word size, a degree, an
// operation): checked before it becomes an int.
int small_whole(double v, const char* what) {
  if (!(v >= 0 && v <= 65536) || v != std::floor(v))
    throw InputError(std::string(what) + ": the samples give " + std::to_string(v) + ", not a whole number from 0 to 65536");
  return static_cast<int>(v);
}

void fit_conflicts(const Series& configs, GpuCalibration& gpu) {
  std::map<int, std::map<int, double>> by_word;  // word bytes → degree → seconds per access
  for (const auto& [text, c] : configs)
    by_word[small_whole(c.param("word_bytes", "shared.conflict"), "shared.conflict word_bytes")]
           [small_whole(c.param("degree", "shared.conflict"), "shared.conflict degree")] = c.median_seconds_per_unit();
  for (const auto& [word, by_degree] : by_word) {
    ConflictCurve curve;
    std::vector<XY> points;
    int expected = 1;
    for (const auto& [degree, t] : by_degree) {
      if (degree != expected)
        throw InputError("shared.conflict: " + std::to_string(word) + "-byte words: degrees must run 1, 2, 3, … without gaps (missing " +
                         std::to_string(expected) + ")");
      curve.seconds_per_access.push_back(t);
      points.push_back({static_cast<double>(degree), t});
      ++expected;
    }
    const LineFit line = fit_line(points);
    curve.intercept_s = line.intercept;
    curve.slope_s = line.slope;
    curve.fit = line.quality;
    gpu.bank_conflicts[word] = curve;
  }
}

// atomic.add: the median seconds per update at each (type, addresses); K = 1 must be measured.
void fit_atomics(const Series& configs, GpuCalibration& gpu) {
  const char* series = "atomic.add";
  std::map<int, std::map<double, double>> by_type;  // type → K → seconds per update (every lane)
  std::map<int, double> threads, one_lane;
  for (const auto& [text, c] : configs) {
    const double type = c.param("type", series), k = c.param("addresses", series), n = c.param("threads", series);
    const double lanes = c.params.count("lanes") ? c.params.at("lanes") : 32;
    if (!(type == 0 || type == 1 || type == 2)) throw InputError(std::string(series) + ": type must be 0, 1 or 2 (int32, fp32, fp64)");
    if (!(k >= 1) || k != std::floor(k)) throw InputError(std::string(series) + ": addresses must be a whole number ≥ 1");
    if (!(n >= k)) throw InputError(std::string(series) + ": threads must be at least the addresses");
    if (lanes == 1) {
      if (k != 1) throw InputError(std::string(series) + ": one lane a warp is measured on one address only");
      one_lane[static_cast<int>(type)] = c.median_seconds_per_unit();
      continue;
    }
    if (lanes != 32) throw InputError(std::string(series) + ": lanes must be 32 or 1");
    by_type[static_cast<int>(type)][k] = c.median_seconds_per_unit();
    threads[static_cast<int>(type)] = std::max(threads[static_cast<int>(type)], n);
  }
  for (const auto& [type, by_k] : by_type) {
    const std::string& name = atomic_type_names()[static_cast<std::size_t>(type)];
    if (by_k.begin()->first != 1) throw InputError(std::string(series) + ": " + name + " has no measurement on one address");
    AtomicCurve curve;
    curve.threads = threads[type];
    if (one_lane.count(type)) curve.one_lane_update_s = one_lane.at(type);
    for (const auto& [k, t] : by_k) {
      if (!(t > 0)) throw InputError(std::string(series) + ": " + name + ": non-positive time");
      curve.addresses.push_back(k);
      curve.seconds_per_update.push_back(t);
    }
    gpu.atomics[name] = curve;
  }
}

// dram.random, dram.random_rmw and dram.random_write: per table, the median time of each read count against the
// DRAM sectors the derivation's reuse rule counts for it (gpu_calibration.hpp,
// RandomReadCalibration): the rate from the least-squares slope where a table has two or more
// read counts (the fixed part of a launch is the intercept, not charged per sector), sectors
// over the median time where it has one (samples before the slope form).
RandomReadCalibration fit_random_series(const Series& configs, const std::string& series, const GpuCalibration& gpu) {
  const double l2 = gpu.device.l2_cache_bytes, sector = gpu.device.sector_bytes > 0 ? gpu.device.sector_bytes : 32;
  if (!(l2 > 0)) throw InputError(series + ": the samples' device has no L2 size to count the re-touches that miss it");
  // The runs of one read a thread, as user gathers read (the benchmark's other variant, several
  // reads a thread, stays in the samples); samples before that parameter had 16 a thread.
  double per_thread = std::numeric_limits<double>::infinity();
  for (const auto& [text, c] : configs) per_thread = std::min(per_thread, c.params.count("reads_per_thread") ? c.params.at("reads_per_thread") : 16.0);
  std::map<double, std::map<double, double>> runs;  // footprint → reads → median seconds
  double element_bytes = 0;
  for (const auto& [text, c] : configs) {
    if ((c.params.count("reads_per_thread") ? c.params.at("reads_per_thread") : 16.0) != per_thread) continue;
    const double f = c.param("footprint_bytes", series), n = c.param("reads", series), e = c.param("element_bytes", series);
    if (!(f > l2)) throw InputError(series + ": footprint_bytes must exceed the L2 (" + std::to_string(l2) + " bytes)");
    if (!(n >= 1)) throw InputError(series + ": reads must be at least 1");
    if (!(e > 0 && e <= sector)) throw InputError(series + ": element_bytes must be within one sector");
    if (element_bytes != 0 && e != element_bytes) throw InputError(series + ": one element size per calibration");
    element_bytes = e;
    const double t = c.median_seconds();
    if (!(t > 0)) throw InputError(series + ": non-positive time");
    runs[f][n] = t;
  }
  RandomReadCalibration r;
  r.element_bytes = element_bytes;
  const bool by_slope = !runs.empty() && runs.begin()->second.size() >= 2;
  for (const auto& [f, by_reads] : runs) {
    if ((by_reads.size() >= 2) != by_slope)
      throw InputError(series + ": every table needs two or more read counts (the slope), or every table one");
    const double n = by_reads.rbegin()->first, t = by_reads.rbegin()->second;
    r.footprint_bytes.push_back(f);
    r.reads.push_back(n);
    r.seconds.push_back(t);
    if (!by_slope) {
      r.sectors_per_s.push_back(random_read_sectors(n, f, l2, sector) / t);
      continue;
    }
    double mx = 0, my = 0;
    for (const auto& [reads, seconds] : by_reads) mx += random_read_sectors(reads, f, l2, sector), my += seconds;
    mx /= static_cast<double>(by_reads.size()), my /= static_cast<double>(by_reads.size());
    double sxy = 0, sxx = 0;
    for (const auto& [reads, seconds] : by_reads) {
      const double dx = random_read_sectors(reads, f, l2, sector) - mx;
      sxy += dx * (seconds - my), sxx += dx * dx;
    }
    const double per_sector = sxx > 0 ? sxy / sxx : 0;
    if (!(per_sector > 0))
      throw InputError(series + ": the time does not grow with the reads over the " + format_bytes(f) + " table (no slope to fit)");
    r.sectors_per_s.push_back(1 / per_sector);
    r.fixed_s.push_back(my - per_sector * mx);
  }
  return r;
}

void fit_partition(const std::map<std::string, Series>& all, GpuCalibration& gpu) {
  PartitionCalibration p;
  if (all.count("dram.partition")) {
    p.sweep.columns = {"granule_bytes", "stride_bytes", "slots_used", "Bps"};
    // (granule, stride) → slots_used → rate
    std::map<std::pair<double, double>, std::map<double, double>> cases;
    for (const auto& [text, c] : all.at("dram.partition")) {
      const double g = c.param("granule_bytes", "dram.partition"), s = c.param("stride_bytes", "dram.partition"),
                   k = c.param("slots_used", "dram.partition");
      cases[{g, s}][k] = c.median_rate();
    }
    // Penalty of a (granule, stride) case: the best spread over slots against all in one slot.
    for (const auto& [gs, by_slots] : cases) {
      for (const auto& [k, rate] : by_slots) p.sweep.rows.push_back({gs.first, gs.second, k, rate});
      const auto camped = by_slots.find(1.0);
      if (camped == by_slots.end() || by_slots.size() < 2) continue;
      double best = 0;
      for (const auto& entry : by_slots) best = std::max(best, entry.second);
      const double penalty = best / camped->second;
      if (p.worst_stride_bytes == 0 || penalty > p.penalty)
        p.penalty = penalty, p.worst_granule_bytes = gs.first, p.worst_stride_bytes = gs.second;
    }
  }
  if (all.count("dram.stride")) {
    p.strided.columns = {"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"};
    std::map<std::pair<double, double>, double> rates;  // (element bytes, stride) → rate
    for (const auto& [text, c] : all.at("dram.stride"))
      rates[{c.param("element_bytes", "dram.stride"), c.param("stride_elements", "dram.stride")}] = c.median_rate();
    const double warp = gpu.device.warp_size > 0 ? gpu.device.warp_size : 32;
    const double sector = gpu.device.sector_bytes > 0 ? gpu.device.sector_bytes : 32;
    for (const auto& [key, rate] : rates) {
      const auto unit = rates.find({key.first, 1.0});
      if (unit == rates.end()) throw InputError("dram.stride: no stride-1 measurement to compare with");
      p.strided.rows.push_back(
          {key.second, key.first, rate, rate / unit->second, sectors_per_request(key.second, key.first, warp, sector)});
    }
  }
  gpu.partition = p;
}

const Series& series_at(const std::map<std::string, Series>& all, const std::string& name) {
  const auto it = all.find(name);
  if (it == all.end()) throw InputError("no samples of series " + name + " (its group was only partly measured)");
  return it->second;
}

// launch.queued: k launches (memset=0) or k memset+kernel pairs (memset=1) behind busy GPU work.
// While the host stays ahead (k ≤ 8 on the H100: the 30 µs of work hide 8 enqueues) the time is
// the GPU's own: a line in k for each. The longest sequence is host-bound in both, so there the
// difference per pair is the memset's host cost.
QueuedLaunch fit_queued_launch(const Series& queued) {
  std::map<double, double> kernels, pairs;  // k → median seconds for the whole sequence
  for (const auto& [text, c] : queued) {
    const double k = c.param("launches", "launch.queued");
    (c.param("memset", "launch.queued") != 0 ? pairs : kernels)[k] = c.median_seconds();
  }
  constexpr double kHostAhead = 8;
  std::vector<XY> line0, line1;
  for (const auto& [k, t] : kernels)
    if (k <= kHostAhead) line0.push_back({k, t});
  for (const auto& [k, t] : pairs)
    if (k <= kHostAhead) line1.push_back({k, t});
  if (line0.size() < 2 || line1.size() < 2)
    throw InputError("launch.queued: needs at least two sequence lengths of at most " + std::to_string(static_cast<int>(kHostAhead)) +
                     " launches, with and without memsets");
  LineFit f0 = fit_line(line0);
  const LineFit f1 = fit_line(line1);
  if (!(f0.slope > 0))
    throw InputError("launch.queued: the time of queued launches does not grow with their number (slope " + std::to_string(f0.slope) +
                     " s per launch, intercept " + std::to_string(f0.intercept) + " s): re-run perfmodel calibrate --only gpu.launch");
  // A host that cannot stay ahead even of the short sequences (20-25 us a launch on one H100
  // host, 2026-11-27, GPU 8d3aff77) gives a line with a negative intercept: no base is
  // observable there, so the line goes through the origin (base 0, slope sum(xy) / sum(x^2)).
  if (f0.intercept < 0) {
    double xy = 0, xx = 0;
    for (const XY& p : line0) xy += p.x * p.y, xx += p.x * p.x;
    f0.intercept = 0, f0.slope = xy / xx;
  }
  QueuedLaunch q;
  q.base_s = f0.intercept;
  q.kernel_s = f0.slope;
  q.memset_s = std::max(0.0, f1.slope - f0.slope);
  const double longest = std::min(kernels.rbegin()->first, pairs.rbegin()->first);
  if (longest > kHostAhead && kernels.count(longest) && pairs.count(longest))
    q.host_memset_s = std::max(0.0, (pairs.at(longest) - kernels.at(longest)) / longest);
  std::vector<double> model, measured;
  for (const XY& p : line0) model.push_back(q.base_s + q.kernel_s * p.x), measured.push_back(p.y);
  for (const XY& p : line1) model.push_back(q.base_s + (q.kernel_s + q.memset_s) * p.x), measured.push_back(p.y);
  q.fit = relative_errors(model, measured);
  return q;
}

void fit_launch(const std::map<std::string, Series>& all, GpuCalibration& gpu) {
  LaunchCalibration l;
  auto per_kernel = [&](const std::string& series) {
    const Series& s = series_at(all, series);
    if (s.size() != 1) throw InputError(series + ": expected one configuration, found " + std::to_string(s.size()));
    return s.begin()->second.median_seconds_per_unit();
  };
  l.empty_kernel_s = per_kernel("launch.empty");
  l.launch_sync_s = per_kernel("launch.sync");
  l.graph_kernel_s = per_kernel("launch.graph");
  std::vector<XY> points;
  for (const auto& [text, c] : series_at(all, "launch.waves")) {
    const double waves = c.param("waves", "launch.waves");
    points.push_back({waves, c.median_seconds_per_unit()});
    l.blocks_per_wave = c.param("blocks", "launch.waves") / waves;
  }
  const LineFit line = fit_line(points);
  l.wave_base_s = line.intercept;
  l.per_wave_s = line.slope;
  l.wave_fit = line.quality;
  if (all.count("launch.queued")) l.queued = fit_queued_launch(series_at(all, "launch.queued"));
  gpu.launch = l;
}

void fit_overlap(const std::map<std::string, Series>& all, GpuCalibration& gpu) {
  OverlapCalibration o;
  o.copy_engines = gpu.device.async_engines;
  const std::vector<std::pair<std::string, double*>> parts = {
      {"overlap.h2d", &o.h2d_s},           {"overlap.d2h", &o.d2h_s},
      {"overlap.kernel", &o.kernel_s},     {"overlap.h2d+d2h", &o.h2d_d2h_s},
      {"overlap.h2d+kernel", &o.h2d_kernel_s}, {"overlap.d2h+kernel", &o.d2h_kernel_s},
      {"overlap.all", &o.all_s}};
  for (const auto& [series, target] : parts) {
    const Series& s = series_at(all, series);
    if (s.size() != 1) throw InputError(series + ": expected one configuration, found " + std::to_string(s.size()));
    *target = s.begin()->second.median_seconds();
    if (series == "overlap.h2d") o.copy_bytes = s.begin()->second.param("bytes", series);
  }
  const auto kernels = all.find("overlap.kernels");
  if (kernels != all.end()) {
    o.kernel_concurrency.columns = {"streams", "seconds", "concurrency"};
    std::map<double, double> by_streams;
    for (const auto& [text, c] : kernels->second) by_streams[c.param("streams", "overlap.kernels")] = c.median_seconds();
    const auto one = by_streams.find(1.0);
    if (one == by_streams.end()) throw InputError("overlap.kernels: no single-stream measurement to compare with");
    for (const auto& [streams, seconds] : by_streams) {
      const double concurrency = streams * one->second / seconds;
      o.kernel_concurrency.rows.push_back({streams, seconds, concurrency});
      o.max_concurrent_kernels = std::max(o.max_concurrent_kernels, concurrency);
    }
  }
  gpu.overlap = o;
}

bool has_prefix(const std::map<std::string, Series>& all, const std::string& prefix) {
  for (const auto& entry : all)
    if (entry.first.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<SeriesPoint> series_medians(const std::vector<BenchmarkSample>& samples, const std::string& series) {
  std::vector<BenchmarkSample> selected;
  for (const BenchmarkSample& s : samples)
    if (s.series == series) selected.push_back(s);
  std::vector<SeriesPoint> out;
  const auto grouped = group(selected);
  if (grouped.empty()) return out;
  for (const auto& [text, c] : grouped.begin()->second) {
    const SampleSummary r = summarize(c.rates);
    out.push_back({c.params, c.median_seconds(), r.median, r.p10, r.p90, r.count, r.interquartile_mean});
  }
  return out;
}

std::map<double, double> chase_latency_by_footprint(const std::vector<SeriesPoint>& chase) {
  std::map<double, std::map<double, double>> by_footprint;  // footprint → steps → median seconds
  for (const SeriesPoint& p : chase) {
    const auto footprint = p.params.find("footprint_bytes"), steps = p.params.find("steps");
    if (footprint == p.params.end() || steps == p.params.end())
      throw InputError("latency.chase: a sample lacks footprint_bytes or steps");
    by_footprint[footprint->second][steps->second] = p.median_seconds;
  }
  std::map<double, double> latency;
  for (const auto& [footprint, by_steps] : by_footprint) {
    const auto lo = by_steps.begin();
    const auto hi = std::prev(by_steps.end());
    const double l = hi->first > lo->first ? (hi->second - lo->second) / (hi->first - lo->first) : lo->second / lo->first;
    if (!(l > 0))
      throw InputError("latency.chase: footprint " + std::to_string(footprint) + " B: time does not grow with steps");
    latency[footprint] = l;
  }
  return latency;
}

// latency.op: one warp runs `steps` dependent operations (op 0: FP32 FMA, 1: cosf); the latency
// is the slope of time against steps (the launch cost cancels).
void fit_operation_latency(const std::vector<SeriesPoint>& points, GpuCalibration& gpu) {
  std::map<int, std::map<double, double>> by_op;
  for (const SeriesPoint& p : points) {
    const auto op = p.params.find("op"), steps = p.params.find("steps");
    if (op == p.params.end() || steps == p.params.end()) throw InputError("latency.op: a sample lacks op or steps");
    by_op[small_whole(op->second, "latency.op op")][steps->second] = p.median_seconds;
  }
  OperationLatency result;
  for (const auto& [op, curve] : by_op) {
    if (curve.size() < 2) throw InputError("latency.op: op " + std::to_string(op) + " needs two step counts");
    const auto lo = curve.begin(), hi = std::prev(curve.end());
    const double latency = (hi->second - lo->second) / (hi->first - lo->first);
    if (!(latency > 0)) throw InputError("latency.op: op " + std::to_string(op) + ": time does not grow with steps");
    if (op == 0) result.fp32_fma_s = latency;
    else if (op == 1) result.cosf_s = latency;
    else throw InputError("latency.op: unknown op " + std::to_string(op) + " (0 fp32 FMA, 1 cosf)");
  }
  if (result.fp32_fma_s > 0 && result.cosf_s > 0) gpu.operation_latency = result;
}

// l2.writeback: a read of read_bytes at the DRAM ceiling after the L2 was flushed by reads
// (dirty = 0) or by a memset (dirty = 1); holdout = 1 on the sizes the fit does not see. For each
// candidate reach D (a grid over the largest read) the surcharge k has a closed form (least
// squares of the relative error of t_dirty); the best (D, k) wins.
void fit_l2_write_back(const Series& series, GpuCalibration& gpu) {
  const std::string name = "l2.writeback";
  struct Run {
    double bytes = 0, clean = 0, dirty = 0;
    bool holdout = false;
  };
  std::map<double, Run> runs;
  for (const auto& [text, c] : series) {
    Run& r = runs[c.param("read_bytes", name)];
    r.bytes = c.param("read_bytes", name);
    r.holdout = c.param("holdout", name) != 0;
    (c.param("dirty", name) != 0 ? r.dirty : r.clean) = c.median_seconds();
  }
  std::vector<Run> fit_set, holdout_set;
  double largest = 0;
  for (const auto& [bytes, r] : runs) {
    if (!(r.clean > 0) || !(r.dirty > 0)) throw InputError(name + ": read_bytes " + format_bytes(bytes) + " lacks the clean or the dirty run");
    (r.holdout ? holdout_set : fit_set).push_back(r);
    largest = std::max(largest, bytes);
  }
  if (fit_set.size() < 2) throw InputError(name + ": needs at least two fit sizes");
  L2WriteBack w;
  const auto quality = [&](const std::vector<Run>& set) {
    std::vector<double> model, measured;
    for (const Run& r : set) model.push_back(r.clean + w.extra_s(r.bytes, 1)), measured.push_back(r.dirty);
    return relative_errors(model, measured);
  };
  double best_cost = std::numeric_limits<double>::infinity();
  constexpr int kSteps = 4096;
  for (int i = 1; i <= kSteps; ++i) {
    const double d = largest * i / kSteps;
    double num = 0, den = 0;
    for (const Run& r : fit_set) {
      const double m = std::min(d, r.bytes) / r.dirty;
      num += m * (r.dirty - r.clean) / r.dirty, den += m * m;
    }
    const double k = std::max(0.0, num / den);
    double cost = 0;
    for (const Run& r : fit_set) cost += std::pow((r.clean + k * std::min(d, r.bytes)) / r.dirty - 1, 2);
    if (cost < best_cost) best_cost = cost, w.bytes = d, w.seconds_per_byte = k;
  }
  w.points = runs.size();
  w.fit = quality(fit_set);
  if (!holdout_set.empty()) w.holdout = quality(holdout_set);
  w.runs.columns = {"read_bytes", "clean_s", "dirty_s", "holdout"};
  for (const auto& [bytes, r] : runs) w.runs.rows.push_back({bytes, r.clean, r.dirty, r.holdout ? 1.0 : 0.0});
  gpu.l2_write_back = w;
}

GpuCalibration fit_gpu(const GpuSampleFile& file, const std::string& samples_file) {
  GpuCalibration gpu;
  gpu.samples_file = samples_file;
  gpu.device = file.device;
  gpu.calibration_wall_s = file.calibration_wall_s;
  const auto all = group(file.samples);
  static const std::vector<std::string> kKnownPrefixes = {"ceiling.", "dram.concurrency", "hierarchy.read", "latency.chase", "latency.op",
                                                          "shared.conflict", "dram.partition", "dram.stride", "dram.random", "launch.",
                                                          "overlap.", "l2.writeback", "streams.", "atomic."};
  for (const auto& entry : all)
    if (std::none_of(kKnownPrefixes.begin(), kKnownPrefixes.end(),
                     [&](const std::string& p) { return entry.first.rfind(p, 0) == 0; }))
      throw InputError(samples_file + ": unknown series '" + entry.first + "'");
  fit_ceilings(all, gpu);
  if (all.count("dram.concurrency")) gpu.dram_concurrency = fit_concurrency_series(all.at("dram.concurrency"), "dram.concurrency");
  if (all.count("dram.concurrency_rows"))
    gpu.dram_concurrency_rows = fit_concurrency_series(all.at("dram.concurrency_rows"), "dram.concurrency_rows");
  if (all.count("latency.chase")) fit_latency(series_medians(file.samples, "latency.chase"), gpu);
  if (all.count("latency.op")) fit_operation_latency(series_medians(file.samples, "latency.op"), gpu);
  if (all.count("shared.conflict")) fit_conflicts(all.at("shared.conflict"), gpu);
  if (all.count("atomic.add")) fit_atomics(all.at("atomic.add"), gpu);
  if (all.count("dram.partition") || all.count("dram.stride")) fit_partition(all, gpu);
  if (all.count("dram.random")) gpu.dram_random = fit_random_series(all.at("dram.random"), "dram.random", gpu);
  if (all.count("dram.random_rmw")) gpu.dram_random_rmw = fit_random_series(all.at("dram.random_rmw"), "dram.random_rmw", gpu);
  if (all.count("dram.random_write")) gpu.dram_random_write = fit_random_series(all.at("dram.random_write"), "dram.random_write", gpu);
  if (all.count("l2.writeback")) fit_l2_write_back(all.at("l2.writeback"), gpu);
  if (has_prefix(all, "launch.")) fit_launch(all, gpu);
  if (has_prefix(all, "overlap.")) fit_overlap(all, gpu);
  if (has_stream_samples(file)) gpu.streams = fit_streams(file, samples_file);
  return gpu;
}

}  // namespace perfmodel
