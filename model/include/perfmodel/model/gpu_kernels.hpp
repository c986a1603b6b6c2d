#pragma once
// The GPU reference kernels as the model sees them: which variants exist, which launch
// configurations each was compiled for, S0's launch rule for each, and the workload
// descriptor — what one run moves and computes at every level of the memory hierarchy, as a
// function of n and the launch configuration. kernels/cuda implements exactly these; the
// descriptor is the single source for reported bandwidths and for predictions.
//
// Units: bytes, flops, warp-wide accesses ("wavefronts": one pass of the L1/shared pipeline,
// 128 B). Single precision throughout, as in the seeds.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perfmodel {

// A launch configuration: block (x, y) and one kernel-specific parameter p (results per thread
// for mm-opt, blocks of the grid for dot, 0 where the kernel has none).
struct KernelConfig {
  int bx = 0, by = 1, p = 0;
  bool operator==(const KernelConfig& o) const { return bx == o.bx && by == o.by && p == o.p; }
  bool operator<(const KernelConfig& o) const {
    return bx != o.bx ? bx < o.bx : by != o.by ? by < o.by : p < o.p;
  }
};

// What the compiler made of one CUDA kernel (cudaFuncGetAttributes), per phase kernel.
struct KernelResources {
  int registers_per_thread = 0;
  int static_shared_bytes = 0;  // per block
  int max_threads_per_block = 0;
};

// One kernel launch (or `launches` identical ones) of a run. Counts are per launch, over all of
// its threads; "warp accesses" count warp-wide instructions.
struct GpuPhase {
  std::string name;  // the CUDA kernel, phase_kernel_names() spelling ("memset" for cudaMemsetAsync)
  double launches = 1;
  double grid_x = 1, grid_y = 1, block_x = 1, block_y = 1;
  double registers_per_thread = 0, shared_bytes_per_block = 0;  // from KernelResources when known

  double flops_fp32 = 0, flops_fp64 = 0;
  double special_calls = 0;        // cosf calls (many instructions each; their own ceiling)
  // Fast special-function calls (__sinf, __cosf, __expf: one MUFU instruction each on the SFU
  // pipe): they take one issue slot and run beside the other instructions, at the profile's
  // fast_cosf ceiling (the predictor's SFU term).
  double sfu_calls = 0;
  double warp_instructions = 0;    // issued warp instructions other than the special calls
  // Of warp_instructions, those a compiled count puts on the integer pipes (ALU and integer
  // multiply-add): the predictor issues each at the profile's integer rate (integer_issue_slots).
  // 0 for derived counts, whose integer operations enter warp_instructions already at that rate.
  double integer_warp_instructions = 0;
  double dram_bytes = 0;           // read + written at DRAM after L2 reuse (L2 flushed before a run)
  double l2_bytes = 0;             // sectors L1 passes on to L2, reads + writes
  double l1_wavefronts = 0;        // global load/store lookups at L1: distinct 128-B lines per warp access
  double l1_data_bytes = 0;        // distinct bytes those accesses move through L1's data path (a broadcast: 4)
  std::map<double, double> shared_accesses;  // conflict degree → warp-wide shared accesses (4-byte words)
  double loads_in_flight = 1;      // independent global loads a thread has outstanding
  // Of those, the loads that take a DRAM slot (the DRAM curve is read at these, the L2 latency
  // limit at all of them): the rest hit L1 on lines another access or warp brought (a stencil's
  // neighbours). 0: all of them (format-1 files, hand-counted descriptors).
  double dram_loads_in_flight = 0;
  double request_bytes = 128;      // bytes one warp-wide load request moves from L2/DRAM
  // The compiled kernel issues all loads_in_flight loads before it uses the first (SASS), and the
  // measured runs show them in flight together: the calibrated per-warp request limit, which the
  // microbenchmark's own load window sets, does not apply.
  bool loads_issued_together = false;
  // The main loop stages a tile through shared memory between two barriers: a block's global
  // loads and its shared-memory computation alternate, so only other blocks' phases can overlap
  // them (the predictor's staged-tile overlap).
  bool staged_tiles = false;
  // The chain counts each tile's fetch round trips as the compiled loop issues them (how many
  // dependent rounds of global loads a tile waits for, read off the SASS), so with one block per
  // SM and one wave a tile costs its rounds' latency, then its transfer, then its shared-memory
  // work, one after the other (the predictor's serial tile form).
  bool fetch_rounds_in_chain = false;
  // A block's serial phase: the __syncthreads() it passes after its global loads, each ending a
  // round of shared-memory work (a tree over the block: log2(threads) + 1), during which the
  // block holds its SM slot with no load in flight (the predictor's serial-phase form), and the
  // rounds of global loads a thread issues before it (its reads over loads_in_flight): the phase
  // comes once per that many load round trips.
  double barriers = 0, load_rounds = 1;
  // Of dram_bytes, the bytes written (stores and write-backs). A store does not hold its warp:
  // the written bytes stream while the warps wait for their loads, so they add bytes in flight
  // in proportion to their share (the predictor's DRAM term). 0: the descriptor does not split
  // its DRAM bytes, and they all count as reads.
  double dram_write_bytes = 0;
  // Atomic updates the busiest 32-byte sector receives (one per distinct address of a warp's
  // atomic access): the L2 applies the updates to one sector one after another, so the launch
  // lasts at least this many times the serial update time (the predictor's atomic term).
  double atomic_sector_updates = 0;
  // The same global atomic accesses one by one (workload format 2), for a profile that measured
  // atomics (gpu.atomics): the L2 applies a warp access's updates as steps (per 32-byte sector it
  // touches, as many as the most lanes on one of its words), at the measured time per step for
  // the bytes the updates spread over, and the updates of one word one after another (the
  // predictor's atomic term, gpu_compute.hpp). Empty: the predictor uses atomic_sector_updates
  // at the fitted constant.
  struct Atomic {
    std::string type = "int32";  // atomic_type_names(): int32, fp32, fp64
    double updates = 0;          // updates the L2 applies per launch (one per lane; one per warp access when warp-aggregated)
    double warp_accesses = 0;    // warp accesses per launch
    double steps_per_warp = 0;   // L2 steps of one warp access: Σ over its sectors of the most lanes on one word
    double words = 1;            // distinct addresses of the footprint (footprint / element bytes)
    double footprint_bytes = 0;  // the region the addresses range over
    double window_bytes = 0;     // the part of it updated at one time (the workload's `window`); 0: the default rule
    bool one_address_per_warp = false;  // every lane of a warp access on one address (addresses from the warp's or block's index)
    double sector_updates = 0;   // warp updates the busiest 32-byte sector receives (the fallback without gpu.atomics)
  };
  std::vector<Atomic> atomics;
  // Longest chain of dependent operations of one thread (a wave lasts at least this long): FMAs,
  // cosf calls, and loads that wait for an L1 hit, an L2 hit or a DRAM round trip.
  double chain_fma = 0, chain_cosf = 0, chain_l1_loads = 0, chain_l2_loads = 0, chain_dram_loads = 0;

  double threads_per_block() const { return block_x * block_y; }
  double blocks() const { return grid_x * grid_y; }
};

// A whole run of a reference kernel: its phases, and what the user-level metrics divide by.
struct GpuWorkload {
  std::string kernel;
  double n = 0;
  KernelConfig config;
  std::vector<GpuPhase> phases;
  double flops = 0;              // algorithmic flops (for GFLOP/s)
  double algorithmic_bytes = 0;  // compulsory bytes: inputs read once, outputs written once
  double h2d_bytes = 0, d2h_bytes = 0;  // host transfers the computation needs

  double dram_bytes() const {  // over all phases and launches
    double bytes = 0;
    for (const GpuPhase& p : phases) bytes += p.launches * p.dram_bytes;
    return bytes;
  }
};

struct GpuKernelSpec {
  std::string name;        // e.g. "mv-opt"
  std::string family;      // mv, mm, conv2d, dot, cg, cholesky, sgemm, cosine, matmul, blur
  std::string source;      // the seed listing it restates
  std::string description;
  std::string param_name;  // name of KernelConfig::p ("" when unused)
  std::vector<KernelConfig> configs;  // every configuration the kernel is compiled/valid for
  int min_n = 0, max_n = 0;                // sizes the validation runs
  int n_multiple = 1;                      // n must be a multiple of this for every config
};

// Every variant, in display order.
const std::vector<GpuKernelSpec>& gpu_kernel_specs();
// Throws InputError listing the known kernels.
const GpuKernelSpec& gpu_kernel_spec(const std::string& name);
// A kernel name, or a family name standing for its optimised variant (mv → mv-opt, mm → mm-opt,
// conv2d → conv2d-shared, cholesky → cholesky-opt, sgemm → sgemm-64; dot, cg, cosine, blur are
// both). Throws InputError as gpu_kernel_spec.
const GpuKernelSpec& gpu_kernel_or_family(const std::string& name);

// "32x8", "8x16/e16", "256/g528"; parse accepts the same, "32" for 32x1.
std::string to_string(const KernelConfig& c, const GpuKernelSpec& spec);
KernelConfig parse_kernel_config(const std::string& text, const GpuKernelSpec& spec);

// Why (n, config) cannot run, or "" when it can: unknown config, n not a multiple, too large.
std::string config_problem(const GpuKernelSpec& spec, double n, const KernelConfig& c);
// The configuration S0's rules (or the seed's stated choice) pick for n.
KernelConfig default_config(const GpuKernelSpec& spec, double n);

// Compiled resources per CUDA kernel name (recorded by `perfmodel validate` on the GPU).
using ResourceTable = std::map<std::string, KernelResources>;

// The workload descriptor of one run (kernels/descriptors/reference_descriptors.cpp: each kernel
// written as a format-2 kernel description and derived by derive_gpu_phase, kernel_description.hpp;
// cholesky-single's count is the one given by hand). `resources` supplies registers and static shared memory
// per phase kernel; a kernel missing from it gets the descriptor's own estimate and the phase
// name is listed in `missing` (when given). `l2_bytes_capacity` decides what stays in L2.
GpuWorkload describe_gpu_kernel(const std::string& kernel, double n, const KernelConfig& config,
                                const ResourceTable& resources, double l2_bytes_capacity,
                                std::vector<std::string>* missing = nullptr);

// The CUDA kernel name of a phase for a config, e.g. phase_kernel_name("mv-opt", {32,8}) →
// "mv_opt<32,8>". One name per compiled instantiation.
std::vector<std::string> phase_kernel_names(const std::string& kernel, const KernelConfig& config);

// Expected largest number of balls in one of `bins` bins when `balls` fall uniformly at random
// (bins may be fractional: linear between the neighbouring whole numbers; bins ≤ 1 gives balls).
double expected_max_load(int balls, double bins);
// L2 steps of one warp access of `lanes` lanes that fall at random on the words of a footprint of
// `footprint_bytes` (words of `element_bytes`), touching `addresses_per_warp` distinct words on
// average: the lanes spread uniformly over K' words, K' the word count whose expected distinct
// hits by `lanes` lanes is addresses_per_warp (at most the footprint's words); the K' words lie in
// min(K', sectors) 32-byte sectors; a sector takes as many steps as the most lanes on one of its
// words (its words are updated side by side, one word's lanes one after another).
double random_atomic_steps(double lanes, double addresses_per_warp, double footprint_bytes, double element_bytes);

}  // namespace perfmodel
