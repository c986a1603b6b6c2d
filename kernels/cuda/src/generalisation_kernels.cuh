#pragma once
// The generalisation suite's kernels (catalogue and references: perfmodel/kernels/generalisation.hpp).
// Written as a user writes them on a first try: one element per thread and a bounds check unless
// the kernel's class is about something else, no tuning, no launch bounds. Their format-2
// signatures (data/workloads/generalisation/) are written from this source: change a kernel and
// its signature in the same commit.
#include <cuda_fp16.h>

#include <cstdint>

#include "perfmodel/kernels/generalisation_inputs.hpp"

namespace perfmodel::gen {

// ------------------------------------------------------------------ input fills (untimed)
__global__ void fill_value_f32(float* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = value(seed, i);
}
__global__ void fill_value_f64(double* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = value(seed, i);
}
__global__ void fill_value_f16(__half* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = __float2half_rn(value(seed, i));
}
__global__ void fill_key_masked(std::uint32_t* out, long long n, std::uint32_t seed, std::uint32_t mask) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = key(seed, i) & mask;
}
__global__ void fill_permutation(int* out, long long n, int bits, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<int>(permute(static_cast<std::uint32_t>(i), bits, seed));
}
__global__ void fill_local_permutation(int* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<int>(local_permute(static_cast<std::uint32_t>(i), 12, seed));
}
__global__ void fill_local_index(int* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<int>(local_index(static_cast<std::uint32_t>(i), 12, seed));
}
__global__ void fill_near_index(int* out, long long n, std::uint32_t seed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<int>(near_index(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(n), seed));
}
__global__ void fill_key_below(std::uint32_t* out, long long n, std::uint32_t seed, std::uint32_t m) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = key_below(seed, i, m);
}

// ------------------------------------------------------------------ streaming
__global__ void copy_f32(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}
__global__ void copy_f32x4(const float4* a, float4* b, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) b[i] = a[i];
}
__global__ void scale_f32(const float* a, float* b, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = s * a[i];
}
__global__ void add_f32(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void triad_f32(float* a, const float* b, const float* c, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void triad_f64(double* a, const double* b, const double* c, double s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void axpy_f32(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void axpy_f32x4(float a, const float4* x, float4* y, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 xv = x[i];
    float4 yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
  }
}
__global__ void axpy_f64(double a, const double* x, double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void axpy_f16(__half a, const __half* x, __half* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void axpy_f16x2(__half2 a, const __half2* x, __half2* y, int n2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(a, x[i], y[i]);
}

// ------------------------------------------------------------------ strided
__global__ void strided_read_f32(const float* a, float* b, int s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[static_cast<long long>(i) * s];
}
__global__ void strided_write_f32(const float* a, float* b, int s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[static_cast<long long>(i) * s] = a[i];
}

// ------------------------------------------------------------------ gathers and scatters
__global__ void gather_f32(const float* data, const int* idx, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[idx[i]];
}
__global__ void scatter_f32(const float* in, const int* idx, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = in[i];
}

// ------------------------------------------------------------------ transposes (32×8 threads, 32×32 elements per block)
constexpr int kTile = 32, kRows = 8;
__global__ void transpose_naive(const float* in, float* out, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kRows + threadIdx.y;
  out[static_cast<long long>(x) * n + y] = in[static_cast<long long>(y) * n + x];
}
template <int Pad>
__global__ void transpose_tiled(const float* in, float* out, int n) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<long long>(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[static_cast<long long>(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ------------------------------------------------------------------ stencils
__global__ void stencil2d_5pt(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    const long long i = static_cast<long long>(y) * n + x;
    out[i] = 0.5f * in[i] + 0.125f * (in[i - n] + in[i + n] + in[i - 1] + in[i + 1]);
  }
}
// 32×8 threads; the tile holds the block's points and a one-point halo.
__global__ void stencil2d_5pt_shared(const float* in, float* out, int n) {
  __shared__ float t[8 + 2][32 + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx, y = blockIdx.y * 8 + ty;
  const long long i = static_cast<long long>(y) * n + x;
  t[ty + 1][tx + 1] = in[i];
  if (tx == 0 && x > 0) t[ty + 1][0] = in[i - 1];
  if (tx == 31 && x < n - 1) t[ty + 1][33] = in[i + 1];
  if (ty == 0 && y > 0) t[0][tx + 1] = in[i - n];
  if (ty == 7 && y < n - 1) t[9][tx + 1] = in[i + n];
  __syncthreads();
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1)
    out[i] = 0.5f * t[ty + 1][tx + 1] + 0.125f * (t[ty][tx + 1] + t[ty + 2][tx + 1] + t[ty + 1][tx] + t[ty + 1][tx + 2]);
}
__global__ void stencil3d_7pt(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
            z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1 && z > 0 && z < n - 1) {
    const long long nn = static_cast<long long>(n) * n, i = z * nn + static_cast<long long>(y) * n + x;
    out[i] = 0.25f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + in[i - nn] + in[i + nn]);
  }
}

// ------------------------------------------------------------------ reductions
__global__ void reduce_atomic_i32(const int* x, int* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}
// 256 threads per block.
__global__ void reduce_shared_tree(const float* x, double* total, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, static_cast<double>(s[0]));
}
__global__ void reduce_warp_shuffle(const float* x, double* total, int n) {
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += x[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, static_cast<double>(sum));
}

// ------------------------------------------------------------------ histograms
__global__ void hist_global(const std::uint32_t* keys, unsigned* hist, int bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[keys[i] % bins], 1u);
}
// 256 threads per block, 256 bins.
__global__ void hist_shared_256(const std::uint32_t* keys, unsigned* hist, int n) {
  __shared__ unsigned s[256];
  s[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&s[keys[i] % 256], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], s[threadIdx.x]);
}

// ------------------------------------------------------------------ scan (1024 threads per block)
__global__ void scan_blocks(const int* in, int* out, int* block_sums, int n) {
  __shared__ int buf[2][1024];
  const int t = threadIdx.x, i = blockIdx.x * 1024 + t;
  int cur = 0;
  buf[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < 1024; offset *= 2) {
    buf[1 - cur][t] = t >= offset ? buf[cur][t] + buf[cur][t - offset] : buf[cur][t];
    cur = 1 - cur;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][t];
  if (t == 1023) block_sums[blockIdx.x] = buf[cur][t];
}
// One block of 1024 threads scans the block sums in place: each thread its chunk, then the chunks' totals.
__global__ void scan_block_sums(int* sums, int count) {
  __shared__ int buf[2][1024];
  const int t = threadIdx.x, chunk = (count + 1023) / 1024, first = t * chunk;
  int run = 0;
  for (int j = first; j < first + chunk && j < count; ++j) sums[j] = run += sums[j];
  int cur = 0;
  buf[0][t] = run;
  __syncthreads();
  for (int offset = 1; offset < 1024; offset *= 2) {
    buf[1 - cur][t] = t >= offset ? buf[cur][t] + buf[cur][t - offset] : buf[cur][t];
    cur = 1 - cur;
    __syncthreads();
  }
  const int before = t > 0 ? buf[cur][t - 1] : 0;
  for (int j = first; j < first + chunk && j < count; ++j) sums[j] += before;
}
__global__ void scan_add_offsets(int* out, const int* sums, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int block = i / 1024;
  if (i < n && block > 0) out[i] += sums[block - 1];
}

// ------------------------------------------------------------------ batched small matrix products
// One 16×16 block per matrix.
__global__ void bgemm16_shared(const float* a, const float* b, float* c) {
  __shared__ float as[16][16], bs[16][16];
  const int r = threadIdx.y, col = threadIdx.x;
  const long long base = blockIdx.x * 256LL;
  as[r][col] = a[base + r * 16 + col];
  bs[r][col] = b[base + r * 16 + col];
  __syncthreads();
  float sum = 0;
  for (int j = 0; j < 16; ++j) sum += as[r][j] * bs[j][col];
  c[base + r * 16 + col] = sum;
}
// One 4×4 matrix per thread: rows as float4.
__global__ void bgemm4_regs(const float4* a, const float4* b, float4* c, int batch) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= batch) return;
  float4 ar[4], br[4];
  for (int r = 0; r < 4; ++r) ar[r] = a[4LL * m + r], br[r] = b[4LL * m + r];
  for (int r = 0; r < 4; ++r) {
    float4 o;
    o.x = ar[r].x * br[0].x + ar[r].y * br[1].x + ar[r].z * br[2].x + ar[r].w * br[3].x;
    o.y = ar[r].x * br[0].y + ar[r].y * br[1].y + ar[r].z * br[2].y + ar[r].w * br[3].y;
    o.z = ar[r].x * br[0].z + ar[r].y * br[1].z + ar[r].z * br[2].z + ar[r].w * br[3].z;
    o.w = ar[r].x * br[0].w + ar[r].y * br[1].w + ar[r].z * br[2].w + ar[r].w * br[3].w;
    c[4LL * m + r] = o;
  }
}

// ------------------------------------------------------------------ compute chains
__global__ void fma_chain_f32(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float y = c;
  for (int s = 0; s < k; ++s) y = fmaf(y, 0.75f, c);
  out[i] = y;
}
__global__ void fma_ilp4_f32(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float y0 = c, y1 = c + 0.25f, y2 = c + 0.5f, y3 = c + 0.75f;
  for (int s = 0; s < k; ++s) {
    y0 = fmaf(y0, 0.75f, c);
    y1 = fmaf(y1, 0.75f, c);
    y2 = fmaf(y2, 0.75f, c);
    y3 = fmaf(y3, 0.75f, c);
  }
  out[i] = ((y0 + y1) + y2) + y3;
}
__global__ void fma_chain_f64(const double* in, double* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double c = in[i];
  double y = c;
  for (int s = 0; s < k; ++s) y = fma(y, 0.75, c);
  out[i] = y;
}
__global__ void fma_chain_f16x2(const __half2* in, __half2* out, int k, int n2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  const __half2 c = in[i], a = __float2half2_rn(0.75f);
  __half2 y = c;
  for (int s = 0; s < k; ++s) y = __hfma2(y, a, c);
  out[i] = y;
}
__global__ void sinf_chain(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float y = c;
  for (int s = 0; s < k; ++s) y = sinf(y) + c;
  out[i] = y;
}
__global__ void sfu_sin_chain(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float y = c;
  for (int s = 0; s < k; ++s) y = __sinf(y) + c;
  out[i] = y;
}
__global__ void int_mix_chain(const std::uint32_t* in, std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t y = in[i];
  for (int s = 0; s < k; ++s) y = (y ^ (y >> 15)) * 0x2c1b3c6du + 0x9e3779b9u;
  out[i] = y;
}

// ------------------------------------------------------------------ launch-bound
__global__ void tiny_fill(float* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = 0.5f * static_cast<float>(t);
}
// One block of 256 threads.
__global__ void tiny_reduce(const float* x, double* total, int n) {
  __shared__ float s[256];
  float sum = 0;
  for (int i = threadIdx.x; i < n; i += 256) sum += x[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *total = s[0];
}

// ------------------------------------------------------------------ occupancy-starved (grid-stride)
__global__ void starved_copy(const float* a, float* b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void starved_triad(float* a, const float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = b[i] + s * c[i];
}

// ------------------------------------------------------------------ register-heavy
__global__ void regheavy_fma64(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float acc[64];
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = static_cast<float>(j) * (1.0f / 64.0f);
  for (int s = 0; s < k; ++s) {
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = fmaf(acc[j], 0.75f, c);
  }
  float sum = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) sum += acc[j];
  out[i] = sum;
}
// t threads; thread i loads the float4 at i + j·t for j < 16 (all loads before the first store:
// out may alias in, so the compiler keeps the order and holds all 16 in registers), then writes
// the 16 slices in reverse order.
__global__ void regheavy_stream16(const float4* in, float4* out, int t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= t) return;
  float4 v[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) v[j] = in[i + static_cast<long long>(j) * t];
#pragma unroll
  for (int j = 0; j < 16; ++j) out[i + static_cast<long long>(j) * t] = v[15 - j];
}

// ------------------------------------------------------------------ half C (pre-registered after halves A and B)
__global__ void stream_3r2w_f32(const float* a, const float* b, const float* c, float* d, float* e, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    d[i] = a[i] + b[i] + c[i];
    e[i] = a[i] - c[i];
  }
}
__global__ void strided_read_f64(const double* a, double* b, int s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[static_cast<long long>(i) * s];
}
__global__ void stencil2d_9pt(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    const long long i = static_cast<long long>(y) * n + x;
    out[i] = 0.5f * in[i] + 0.0625f * (in[i - n] + in[i + n] + in[i - 1] + in[i + 1]) +
             0.0625f * (in[i - n - 1] + in[i - n + 1] + in[i + n - 1] + in[i + n + 1]);
  }
}
__global__ void reduce_block_atomic_f64(const double* x, double* block_sums, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&block_sums[blockIdx.x], x[i]);
}
__global__ void hist_f32_64(const std::uint32_t* keys, float* hist, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[keys[i] % 64], 1.0f);
}
__global__ void atomic_max_i32_1024(const std::uint32_t* keys, int* maxima, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(&maxima[keys[i] & 1023u], static_cast<int>(keys[i] >> 10));
}
__global__ void sfu_sinexp_chain(const float* in, float* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float c = in[i];
  float y = c;
  for (int s = 0; s < k; ++s) y = 0.25f * __expf(__sinf(y)) + c;
  out[i] = y;
}
__global__ void int_xorshift_chain(const std::uint32_t* in, std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t y = in[i];
  for (int s = 0; s < k; ++s) {
    y ^= y << 13;
    y ^= y >> 17;
    y = y * 0x9e3779b1u + 7u;
  }
  out[i] = y;
}

// ------------------------------------------------------------------ half D (pre-registered after half C)
// Atomics only: every thread updates one address with one atomicAdd, 256 threads per block.
__global__ void reduce_block_atomic_f32(const float* x, float* block_sums, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&block_sums[blockIdx.x], x[i]);
}
__global__ void reduce_warp_slot_f64(const double* x, double* warp_sums, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&warp_sums[i / 32], x[i]);
}
__global__ void hist_global_32(const std::uint32_t* keys, int* hist, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[keys[i] % 32u], 1);
}
__global__ void hist_f64_16(const std::uint32_t* keys, double* hist, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[keys[i] % 16u], 1.0);
}
__global__ void scatter_add_f32_4m(const std::uint32_t* keys, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&y[keys[i] % (1u << 20)], x[i]);
}
// The counter's index is the block's slot, read from device memory; with 256 threads per block it
// is the same for every thread of a block at run time, but it is indexed by i / 256, not by
// blockIdx.x, so the compiler cannot prove it warp-uniform (indexed by blockIdx.x it does, and
// aggregates the warp's updates into one).
__global__ void counter_i32_runtime_uniform(const int* block_slot, int* counters, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counters[block_slot[i / 256]], 1);
}

// ------------------------------------------------------------------ half E (pre-registered after half D)
// Stencils whose neighbours are reused through L1 and L2, gathers with locality, an integer chain
// and two reductions. One point (or element) per thread and a bounds check unless the comment says
// otherwise; the gathers with locality use gather_f32 above with their own index arrays.

// 1-D, 256 threads per block.
__global__ void stencil1d_3pt_f32(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.5f * in[i] + 0.25f * (in[i - 1] + in[i + 1]);
}
// FP64, 16×16 threads per block.
__global__ void stencil2d_5pt_f64(const double* in, double* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    const long long i = static_cast<long long>(y) * n + x;
    out[i] = 0.5 * in[i] + 0.125 * (in[i - n] + in[i + n] + in[i - 1] + in[i + 1]);
  }
}
// The 3×3 box, every weight 1/8; 64×4 threads per block.
__global__ void stencil2d_box9_f32(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    const long long i = static_cast<long long>(y) * n + x;
    const float up = in[i - n - 1] + in[i - n] + in[i - n + 1];
    const float mid = in[i - 1] + in[i] + in[i + 1];
    const float down = in[i + n - 1] + in[i + n] + in[i + n + 1];
    out[i] = 0.125f * (up + mid + down);
  }
}
// A 2-D block of 32×8 threads, one (x, y) column per thread, marching z = 1 … n−2: the values at
// z−1, z and z+1 stay in registers (one new load along z per step), the four in-plane neighbours
// are read from global memory.
__global__ void stencil3d_7pt_zmarch(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || x >= n - 1 || y <= 0 || y >= n - 1) return;
  const long long nn = static_cast<long long>(n) * n;
  long long i = nn + static_cast<long long>(y) * n + x;  // (x, y, 1)
  float below = in[i - nn], centre = in[i];
  for (int z = 1; z < n - 1; ++z, i += nn) {
    const float above = in[i + nn];
    out[i] = 0.25f * centre + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + below + above);
    below = centre;
    centre = above;
  }
}
// Four independent gathers per thread: a 16-byte index load, a 16-byte store.
__global__ void gather4_f32(const float* data, const int4* idx, float4* out, int n4) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n4) {
    const int4 j = idx[t];
    out[t] = make_float4(data[j.x], data[j.y], data[j.z], data[j.w]);
  }
}
// xorshift32 (shifts 13, 17, 5), k dependent rounds from the seed i + 1; no input read.
__global__ void xorshift32_chain(std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t y = static_cast<std::uint32_t>(i) + 1u;
  for (int s = 0; s < k; ++s) {
    y ^= y << 13;
    y ^= y >> 17;
    y ^= y << 5;
  }
  out[i] = y;
}
// 512 threads per block: a shared-memory tree, then one FP32 atomicAdd of the block's sum.
__global__ void reduce_tree512_f32(const float* x, float* total, int n) {
  __shared__ float s[512];
  const int t = threadIdx.x, i = blockIdx.x * 512 + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int half = 256; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, s[0]);
}
// Two-pass sum. Pass 1: 256 threads per block, a shared-memory tree, the block's sum written to
// partials[block]. Pass 2: one block of 1024 threads; each adds every 1024th partial in FP64,
// then a shared-memory tree in FP64, and thread 0 writes the total.
__global__ void reduce_pass1_f32(const float* x, float* partials, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
__global__ void reduce_pass2_f64(const float* partials, double* total, int count) {
  __shared__ double s[1024];
  const int t = threadIdx.x;
  double sum = 0;
  for (int j = t; j < count; j += 1024) sum += partials[j];
  s[t] = sum;
  __syncthreads();
  for (int half = 512; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) *total = s[0];
}

// ------------------------------------------------------------------ half F (pre-registered after half E)
// Random DRAM accesses: every data read (or update) lands on a uniformly random element of a
// table far beyond the L2 (256 MiB to 4 GiB). One element per thread, 256 threads per block and a
// bounds check; gather_random_256m and gather_random_4g use gather_f32 above with their own index
// arrays and tables.

// 8-byte elements: out[i] = data[idx[i]] in FP64.
__global__ void gather_f64(const double* data, const int* idx, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[idx[i]];
}
// Two independent gathers per thread through two index arrays, their sum stored.
__global__ void gather2_f32(const float* data, const int* idx_a, const int* idx_b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[idx_a[i]] + data[idx_b[i]];
}
// No index array: the address is a hash of the thread's index (gen::hash32), masked to the table
// (mask = its element count − 1, a power of two).
__global__ void hash_gather_f32(const float* data, float* out, std::uint32_t mask, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[hash32(static_cast<std::uint32_t>(i)) & mask];
}
// A random read-modify-write, not atomic: idx is injective (a permutation's first n values), so no
// two threads update one word.
__global__ void random_rmw_f32(const float* x, const int* idx, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[idx[i]] += x[i];
}

// ------------------------------------------------------------------ half G (pre-registered after half F)
// Random reads and writes beyond the L2, integer chains, stencils and reductions. One element (or
// point) per thread and a bounds check unless the comment says otherwise. gather_random_2g uses
// gather_f32, gather_random_96m_f64 gather_f64, scatter_random_1g scatter_f32, rmw_random_1g
// random_rmw_f32 and stencil2d_5pt_f32_64x4 stencil2d_5pt (above), each with its own sizes, inputs
// and launch shape.

// Two reads per thread at two hashed addresses (gen::hash32 of 2i and 2i + 1, masked to the table:
// mask = its element count − 1, a power of two); no index array. Their sum is stored.
__global__ void hash_gather2_f32(const float* data, float* out, std::uint32_t mask, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const std::uint32_t j = 2u * static_cast<std::uint32_t>(i);
    out[i] = data[hash32(j) & mask] + data[hash32(j + 1u) & mask];
  }
}
// k dependent rounds of y = rotl(y, 7) + (y ^ c), the rotation by the funnel-shift intrinsic
// (__funnelshift_l(y, y, 7): one SHF instruction on sm_90).
__global__ void int_rotl_add_chain(const std::uint32_t* in, std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    std::uint32_t y = in[i];
    for (int s = 0; s < k; ++s) y = __funnelshift_l(y, y, 7) + (y ^ kRotlAddConstant);
    out[i] = y;
  }
}
// k dependent rounds of the 31-bit linear congruential step y = (y·1664525 + 1013904223) & 0x7fffffff.
__global__ void int_lcg_and_chain(const std::uint32_t* in, std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    std::uint32_t y = in[i];
    for (int s = 0; s < k; ++s) y = (y * 1664525u + 1013904223u) & 0x7fffffffu;
    out[i] = y;
  }
}
// 1-D, radius 2, 256 threads per block; every neighbour read from global memory.
__global__ void stencil1d_5pt_f32(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 1 && i < n - 2) out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1]) + 0.0625f * (in[i - 2] + in[i + 2]);
}
// 7-point step in FP64, a 3-D grid of 32×4×2 blocks; interior points only.
__global__ void stencil3d_7pt_f64(const double* in, double* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
            z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1 && z > 0 && z < n - 1) {
    const long long nn = static_cast<long long>(n) * n, i = z * nn + static_cast<long long>(y) * n + x;
    out[i] = 0.25 * in[i] + 0.125 * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + in[i - nn] + in[i + nn]);
  }
}
// 256 threads per block, one double each: a shared-memory tree, the block's sum written to
// partials[block] (one launch; the partials are the result).
__global__ void reduce_shared_tree_256_f64(const double* x, double* partials, int n) {
  __shared__ double s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? x[i] : 0.0;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
// 1024 threads per block; block b sums the 4096 floats from 4096·b: thread t adds the elements
// t, t + 1024, t + 2048 and t + 3072 of them (four coalesced loads), then each warp reduces by
// __shfl_down_sync, lane 0 puts the warp's sum in shared memory, warp 0 reduces the 32 sums the
// same way, and thread 0 adds the block's sum to the FP32 total with one atomicAdd.
__global__ void reduce_shuffle_block1024_f32(const float* x, float* total, int n) {
  __shared__ float warp_sums[32];
  const int t = threadIdx.x, base = blockIdx.x * 4096 + t;
  float sum = 0.0f;
  for (int j = 0; j < 4; ++j) {
    const int i = base + j * 1024;
    if (i < n) sum += x[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((t & 31) == 0) warp_sums[t / 32] = sum;
  __syncthreads();
  if (t < 32) {
    sum = warp_sums[t];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (t == 0) atomicAdd(total, sum);
  }
}

// ------------------------------------------------------------------ half H (pre-registered after half G)
// Random scatters (FP32 and FP64, partial and a full permutation, a hashed one without an index
// array), three shared-memory trees, a random gather, an integer chain, a 3×3 stencil and an FP64
// pair stream. One element (or vector, or point) per thread and a bounds check unless the comment
// says otherwise. scatter_random_256m, scatter_random_2g and scatter_dense_perm_512m use
// scatter_f32, gather_random_512m gather_f32 (above), each with its own sizes and inputs.

// 8-byte elements: out[idx[i]] = in[i] in FP64.
__global__ void scatter_f64(const double* in, const int* idx, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = in[i];
}
// One write per thread at a hashed word (gen::hash32(i), masked to the table: mask = its element
// count − 1, a power of two); no index array and no input read. The value written is the word's
// own index, so threads that collide on a word write the same value and the result does not
// depend on which of them writes last.
__global__ void hash_scatter_u32(std::uint32_t* out, std::uint32_t mask, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const std::uint32_t j = hash32(static_cast<std::uint32_t>(i)) & mask;
    out[j] = j;
  }
}
// 512 threads per block, one float each: a shared-memory tree, the block's sum written to
// partials[block] (one launch; the partials are the result).
__global__ void reduce_tree512_partials_f32(const float* x, float* partials, int n) {
  __shared__ float s[512];
  const int t = threadIdx.x, i = blockIdx.x * 512 + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int half = 256; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
// 128 threads per block, one double each: a shared-memory tree, then one FP64 atomicAdd of the
// block's sum to the total.
__global__ void reduce_tree128_atomic_f64(const double* x, double* total, int n) {
  __shared__ double s[128];
  const int t = threadIdx.x, i = blockIdx.x * 128 + t;
  s[t] = i < n ? x[i] : 0.0;
  __syncthreads();
  for (int half = 64; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, s[0]);
}
// 256 threads per block; thread t of block b loads the float4 at 256·b + t (four contiguous
// floats, one 16-byte load) and adds its four components, then a shared-memory tree, the block's
// sum written to partials[block]. n4 = the float count / 4.
__global__ void reduce_tree256_x4_f32(const float4* x, float* partials, int n4) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  float sum = 0.0f;
  if (i < n4) {
    const float4 v = x[i];
    sum = v.x + v.y + v.z + v.w;
  }
  s[t] = sum;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = s[0];
}
// k dependent rounds of y = (y ^ (y >> 15)) · 0x2c1b3c6d (a shift, an xor, a multiply).
__global__ void int_xor_mul_chain(const std::uint32_t* in, std::uint32_t* out, int k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    std::uint32_t y = in[i];
    for (int s = 0; s < k; ++s) y = (y ^ (y >> 15)) * kXorMulMultiplier;
    out[i] = y;
  }
}
// The 3×3 box mean: the nine points summed in row order (two loops over −1 … 1), times 1/9 in
// FP32; 32×8 threads per block, every point read from global memory; interior points only.
__global__ void stencil2d_9pt_f32(const float* in, float* out, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < n - 1 && y > 0 && y < n - 1) {
    const long long i = static_cast<long long>(y) * n + x;
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) sum += in[i + static_cast<long long>(dy) * n + dx];
    out[i] = sum * (1.0f / 9.0f);
  }
}
// y[i] = a·x[i] on pairs of doubles (one 16-byte load and store per thread); n2 pairs.
__global__ void scale_f64x2(double a, const double2* x, double2* y, int n2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
    const double2 v = x[i];
    y[i] = make_double2(a * v.x, a * v.y);
  }
}

}  // namespace perfmodel::gen
