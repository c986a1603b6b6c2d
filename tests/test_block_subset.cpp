// The blocks a racecheck run launches (perfmodel/kernels/block_subset.hpp): edges first, no
// repeats, within the grid and the budget, the whole grid once when the budget covers it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>

#include "perfmodel/kernels/block_subset.hpp"
#include "perfmodel/model/errors.hpp"

using namespace perfmodel;
using gpu::GridDims;

namespace {

bool contains(const std::vector<GridDims>& v, GridDims b) { return std::find(v.begin(), v.end(), b) != v.end(); }

}  // namespace

TEST(BlockSubset, KeepsTheFirstTheLastOfEachDimensionTheCornersAndTheCentreFirst) {
  const GridDims grid{16, 32, 1};
  const std::vector<GridDims> b = gpu::select_blocks(grid, 8);
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0], (GridDims{0, 0, 0}));
  EXPECT_EQ(b[1], (GridDims{15, 0, 0}));
  EXPECT_EQ(b[2], (GridDims{0, 31, 0}));
  EXPECT_EQ(b[3], (GridDims{15, 31, 0}));
  EXPECT_EQ(b[4], (GridDims{8, 16, 0}));
  EXPECT_EQ(b[5], (GridDims{1, 0, 0}));  // then consecutive blocks in launch order
  EXPECT_EQ(b[6], (GridDims{2, 0, 0}));
  EXPECT_EQ(b[7], (GridDims{3, 0, 0}));
}

TEST(BlockSubset, ConsecutiveBlocksCoverMmOptsEightStartTiles) {
  // mm-opt's first k-tile depends on (bx + gridDim.x·by) mod 8: a budget of 16 on a 32-wide grid
  // keeps blocks whose linear indices cover every residue.
  const GridDims grid{32, 64, 1};
  std::set<unsigned> residues;
  for (const GridDims& b : gpu::select_blocks(grid, 16)) residues.insert((b.x + grid.x * b.y) % 8);
  EXPECT_EQ(residues.size(), 8u);
}

TEST(BlockSubset, ThreeDimensionalGridsKeepAllEightCorners) {
  const GridDims grid{4, 5, 6};
  const std::vector<GridDims> b = gpu::select_blocks(grid, 9);
  for (unsigned x : {0u, 3u})
    for (unsigned y : {0u, 4u})
      for (unsigned z : {0u, 5u}) EXPECT_TRUE(contains(b, {x, y, z})) << x << "," << y << "," << z;
  EXPECT_TRUE(contains(b, {2, 2, 3}));
}

TEST(BlockSubset, EveryBlockOnceWithinTheGridAndTheBudget) {
  for (const auto& [x, y, z] : {std::tuple{1u, 1u, 1u}, {1u, 16u, 1u}, {7u, 1u, 1u}, {2u, 2u, 2u}, {32u, 16u, 1u}, {1000u, 3u, 1u}})
    for (int budget : {1, 2, 5, 8, 16, 64}) {
      const GridDims grid{x, y, z};
      const std::vector<GridDims> b = gpu::select_blocks(grid, budget);
      const unsigned long long total = static_cast<unsigned long long>(x) * y * z;
      EXPECT_EQ(b.size(), std::min<unsigned long long>(total, static_cast<unsigned long long>(budget)));
      std::set<std::tuple<unsigned, unsigned, unsigned>> seen;
      for (const GridDims& g : b) {
        EXPECT_LT(g.x, x);
        EXPECT_LT(g.y, y);
        EXPECT_LT(g.z, z);
        EXPECT_TRUE(seen.insert({g.x, g.y, g.z}).second) << "block repeated";
      }
      EXPECT_EQ(b.front(), (GridDims{0, 0, 0}));
      if (budget >= 2 && x > 1) {
        EXPECT_TRUE(contains(b, {x - 1, 0, 0}));
      }
    }
}

TEST(BlockSubset, ABudgetThatCoversTheGridKeepsEveryBlockInAnotherOrder) {
  // The whole grid through the block table in a permuted order: a run whose result check passes
  // this way shows that every block computes from the index it is given, not the one it runs as.
  const GridDims grid{4, 4, 1};
  const std::vector<GridDims> b = gpu::select_blocks(grid, 64);
  ASSERT_EQ(b.size(), 16u);
  bool permuted = false;
  for (std::size_t i = 0; i < b.size(); ++i) permuted |= b[i].x + 4 * b[i].y != i;
  EXPECT_TRUE(permuted);
}

TEST(BlockSubset, RefusesBudgetsOutsideTheTableAndEmptyGrids) {
  EXPECT_THROW(gpu::select_blocks({4, 4, 1}, 0), std::invalid_argument);
  EXPECT_THROW(gpu::select_blocks({4, 4, 1}, gpu::kMaxSubsetBlocks + 1), std::invalid_argument);
  EXPECT_THROW(gpu::select_blocks({0, 4, 1}, 4), std::invalid_argument);
}

TEST(BlockSubset, ParsesTheEnvironmentVariable) {
  EXPECT_EQ(gpu::parse_racecheck_blocks(nullptr), 0);
  EXPECT_EQ(gpu::parse_racecheck_blocks(""), 0);
  EXPECT_EQ(gpu::parse_racecheck_blocks("8"), 8);
  EXPECT_EQ(gpu::parse_racecheck_blocks("64"), 64);
  for (const char* bad : {"0", "65", "-3", "8x", " 8", "1e3", "99999999999"}) {
    try {
      gpu::parse_racecheck_blocks(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("PERFMODEL_RACECHECK_BLOCKS"), std::string::npos) << e.what();
    }
  }
}

TEST(BlockSubset, DescribesOnlyTheDimensionsTheGridUses) {
  EXPECT_EQ(gpu::describe_blocks({{0, 0, 0}, {3, 0, 0}}, {4, 1, 1}), "(0) (3)");
  EXPECT_EQ(gpu::describe_blocks({{0, 0, 0}, {0, 15, 0}}, {1, 16, 1}), "(0,0) (0,15)");
  EXPECT_EQ(gpu::describe_blocks({{1, 2, 3}}, {4, 4, 4}), "(1,2,3)");
}

TEST(BlockSubset, ParsesConfigurationListsInTheirOrder) {
  EXPECT_EQ(gpu::parse_index_list("74,52,54-57", "PERFMODEL_GPU_TEST_ONLY"), (std::vector<int>{74, 52, 54, 55, 56, 57}));
  EXPECT_EQ(gpu::parse_index_list("3,3,2-4", "PERFMODEL_GPU_TEST_ONLY"), (std::vector<int>{3, 2, 4}));
  EXPECT_EQ(gpu::parse_index_list("0", "X"), (std::vector<int>{0}));
  for (const char* bad : {"", "5,", "a", "4-2", "1--3", "-1", "1,,2", "3-"}) {
    try {
      gpu::parse_index_list(bad, "PERFMODEL_GPU_TEST_ONLY");
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("PERFMODEL_GPU_TEST_ONLY"), std::string::npos) << e.what();
    }
  }
}

// The racecheck build runs the chosen blocks only if every reference kernel takes its block index
// and grid dimensions from PM_BLOCK_IDX and PM_GRID_DIM (kernels/cuda/src/block_index.cuh): a raw
// blockIdx or gridDim in their code would compute as the launched block instead.
TEST(BlockSubset, TheReferenceKernelsUseTheBlockIndexMacrosOnly) {
  for (const char* name : {"mm_kernels.cuh", "mv_kernels.cuh", "other_kernels.cuh"}) {
    const std::string path = std::string(PERFMODEL_TEST_SOURCE_DIR) + "/../kernels/cuda/src/" + name;
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << path;
    std::string line;
    int number = 0, uses = 0;
    bool included = false;
    while (std::getline(in, line)) {
      ++number;
      included |= line.find("#include \"block_index.cuh\"") != std::string::npos;
      const std::string code = line.substr(0, line.find("//"));
      for (const char* raw : {"blockIdx", "gridDim"}) {
        for (std::size_t at = code.find(raw); at != std::string::npos; at = code.find(raw, at + 1)) {
          const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_');
          EXPECT_FALSE(word_start) << name << ":" << number << ": raw " << raw << " (use PM_BLOCK_IDX / PM_GRID_DIM)";
        }
      }
      uses += code.find("PM_BLOCK_IDX") != std::string::npos;
    }
    EXPECT_TRUE(included) << name;
    EXPECT_GT(uses, 0) << name;
  }
}
