// GPU global-memory microbenchmarks: DRAM ceilings (STREAM kernels), bandwidth versus bytes in
// flight, the L2/DRAM hierarchy, dependent-load latency, partition/channel camping and strided
// access, random reads over tables beyond the L2. Every kernel's result is checked before its time is recorded.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include "gpu_common.cuh"
#include "perfmodel/model/gpu_calibration.hpp"
#include "registration.hpp"

namespace perfmodel {
namespace {

// ================================================================== DRAM ceilings
constexpr double kInitA = 0.1, kInitB = 0.2, kInitC = 0.0, kScalar = 0.4, kWriteValue = 0.3;

__global__ void fill(double* p, std::size_t n, double v) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) p[i] = v;
}

__global__ void fill_float(float* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) p[i] = v;
}

// Counts elements differing from `expected` by more than tol (relative).
__global__ void count_mismatches(const double* p, std::size_t n, double expected, double tol, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    local += fabs(p[i] - expected) > tol * fabs(expected) ? 1 : 0;
  if (local) atomicAdd(bad, local);
}

// Grid-stride STREAM kernels over elements V (double, or double2 for 16-byte accesses), with U
// independent elements in flight per thread per iteration. A launch with one thread per element
// is the U = 1 case with a grid that covers n.
__device__ __forceinline__ double sum_of(double v) { return v; }
__device__ __forceinline__ double sum_of(double2 v) { return v.x + v.y; }
template <class V>
__device__ __forceinline__ V splat(double v);
template <>
__device__ __forceinline__ double splat<double>(double v) { return v; }
template <>
__device__ __forceinline__ double2 splat<double2>(double v) { return make_double2(v, v); }
__device__ __forceinline__ double axpy(double y, double s, double z) { return y + s * z; }
__device__ __forceinline__ double2 axpy(double2 y, double s, double2 z) { return make_double2(y.x + s * z.x, y.y + s * z.y); }

#define PERFMODEL_STREAM_LOOP(BODY)                                                              \
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;                                \
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;                            \
  _Pragma("unroll 1") for (; i + (U - 1) * stride < n; i += U * stride) {                        \
    _Pragma("unroll") for (int k = 0; k < U; ++k) { const std::size_t j = i + k * stride; BODY; } \
  }                                                                                              \
  for (; i < n; i += stride) {                                                                   \
    const std::size_t j = i;                                                                     \
    BODY;                                                                                        \
  }

template <class V, int U>
__global__ void stream_read(const V* __restrict__ a, std::size_t n, double* total) {
  double sum = 0;
  PERFMODEL_STREAM_LOOP(sum += sum_of(a[j]))
  accumulate_block_sum(sum, total);
}
template <class V, int U>
__global__ void stream_write(V* __restrict__ c, std::size_t n, double v) {
  const V value = splat<V>(v);
  PERFMODEL_STREAM_LOOP(c[j] = value)
}
template <class V, int U>
__global__ void stream_copy(const V* __restrict__ a, V* __restrict__ c, std::size_t n) {
  PERFMODEL_STREAM_LOOP(c[j] = a[j])
}
template <class V, int U>
__global__ void stream_triad(V* __restrict__ x, const V* __restrict__ y, const V* __restrict__ z, std::size_t n, double s) {
  PERFMODEL_STREAM_LOOP(x[j] = axpy(y[j], s, z[j]))
}
#undef PERFMODEL_STREAM_LOOP

// The four STREAM kernels of one (element type, unroll) variant, on double arrays of n elements.
struct StreamKernels {
  std::function<void(cudaStream_t, int, int, const double*, std::size_t, double*)> read;
  std::function<void(cudaStream_t, int, int, double*, std::size_t, double)> write;
  std::function<void(cudaStream_t, int, int, const double*, double*, std::size_t)> copy;
  std::function<void(cudaStream_t, int, int, double*, const double*, const double*, std::size_t, double)> triad;
};

template <class V, int U>
StreamKernels stream_kernels() {
  constexpr std::size_t kPer = sizeof(V) / sizeof(double);
  StreamKernels k;
  k.read = [](cudaStream_t s, int g, int b, const double* a, std::size_t n, double* total) {
    stream_read<V, U><<<g, b, 0, s>>>(reinterpret_cast<const V*>(a), n / kPer, total);
  };
  k.write = [](cudaStream_t s, int g, int b, double* c, std::size_t n, double v) {
    stream_write<V, U><<<g, b, 0, s>>>(reinterpret_cast<V*>(c), n / kPer, v);
  };
  k.copy = [](cudaStream_t s, int g, int b, const double* a, double* c, std::size_t n) {
    stream_copy<V, U><<<g, b, 0, s>>>(reinterpret_cast<const V*>(a), reinterpret_cast<V*>(c), n / kPer);
  };
  k.triad = [](cudaStream_t s, int g, int b, double* x, const double* y, const double* z, std::size_t n, double v) {
    stream_triad<V, U><<<g, b, 0, s>>>(reinterpret_cast<V*>(x), reinterpret_cast<const V*>(y), reinterpret_cast<const V*>(z),
                                       n / kPer, v);
  };
  return k;
}

class Checker {
 public:
  Checker() : counter_(sizeof(unsigned long long)) {}
  void expect_all(const double* p, std::size_t n, double expected, const std::string& what) {
    PERFMODEL_CUDA_CHECK(cudaMemset(counter_.get(), 0, sizeof(unsigned long long)));
    count_mismatches<<<1024, 256>>>(p, n, expected, 1e-12, counter_.as<unsigned long long>());
    PERFMODEL_CUDA_CHECK_LAUNCH();
    unsigned long long bad = 0;
    PERFMODEL_CUDA_CHECK(cudaMemcpy(&bad, counter_.get(), sizeof bad, cudaMemcpyDeviceToHost));
    if (bad) throw RuntimeFailure(what + ": " + std::to_string(bad) + " of " + std::to_string(n) + " elements are wrong");
  }

 private:
  DeviceBuffer counter_;
};

struct LaunchShape {
  StreamKernels kernels;
  int blocks = 0, threads = 0;
  Params params;
};

class DramStreamBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.dram"; }
  std::string description() const override {
    return "DRAM read / write / copy / triad ceilings on 2 GiB arrays (BabelStream-style, every element checked)";
  }

 protected:
  void measure() override {
    const std::size_t n = std::size_t{1} << (quick() ? 27 : 28);
    const std::size_t bytes = n * sizeof(double);
    DeviceBuffer a(bytes), b(bytes), c(bytes), total(sizeof(double));
    Stream stream;
    Checker check;
    fill<<<1024, 256>>>(a.as<double>(), n, kInitA);
    fill<<<1024, 256>>>(b.as<double>(), n, kInitB);
    fill<<<1024, 256>>>(c.as<double>(), n, kInitC);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<LaunchShape> shapes;
    for (int threads : {256, 1024})
      shapes.push_back({stream_kernels<double, 1>(), static_cast<int>((n + threads - 1) / threads), threads,
                        {{"one_per_thread", 1}, {"threads", threads}, {"vector", 1}, {"unroll", 1}}});
    for (auto [per_sm, threads] : {std::pair{2, 1024}, {4, 512}, {8, 256}})
      shapes.push_back({stream_kernels<double, 1>(), sms() * per_sm, threads,
                        {{"blocks_per_sm", per_sm}, {"threads", threads}, {"vector", 1}, {"unroll", 1}}});
    for (auto [per_sm, threads] : {std::pair{2, 1024}, {4, 512}, {8, 256}})
      shapes.push_back({stream_kernels<double2, 2>(), sms() * per_sm, threads,
                        {{"blocks_per_sm", per_sm}, {"threads", threads}, {"vector", 2}, {"unroll", 2}}});
    for (auto [per_sm, threads] : {std::pair{2, 1024}, {4, 512}})
      shapes.push_back({stream_kernels<double2, 4>(), sms() * per_sm, threads,
                        {{"blocks_per_sm", per_sm}, {"threads", threads}, {"vector", 2}, {"unroll", 4}}});
    const int r = reps(20, 5);
    const double nd = static_cast<double>(n);
    double best[4] = {0, 0, 0, 0};
    for (const LaunchShape& shape : shapes) {
      cudaStream_t s = stream.get();
      double* sum = total.as<double>();
      // read: the sum of every repetition (and of the warm-up) lands in one counter
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(double), s));
      auto t = time_repetitions(s, r, [&](int) { shape.kernels.read(s, shape.blocks, shape.threads, a.as<double>(), n, sum); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      expect_close(read_device_double(sum), (r + 1) * nd * kInitA, 1e-9, "dram read");
      record("ceiling.dram_read", shape.params, t, nd * 8);
      best[0] = std::max(best[0], median_rate(t, nd * 8));

      t = time_repetitions(s, r, [&](int) { shape.kernels.write(s, shape.blocks, shape.threads, c.as<double>(), n, kWriteValue); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check.expect_all(c.as<double>(), n, kWriteValue, "dram write");
      record("ceiling.dram_write", shape.params, t, nd * 8);
      best[1] = std::max(best[1], median_rate(t, nd * 8));

      t = time_repetitions(s, r, [&](int) { shape.kernels.copy(s, shape.blocks, shape.threads, a.as<double>(), c.as<double>(), n); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check.expect_all(c.as<double>(), n, kInitA, "dram copy");
      record("ceiling.dram_copy", shape.params, t, nd * 16);
      best[2] = std::max(best[2], median_rate(t, nd * 16));

      // triad writes c's current value (a copy of a) into the formula; a keeps its value for the next shape
      t = time_repetitions(s, r, [&](int) {
        shape.kernels.triad(s, shape.blocks, shape.threads, b.as<double>(), a.as<double>(), c.as<double>(), n, kScalar);
      });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      check.expect_all(b.as<double>(), n, kInitA + kScalar * kInitA, "dram triad");
      record("ceiling.dram_triad", shape.params, t, nd * 24);
      best[3] = std::max(best[3], median_rate(t, nd * 24));
    }
    std::ostringstream out;
    out << "read " << format_rate(best[0]) << ", write " << format_rate(best[1]) << ", copy " << format_rate(best[2])
        << ", triad " << format_rate(best[3]);
    set_summary(out.str());
  }
};

// ================================================================== bandwidth vs bytes in flight
// Warp-contiguous tiling: in each pass over a tile of gridDim·blockDim·U elements, warp w owns
// the U·32 consecutive elements starting at w·32·U and lane l reads elements l, l+32, … of them.
// So the requests in flight are contiguous whether they come from many warps (U = 1) or from a
// few warps with U independent loads each — the bytes in flight differ, the DRAM pattern does not.
template <int U>
struct WarpTiles {
  std::size_t offset;  // this thread's first element within a tile
  std::size_t tile;    // elements per tile
  __device__ WarpTiles()
      : offset((blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32 * 32 * U + threadIdx.x % 32),
        tile(std::size_t{gridDim.x} * blockDim.x * U) {}
};

// Each thread keeps exactly U independent 8-byte loads in flight: the tile loop is not unrolled,
// and a warp cannot issue the next tile's loads before the adds that consume this tile's.
template <int U>
__global__ void read_ilp(const double* __restrict__ a, std::size_t first, std::size_t n, double* total) {
  const WarpTiles<U> tiles;
  const double* p = a + first;
  double sum = 0;
  std::size_t start = 0;
#pragma unroll 1
  for (; start + tiles.tile <= n; start += tiles.tile) {
    double v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = p[start + tiles.offset + 32 * k];
#pragma unroll
    for (int k = 0; k < U; ++k) sum += v[k];
  }
  for (int k = 0; k < U; ++k)
    if (start + tiles.offset + 32 * k < n) sum += p[start + tiles.offset + 32 * k];
  accumulate_block_sum(sum, total);
}

using ReadIlpKernel = void (*)(const double*, std::size_t, std::size_t, double*);
ReadIlpKernel read_ilp_kernel(int ilp) {
  switch (ilp) {
    case 1: return read_ilp<1>;
    case 2: return read_ilp<2>;
    case 4: return read_ilp<4>;
    case 8: return read_ilp<8>;
    case 16: return read_ilp<16>;
    default: throw std::logic_error("no read kernel for this ILP");
  }
}

// The sweep both bytes-in-flight benchmarks run: blocks per SM (powers of two) × threads × loads
// per thread, every block resident at once; the non-power-of-two block sizes are held out of the
// fit. kernel_for(ilp) is the kernel a shape launches; measure(shape) times it and returns its
// samples and the bytes one repetition reads (no samples: the shape does not fit the buffer).
struct InFlightShape {
  int threads, per_sm, ilp;
};
struct ShapeTiming {
  std::vector<double> seconds;
  double bytes = 0;
};

class ConcurrencySweep : public GpuBenchmark {
 protected:
  template <class KernelFor, class Measure>
  void sweep(const std::string& series, int element_bytes, const std::vector<int>& threads_list, const std::vector<int>& ilps,
             KernelFor&& kernel_for, Measure&& measure) {
    const int max_threads = static_cast<int>(device().max_threads_per_multiprocessor);
    const int max_blocks = static_cast<int>(device().max_blocks_per_multiprocessor);
    int configs = 0;
    double best = 0;
    for (int threads : threads_list)
      for (int per_sm = 1; per_sm <= max_blocks && per_sm * threads <= max_threads; per_sm *= 2)
        for (int ilp : ilps) {
          if (resident_blocks(kernel_for(ilp), threads) < per_sm) continue;  // not all blocks would be in flight at once
          const ShapeTiming t = measure(InFlightShape{threads, per_sm, ilp});
          if (t.seconds.empty()) continue;
          const bool power_of_two = (threads & (threads - 1)) == 0;
          record(series,
                 {{"blocks_per_sm", per_sm}, {"threads", threads}, {"ilp", ilp}, {"element_bytes", element_bytes}, {"sms", sms()},
                  {"holdout", power_of_two ? 0 : 1}},
                 t.seconds, t.bytes);
          best = std::max(best, median_rate(t.seconds, t.bytes));
          ++configs;
        }
    set_summary(std::to_string(configs) + " configurations, best " + format_rate(best));
  }
};

class ConcurrencyBenchmark final : public ConcurrencySweep {
 public:
  std::string key() const override { return "gpu.dram.concurrency"; }
  std::string description() const override {
    return "DRAM read bandwidth vs bytes in flight (blocks/SM x threads x independent loads); Little's-law fit";
  }

 protected:
  void measure() override {
    const std::size_t n = std::size_t{1} << 28;  // 2 GiB of doubles; each repetition reads a fresh window
    DeviceBuffer a(n * sizeof(double)), total(sizeof(double));
    fill<<<1024, 256>>>(a.as<double>(), n, 1.0);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    sweep("dram.concurrency", 8,
          quick() ? std::vector<int>{32, 128, 512, 96, 384} : std::vector<int>{32, 64, 128, 256, 512, 1024, 96, 192, 384, 768},
          quick() ? std::vector<int>{1, 4, 16} : std::vector<int>{1, 2, 4, 8, 16}, read_ilp_kernel, [&](const InFlightShape& shape) {
            const ReadIlpKernel kernel = read_ilp_kernel(shape.ilp);
            const double in_flight = static_cast<double>(sms()) * shape.per_sm * shape.threads * shape.ilp * sizeof(double);
            // Enough bytes for ~3 ms at the rate Little's law allows with ~1 µs latency, more than 4× L2.
            const double l2 = device().l2_cache_bytes;
            const std::size_t count =
                static_cast<std::size_t>(std::clamp(in_flight / 1e-6 * 3e-3, 4 * l2, static_cast<double>(n) * 8 / 2) / 8);
            const std::size_t windows = n / count;
            PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
            ShapeTiming t;
            t.seconds = time_repetitions(s, r, [&](int rep) {
              const std::size_t first = static_cast<std::size_t>(rep + 1) % windows * count;
              kernel<<<sms() * shape.per_sm, shape.threads, 0, s>>>(a.as<double>(), first, count, total.as<double>());
            });
            PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
            expect_close(read_device_double(total.as<double>()), static_cast<double>(count) * (r + 1), 1e-9, "dram concurrency read");
            t.bytes = static_cast<double>(count) * 8;
            return t;
          });
  }
};

// ================================================================== the same, one line per load
// The access of a tiled matrix-vector or matrix-matrix kernel: each warp-wide load reads one
// 128-byte line (32 floats) of its own row, rows a pitch of kRowPitch floats apart, and the
// U loads a thread keeps in flight are U different rows; a warp walks its rows column by column,
// then moves to its rows of the next band. So the requests in flight are U·warps scattered
// lines, not one contiguous run: the per-warp limit fitted on contiguous reads need not hold.
// Warp w starts its walk at column (w mod 8)·64 and wraps, the staggered start the tiled
// kernels use (kernels/cuda: mv-opt, mm-opt) so that the warps do not all hit one column at once.
constexpr std::size_t kRowPitch = 4096;  // floats (16 KiB): mv-opt's row at n = 4096

template <int U>
__device__ __forceinline__ double read_row_columns(const float* row, std::size_t from, std::size_t to) {
  double sum = 0;
#pragma unroll 1
  for (std::size_t c = from; c < to; c += 32) {
    float v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = row[k * kRowPitch + c];
#pragma unroll
    for (int k = 0; k < U; ++k) sum += v[k];
  }
  return sum;
}

template <int U>
__global__ void read_rows(const float* __restrict__ a, std::size_t bands, std::size_t cols, double* total) {
  const std::size_t warps = std::size_t{gridDim.x} * blockDim.x / 32;
  const std::size_t warp = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32;
  const std::size_t start = (warp % 8) * 64 % cols;
  const unsigned lane = threadIdx.x % 32;
  double sum = 0;
#pragma unroll 1
  for (std::size_t band = 0; band < bands; ++band) {
    const float* row = a + ((band * warps + warp) * U) * kRowPitch + lane;
    sum += read_row_columns<U>(row, start, cols) + read_row_columns<U>(row, 0, start);
  }
  accumulate_block_sum(sum, total);
}

using ReadRowsKernel = void (*)(const float*, std::size_t, std::size_t, double*);
ReadRowsKernel read_rows_kernel(int ilp) {
  switch (ilp) {
    case 1: return read_rows<1>;
    case 2: return read_rows<2>;
    case 4: return read_rows<4>;
    case 8: return read_rows<8>;
    case 16: return read_rows<16>;
    case 32: return read_rows<32>;
    default: throw std::logic_error("no row-read kernel for this ILP");
  }
}

class RowConcurrencyBenchmark final : public ConcurrencySweep {
 public:
  std::string key() const override { return "gpu.dram.concurrency.rows"; }
  std::string description() const override {
    return "DRAM read bandwidth vs bytes in flight when every warp-wide load is one line of its own row (tiled Mv/MM access)";
  }

 protected:
  void measure() override {
    const std::size_t max_rows = std::size_t{1} << 17;  // 2 GiB of floats at the 16 KiB pitch
    DeviceBuffer a(max_rows * kRowPitch * sizeof(float)), total(sizeof(double));
    fill_float<<<4096, 256>>>(a.as<float>(), max_rows * kRowPitch, 1.0f);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    L2Flush flush(device());
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    sweep("dram.concurrency_rows", 4,
          quick() ? std::vector<int>{32, 128, 512, 96} : std::vector<int>{32, 64, 128, 256, 512, 1024, 96, 192, 384},
          quick() ? std::vector<int>{1, 4, 16} : std::vector<int>{1, 2, 4, 8, 16, 32}, read_rows_kernel, [&](const InFlightShape& shape) {
            const ReadRowsKernel kernel = read_rows_kernel(shape.ilp);
            const std::size_t rows = static_cast<std::size_t>(sms()) * shape.per_sm * shape.threads / 32 * shape.ilp;  // one band
            if (rows > max_rows) return ShapeTiming{};
            const double in_flight = static_cast<double>(rows) * 128;
            // ~2 ms at the rate Little's law allows with ~1 µs latency, at least 64 MiB, at most the buffer.
            const double target = std::clamp(in_flight / 1e-6 * 2e-3, 64.0 * (1 << 20), 1024.0 * (1 << 20));
            const double band_bytes = static_cast<double>(rows) * kRowPitch * sizeof(float);
            std::size_t bands = 1, cols = kRowPitch;
            if (band_bytes >= target)
              cols = std::max<std::size_t>(32, static_cast<std::size_t>(target / (rows * sizeof(float))) / 32 * 32);
            else
              bands = std::min(max_rows / rows, static_cast<std::size_t>(std::ceil(target / band_bytes)));
            const double elements = static_cast<double>(bands) * rows * cols;
            PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
            ShapeTiming t;
            t.seconds = time_repetitions(
                s, r, [&](int) { kernel<<<sms() * shape.per_sm, shape.threads, 0, s>>>(a.as<float>(), bands, cols, total.as<double>()); },
                [&](int) { flush.enqueue(s); });
            PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
            expect_close(read_device_double(total.as<double>()), elements * (r + 1), 1e-9, "dram row-concurrency read");
            t.bytes = elements * sizeof(float);
            return t;
          });
  }
};

// ================================================================== L2 and the hierarchy
// Reads `count` elements of a window of `footprint` elements (a power of two), wrapping.
template <int ILP>
__global__ void read_window(const double* __restrict__ a, std::size_t footprint_mask, std::size_t count, double* total) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  double sum = 0;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
#pragma unroll 1
  for (; i + (ILP - 1) * stride < count; i += ILP * stride) {
    double v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = a[(i + k * stride) & footprint_mask];
#pragma unroll
    for (int k = 0; k < ILP; ++k) sum += v[k];
  }
  for (; i < count; i += stride) sum += a[i & footprint_mask];
  accumulate_block_sum(sum, total);
}

class CacheBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.cache"; }
  std::string description() const override {
    return "L2 read ceiling and read bandwidth vs working set (256 KiB ... 1 GiB)";
  }

 protected:
  void measure() override {
    const std::size_t max_footprint = std::size_t{1} << 27;  // elements (1 GiB)
    DeviceBuffer a(max_footprint * sizeof(double)), total(sizeof(double));
    fill<<<1024, 256>>>(a.as<double>(), max_footprint, 1.0);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(7, 3);
    const std::size_t count = std::size_t{1} << (quick() ? 26 : 27);  // elements read per repetition
    auto run = [&](const std::string& series, std::size_t footprint, int per_sm, int threads, Params params) {
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
      const auto t = time_repetitions(s, r, [&](int) {
        read_window<8><<<sms() * per_sm, threads, 0, s>>>(a.as<double>(), footprint - 1, count, total.as<double>());
      });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      expect_close(read_device_double(total.as<double>()), static_cast<double>(count) * (r + 1), 1e-9, series);
      params["footprint_bytes"] = static_cast<double>(footprint * 8);
      record(series, params, t, static_cast<double>(count) * 8);
      return median_rate(t, static_cast<double>(count) * 8);
    };
    // Hierarchy: one good shape, footprint doubling.
    std::ostringstream out;
    for (std::size_t footprint = std::size_t{1} << 15; footprint <= max_footprint; footprint *= quick() ? 4 : 2)
      run("hierarchy.read", footprint, 8, 256, {{"blocks_per_sm", 8}, {"threads", 256}});
    // L2 ceiling: a working set of L2/4 (the two halves of a partitioned L2 both hold it), three shapes.
    std::size_t l2_footprint = 1;
    while (l2_footprint * 2 * 8 <= static_cast<std::size_t>(device().l2_cache_bytes / 4)) l2_footprint *= 2;
    double best = 0;
    for (auto [per_sm, threads] : {std::pair{8, 256}, {4, 512}, {2, 1024}})
      best = std::max(best, run("ceiling.l2_read", l2_footprint, per_sm, threads, {{"blocks_per_sm", per_sm}, {"threads", threads}}));
    set_summary("L2 read " + format_rate(best) + " at " + format_bytes(static_cast<double>(l2_footprint * 8)));
  }
};

// ================================================================== L2 write-back
// A saturating read of N bytes after the L2 was flushed twice over by reads (clean) or by a
// memset (every line dirty, as the validation runner leaves it): the difference is what writing
// the dirty lines back costs the read. Sizes from L2/8 to 4·L2; every other one held out.
class L2WriteBackBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.l2.writeback"; }
  std::string description() const override {
    return "what a dirty L2 (after a memset) costs the reads after it, against a clean one, L2/8 ... 4x L2";
  }

 protected:
  void measure() override {
    const double l2 = device().l2_cache_bytes > 0 ? device().l2_cache_bytes : 64e6;
    const std::size_t flush_n = static_cast<std::size_t>(2 * l2) / 8 / 16 * 16;  // doubles
    const std::size_t max_n = static_cast<std::size_t>(4 * l2) / 8 / 16 * 16;
    DeviceBuffer src(max_n * sizeof(double)), flush(flush_n * sizeof(double)), total(sizeof(double)), junk(sizeof(double));
    fill<<<1024, 256>>>(src.as<double>(), max_n, 1.0);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    Stream stream;
    cudaStream_t s = stream.get();
    const StreamKernels k = stream_kernels<double2, 2>();
    const int blocks = sms() * 4, threads = 512, r = reps(9, 3);
    const double fractions[] = {0.125, 0.1875, 0.25, 0.375, 0.5, 0.75, 1, 1.5, 2, 3, 4};
    std::ostringstream out;
    for (std::size_t i = 0; i < std::size(fractions); ++i) {
      const std::size_t n = std::min(max_n, static_cast<std::size_t>(fractions[i] * l2) / 8 / 16 * 16);
      const double bytes = static_cast<double>(n) * 8;
      double seconds[2] = {0, 0};
      for (int dirty : {0, 1}) {
        PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
        const auto t = time_repetitions(
            s, r, [&](int) { k.read(s, blocks, threads, src.as<double>(), n, total.as<double>()); },
            [&](int rep) {
              if (dirty) PERFMODEL_CUDA_CHECK(cudaMemsetAsync(flush.get(), (rep + 2) & 0xff, flush.bytes(), s));
              else k.read(s, blocks, threads, flush.as<double>(), flush_n, junk.as<double>());
            });
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        expect_close(read_device_double(total.as<double>()), static_cast<double>(n) * (r + 1), 1e-9, "l2 write-back read");
        record("l2.writeback", {{"read_bytes", bytes}, {"dirty", dirty}, {"holdout", static_cast<double>(i % 2)}}, t, bytes);
        seconds[dirty] = summarize(t).median;
      }
      if (fractions[i] == 1 || fractions[i] == 4)
        out << format_bytes(bytes) << ": clean " << format_seconds(seconds[0]) << ", dirty " << format_seconds(seconds[1]) << "  ";
    }
    set_summary(out.str());
  }
};

// ================================================================== latency (pointer chase)
// Reads every word once, so a footprint that fits the L2 is resident before the chase starts.
__global__ void touch(const unsigned* __restrict__ p, std::size_t n, unsigned* sink) {
  unsigned x = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) x ^= p[i];
  if (x == 0xdeadbeefu) *sink = x;
}

__global__ void chase(const unsigned* __restrict__ next, unsigned* cursor, int steps) {
  unsigned i = *cursor;
  for (int k = 0; k < steps; ++k) i = next[i];
  *cursor = i;
}

class LatencyBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.latency"; }
  std::string description() const override {
    return "dependent-load latency by pointer chase (one thread, random 128-byte lines) vs footprint";
  }

 protected:
  void measure() override {
    constexpr unsigned kLineWords = 32;  // 128 B lines of 4-byte indices
    const std::size_t max_bytes = std::size_t{1} << (quick() ? 29 : 30);
    DeviceBuffer next(max_bytes), cursor(2 * sizeof(unsigned));
    Stream stream;
    cudaStream_t s = stream.get();
    std::mt19937 rng(12345);
    const int r = reps(5, 3);
    const int steps_short = 2048, steps_long = 6144;
    std::ostringstream out;
    for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= quick() ? 4 : 2) {
      // A random cycle through every line of the footprint.
      const std::size_t lines = bytes / 128;
      std::vector<unsigned> order(lines);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin() + 1, order.end(), rng);
      std::vector<unsigned> host(bytes / 4, 0);
      for (std::size_t k = 0; k < lines; ++k)
        host[order[k] * kLineWords] = order[(k + 1) % lines] * kLineWords;
      // On `s`, in order: a plain cudaMemcpy/cudaMemset runs on the legacy default stream, which
      // does not order against a non-blocking stream (a chase once started from a stale cursor).
      PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(next.get(), host.data(), bytes, cudaMemcpyHostToDevice, s));
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(cursor.get(), 0, sizeof(unsigned), s));
      touch<<<sms() * 4, 256, 0, s>>>(next.as<unsigned>(), bytes / 4, cursor.as<unsigned>() + 1);
      PERFMODEL_CUDA_CHECK_LAUNCH();
      double per_load[2] = {0, 0};
      int which = 0;
      for (int steps : {steps_short, steps_long}) {
        const auto t = time_repetitions(s, r, [&](int) { chase<<<1, 1, 0, s>>>(next.as<unsigned>(), cursor.as<unsigned>(), steps); });
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        record("latency.chase", {{"footprint_bytes", static_cast<double>(bytes)}, {"steps", steps}}, t, steps);
        per_load[which++] = summarize(t).median;
      }
      // The walk must have followed the cycle: its position after all steps is known on the host.
      unsigned got = 0;
      PERFMODEL_CUDA_CHECK(cudaMemcpy(&got, cursor.get(), sizeof got, cudaMemcpyDeviceToHost));
      const std::size_t total_steps = static_cast<std::size_t>(r + 1) * (steps_short + steps_long);
      std::size_t position = 0;
      for (std::size_t k = 0; k < lines; ++k)
        if (order[k] == 0) position = k;
      if (got != order[(position + total_steps) % lines] * kLineWords)
        throw RuntimeFailure("latency chase: the walk ended at the wrong element");
      if (bytes == 16384 || bytes == (std::size_t{1} << 23) || bytes == max_bytes)
        out << format_bytes(static_cast<double>(bytes)) << " "
            << format_seconds((per_load[1] - per_load[0]) / (steps_long - steps_short)) << "  ";
    }
    set_summary(out.str());
  }
};

// ================================================================== partition camping and strides
// Chunk c of `granule` bytes sits at c·stride + (c mod slots_used)·granule: all chunks confined to
// `slots_used` (a power of two; slots_mask = slots_used − 1) of the stride/granule slots of each
// period. Reads 16-byte vectors, kPartitionLoads in flight per thread (warp-contiguous tiles).
constexpr int kPartitionLoads = 4;
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__global__ void partition_read(const float4* __restrict__ base, std::size_t chunks, unsigned granule_vec_log2,
                               unsigned stride_vec_log2, unsigned slots_mask, double* total) {
  const WarpTiles<kPartitionLoads> tiles;
  const std::size_t n = chunks << granule_vec_log2;
  const std::size_t within_mask = (std::size_t{1} << granule_vec_log2) - 1;
  auto address = [&](std::size_t t) {
    const std::size_t c = t >> granule_vec_log2;
    return (c << stride_vec_log2) + ((c & slots_mask) << granule_vec_log2) + (t & within_mask);
  };
  float sum = 0;
  std::size_t start = 0;
#pragma unroll 1
  for (; start + tiles.tile <= n; start += tiles.tile) {
    float4 v[kPartitionLoads];
#pragma unroll
    for (int k = 0; k < kPartitionLoads; ++k) v[k] = base[address(start + tiles.offset + 32 * k)];
#pragma unroll
    for (int k = 0; k < kPartitionLoads; ++k) sum += sum4(v[k]);
  }
  for (int k = 0; k < kPartitionLoads; ++k)
    if (start + tiles.offset + 32 * k < n) sum += sum4(base[address(start + tiles.offset + 32 * k)]);
  accumulate_block_sum(sum, total);
}

// Lane l of a warp reads element (32·w + l)·stride: sectors per request grow with the stride.
constexpr int kStrideLoads = 8;
__global__ void strided_read(const float* __restrict__ base, std::size_t n, unsigned stride, double* total) {
  const WarpTiles<kStrideLoads> tiles;
  float sum = 0;
  std::size_t start = 0;
#pragma unroll 1
  for (; start + tiles.tile <= n; start += tiles.tile) {
    float v[kStrideLoads];
#pragma unroll
    for (int k = 0; k < kStrideLoads; ++k) v[k] = base[(start + tiles.offset + 32 * k) * stride];
#pragma unroll
    for (int k = 0; k < kStrideLoads; ++k) sum += v[k];
  }
  for (int k = 0; k < kStrideLoads; ++k)
    if (start + tiles.offset + 32 * k < n) sum += base[(start + tiles.offset + 32 * k) * stride];
  accumulate_block_sum(sum, total);
}

unsigned log2_exact(std::size_t v) {
  unsigned k = 0;
  while ((std::size_t{1} << k) < v) ++k;
  return k;
}

class PartitionBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.dram.partition"; }
  std::string description() const override {
    return "partition/channel camping (chunks confined to 1..all slots of a period, granule x stride sweep) and strided reads";
  }

 protected:
  void measure() override {
    const std::size_t footprint = std::size_t{1} << (quick() ? 31 : 33);  // bytes
    DeviceBuffer buffer(footprint), total(sizeof(double));
    fill_float<<<4096, 256>>>(buffer.as<float>(), footprint / 4, 1.0f);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    L2Flush flush(device());
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    const int blocks = sms() * 8, threads = 256;
    double worst = 1, worst_granule = 0, worst_stride = 0;
    const std::vector<std::pair<std::size_t, std::size_t>> cases =
        quick() ? std::vector<std::pair<std::size_t, std::size_t>>{{256, 4096}, {4096, 65536}}
                : std::vector<std::pair<std::size_t, std::size_t>>{{256, 4096},     {256, 32768},    {1024, 16384},
                                                                   {1024, 131072},  {4096, 65536},   {4096, 524288},
                                                                   {32768, 524288}, {32768, 4194304}};
    for (const auto& granule_stride : cases) {
      const std::size_t granule = granule_stride.first, stride = granule_stride.second;
      const std::size_t chunks = footprint / stride;
      const double bytes = static_cast<double>(chunks * granule);
      double camped = 0, spread = 0;
      for (std::size_t slots = 1; slots <= stride / granule; slots *= 2) {
        PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
        const auto t = time_repetitions(
            s, r,
            [&](int) {
              partition_read<<<blocks, threads, 0, s>>>(reinterpret_cast<const float4*>(buffer.get()), chunks,
                                                        log2_exact(granule / 16), log2_exact(stride / 16),
                                                        static_cast<unsigned>(slots - 1), total.as<double>());
            },
            [&](int) { flush.enqueue(s); });
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        expect_close(read_device_double(total.as<double>()), bytes / 4 * (r + 1), 1e-9, "partition read");
        record("dram.partition",
               {{"granule_bytes", static_cast<double>(granule)}, {"stride_bytes", static_cast<double>(stride)},
                {"slots_used", static_cast<double>(slots)}},
               t, bytes);
        const double rate = median_rate(t, bytes);
        if (slots == 1) camped = rate;
        spread = rate;
      }
      if (spread / camped > worst) worst = spread / camped, worst_granule = static_cast<double>(granule), worst_stride = static_cast<double>(stride);
    }
    // Strided 4-byte reads: the same useful bytes at element strides 1 … 32.
    const std::size_t useful = std::size_t{1} << (quick() ? 24 : 26);  // elements
    for (unsigned stride = 1; stride <= 32; stride += (quick() ? 7 : 1)) {
      if (useful * stride * 4 > footprint) break;
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
      const auto t = time_repetitions(
          s, r, [&](int) { strided_read<<<blocks, threads, 0, s>>>(buffer.as<float>(), useful, stride, total.as<double>()); },
          [&](int) { flush.enqueue(s); });
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      expect_close(read_device_double(total.as<double>()), static_cast<double>(useful) * (r + 1), 1e-9, "strided read");
      record("dram.stride", {{"stride_elements", stride}, {"element_bytes", 4}}, t, static_cast<double>(useful) * 4);
    }
    std::ostringstream out;
    out << "worst camping penalty " << worst;
    if (worst_stride > 0) out << " (granule " << format_bytes(worst_granule) << ", stride " << format_bytes(worst_stride) << ")";
    set_summary(out.str());
  }
};


// Random 4-byte reads over a table far beyond the L2 (a gather's table lookups), measured as a
// user gather issues them: thread t reads element hash(t·R + k) mod n, k < R (R = 1, as
// out[i] = data[idx[i]] does, and R = 4 independent reads a thread), the hash a 32-bit integer
// mix (the finalizer of Appleby's MurmurHash3), so no index array touches DRAM and every read is
// one sector of its own at an address the DRAM cannot anticipate; each block adds its values to
// one of kRandomSlots sums (checked: every read returns 1). Each table is read at two or more
// read counts (grids of many waves), and the fit (gpu.dram_random) takes the rate from the slope
// of the median time over the DRAM sectors the derivation's reuse rule counts for each count:
// a launch's fixed costs (the launch, the grid's ramp-up and tail, the write-back of the L2
// flush's dirty lines) are the same at every count and drop out of the slope, where a single
// launch's time/reads charged them to every read. The first form of this benchmark (one full
// grid, 16 reads a thread, about 0.17 ms a launch) came out 15–20 % slower than the random
// gathers it priced (the generalisation suite's half F, H100, 2026-11-27). The intercept is kept
// as the fixed part of a launch; it is not charged per read.
// Random read-modify-writes (y[j] += 1 at j a hashed permutation of the threads, so no two
// threads of a launch touch one word; checked by the table's sum): each sector read, then
// written back whole, the same slope over the same sectors (gpu.dram_random_rmw).
// Random writes (y[j] = v at j a hashed permutation of the threads, no read of the sector first:
// a scatter's stores): each store leaves its sector partly written in L2 (at most a quarter of
// the table's words a launch, so almost no sector is completed), and that sector's write-back
// costs whatever the DRAM does for a partial sector (a fetch and merge where its ECC words are
// wider than the bytes written, or a masked write), measured rather than composed; the same slope over the same sectors
// (gpu.dram_random_write). Checked: every word of a count's last launch holds the value its
// thread wrote (a gather of those words after the timing).
// Series `dram.random`: amount = reads; params footprint_bytes (a power of two), reads,
// element_bytes (4), reads_per_thread. Series `dram.random_rmw` and `dram.random_write`: amount =
// read-modify-writes or writes; params footprint_bytes, reads (the count), element_bytes.
constexpr int kRandomSlots = 4096;  // partial sums (spread so that the blocks' atomics do not queue on one word)

__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

// A bijection of [0, 2^bits): xor, odd multiplications and right xorshifts, each invertible
// modulo 2^bits, so distinct threads get distinct words.
__device__ __forceinline__ unsigned permute_bits(unsigned x, unsigned bits, unsigned mask, unsigned salt) {
  const unsigned half = bits / 2;
  x = (x ^ salt) & mask;
  x = (x * 0x9e3779b1u) & mask;
  x ^= x >> half;
  x = (x * 0x85ebca6bu) & mask;
  x ^= x >> (half + 1);
  x = (x * 0xc2b2ae35u) & mask;
  x ^= x >> half;
  return x;
}

template <int R>
__global__ void random_gather(const float* __restrict__ base, unsigned mask, unsigned salt, double* slots) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  float v[R];
#pragma unroll
  for (int k = 0; k < R; ++k) v[k] = base[mix32((tid * R + k) ^ salt) & mask];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < R; ++k) sum += v[k];
  const double block = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(&slots[blockIdx.x % kRandomSlots], block);
}

__global__ void random_rmw(float* __restrict__ base, unsigned bits, unsigned mask, unsigned salt) {
  const unsigned j = permute_bits(blockIdx.x * blockDim.x + threadIdx.x, bits, mask, salt);
  base[j] = base[j] + 1.0f;
}

// The value thread t stores in a launch with `salt` (checked by check_random_write).
__device__ __forceinline__ unsigned written_value(unsigned t, unsigned salt) { return mix32(t ^ salt) | 1u; }

__global__ void random_write(unsigned* __restrict__ base, unsigned bits, unsigned mask, unsigned salt) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  base[permute_bits(t, bits, mask, salt)] = written_value(t, salt);
}

// Adds to *total the number of threads of the launch with `salt` whose word does not hold its value.
__global__ void check_random_write(const unsigned* __restrict__ base, unsigned bits, unsigned mask, unsigned salt, double* total) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  accumulate_block_sum(base[permute_bits(t, bits, mask, salt)] == written_value(t, salt) ? 0.0 : 1.0, total);
}

__global__ void sum_table(const float* __restrict__ p, std::size_t n, double* total) {
  double local = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) local += p[i];
  accumulate_block_sum(local, total);
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  return sxx > 0 ? sxy / sxx : 0;
}

class RandomReadBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.dram.random"; }
  std::string description() const override {
    return "random 4-byte reads, read-modify-writes and writes (one sector each) over tables of 128 MiB to 4 GiB, far beyond the L2; "
           "rate from the slope over read counts";
  }

 protected:
  void measure() override {
    // Tables that fit in a quarter of the device memory (every GPU this targets holds 1 GiB) and
    // exceed twice the L2; 128 MiB (full run) is the smallest table a random gather of the
    // generalisation suite reads beyond the L2 (gather_random_32m), where the reuse rule's L2 hits
    // weigh most.
    std::vector<int> log2_footprints;
    for (const int log2_bytes : quick() ? std::vector<int>{28, 30} : std::vector<int>{27, 28, 30, 32})
      if ((std::ldexp(1.0, log2_bytes) * 4 <= device().global_memory_bytes || log2_bytes <= 30) &&
          std::ldexp(1.0, log2_bytes) > 2 * device().l2_cache_bytes)
        log2_footprints.push_back(log2_bytes);
    if (log2_footprints.empty()) throw RuntimeFailure("gpu.dram.random: no table of 256 MiB or 1 GiB exceeds twice this GPU's L2");
    // Read counts: the random gathers of the generalisation suite read 16 Mi – 64 Mi words a launch.
    const std::vector<double> read_counts = quick() ? std::vector<double>{8 * 1048576.0, 32 * 1048576.0}
                                                    : std::vector<double>{8 * 1048576.0, 24 * 1048576.0, 64 * 1048576.0};
    const std::vector<double> rmw_counts = quick() ? std::vector<double>{4 * 1048576.0, 16 * 1048576.0}
                                                   : std::vector<double>{4 * 1048576.0, 12 * 1048576.0, 32 * 1048576.0};
    // Writes: at most a quarter of the smallest table's words a launch (partial sectors).
    const std::vector<double> write_counts = quick() ? std::vector<double>{2 * 1048576.0, 8 * 1048576.0}
                                                     : std::vector<double>{2 * 1048576.0, 4 * 1048576.0, 8 * 1048576.0};
    const std::vector<int> per_thread = quick() ? std::vector<int>{1} : std::vector<int>{1, 4};
    constexpr int threads = 256;
    DeviceBuffer buffer(std::size_t{1} << log2_footprints.back()), slots(kRandomSlots * sizeof(double)), total(sizeof(double));
    L2Flush flush(device());
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(5, 3);
    std::vector<double> host_slots(kRandomSlots);
    // The DRAM sectors the fit counts for a read count (its slope is what the profile keeps).
    const auto sectors_of = [&](const std::vector<double>& counts, std::size_t footprint) {
      std::vector<double> x;
      for (const double n : counts) x.push_back(random_read_sectors(n, static_cast<double>(footprint), device().l2_cache_bytes));
      return x;
    };
    const auto slot_sum = [&] {
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      PERFMODEL_CUDA_CHECK(cudaMemcpy(host_slots.data(), slots.get(), slots.bytes(), cudaMemcpyDeviceToHost));
      return std::accumulate(host_slots.begin(), host_slots.end(), 0.0);
    };
    std::ostringstream out;
    for (const int log2_bytes : log2_footprints) {
      const std::size_t footprint = std::size_t{1} << log2_bytes, words = footprint / 4;
      const unsigned mask = static_cast<unsigned>(words - 1), bits = static_cast<unsigned>(log2_bytes - 2);
      fill_float<<<4096, 256, 0, s>>>(buffer.as<float>(), words, 1.0f);
      PERFMODEL_CUDA_CHECK_LAUNCH();
      out << (out.tellp() > 0 ? "; " : "") << format_bytes(static_cast<double>(footprint));
      for (const int R : per_thread) {
        std::vector<double> medians;
        for (const double reads : read_counts) {
          const unsigned blocks = static_cast<unsigned>(reads / (threads * R));
          PERFMODEL_CUDA_CHECK(cudaMemsetAsync(slots.get(), 0, slots.bytes(), s));
          const auto t = time_repetitions(
              s, r,
              [&](int rep) {
                const unsigned salt = 0x9e3779b9u * static_cast<unsigned>(rep + 2);
                if (R == 1) random_gather<1><<<blocks, threads, 0, s>>>(buffer.as<float>(), mask, salt, slots.as<double>());
                else random_gather<4><<<blocks, threads, 0, s>>>(buffer.as<float>(), mask, salt, slots.as<double>());
              },
              [&](int) { flush.enqueue(s); });
          expect_close(slot_sum(), reads * (r + 1), 1e-9, "random read");
          record("dram.random", {{"footprint_bytes", static_cast<double>(footprint)}, {"reads", reads}, {"element_bytes", 4}, {"reads_per_thread", R}},
                 t, reads);
          medians.push_back(summarize(t).median);
        }
        const std::vector<double> x = sectors_of(read_counts, footprint);
        const double per_sector = slope(x, medians);
        out << (R == 1 ? " reads " : ", " + std::to_string(R) + " a thread ") << (per_sector > 0 ? 1e-9 / per_sector : 0.0) << " G sectors/s";
        if (R == 1) out << " + " << format_seconds(medians.front() - per_sector * x.front()) << " a launch";
      }
      // Read-modify-writes; the table's sum checks every increment of every launch.
      std::vector<double> medians;
      std::vector<std::vector<double>> times;  // recorded once the table's sum has checked them
      double increments = 0;
      for (const double rmws : rmw_counts) {
        if (rmws > static_cast<double>(words)) throw RuntimeFailure("gpu.dram.random: more read-modify-writes than words in a table");
        const unsigned blocks = static_cast<unsigned>(rmws / threads);
        const auto t = time_repetitions(
            s, r,
            [&](int rep) { random_rmw<<<blocks, threads, 0, s>>>(buffer.as<float>(), bits, mask, 0x7f4a7c15u * static_cast<unsigned>(rep + 3)); },
            [&](int) { flush.enqueue(s); });
        increments += rmws * (r + 1);
        times.push_back(t);
        medians.push_back(summarize(t).median);
      }
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
      sum_table<<<4096, 256, 0, s>>>(buffer.as<float>(), words, total.as<double>());
      PERFMODEL_CUDA_CHECK_LAUNCH();
      PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      expect_close(read_device_double(total.as<double>()), static_cast<double>(words) + increments, 1e-12, "random read-modify-write");
      for (std::size_t i = 0; i < rmw_counts.size(); ++i)
        record("dram.random_rmw", {{"footprint_bytes", static_cast<double>(footprint)}, {"reads", rmw_counts[i]}, {"element_bytes", 4}}, times[i],
               rmw_counts[i]);
      const double per_rmw = slope(sectors_of(rmw_counts, footprint), medians);
      out << ", read-modify-writes " << (per_rmw > 0 ? 1e-9 / per_rmw : 0.0) << " G sectors/s";
      // Writes; the last launch of each count is checked word by word before its times are recorded.
      medians.clear();
      for (const double writes : write_counts) {
        if (4 * writes > static_cast<double>(words)) throw RuntimeFailure("gpu.dram.random: more writes than a quarter of a table's words");
        const unsigned blocks = static_cast<unsigned>(writes / threads);
        const auto salt_of = [](int rep) { return 0x2545f491u * static_cast<unsigned>(rep + 5); };
        const auto t = time_repetitions(
            s, r, [&](int rep) { random_write<<<blocks, threads, 0, s>>>(buffer.as<unsigned>(), bits, mask, salt_of(rep)); },
            [&](int) { flush.enqueue(s); });
        PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total.get(), 0, sizeof(double), s));
        check_random_write<<<blocks, threads, 0, s>>>(buffer.as<unsigned>(), bits, mask, salt_of(r - 1), total.as<double>());
        PERFMODEL_CUDA_CHECK_LAUNCH();
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
        expect_close(read_device_double(total.as<double>()), 0, 0, "random write (words not holding their value)");
        record("dram.random_write", {{"footprint_bytes", static_cast<double>(footprint)}, {"reads", writes}, {"element_bytes", 4}}, t, writes);
        medians.push_back(summarize(t).median);
      }
      const double per_write = slope(sectors_of(write_counts, footprint), medians);
      out << ", writes " << (per_write > 0 ? 1e-9 / per_write : 0.0) << " G sectors/s";
    }
    set_summary(out.str());
  }
};

}  // namespace

void register_gpu_memory_benchmarks(BenchmarkRegistry& registry) {
  registry.add(std::make_unique<DramStreamBenchmark>());
  registry.add(std::make_unique<ConcurrencyBenchmark>());
  registry.add(std::make_unique<RowConcurrencyBenchmark>());
  registry.add(std::make_unique<CacheBenchmark>());
  registry.add(std::make_unique<L2WriteBackBenchmark>());
  registry.add(std::make_unique<LatencyBenchmark>());
  registry.add(std::make_unique<PartitionBenchmark>());
  registry.add(std::make_unique<RandomReadBenchmark>());
}

}  // namespace perfmodel
