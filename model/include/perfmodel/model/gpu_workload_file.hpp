#pragma once
// A kernel the user has only described — "prediction before coding". YAML, schema 1:
//
//   perfmodel_workload: 1
//   name: saxpy                       # free text
//   kernels:                          # one or more launches, run one after another
//     - name: saxpy
//       launches: 1                   # identical launches (default 1)
//       grid: [65536, 1]              # blocks (x, y)
//       block: [256, 1]               # threads (x, y)
//       registers_per_thread: 16      # from the compiler (default 32)
//       shared_bytes_per_block: 0     # static + dynamic (default 0)
//       flops_fp32: 3.4e7             # work (each optional, default 0)
//       flops_fp64: 0
//       special_calls: 0              # cosf/sinf-class calls
//       warp_instructions: 0          # issued warp instructions (default: derived from flops and accesses)
//       read_bytes: 1.3e8             # global bytes the code reads and writes (useful bytes)
//       write_bytes: 6.7e7
//       access: coalesced             # coalesced | strided | random
//       stride_elements: 1            # for strided
//       element_bytes: 4
//       loads_in_flight: 2            # independent loads per thread before the first is used (default 1)
//       loads_issued_together: false  # true: a warp issues all of them at once (no compiler load window;
//                                     #   e.g. a one-warp block that loads a whole tile before storing it)
//       latency_chain:                # the longest chain of dependent steps one thread runs (optional;
//         fma: 0                      #   default: its share of the accesses, loads_in_flight at a
//         cosf: 0                     #   time, one L2 round trip each). Each key counts the steps
//         l1_loads: 0                 #   that wait that latency: FP32 FMAs, cosf calls, L1/shared,
//         l2_loads: 0                 #   L2 and DRAM round trips
//         dram_loads: 0
//       shared_accesses: 0            # warp-wide shared-memory accesses
//       conflict_degree: 1            # their bank-conflict degree (1 … 32)
//   transfers:                        # host copies around the kernels (optional)
//     - {direction: h2d, memory: pinned, bytes: 1.3e8}
//
// Unknown keys, duplicate keys, wrong types and impossible values are errors naming file, line and
// key. Every amount is bounded (limits.hpp, docs/input-limits.md): grid x ≤ 2^31 − 1, y ≤ 65535,
// block ≤ 1024 threads, transfers ≤ 2^50 bytes, flops/bytes/instructions ≤ 1e21, launches ≤ 1e12.
#include <string>
#include <vector>

#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

struct DescribedTransfer {
  TransferKey key;
  double bytes = 0;
};

struct GpuWorkloadFile {
  std::string name;
  GpuWorkload workload;
  std::vector<DescribedTransfer> transfers;
};

// Reads and validates; the access pattern is turned into sectors and wavefronts with the
// profile's measured strided-access efficiency where it has one.
GpuWorkloadFile read_gpu_workload(const std::string& path, const GpuCalibration& gpu);
GpuWorkloadFile parse_gpu_workload(const std::string& text, const std::string& file_name, const GpuCalibration& gpu);

}  // namespace perfmodel
