#pragma once
// The host CPU as the operating system describes it (sysfs, /proc), stored in the profile so
// predictors never need to query the machine.
#include <string>
#include <utility>
#include <vector>

namespace perfmodel {

struct CpuInfo {
  double logical_cpus = 0;     // CPUs this process may run on (its affinity mask)
  double l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // per instance; 0 when absent
  double l1d_shared_by = 0, l2_shared_by = 0, l3_shared_by = 0;  // logical CPUs per instance
  double memory_bytes = 0;     // physical memory

  // Capacity of a cache level available to `threads` threads pinned to distinct CPUs.
  double aggregate_cache_bytes(int level, double threads) const;

  std::vector<std::pair<std::string, double*>> fields();
  std::vector<std::pair<std::string, const double*>> fields() const;
};

}  // namespace perfmodel
