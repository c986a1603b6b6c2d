#pragma once
// The timing engine: CUDA events on the device timeline, with the host's steady clock as a
// cross-check. Every benchmark times through this, so every time in a profile means the same.
#include <cuda_runtime.h>

#include <chrono>

#include "cuda_check.hpp"

namespace perfmodel {

struct BatchTiming {
  double event_s = 0;  // per operation, device timeline (start event → stop event) / batch
  double wall_s = 0;   // per operation, host steady clock around the batch (until stop completes) / batch
};

// RAII pair of events on one stream.
class EventTimer {
 public:
  EventTimer() {
    PERFMODEL_CUDA_CHECK(cudaEventCreate(&start_));
    PERFMODEL_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // Records a start event on `stream`, calls enqueue() `batch` times, records a stop event and
  // waits for it. `before_start` runs before the start event is recorded (e.g. to gate the
  // stream) and `after_enqueue` after the stop event is recorded (e.g. to open the gate).
  template <class Enqueue, class BeforeStart, class AfterEnqueue>
  BatchTiming time(cudaStream_t stream, int batch, Enqueue&& enqueue, BeforeStart&& before_start,
                   AfterEnqueue&& after_enqueue) {
    before_start();
    const auto t0 = std::chrono::steady_clock::now();
    PERFMODEL_CUDA_CHECK(cudaEventRecord(start_, stream));
    for (int i = 0; i < batch; ++i) enqueue();
    PERFMODEL_CUDA_CHECK(cudaEventRecord(stop_, stream));
    after_enqueue();
    PERFMODEL_CUDA_CHECK(cudaEventSynchronize(stop_));
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    PERFMODEL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    BatchTiming t;
    t.event_s = static_cast<double>(ms) * 1e-3 / batch;
    t.wall_s = std::chrono::duration<double>(t1 - t0).count() / batch;
    return t;
  }

  template <class Enqueue>
  BatchTiming time(cudaStream_t stream, int batch, Enqueue&& enqueue) {
    return time(stream, batch, enqueue, [] {}, [] {});
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Holds a stream at a spin kernel until the host opens the gate, so that work queued behind it
// starts together and host-side enqueue time stays out of the device timeline (nvbandwidth's
// method). The kernel gives up after ~1 s of spinning so a lost release cannot hang the GPU.
// Closing it on several streams holds them all; one open() releases them together.
class StreamGate {
 public:
  StreamGate();
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  void close(cudaStream_t stream);  // enqueue a spin kernel on `stream`
  void open();                      // let it finish

 private:
  volatile int* host_flag_ = nullptr;
  int* device_flag_ = nullptr;
};

}  // namespace perfmodel
