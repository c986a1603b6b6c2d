#include "perfmodel/model/segmented_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace perfmodel {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMinPointsPerKind = 3;
constexpr double kMinPenaltyF = 16;  // (penalty / its standard error)², see fit_line_relative

double predict(const LineSegment& l, const FitPoint& q) { return l.intercept + l.slope * q.x + (q.flagged ? l.penalty : 0.0); }

double relative_rss(const std::vector<FitPoint>& p, std::size_t first, std::size_t last, const LineSegment& l) {
  double rss = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double r = (predict(l, p[i]) - p[i].y) / p[i].y;
    rss += r * r;
  }
  return rss;
}

}  // namespace

double fit_line_relative(const std::vector<FitPoint>& p, std::size_t first, std::size_t last, LineSegment* line, double max_penalty,
                         double min_slope) {
  // Rows [1/y_i, x_i/y_i, f_i/y_i] · θ ≈ 1 is exactly the relative-residual problem. Columns are
  // scaled to unit norm: x spans 9 decades, so the raw system is badly conditioned.
  const auto n = static_cast<Eigen::Index>(last - first + 1);
  std::size_t flagged = 0;
  for (std::size_t i = first; i <= last; ++i) flagged += p[i].flagged ? 1 : 0;
  const std::size_t plain = static_cast<std::size_t>(n) - flagged;
  // The flag penalty needs three points of each kind: fitted to one or two flagged points it is
  // their noise (bidirectional pinned copies at 61–194 KiB on the H100: one flagged fit size, a
  // 0.6 µs "penalty", and held-out sizes beside it 7 % off).
  const int columns = flagged >= kMinPointsPerKind && plain >= kMinPointsPerKind ? 3 : 2;
  Eigen::MatrixXd design(n, columns);
  // The slope is min_slope + a non-negative excess: the rows' right-hand side takes min_slope's part.
  Eigen::VectorXd ones(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const FitPoint& q = p[first + static_cast<std::size_t>(r)];
    ones(r) = 1.0 - min_slope * q.x / q.y;
    design(r, 0) = 1.0 / q.y;
    design(r, 1) = q.x / q.y;
    if (columns == 3) design(r, 2) = q.flagged ? 1.0 / q.y : 0.0;
  }
  // Exact non-negative least squares for ≤ 3 unknowns: solve on every subset of columns and keep
  // the best solution whose coefficients are all ≥ 0. The flag penalty is a third parameter: it is
  // kept only when it stands at least four standard errors clear of 0 (the F statistic of adding
  // it, (rss_plain − rss_flagged) / (rss_flagged / (n − 3)), at least 16), so the few points of a
  // noisy regime are not fitted by an absurd penalty (h2d pageable at 12–25 MB on the H100 host:
  // 4 points, 3 parameters, and an 876 µs "misaligned" cost that put the held-out 14.6 MB copy
  // 82 % off). BIC, the criterion that counts segments, asks only F > 1.3 (1.1 standard errors)
  // of a 7-point segment: bidirectional pinned copies at 0.4–1 MiB kept a 0.6 µs penalty that was
  // their noise, and a held-out size beside it sat 8–10 % off. A real tail cost stands out far
  // more (pageable device→host copies below 20 KiB: 0.5 µs against noise of a few ns).
  double best_plain = kInf, best_flagged = kInf;
  LineSegment plain_line, flagged_line;
  for (int mask = 1; mask < (1 << columns); ++mask) {
    std::vector<int> active;
    for (int c = 0; c < columns; ++c)
      if (mask & (1 << c)) active.push_back(c);
    Eigen::MatrixXd sub(n, static_cast<Eigen::Index>(active.size()));
    Eigen::VectorXd scale(sub.cols());
    for (Eigen::Index j = 0; j < sub.cols(); ++j) {
      sub.col(j) = design.col(active[static_cast<std::size_t>(j)]);
      scale(j) = sub.col(j).norm();
      if (scale(j) > 0) sub.col(j) /= scale(j);
    }
    const Eigen::VectorXd theta = sub.colPivHouseholderQr().solve(ones);
    LineSegment candidate;
    bool feasible = true;
    for (Eigen::Index j = 0; j < sub.cols(); ++j) {
      const double v = scale(j) > 0 ? theta(j) / scale(j) : 0.0;
      if (!(v >= 0) || !std::isfinite(v)) feasible = false;
      const int c = active[static_cast<std::size_t>(j)];
      (c == 0 ? candidate.intercept : c == 1 ? candidate.slope : candidate.penalty) = v;
    }
    candidate.slope += min_slope;
    if (!feasible || candidate.penalty > max_penalty) continue;
    const double rss = relative_rss(p, first, last, candidate);
    const bool uses_penalty = (mask & 4) != 0;
    double& best = uses_penalty ? best_flagged : best_plain;
    if (rss < best) {
      best = rss;
      (uses_penalty ? flagged_line : plain_line) = candidate;
    }
  }
  const double floor = static_cast<double>(n) * 1e-24;
  const bool penalty_pays =
      best_flagged < kInf && (best_plain == kInf || best_plain - best_flagged >= kMinPenaltyF * std::max(best_flagged, floor) /
                                                                                  static_cast<double>(n - 3));
  const LineSegment& chosen = penalty_pays ? flagged_line : plain_line;
  line->intercept = chosen.intercept;
  line->slope = chosen.slope;
  line->penalty = chosen.penalty;
  return penalty_pays ? best_flagged : best_plain;
}

const LineSegment& SegmentedFit::segment_for(double x) const {
  if (segments.empty()) throw std::logic_error("SegmentedFit: no segments");
  for (const LineSegment& s : segments)
    if (x < s.to_x) return s;
  return segments.back();
}

double SegmentedFit::evaluate(double x, bool flagged) const { return predict(segment_for(x), {x, 0.0, flagged}); }

SegmentedFit fit_segmented_relative(std::vector<FitPoint> points, const SegmentedFitOptions& options) {
  const std::size_t m = std::max<std::size_t>(options.min_points_per_segment, 2);
  if (points.size() < m)
    throw std::invalid_argument("segmented fit: need at least " + std::to_string(m) + " points, got " +
                                std::to_string(points.size()));
  for (const FitPoint& q : points)
    if (!(q.x > 0) || !(q.y > 0) || !std::isfinite(q.x) || !std::isfinite(q.y))
      throw std::invalid_argument("segmented fit: points must have finite, positive coordinates");
  std::sort(points.begin(), points.end(), [](const FitPoint& l, const FitPoint& r) { return l.x < r.x; });
  for (std::size_t i = 1; i < points.size(); ++i)
    if (points[i].x == points[i - 1].x) throw std::invalid_argument("segmented fit: duplicate x value");

  const std::size_t n = points.size();
  const std::size_t k_max = std::max<std::size_t>(1, std::min(options.max_segments, n / m));

  // method_start[j]: the first point of j's run of one method (0 for all when methods are ignored).
  std::vector<std::size_t> method_start(n, 0);
  for (std::size_t j = 1; j < n; ++j) method_start[j] = points[j].method == points[j - 1].method ? method_start[j - 1] : j;
  for (std::size_t j = 0; j < n; ++j)
    if ((j + 1 == n || method_start[j + 1] != method_start[j]) && j + 1 - method_start[j] < m) {
      std::fill(method_start.begin(), method_start.end(), 0);  // a run too short for a segment of its own
      break;
    }

  // cost[i][j]: best single-line relative RSS over points i..j (only for runs of one method).
  // A segment holds m points, or m - 1 where one of its ends is a change of method: that boundary
  // is the measurement's, not the fit's choice, so it costs the segment no point. (On machine
  // c2b15968 the h2d pageable copies changed path after 64 KiB and were timed alone from 128 KiB:
  // three fit sizes lay between, and a four-point minimum pulled the 64 KiB copy into their line,
  // which missed the held-out 114 KB copy by 8.6 and 9.2 % in two runs; 4.5 and 3.2 % with this.)
  const bool methods = std::any_of(method_start.begin(), method_start.end(), [](std::size_t s) { return s != 0; });
  const std::size_t shortest = methods && m > 2 ? m - 1 : m;
  auto starts_method = [&](std::size_t i) { return i > 0 && i < n && method_start[i] == i; };
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, kInf));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + shortest - 1; j < n && method_start[j] <= i; ++j) {
      if (j + 1 - i < m && !(starts_method(i) || starts_method(j + 1))) continue;
      LineSegment scratch;
      cost[i][j] = fit_line_relative(points, i, j, &scratch, options.max_penalty, options.min_slope);
    }

  // best[k][j]: best RSS covering points 0..j-1 with k segments; start[k][j]: first index of the last one.
  std::vector<std::vector<double>> best(k_max + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> start(k_max + 1, std::vector<std::size_t>(n + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= k_max; ++k)
    for (std::size_t j = k * shortest; j <= n; ++j)
      for (std::size_t i = (k - 1) * shortest; i + shortest <= j; ++i) {
        if (best[k - 1][i] == kInf) continue;
        const double total = best[k - 1][i] + cost[i][j - 1];
        if (total < best[k][j]) {
          best[k][j] = total;
          start[k][j] = i;
        }
      }

  SegmentedFit fit;
  fit.points = n;
  const double dn = static_cast<double>(n);
  // Coefficients per segment: intercept and slope, plus the flag penalty when the data has both kinds of point.
  const bool has_flagged = std::any_of(points.begin(), points.end(), [](const FitPoint& q) { return q.flagged; });
  const bool has_plain = std::any_of(points.begin(), points.end(), [](const FitPoint& q) { return !q.flagged; });
  const double per_segment = has_flagged && has_plain ? 3.0 : 2.0;
  std::size_t chosen = 1;
  double chosen_bic = kInf;
  for (std::size_t k = 1; k <= k_max; ++k) {
    double bic = kInf;
    if (best[k][n] < kInf) {
      // Floor the RSS so exact synthetic data does not give ln(0).
      const double rss = std::max(best[k][n], dn * 1e-24);
      bic = dn * std::log(rss / dn) + ((per_segment + 1.0) * static_cast<double>(k) - 1.0) * std::log(dn);
    }
    fit.bic_by_segment_count.push_back(bic);
    if (bic < chosen_bic) {
      chosen_bic = bic;
      chosen = k;
    }
  }

  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [first, last] per segment
  for (std::size_t k = chosen, j = n; k > 0; --k) {
    const std::size_t i = start[k][j];
    runs.emplace_back(i, j - 1);
    j = i;
  }
  std::reverse(runs.begin(), runs.end());

  double total_error = 0;
  for (const auto& [first, last] : runs) {
    LineSegment s;
    fit_line_relative(points, first, last, &s, options.max_penalty, options.min_slope);
    s.points = last - first + 1;
    for (std::size_t i = first; i <= last; ++i) {
      const double e = std::fabs((predict(s, points[i]) - points[i].y) / points[i].y);
      s.mean_rel_error += e;
      s.max_rel_error = std::max(s.max_rel_error, e);
    }
    total_error += s.mean_rel_error;
    s.mean_rel_error /= static_cast<double>(s.points);
    fit.max_rel_error = std::max(fit.max_rel_error, s.max_rel_error);
    fit.segments.push_back(s);
  }
  fit.mean_rel_error = total_error / dn;

  // Boundaries, and a bridge across each gap where the two lines neither meet nor fall (see the
  // header: the time across a gap without a fitted size is the straight line between what the
  // two fitted lines give at its ends).
  std::vector<LineSegment> placed;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    placed.push_back(fit.segments[k]);
    if (k == 0) placed.back().from_x = 0;
    if (k + 1 == runs.size()) {
      placed.back().to_x = kInf;
      break;
    }
    const double xa = points[runs[k].second].x, xb = points[runs[k + 1].first].x;
    const LineSegment& l = fit.segments[k];
    const LineSegment& r = fit.segments[k + 1];
    double boundary = std::sqrt(xa * xb);
    bool bridged = false;
    if (method_start[runs[k].second] != method_start[runs[k + 1].first]) {
      boundary = xb;  // the measurement changed at xb
    } else {
      const double cross = l.slope != r.slope ? (r.intercept - l.intercept) / (l.slope - r.slope) : kInf;
      const double ya = l.intercept + l.slope * xa, yb = r.intercept + r.slope * xb;
      if (cross > xa && cross < xb) {
        boundary = cross;
      } else if (options.bridge_gaps && yb >= ya) {
        LineSegment bridge;
        bridge.from_x = std::nextafter(xa, kInf);  // xa itself is the left line's
        bridge.to_x = xb;
        bridge.slope = (yb - ya) / (xb - xa);
        bridge.intercept = ya - bridge.slope * xa;
        bridge.penalty = 0.5 * (l.penalty + r.penalty);
        placed.back().to_x = bridge.from_x;
        placed.push_back(bridge);
        boundary = xb;
        bridged = true;
      } else if (yb >= ya) {
        // A rising gap without a bridge: the boundary goes to the gap's end where the two lines
        // lie closer, so that the model's step there is the smaller one (at the geometric mean a
        // line extended across the gap could sit well above or below the other).
        const double at_a = std::fabs((r.intercept + r.slope * xa) - ya), at_b = std::fabs(yb - (l.intercept + l.slope * xb));
        boundary = at_a < at_b ? std::nextafter(xa, kInf) : xb;
      }
    }
    if (!bridged) placed.back().to_x = boundary;
    fit.segments[k + 1].from_x = boundary;
  }
  fit.segments = std::move(placed);
  return fit;
}

}  // namespace perfmodel
