#include "perfmodel/model/gpu_device.hpp"

namespace perfmodel {
namespace {

template <class Info, class Pointer>
std::vector<std::pair<std::string, Pointer>> device_fields(Info& d) {
  return {{"compute_capability_major", &d.compute_capability_major},
          {"compute_capability_minor", &d.compute_capability_minor},
          {"multiprocessors", &d.multiprocessors},
          {"warp_size", &d.warp_size},
          {"max_threads_per_block", &d.max_threads_per_block},
          {"max_threads_per_multiprocessor", &d.max_threads_per_multiprocessor},
          {"max_blocks_per_multiprocessor", &d.max_blocks_per_multiprocessor},
          {"registers_per_multiprocessor", &d.registers_per_multiprocessor},
          {"registers_per_block", &d.registers_per_block},
          {"max_registers_per_thread", &d.max_registers_per_thread},
          {"register_allocation_unit", &d.register_allocation_unit},
          {"shared_memory_per_multiprocessor", &d.shared_memory_per_multiprocessor},
          {"shared_memory_per_block", &d.shared_memory_per_block},
          {"shared_memory_per_block_optin", &d.shared_memory_per_block_optin},
          {"reserved_shared_memory_per_block", &d.reserved_shared_memory_per_block},
          {"shared_memory_allocation_unit", &d.shared_memory_allocation_unit},
          {"shared_memory_banks", &d.shared_memory_banks},
          {"shared_memory_bank_bytes", &d.shared_memory_bank_bytes},
          {"l2_cache_bytes", &d.l2_cache_bytes},
          {"global_memory_bytes", &d.global_memory_bytes},
          {"constant_memory_bytes", &d.constant_memory_bytes},
          {"sector_bytes", &d.sector_bytes},
          {"cache_line_bytes", &d.cache_line_bytes},
          {"sm_clock_hz", &d.sm_clock_hz},
          {"memory_clock_hz", &d.memory_clock_hz},
          {"memory_bus_width_bits", &d.memory_bus_width_bits},
          {"async_engines", &d.async_engines},
          {"concurrent_kernels", &d.concurrent_kernels},
          {"max_grid_x", &d.max_grid_x},
          {"fp32_lanes_per_sm", &d.fp32_lanes_per_sm},
          {"fp64_lanes_per_sm", &d.fp64_lanes_per_sm},
          {"fp16_lanes_per_sm", &d.fp16_lanes_per_sm},
          {"int32_lanes_per_sm", &d.int32_lanes_per_sm}};
}

}  // namespace

std::vector<std::pair<std::string, double*>> GpuDeviceInfo::fields() { return device_fields<GpuDeviceInfo, double*>(*this); }

std::vector<std::pair<std::string, const double*>> GpuDeviceInfo::fields() const {
  return device_fields<const GpuDeviceInfo, const double*>(*this);
}

double GpuDeviceInfo::theoretical_tensor_ops(const std::string& ceiling) const {
  // Dense flop (or op) per clock per SM: A100 (8.0) and H100 (9.0) whitepapers.
  struct Rate {
    int major, minor;
    double fp16, tf32, int8, fp8;
  };
  static constexpr Rate kRates[] = {{8, 0, 2048, 1024, 4096, 0}, {9, 0, 4096, 2048, 8192, 8192}};
  for (const Rate& r : kRates) {
    if (r.major != static_cast<int>(compute_capability_major) || r.minor != static_cast<int>(compute_capability_minor)) continue;
    const double per_clock = ceiling == "tensor_fp16" || ceiling == "tensor_bf16" ? r.fp16
                             : ceiling == "tensor_tf32"                          ? r.tf32
                             : ceiling == "tensor_int8"                          ? r.int8
                             : ceiling == "tensor_fp8"                           ? r.fp8
                                                                                 : 0;
    return per_clock * multiprocessors * sm_clock_hz;
  }
  return 0;
}

}  // namespace perfmodel
