// Launch and concurrency microbenchmarks: empty-kernel launch costs (stream, synchronous, CUDA
// graph), the cost of a wave of blocks, copy/compute overlap across copy engines, and how many
// kernels from different streams run at once. The farm predictor stands on these.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "gpu_common.cuh"
#include "registration.hpp"

namespace perfmodel {
namespace {

__global__ void empty_kernel() {}

// Spins for `ns` nanoseconds of the global timer; the same duration however many run at once.
__global__ void spin_for(unsigned long long ns, unsigned long long* done) {
  const unsigned long long start = globaltimer_ns();
  while (globaltimer_ns() - start < ns) {
  }
  if (threadIdx.x == 0) atomicAdd(done, 1ull);
}

// A compute-only kernel (FMA chains, no memory traffic) for the copy/compute overlap test.
__global__ void busy(int iterations, float* out) {
  float a = threadIdx.x * 1e-3f, b = 1.0f - a;
#pragma unroll 8
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, 0.999f, 0.001f);
    b = fmaf(b, 0.999f, 0.001f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

class LaunchBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.launch"; }
  std::string description() const override {
    return "empty-kernel launch cost (back-to-back, launch+sync, CUDA graph) and the cost of a wave of blocks";
  }

 protected:
  void measure() override {
    Stream stream;
    cudaStream_t s = stream.get();
    const int r = reps(10, 4);
    constexpr int kBatch = 1000;
    // Back-to-back launches, device timeline: the host's enqueue rate. On the H100's VM host it
    // wanders between regimes ±15 % apart that last seconds (data/experiments/
    // 2026-11-23-h100-launch-warmup), so batches are timed without pause for a few seconds and the
    // profile keeps their median, not one regime's.
    const auto enqueue_empty = [&] {
      for (int i = 0; i < kBatch; ++i) empty_kernel<<<1, 1, 0, s>>>();
    };
    std::vector<double> t;
    {
      EventTimer timer;
      timer.time(s, 1, enqueue_empty);  // warm-up
      const double window_s = quick() ? 0.5 : 3.0;
      const auto t0 = std::chrono::steady_clock::now();
      while (t.size() < 4 || std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < window_s)
        t.push_back(timer.time(s, 1, enqueue_empty).event_s);
      PERFMODEL_CUDA_CHECK_LAUNCH();
    }
    record("launch.empty", {}, t, kBatch);
    const double per_launch = summarize(t).median / kBatch;

    // Launch + synchronize, host clock: what a blocking caller waits.
    std::vector<double> sync;
    constexpr int kSyncBatch = 50;
    for (int rep = 0; rep <= r; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kSyncBatch; ++i) {
        empty_kernel<<<1, 1, 0, s>>>();
        PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(s));
      }
      if (rep > 0) sync.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    PERFMODEL_CUDA_CHECK_LAUNCH();
    record("launch.sync", {}, sync, kSyncBatch);

    // The same batch as one CUDA graph.
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    PERFMODEL_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kBatch; ++i) empty_kernel<<<1, 1, 0, s>>>();
    PERFMODEL_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    PERFMODEL_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    t = time_repetitions(s, r, [&](int) { PERFMODEL_CUDA_CHECK(cudaGraphLaunch(exec, s)); });
    PERFMODEL_CUDA_CHECK(cudaGraphExecDestroy(exec));
    PERFMODEL_CUDA_CHECK(cudaGraphDestroy(graph));
    record("launch.graph", {}, t, kBatch);
    const double per_graph_kernel = summarize(t).median / kBatch;

    // Launches queued while the GPU is still busy (as after the validation runner's L2 flush):
    // k empty kernels, and k (memset + kernel) pairs, between two events, behind 30 µs of work.
    // The host enqueues ahead, so the GPU's own cost per launch shows until the queue drains.
    DeviceBuffer done(sizeof(unsigned long long)), word(sizeof(int));
    for (int k : {1, 2, 4, 8, 16, 32, 64}) {
      const auto busy_first = [&](int) { spin_for<<<1, 32, 0, s>>>(30000, done.as<unsigned long long>()); };
      t = time_repetitions(s, r, [&](int) {
        for (int i = 0; i < k; ++i) empty_kernel<<<1, 1, 0, s>>>();
      }, busy_first);
      record("launch.queued", {{"launches", k}, {"memset", 0}}, t, k);
      t = time_repetitions(s, r, [&](int) {
        for (int i = 0; i < k; ++i) {
          PERFMODEL_CUDA_CHECK(cudaMemsetAsync(word.get(), 0, sizeof(int), s));
          empty_kernel<<<1, 1, 0, s>>>();
        }
      }, busy_first);
      record("launch.queued", {{"launches", k}, {"memset", 1}}, t, k);
    }

    // Waves of empty 256-thread blocks: t(waves) = base + per_wave · waves.
    const int per_sm = std::min(resident_blocks(empty_kernel, 256), static_cast<int>(device().max_blocks_per_multiprocessor));
    const int wave = sms() * per_sm;
    constexpr int kWaveBatch = 20;
    for (int waves : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
      t = time_repetitions(s, r, [&](int) {
        for (int i = 0; i < kWaveBatch; ++i) empty_kernel<<<wave * waves, 256, 0, s>>>();
      });
      record("launch.waves", {{"waves", waves}, {"blocks", static_cast<double>(wave) * waves}}, t, kWaveBatch);
    }
    std::ostringstream out;
    out << "back-to-back " << format_seconds(per_launch) << ", launch+sync "
        << format_seconds(summarize(sync).median / kSyncBatch) << ", graph " << format_seconds(per_graph_kernel)
        << " per kernel";
    set_summary(out.str());
  }
};

class OverlapBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.overlap"; }
  std::string description() const override {
    return "copy engines: H2D, D2H and a kernel alone vs together; kernels from 1..128 streams at once";
  }

 protected:
  void measure() override {
    const std::size_t bytes = std::size_t{1} << (quick() ? 26 : 28);
    HostBuffer up_host(bytes, HostMemory::pinned), down_host(bytes, HostMemory::pinned);
    DeviceBuffer up_device(bytes), down_device(bytes);
    const int blocks = sms() * 8, threads = 256;
    DeviceBuffer out(static_cast<std::size_t>(blocks) * threads * sizeof(float));
    Stream streams[3];
    Event fork, join[3];
    const int r = reps(5, 3);
    PERFMODEL_CUDA_CHECK(cudaMemset(down_device.get(), 0x5a, bytes));
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());  // the streams below are non-blocking: no implicit order
    std::memset(up_host.get(), 0x33, bytes);

    // Kernel length ≈ one copy's, from a probe.
    int iterations = 1 << 14;
    {
      const auto probe = time_repetitions(streams[2].get(), 1, [&](int) {
        busy<<<blocks, threads, 0, streams[2].get()>>>(iterations, out.as<float>());
      });
      const double copy_estimate = static_cast<double>(bytes) / 50e9;
      iterations = std::max(1024, static_cast<int>(iterations * copy_estimate / probe.front()));
    }
    auto enqueue = [&](int which, cudaStream_t s) {
      if (which == 0) PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(up_device.get(), up_host.get(), bytes, cudaMemcpyHostToDevice, s));
      if (which == 1) PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(down_host.get(), down_device.get(), bytes, cudaMemcpyDeviceToHost, s));
      if (which == 2) busy<<<blocks, threads, 0, s>>>(iterations, out.as<float>());
    };
    // Work on one stream per part, forked from and joined back to stream 0's timeline.
    auto together = [&](const std::vector<int>& parts) {
      cudaStream_t main = streams[0].get();
      return time_repetitions(main, r, [&](int) {
        PERFMODEL_CUDA_CHECK(cudaEventRecord(fork.get(), main));
        for (int p : parts) {
          cudaStream_t s = streams[p].get();
          if (p != 0) PERFMODEL_CUDA_CHECK(cudaStreamWaitEvent(s, fork.get(), 0));
          enqueue(p, s);
          if (p != 0) {
            PERFMODEL_CUDA_CHECK(cudaEventRecord(join[p].get(), s));
            PERFMODEL_CUDA_CHECK(cudaStreamWaitEvent(main, join[p].get(), 0));
          }
        }
      });
    };
    const std::vector<std::pair<std::string, std::vector<int>>> combos = {
        {"h2d", {0}}, {"d2h", {1}}, {"kernel", {2}}, {"h2d+d2h", {0, 1}}, {"h2d+kernel", {0, 2}}, {"d2h+kernel", {1, 2}}, {"all", {0, 1, 2}}};
    std::map<std::string, double> median;
    for (const auto& [name, parts] : combos) {
      const auto t = together(parts);
      PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
      record("overlap." + name, {{"bytes", static_cast<double>(bytes)}, {"kernel_iterations", iterations}}, t, 1);
      median[name] = summarize(t).median;
    }
    // Both copies must have moved their bytes.
    for (std::size_t at : {std::size_t{0}, bytes / 2 + 1, bytes - 1}) {
      unsigned char up = 0;
      PERFMODEL_CUDA_CHECK(cudaMemcpy(&up, up_device.get() + at, 1, cudaMemcpyDeviceToHost));
      if (up != 0x33 || down_host.get()[at] != 0x5a) throw RuntimeFailure("overlap copies: copied data is wrong");
    }

    // Concurrent kernels: one-block spin kernels of fixed length on 1..128 streams.
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const double connection_count = connections ? std::atof(connections) : 8;
    constexpr unsigned long long kSpinNs = 1000000;  // 1 ms
    std::vector<std::unique_ptr<Stream>> many;
    std::vector<std::unique_ptr<Event>> ends;
    DeviceBuffer done(sizeof(unsigned long long));
    PERFMODEL_CUDA_CHECK(cudaMemset(done.get(), 0, sizeof(unsigned long long)));
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());  // the streams below are non-blocking: no implicit order
    unsigned long long launched = 0;
    double best = 0;
    for (int k : {1, 2, 4, 8, 16, 32, 64, 128}) {
      while (static_cast<int>(many.size()) < k) many.push_back(std::make_unique<Stream>()), ends.push_back(std::make_unique<Event>());
      cudaStream_t main = streams[0].get();
      const auto t = time_repetitions(main, r, [&](int) {
        PERFMODEL_CUDA_CHECK(cudaEventRecord(fork.get(), main));
        for (int i = 0; i < k; ++i) {
          cudaStream_t s = many[static_cast<std::size_t>(i)]->get();
          PERFMODEL_CUDA_CHECK(cudaStreamWaitEvent(s, fork.get(), 0));
          spin_for<<<1, 32, 0, s>>>(kSpinNs, done.as<unsigned long long>());
          PERFMODEL_CUDA_CHECK(cudaEventRecord(ends[static_cast<std::size_t>(i)]->get(), s));
          PERFMODEL_CUDA_CHECK(cudaStreamWaitEvent(main, ends[static_cast<std::size_t>(i)]->get(), 0));
        }
      });
      launched += static_cast<unsigned long long>(k) * (r + 1);
      record("overlap.kernels", {{"streams", k}, {"spin_ns", static_cast<double>(kSpinNs)}, {"connections", connection_count}}, t, k);
      best = std::max(best, k * 1e-3 / summarize(t).median);
    }
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long finished = 0;
    PERFMODEL_CUDA_CHECK(cudaMemcpy(&finished, done.get(), sizeof finished, cudaMemcpyDeviceToHost));
    if (finished != launched) throw RuntimeFailure("concurrent kernels: " + std::to_string(finished) + " of " +
                                                   std::to_string(launched) + " spin kernels finished");
    std::ostringstream summary;
    summary << "h2d " << format_seconds(median["h2d"]) << ", d2h " << format_seconds(median["d2h"]) << ", kernel "
            << format_seconds(median["kernel"]) << ", all three " << format_seconds(median["all"]) << "; up to " << best
            << " kernels at once";
    set_summary(summary.str());
  }
};

}  // namespace

void register_gpu_launch_benchmarks(BenchmarkRegistry& registry) {
  registry.add(std::make_unique<LaunchBenchmark>());
  registry.add(std::make_unique<OverlapBenchmark>());
}

}  // namespace perfmodel
