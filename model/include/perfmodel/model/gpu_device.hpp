#pragma once
// What the CUDA runtime reports about a GPU, plus the architecture constants it does not report
// (sector and line sizes, banks, allocation units, lanes per SM). Queried by calibrate/ and stored
// in the profile, so that predictors never need CUDA.
#include <string>
#include <utility>
#include <vector>

namespace perfmodel {

struct GpuDeviceInfo {
  double compute_capability_major = 0, compute_capability_minor = 0;
  double multiprocessors = 0;
  double warp_size = 0;
  double max_threads_per_block = 0;
  double max_threads_per_multiprocessor = 0;
  double max_blocks_per_multiprocessor = 0;
  double registers_per_multiprocessor = 0;
  double registers_per_block = 0;
  double max_registers_per_thread = 0;
  double register_allocation_unit = 0;        // registers, allocated per warp in these units
  double shared_memory_per_multiprocessor = 0;  // bytes
  double shared_memory_per_block = 0;           // bytes, without opt-in
  double shared_memory_per_block_optin = 0;     // bytes, with cudaFuncAttributeMaxDynamicSharedMemorySize
  double reserved_shared_memory_per_block = 0;  // bytes the system keeps per resident block
  double shared_memory_allocation_unit = 0;     // bytes
  double shared_memory_banks = 0;
  double shared_memory_bank_bytes = 0;
  double l2_cache_bytes = 0;
  double global_memory_bytes = 0;
  double constant_memory_bytes = 0;
  double sector_bytes = 0;      // DRAM/L2 access granule
  double cache_line_bytes = 0;  // L1 line
  double sm_clock_hz = 0;       // as reported (boost clock); 0 when the runtime no longer reports it
  double memory_clock_hz = 0;
  double memory_bus_width_bits = 0;
  double async_engines = 0;     // copy engines
  double concurrent_kernels = 0;  // 1 when kernels of different streams may run at once
  double max_grid_x = 0;
  // Per-SM per-clock lanes (architecture tables; 0 where this build does not know the architecture).
  double fp32_lanes_per_sm = 0, fp64_lanes_per_sm = 0, fp16_lanes_per_sm = 0, int32_lanes_per_sm = 0;

  // Datasheet-style peaks derived from the fields above; 0 when an input is unknown.
  double theoretical_dram_Bps() const { return memory_clock_hz * 2.0 * memory_bus_width_bits / 8.0; }
  double theoretical_flops(double lanes_per_sm) const { return multiprocessors * lanes_per_sm * 2.0 * sm_clock_hz; }
  // Dense tensor-core peak of a `tensor_*` ceiling (tensor_fp16, tensor_bf16, tensor_tf32,
  // tensor_int8, tensor_fp8) at the reported clock, from the datasheets' per-SM per-clock rates
  // (compute capability 8.0 and 9.0; 0 for other architectures and unknown names). NVIDIA's own
  // peaks use a lower boost clock (H100 SXM: 989 Tflop/s FP16 at 1.83 GHz).
  double theoretical_tensor_ops(const std::string& ceiling) const;

  // Ordered (name, value) view shared by every reader and writer.
  std::vector<std::pair<std::string, double*>> fields();
  std::vector<std::pair<std::string, const double*>> fields() const;
};

}  // namespace perfmodel
