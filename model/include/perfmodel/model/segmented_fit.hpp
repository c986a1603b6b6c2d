#pragma once
// Segmented (piecewise) linear least squares in relative error.
//
// Fits y ≈ intercept_k + slope_k · x on contiguous runs of points sorted by x, minimising the
// sum of squared *relative* residuals (pred − y)/y, so that a 4-byte transfer (microseconds)
// and a 1-GiB transfer (tens of milliseconds) count alike. Intercept and slope are constrained
// to be ≥ 0 (a setup time and a time per byte cannot be negative).
//
// Breakpoints are found by dynamic programming (exact optimum for each number of segments K),
// and K is chosen by the Bayesian information criterion
//     BIC(K) = N · ln(RSS_K / N) + (3K − 1) · ln N
// (2 coefficients per segment plus K − 1 breakpoints), the smallest BIC winning. Each segment
// holds at least `min_points_per_segment` points.
//
// The boundary between segment k (last point x_a) and k+1 (first point x_b) is placed where the
// two lines cross if that lies in (x_a, x_b), else at the geometric mean √(x_a·x_b). The first
// segment starts at 0 and the last extends to +∞.
#include <cstddef>
#include <vector>

namespace perfmodel {

struct FitPoint {
  double x = 0;  // abscissa (bytes), > 0
  double y = 0;  // ordinate (seconds), > 0
};

struct LineSegment {
  double from_x = 0, to_x = 0;      // covers [from_x, to_x)
  double intercept = 0, slope = 0;  // y = intercept + slope · x
  std::size_t points = 0;           // points the segment was fitted on
  double mean_rel_error = 0, max_rel_error = 0;
};

struct SegmentedFitOptions {
  std::size_t min_points_per_segment = 4;
  std::size_t max_segments = 12;
};

struct SegmentedFit {
  std::vector<LineSegment> segments;
  std::vector<double> bic_by_segment_count;  // index K-1 → BIC(K); +inf where K is infeasible
  double mean_rel_error = 0, max_rel_error = 0;
  std::size_t points = 0;

  const LineSegment& segment_for(double x) const;
  double evaluate(double x) const;
};

// Throws std::invalid_argument when fewer than min_points_per_segment points are given, or a
// point has a non-positive or non-finite coordinate, or two points share an x.
SegmentedFit fit_segmented_relative(std::vector<FitPoint> points, const SegmentedFitOptions& options = {});

// One constrained line through points [first, last] (inclusive), relative least squares.
// Returns the sum of squared relative residuals.
double fit_line_relative(const std::vector<FitPoint>& points, std::size_t first, std::size_t last,
                         double* intercept, double* slope);

}  // namespace perfmodel
