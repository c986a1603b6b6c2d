// Tensor-core ceilings: dense warp-level matrix multiply-accumulate (mma.sync) from registers, in
// FP16 and BF16 (m16n8k16, FP32 accumulate), TF32 (m16n8k8, FP32 accumulate), INT8 (m16n8k32,
// INT32 accumulate) and FP8 E4M3 (m16n8k32, FP32 accumulate; compute capability 8.9 and newer).
// Each warp runs kChains independent accumulators so that the tensor pipe, not the instruction's
// latency, limits the rate. The operands are chosen so that every MMA adds exactly 1 (or K for
// INT8) to each accumulator element: the result is exact, and every thread's is checked.
//
// What this measures is what mma.sync reaches. Hopper's full dense rate needs the asynchronous
// warpgroup MMA (wgmma) fed from shared memory; the datasheet value is printed beside the ceiling.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "gpu_common.cuh"
#include "registration.hpp"

namespace perfmodel {
namespace {

enum class Mma { fp16, bf16, tf32, int8, fp8 };

// Operand registers for one MMA: A holds 1.0 in every element, B the value that makes one MMA add
// exactly 1 to each FP accumulator (K · 1 · b = 1), 1 for INT8 (each MMA then adds K = 32).
template <Mma m>
struct MmaTraits;
template <>
struct MmaTraits<Mma::fp16> {
  static constexpr int kK = 16;
  static constexpr std::uint32_t kA = 0x3C003C00u;  // half 1.0, twice
  static constexpr std::uint32_t kB = 0x2C002C00u;  // half 2^-4, twice
  static constexpr double kAddPerMma = 1;
};
template <>
struct MmaTraits<Mma::bf16> {
  static constexpr int kK = 16;
  static constexpr std::uint32_t kA = 0x3F803F80u;  // bf16 1.0
  static constexpr std::uint32_t kB = 0x3D803D80u;  // bf16 2^-4
  static constexpr double kAddPerMma = 1;
};
template <>
struct MmaTraits<Mma::tf32> {
  static constexpr int kK = 8;
  static constexpr std::uint32_t kA = 0x3F800000u;  // 1.0f
  static constexpr std::uint32_t kB = 0x3E000000u;  // 2^-3
  static constexpr double kAddPerMma = 1;
};
template <>
struct MmaTraits<Mma::int8> {
  static constexpr int kK = 32;
  static constexpr std::uint32_t kA = 0x01010101u;
  static constexpr std::uint32_t kB = 0x01010101u;
  static constexpr double kAddPerMma = 32;
};
template <>
struct MmaTraits<Mma::fp8> {
  static constexpr int kK = 32;
  static constexpr std::uint32_t kA = 0x38383838u;  // e4m3 1.0
  static constexpr std::uint32_t kB = 0x10101010u;  // e4m3 2^-5
  static constexpr double kAddPerMma = 1;
};

// One m16n8kK MMA on the accumulator d (4 elements a thread). Opaque to the compiler.
template <Mma m>
__device__ __forceinline__ void mma(float (&d)[4], std::uint32_t a, std::uint32_t b);

template <>
__device__ __forceinline__ void mma<Mma::fp16>(float (&d)[4], std::uint32_t a, std::uint32_t b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a), "r"(b));
}
template <>
__device__ __forceinline__ void mma<Mma::bf16>(float (&d)[4], std::uint32_t a, std::uint32_t b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a), "r"(b));
}
template <>
__device__ __forceinline__ void mma<Mma::tf32>(float (&d)[4], std::uint32_t a, std::uint32_t b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a), "r"(b));
}
template <>
__device__ __forceinline__ void mma<Mma::int8>(float (&d)[4], std::uint32_t a, std::uint32_t b) {
  // The INT32 accumulator travels in the float registers' bits.
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+r"(reinterpret_cast<int(&)[4]>(d)[0]), "+r"(reinterpret_cast<int(&)[4]>(d)[1]),
                 "+r"(reinterpret_cast<int(&)[4]>(d)[2]), "+r"(reinterpret_cast<int(&)[4]>(d)[3])
               : "r"(a), "r"(b));
}
template <>
__device__ __forceinline__ void mma<Mma::fp8>(float (&d)[4], std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a), "r"(b));
#else
  (void)d, (void)a, (void)b;
  __trap();
#endif
}

constexpr int kChains = 8;

// Every thread ends with kChains · 4 accumulator elements of iterations · kAddPerMma each (exact:
// at most 4·10^6 MMAs a chain keeps an FP32 accumulator below 2^24; INT8's are INT32); it writes
// their sum, in double so that the sum is exact too.
template <Mma m>
__global__ void mma_chains(int iterations, double* out) {
  using Tr = MmaTraits<m>;
  std::uint32_t a = Tr::kA, b = Tr::kB;
  // Opaque operands: the compiler cannot know them, so it cannot fold the chains.
  asm volatile("" : "+r"(a), "+r"(b));
  float d[kChains][4] = {};
#pragma unroll 1
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) mma<m>(d[k], a, b);
  }
  double sum = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k)
#pragma unroll
    for (int e = 0; e < 4; ++e) sum += m == Mma::int8 ? static_cast<double>(__float_as_int(d[k][e])) : static_cast<double>(d[k][e]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

constexpr int kBlockSizes[] = {128, 256, 512};

class TensorBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.tensor"; }
  std::string description() const override {
    return "tensor-core MMA throughput (mma.sync, dense): FP16, BF16, TF32, INT8, FP8 E4M3 (compute capability 8.9+)";
  }

 protected:
  void measure() override {
    Stream stream;
    out_ = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(sms()) * 32 * 1024 * sizeof(double));
    if (device().compute_capability_major < 8) {
      set_summary("skipped: tensor-core MMA of these shapes needs compute capability 8.0 or newer");
      return;
    }
    std::ostringstream summary;
    summary << "fp16 " << run<Mma::fp16>("tensor_fp16", stream.get()) / 1e12 << ", bf16 " << run<Mma::bf16>("tensor_bf16", stream.get()) / 1e12
            << ", tf32 " << run<Mma::tf32>("tensor_tf32", stream.get()) / 1e12 << " Tflop/s; int8 "
            << run<Mma::int8>("tensor_int8", stream.get()) / 1e12 << " Top/s";
    const bool fp8 = device().compute_capability_major * 10 + device().compute_capability_minor >= 89;
    if (fp8) summary << "; fp8 " << run<Mma::fp8>("tensor_fp8", stream.get()) / 1e12 << " Tflop/s";
    set_summary(summary.str());
  }

 private:
  template <class Launch>
  int iterations_for(cudaStream_t s, Launch&& launch, double target) {
    int iterations = 64;
    for (;;) {
      const auto t = time_repetitions(s, 1, [&](int) { launch(iterations); });
      const double seconds = t.front();
      if (seconds > target / 8 || iterations >= (1 << 20))
        // Each accumulator must stay exact in FP32 (below 2^24): at most 2^22 MMAs per chain.
        return std::clamp(static_cast<int>(std::min(4e6, iterations * target / seconds)), 64, 1 << 22) / 4 * 4;
      iterations *= 8;
    }
  }

  template <Mma m>
  double run(const char* name, cudaStream_t s) {
    using Tr = MmaTraits<m>;
    const double target = quick() ? 1e-3 : 3e-3;
    const double flop_per_mma = 2.0 * 16 * 8 * Tr::kK;  // per warp
    double best = 0;
    for (int threads : kBlockSizes) {
      const int per_sm = std::min(resident_blocks(mma_chains<m>, threads), static_cast<int>(device().max_blocks_per_multiprocessor));
      if (per_sm == 0) continue;
      const int blocks = sms() * per_sm;
      if (static_cast<std::size_t>(blocks) * threads * sizeof(double) > out_->bytes()) continue;
      auto launch = [&](int iterations) { mma_chains<m><<<blocks, threads, 0, s>>>(iterations, out_->as<double>()); };
      const int iterations = iterations_for(s, launch, target);
      const auto t = time_repetitions(s, reps(7, 3), [&](int) { launch(iterations); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check(name, iterations * Tr::kAddPerMma * kChains * 4, blocks * threads);
      const double work = static_cast<double>(blocks) * (threads / 32) * iterations * kChains * flop_per_mma;
      record(std::string("ceiling.") + name, {{"blocks_per_sm", per_sm}, {"threads", threads}, {"chains", kChains}}, t, work);
      best = std::max(best, median_rate(t, work));
    }
    return best;
  }

  // Every thread's sum must be exact.
  void check(const char* name, double expected, int threads) {
    std::vector<double> got(static_cast<std::size_t>(threads));
    PERFMODEL_CUDA_CHECK(cudaMemcpy(got.data(), out_->as<double>(), got.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (std::size_t t = 0; t < got.size(); ++t)
      if (got[t] != expected) expect_close(got[t], expected, 0.0, std::string(name) + " (thread " + std::to_string(t) + ")");
  }

  std::unique_ptr<DeviceBuffer> out_;
};

}  // namespace

void register_gpu_tensor_benchmarks(BenchmarkRegistry& registry) { registry.add(std::make_unique<TensorBenchmark>()); }

}  // namespace perfmodel
