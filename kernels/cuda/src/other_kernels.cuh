#pragma once
// S0's 2-D convolution (MODELS.md §3.3), S2's dot product and Cholesky (§3.6), the all-GPU CG
// driver's vector kernels (§3.4), S3's cosine loop and box blur (§3.7).
// Repairs: K-CV-3 gets its second __syncthreads (S0 Listing 5.3 lacks it); S2's dot uses
// atomicAdd for the combine (the CAS spin-lock serialises blocks for nothing); S2's division
// kernel has every thread take the square root itself, so no thread reads U[k][k] while thread 0
// rewrites it (the seed's race); S3's `offset` is 0 and the grid is ceil(N/B).
#include <cuda_runtime.h>

#include "block_index.cuh"  // PM_BLOCK_IDX, PM_GRID_DIM: blockIdx, gridDim (a chosen block in the racecheck build)

namespace perfmodel::gpu {

constexpr int kFs = 5;  // conv2d filter side (perfmodel::kConvFilter)
constexpr int kR = (kFs - 1) / 2;

// K-CV-1 (S0 Listing 5.1): C[row][col] = Σ_{l,k} A[row+l−R][col+k−R]·F[l][k], zero outside.
__global__ void __launch_bounds__(1024) conv_global(const float* __restrict__ a, const float* __restrict__ f, float* __restrict__ c, int n) {
  const int col = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x, row = PM_BLOCK_IDX.y * blockDim.y + threadIdx.y;
  float acc = 0;
#pragma unroll
  for (int k = 0; k < kFs; ++k) {
    const int cc = col + k - kR;
#pragma unroll
    for (int l = 0; l < kFs; ++l) {
      const int rr = row + l - kR;
      if (rr >= 0 && rr < n && cc >= 0 && cc < n) acc += a[static_cast<size_t>(rr) * n + cc] * f[l * kFs + k];
    }
  }
  c[static_cast<size_t>(row) * n + col] = acc;
}

// K-CV-3 (S0 Listing 5.3, row-major pattern): per filter row k the block stages a Y×2X window of
// A (two coalesced loads per thread) and the filter row in shared memory, then every thread
// applies the FS taps of that row from shared memory. Needs FS ≤ X.
template <int X, int Y>
__global__ void __launch_bounds__(X * Y) conv_shared(const float* __restrict__ a, const float* __restrict__ f, float* __restrict__ c, int n) {
  static_assert(kFs <= X, "filter wider than the block");
  __shared__ float as[Y][2 * X];
  __shared__ float fs[X];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = PM_BLOCK_IDX.x * X + tx, row = PM_BLOCK_IDX.y * Y + ty;
  float acc = 0;
#pragma unroll
  for (int k = 0; k < kFs; ++k) {
    const int rr = row + k - kR;
    const int c0 = col - kR, c1 = col - kR + X;
    __syncthreads();
    if (ty == 0) fs[tx] = tx < kFs ? f[k * kFs + tx] : 0.f;
    const bool row_ok = rr >= 0 && rr < n;
    as[ty][tx] = row_ok && c0 >= 0 ? a[static_cast<size_t>(rr) * n + c0] : 0.f;
    as[ty][tx + X] = row_ok && c1 < n ? a[static_cast<size_t>(rr) * n + c1] : 0.f;
    __syncthreads();
#pragma unroll
    for (int l = 0; l < kFs; ++l) acc += as[ty][tx + l] * fs[l];
  }
  c[static_cast<size_t>(row) * n + col] = acc;
}

// K-DOT (S2): grid-stride partial sums, shared-memory tree reduction, one atomic per block.
template <int B>
__global__ void __launch_bounds__(B) dot_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ result, long long n) {
  __shared__ float part[B];
  float s = 0;
  for (long long i = PM_BLOCK_IDX.x * static_cast<long long>(B) + threadIdx.x; i < n; i += static_cast<long long>(B) * PM_GRID_DIM.x)
    s += x[i] * y[i];
  part[threadIdx.x] = s;
  __syncthreads();
#pragma unroll
  for (int h = B / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, part[0]);
}

// CG vector steps, scalars kept on the device (no host round trip per iteration):
// s = [rr_0, pq_0, rr_1, pq_1, …]; iteration i uses rr_i, pq_i and produces rr_{i+1}.
__global__ void __launch_bounds__(1024) cg_update_xr(float* __restrict__ x, float* __restrict__ r, const float* __restrict__ p,
                             const float* __restrict__ q, const float* __restrict__ s, int i, int n) {
  const int j = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  // Converged: once r·r or p·Ap is no longer positive (float r·r underflows to 0 within ~40
  // iterations on the well-conditioned offload matrices), the step is 0 and x stays as it is,
  // the same stop as the CPU reference (cpu::cg leaves its loop there). Without it 0/0 = NaN.
  const float rr = s[2 * i], pap = s[2 * i + 1];
  const float alpha = rr > 0.0f && pap > 0.0f ? rr / pap : 0.0f;
  x[j] += alpha * p[j];
  r[j] -= alpha * q[j];
}
__global__ void __launch_bounds__(1024) cg_update_p(float* __restrict__ p, const float* __restrict__ r, const float* __restrict__ s, int i, int n) {
  const int j = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const float beta = s[2 * i] > 0.0f ? s[2 * i + 2] / s[2 * i] : 0.0f;  // guarded as alpha above
  p[j] = r[j] + beta * p[j];
}

// K-CHOL, unoptimised (S2 chol_kernel): one block factors U (upper, row-major, A = UᵀU) in place.
__global__ void __launch_bounds__(1024) chol_single(float* __restrict__ u, int n) {
  for (int k = 0; k < n; ++k) {
    const float d = sqrtf(u[static_cast<size_t>(k) * n + k]);
    __syncthreads();
    for (int j = k + 1 + threadIdx.x; j < n; j += blockDim.x) u[static_cast<size_t>(k) * n + j] /= d;
    if (threadIdx.x == 0) u[static_cast<size_t>(k) * n + k] = d;
    __syncthreads();
    for (int i = k + 1 + threadIdx.x; i < n; i += blockDim.x) {
      const float uki = u[static_cast<size_t>(k) * n + i];
      for (int j = i; j < n; ++j) u[static_cast<size_t>(i) * n + j] -= uki * u[static_cast<size_t>(k) * n + j];
    }
    __syncthreads();
  }
}

// K-CHOL, optimised (S2): per k a division kernel (one block) and an elimination kernel
// (one block per row below k, threads striding along the row: coalesced).
__global__ void __launch_bounds__(1024) chol_division(float* __restrict__ u, int n, int k) {
  const float d = sqrtf(u[static_cast<size_t>(k) * n + k]);
  for (int j = k + 1 + threadIdx.x; j < n; j += blockDim.x) u[static_cast<size_t>(k) * n + j] /= d;
  __syncthreads();
  if (threadIdx.x == 0) u[static_cast<size_t>(k) * n + k] = d;
}
__global__ void __launch_bounds__(1024) chol_elimination(float* __restrict__ u, int n, int k) {
  const int i = PM_BLOCK_IDX.x + k + 1;
  const float uki = u[static_cast<size_t>(k) * n + i];
  const float* uk = u + static_cast<size_t>(k) * n;
  float* ui = u + static_cast<size_t>(i) * n;
  for (int j = i + threadIdx.x; j < n; j += blockDim.x) ui[j] -= uki * uk[j];
}

// K-COS (S3 Listing 4.1): x_i ← cos(x_i), `repeats` times (compute-bound).
__global__ void __launch_bounds__(1024) cosine_loop(float* __restrict__ x, int n, int repeats) {
  const int i = PM_BLOCK_IDX.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < repeats; ++r) v = cosf(v);
  x[i] = v;
}

// K-BLUR (S3 Listing 4.3): mean of the (2R+1)² window clipped to the image, RGB bytes; one thread
// per pixel; integer sums and integer division, as the CPU reference.
__global__ void __launch_bounds__(1024) blur_kernel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int width, int height,
                            int radius) {
  const long long p = PM_BLOCK_IDX.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (p >= static_cast<long long>(width) * height) return;
  const int x = static_cast<int>(p % width), y = static_cast<int>(p / width);
  int sr = 0, sg = 0, sb = 0, hits = 0;
  for (int ox = -radius; ox <= radius; ++ox)
    for (int oy = -radius; oy <= radius; ++oy)
      if (x + ox >= 0 && x + ox < width && y + oy >= 0 && y + oy < height) {
        const long long q = (p + ox + static_cast<long long>(oy) * width) * 3;
        sr += in[q];
        sg += in[q + 1];
        sb += in[q + 2];
        ++hits;
      }
  out[3 * p] = static_cast<unsigned char>(sr / hits);
  out[3 * p + 1] = static_cast<unsigned char>(sg / hits);
  out[3 * p + 2] = static_cast<unsigned char>(sb / hits);
}

}  // namespace perfmodel::gpu
