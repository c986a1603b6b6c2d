#include "perfmodel/model/transfer_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "perfmodel/model/statistics.hpp"

namespace perfmodel {

const char* to_string(Direction d) {
  switch (d) {
    case Direction::h2d: return "h2d";
    case Direction::d2h: return "d2h";
    case Direction::bidir: return "bidir";
  }
  return "?";
}

const char* to_string(TransferMode m) { return m == TransferMode::single ? "single" : "stream"; }

std::optional<TransferMode> parse_transfer_mode(const std::string& s) {
  for (TransferMode m : {TransferMode::single, TransferMode::stream})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

SegmentedFitOptions transfer_fit_options() {
  SegmentedFitOptions o;
  o.max_segments = 4;
  o.bridge_gaps = false;
  o.max_penalty = 0;
  o.min_slope = 1.0 / kPcieGen5x16BytesPerS;
  return o;
}

const char* to_string(HostMemory m) { return m == HostMemory::pinned ? "pinned" : "pageable"; }

std::optional<Direction> parse_direction(const std::string& s) {
  for (Direction d : {Direction::h2d, Direction::d2h, Direction::bidir})
    if (s == to_string(d)) return d;
  return std::nullopt;
}

std::optional<HostMemory> parse_host_memory(const std::string& s) {
  for (HostMemory m : {HostMemory::pinned, HostMemory::pageable})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

bool is_pcie_host_buffer(const std::string& s) { return s == "rotating" || s == "fixed"; }

std::string TransferKey::name() const { return std::string(to_string(direction)) + "/" + to_string(memory); }

const std::vector<TransferKey>& calibrated_transfer_keys() {
  static const std::vector<TransferKey> keys = {{Direction::h2d, HostMemory::pinned},
                                                {Direction::h2d, HostMemory::pageable},
                                                {Direction::d2h, HostMemory::pinned},
                                                {Direction::d2h, HostMemory::pageable},
                                                {Direction::bidir, HostMemory::pinned}};
  return keys;
}

const TransferSegment& TransferCurve::segment_for(double bytes) const {
  if (segments.empty()) throw std::logic_error("TransferCurve has no segments");
  for (const TransferSegment& s : segments)
    if (bytes < s.to_bytes) return s;
  return segments.back();
}

std::pair<double, double> TransferCurve::interval_s(double bytes) const {
  const TransferSegment& s = segment_for(bytes);
  if (!s.has_interval()) return {0.0, 0.0};
  const double t = seconds(bytes);
  return {t * s.interval_low, t * s.interval_high};
}

std::pair<double, double> observed_interval(const std::vector<SizeTime>& set, const TransferCurve& curve, double from_bytes,
                                            double to_bytes) {
  // Weighted quantiles of ln(sample / model): every size weighs 1, split over its samples.
  std::vector<std::pair<double, double>> logs;  // (ln ratio, weight)
  std::vector<double> drifts;
  for (const SizeTime& m : set) {
    if (m.bytes < from_bytes || m.bytes >= to_bytes || m.samples_s.empty()) continue;
    const double model = curve.seconds(m.bytes);
    if (!(model > 0)) continue;
    const double w = 1.0 / static_cast<double>(m.samples_s.size());
    for (double t : m.samples_s) logs.emplace_back(std::log(t / model), w);
    if (m.samples_s.size() >= 4) {
      const std::size_t half = m.samples_s.size() / 2;
      std::vector<double> early(m.samples_s.begin(), m.samples_s.begin() + static_cast<std::ptrdiff_t>(half));
      std::vector<double> late(m.samples_s.begin() + static_cast<std::ptrdiff_t>(half), m.samples_s.end());
      std::sort(early.begin(), early.end());
      std::sort(late.begin(), late.end());
      drifts.push_back(std::fabs(std::log(quantile_of_sorted(late, 0.5) / quantile_of_sorted(early, 0.5))));
    }
  }
  if (logs.empty()) return {0.0, 0.0};
  std::sort(logs.begin(), logs.end());
  double total = 0;
  for (const auto& l : logs) total += l.second;
  auto quantile = [&](double q) {  // the first value whose cumulative weight reaches q of the total
    double cumulative = 0;
    for (const auto& [value, weight] : logs) {
      cumulative += weight;
      if (cumulative >= q * total - 1e-12) return value;
    }
    return logs.back().first;
  };
  double drift = 0;
  if (!drifts.empty()) {
    std::sort(drifts.begin(), drifts.end());
    drift = quantile_of_sorted(drifts, 0.5);
  }
  const double low = std::min(quantile(0.05), 0.0) - drift, high = std::max(quantile(0.95), 0.0) + drift;
  return {std::exp(low), std::exp(high)};
}

double TransferCurve::asymptotic_rate_bytes_per_s() const {
  if (segments.empty()) throw std::logic_error("TransferCurve has no segments");
  return 1.0 / segments.back().s_per_byte;
}

FitQuality evaluate_curve(const TransferCurve& curve, const std::vector<SizeTime>& set) {
  FitQuality q;
  q.sizes = set.size();
  std::vector<double> se;
  std::size_t beyond = 0;
  for (const SizeTime& m : set) {
    const double e = std::fabs(curve.seconds(m.bytes) - m.typical_s) / m.typical_s;
    q.mean_rel_error += e;
    q.max_rel_error = std::max(q.max_rel_error, e);
    if (m.rel_se > 0) {
      se.push_back(m.rel_se);
      if (e > 3 * m.rel_se) ++beyond;
    }
  }
  if (!set.empty()) q.mean_rel_error /= static_cast<double>(set.size());
  if (!se.empty() && se.size() == set.size()) {
    std::sort(se.begin(), se.end());
    q.noise = FitQuality::Noise{quantile_of_sorted(se, 0.5), se.back(), beyond};
  }
  return q;
}

TransferCurve fit_transfer_curve(const std::vector<SizeTime>& fit_set, const std::vector<SizeTime>& holdout_set,
                                 const SegmentedFitOptions& options) {
  std::vector<FitPoint> points;
  points.reserve(fit_set.size());
  TransferCurve curve;
  for (const SizeTime& m : fit_set) {
    points.push_back({m.bytes, m.typical_s, is_misaligned(m.bytes), 0});
    curve.samples += m.samples;
  }
  // A misaligned size's extra cost is the tail's (< 64 B) own copy at
  // most: no more than the curve's smallest copy takes. A larger fitted penalty is the noise or
  // drift of a few points that happen to be misaligned (h2d pageable at 12–30 MB on an H100 host,
  // --pcie-effort 4: 147 µs, learnt from refinement sizes measured in the run's slower second
  // half, put the held-out 14.6 MB copy 11.6 % off).
  const auto [lo, hi] = std::minmax_element(fit_set.begin(), fit_set.end(),
                                            [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  SegmentedFitOptions capped = options;
  if (lo != fit_set.end()) capped.max_penalty = std::min(options.max_penalty, lo->typical_s);
  const SegmentedFit fit = fit_segmented_relative(points, capped);
  for (const LineSegment& l : fit.segments) {
    TransferSegment s;
    s.from_bytes = std::ceil(l.from_x);
    s.to_bytes = std::isinf(l.to_x) ? l.to_x : std::ceil(l.to_x);
    s.setup_s = l.intercept;
    s.s_per_byte = l.slope;
    s.misaligned_s = l.penalty;
    s.sizes = l.points;
    s.mean_rel_error = l.mean_rel_error;
    s.max_rel_error = l.max_rel_error;
    curve.segments.push_back(s);
  }
  curve.min_bytes = lo->bytes;
  curve.max_bytes = hi->bytes;
  // Rounding the boundaries may move a fitted size across one: re-evaluate rather than copy.
  curve.fit = evaluate_curve(curve, fit_set);
  for (TransferSegment& seg : curve.segments)
    std::tie(seg.interval_low, seg.interval_high) = observed_interval(fit_set, curve, seg.from_bytes, seg.to_bytes);
  if (!holdout_set.empty()) curve.holdout = evaluate_curve(curve, holdout_set);
  return curve;
}

double apply_mixed_copies(TransferCurve& curve, const std::vector<SizeTime>& fit_set, const std::vector<SizeTime>& mixed_set) {
  if (curve.segments.empty()) throw std::logic_error("apply_mixed_copies: the curve has no segments");
  constexpr double kSmall = 1 << 20;  // below: the fixed cost is a visible part of a copy
  std::vector<double> small, all;
  for (const SizeTime& m : mixed_set) {
    if (m.samples_s.empty()) continue;
    std::vector<double> t = m.samples_s;
    std::sort(t.begin(), t.end());
    const double d = quantile_of_sorted(t, 0.5) - curve.seconds(m.bytes);
    all.push_back(d);
    if (m.bytes < kSmall) small.push_back(d);
  }
  if (all.empty()) return 0;
  std::vector<double>& use = small.empty() ? all : small;
  std::sort(use.begin(), use.end());
  const double shift = quantile_of_sorted(use, 0.5);
  for (TransferSegment& seg : curve.segments) seg.setup_s += shift;
  curve.mixed_setup_s += shift;
  for (TransferSegment& seg : curve.segments) {
    const auto [own_low, own_high] = observed_interval(fit_set, curve, seg.from_bytes, seg.to_bytes);
    const auto [mixed_low, mixed_high] = observed_interval(mixed_set, curve, seg.from_bytes, seg.to_bytes);
    double low = 0, high = 0;
    for (const auto& [l, h] : {std::pair<double, double>{own_low, own_high}, std::pair<double, double>{mixed_low, mixed_high}}) {
      if (!(l > 0)) continue;
      low = low > 0 ? std::min(low, l) : l;
      high = std::max(high, h);
    }
    if (low > 0) seg.interval_low = low, seg.interval_high = high;
  }
  return shift;
}

}  // namespace perfmodel
