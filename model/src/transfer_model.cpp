#include "perfmodel/model/transfer_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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
    points.push_back({m.bytes, m.typical_s, is_misaligned(m.bytes), m.batch});
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
  // Where the batch changes between two fit sizes the fit put the boundary at the upper one; the
  // batch plan may have switched below it (PcieBatchPlan::unbatched_from is the first size it
  // timed alone, fitted or held out): the boundary goes to the first size of the upper batch.
  // Only how a size was timed is read from the held-out set, never its time.
  std::vector<std::pair<double, int>> timed_as;  // (bytes, batch) of every size
  for (const std::vector<SizeTime>* set : {&fit_set, &holdout_set})
    for (const SizeTime& m : *set) timed_as.emplace_back(m.bytes, m.batch);
  std::sort(timed_as.begin(), timed_as.end());
  for (std::size_t k = 0; k + 1 < curve.segments.size(); ++k) {
    const double boundary = curve.segments[k].to_bytes;
    const auto upper = std::find_if(fit_set.begin(), fit_set.end(), [&](const SizeTime& m) { return m.bytes == boundary; });
    if (upper == fit_set.end() || upper->batch == 0) continue;
    double below = 0;  // the largest fit size under the boundary
    int below_batch = 0;
    for (const SizeTime& m : fit_set)
      if (m.bytes < boundary && m.bytes > below) below = m.bytes, below_batch = m.batch;
    if (below_batch == 0 || below_batch == upper->batch) continue;
    for (const auto& [bytes, batch] : timed_as)
      if (bytes > below && bytes <= boundary && batch == upper->batch) {
        curve.segments[k].to_bytes = curve.segments[k + 1].from_bytes = bytes;
        break;
      }
  }
  curve.min_bytes = lo->bytes;
  curve.max_bytes = hi->bytes;
  // Rounding the boundaries may move a fitted size across one: re-evaluate rather than copy.
  curve.fit = evaluate_curve(curve, fit_set);
  if (!holdout_set.empty()) curve.holdout = evaluate_curve(curve, holdout_set);
  return curve;
}

}  // namespace perfmodel
