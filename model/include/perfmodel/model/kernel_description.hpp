#pragma once
// A GPU kernel described by its accesses and work — the vocabulary of workload format 2
// (docs/workload-format.md) as plain C++ values — and the one derivation that turns it into the
// predictor's descriptor (GpuPhase). Both a user's format-2 file (its reader evaluates the
// expressions, checks every key and fills this description) and the reference kernels'
// descriptors (kernels/descriptors/, written in C++ beside the CUDA kernels) go through
// derive_gpu_phase, so one set of rules serves both: DRAM and L2 traffic from footprints and the
// L2 reuse rule, L1 passes from the lines a warp access touches, bytes in flight from the
// independent reads, shared passes per access at its conflict degree. Every rule is stated, with
// the validation that chose it, in docs/workload-format.md ("How accesses become traffic").
//
// Counts are per launch, over all threads (one per lane that executes the access); bytes are
// bytes; flops count an FMA as 2. A description is assumed valid (the format-2 reader checks a
// file's values and names the file:line:key of a bad one); derive_gpu_phase throws InputError
// naming the kernel and access for a description that is not (an unknown `after`, a cycle).
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/gpu_kernels.hpp"

namespace perfmodel {

enum class AccessSpace { global, shared, constant, local };
enum class AccessKind { read, write, read_modify_write, atomic };
enum class AccessPattern { coalesced, strided, random, broadcast, gather };

// One memory instruction of the source (or a group that look alike), summed over the launch.
// 0 in footprint and window means "not given" (the format's default applies).
struct AccessDescription {
  std::string name;   // names the access for `array` and `after`
  std::string array;  // accesses of one array share a region; "" → the access's own name
  AccessSpace space = AccessSpace::global;
  AccessKind kind = AccessKind::read;
  AccessPattern pattern = AccessPattern::coalesced;
  bool pattern_given = false;  // atomics: no pattern means random over the footprint
  double element_bytes = 4;    // 1, 2, 4, 8 or 16
  double count = 0;            // lane accesses per launch
  double active_lanes = 32;
  double stride = 1;           // strided: elements between neighbouring lanes
  // Coalesced or broadcast: the lanes form runs of this many (a 2-D block narrower than a warp:
  // its x extent), each run at its own row, so in its own lines and sectors; a broadcast run
  // shares one address. 0: one run of all active lanes. `contiguous_lanes` in format 2.
  double contiguous_lanes = 0;
  // Coalesced or strided: the access's runs start this many elements past where consecutive runs
  // would (a stencil's neighbour at x − 2: −2); lines and sectors are counted where the runs fall,
  // averaged over the positions they cycle through within a line. `offset` in format 2.
  double offset = 0;
  double footprint = 0;        // bytes the addresses range over (0: the pattern's default)
  double sectors_per_warp = 32;  // random/gather
  double window = 0;           // random/gather/atomic: bytes addressed at one time (0: the footprint)
  double independent = 1;      // reads: loads a thread issues before it uses the first
  std::string after;           // a read that needs the value another read returned (a gather's index)
  double l1_hit = 0;           // global/local reads: share of sectors another access of the block just brought into L1
  double conflict_degree = 1;  // shared: bank-conflict degree
  double addresses_per_warp = 32;  // atomics and non-broadcast constant reads
  int warp_aggregated = -1;    // global atomics: -1 the default rule, 0 no, 1 yes
  std::string atomic_type;     // atomics: int32, fp32, fp64 ("" → fp64 for 8-byte elements, else int32)
  // The array lives in L2 across the task's launches (an earlier kernel left it there, a later one
  // uses it again, and it fits): its reads' first touches come from L2, not DRAM, and its writes
  // stay in L2 (no write-back by this launch). `l2_resident` in format 2.
  bool l2_resident = false;
  // A coalesced or strided read whose re-touches come back only after the launch has swept
  // `sweep` bytes of the array (a matrix operand every row of blocks reads whole): a re-touch
  // misses L2 with probability 1 − C/sweep, C the L2 capacity. 0: re-touches come from
  // neighbouring warps running at the same time and hit. `sweep` in format 2.
  double sweep = 0;
};

struct MmaWork {
  double m = 16, n = 8, k = 16;  // the instruction's shape
  double flops = 0;              // 2·M·N·K over the launch
};

// Arithmetic per launch (format 2's `work`).
struct WorkDescription {
  double fp32 = 0, fp64 = 0, fp16 = 0, bf16 = 0, fp16x2 = 0, bf16x2 = 0, integer = 0;
  double special = 0, special_fast = 0, shuffles = 0;
  std::vector<MmaWork> mma;
};

// The longest dependent chain of one thread (format 2's `chain`), in steps of each latency.
struct ChainDescription {
  double fp32 = 0, fp64 = 0, fp16 = 0, integer = 0, special = 0, shared_loads = 0, l1_loads = 0, l2_loads = 0, dram_loads = 0;
};

struct KernelDescription {
  std::string name = "kernel";  // the phase name (for a reference kernel, its CUDA kernel's)
  double launches = 1;
  double grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  double registers = 32, shared_bytes = 0;
  std::vector<AccessDescription> accesses;
  WorkDescription work;
  std::optional<ChainDescription> chain;         // absent: derived from the accesses
  std::optional<double> warp_instructions;       // absent: derived; given: a compiled count, stated where given
  // With a given warp_instructions: the share of them on the integer pipes (IMAD, IADD3, ISETP,
  // LEA, LOP3, SHF, SEL, ...: Nsight Compute's executed-instruction mix), issued at the profile's
  // integer rate. Absent: 0 (all at the FP32 instruction rate).
  std::optional<double> integer_share;
  // Bytes one warp-wide load moves from L2/DRAM, where the compiled code's requests differ from
  // what the reads' sectors give (absent: derived). `request_bytes` in format 2.
  std::optional<double> request_bytes;
  bool loads_issued_together = false;
  bool staged_tiles = false;
  bool fetch_rounds_in_chain = false;
  // __syncthreads() a block passes after its global loads (format 2's `barriers`); absent: derived
  // (docs/workload-format.md, "Barriers").
  std::optional<double> barriers;
};

// What the derivation reads from the machine: the L2 capacity decides what stays in L2; with a
// calibration, sparse reads cost the measured strided-read table and FP16/INT/fast special work
// its measured rates (without one: sectors only, the FP32 rate).
struct DerivationContext {
  double l2_bytes = 50e6;
  const GpuCalibration* gpu = nullptr;
};

// The descriptor of one launch (GpuPhase, with `launches`) from its description, by the rules of
// docs/workload-format.md. Lines the prediction rests on that the profile did not measure are
// appended to `notes` (once each) when given.
GpuPhase derive_gpu_phase(const KernelDescription& kernel, const DerivationContext& context,
                          std::vector<std::string>* notes = nullptr);

// FP32 issue slots one integer instruction takes: the FP32 instruction rate over the profile's
// int32_logic rate (a shift/xor/add chain as the compiler spreads it over the ALU and FMA pipes);
// 4/3 without a profile or that ceiling (`measured` false).
double integer_issue_slots(const GpuCalibration* gpu, bool* measured = nullptr);

// The flops of one launch of the description (FP32, FP64, FP16/BF16 and mma; for flop/s).
double description_flops(const KernelDescription& kernel);

// A reference kernel's phases as the kernel descriptions its descriptor derives them from
// (kernels/descriptors/reference_descriptors.cpp), in the order of describe_gpu_kernel's phases:
// every phase but a cudaMemsetAsync (no kernel) and cholesky-single's (counted by hand, stated
// there). Throws InputError as describe_gpu_kernel.
std::vector<KernelDescription> reference_kernel_descriptions(const std::string& kernel, double n, const KernelConfig& config,
                                                             const ResourceTable& resources, double l2_bytes_capacity);

}  // namespace perfmodel
