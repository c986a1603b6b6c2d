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

double relative_rss(const std::vector<FitPoint>& p, std::size_t first, std::size_t last, double a, double b) {
  double rss = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double r = (a + b * p[i].x - p[i].y) / p[i].y;
    rss += r * r;
  }
  return rss;
}

}  // namespace

double fit_line_relative(const std::vector<FitPoint>& p, std::size_t first, std::size_t last, double* intercept,
                         double* slope) {
  // Rows [1/y_i, x_i/y_i] · [a, b]ᵀ ≈ 1 is exactly the relative-residual problem. Columns are
  // scaled to unit norm first: x spans 9 decades, so the raw system is badly conditioned.
  const auto n = static_cast<Eigen::Index>(last - first + 1);
  Eigen::MatrixXd design(n, 2);
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const FitPoint& q = p[first + static_cast<std::size_t>(r)];
    design(r, 0) = 1.0 / q.y;
    design(r, 1) = q.x / q.y;
  }
  const Eigen::Vector2d scale(design.col(0).norm(), design.col(1).norm());
  Eigen::MatrixXd scaled = design;
  scaled.col(0) /= scale(0);
  scaled.col(1) /= scale(1);

  struct Candidate {
    double a, b;
  };
  Candidate candidates[3];
  int count = 0;
  if (n >= 2) {
    const Eigen::Vector2d theta = scaled.colPivHouseholderQr().solve(ones);
    const double a = theta(0) / scale(0), b = theta(1) / scale(1);
    if (a >= 0 && b >= 0 && std::isfinite(a) && std::isfinite(b)) candidates[count++] = {a, b};
  }
  // Boundary solutions of the non-negativity constraints (one coefficient pinned at zero).
  candidates[count++] = {design.col(0).dot(ones) / design.col(0).squaredNorm(), 0.0};
  candidates[count++] = {0.0, design.col(1).dot(ones) / design.col(1).squaredNorm()};

  double best = kInf;
  for (int c = 0; c < count; ++c) {
    const double rss = relative_rss(p, first, last, candidates[c].a, candidates[c].b);
    if (rss < best) {
      best = rss;
      *intercept = candidates[c].a;
      *slope = candidates[c].b;
    }
  }
  return best;
}

const LineSegment& SegmentedFit::segment_for(double x) const {
  if (segments.empty()) throw std::logic_error("SegmentedFit: no segments");
  for (const LineSegment& s : segments)
    if (x < s.to_x) return s;
  return segments.back();
}

double SegmentedFit::evaluate(double x) const {
  const LineSegment& s = segment_for(x);
  return s.intercept + s.slope * x;
}

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

  // cost[i][j]: best single-line relative RSS over points i..j (only for runs of ≥ m points).
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, kInf));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + m - 1; j < n; ++j) {
      double a = 0, b = 0;
      cost[i][j] = fit_line_relative(points, i, j, &a, &b);
    }

  // best[k][j]: best RSS covering points 0..j-1 with k segments; start[k][j]: first index of the last one.
  std::vector<std::vector<double>> best(k_max + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<std::size_t>> start(k_max + 1, std::vector<std::size_t>(n + 1, 0));
  best[0][0] = 0;
  for (std::size_t k = 1; k <= k_max; ++k)
    for (std::size_t j = k * m; j <= n; ++j)
      for (std::size_t i = (k - 1) * m; i + m <= j; ++i) {
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
  std::size_t chosen = 1;
  double chosen_bic = kInf;
  for (std::size_t k = 1; k <= k_max; ++k) {
    double bic = kInf;
    if (best[k][n] < kInf) {
      // Floor the RSS so exact synthetic data does not give ln(0).
      const double rss = std::max(best[k][n], dn * 1e-24);
      bic = dn * std::log(rss / dn) + (3.0 * static_cast<double>(k) - 1.0) * std::log(dn);
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
    fit_line_relative(points, first, last, &s.intercept, &s.slope);
    s.points = last - first + 1;
    for (std::size_t i = first; i <= last; ++i) {
      const double e = std::fabs((s.intercept + s.slope * points[i].x - points[i].y) / points[i].y);
      s.mean_rel_error += e;
      s.max_rel_error = std::max(s.max_rel_error, e);
    }
    total_error += s.mean_rel_error;
    s.mean_rel_error /= static_cast<double>(s.points);
    fit.max_rel_error = std::max(fit.max_rel_error, s.max_rel_error);
    fit.segments.push_back(s);
  }
  fit.mean_rel_error = total_error / dn;

  fit.segments.front().from_x = 0;
  fit.segments.back().to_x = kInf;
  for (std::size_t k = 0; k + 1 < runs.size(); ++k) {
    const double xa = points[runs[k].second].x, xb = points[runs[k + 1].first].x;
    const LineSegment& l = fit.segments[k];
    const LineSegment& r = fit.segments[k + 1];
    double boundary = std::sqrt(xa * xb);
    if (l.slope != r.slope) {
      const double cross = (r.intercept - l.intercept) / (l.slope - r.slope);
      if (cross > xa && cross < xb) boundary = cross;
    }
    fit.segments[k].to_x = boundary;
    fit.segments[k + 1].from_x = boundary;
  }
  return fit;
}

}  // namespace perfmodel
