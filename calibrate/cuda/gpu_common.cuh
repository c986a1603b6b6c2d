#pragma once
// What every GPU microbenchmark shares: the Benchmark base (availability, device facts, sample
// recording), repetition timing through the timing engine, an L2 flush, and device helpers.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_resources.cuh"
#include "event_timer.cuh"
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

using Params = std::map<std::string, double>;

class GpuBenchmark : public Benchmark {
 public:
  std::optional<std::string> unavailable_reason() const override { return gpu_unavailable_reason(); }

  void run(const CalibrationOptions& options, CalibrationData& data) final {
    if (data.gpu_device.multiprocessors == 0) data.gpu_device = query_gpu_device();
    device_ = data.gpu_device;
    data_ = &data;
    options_ = &options;
    const auto t0 = std::chrono::steady_clock::now();
    measure();
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    data.gpu_wall_s += wall;
    if (options.progress) *options.progress << "     " << key() << ": " << summary_ << " (" << format_seconds(wall) << ")\n";
  }

 protected:
  virtual void measure() = 0;

  bool quick() const { return options_->quick; }
  int reps(int full, int quick_reps) const { return quick() ? quick_reps : full; }
  const GpuDeviceInfo& device() const { return device_; }
  int sms() const { return static_cast<int>(device_.multiprocessors); }

  // One sample per repetition.
  void record(const std::string& series, const Params& params, const std::vector<double>& seconds, double amount) {
    for (std::size_t i = 0; i < seconds.size(); ++i)
      data_->gpu_samples.push_back({series, params, static_cast<int>(i), seconds[i], amount});
  }
  // Median rate of a list of repetition times.
  static double median_rate(const std::vector<double>& seconds, double amount) { return amount / summarize(seconds).median; }

  void set_summary(std::string s) { summary_ = std::move(s); }

 private:
  GpuDeviceInfo device_;
  CalibrationData* data_ = nullptr;
  const CalibrationOptions* options_ = nullptr;
  std::string summary_ = "done";
};

// Device time of `reps` repetitions of enqueue(stream), one event pair each, after one untimed
// warm-up; before(rep) runs (untimed, on the stream) ahead of each repetition.
template <class Enqueue, class Before>
std::vector<double> time_repetitions(cudaStream_t stream, int reps, Enqueue&& enqueue, Before&& before) {
  EventTimer timer;
  before(-1);
  enqueue(-1);
  PERFMODEL_CUDA_CHECK_LAUNCH();
  PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> seconds;
  for (int rep = 0; rep < reps; ++rep) {
    before(rep);
    const BatchTiming t = timer.time(stream, 1, [&] { enqueue(rep); });
    PERFMODEL_CUDA_CHECK_LAUNCH();
    seconds.push_back(t.event_s);
  }
  return seconds;
}

template <class Enqueue>
std::vector<double> time_repetitions(cudaStream_t stream, int reps, Enqueue&& enqueue) {
  return time_repetitions(stream, reps, enqueue, [](int) {});
}

// Evicts the L2 by writing a buffer twice its size (enqueued, untimed).
class L2Flush {
 public:
  explicit L2Flush(const GpuDeviceInfo& d) : scratch_(static_cast<std::size_t>(2 * (d.l2_cache_bytes > 0 ? d.l2_cache_bytes : 64e6))) {}
  void enqueue(cudaStream_t stream) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(scratch_.get(), ++value_ & 0xff, scratch_.bytes(), stream)); }

 private:
  DeviceBuffer scratch_;
  int value_ = 0;
};

// Blocks of `threads` threads of `kernel` that fit one SM at once (0: the kernel cannot run so).
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t dynamic_shared = 0) {
  int blocks = 0;
  PERFMODEL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared));
  return blocks;
}

// Throws RuntimeFailure "what: …" when a measured result is wrong: a time is only trusted after
// the work it timed has been checked.
inline void expect_close(double got, double expected, double rel_tolerance, const std::string& what) {
  const double scale = expected != 0 ? std::abs(expected) : 1.0;
  if (!(std::abs(got - expected) <= rel_tolerance * scale))
    throw RuntimeFailure(what + ": result check failed (got " + std::to_string(got) + ", expected " +
                         std::to_string(expected) + ")");
}

// ------------------------------------------------------------------ device helpers
__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Sum of v over the block, valid in thread 0. Block size a multiple of 32, at most 1024.
__device__ __forceinline__ double block_sum(double v) {
  __shared__ double partial[32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Adds the block's sum of v to *total (one atomic per block).
__device__ __forceinline__ void accumulate_block_sum(double v, double* total) {
  v = block_sum(v);
  if (threadIdx.x == 0) atomicAdd(total, v);
}

// A pinned host copy of one device double, for checks.
inline double read_device_double(const double* p) {
  double v = 0;
  PERFMODEL_CUDA_CHECK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace perfmodel
