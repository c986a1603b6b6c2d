#pragma once
// RAII owners of the CUDA objects the benchmarks use; each checks its calls and frees on scope exit.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "cuda_check.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

// Host buffer of either kind, released correctly for its kind.
class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, HostMemory memory) : memory_(memory), bytes_(bytes) {
    if (memory == HostMemory::pinned) {
      PERFMODEL_CUDA_CHECK(cudaMallocHost(&data_, bytes));
    } else {
      data_ = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
      if (!data_) throw RuntimeFailure("cannot allocate " + format_bytes(static_cast<double>(bytes)) + " of host memory");
    }
    std::memset(data_, 0, bytes);  // fault every page in now, not inside a timed copy
  }
  ~HostBuffer() {
    if (memory_ == HostMemory::pinned) cudaFreeHost(data_);
    else std::free(data_);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(data_); }
  std::size_t bytes() const { return bytes_; }

 private:
  HostMemory memory_;
  std::size_t bytes_;
  void* data_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    PERFMODEL_CUDA_CHECK(cudaMalloc(&data_, bytes));
    PERFMODEL_CUDA_CHECK(cudaMemset(data_, 0, bytes));
    // cudaMemset runs on the legacy default stream, which work on the non-blocking streams used
    // here does not wait for: finish it before the buffer is handed out.
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(data_); }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { PERFMODEL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { PERFMODEL_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace perfmodel
