// Experiment (not part of the toolkit's calibration): what one tile of mv-opt's barrier loop
// costs. The kernel is mv-opt (kernels/cuda/src/mv_kernels.cuh: block (X, Y), X rows per block,
// Y threads per row, X×X tile through shared memory, rotated start column), with three knobs the
// toolkit's kernel does not have: the row pitch (n, or n padded by 32 or 64 floats: is a
// power-of-two row stride what makes 64-wide tiles slow?), where b comes from (constant memory,
// global memory, or nowhere: the compute phase reads only the tile), and whether the L2 is
// flushed (by reading 256 MiB: clean) or left warm with the matrix before each run.
// Prints CSV: n,pitch,x,y,b,l2,rep,seconds.
// Build: nvcc -O2 -arch=sm_90 -o tile_loop tile_loop.cu
#include <cstdio>
#include <vector>

#include "check.cuh"

__constant__ float b_constant[16384];

template <int X, int Y, int B>  // B: 0 constant b, 1 global b, 2 no b
__global__ void __launch_bounds__(X * Y) tile_loop(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n, int pitch) {
  constexpr int R = X / Y;
  __shared__ float tile[X][X + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, off = R * ty;
  const int row0 = blockIdx.x * X;
  const int start = ((blockIdx.x % 8) * 64) % n;
  const float* base = a + static_cast<size_t>(row0 + off) * pitch + tx;
  float acc = 0;
  auto step = [&](int j) {
    const float* p = base + j;
#pragma unroll
    for (int k = 0; k < R; ++k) tile[k + off][tx] = p[static_cast<size_t>(k) * pitch];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const float bk = B == 0 ? b_constant[j + k + off] : B == 1 ? __ldg(b + j + k + off) : 1.0f;
      acc += tile[tx][k + off] * bk;
    }
    __syncthreads();
  };
  for (int j = start; j < n; j += X) step(j);
  for (int j = 0; j < start; j += X) step(j);
  if (Y > 1) {
    if (ty != 0) tile[ty - 1][tx] = acc;
    __syncthreads();
    if (ty == 0)
      for (int k = 0; k < Y - 1; ++k) acc += tile[k][tx];
  }
  if (ty == 0) c[row0 + tx] = acc;
}

__global__ void read_flush(const float4* __restrict__ in, size_t count, float* out) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) acc += in[i].x;
  if (acc == 12345.f) out[0] = acc;
}

using Fn = void (*)(const float*, const float*, float*, int, int);
struct Cfg {
  int x, y;
  Fn fn[3];
};
#define CFG(X, Y) Cfg{X, Y, {tile_loop<X, Y, 0>, tile_loop<X, Y, 1>, tile_loop<X, Y, 2>}}

int main() {
  const std::vector<Cfg> cfgs = {CFG(16, 16), CFG(16, 4), CFG(32, 16), CFG(32, 8), CFG(32, 4), CFG(32, 2), CFG(64, 16), CFG(64, 8), CFG(64, 4), CFG(64, 2)};
  const size_t max_floats = size_t{16384} * (16384 + 64);
  const size_t flush_bytes = size_t{256} << 20;
  float *a, *b, *c, *f;
  CHECK(cudaMalloc(&a, max_floats * 4));
  CHECK(cudaMalloc(&b, (16384 + 64) * 4));
  CHECK(cudaMalloc(&c, 16384 * 4));
  CHECK(cudaMalloc(&f, flush_bytes));
  CHECK(cudaMemset(a, 0, max_floats * 4));
  CHECK(cudaMemset(b, 0, (16384 + 64) * 4));
  CHECK(cudaMemset(f, 0, flush_bytes));
  std::vector<float> ones(16384, 1.0f);
  CHECK(cudaMemcpyToSymbol(b_constant, ones.data(), ones.size() * 4));
  for (int i = 0; i < 10; ++i) CFG(32, 16).fn[0]<<<128, dim3(32, 16)>>>(a, b, c, 4096, 4096);
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::printf("n,pitch,x,y,b,l2,rep,seconds\n");
  for (int rep = 0; rep < 5; ++rep)
    for (int n : {1024, 4096, 16384})
      for (int pad : {0, 32, 64})
        for (const Cfg& cfg : cfgs)
          for (int bm = 0; bm < 3; ++bm)
            for (int l2 = 0; l2 < 2; ++l2) {  // 0: flushed by reads, 1: warm (the same run just before)
              if (n == 16384 && (bm != 0 || l2 == 1)) continue;
              const int pitch = n + pad;
              const dim3 grid(n / cfg.x), block(cfg.x, cfg.y);
              if (l2 == 0)
                read_flush<<<528, 512>>>(reinterpret_cast<const float4*>(f), flush_bytes / 16, c);
              else
                cfg.fn[bm]<<<grid, block>>>(a, b, c, n, pitch);
              CHECK(cudaEventRecord(e0));
              cfg.fn[bm]<<<grid, block>>>(a, b, c, n, pitch);
              CHECK(cudaEventRecord(e1));
              CHECK(cudaEventSynchronize(e1));
              float ms = 0;
              CHECK(cudaEventElapsedTime(&ms, e0, e1));
              std::printf("%d,%d,%d,%d,%d,%d,%d,%.6g\n", n, pitch, cfg.x, cfg.y, bm, l2, rep, ms * 1e-3);
            }
  CHECK(cudaGetLastError());
  return 0;
}
