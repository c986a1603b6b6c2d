#pragma once
// S0's matrix-matrix family (MODELS.md §3.2), S3's naive matmul (§3.7) and S1's register-blocked
// SGEMM kernels (§3.5). Row-major for S0/S3, column-major for S1 (as in the seeds).
// Repairs: K-MM-4's partition offset uses gridDim.x (S0 prints blockDim.x) and its second tile
// loop is the same load+compute body; S3's grid is ceil(N/32); S1's A tile is padded (the
// printed As[tx][k] is an 8-way conflict with 32 banks) and textures are replaced by __ldg with
// the last prefetch guarded.
#include <cuda_runtime.h>

#include "block_index.cuh"  // PM_BLOCK_IDX, PM_GRID_DIM: blockIdx, gridDim (a chosen block in the racecheck build)

namespace perfmodel::gpu {

// K-MM-1 (S0 Listing 4.7): thread (i, j) computes C_ij from global memory.
__global__ void __launch_bounds__(1024) mm_global(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int row = PM_BLOCK_IDX.y * blockDim.y + threadIdx.y, col = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  const float* ar = a + static_cast<size_t>(row) * n;
  const float* bc = b + col;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc += ar[k] * bc[static_cast<size_t>(k) * n];
  c[static_cast<size_t>(row) * n + col] = acc;
}

// K-MATMUL (S3 Listing 4.2): 32×32 blocks, ceil(N/32)² grid, bounds-checked.
__global__ void __launch_bounds__(1024) matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int col = PM_BLOCK_IDX.x * 32 + threadIdx.x, row = PM_BLOCK_IDX.y * 32 + threadIdx.y;
  if (row < n && col < n) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += a[static_cast<size_t>(row) * n + i] * b[static_cast<size_t>(i) * n + col];
    c[static_cast<size_t>(row) * n + col] = s;
  }
}

// K-MM-2 (S0 Listing 4.8): T×T tiles of A and B in shared memory.
template <int T>
__global__ void __launch_bounds__(T * T) mm_shared(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[T][T], bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = PM_BLOCK_IDX.y * T + ty, col = PM_BLOCK_IDX.x * T + tx;
  float acc = 0;
  for (int t = 0; t < n; t += T) {
    as[ty][tx] = a[static_cast<size_t>(row) * n + t + tx];
    bs[ty][tx] = b[static_cast<size_t>(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[static_cast<size_t>(row) * n + col] = acc;
}

// K-MM-5 (S0 Listing 4.17 = computation pattern 4.10 + access pattern 4.12, fine-tuned): a block
// owns NE rows × X·Y columns of C, a thread one column and NE accumulators; only an NE×X tile of
// A is staged; each B value read from global is reused NE times; the first k-tile is
// P = ((bx + gridDim.x·by) mod 8)·(64/X), then the tiles wrap to 0.
template <int X, int Y, int NE>
__global__ void __launch_bounds__(X * Y) mm_opt(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  static_assert(NE % Y == 0, "Y must divide NE");
  __shared__ float as[NE][X];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = PM_BLOCK_IDX.x * X * Y + ty * X + tx, row0 = PM_BLOCK_IDX.y * NE;
  const int tiles = n / X;
  const int start = (((PM_BLOCK_IDX.x + PM_GRID_DIM.x * PM_BLOCK_IDX.y) % 8) * (64 / X)) % tiles;
  float acc[NE];
#pragma unroll
  for (int r = 0; r < NE; ++r) acc[r] = 0;
  const float* arow = a + static_cast<size_t>(row0 + ty) * n + tx;
  const float* bcol = b + col;
  auto tile = [&](int t) {
#pragma unroll
    for (int i = 0; i < NE / Y; ++i) as[ty + i * Y][tx] = arow[static_cast<size_t>(i) * Y * n + t * X];
    __syncthreads();
    const float* bp = bcol + static_cast<size_t>(t) * X * n;
#pragma unroll
    for (int kk = 0; kk < X; ++kk) {
      const float bv = bp[static_cast<size_t>(kk) * n];
#pragma unroll
      for (int r = 0; r < NE; ++r) acc[r] += as[r][kk] * bv;
    }
    __syncthreads();
  };
  for (int t = start; t < tiles; ++t) tile(t);
  for (int t = 0; t < start; ++t) tile(t);
  float* cp = c + static_cast<size_t>(row0) * n + col;
#pragma unroll
  for (int r = 0; r < NE; ++r) cp[static_cast<size_t>(r) * n] = acc[r];
}

// K-GEMM-1 (S1 Listing 1, "sgemm-AB_4local_1"): column-major C ← α·A·B + β·C; threads (32, 8),
// a 32×32 tile of C per block, k-step 8, 4 results per thread; A and B staged, tiles padded.
__global__ void __launch_bounds__(256) sgemm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                            int nn, int k, float alpha, float beta) {
  __shared__ float as[32][9], bs[32][9];
  const int tx = threadIdx.x, ty = threadIdx.y;
  a += PM_BLOCK_IDX.x * 32;
  b += static_cast<size_t>(PM_BLOCK_IDX.y) * 32 * k;
  c += (PM_BLOCK_IDX.x * 32 + tx) + static_cast<size_t>(PM_BLOCK_IDX.y * 32 + ty * 4) * m;
  float acc[4] = {0, 0, 0, 0};
  for (int s = 0; s < k; s += 8) {
    __syncthreads();
    as[tx][ty] = a[tx + static_cast<size_t>(ty + s) * m];
    bs[tx][ty] = b[(ty + s) + static_cast<size_t>(tx) * k];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const float av = as[tx][q];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j] += av * bs[ty * 4 + j][q];
    }
  }
  (void)nn;
#pragma unroll
  for (int j = 0; j < 4; ++j) c[static_cast<size_t>(j) * m] = beta * c[static_cast<size_t>(j) * m] + alpha * acc[j];
}

// K-GEMM-F (S1 Listing 4, Fermi-optimised): column-major; threads (16, 16); a 64×64 tile of C
// per block, k-step 16, a 4×4 sub-block per thread; A and B staged; the next step's operands
// are prefetched into registers while this step computes. M, N multiples of 64, K of 16.
__global__ void __launch_bounds__(256) sgemm_64(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int nn,
                         int k, float alpha, float beta) {
  __shared__ __align__(16) float as[16 * 64];  // [k][m]
  __shared__ float bs[64 * 17];                // [n][k], padded
  const int idx = threadIdx.x + 16 * threadIdx.y;
  const int x16 = idx % 16, y16 = idx / 16, x64 = idx % 64, y64 = idx / 64;
  const float* pa = a + 64 * PM_BLOCK_IDX.x + x64 + static_cast<size_t>(y64) * m;                   // A(64bx+x64, y64 + 4i)
  const float* pb = b + x16 + static_cast<size_t>(y16 + 64 * PM_BLOCK_IDX.y) * k;                   // B(x16, 64by + y16 + 16i)
  c += 64 * PM_BLOCK_IDX.x + 4 * x16 + static_cast<size_t>(64 * PM_BLOCK_IDX.y + 4 * y16) * m;
  float al[4], bl[4], cr[4][4] = {};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    al[i] = __ldg(pa + static_cast<size_t>(4 * i) * m);
    bl[i] = __ldg(pb + static_cast<size_t>(16 * i) * k);
  }
  for (int step = 0; step < k; step += 16) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      as[(y64 + 4 * i) * 64 + x64] = al[i];
      bs[(y16 + 16 * i) * 17 + x16] = bl[i];
    }
    __syncthreads();
    if (step + 16 < k) {
      pa += static_cast<size_t>(16) * m;
      pb += 16;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        al[i] = __ldg(pa + static_cast<size_t>(4 * i) * m);
        bl[i] = __ldg(pb + static_cast<size_t>(16 * i) * k);
      }
    }
#pragma unroll
    for (int q = 0; q < 16; ++q) {
      const float4 av = *reinterpret_cast<const float4*>(&as[q * 64 + 4 * x16]);
      float bv[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) bv[j] = bs[(4 * y16 + j) * 17 + q];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        cr[0][j] += av.x * bv[j];
        cr[1][j] += av.y * bv[j];
        cr[2][j] += av.z * bv[j];
        cr[3][j] += av.w * bv[j];
      }
    }
  }
  (void)nn;
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float* p = c + i + static_cast<size_t>(j) * m;
      *p = beta * *p + alpha * cr[i][j];
    }
}

// K-GEMM-T (S1 Listing 3, Tesla-optimised): column-major; threads (16, 16); a block computes 256
// rows × 16 columns of C, each thread one row and 16 columns (16 accumulators); A is streamed
// straight from global memory (consecutive threads, consecutive rows: coalesced), only a 128 × 16
// slab of B is staged per 128-wide k-step (the seed's layout, whose 16-word row stride costs the
// 8 stores per step a conflict and lets the reads be 128-bit broadcasts). M a multiple of 256, N of
// 16, K of 128 (the remainder paths of the listing are left out).
__global__ void __launch_bounds__(256) sgemm_256x16(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                                    int m, int nn, int k, float alpha, float beta) {
  __shared__ __align__(16) float bs[128 * 16];
  const int tid = threadIdx.x + 16 * threadIdx.y, tadj = tid % 128, half = tid / 128;
  const int n0 = PM_BLOCK_IDX.y * 16, row = 256 * PM_BLOCK_IDX.x + tid;
  const float* pb = b + static_cast<size_t>(n0 + half) * k + tadj;
  const float* pa = a + row;
  float acc[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) acc[j] = 0;
  for (int k0 = 0; k0 < k; k0 += 128) {
#pragma unroll
    for (int i = 0; i < 8; ++i) bs[(half + 2 * i) + tadj * 16] = pb[static_cast<size_t>(2 * i) * k];
    pb += 128;
    __syncthreads();
#pragma unroll 4
    for (int i = 0; i < 32; ++i) {
      float av[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) av[q] = pa[static_cast<size_t>(q) * m];
      pa += static_cast<size_t>(4) * m;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float4* brow = reinterpret_cast<const float4*>(&bs[(4 * i + q) * 16]);
#pragma unroll
        for (int j4 = 0; j4 < 4; ++j4) {
          const float4 bv = brow[j4];
          acc[4 * j4] += av[q] * bv.x;
          acc[4 * j4 + 1] += av[q] * bv.y;
          acc[4 * j4 + 2] += av[q] * bv.z;
          acc[4 * j4 + 3] += av[q] * bv.w;
        }
      }
    }
    __syncthreads();
  }
  (void)nn;
  float* pc = c + row + static_cast<size_t>(n0) * m;
#pragma unroll
  for (int j = 0; j < 16; ++j) pc[static_cast<size_t>(j) * m] = beta * pc[static_cast<size_t>(j) * m] + alpha * acc[j];
}

}  // namespace perfmodel::gpu
