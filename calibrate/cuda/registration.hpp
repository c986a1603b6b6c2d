#pragma once
// Each CUDA benchmark file registers its benchmarks; register_gpu_benchmarks() calls them all.
#include "perfmodel/calibrate/benchmark.hpp"

namespace perfmodel {

void register_pcie_benchmarks(BenchmarkRegistry& registry);
void register_gpu_memory_benchmarks(BenchmarkRegistry& registry);
void register_gpu_shared_benchmarks(BenchmarkRegistry& registry);
void register_gpu_atomics_benchmarks(BenchmarkRegistry& registry);
void register_gpu_compute_benchmarks(BenchmarkRegistry& registry);
void register_gpu_launch_benchmarks(BenchmarkRegistry& registry);
void register_gpu_tensor_benchmarks(BenchmarkRegistry& registry);
void register_gpu_stream_benchmarks(BenchmarkRegistry& registry);

}  // namespace perfmodel
