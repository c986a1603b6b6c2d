// Shared-memory microbenchmarks: conflict-free load/store bandwidth and the bank-conflict penalty
// curve. The design is throughput-bound (full occupancy, independent loads in flight, no global
// traffic inside the loop), so a conflict's replays cost issue slots instead of hiding behind
// latency: in a latency-bound loop a 2- or 4-way conflict shows no slowdown at all.
#include <algorithm>
#include <sstream>

#include "gpu_common.cuh"
#include "perfmodel/calibrate/sanitizer_probes.hpp"
#include "registration.hpp"

namespace perfmodel {
namespace {

constexpr int kThreads = 1024, kBlocksPerSm = 2;  // 2048 threads: full occupancy on sm_80/sm_90
constexpr int kUnroll = 8;                        // independent accesses per iteration
constexpr int kRows = 32;                         // row shifts that keep the bank pattern

// Word index (in units of T) of lane l for conflict degree d: banks are taken by groups of d
// lanes, each lane of a group in a different row of the same bank (row = 128 bytes). 8-byte
// words are served per half-warp (16 lanes × 8 B = one 128-byte row), so their degree is that
// of each half-warp, 1 … 16, and lanes l and l + 16 follow the same pattern.
template <class T>
__device__ __forceinline__ int conflict_word(int lane, int degree) {
  constexpr int kRowWords = 128 / sizeof(T);
  const int l = lane % kRowWords;
  return l / degree + kRowWords * (l % degree);
}

// Each warp performs iterations × kUnroll warp-wide loads with the degree-d pattern, shifted by
// whole rows between accesses (same banks, different words, so nothing is hoisted).
template <class T>
__global__ void shared_conflict_loads(int degree, int iterations, T* out) {
  constexpr int kRowWords = 128 / sizeof(T);
  extern __shared__ unsigned char raw[];
  T* table = reinterpret_cast<T*>(raw);
  const int words = kRowWords * (32 + kRows + kUnroll);
  for (int i = threadIdx.x; i < words; i += blockDim.x) table[i] = static_cast<T>(i % 13);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const int pattern = conflict_word<T>(lane, degree);
  T acc[kUnroll] = {};
  int row = (threadIdx.x / 32) % kRows;
  // The kUnroll accesses of an iteration are at fixed offsets from one base (immediate offsets:
  // one address computation per kUnroll loads, so the loop is bound by the shared-memory pipe).
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
    const T* base = table + pattern + kRowWords * row;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc[u] += base[kRowWords * u];
    row = (row + 1) & (kRows - 1);
  }
  T sum = 0;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) sum += acc[u];
  out[blockIdx.x * std::size_t{blockDim.x} + threadIdx.x] = sum;
}

// Conflict-free stores: lane l writes word l of a row of its warp's own rows (no two warps write one
// word, so there is no race between them); every store is kept (the table is read back).
constexpr int kStoreRowShifts = 4;  // row shifts between iterations, within the warp's rows
constexpr int kStoreRowsPerWarp = kUnroll + kStoreRowShifts;
__global__ void shared_stores(int iterations, float* out) {
  __shared__ float table[(kThreads / 32) * 32 * kStoreRowsPerWarp];  // 48 KiB: 2 blocks per SM fit
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float* rows = table + warp * 32 * kStoreRowsPerWarp;
  int row = warp % kStoreRowShifts;
  float v = static_cast<float>(threadIdx.x);
#pragma unroll 1
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) rows[lane + 32 * (row + u)] = v + u;
    row = (row + 1) % kStoreRowShifts;
    v += 1.0f;
  }
  __syncthreads();
  out[blockIdx.x * std::size_t{blockDim.x} + threadIdx.x] = table[threadIdx.x];
}

// Thread 0's expected sum in shared_conflict_loads<T> (pattern word 0, first row 0).
template <class T>
double expected_conflict_sum(int iterations) {
  constexpr int kRowWords = 128 / sizeof(T);
  int row = 0;
  double acc[kUnroll] = {};
  for (int it = 0; it < iterations; ++it) {
    for (int u = 0; u < kUnroll; ++u) acc[u] += static_cast<double>((kRowWords * (row + u)) % 13);
    row = (row + 1) & (kRows - 1);
  }
  double sum = 0;
  for (double a : acc) sum += a;
  return sum;
}

template <class T>
std::size_t conflict_shared_bytes() {
  return sizeof(T) * (128 / sizeof(T)) * (32 + kRows + kUnroll);
}

// Every memory benchmark ends with accumulate_block_sum (gpu_common.cuh): the same reduction here.
__global__ void block_sum_probe(std::size_t n, double* total) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  accumulate_block_sum(i < n ? static_cast<double>(i % 7) : 0.0, total);
}

class SharedMemoryBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.shared"; }
  std::string description() const override {
    return "shared-memory load/store bandwidth and bank-conflict penalty per degree (1..32 for 4-byte, 1..16 for 8-byte words)";
  }

 protected:
  void measure() override {
    const int blocks = sms() * kBlocksPerSm;
    const std::size_t threads_total = static_cast<std::size_t>(blocks) * kThreads;
    DeviceBuffer out(threads_total * sizeof(double));
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    const int base_iterations = quick() ? 1024 : 8192;
    const double warps_per_sm = static_cast<double>(threads_total) / 32 / sms();
    std::ostringstream summary;

    double load_rate = 0;
    auto sweep = [&](auto zero, int word_bytes) {
      using T = decltype(zero);
      const std::size_t shared_bytes = conflict_shared_bytes<T>();
      if (resident_blocks(shared_conflict_loads<T>, kThreads, shared_bytes) < kBlocksPerSm)
        throw RuntimeFailure("shared-memory benchmark: 2 blocks of 1024 threads do not fit one SM");
      std::vector<double> per_access;
      // Every degree, quick or not: the curve has no gaps. 32 lanes of 4 B or 16 of 8 B per row.
      for (int degree = 1; degree <= static_cast<int>(128 / sizeof(T)); ++degree) {
        const int iterations = std::max(64, base_iterations / degree);
        const auto t = time_repetitions(s, r, [&](int) {
          shared_conflict_loads<T><<<blocks, kThreads, shared_bytes, s>>>(degree, iterations, out.as<T>());
        });
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        // Check thread 0 (pattern word 0, first row 0): it summed the values (word % 13) of its words.
        T got{};
        PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
        expect_close(static_cast<double>(got), expected_conflict_sum<T>(iterations), 1e-6, "shared conflict loads");
        const double accesses_per_sm = warps_per_sm * iterations * kUnroll;
        record("shared.conflict", {{"word_bytes", word_bytes}, {"degree", degree}}, t, accesses_per_sm);
        per_access.push_back(summarize(t).median / accesses_per_sm);
        if (degree == 1 && word_bytes == 4)
          load_rate = median_rate(t, static_cast<double>(threads_total) * iterations * kUnroll * sizeof(T));
        if (degree == 1) {
          record("ceiling.shared_load", {{"word_bytes", word_bytes}}, t,
                 static_cast<double>(threads_total) * iterations * kUnroll * sizeof(T));
        }
      }
      summary << word_bytes << "-byte words: " << per_access.size() << "-way costs " << per_access.back() / per_access.front()
              << "x; ";
    };
    sweep(0.0f, 4);
    sweep(0.0, 8);

    const int store_iterations = base_iterations;
    const auto t = time_repetitions(s, r, [&](int) { shared_stores<<<blocks, kThreads, 0, s>>>(store_iterations, out.as<float>()); });
    PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
    // Thread 0 reads word 0: the last value warp 0's lane 0 wrote to its row 0.
    float got = -1;
    PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
    if (!(got >= 0 && got <= static_cast<float>(kThreads + store_iterations + kUnroll)))
      throw RuntimeFailure("shared stores: result check failed");
    const double store_bytes = static_cast<double>(threads_total) * store_iterations * kUnroll * 4;
    record("ceiling.shared_store", {{"word_bytes", 4}}, t, store_bytes);
    summary << "loads " << format_rate(load_rate) << ", stores " << format_rate(median_rate(t, store_bytes));
    set_summary(summary.str());
  }
};

}  // namespace

void run_shared_memory_kernels_once() {
  constexpr int kBlocks = 2, kIterations = 64;
  DeviceBuffer out(std::size_t{kBlocks} * kThreads * sizeof(double));
  auto loads = [&](auto zero) {
    using T = decltype(zero);
    constexpr int kWidest = 128 / sizeof(T);
    for (int degree : {1, 3, kWidest}) {
      shared_conflict_loads<T><<<kBlocks, kThreads, conflict_shared_bytes<T>()>>>(degree, kIterations, out.as<T>());
      PERFMODEL_CUDA_CHECK(cudaGetLastError());
      PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
      if (degree == 1) {
        T got{};
        PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
        expect_close(static_cast<double>(got), expected_conflict_sum<T>(kIterations), 1e-6, "shared conflict loads");
      }
    }
  };
  loads(0.0f);
  loads(0.0);
  shared_stores<<<kBlocks, kThreads>>>(kIterations, out.as<float>());
  PERFMODEL_CUDA_CHECK(cudaGetLastError());
  float got = -1;
  PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
  // Warp 0's lane 0 writes v + 0 = it to its row 0 when it is a multiple of kStoreRowShifts.
  const int last = (kIterations - 1) / kStoreRowShifts * kStoreRowShifts;
  if (got != static_cast<float>(last))
    throw RuntimeFailure("shared stores: result check failed (got " + std::to_string(got) + ")");
  DeviceBuffer total(sizeof(double));
  const std::size_t n = std::size_t{kBlocks} * kThreads - 5;
  block_sum_probe<<<kBlocks, kThreads>>>(n, total.as<double>());
  PERFMODEL_CUDA_CHECK(cudaGetLastError());
  double sum = -1;
  PERFMODEL_CUDA_CHECK(cudaMemcpy(&sum, total.get(), sizeof sum, cudaMemcpyDeviceToHost));
  double expected = 0;
  for (std::size_t i = 0; i < n; ++i) expected += static_cast<double>(i % 7);
  expect_close(sum, expected, 1e-12, "block reduction");
}

void register_gpu_shared_benchmarks(BenchmarkRegistry& registry) { registry.add(std::make_unique<SharedMemoryBenchmark>()); }

}  // namespace perfmodel
