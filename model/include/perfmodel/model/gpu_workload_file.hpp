#pragma once
// A kernel the user has only described — "prediction before coding". Two formats:
//
// Format 2 (`format: 2`), the reference in docs/workload-format.md: parameters and arithmetic
// expressions (workload_expression.hpp), 3-D launches, a list of memory accesses per kernel
// (space, kind, element size, count per launch, pattern, footprint), work by type, copies per
// launch or per task, and the timing the prediction is of. The reader derives the descriptor
// (GpuPhase) from the accesses by one general path: DRAM bytes from distinct footprints with the
// L2 reuse rule, L2 bytes from the sectors each pattern touches, L1 passes from the lines,
// loads in flight from the independent reads, shared passes per access at its own conflict
// degree; docs/workload-format.md states each rule and what is used where the profile has no
// rate (atomics, tensor cores).
//
// Format 1 (`perfmodel_workload: 1`), the older flat form, still read unchanged:
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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

struct DescribedTransfer {
  TransferKey key;
  double bytes = 0;
  double repeats = 1;  // how often it happens in the task (a per-launch copy: the kernel's launches)
};

struct GpuWorkloadFile {
  int format = 1;
  std::string name;
  std::string timing;  // "single" | "steady" as the file states it; "" where it does not (format 1)
  std::vector<std::pair<std::string, double>> params;  // in file order, after the overrides
  GpuWorkload workload;
  std::vector<DescribedTransfer> transfers;
  // What the prediction of this workload rests on that the profile did not measure (atomics on
  // the L2 write path, tensor-core issue slots, …), one line each, for the output's notes.
  std::vector<std::string> notes;
  double launches() const {
    double n = 0;
    for (const GpuPhase& p : workload.phases) n += p.launches;
    return n;
  }
};

// Parameter values replacing the file's (`--set`); a name the file does not declare is an
// InputError naming `--set` and the file's params. Format 1 files take none.
using WorkloadParams = std::map<std::string, double>;

// Reads and validates either format. Format 1: the access pattern is turned into sectors and
// wavefronts with the profile's measured strided-access efficiency where it has one. Format 2:
// see docs/workload-format.md. `gpu` supplies the L2 capacity (reuse rule), the strided-read
// efficiency and the ceilings that convert FP16/INT32/fast special work to issue slots.
GpuWorkloadFile read_gpu_workload(const std::string& path, const GpuCalibration& gpu, const WorkloadParams& set = {});
GpuWorkloadFile parse_gpu_workload(const std::string& text, const std::string& file_name, const GpuCalibration& gpu,
                                   const WorkloadParams& set = {});

}  // namespace perfmodel
