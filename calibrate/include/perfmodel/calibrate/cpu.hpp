#pragma once
// The host CPU as calibrate/ sees it.
#include "perfmodel/model/cpu_info.hpp"

namespace perfmodel {

// From sched_getaffinity, /sys/devices/system/cpu/cpu*/cache and /proc/meminfo (0 where absent).
CpuInfo query_cpu_info();

// Adds the CPU benchmarks (bandwidth curves, arithmetic ceilings, reference-kernel timings).
class BenchmarkRegistry;
void register_cpu_benchmarks(BenchmarkRegistry& registry);

}  // namespace perfmodel
