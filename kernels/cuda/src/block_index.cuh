#pragma once
// The block index and grid dimensions the reference kernels compute with: PM_BLOCK_IDX and
// PM_GRID_DIM. In every build that times or validates they are blockIdx and gridDim themselves (the
// kernels compile to the same code as with the built-ins written out). In the racecheck build
// (PERFMODEL_BLOCK_SUBSET: the library perfmodel_kernels_cuda_subset of the test binary
// perfmodel_gpu_racecheck_tests, compiled from the same sources) a launch may run a few chosen
// blocks of its grid (perfmodel/kernels/block_subset.hpp): real block i then computes as block
// g_block_subset.blocks[i] of a grid of g_block_subset.grid, so shared-memory hazards of those blocks
// show under compute-sanitizer racecheck at a fraction of the whole grid's cost. count = 0: the
// launch is its whole grid.
#include <cuda_runtime.h>

#ifdef PERFMODEL_BLOCK_SUBSET
#include "perfmodel/kernels/block_subset.hpp"

namespace perfmodel::gpu {
struct BlockSubsetTable {
  unsigned count;
  uint3 grid;
  uint3 blocks[kMaxSubsetBlocks];
};
static_assert(sizeof(BlockSubsetTable) <= 1024, "mv_kernels.cuh leaves 1 KiB of the constant bank to the table");
__constant__ BlockSubsetTable g_block_subset;  // defined here: this header is compiled into one translation unit
}  // namespace perfmodel::gpu

#define PM_BLOCK_IDX (::perfmodel::gpu::g_block_subset.count ? ::perfmodel::gpu::g_block_subset.blocks[blockIdx.x] : blockIdx)
#define PM_GRID_DIM \
  (::perfmodel::gpu::g_block_subset.count ? ::perfmodel::gpu::g_block_subset.grid : make_uint3(gridDim.x, gridDim.y, gridDim.z))
#else
#define PM_BLOCK_IDX blockIdx
#define PM_GRID_DIM gridDim
#endif
