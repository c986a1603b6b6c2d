#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "perfmodel/model/segmented_fit.hpp"
#include "perfmodel/model/transfer_model.hpp"

using namespace perfmodel;

namespace {

struct TrueSegment {
  double to_x, intercept, slope;
};

// Log-spaced x from 4 to 2^30 (4 per octave), y from a piecewise line with multiplicative noise.
std::vector<FitPoint> synthetic(const std::vector<TrueSegment>& truth, double noise, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, noise);
  std::vector<FitPoint> points;
  for (double e = 2; e <= 30; e += 0.25) {
    const double x = std::exp2(e);
    std::size_t k = 0;
    while (k + 1 < truth.size() && x >= truth[k].to_x) ++k;
    points.push_back({x, (truth[k].intercept + truth[k].slope * x) * (1.0 + n(rng))});
  }
  return points;
}

// The segments fitted on points (bridges, fitted on none, left out).
std::vector<LineSegment> fitted(const SegmentedFit& fit) {
  std::vector<LineSegment> out;
  for (const LineSegment& s : fit.segments)
    if (s.points > 0) out.push_back(s);
  return out;
}

}  // namespace

TEST(SegmentedFit, RecoversThreeRegimesAndTheirConstants) {
  // A PCIe-like curve: 10 us latency; staged copies at 4 GB/s from 64 KiB; DMA at 50 GB/s from 4 MiB.
  const std::vector<TrueSegment> truth = {{65536, 10e-6, 1.0 / 20e9}, {4194304, 14e-6, 1.0 / 8e9}, {INFINITY, 300e-6, 1.0 / 50e9}};
  const SegmentedFit fit = fit_segmented_relative(synthetic(truth, 0.003, 7));
  const std::vector<LineSegment> lines = fitted(fit);
  ASSERT_EQ(lines.size(), 3u);
  // Each change of regime lies between the last point of one line and the first of the next.
  EXPECT_NEAR(std::sqrt(lines[0].to_x * lines[1].from_x) / 65536, 1.0, 0.2);
  EXPECT_NEAR(std::sqrt(lines[1].to_x * lines[2].from_x) / 4194304, 1.0, 0.2);
  EXPECT_NEAR(lines[0].intercept / 10e-6, 1.0, 0.02);
  EXPECT_NEAR(lines[2].slope * 50e9, 1.0, 0.01);
  EXPECT_NEAR(lines[1].slope * 8e9, 1.0, 0.05);
  EXPECT_LT(fit.mean_rel_error, 0.005);
  EXPECT_EQ(fit.segments.front().from_x, 0.0);
  EXPECT_TRUE(std::isinf(fit.segments.back().to_x));
}

TEST(SegmentedFit, OneLineStaysOneSegment) {
  const SegmentedFit fit = fit_segmented_relative(synthetic({{INFINITY, 5e-6, 1.0 / 25e9}}, 0.002, 3));
  EXPECT_EQ(fit.segments.size(), 1u);
  EXPECT_NEAR(fit.segments[0].intercept / 5e-6, 1.0, 0.01);
  EXPECT_NEAR(fit.segments[0].slope * 25e9, 1.0, 0.01);
}

TEST(SegmentedFit, CoefficientsAreNeverNegative) {
  // A decreasing run cannot be fitted with a positive slope; the constraint must hold anyway.
  std::vector<FitPoint> points;
  for (int i = 0; i < 12; ++i) points.push_back({std::exp2(i + 2), 1e-5 * (1.0 - 0.02 * i)});
  const SegmentedFit fit = fit_segmented_relative(points);
  for (const LineSegment& s : fit.segments) {
    EXPECT_GE(s.intercept, 0.0);
    EXPECT_GE(s.slope, 0.0);
  }
}

TEST(SegmentedFit, SegmentsAreContiguousAndRespectTheMinimumSize) {
  SegmentedFitOptions options;
  options.min_points_per_segment = 6;
  const SegmentedFit fit = fit_segmented_relative(
      synthetic({{1 << 12, 8e-6, 1e-10}, {1 << 20, 9e-6, 2e-10}, {INFINITY, 2e-4, 2e-11}}, 0.01, 11), options);
  for (std::size_t k = 0; k < fit.segments.size(); ++k) {
    if (fit.segments[k].points > 0) {
      EXPECT_GE(fit.segments[k].points, 6u);
    } else {  // a bridge: between two fitted segments, meeting their lines at its ends
      ASSERT_TRUE(k > 0 && k + 1 < fit.segments.size());
      const LineSegment &l = fit.segments[k - 1], &b = fit.segments[k], &r = fit.segments[k + 1];
      EXPECT_NEAR(b.intercept + b.slope * b.from_x, l.intercept + l.slope * b.from_x, 1e-9 * l.intercept);
      EXPECT_NEAR(b.intercept + b.slope * b.to_x, r.intercept + r.slope * b.to_x, 1e-9 * r.intercept);
    }
    if (k > 0) {
      EXPECT_EQ(fit.segments[k].from_x, fit.segments[k - 1].to_x);
    }
    EXPECT_LT(fit.segments[k].from_x, fit.segments[k].to_x);
  }
}

TEST(SegmentedFit, BicPenalisesSegmentsThatBuyNothing) {
  const SegmentedFit fit = fit_segmented_relative(synthetic({{INFINITY, 5e-6, 1.0 / 25e9}}, 0.01, 5));
  ASSERT_GE(fit.bic_by_segment_count.size(), 3u);
  EXPECT_LT(fit.bic_by_segment_count[0], fit.bic_by_segment_count[2]);
}

TEST(SegmentedFit, RejectsBadInput) {
  EXPECT_THROW(fit_segmented_relative({{1, 1}, {2, 2}}), std::invalid_argument);
  EXPECT_THROW(fit_segmented_relative({{1, 1}, {2, -2}, {3, 3}, {4, 4}}), std::invalid_argument);
  EXPECT_THROW(fit_segmented_relative({{1, 1}, {1, 2}, {3, 3}, {4, 4}}), std::invalid_argument);
}

TEST(SegmentedFit, RecoversAPenaltyOnFlaggedPoints) {
  // 8 us + b / 10 GB/s, and 0.5 us more on flagged (misaligned) points.
  std::vector<FitPoint> points;
  for (double e = 2; e <= 24; e += 1) {
    const double x = std::exp2(e);
    points.push_back({x, 8e-6 + x / 10e9, false});
    points.push_back({x + 3, 8e-6 + (x + 3) / 10e9 + 0.5e-6, true});
  }
  const SegmentedFit fit = fit_segmented_relative(points);
  ASSERT_EQ(fit.segments.size(), 1u);
  EXPECT_NEAR(fit.segments[0].penalty / 0.5e-6, 1.0, 1e-6);
  EXPECT_NEAR(fit.evaluate(1000, true) - fit.evaluate(1000, false), 0.5e-6, 1e-12);
  EXPECT_LT(fit.max_rel_error, 1e-9);
}

// Five points of a noisy regime, two of them flagged: a penalty would fit the noise exactly (three
// parameters, five points), so none is fitted; with the same noise on 40 points and a true
// penalty, the penalty is found.
TEST(SegmentedFit, APenaltyMustPayForItself) {
  const std::vector<FitPoint> few = {{12.3e6, 0.934e-3, true}, {12.6e6, 0.949e-3, false}, {16.8e6, 1.549e-3, false},
                                     {24.6e6, 2.992e-3, true}, {25.2e6, 2.446e-3, false}};
  LineSegment line;
  fit_line_relative(few, 0, few.size() - 1, &line);
  EXPECT_EQ(line.penalty, 0.0);
  EXPECT_GT(line.slope, 0.0);

  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.002);
  std::vector<FitPoint> many;
  for (int i = 0; i < 40; ++i) {
    const double x = 1e5 * (1 + i);
    const bool flagged = i % 2 == 1;
    many.push_back({x, (10e-6 + x / 10e9 + (flagged ? 2e-6 : 0.0)) * (1 + noise(rng)), flagged});
  }
  fit_line_relative(many, 0, many.size() - 1, &line);
  EXPECT_NEAR(line.penalty / 2e-6, 1.0, 0.15);
}

// The penalty needs three points of each kind, and to stand four standard errors clear of 0.
TEST(SegmentedFit, APenaltyNeedsThreePointsOfEachKindAndToStandOutOfTheNoise) {
  // 10 points, two of them flagged and 0.6 µs slower: a penalty would only describe those two.
  std::vector<FitPoint> two;
  for (int i = 0; i < 10; ++i) {
    const double x = 1e5 * (1 + i);
    const bool flagged = i == 3 || i == 7;
    two.push_back({x, 10e-6 + x / 10e9 + (flagged ? 0.6e-6 : 0.0), flagged});
  }
  LineSegment line;
  fit_line_relative(two, 0, two.size() - 1, &line);
  EXPECT_EQ(line.penalty, 0.0);
  two[5].flagged = true, two[5].y += 0.6e-6;  // a third flagged point: now it is a cost of the kind
  fit_line_relative(two, 0, two.size() - 1, &line);
  EXPECT_NEAR(line.penalty, 0.6e-6, 1e-12);

  // Seven points with up to 3 % noise and a flagged offset of the noise's size (the bidirectional
  // pinned copies at 0.4–1 MiB on the H100). Fitted, the penalty comes out at 0.63 µs, 2.2
  // standard errors from 0 (F = 5.0): BIC, which asks for F > 1.3 at seven points, would keep it;
  // the rule does not.
  const double noise[] = {-0.001, -0.005, 0.003, -0.001, 0.0, -0.029, 0.026};
  std::vector<FitPoint> seven;
  for (int i = 0; i < 7; ++i) {
    const double x = 4e5 * (1 + 0.3 * i);
    const bool flagged = i % 2 == 0;
    seven.push_back({x, (7e-6 + x / 47e9 + (flagged ? 0.3e-6 : 0.0)) * (1 + noise[i]), flagged});
  }
  fit_line_relative(seven, 0, seven.size() - 1, &line);
  EXPECT_EQ(line.penalty, 0.0);
  // The same points without noise: the penalty is found exactly.
  for (int i = 0; i < 7; ++i) seven[static_cast<std::size_t>(i)].y /= 1 + noise[i];
  fit_line_relative(seven, 0, seven.size() - 1, &line);
  EXPECT_NEAR(line.penalty, 0.3e-6, 1e-12);
}

// A penalty larger than max_penalty is not taken: the same 40 points with a 2 µs penalty fit
// none when at most 1 µs is allowed, and the line alone is what is left. Through the transfer
// fit the cap is the curve's smallest copy: a "misaligned" cost of 150 µs between MB-size copies
// measured in slower rounds is not learnt.
TEST(SegmentedFit, APenaltyBeyondTheCapIsNotTaken) {
  std::vector<FitPoint> many;
  for (int i = 0; i < 40; ++i) {
    const double x = 1e5 * (1 + i);
    const bool flagged = i % 2 == 1;
    many.push_back({x, 10e-6 + x / 10e9 + (flagged ? 2e-6 : 0.0), flagged});
  }
  LineSegment free_line, capped;
  fit_line_relative(many, 0, many.size() - 1, &free_line);
  EXPECT_NEAR(free_line.penalty, 2e-6, 1e-12);
  fit_line_relative(many, 0, many.size() - 1, &capped, 1e-6);
  EXPECT_EQ(capped.penalty, 0.0);
  EXPECT_GT(capped.intercept, 10e-6);  // the line takes the flagged points' half of the cost

  std::vector<SizeTime> fit_set, holdout;
  for (int i = 0; i < 8; ++i) fit_set.push_back({4.0 * (1 << i), 8e-6, 20, 0});  // small copies: 8 µs
  for (int i = 0; i < 12; ++i) {
    const double bytes = 10e6 + 2e6 * i + 17 * (i % 2);  // ragged tails on every other size, and 150 µs slower
    fit_set.push_back({bytes, 8e-6 + bytes / 10e9 + (i % 2 ? 150e-6 : 0.0), 20, 0});
  }
  const TransferCurve curve = fit_transfer_curve(fit_set, holdout);
  for (const TransferSegment& s : curve.segments) EXPECT_LE(s.misaligned_s, 8e-6 * (1 + 1e-9)) << s.from_bytes;
}

// Where the measurement changes (FitPoint::method: copies timed in batches, then alone), the time
// may step; no segment may span the change, and the boundary is the first point of the new method.
TEST(SegmentedFit, NoSegmentSpansAChangeOfMethod) {
  std::vector<FitPoint> points;
  for (int i = 0; i < 16; ++i) {
    const double x = 1e5 * (1 + i);
    const bool alone = i >= 8;  // from 9e5 on, one copy per sample: 10 % more at the same size
    points.push_back({x, (5e-6 + x / 40e9) * (alone ? 1.1 : 1.0), false, alone ? 1 : 4});
  }
  const SegmentedFit fit = fit_segmented_relative(points);
  ASSERT_EQ(fit.segments.size(), 2u);
  EXPECT_EQ(fit.segments[0].to_x, 9e5);
  EXPECT_LT(fit.max_rel_error, 1e-9);
  // The same points with no method: the step is not where a line break can meet it exactly.
  for (FitPoint& p : points) p.method = 0;
  const SegmentedFit blind = fit_segmented_relative(points);
  EXPECT_NE(blind.segments.front().to_x, 9e5);
}

// Eight sizes on one line, three on another, then a change of method and eight on a third: the
// three may form a segment of their own, since the change fixes one of its ends.
namespace {
std::vector<FitPoint> three_before_a_change(bool change_after_the_three) {
  std::vector<FitPoint> points;
  for (int i = 0; i < 19; ++i) {
    const double x = 1e4 * (1 + i);
    const double y = i < 8 ? 2e-6 + x / 4e9 : i < 11 ? 12e-6 + x / 12e9 : 30e-6 + x / 8e9;
    const bool alone = change_after_the_three ? i >= 11 : i >= 14;
    points.push_back({x, y, false, alone ? 1 : 4});
  }
  return points;
}
}  // namespace

TEST(SegmentedFit, ASegmentAtAChangeOfMethodMayHoldOnePointLess) {
  const SegmentedFit fit = fit_segmented_relative(three_before_a_change(true));
  ASSERT_EQ(fit.segments.size(), 3u);
  EXPECT_EQ(fit.segments[1].points, 3u);
  EXPECT_EQ(fit.segments[1].to_x, 1.2e5);
  EXPECT_LT(fit.max_rel_error, 1e-9);
  // The three sizes away from the change (now at 1.5e5): only a segment that ends or starts there
  // may hold three, so those three cannot be fitted exactly.
  const SegmentedFit inside = fit_segmented_relative(three_before_a_change(false));
  for (const LineSegment& s : inside.segments)
    if (s.points > 0 && s.points < 4) {
      EXPECT_TRUE(s.to_x == 1.5e5 || s.from_x == 1.5e5) << s.from_x << " - " << s.to_x;
    }
  EXPECT_GT(inside.max_rel_error, 1e-3);
}

TEST(SegmentedFit, AMethodRunTooShortForASegmentIsIgnored) {
  std::vector<FitPoint> points;
  for (int i = 0; i < 12; ++i) points.push_back({1e3 * (1 + i), 1e-5 + 1e-9 * i, false, i < 2 ? 3 : 1});
  const SegmentedFit fit = fit_segmented_relative(points);  // two points of method 3: fewer than 4
  EXPECT_EQ(fit.segments.size(), 1u);
  EXPECT_LT(fit.max_rel_error, 1e-9);
}

// Two regimes with no point between 1e4 and 2e4 whose lines do not meet there: the time rises
// across the gap (a copy path that switches, say). A held-out size in the gap gets the straight
// line between what the two lines give at its ends, not whichever line a step at the geometric
// mean hands it; where the time falls across the gap, or at a change of method, the model steps.
namespace {
std::vector<FitPoint> two_lines_around_a_gap(double right_intercept) {
  std::vector<FitPoint> points;
  for (int i = 0; i < 8; ++i) points.push_back({1e3 * (3 + i * 1), 5e-6 + 1e3 * (3 + i) / 5e9});         // 3e3 … 1e4
  for (int i = 0; i < 8; ++i) points.push_back({2e4 + 1e4 * i, right_intercept + (2e4 + 1e4 * i) / 20e9});  // 2e4 … 9e4
  return points;
}
}  // namespace

TEST(SegmentedFit, ABridgeSpansARisingGapWhereTheLinesDoNotMeet) {
  // Left: 5 µs + x / 5 GB/s (7 µs at 1e4); right: 16 µs + x / 20 GB/s (17 µs at 2e4): they would
  // meet at x < 0, never in the gap.
  const std::vector<FitPoint> points = two_lines_around_a_gap(16e-6);
  const SegmentedFit fit = fit_segmented_relative(points);
  ASSERT_EQ(fit.segments.size(), 3u);
  const LineSegment& bridge = fit.segments[1];
  EXPECT_EQ(bridge.points, 0u);
  EXPECT_EQ(fit.segments[0].points, 8u);
  EXPECT_EQ(fit.segments[2].points, 8u);
  EXPECT_GT(bridge.from_x, 1e4);
  EXPECT_LT(bridge.from_x, 1e4 * (1 + 1e-12));
  EXPECT_EQ(bridge.to_x, 2e4);
  EXPECT_LT(bridge.intercept, 0);  // steeper than proportional: only its values in the gap count
  // The fitted points are the lines' own, and the gap's middle is the mean of the ends.
  EXPECT_NEAR(fit.evaluate(1e4), 7e-6, 1e-12);
  EXPECT_NEAR(fit.evaluate(2e4), 17e-6, 1e-12);
  EXPECT_NEAR(fit.evaluate(1.5e4), 12e-6, 1e-12);
  for (double x = 1e4; x < 2e4; x += 500) EXPECT_LE(fit.evaluate(x), fit.evaluate(x + 500));
  // Without bridges the model steps at the gap's end where the lines lie closer: at 2e4 they are
  // 8 µs apart (9 and 17 µs), at 1e4 9.5 µs (7 and 16.5): the left line runs to 2e4 (8 µs at 1.5e4).
  SegmentedFitOptions no_bridges;
  no_bridges.bridge_gaps = false;
  const SegmentedFit stepped = fit_segmented_relative(points, no_bridges);
  ASSERT_EQ(stepped.segments.size(), 2u);
  EXPECT_NEAR(stepped.segments[0].to_x, 2e4, 1e-6);
  EXPECT_NEAR(stepped.evaluate(1.5e4), 8e-6, 1e-12);
  // A falling gap (the right line 1 µs lower at 2e4 than the left at 1e4) keeps the step.
  const SegmentedFit falling = fit_segmented_relative(two_lines_around_a_gap(5e-6));
  for (const LineSegment& s : falling.segments) EXPECT_GT(s.points, 0u);
  // A change of method at the gap is the measurement's own step: no bridge either.
  std::vector<FitPoint> methods = points;
  for (std::size_t i = 8; i < methods.size(); ++i) methods[i].method = 1;
  const SegmentedFit changed = fit_segmented_relative(methods);
  ASSERT_EQ(changed.segments.size(), 2u);
  EXPECT_EQ(changed.segments[0].to_x, 2e4);
}
