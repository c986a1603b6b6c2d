#include <gtest/gtest.h>

#include <algorithm>

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
