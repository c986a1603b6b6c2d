// Arithmetic ceilings: FP32 / FP64 / FP16 (half2, non-tensor) FMA, INT32 multiply-add, an INT32
// shift/xor/add chain, and the cosf / sinf / __cosf call rates (S3's farm kernel is a cosine
// loop). Each thread runs kChains independent dependency chains so that the pipelines, not
// latency, limit the rate; a few threads' results are recomputed on the host and must match.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "gpu_common.cuh"
#include "registration.hpp"

namespace perfmodel {
namespace {

constexpr int kChains = 16;

enum class Op { fp32, fp64, fp16, int32, int32_logic, cosf_call, sinf_call, fast_cosf };

template <Op op>
struct OpTraits;
template <>
struct OpTraits<Op::fp32> {
  using T = float;
  static constexpr double kWork = 2;  // flop per step
  static constexpr bool kLongBody = false;
  __host__ __device__ static T start(int t, int k) { return 0.001f * static_cast<float>((t + k) % 1000); }
  __device__ static T step(T a) { return fmaf(a, 0.999f, 0.001f); }
  static T host_step(T a) { return std::fma(a, 0.999f, 0.001f); }
};
template <>
struct OpTraits<Op::fp64> {
  using T = double;
  static constexpr double kWork = 2;
  static constexpr bool kLongBody = false;
  __host__ __device__ static T start(int t, int k) { return 0.001 * static_cast<double>((t + k) % 1000); }
  __device__ static T step(T a) { return fma(a, 0.999, 0.001); }
  static T host_step(T a) { return std::fma(a, 0.999, 0.001); }
};
template <>
struct OpTraits<Op::int32> {
  using T = std::uint32_t;
  static constexpr double kWork = 2;  // multiply + add
  static constexpr bool kLongBody = false;
  __host__ __device__ static T start(int t, int k) { return static_cast<T>(t * 7 + k); }
  // Opaque to the compiler: plain C++ would let it fold several steps of the chain into one.
  __device__ static T step(T a) {
    asm("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a) : "r"(1664525u), "r"(1013904223u));
    return a;
  }
  static T host_step(T a) { return a * 1664525u + 1013904223u; }
};
// Integer operations as a user writes them (the `int` work of a workload file counts each shift,
// xor and add once): an xorshift32 round, then a shift-xor-add round, 9 operations a step. Plain
// C++ on purpose: the rate is of the SASS the compiler makes of such code, which spreads it over
// the ALU pipe (LOP3, SHF) and the FMA pipes (IMAD.SHL for the left shifts, VIADD for the add);
// on sm_90 (CUDA 13.0) 6 of the 9 instructions a step are the ALU's, so the ALU pipe's rate, half
// the issue rate, bounds the chain at 2/3 of an operation per issue slot.
template <>
struct OpTraits<Op::int32_logic> {
  using T = std::uint32_t;
  static constexpr double kWork = 9;  // operations per step, as written
  static constexpr bool kLongBody = false;
  __host__ __device__ static T start(int t, int k) { return static_cast<T>(t * 7 + k + 1); }
  __host__ __device__ static T mix(T a) {
    a ^= a << 13;
    a ^= a >> 17;
    a ^= a << 5;
    return (a ^ (a >> 15)) + 0x9e3779b9u;
  }
  __device__ static T step(T a) { return mix(a); }
  static T host_step(T a) { return mix(a); }
};
template <>
struct OpTraits<Op::cosf_call> {
  using T = float;
  static constexpr double kWork = 1;
  static constexpr bool kLongBody = true;  // a call is many instructions: no unrolling beyond the chains
  __host__ __device__ static T start(int t, int k) { return 0.001f * static_cast<float>((t + k) % 1000); }
  __device__ static T step(T a) { return cosf(a); }
  static T host_step(T a) { return std::cos(a); }
};
template <>
struct OpTraits<Op::sinf_call> {
  using T = float;
  static constexpr double kWork = 1;
  static constexpr bool kLongBody = true;  // a call is many instructions: no unrolling beyond the chains
  __host__ __device__ static T start(int t, int k) { return 1.0f + 0.001f * static_cast<float>((t + k) % 1000); }
  // sin(x)+1 keeps the chain away from the fixed point 0 where sinf would take its trivial path.
  __device__ static T step(T a) { return sinf(a) + 1.0f; }
  static T host_step(T a) { return std::sin(a) + 1.0f; }
};
template <>
struct OpTraits<Op::fast_cosf> {
  using T = float;
  static constexpr double kWork = 1;
  static constexpr bool kLongBody = true;  // a call is many instructions: no unrolling beyond the chains
  __host__ __device__ static T start(int t, int k) { return 0.001f * static_cast<float>((t + k) % 1000); }
  __device__ static T step(T a) { return __cosf(a); }
  static T host_step(T a) { return std::cos(a); }
};

template <Op op>
__global__ void chains(int iterations, typename OpTraits<op>::T* out) {
  using Tr = OpTraits<op>;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  typename Tr::T a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = Tr::start(t, k);
  if constexpr (Tr::kLongBody) {
#pragma unroll 1
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) a[k] = Tr::step(a[k]);
    }
  } else {
#pragma unroll 8
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
      for (int k = 0; k < kChains; ++k) a[k] = Tr::step(a[k]);
    }
  }
  typename Tr::T sum = a[0];
#pragma unroll
  for (int k = 1; k < kChains; ++k) sum = sum + a[k];
  out[t] = sum;
}

// half2: each step is one HFMA2 (two FMAs, 4 flop). Two forms of the step: a·b + c with b and c
// constants, and a·a + c (mixbench's form, whose operands all come from the chain): the compiler
// schedules them differently, and the ceiling is the faster.
template <bool kSquare>
__global__ void chains_half2(int iterations, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = __floats2half2_rn(0.001f * ((t + k) % 1000), 0.5f);
  const __half2 b = __floats2half2_rn(0.999f, 0.999f), c = __floats2half2_rn(0.001f, 0.001f);
#pragma unroll 8
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) a[k] = __hfma2(a[k], kSquare ? a[k] : b, c);
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) sum += __low2float(a[k]) + __high2float(a[k]);
  out[t] = sum;
}

// One warp, one dependent chain of `steps` operations: the operation's latency (S0 had none; the
// predictor needs it where too few warps run to fill the pipelines).
template <Op op>
__global__ void latency_chain(int steps, typename OpTraits<op>::T* out) {
  using Tr = OpTraits<op>;
  typename Tr::T a = Tr::start(threadIdx.x, 0);
#pragma unroll 4
  for (int i = 0; i < steps; ++i) a = Tr::step(a);
  out[threadIdx.x] = a;
}

struct Shape {
  int per_sm, threads;
};
// Block sizes tried; each runs as many blocks per SM as fit at once (registers permitting).
constexpr int kBlockSizes[] = {128, 256, 512, 1024};

class ComputeBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.compute"; }
  std::string description() const override {
    return "FP32 / FP64 / FP16 (half2) FMA, INT32 multiply-add and shift/xor/add, cosf / sinf / __cosf throughput";
  }

 protected:
  void measure() override {
    Stream stream;
    const std::size_t max_threads = static_cast<std::size_t>(sms()) * 16 * 256;
    out_ = std::make_unique<DeviceBuffer>(max_threads * sizeof(double));
    std::ostringstream summary;
    summary << "fp32 " << run<Op::fp32>("fp32", stream.get()) / 1e12 << ", fp64 " << run<Op::fp64>("fp64", stream.get()) / 1e12
            << ", fp16 " << run_half2(stream.get()) / 1e12 << " Tflop/s; int32 " << run<Op::int32>("int32", stream.get()) / 1e12
            << ", int32 shift/xor/add " << run<Op::int32_logic>("int32_logic", stream.get()) / 1e12 << " Top/s; cosf "
            << run<Op::cosf_call>("cosf", stream.get()) / 1e9 << ", sinf " << run<Op::sinf_call>("sinf", stream.get()) / 1e9 << ", __cosf "
            << run<Op::fast_cosf>("fast_cosf", stream.get()) / 1e9 << " Gcall/s; latency fp32 FMA "
            << latency<Op::fp32>(0, stream.get()) * 1e9 << " ns, cosf " << latency<Op::cosf_call>(1, stream.get()) * 1e9 << " ns";
    set_summary(summary.str());
  }

 private:
  // Iterations that make one launch last about `target` seconds, from a short probe launch.
  template <class Launch>
  int iterations_for(cudaStream_t s, Launch&& launch, double target) {
    int iterations = 256;
    for (;;) {
      const auto t = time_repetitions(s, 1, [&](int) { launch(iterations); });
      const double seconds = t.front();
      if (seconds > target / 8 || iterations >= (1 << 24))
        return std::max(64, static_cast<int>(std::min(1e9, iterations * target / seconds)) / 4 * 4);
      iterations *= 8;
    }
  }

  template <Op op>
  double run(const char* name, cudaStream_t s) {
    using Tr = OpTraits<op>;
    using T = typename Tr::T;
    const double target = quick() ? 1e-3 : 3e-3;
    double best = 0;
    for (int threads : kBlockSizes) {
      const Shape shape{std::min(resident_blocks(chains<op>, threads), static_cast<int>(device().max_blocks_per_multiprocessor)), threads};
      if (shape.per_sm == 0) continue;
      const int blocks = sms() * shape.per_sm;
      auto launch = [&](int iterations) { chains<op><<<blocks, shape.threads, 0, s>>>(iterations, out_->as<T>()); };
      const int iterations = iterations_for(s, launch, target);
      const auto t = time_repetitions(s, reps(7, 3), [&](int) { launch(iterations); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check<op>(iterations, blocks * shape.threads, name);
      const double work = static_cast<double>(blocks) * shape.threads * iterations * kChains * Tr::kWork;
      record(std::string("ceiling.") + name, {{"blocks_per_sm", shape.per_sm}, {"threads", shape.threads}, {"chains", kChains}}, t,
             work);
      best = std::max(best, median_rate(t, work));
    }
    return best;
  }

  // Times one warp's dependent chain at two lengths; records both (the fit takes the slope).
  // Returns the slope, for the summary. The result of a lane is checked against the host.
  template <Op op>
  double latency(int code, cudaStream_t s) {
    using Tr = OpTraits<op>;
    using T = typename Tr::T;
    std::map<int, double> median;
    for (int steps : {4096, 16384}) {
      const auto t = time_repetitions(s, reps(7, 3), [&](int) { latency_chain<op><<<1, 32, 0, s>>>(steps, out_->as<T>()); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      T got{};
      PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out_->as<T>() + 5, sizeof got, cudaMemcpyDeviceToHost));
      T want = Tr::start(5, 0);
      for (int i = 0; i < steps; ++i) want = Tr::host_step(want);
      expect_close(static_cast<double>(got), static_cast<double>(want), op == Op::fp32 ? 0.0 : 1e-5, "latency chain");
      record("latency.op", {{"op", code}, {"steps", steps}}, t, steps);
      median[steps] = summarize(t).median;
    }
    return (median[16384] - median[4096]) / (16384 - 4096);
  }

  // Recomputes three threads on the host. FMA and integer chains must match exactly; the
  // transcendental chains to their documented accuracy, loosened for the __cosf approximation.
  template <Op op>
  void check(int iterations, int threads, const char* name) {
    using Tr = OpTraits<op>;
    using T = typename Tr::T;
    for (int t : {0, threads / 2 + 3, threads - 1}) {
      T got{};
      PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out_->as<T>() + t, sizeof got, cudaMemcpyDeviceToHost));
      T a[kChains];
      for (int k = 0; k < kChains; ++k) {
        a[k] = Tr::start(t, k);
        for (int i = 0; i < iterations; ++i) a[k] = Tr::host_step(a[k]);
      }
      T sum = a[0];
      for (int k = 1; k < kChains; ++k) sum = sum + a[k];
      const bool exact = op == Op::fp32 || op == Op::fp64 || op == Op::int32 || op == Op::int32_logic;
      const double tolerance = exact ? 0.0 : op == Op::fast_cosf ? 1e-3 : 1e-5;
      expect_close(static_cast<double>(got), static_cast<double>(sum), tolerance, name);
    }
  }

  double run_half2(cudaStream_t s) { return std::max(run_half2_form<false>(s), run_half2_form<true>(s)); }

  template <bool kSquare>
  double run_half2_form(cudaStream_t s) {
    const double target = quick() ? 1e-3 : 3e-3;
    double best = 0;
    for (int threads : kBlockSizes) {
      const Shape shape{std::min(resident_blocks(chains_half2<kSquare>, threads), static_cast<int>(device().max_blocks_per_multiprocessor)),
                        threads};
      if (shape.per_sm == 0) continue;
      const int blocks = sms() * shape.per_sm;
      auto launch = [&](int iterations) { chains_half2<kSquare><<<blocks, shape.threads, 0, s>>>(iterations, out_->as<float>()); };
      const int iterations = iterations_for(s, launch, target);
      const auto t = time_repetitions(s, reps(7, 3), [&](int) { launch(iterations); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check_half2(iterations, blocks * shape.threads, kSquare);
      const double work = static_cast<double>(blocks) * shape.threads * iterations * kChains * 4;
      record("ceiling.fp16", {{"blocks_per_sm", shape.per_sm}, {"threads", shape.threads}, {"chains", kChains}, {"square", kSquare ? 1 : 0}},
             t, work);
      best = std::max(best, median_rate(t, work));
    }
    return best;
  }

  // Recomputes three threads' half2 chains on the host: each HFMA2 lane is an exact product
  // and sum, rounded once to half.
  void check_half2(int iterations, int threads, bool square) {
    const float b = __half2float(__float2half_rn(0.999f)), c = __half2float(__float2half_rn(0.001f));
    for (int t : {0, threads / 2 + 3, threads - 1}) {
      float got = 0;
      PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, out_->as<float>() + t, sizeof got, cudaMemcpyDeviceToHost));
      float sum = 0;
      for (int k = 0; k < kChains; ++k) {
        float lo = __half2float(__float2half_rn(0.001f * static_cast<float>((t + k) % 1000))), hi = 0.5f;
        for (int i = 0; i < iterations; ++i) {
          lo = __half2float(__double2half(std::fma(static_cast<double>(lo), square ? lo : b, c)));
          hi = __half2float(__double2half(std::fma(static_cast<double>(hi), square ? hi : b, c)));
        }
        sum += lo + hi;
      }
      expect_close(got, sum, 1e-5, "fp16");
    }
  }

  std::unique_ptr<DeviceBuffer> out_;
};

}  // namespace

void register_gpu_compute_benchmarks(BenchmarkRegistry& registry) { registry.add(std::make_unique<ComputeBenchmark>()); }

}  // namespace perfmodel
