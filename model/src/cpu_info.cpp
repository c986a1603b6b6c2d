#include "perfmodel/model/cpu_info.hpp"

#include <algorithm>
#include <cmath>

namespace perfmodel {
namespace {

template <class Info, class Pointer>
std::vector<std::pair<std::string, Pointer>> info_fields(Info& c) {
  return {{"logical_cpus", &c.logical_cpus}, {"l1d_bytes", &c.l1d_bytes},         {"l2_bytes", &c.l2_bytes},
          {"l3_bytes", &c.l3_bytes},         {"l1d_shared_by", &c.l1d_shared_by}, {"l2_shared_by", &c.l2_shared_by},
          {"l3_shared_by", &c.l3_shared_by}, {"memory_bytes", &c.memory_bytes}};
}

}  // namespace

double CpuInfo::aggregate_cache_bytes(int level, double threads) const {
  const double bytes = level == 1 ? l1d_bytes : level == 2 ? l2_bytes : l3_bytes;
  const double shared = std::max(1.0, level == 1 ? l1d_shared_by : level == 2 ? l2_shared_by : l3_shared_by);
  return bytes * std::ceil(std::max(1.0, threads) / shared);  // threads on distinct CPUs, filled in order
}

std::vector<std::pair<std::string, double*>> CpuInfo::fields() { return info_fields<CpuInfo, double*>(*this); }
std::vector<std::pair<std::string, const double*>> CpuInfo::fields() const {
  return info_fields<const CpuInfo, const double*>(*this);
}

}  // namespace perfmodel
