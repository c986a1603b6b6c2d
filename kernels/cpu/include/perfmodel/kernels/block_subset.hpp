#pragma once
// Which blocks of a grid a racecheck run launches (plain C++, no CUDA).
//
// compute-sanitizer racecheck reports hazards on shared memory, which is private to a block: a
// hazard is between threads of one block, so every block that runs the same code path shows it.
// The reference kernels' blocks differ only in where they sit in the grid (edge blocks clip their
// loads, mm-opt rotates its first k-tile by (bx + gridDim.x·by) mod 8), so a few blocks that
// include the edges and consecutive ones suffice, and racecheck over them costs a fraction of the
// full grid (one mm-opt configuration at n = 512 ran over 5 minutes under racecheck with its
// whole grid). The racecheck build of the kernels (PERFMODEL_BLOCK_SUBSET, kernels/cuda/src/
// block_index.cuh) launches only the chosen blocks, each seeing its own block index and the full
// grid's dimensions.
#include <string>
#include <vector>

namespace perfmodel::gpu {

struct GridDims {
  unsigned x = 1, y = 1, z = 1;
  bool operator==(const GridDims& o) const { return x == o.x && y == o.y && z == o.z; }
};

// The most blocks one launch may keep (the size of the racecheck build's table in constant memory).
inline constexpr int kMaxSubsetBlocks = 64;

// The blocks of `grid` to launch, at most `budget` of them (1 <= budget <= kMaxSubsetBlocks), in
// this order, without repeats: the first block (0,0,0); the last block of each dimension alone
// ((gx-1,0,0), (0,gy-1,0), (0,0,gz-1)); the last block (gx-1,gy-1,gz-1); the other corners; the
// centre (gx/2, gy/2, gz/2); then blocks in launch order (x fastest) from the second on, which
// covers consecutive block indices (mm-opt's eight start tiles). When the budget covers the whole
// grid every block is in the list once (in that order, not the launch order).
// Throws std::invalid_argument for a budget outside [1, kMaxSubsetBlocks] or an empty grid.
std::vector<GridDims> select_blocks(const GridDims& grid, int budget);

// The budget of PERFMODEL_RACECHECK_BLOCKS: 0 where the variable is unset or empty (every launch
// runs its whole grid), else an integer from 1 to kMaxSubsetBlocks. Throws perfmodel::InputError
// naming the variable for anything else.
int parse_racecheck_blocks(const char* value);

// "(0,0) (15,0) (0,31) (15,31)": one coordinate per dimension used by the grid (y when gy > 1 or
// gz > 1, z when gz > 1).
std::string describe_blocks(const std::vector<GridDims>& blocks, const GridDims& grid);

// The configuration indices of PERFMODEL_GPU_TEST_ONLY ("74,52,54-57"), in the order given (a
// range ascending), without repeats: the racecheck test runs them in this order and its shard K
// of N takes the positions congruent to K modulo N, so the order spreads the costly ones over
// the shards. Throws perfmodel::InputError naming `variable` for anything but non-negative
// integers and ranges a-b with a <= b.
std::vector<int> parse_index_list(const std::string& text, const std::string& variable);

}  // namespace perfmodel::gpu
