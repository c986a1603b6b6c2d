#pragma once
// Segmented (piecewise) linear least squares in relative error.
//
// Fits y ≈ intercept_k + slope_k · x + penalty_k · [flagged] on contiguous runs of points sorted
// by x (a flagged point pays an extra constant: for transfers, a size that is not a multiple of
// the alignment the copy path favours), minimising the
// sum of squared *relative* residuals (pred − y)/y, so that a 4-byte transfer (microseconds)
// and a 1-GiB transfer (tens of milliseconds) count alike. All coefficients are constrained to
// be ≥ 0 (a setup time, a time per byte and a misalignment cost cannot be negative); the
// constrained optimum is found exactly by enumerating active sets (at most 3 unknowns).
//
// Breakpoints are found by dynamic programming (exact optimum for each number of segments K),
// and K is chosen by the Bayesian information criterion
//     BIC(K) = N · ln(RSS_K / N) + ((c + 1)·K − 1) · ln N
// with c = 2 coefficients per segment (3 when the data has flagged and unflagged points) and
// K − 1 breakpoints, the smallest BIC winning. Each segment
// holds at least `min_points_per_segment` points.
//
// The boundary between segment k (last point x_a) and k+1 (first point x_b) is placed where the
// two lines cross if that lies in (x_a, x_b). Where they do not, and the right line at x_b lies
// at or above the left one at x_a, a bridge spans the gap (with `bridge_gaps`): a segment fitted
// on no points (`points == 0`) whose line runs from the left line's value at x_a to the right
// one's at x_b, covering (x_a, x_b) (its intercept may be negative: only its values in the gap
// mean anything); its flag penalty is the mean of its neighbours'. Elsewhere (a gap where the
// curve falls, or without bridges) the boundary is the geometric mean √(x_a·x_b), where the model
// steps. Without bridges, a held-out size in such a gap took whichever line the step gave it:
// on the 21 recorded H100 PCIe runs of 2026-11-23, 346 gaps had lines that do not meet, and the
// held-out maxima missed issue 2's targets in 17 of 105 curves; with bridges (rising gaps only)
// in 13, no curve crossing a target the other way (e.g. a bidirectional 5 KB pair 8.5 → 2.5 %,
// a d2h pageable 58 MB copy 14.3 → 7.8 %). Out of sample, on the ten runs of the three machines
// after (110d06eb, b4a9598c, 01b9bd69: data/experiments/2026-11-23-h100-pcie-machine-*), 18 misses
// without bridges, 17 with (an h2d pinned 5.3 % step); the maxima of the bundled run fell from
// 4.6 / 7.4 / 7.1 % to 3.5 / 2.8 / 6.5 % (h2d, d2h pageable, bidirectional). The first segment
// starts at 0 and the last extends to +∞.
//
// Points may carry a `method` (for transfers: how many copies one sample timed). Where the method
// changes along x, the measurement changed, and so may the time: no segment spans the change, and
// the boundary there is x_b itself, the first point of the new method (the caller arranges that
// the method changes at a fitted point). A segment one of whose ends is such a change may hold
// one point fewer than `min_points_per_segment` (that boundary is the measurement's, not a
// breakpoint the fit chose). When a run of one method has fewer than `min_points_per_segment`
// points, the methods are ignored.
#include <cstddef>
#include <limits>
#include <vector>

namespace perfmodel {

struct FitPoint {
  double x = 0;  // abscissa (bytes), > 0
  double y = 0;  // ordinate (seconds), > 0
  bool flagged = false;
  int method = 0;  // points of different methods never share a segment
};

struct LineSegment {
  double from_x = 0, to_x = 0;      // covers [from_x, to_x)
  double intercept = 0, slope = 0;  // y = intercept + slope · x (+ penalty if flagged)
  double penalty = 0;
  std::size_t points = 0;           // points the segment was fitted on; 0: a bridge
  double mean_rel_error = 0, max_rel_error = 0;
};

struct SegmentedFitOptions {
  std::size_t min_points_per_segment = 4;
  std::size_t max_segments = 12;
  // The largest flag penalty a segment may take; a segment whose best penalty is larger gets
  // none (a misaligned copy's remainder cannot cost more than a whole small copy: more is noise
  // or drift that happens to split along the flag).
  double max_penalty = std::numeric_limits<double>::infinity();
  // Span a rising gap between two lines that do not meet there with a bridge (above).
  bool bridge_gaps = true;
  // The least slope a line may take (for transfers: the time per byte of the link's limit; a
  // regime cannot move its marginal bytes faster than the link carries them).
  double min_slope = 0;
};

struct SegmentedFit {
  std::vector<LineSegment> segments;
  std::vector<double> bic_by_segment_count;  // index K-1 → BIC(K); +inf where K is infeasible
  double mean_rel_error = 0, max_rel_error = 0;
  std::size_t points = 0;

  const LineSegment& segment_for(double x) const;
  double evaluate(double x, bool flagged = false) const;
};

// Throws std::invalid_argument when fewer than min_points_per_segment points are given, or a
// point has a non-positive or non-finite coordinate, or two points share an x.
SegmentedFit fit_segmented_relative(std::vector<FitPoint> points, const SegmentedFitOptions& options = {});

// One constrained line (+ flag penalty, at most max_penalty, when the run has flagged and
// unflagged points) through points [first, last] (inclusive), relative least squares. Returns the
// sum of squared relative residuals.
double fit_line_relative(const std::vector<FitPoint>& points, std::size_t first, std::size_t last, LineSegment* line,
                         double max_penalty = std::numeric_limits<double>::infinity(), double min_slope = 0);

}  // namespace perfmodel
