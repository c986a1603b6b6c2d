#include "registration.hpp"

namespace perfmodel {

// Order matters only for progress output: memory first (the device is coolest), PCIe last.
void register_gpu_benchmarks(BenchmarkRegistry& registry) {
  register_gpu_memory_benchmarks(registry);
  register_gpu_shared_benchmarks(registry);
  register_gpu_atomics_benchmarks(registry);
  register_gpu_compute_benchmarks(registry);
  register_gpu_tensor_benchmarks(registry);
  register_gpu_launch_benchmarks(registry);
  register_gpu_stream_benchmarks(registry);
  register_pcie_benchmarks(registry);
}

}  // namespace perfmodel
