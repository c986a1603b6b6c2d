// GPU test (label `gpu`): the pass counts the workload descriptors assume for wide shared loads,
// measured throughput-bound (2 × 1024 threads per SM, 8 independent loads per thread) against a
// conflict-free 4-byte load (one pass):
//   LDS.128 read by every lane from one address (mm-opt's A tile)      → 2 passes
//   LDS.128 from two addresses, 16 lanes each (mm-shared's A rows)     → 2 passes
//   LDS.128 from 32 distinct consecutive addresses (512 B)              → 4 passes
//   LDG.32 hitting L1, 32 consecutive words (one 128-B line)            → 2.37 passes (2026-11-22:
//                                                                          2.37; the predictor's
//                                                                          kGlobalBytesPerPass = 128 / 2.37)
//   LDG.32 hitting L1, one address for the whole warp (mm's A element)  → 1 pass
// Each figure is printed, so a run on a new GPU shows what to change.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "perfmodel/calibrate/device.hpp"

namespace {

constexpr int kThreads = 1024, kUnroll = 8, kRows = 32;

// mode 0: float, lane l → word l; 1: float4, all lanes → one address; 2: float4, lanes 0–15 and
// 16–31 → two addresses; 3: float4, lane l → element l. Rows shift between iterations.
template <int kMode>
__global__ void wide_loads(int iterations, float* out) {
  __shared__ float4 table[32 * (kRows + kUnroll)];
  for (int i = threadIdx.x; i < 32 * (kRows + kUnroll); i += blockDim.x) table[i] = make_float4(i % 7, i % 5, i % 3, 1);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const float* words = reinterpret_cast<const float*>(table);
  const int element = kMode == 1 ? 0 : kMode == 2 ? lane / 16 : lane;
  float acc[kUnroll] = {};
  int row = (threadIdx.x / 32) % kRows;
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if constexpr (kMode == 0) {
        acc[u] += words[32 * (row + u) + lane];
      } else {
        const float4 v = table[32 * (row + u) + element];
        acc[u] += v.x + v.y + v.z + v.w;
      }
    }
    row = (row + 1) & (kRows - 1);
  }
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) sum += acc[u];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Global loads that hit L1 (a 20 KiB table per block, read through the read-only path as the
// reference kernels' const __restrict__ loads are): mode 4 coalesced, mode 5 broadcast.
template <int kMode>
__global__ void l1_loads(int iterations, const float* __restrict__ table, float* out) {
  const int lane = threadIdx.x % 32;
  const float* base = table + blockIdx.x % 8 * 32 * (kRows + kUnroll);
  float acc[kUnroll] = {};
  int row = (threadIdx.x / 32) % kRows;
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc[u] += base[32 * (row + u) + (kMode == 4 ? lane : 0)];
    row = (row + 1) & (kRows - 1);
  }
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) sum += acc[u];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int kMode>
double seconds_per_access(int sms, float* out) {
  const int blocks = 2 * sms, iterations = 4096;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const float* table = out + 2 * sms * kThreads;  // 8 tables of 32 × (kRows + kUnroll) floats after the outputs
  auto launch = [&] {
    if constexpr (kMode >= 4) l1_loads<kMode><<<blocks, kThreads>>>(iterations, table, out);
    else wide_loads<kMode><<<blocks, kThreads>>>(iterations, out);
  };
  launch();  // warm-up
  std::vector<float> ms;
  for (int rep = 0; rep < 5; ++rep) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  const double accesses_per_sm = 2.0 * kThreads / 32 * iterations * kUnroll;
  return ms[2] * 1e-3 / accesses_per_sm;
}

}  // namespace

TEST(DescriptorPasses, WideSharedLoadsTakeThePassesTheDescriptorsAssume) {
  ASSERT_FALSE(perfmodel::gpu_unavailable_reason().has_value()) << *perfmodel::gpu_unavailable_reason();
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float) * (2 * sms * kThreads + 8 * 32 * (kRows + kUnroll))), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0, sizeof(float) * (2 * sms * kThreads + 8 * 32 * (kRows + kUnroll))), cudaSuccess);
  const double one = seconds_per_access<0>(sms, out);
  const double broadcast = seconds_per_access<1>(sms, out) / one;
  const double two = seconds_per_access<2>(sms, out) / one;
  const double distinct = seconds_per_access<3>(sms, out) / one;
  const double l1_line = seconds_per_access<4>(sms, out) / one;
  const double l1_broadcast = seconds_per_access<5>(sms, out) / one;
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  cudaFree(out);
  std::printf("conflict-free LDS.32: %.3g ns per warp access per SM; LDS.128 passes: broadcast %.2f, two addresses %.2f, "
              "32 addresses %.2f; LDG.32 hitting L1: one line %.2f, broadcast %.2f\n", one * 1e9, broadcast, two, distinct, l1_line, l1_broadcast);
  EXPECT_NEAR(broadcast, 2.0, 0.5);
  EXPECT_NEAR(two, 2.0, 0.5);
  EXPECT_NEAR(distinct, 4.0, 1.0);
  EXPECT_NEAR(l1_line, 2.37, 0.35);
  EXPECT_NEAR(l1_broadcast, 1.0, 0.3);
}
