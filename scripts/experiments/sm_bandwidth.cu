// Experiment (not part of the toolkit's calibration): DRAM read bandwidth when only k SMs read,
// one block of T threads each, every thread keeping U independent 128-byte-line loads in flight
// (warp-wide, consecutive lines of its own stream), for k = 8 … 132. Tells whether a wave on half
// the SMs can reach more than half the saturated bandwidth. Prints CSV: k,threads,unroll,rep,Bps.
// Build: nvcc -O2 -arch=sm_90 -o sm_bandwidth sm_bandwidth.cu
#include "check.cuh"

// Block b reads floats [b·per_block, (b+1)·per_block); each warp walks lines of 32 floats, U at
// a time, all U loaded before any is used.
template <int U>
__global__ void __launch_bounds__(1024) read_lines(const float* __restrict__ in, float* out, size_t per_block) {
  const float* base = in + blockIdx.x * per_block;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  float acc = 0;
  for (size_t line = static_cast<size_t>(warp) * U; line * 32 < per_block; line += static_cast<size_t>(warps) * U) {
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(base + (line + u) * 32 + lane);
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u];
  }
  if (acc == 12345.f) out[0] = acc;
}

int main() {
  const size_t per_block = size_t{1} << 21;  // 8 MiB per block
  float *in, *out;
  CHECK(cudaMalloc(&in, 132 * per_block * sizeof(float)));
  CHECK(cudaMalloc(&out, 4));
  CHECK(cudaMemset(in, 0, 132 * per_block * sizeof(float)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::printf("k,threads,unroll,rep,Bps\n");
  const int ks[] = {8, 16, 32, 48, 64, 80, 96, 112, 128, 132};
  for (int rep = 0; rep < 5; ++rep)
    for (int threads : {256, 512, 1024})
      for (int unroll : {1, 4, 8})
        for (int k : ks) {
          CHECK(cudaEventRecord(a));
          if (unroll == 1) read_lines<1><<<k, threads>>>(in, out, per_block);
          if (unroll == 4) read_lines<4><<<k, threads>>>(in, out, per_block);
          if (unroll == 8) read_lines<8><<<k, threads>>>(in, out, per_block);
          CHECK(cudaEventRecord(b));
          CHECK(cudaEventSynchronize(b));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, a, b));
          std::printf("%d,%d,%d,%d,%.6g\n", k, threads, unroll, rep, k * per_block * 4.0 / (ms * 1e-3));
        }
  return 0;
}
