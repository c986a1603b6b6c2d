#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "perfmodel/calibrate/pcie_sizes.hpp"

using namespace perfmodel;

TEST(PcieCalibrationSizes, PowersOfTwoAndMidpointsUpTo64MiBThenPowersOfTwo) {
  const auto sizes = pcie_calibration_sizes(false);
  EXPECT_EQ(sizes.front(), 4u);
  EXPECT_EQ(sizes.back(), std::uint64_t{1} << 30);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_TRUE(std::count(sizes.begin(), sizes.end(), 6u) == 1);                            // 3·2^1
  EXPECT_TRUE(std::count(sizes.begin(), sizes.end(), std::uint64_t{48} << 20) == 1);       // 3·2^24 (48 MiB)
  EXPECT_TRUE(std::count(sizes.begin(), sizes.end(), std::uint64_t{96} << 20) == 0);       // beyond 64 MiB: powers of two
  EXPECT_TRUE(std::count(sizes.begin(), sizes.end(), std::uint64_t{512} << 20) == 1);
  EXPECT_EQ(sizes.size(), 29u + 24u);  // 2^2…2^30 and 3·2^1…3·2^24
  const auto quick = pcie_calibration_sizes(true);
  EXPECT_EQ(quick.front(), 4u);
  EXPECT_EQ(quick.back(), std::uint64_t{1} << 28);  // 256 MiB: no 1 GiB host buffers in --quick
  EXPECT_EQ(quick.size(), 14u);                      // 4^1 … 4^14
}

TEST(PcieSampling, MedianRelativeStandardErrorByHand) {
  // 1, 2, 3, 4, 5: median 3, quartiles 2 and 4 → 1.2533 · (2 / 1.349) / 3 / √5.
  EXPECT_NEAR(median_rel_se({5, 1, 4, 2, 3}), 1.2533 * (2 / 1.349) / 3 / std::sqrt(5.0), 1e-12);
  EXPECT_TRUE(std::isinf(median_rel_se({1.0})));
  EXPECT_EQ(median_rel_se({2, 2, 2, 2}), 0.0);
}

TEST(PcieSampling, ASizeStopsWhenItsMedianIsPreciseOrAtItsCap) {
  const PcieSampling s;
  const std::vector<double> steady(5, 1e-5);
  EXPECT_TRUE(s.enough(steady, HostMemory::pinned));
  EXPECT_FALSE(s.enough(std::vector<double>(4, 1e-5), HostMemory::pinned));  // below min_samples
  // Long samples need only min_samples_long.
  EXPECT_TRUE(s.enough(std::vector<double>(3, 0.1), HostMemory::pageable));
  // Noisy: ±20 % alternating never reaches 0.5 % with few samples; it stops at max_samples.
  std::vector<double> noisy;
  for (int i = 0; i < s.max_samples - 1; ++i) noisy.push_back(i % 2 ? 1.2e-5 : 0.8e-5);
  EXPECT_FALSE(s.enough(noisy, HostMemory::pinned));
  noisy.push_back(1e-5);
  EXPECT_TRUE(s.enough(noisy, HostMemory::pinned));
  // The pageable target is looser than the pinned one.
  EXPECT_GT(s.target_rel_se(HostMemory::pageable), s.target_rel_se(HostMemory::pinned));
}

TEST(PcieSampling, StreamQueuesLastAboutAMillisecondUpToTheirCap) {
  const PcieSampling s;
  EXPECT_EQ(s.queue_for(10e-6), 100);                 // 1 ms / 10 µs
  EXPECT_EQ(s.queue_for(1e-6), s.max_queue);          // capped
  EXPECT_EQ(s.queue_for(1e-3), s.min_queue);          // at least min_queue copies
  EXPECT_EQ(s.queue_for(s.stream_up_to_s * 1.01), 0);  // longer copies: the single copies stand in
  EXPECT_EQ(s.queue_for(0), 0);
}

TEST(PcieSampling, EffortScalesSamplesAndBudgetsAndRejectsOutOfRange) {
  const PcieSampling base, four = base.scaled(4);
  EXPECT_EQ(four.min_samples, 4 * base.min_samples);
  EXPECT_EQ(four.max_samples, 4 * base.max_samples);
  EXPECT_DOUBLE_EQ(four.budget_pageable_s, 4 * base.budget_pageable_s);
  EXPECT_DOUBLE_EQ(four.target_rel_se_pinned, base.target_rel_se_pinned / 2);
  EXPECT_THROW(base.scaled(0.5), std::invalid_argument);
  EXPECT_THROW(base.scaled(17), std::invalid_argument);
  EXPECT_LT(PcieSampling::quick().budget_pinned_s, base.budget_pinned_s);
  EXPECT_DOUBLE_EQ(base.budget_s({Direction::bidir, HostMemory::pinned}), base.budget_bidir_s);
  EXPECT_DOUBLE_EQ(base.budget_s({Direction::h2d, HostMemory::pageable}), base.budget_pageable_s);
}

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


TEST(PcieMixedPlan, EveryOneWayKindAtEverySizeUpTo64MiBInOneShuffledOrder) {
  const auto plan = pcie_mixed_plan(false, 7);
  std::size_t sizes = 0;
  for (std::uint64_t b : pcie_calibration_sizes(false)) sizes += b <= (std::uint64_t{64} << 20) ? 1 : 0;
  EXPECT_EQ(plan.size(), sizes * 4 * 3);
  for (const auto& c : plan) {
    EXPECT_NE(c.key.direction, Direction::bidir);
    EXPECT_LE(c.bytes, std::uint64_t{64} << 20);
  }
  // Shuffled: the kinds follow each other, not in blocks; the same seed, the same order.
  std::size_t changes = 0;
  for (std::size_t i = 1; i < plan.size(); ++i) changes += plan[i].key == plan[i - 1].key ? 0 : 1;
  EXPECT_GT(changes, plan.size() / 2);
  const auto again = pcie_mixed_plan(false, 7);
  EXPECT_TRUE(std::equal(plan.begin(), plan.end(), again.begin(), [](const auto& a, const auto& b) { return a.key == b.key && a.bytes == b.bytes; }));
  EXPECT_EQ(pcie_mixed_plan(true, 7).size() % 4, 0u);
}
