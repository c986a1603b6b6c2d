#pragma once
// S0's execution metrics (Eqs 3.1, 3.7–3.11) generalised to the device a profile describes:
// how many blocks of a launch are resident per SM, what limits them, and how the grid splits
// into full waves and a tail.
//
//   Blks_SM^active = min( max blocks per SM,                                       (3.7, generalised)
//                         ⌊max threads per SM / (warps per block · 32)⌋,
//                         4 · ⌊(registers per SM / 4) / ⌈regs·32⌉_unit⌋ / warps per block   (per SM sub-partition),
//                         ⌊shared per SM / ⌈shared per block + reserved⌉_unit⌋ )
//   Blks_GPU^active = SMs · Blks_SM^active                                          (3.8)
//   Blks_GPU^frag   = blocks mod Blks_GPU^active                                    (3.10)
//   waves           = blocks / Blks_GPU^active  (full waves ⌊·⌋ plus a tail of frag blocks)
// ⌈x⌉_unit rounds up to the allocation unit. S0 ignored the granularities and the per-block
// reservation (MODELS.md §5.1.4); the H100 figures are cross-checked against
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for every compiled kernel.
#include <string>

#include "perfmodel/model/gpu_device.hpp"

namespace perfmodel {

struct ExecutionMetrics {
  double threads_per_block = 0, warps_per_block = 0;
  double blocks = 0;                    // grid size (Eq 3.1 / threads per block)
  double blocks_per_sm = 0;             // Blks_SM^active
  std::string limited_by;               // blocks | threads | registers | shared memory
  double active_blocks = 0;             // Blks_GPU^active, capped by the grid
  double active_threads = 0;            // Thds_GPU^active (3.9)
  double fragment_blocks = 0;           // Blks_GPU^frag (3.10)
  double fragment_threads = 0;          // Thds_GPU^frag (3.11)
  double full_waves = 0;                // ⌊blocks / (SMs · blocks_per_sm)⌋
  double waves = 0;                     // blocks / (SMs · blocks_per_sm)
  double occupancy = 0;                 // resident warps / max warps per SM, in a full wave
  double warps_per_sm = 0;              // resident warps per SM in a full wave (or the single partial wave)
};

// Throws InputError when the block cannot run at all (too many threads, registers or shared memory).
ExecutionMetrics execution_metrics(const GpuDeviceInfo& device, double blocks, double threads_per_block,
                                   double registers_per_thread, double shared_bytes_per_block);

// Blocks per SM alone (the occupancy API's answer).
double resident_blocks_per_sm(const GpuDeviceInfo& device, double threads_per_block, double registers_per_thread,
                              double shared_bytes_per_block, std::string* limited_by = nullptr);

}  // namespace perfmodel
