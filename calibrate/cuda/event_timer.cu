#include "event_timer.cuh"

namespace perfmodel {
namespace {

__global__ void spin_until_open(const volatile int* flag, long long max_cycles) {
  const long long start = clock64();
  while (*flag == 0 && clock64() - start < max_cycles) {
  }
}

}  // namespace

StreamGate::StreamGate() {
  int* flag = nullptr;
  PERFMODEL_CUDA_CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  host_flag_ = flag;
  *host_flag_ = 1;
  PERFMODEL_CUDA_CHECK(cudaHostGetDevicePointer(&device_flag_, flag, 0));
}

StreamGate::~StreamGate() {
  *host_flag_ = 1;
  cudaFreeHost(const_cast<int*>(host_flag_));
}

void StreamGate::close(cudaStream_t stream) {
  *host_flag_ = 0;
  constexpr long long kMaxCycles = 2000000000LL;  // ~1 s at 2 GHz
  spin_until_open<<<1, 1, 0, stream>>>(device_flag_, kMaxCycles);
  PERFMODEL_CUDA_CHECK_LAUNCH();
}

void StreamGate::open() { *host_flag_ = 1; }

}  // namespace perfmodel
