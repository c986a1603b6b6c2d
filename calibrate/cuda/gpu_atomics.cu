// Global atomics: the throughput of atomicAdd (int32, fp32, fp64; result unused) against the
// number of distinct addresses K the grid updates. Every thread adds 1 to address tid mod K,
// `iterations` times; each address sits in a 32-byte sector of its own, so K is also the number
// of sectors the updates share. K = 1 is the fully serialised rate (all updates of the grid on
// one address); K = one per thread has no contention. K = 1 is measured a second time with one
// lane of each warp updating (lanes = 1): a warp's update of an address with one lane, as a
// reduction's per-block or per-warp atomic issues it. Series `atomic.add`: amount = updates (one
// per updating thread and iteration); params type (0 int32, 1 fp32, 2 fp64), addresses, threads,
// lanes (32 or 1).
// The values added are 1 and the totals stay below 2^24, so every float sum is exact and the
// result check compares every address with its exact count.
#include <cstdint>
#include <sstream>
#include <vector>

#include "gpu_common.cuh"
#include "registration.hpp"

namespace perfmodel {
namespace {

constexpr int kThreads = 1024, kBlocksPerSm = 2;
constexpr unsigned kSectorBytes = 32;

template <class T>
__global__ void atomic_adds(T* targets, unsigned addresses, int iterations, unsigned lanes) {
  if (threadIdx.x % 32 >= lanes) return;
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  T* p = targets + static_cast<std::size_t>(tid % addresses) * (kSectorBytes / sizeof(T));
#pragma unroll 1
  for (int i = 0; i < iterations; ++i) atomicAdd(p, T(1));
}

class AtomicsBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.atomics"; }
  std::string description() const override {
    return "global atomicAdd throughput (int32, fp32, fp64) against the distinct addresses updated (1 … one per thread)";
  }

 protected:
  void measure() override {
    const int blocks = sms() * kBlocksPerSm;
    const unsigned threads = static_cast<unsigned>(blocks) * kThreads;
    const int iterations = quick() ? 8 : 32;  // threads × iterations < 2^24: exact float sums (also threads/32 × 32 iterations)
    if (static_cast<double>(threads) * iterations >= 16777216.0)
      throw RuntimeFailure("atomics benchmark: too many threads for exact float sums");
    const std::size_t bytes = std::size_t{threads} * kSectorBytes;
    DeviceBuffer targets(bytes);
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    std::ostringstream summary;
    auto sweep = [&](auto zero, int type, const char* name) {
      using T = decltype(zero);
      constexpr unsigned kStride = kSectorBytes / sizeof(T);
      double first = 0, last = 0, one_lane = 0;
      // (addresses, lanes): the K sweep with every lane, then one address with one lane per warp.
      const std::vector<std::pair<unsigned, unsigned>> cases = {{1u, 32u}, {8u, 32u}, {32u, 32u}, {256u, 32u}, {4096u, 32u}, {threads, 32u}, {1u, 1u}};
      for (const auto& kl : cases) {
        const unsigned k = kl.first, lanes = kl.second;  // not a structured binding: the lambda captures them (C++17)
        const int its = lanes == 32 ? iterations : 32 * iterations;  // the same updates per address as the K = 1 sweep
        const auto t = time_repetitions(
            s, r, [&](int) { atomic_adds<T><<<blocks, kThreads, 0, s>>>(targets.as<T>(), k, its, lanes); },
            [&](int) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(targets.get(), 0, bytes, s)); });
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        // Every address: (threads with tid mod K = j) × iterations.
        std::vector<T> got(std::size_t{k} * kStride);
        PERFMODEL_CUDA_CHECK(cudaMemcpy(got.data(), targets.get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
        // Every address: (updating threads with tid mod K = j) × iterations (lanes = 1 only at K = 1).
        const unsigned updating = threads / 32 * lanes;
        for (unsigned j = 0; j < k; ++j) {
          const double expected = static_cast<double>(updating / k + (j < updating % k ? 1 : 0)) * its;
          if (static_cast<double>(got[std::size_t{j} * kStride]) != expected)
            throw RuntimeFailure(std::string("atomics benchmark (") + name + ", " + std::to_string(k) +
                                 " addresses): result check failed at address " + std::to_string(j));
        }
        const double updates = static_cast<double>(updating) * its;
        record("atomic.add",
               {{"type", type}, {"addresses", static_cast<double>(k)}, {"threads", static_cast<double>(threads)}, {"lanes", static_cast<double>(lanes)}},
               t, updates);
        const double per_update = summarize(t).median / updates;
        if (lanes == 1) {
          one_lane = per_update;
        } else {
          if (k == 1) first = per_update;
          last = per_update;
        }
      }
      summary << name << " " << first * 1e12 << " ps/update on 1 address (" << one_lane * 1e12 << " one lane a warp), " << last * 1e12
              << " on " << threads << "; ";
    };
    sweep(std::int32_t{0}, 0, "int32");
    sweep(0.0f, 1, "fp32");
    sweep(0.0, 2, "fp64");
    set_summary(summary.str());
  }
};

}  // namespace

void register_gpu_atomics_benchmarks(BenchmarkRegistry& registry) { registry.add(std::make_unique<AtomicsBenchmark>()); }

}  // namespace perfmodel
