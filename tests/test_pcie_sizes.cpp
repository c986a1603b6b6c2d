#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "perfmodel/calibrate/pcie_sizes.hpp"

using namespace perfmodel;

TEST(PcieSizePlan, HeldOutSizesAreDisjointAndNeverPowersOfTwo) {
  const PcieSizePlan plan = pcie_size_plan();
  EXPECT_EQ(plan.fit.front(), 4u);
  EXPECT_EQ(plan.fit.back(), std::uint64_t{1} << 30);
  EXPECT_TRUE(std::is_sorted(plan.fit.begin(), plan.fit.end()));
  EXPECT_EQ(plan.holdout.size(), 2u * 28);
  for (std::uint64_t h : plan.holdout) {
    EXPECT_NE(h & (h - 1), 0u) << h << " is a power of two";
    EXPECT_FALSE(std::binary_search(plan.fit.begin(), plan.fit.end(), h)) << h << " is also a fit size";
    EXPECT_GT(h, plan.fit.front());
    EXPECT_LT(h, plan.fit.back());
  }
  std::vector<std::uint64_t> sorted = plan.holdout;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

TEST(PcieSizePlan, RejectsBoundsThatAreNotPowersOfTwo) {
  EXPECT_THROW(pcie_size_plan(3, 1024), std::invalid_argument);
  EXPECT_THROW(pcie_size_plan(1024, 1024), std::invalid_argument);
}

// Every size takes part in exactly as many rounds as it was given, spread over the whole run:
// no gap between two of its rounds is longer than an even spacing allows.
TEST(PcieRoundPlan, ASizeTakesPartInItsRoundsEvenlySpread) {
  for (const PcieRoundPlan plan : {PcieRoundPlan{}, PcieRoundPlan::quick()}) {
    for (int rounds = 1; rounds <= plan.all; ++rounds) {
      std::vector<int> taken;
      for (int r = 0; r < plan.all; ++r)
        if (plan.takes_part(r, rounds)) taken.push_back(r);
      ASSERT_EQ(static_cast<int>(taken.size()), rounds) << rounds;
      const int spacing = (plan.all + rounds - 1) / rounds;
      EXPECT_LE(plan.all - 1 - taken.back(), spacing) << rounds;  // reaches the end of the run
      for (std::size_t i = 1; i < taken.size(); ++i) EXPECT_LE(taken[i] - taken[i - 1], spacing) << rounds;
    }
  }
}

// A size that joins late (the refined sizes, at refine_after) gets its rounds, as many as are
// left at most, spread evenly over the rest of the run, and none before it joined.
TEST(PcieRoundPlan, ASizeThatJoinsLateIsSpreadOverTheRoundsLeft) {
  for (const PcieRoundPlan plan : {PcieRoundPlan{}, PcieRoundPlan::quick()}) {
    const int first = plan.refine_after, span = plan.all - first;
    ASSERT_GT(first, 0);
    ASSERT_GT(span, 0);
    for (int rounds = 1; rounds <= plan.all; ++rounds) {
      std::vector<int> taken;
      for (int r = 0; r < plan.all; ++r)
        if (plan.takes_part(r, rounds, first)) taken.push_back(r);
      ASSERT_EQ(static_cast<int>(taken.size()), std::min(rounds, span)) << rounds;
      EXPECT_GE(taken.front(), first) << rounds;
      const int spacing = (span + rounds - 1) / rounds;
      EXPECT_LE(plan.all - 1 - taken.back(), spacing) << rounds;
      for (std::size_t i = 1; i < taken.size(); ++i) EXPECT_LE(taken[i] - taken[i - 1], spacing) << rounds;
    }
  }
}

TEST(PcieRoundPlan, CheapSizesGetEveryRoundCostlyOnesWhatTheBudgetBuys) {
  const PcieRoundPlan plan;
  EXPECT_EQ(plan.rounds_for(30e-6, true), plan.all);   // a batch of small copies
  EXPECT_EQ(plan.rounds_for(100e-6, true), 73);        // 7.3 ms of sampling
  EXPECT_EQ(plan.rounds_for(1e-3, false), plan.mid);   // the budget would buy fewer than mid
  EXPECT_EQ(plan.rounds_for(20e-3, true), plan.long_pinned);
  EXPECT_EQ(plan.rounds_for(20e-3, false), plan.long_pageable);
  // Pageable copies of tens of MB (where the curve bends) get more rounds than pinned ones of the
  // same time, and the longest pageable ones fewer; pinned copies of any length the same count.
  EXPECT_EQ(plan.rounds_for(3 * plan.long_sample_s, false), plan.long_pageable_mid);
  EXPECT_EQ(plan.rounds_for(4 * plan.long_sample_s, false), plan.long_pageable_mid);
  EXPECT_EQ(plan.rounds_for(4.01 * plan.long_sample_s, false), plan.long_pageable);
  EXPECT_EQ(plan.rounds_for(3 * plan.long_sample_s, true), plan.long_pinned);
  EXPECT_EQ(plan.rounds_for(40 * plan.long_sample_s, true), plan.long_pinned);
  EXPECT_GT(plan.long_pageable_mid, plan.long_pinned);
  EXPECT_LT(plan.long_pageable, plan.long_pinned);
  // More expensive samples never get more rounds, up to the long ones.
  int previous = plan.all;
  for (double s = 1e-6; s <= plan.long_sample_s; s *= 1.1) {
    const int r = plan.rounds_for(s, true);
    EXPECT_LE(r, previous) << s;
    EXPECT_GE(r, plan.mid) << s;
    EXPECT_LE(r * s, std::max(plan.size_budget_s, plan.mid * s) * (1 + 1e-12)) << s;
    previous = r;
  }
  EXPECT_THROW(plan.rounds_for(0, true), std::invalid_argument);
  EXPECT_THROW(plan.rounds_for(-1e-6, true), std::invalid_argument);
}

// The long pageable sizes of a curve share a time budget: on a host that stages pageable copies
// at half the usual rate their rounds shrink together (never below their floors) so that their
// sampling fits it; the other sizes, pinned curves and curves within the budget keep theirs.
TEST(PcieRoundPlan, LongPageableSizesShareATimeBudget) {
  const PcieRoundPlan plan;
  auto curve = [](double rate) {  // sample times of 1 KB ... 1 GB copies staged at `rate` B/s
    std::vector<double> s;
    for (double b = 1e3; b <= 1.1e9; b *= 1.2) s.push_back(8e-6 + b / rate);
    return s;
  };
  auto long_seconds = [&](const std::vector<double>& s, const std::vector<int>& r) {
    double total = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] > plan.long_sample_s) total += r[i] * s[i];
    return total;
  };
  const std::vector<double> fast = curve(40e9), slow = curve(4e9);
  // Within the budget (a fast host): every size gets rounds_for's count.
  const std::vector<int> as_planned = plan.rounds_for_curve(fast, false);
  ASSERT_LE(long_seconds(fast, as_planned), plan.long_pageable_budget_s);
  for (std::size_t i = 0; i < fast.size(); ++i) EXPECT_EQ(as_planned[i], plan.rounds_for(fast[i], false)) << i;
  // Over it: the long sizes scale down, the short ones do not; pinned curves are never scaled.
  const std::vector<int> scaled = plan.rounds_for_curve(slow, false), pinned = plan.rounds_for_curve(slow, true);
  double unscaled = 0;
  for (std::size_t i = 0; i < slow.size(); ++i) {
    EXPECT_EQ(pinned[i], plan.rounds_for(slow[i], true)) << i;
    if (slow[i] <= plan.long_sample_s) {
      EXPECT_EQ(scaled[i], plan.rounds_for(slow[i], false)) << i;
      continue;
    }
    unscaled += plan.rounds_for(slow[i], false) * slow[i];
    EXPECT_LT(scaled[i], plan.rounds_for(slow[i], false)) << i;
    EXPECT_GE(scaled[i], slow[i] <= 4 * plan.long_sample_s ? plan.long_pinned : 3) << i;
  }
  ASSERT_GT(unscaled, 1.25 * plan.long_pageable_budget_s);
  EXPECT_LE(long_seconds(slow, scaled), 1.15 * plan.long_pageable_budget_s);  // rounding and floors
  EXPECT_LT(long_seconds(slow, scaled), 0.85 * unscaled);
  EXPECT_THROW(plan.rounds_for_curve({1e-3, 0.0}, false), std::invalid_argument);
}

TEST(PcieRoundPlan, EffortScalesEveryCountAndTheBudget) {
  const PcieRoundPlan base, four = base.scaled(4), half = base.scaled(1.5);
  EXPECT_EQ(four.all, 4 * base.all);
  EXPECT_EQ(four.mid, 4 * base.mid);
  EXPECT_EQ(four.long_pinned, 4 * base.long_pinned);
  EXPECT_EQ(four.long_pageable_mid, 4 * base.long_pageable_mid);
  EXPECT_EQ(four.long_pageable, 4 * base.long_pageable);
  EXPECT_EQ(four.refine_after, 4 * base.refine_after);
  EXPECT_EQ(half.mid, 41);  // 40.5, rounded away from zero
  EXPECT_DOUBLE_EQ(four.size_budget_s, 4 * base.size_budget_s);
  EXPECT_DOUBLE_EQ(four.long_pageable_budget_s, 4 * base.long_pageable_budget_s);
  EXPECT_DOUBLE_EQ(four.long_sample_s, base.long_sample_s);  // what counts as a long copy does not change
  // Every kind of size gets four times the samples: cheap, budgeted, long pinned, long pageable.
  for (const auto& [sample_s, pinned] :
       std::vector<std::pair<double, bool>>{{30e-6, true}, {100e-6, true}, {20e-3, true}, {5e-3, false}, {20e-3, false}})
    EXPECT_EQ(four.rounds_for(sample_s, pinned), 4 * base.rounds_for(sample_s, pinned)) << sample_s;
  EXPECT_EQ(base.scaled(1).all, base.all);
  for (double bad : {0.5, 0.0, -1.0, 17.0, std::nan("")}) EXPECT_THROW(base.scaled(bad), std::invalid_argument) << bad;
}

namespace {
// Median times of a copy with 8 µs setup that runs at 14 GB/s up to `cliff` bytes and 8 GB/s beyond.
// Each size comes with `samples` samples of relative interquartile range `spread` (0: noiseless).
std::vector<SizeTime> cliff_curve(const std::vector<std::uint64_t>& sizes, double cliff, std::size_t samples = 0, double spread = 0,
                                  double rate_beyond = 8e9) {
  std::vector<SizeTime> out;
  for (std::uint64_t b : sizes) {
    const double x = static_cast<double>(b);
    out.push_back({x, 8e-6 + (x <= cliff ? x / 14e9 : cliff / 14e9 + (x - cliff) / rate_beyond), samples, 0.0, spread});
  }
  return out;
}
}  // namespace

TEST(PcieRefinement, AStraightCurveNeedsNoNewSizes) {
  const PcieSizePlan plan = pcie_size_plan();
  std::vector<SizeTime> medians;
  for (std::uint64_t b : plan.fit) medians.push_back({static_cast<double>(b), 8e-6 + static_cast<double>(b) / 50e9});
  std::vector<std::uint64_t> taken = plan.fit;
  taken.insert(taken.end(), plan.holdout.begin(), plan.holdout.end());
  EXPECT_TRUE(pcie_refinement_sizes(medians, taken).empty());
}

// A bandwidth cliff between 12 and 16 MiB (as h2d pageable copies on the H100 host showed): the
// new sizes fall beside the bent fit sizes, are new, never powers of two, and ascend.
TEST(PcieRefinement, ACliffGetsNewFitSizesAroundIt) {
  const PcieSizePlan plan = pcie_size_plan();
  std::vector<std::uint64_t> taken = plan.fit;
  taken.insert(taken.end(), plan.holdout.begin(), plan.holdout.end());
  const double cliff = 14.0e6;
  const auto added = pcie_refinement_sizes(cliff_curve(plan.fit, cliff), taken);
  ASSERT_FALSE(added.empty());
  EXPECT_TRUE(std::is_sorted(added.begin(), added.end()));
  for (std::uint64_t v : added) {
    EXPECT_NE(v & (v - 1), 0u) << v;
    EXPECT_EQ(std::find(taken.begin(), taken.end(), v), taken.end()) << v << " was already measured";
    EXPECT_GT(v, 8u << 20) << v << " is far from the cliff";
    EXPECT_LT(v, 24u << 20) << v << " is far from the cliff";
  }
  // One new size falls between the two fit sizes that bracket the cliff.
  const auto above = std::upper_bound(plan.fit.begin(), plan.fit.end(), static_cast<std::uint64_t>(cliff));
  const std::uint64_t lo = *(above - 1), hi = *above;
  EXPECT_TRUE(std::any_of(added.begin(), added.end(), [&](std::uint64_t v) { return v > lo && v < hi; }))
      << "nothing between " << lo << " and " << hi;
}

// A cliff from 14 to 4 GB/s at 14 MB bends the 16 MiB fit size 9.7 % off the line through its
// neighbours: new sizes' worth when the sizes are known to a fraction of that (a 2 % interquartile
// range and 13 samples, as pinned copies half way through a run), not when their noise could
// make it (a 30 % range and 3 samples, as pageable copies of tens of MB on a shared host).
TEST(PcieRefinement, ABendMustStandOutOfTheNoise) {
  const PcieSizePlan plan = pcie_size_plan();
  std::vector<std::uint64_t> taken = plan.fit;
  taken.insert(taken.end(), plan.holdout.begin(), plan.holdout.end());
  const double cliff = 14.0e6;
  const auto noiseless = pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 0, 0.0, 4e9), taken);
  ASSERT_FALSE(noiseless.empty());
  EXPECT_EQ(pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 13, 0.02, 4e9), taken), noiseless);
  EXPECT_TRUE(pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 3, 0.30, 4e9), taken).empty());
  // The spread is the median of the three sizes': one noisy size among quiet ones hides no bend.
  auto one_noisy = cliff_curve(plan.fit, cliff, 13, 0.02, 4e9);
  for (SizeTime& t : one_noisy)
    if (t.bytes == 16777216.0) t.rel_spread = 5.0;
  EXPECT_EQ(pcie_refinement_sizes(one_noisy, taken), noiseless);
  // Sizes of two or three samples show no bend, however small their spread: it is itself noise.
  EXPECT_TRUE(pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 3, 0.001, 4e9), taken).empty());
  EXPECT_EQ(pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 4, 0.001, 4e9), taken), noiseless);
  PcieRefinement strict;
  strict.noise_z = 1e6;
  EXPECT_TRUE(pcie_refinement_sizes(cliff_curve(plan.fit, cliff, 13, 0.02, 4e9), taken, strict).empty());
}

TEST(PcieRefinement, RespectsTheCapTheFloorAndRejectsBadMedians) {
  const PcieSizePlan plan = pcie_size_plan();
  // A curve that bends everywhere (time ∝ bytes^1.5) above the floor.
  std::vector<SizeTime> medians;
  for (std::uint64_t b : plan.fit) medians.push_back({static_cast<double>(b), 1e-9 * std::pow(static_cast<double>(b), 1.5)});
  PcieRefinement options;
  options.max_new = 5;
  options.min_bytes = 1 << 20;
  const auto added = pcie_refinement_sizes(medians, plan.fit, options);
  EXPECT_EQ(added.size(), 5u);
  for (std::uint64_t v : added) EXPECT_GT(v, std::uint64_t{1} << 20);
  EXPECT_THROW(pcie_refinement_sizes({{1024, 1e-5}, {2048, -1.0}, {4096, 2e-5}}, {}), std::invalid_argument);
  EXPECT_THROW(pcie_refinement_sizes({{0, 1e-5}}, {}), std::invalid_argument);
  EXPECT_THROW(pcie_refinement_sizes({{1024, 1e-5, 3, 0.0, -0.1}}, {}), std::invalid_argument);
  EXPECT_THROW(pcie_refinement_sizes({{1024, 1e-5, 3, 0.0, std::nan("")}}, {}), std::invalid_argument);
}

// The pilots of a bidirectional curve as the 2026-11-23 H100 gave them: a flat ~7–10 µs regime
// whose single noisy copies would have asked for batches of 3, 4 or 5 size by size.
TEST(PcieHostCursor, RotatingCopiesFollowEachOtherPageAlignedAndWrap) {
  const std::size_t page = PcieHostCursor::kAlign;
  PcieHostCursor cursor(PcieHostBuffer::rotating, 10 * page);
  EXPECT_EQ(cursor.next(4), 0u);
  EXPECT_EQ(cursor.next(page + 1), page);       // the 4-byte copy took a whole page
  EXPECT_EQ(cursor.next(3 * page), 3 * page);   // page + 1 bytes took two
  EXPECT_EQ(cursor.next(4 * page), 6 * page);   // ends exactly at the buffer's end
  EXPECT_EQ(cursor.next(1), 0u);                // nothing left: back to the start
  EXPECT_EQ(cursor.next(10 * page), 0u);        // the whole buffer wraps at once
  EXPECT_EQ(cursor.next(9 * page), 0u);
  EXPECT_THROW(cursor.next(10 * page + 1), std::invalid_argument);
}

TEST(PcieHostCursor, FixedCopiesAllStartAtTheBuffersStart) {
  PcieHostCursor cursor(PcieHostBuffer::fixed, 1 << 20);
  for (std::uint64_t bytes : {4u, 4096u, 65537u, 1u << 20}) EXPECT_EQ(cursor.next(bytes), 0u) << bytes;
  EXPECT_THROW(cursor.next((1u << 20) + 1), std::invalid_argument);
  EXPECT_STREQ(to_string(PcieHostBuffer::rotating), "rotating");
  EXPECT_STREQ(to_string(PcieHostBuffer::fixed), "fixed");
}

TEST(PcieBatchPlan, OneBatchForEveryCopyShorterThanTheTarget) {
  const std::vector<std::pair<std::uint64_t, double>> pilot = {
      {4, 7.6e-6},    {6, 9.9e-6},      {8, 7.1e-6},      {16, 5.8e-6},     {1024, 7.4e-6},   {4096, 6.7e-6},
      {65536, 11.6e-6}, {262144, 14.7e-6}, {524288, 19e-6}, {1048576, 33e-6}, {786432, 24.8e-6}, {2097152, 54e-6}};
  const PcieBatchPlan plan = pcie_batch_plan(pilot, 30e-6, 256);
  EXPECT_EQ(plan.small, 5);  // the median of the five smallest pilots (7.4 µs): ⌈30/7.4⌉
  EXPECT_EQ(plan.unbatched_from, 1048576u);
  for (std::uint64_t b : {4u, 7u, 3000u, 786432u, 1048575u}) EXPECT_EQ(plan.batch_for(b), 5) << b;
  for (std::uint64_t b : {1048576u, 2097152u, 1u << 30}) EXPECT_EQ(plan.batch_for(b), 1) << b;
}

// A short copy after a long one (a noisy pilot) keeps every size below it batched: the plan is
// monotone in size, so the batch never flips back and forth along the curve.
TEST(PcieBatchPlan, IsMonotoneInSizeWhateverThePilotsNoise) {
  const std::vector<std::pair<std::uint64_t, double>> pilot = {
      {1000, 10e-6}, {2000, 31e-6}, {3000, 12e-6}, {4000, 40e-6}, {5000, 50e-6}};
  const PcieBatchPlan plan = pcie_batch_plan(pilot, 30e-6, 256);
  EXPECT_EQ(plan.unbatched_from, 4000u);
  EXPECT_EQ(plan.batch_for(2000), plan.small);
  EXPECT_EQ(plan.small, 3);  // the median of 10, 31 and 12 µs is 12 µs
  // Every copy already long: no batching at all; the cap holds for tiny copies.
  EXPECT_EQ(pcie_batch_plan({{4, 40e-6}, {8, 50e-6}}, 30e-6, 256).batch_for(4), 1);
  EXPECT_EQ(pcie_batch_plan({{4, 1e-8}}, 30e-6, 256).small, 256);
  EXPECT_EQ(pcie_batch_plan({{4, 1e-6}}, 30e-6, 256).batch_for(1u << 30), 1);  // beyond the last pilot
}

TEST(PcieBatchPlan, RejectsBadInput) {
  EXPECT_THROW(pcie_batch_plan({}, 30e-6, 256), std::invalid_argument);
  EXPECT_THROW(pcie_batch_plan({{4, 0.0}}, 30e-6, 256), std::invalid_argument);
  EXPECT_THROW(pcie_batch_plan({{4, std::nan("")}}, 30e-6, 256), std::invalid_argument);
  EXPECT_THROW(pcie_batch_plan({{4, 1e-6}}, 0, 256), std::invalid_argument);
  EXPECT_THROW(pcie_batch_plan({{4, 1e-6}}, 30e-6, 0), std::invalid_argument);
}
