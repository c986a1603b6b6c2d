#include "perfmodel/model/execution_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {
namespace {

double round_up(double v, double unit) { return unit > 0 ? std::ceil(v / unit) * unit : v; }

}  // namespace

double resident_blocks_per_sm(const GpuDeviceInfo& d, double threads_per_block, double registers_per_thread,
                              double shared_bytes_per_block, std::string* limited_by) {
  if (!(threads_per_block >= 1)) throw InputError("threads per block must be >= 1");
  if (d.max_threads_per_block > 0 && threads_per_block > d.max_threads_per_block)
    throw InputError("a block of " + std::to_string(static_cast<long long>(threads_per_block)) + " threads exceeds the device's " +
                     std::to_string(static_cast<long long>(d.max_threads_per_block)));
  const double warp = d.warp_size > 0 ? d.warp_size : 32;
  const double warps = std::ceil(threads_per_block / warp);
  double best = d.max_blocks_per_multiprocessor > 0 ? d.max_blocks_per_multiprocessor : 1e9;
  std::string why = "blocks";
  auto limit = [&](double v, const char* name) {
    if (v < best) {
      best = v;
      why = name;
    }
  };
  if (d.max_threads_per_multiprocessor > 0) limit(std::floor(d.max_threads_per_multiprocessor / (warps * warp)), "threads");
  if (registers_per_thread > 0 && d.registers_per_multiprocessor > 0) {
    if (d.max_registers_per_thread > 0 && registers_per_thread > d.max_registers_per_thread)
      throw InputError(std::to_string(static_cast<long long>(registers_per_thread)) + " registers per thread exceed the device's " +
                       std::to_string(static_cast<long long>(d.max_registers_per_thread)));
    const double per_warp = round_up(registers_per_thread * warp, d.register_allocation_unit);
    const double warps_per_partition = std::floor(d.registers_per_multiprocessor / 4 / per_warp);  // 4 SM sub-partitions
    limit(std::floor(4 * warps_per_partition / warps), "registers");
  }
  const double shared = round_up(shared_bytes_per_block + d.reserved_shared_memory_per_block, d.shared_memory_allocation_unit);
  if (d.shared_memory_per_block_optin > 0 && shared_bytes_per_block > d.shared_memory_per_block_optin)
    throw InputError(std::to_string(static_cast<long long>(shared_bytes_per_block)) + " bytes of shared memory per block exceed the device's " +
                     std::to_string(static_cast<long long>(d.shared_memory_per_block_optin)));
  if (d.shared_memory_per_multiprocessor > 0 && shared > 0) limit(std::floor(d.shared_memory_per_multiprocessor / shared), "shared memory");
  if (limited_by) *limited_by = why;
  return best;
}

ExecutionMetrics execution_metrics(const GpuDeviceInfo& d, double blocks, double threads_per_block, double registers_per_thread,
                                   double shared_bytes_per_block) {
  if (!(blocks >= 1)) throw InputError("a launch needs at least one block");
  if (!(d.multiprocessors >= 1)) throw InputError("the profile's gpu.device has no multiprocessor count");
  ExecutionMetrics m;
  m.threads_per_block = threads_per_block;
  const double warp = d.warp_size > 0 ? d.warp_size : 32;
  m.warps_per_block = std::ceil(threads_per_block / warp);
  m.blocks = blocks;
  m.blocks_per_sm = resident_blocks_per_sm(d, threads_per_block, registers_per_thread, shared_bytes_per_block, &m.limited_by);
  if (m.blocks_per_sm < 1) throw InputError("not one block of this launch fits an SM (limited by " + m.limited_by + ")");
  const double slots = d.multiprocessors * m.blocks_per_sm;
  m.active_blocks = std::min(slots, blocks);
  m.active_threads = m.active_blocks * threads_per_block;
  m.fragment_blocks = std::fmod(blocks, slots);
  m.fragment_threads = m.fragment_blocks * threads_per_block;
  m.waves = blocks / slots;
  m.full_waves = std::floor(m.waves);
  const double per_sm = std::min(m.blocks_per_sm, std::ceil(blocks / d.multiprocessors));
  m.warps_per_sm = per_sm * m.warps_per_block;
  const double max_warps = d.max_threads_per_multiprocessor > 0 ? d.max_threads_per_multiprocessor / warp : m.warps_per_sm;
  m.occupancy = m.blocks_per_sm * m.warps_per_block / max_warps;
  return m;
}

}  // namespace perfmodel
