// What limits a task farm on CUDA streams (Cecconi's farm, MODELS.md §1.13, §2.6): the host's cost
// of issuing one task (three asynchronous calls), one task of the synchronous zero-stream loop, how
// many tasks' kernels from S streams really run at once (hardware work queues,
// CUDA_DEVICE_MAX_CONNECTIONS: false serialisation beyond them), and how copies of different
// streams share the copy engines. Fitted into gpu.streams (model/stream_calibration.hpp).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "gpu_common.cuh"
#include "registration.hpp"

namespace perfmodel {
namespace {

__global__ void farm_empty_kernel() {}

// One block spinning `ns` nanoseconds of the global timer (the same however many run at once),
// counting itself done.
__global__ void farm_spin(unsigned long long ns, unsigned long long* done) {
  const unsigned long long start = globaltimer_ns();
  while (globaltimer_ns() - start < ns) {
  }
  if (threadIdx.x == 0) atomicAdd(done, 1ull);
}

double connections_env() {
  const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  return v ? std::atof(v) : 0.0;
}

// Blocking streams (cudaStreamCreate) as Cecconi's driver makes them: they order with the legacy
// default stream, on which the events are recorded.
class BlockingStreams {
 public:
  explicit BlockingStreams(int n) : s_(static_cast<std::size_t>(n)) {
    for (cudaStream_t& s : s_) PERFMODEL_CUDA_CHECK(cudaStreamCreate(&s));
  }
  ~BlockingStreams() {
    for (cudaStream_t s : s_) cudaStreamDestroy(s);
  }
  BlockingStreams(const BlockingStreams&) = delete;
  BlockingStreams& operator=(const BlockingStreams&) = delete;
  cudaStream_t operator[](int i) const { return s_[static_cast<std::size_t>(i)]; }
  int size() const { return static_cast<int>(s_.size()); }

 private:
  std::vector<cudaStream_t> s_;
};

// Device time between two events on the legacy default stream around enqueue(); the host time of
// the enqueue itself in *host_s when given.
template <class Enqueue>
double legacy_timed(Enqueue&& enqueue, double* host_s = nullptr) {
  cudaEvent_t start = nullptr, stop = nullptr;
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&start));
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&stop));
  PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
  PERFMODEL_CUDA_CHECK(cudaEventRecord(start, cudaStreamLegacy));
  const auto t0 = std::chrono::steady_clock::now();
  enqueue();
  const auto t1 = std::chrono::steady_clock::now();
  PERFMODEL_CUDA_CHECK(cudaEventRecord(stop, cudaStreamLegacy));
  PERFMODEL_CUDA_CHECK(cudaEventSynchronize(stop));
  PERFMODEL_CUDA_CHECK_LAUNCH();
  float ms = 0;
  PERFMODEL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (host_s) *host_s = std::chrono::duration<double>(t1 - t0).count();
  return static_cast<double>(ms) * 1e-3;
}

class StreamsBenchmark final : public GpuBenchmark {
 public:
  std::string key() const override { return "gpu.streams"; }
  std::string description() const override {
    return "task farm on streams: host issue cost per task, the serial loop's task, kernels at once vs streams, copies vs streams";
  }

 protected:
  void measure() override {
    const int r = reps(7, 3);
    const double connections = connections_env();
    constexpr int kTasks = 256;
    HostBuffer host_in(kTasks * sizeof(float), HostMemory::pinned), host_out(kTasks * sizeof(float), HostMemory::pinned);
    float* in = reinterpret_cast<float*>(host_in.get());
    float* out = reinterpret_cast<float*>(host_out.get());
    for (int k = 0; k < kTasks; ++k) in[k] = static_cast<float>(k + 1);
    DeviceBuffer slots(kTasks * sizeof(float));
    float* d = slots.as<float>();
    auto check_out = [&](const char* what) {
      for (int k = 0; k < kTasks; ++k)
        if (out[k] != in[k]) throw RuntimeFailure(std::string(what) + ": task " + std::to_string(k) + " came back wrong");
      std::fill(out, out + kTasks, 0.0f);
    };

    // 1. The host's issue cost: 3 async calls per task over 8 blocking streams, GPU idle at the start.
    std::vector<double> issue, issue_device;
    {
      BlockingStreams streams(8);
      for (int rep = -1; rep < r; ++rep) {
        double host = 0;
        const double device = legacy_timed(
            [&] {
              for (int k = 0; k < kTasks; ++k) {
                cudaStream_t s = streams[k % streams.size()];
                PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(d + k, in + k, sizeof(float), cudaMemcpyHostToDevice, s));
                farm_empty_kernel<<<1, 1, 0, s>>>();
                PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(out + k, d + k, sizeof(float), cudaMemcpyDeviceToHost, s));
              }
            },
            &host);
        check_out("streams.issue");
        if (rep >= 0) issue.push_back(host), issue_device.push_back(device);
      }
    }
    record("streams.issue", {{"streams", 8}, {"connections", connections}}, issue, kTasks);

    // 2. The serial (zero-stream) loop with the same tiny parts, device time.
    std::vector<double> serial;
    for (int rep = -1; rep < r; ++rep) {
      const double t = legacy_timed([&] {
        for (int k = 0; k < kTasks; ++k) {
          PERFMODEL_CUDA_CHECK(cudaMemcpy(d + k, in + k, sizeof(float), cudaMemcpyHostToDevice));
          farm_empty_kernel<<<1, 1, 0, cudaStreamLegacy>>>();
          PERFMODEL_CUDA_CHECK(cudaMemcpy(out + k, d + k, sizeof(float), cudaMemcpyDeviceToHost));
        }
      });
      check_out("streams.serial");
      if (rep >= 0) serial.push_back(t);
    }
    record("streams.serial", {}, serial, kTasks);

    // 3. Kernels at once: the farm pattern with one-block spin kernels of 1 ms over S streams.
    constexpr unsigned long long kSpinNs = 1000000;
    DeviceBuffer done(sizeof(unsigned long long));
    unsigned long long launched = 0;
    double most = 0, at_streams = 0;
    const int conc_reps = reps(3, 2);
    for (int S : {1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      const int tasks = std::max(16, 4 * S);
      HostBuffer cin(tasks * sizeof(float), HostMemory::pinned), cout(tasks * sizeof(float), HostMemory::pinned);
      DeviceBuffer cslots(static_cast<std::size_t>(S) * sizeof(float));
      BlockingStreams streams(S);
      std::vector<double> t, host;
      for (int rep = -1; rep < conc_reps; ++rep) {
        double issued = 0;
        const double s = legacy_timed([&] {
          for (int k = 0; k < tasks; ++k) {
            const int i = k % S;
            float* slot = cslots.as<float>() + i;
            PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(slot, cin.get() + k * sizeof(float), sizeof(float), cudaMemcpyHostToDevice, streams[i]));
            farm_spin<<<1, 32, 0, streams[i]>>>(kSpinNs, done.as<unsigned long long>());
            PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(cout.get() + k * sizeof(float), slot, sizeof(float), cudaMemcpyDeviceToHost, streams[i]));
          }
        }, &issued);
        launched += static_cast<unsigned long long>(tasks);
        if (rep >= 0) t.push_back(s), host.push_back(issued);
      }
      const std::map<std::string, double> params = {{"streams", S}, {"spin_ns", static_cast<double>(kSpinNs)}, {"connections", connections}};
      record("streams.concurrency", params, t, tasks);
      // The host's own time to issue them: its issue rate drifts between minutes and processes
      // (6.6–10.6 µs a task on one H100 host), so each row is explained with the rate it ran at.
      record("streams.concurrency_host", params, host, tasks);
      const double c = tasks * kSpinNs * 1e-9 / summarize(t).median;
      if (c > most) most = c, at_streams = S;
    }
    unsigned long long finished = 0;
    PERFMODEL_CUDA_CHECK(cudaMemcpy(&finished, done.get(), sizeof finished, cudaMemcpyDeviceToHost));
    if (finished != launched)
      throw RuntimeFailure("streams.concurrency: " + std::to_string(finished) + " of " + std::to_string(launched) + " spin kernels finished");

    // 4. Copies of S streams sharing the copy engines: 4 KiB and 1 MiB copies, H2D only and H2D/D2H
    //    pairs (the pair's two copies on different streams).
    const std::size_t largest = std::size_t{1} << 20;
    HostBuffer up(largest * 8, HostMemory::pinned), down(largest * 8, HostMemory::pinned);
    DeviceBuffer dev_up(largest * 8), dev_down(largest * 8);
    for (const std::size_t bytes : {std::size_t{4096}, largest}) {
      const int copies = bytes < largest ? 64 : 32;
      for (int S : {1, 2, 4, 8}) {
        BlockingStreams streams(S);
        for (int bidir : {0, 1}) {
          std::vector<double> t;
          for (int rep = -1; rep < r; ++rep) {
            const double s = legacy_timed([&] {
              for (int k = 0; k < copies; ++k) {
                const int i = (bidir ? 2 * k : k) % S;
                const std::size_t at = bytes * static_cast<std::size_t>(i);
                PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(dev_up.get() + at, up.get() + at, bytes, cudaMemcpyHostToDevice, streams[i]));
                if (bidir) {
                  const int j = (2 * k + 1) % S;
                  const std::size_t at2 = bytes * static_cast<std::size_t>(j);
                  PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(down.get() + at2, dev_down.get() + at2, bytes, cudaMemcpyDeviceToHost, streams[j]));
                }
              }
            });
            if (rep >= 0) t.push_back(s);
          }
          record("streams.copies", {{"streams", S}, {"bytes", static_cast<double>(bytes)}, {"bidir", bidir}}, t, copies);
        }
      }
    }
    std::ostringstream summary;
    summary << "issue " << format_seconds(summarize(issue).median / kTasks) << " per task (host), serial task "
            << format_seconds(summarize(serial).median / kTasks) << ", up to " << most << " kernels at once (at " << at_streams
            << " streams, CUDA_DEVICE_MAX_CONNECTIONS " << (connections > 0 ? std::to_string(static_cast<int>(connections)) : "unset")
            << ")";
    set_summary(summary.str());
  }
};

}  // namespace

void register_gpu_stream_benchmarks(BenchmarkRegistry& registry) { registry.add(std::make_unique<StreamsBenchmark>()); }

}  // namespace perfmodel
