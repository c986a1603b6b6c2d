#pragma once
// S0's matrix-vector family (MODELS.md §3.1), c = A·b, A n×n row-major, single precision.
// Repairs of the seed listings: K-Mv-4's first row is bx·X (S0 prints blockDim.x²); K-Mv-5's two
// column loops are sequential (S0's brace nests them); shared sizes are template parameters.
#include <cuda_runtime.h>

#include "block_index.cuh"  // PM_BLOCK_IDX, PM_GRID_DIM: blockIdx, gridDim (a chosen block in the racecheck build)

namespace perfmodel::gpu {

constexpr int kMvConstantMax = 16384;  // floats of b that fit the 64 KiB constant bank
#ifdef PERFMODEL_BLOCK_SUBSET
// The racecheck build's block table (block_index.cuh) takes 1 KiB of the bank: b gets 256 floats
// less there (its runs are small; a larger b fails its upload with a CUDA error).
__constant__ float mv_b_constant[kMvConstantMax - 256];
#else
__constant__ float mv_b_constant[kMvConstantMax];  // defined here: this header is compiled into one translation unit
#endif

// K-Mv-1 (S0 Listing 4.2): thread `row` computes c[row]; uncoalesced rows of A.
__global__ void __launch_bounds__(1024) mv_global(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int row = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const float* r = a + static_cast<size_t>(row) * n;
  float acc = 0;
  for (int j = 0; j < n; ++j) acc += r[j] * b[j];
  c[row] = acc;
}

// K-Mv-2 (S0 Listings 4.4/4.5): as K-Mv-1 with b in constant memory (all lanes read one b_j: broadcast).
__global__ void __launch_bounds__(1024) mv_constant(const float* __restrict__ a, float* __restrict__ c, int n) {
  const int row = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const float* r = a + static_cast<size_t>(row) * n;
  float acc = 0;
  for (int j = 0; j < n; ++j) acc += r[j] * mv_b_constant[j];
  c[row] = acc;
}

// K-Mv-3 (S0 Listing 4.6): X×X tiles of A staged through shared memory so the global reads are
// coalesced; the column read As[tx][k] is an X-way bank conflict (kept: it is the seed's design
// and the model's conflict penalty is validated on it).
template <int X>
__global__ void __launch_bounds__(X) mv_shared(const float* __restrict__ a, float* __restrict__ c, int n) {
  __shared__ float tile[X][X];
  const int tx = threadIdx.x, row0 = PM_BLOCK_IDX.x * X;
  float acc = 0;
  for (int j = 0; j < n; j += X) {
#pragma unroll 8
    for (int k = 0; k < X; ++k) tile[k][tx] = a[static_cast<size_t>(row0 + k) * n + j + tx];
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < X; ++k) acc += tile[tx][k] * mv_b_constant[j + k];
    __syncthreads();
  }
  c[row0 + tx] = acc;
}

// K-Mv-6 (S0 Listing 4.16: optimized computation pattern of 4.9, access pattern of 4.11,
// fine-tuned): block (X, Y), Y threads per row, padded tile (no bank conflicts), per-block
// starting column tile P = (bx mod 8)·64 then wrap to 0, in-block reduction of the Y partial sums.
// kConstantB: b in constant memory (S0); otherwise b is read from global memory (the CG driver's
// p changes every iteration and stays on the device).
template <int X, int Y, bool kConstantB>
__global__ void __launch_bounds__(X * Y) mv_opt(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  static_assert(X % Y == 0 && Y <= X, "Y must divide X");
  constexpr int R = X / Y;
  __shared__ float tile[X][X + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, off = R * ty;
  const int row0 = PM_BLOCK_IDX.x * X;
  const int start = ((PM_BLOCK_IDX.x % 8) * 64) % n;
  const float* base = a + static_cast<size_t>(row0 + off) * n + tx;
  float acc = 0;
  auto step = [&](int j) {
    const float* p = base + j;
#pragma unroll
    for (int k = 0; k < R; ++k) tile[k + off][tx] = p[static_cast<size_t>(k) * n];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < R; ++k) acc += tile[tx][k + off] * (kConstantB ? mv_b_constant[j + k + off] : __ldg(b + j + k + off));
    __syncthreads();
  };
  for (int j = start; j < n; j += X) step(j);
  for (int j = 0; j < start; j += X) step(j);
  if (Y > 1) {
    if (ty != 0) tile[ty - 1][tx] = acc;
    __syncthreads();
    if (ty == 0) {
#pragma unroll
      for (int k = 0; k < Y - 1; ++k) acc += tile[k][tx];
    }
  }
  if (ty == 0) c[row0 + tx] = acc;
}

}  // namespace perfmodel::gpu
