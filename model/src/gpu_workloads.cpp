// Workload descriptors of the GPU reference kernels (kernels/cuda): what one run issues and moves,
// counted from the kernels' code as functions of n and the launch configuration.
//
// Counting conventions (H100, and every GPU since Volta):
//  - a warp-wide global access costs one L1 wavefront per distinct 128-B line it touches;
//  - what reaches L2 is counted in 32-B sectors, after the reuse L1 provides within a block;
//  - DRAM sees the compulsory bytes (the L2 is flushed before each timed run), plus re-reads of
//    an operand that is swept repeatedly while it does not fit in L2;
//  - shared accesses are counted per warp instruction with their bank-conflict degree;
//  - warp instructions are the inner loops' instructions (loads, stores, FMAs, address and loop
//    overhead), as the compiled code shows them (cuobjdump -sass of the H100 build).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/kernel_workload.hpp"

namespace perfmodel {
namespace {

constexpr double kF = 4;        // bytes per float
constexpr double kWarp = 32;
constexpr double kLine = 128;   // L1 line
constexpr double kSector = 32;

// Lines of 128 B touched by `bytes` contiguous bytes starting `offset` bytes into a line.
double lines_spanned(double offset, double bytes) {
  const double start = std::fmod(offset, kLine);
  return std::ceil((start + bytes) / kLine);
}

// Sectors (32 B) covering `bytes` contiguous bytes at a sector-aligned start.
double sectors(double bytes) { return std::ceil(bytes / kSector); }

// Rows of a 2-D block that one warp spans (x fastest), and the lanes it has.
double rows_per_warp(double bx, double threads) { return std::ceil(std::min(kWarp, threads) / bx); }

// DRAM bytes of an operand of `footprint` bytes that the kernel sweeps `sweeps` times through L2:
// once when it fits (with a quarter of L2 left for the rest), otherwise the part that does not
// fit comes back from DRAM on every sweep.
double swept_dram(double footprint, double sweeps, double l2) {
  const double room = 0.75 * l2;
  if (footprint <= room || sweeps <= 1) return footprint;
  return footprint + (sweeps - 1) * (footprint - room);
}

struct Builder {
  const ResourceTable& resources;
  std::vector<std::string>* missing;

  GpuPhase phase(const std::string& name, double gx, double gy, double bx, double by, double est_regs, double est_shared) {
    GpuPhase p;
    p.name = name;
    p.grid_x = gx, p.grid_y = gy, p.block_x = bx, p.block_y = by;
    const auto it = resources.find(name);
    if (it != resources.end()) {
      p.registers_per_thread = it->second.registers_per_thread;
      p.shared_bytes_per_block = it->second.static_shared_bytes;
    } else {
      p.registers_per_thread = est_regs;
      p.shared_bytes_per_block = est_shared;
      if (missing && name != "memset") missing->push_back(name);
    }
    return p;
  }
};

GpuPhase memset_phase() {
  GpuPhase p;
  p.name = "memset";
  p.block_x = 32;
  return p;
}

// A vector kernel over n elements: `reads` and `writes` float streams, `instr` warp instructions per element-warp.
GpuPhase vector_phase(Builder& b, const std::string& name, double n, double block, double reads, double writes, double instr,
                      double flops) {
  GpuPhase p = b.phase(name, std::ceil(n / block), 1, block, 1, 16, 0);
  const double warps = std::ceil(n / kWarp);
  p.l1_wavefronts = warps * (reads + writes);
  p.l1_data_bytes = kLine * warps * (reads + writes);
  p.l2_bytes = kF * n * (reads + writes);
  p.dram_bytes = p.l2_bytes;
  p.dram_write_bytes = kF * n * writes;
  p.warp_instructions = warps * instr;
  p.flops_fp32 = flops;
  p.loads_in_flight = reads;
  p.chain_l2_loads = 1;
  return p;
}

// Dot product of n floats, block B, grid g (S2): grid-stride partial sums, shared tree, one atomic per block.
GpuPhase dot_phase(Builder& b, const std::string& name, double n, double block, double grid) {
  GpuPhase p = b.phase(name, grid, 1, block, 1, 16, block * kF);
  const double warps = grid * block / kWarp, iterations = std::ceil(n / (grid * block));
  p.flops_fp32 = 2 * n;
  p.l1_wavefronts = warps * iterations * 2 + grid;
  p.l1_data_bytes = kLine * warps * iterations * 2;
  p.l2_bytes = 2 * kF * n + grid * kSector;
  p.dram_bytes = 2 * kF * n;
  const double tree = std::log2(block);
  p.shared_accesses[1] = warps * (1 + 3 * tree);  // store, then load/load/store per level (upper levels partially idle)
  p.warp_instructions = warps * (iterations * 6 + tree * 6 + 8);
  p.loads_in_flight = 8;  // SASS: the grid-stride loop is unrolled 4 times, two loads each
  p.chain_fma = iterations;
  p.chain_l2_loads = 2 + tree / 4;  // the last loads, the tree's barrier round trips, the atomic
  return p;
}

// Dependent rounds of global loads per tile in the main loop of mv_opt<X,Y,const> as compiled for
// sm_90 by nvcc 13 (-O3): the compiler unrolls the tile loop and hoists the next tiles' loads above
// the barrier by a factor it picks per instantiation, so a tile of 32x16 waits for a quarter of a
// round trip and one of 64x16 for one and a half. Generated from the SASS recorded with every
// validation run by scripts/sass_load_rounds.py (data/profiles/runs/2026-11-23-h100-sass.txt.gz);
// the test sass_load_rounds_table fails when the two differ.
struct LoadRounds {
  int x, y;
  double per_tile;
};
constexpr LoadRounds kMvOptLoadRounds[] = {
    {64, 16, 1.5},  // LDGs per round [4, 2, 2]
    {64, 8, 1},  // LDGs per round [8]
    {64, 4, 2},  // LDGs per round [12, 4]
    {64, 2, 3},  // LDGs per round [11, 11, 10]
    {64, 1, 2},  // LDGs per round [51, 13]
    {32, 32, 0.3125},  // LDGs per round [4, 4, 4, 2, 2]
    {32, 16, 0.25},  // LDGs per round [8]
    {32, 8, 0.5},  // LDGs per round [8]
    {32, 4, 1},  // LDGs per round [8]
    {32, 2, 2},  // LDGs per round [7, 9]
    {32, 1, 1},  // LDGs per round [32]
    {16, 16, 0.3125},  // LDGs per round [4, 4, 4, 2, 2]
    {16, 8, 0.25},  // LDGs per round [8]
    {16, 4, 0.5},  // LDGs per round [8]
    {16, 2, 1},  // LDGs per round [8]
    {16, 1, 1},  // LDGs per round [16]
};

// mv-opt<X,Y>, b in constant memory (S0 4.16) or read from global memory (CG's p).
GpuPhase mv_opt_phase(Builder& b, const std::string& name, double n, double x, double y, bool global_b) {
  const double threads = x * y, blocks = n / x, r = x / y, tiles = n / x;
  GpuPhase p = b.phase(name, blocks, 1, x, y, 32, (x * (x + 1)) * kF);
  p.staged_tiles = true;
  const double warps = blocks * std::ceil(threads / kWarp);
  const double wf_per_load = rows_per_warp(x, threads);  // a warp spans this many rows of the tile
  const double loads = warps * tiles * r;                 // warp-wide A loads (= tile stores = tile reads)
  p.flops_fp32 = 2 * n * n;
  p.l1_wavefronts = loads * wf_per_load + (global_b ? loads : 0) + n / kWarp;
  p.l1_data_bytes = loads * kF * std::min(kWarp, threads) + (global_b ? loads * kF : 0) + kF * n;
  p.shared_accesses[1] = 2 * loads + blocks * y;  // tile stores and reads; the final Y-way reduction
  p.l2_bytes = kF * n * n + (global_b ? blocks * kF * n : 0) + kF * n;
  p.dram_bytes = kF * n * n + 2 * kF * n;
  p.dram_write_bytes = kF * n;  // c
  p.warp_instructions = loads * (global_b ? 6.5 : 5.5) + warps * tiles * 3;
  p.loads_in_flight = r;
  // A tile row narrower than a line (X = 16: 64 B) is fetched from DRAM as the whole line, and
  // the next tile finds its half in L2: a request brings a line per row it touches, and every
  // other tile's round trip ends in L2 (mv-opt 16x8 at n = 1024 ran in 16 µs, 87 % under what
  // 64-byte requests and a DRAM round trip per tile allowed).
  const double row_bytes = kF * std::min(x, kWarp), line_share = std::min(1.0, row_bytes / kLine);
  p.request_bytes = wf_per_load * kLine;
  // A one-warp block issues all R tile loads before its first shared store (SASS: LDG ×R, then
  // STS ×R), and they are in flight together: 32x1 at n = 4096 ran in 130 µs, where 4.5 requests
  // per warp would allow no less than 370 µs. Several warps per block do not show it (32x4).
  p.loads_issued_together = y == 1;
  // Per tile, a thread waits one round trip for its loads, then runs its R products in order,
  // each waiting on a shared-memory (and constant- or L1-cached b) load: R L1 latencies.
  p.chain_dram_loads = tiles * line_share;
  p.chain_l2_loads = tiles * (1 - line_share);
  p.chain_l1_loads = tiles * r;
  // With b in constant memory the compiled loop's own rounds are known (kMvOptLoadRounds), and each
  // tile also waits once for b: its X new floats miss the constant cache after the barrier and
  // come from L2 (the tile experiment: 64x16 at n = 4096 took 71 µs with b in constant memory,
  // 53 µs with b read through L1). CG's variant (b from global memory) keeps one round trip per
  // tile: its b loads share the rounds with A's and hit L1, which the round count cannot tell.
  if (!global_b)
    for (const LoadRounds& lr : kMvOptLoadRounds)
      if (lr.x == x && lr.y == y) {
        p.chain_dram_loads = tiles * lr.per_tile * line_share;
        p.chain_l2_loads = tiles * lr.per_tile * (1 - line_share) + tiles;
        p.fetch_rounds_in_chain = true;
      }
  return p;
}

// What every family's descriptor is a function of.
struct Request {
  std::string kernel;
  double n, X, Y, threads, l2;  // X, Y: the block; l2: the L2 capacity in bytes
  KernelConfig config;
  std::vector<std::string> names;  // phase kernel names
  Builder& builder;
};

void describe_mv(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n;
  const double X = req.X;
  const double Y = req.Y;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 2 * n * n;
  w.algorithmic_bytes = kF * (n * n + 2 * n);
  w.h2d_bytes = kF * (n * n + n), w.d2h_bytes = kF * n;
  if (kernel == "mv-opt") {
    w.phases.push_back(mv_opt_phase(b, names[0], n, X, Y, false));
    return;
  }
  if (kernel == "mv-global" || kernel == "mv-constant") {
    const bool global_b = kernel == "mv-global";
    GpuPhase p = b.phase(names[0], n / X, 1, X, 1, 32, 0);
    const double warps = n / kWarp;
    p.flops_fp32 = 2 * n * n;
    // Each warp access to A touches 32 rows: 32 lines (and 32 sectors, of which each lane uses
    // one float now and the next seven from L1 later).
    p.l1_wavefronts = warps * n * (kWarp + (global_b ? 1 : 0)) + warps;
    p.l1_data_bytes = warps * n * (kLine + (global_b ? kF : 0)) + kF * n;
    p.l2_bytes = kF * n * n + (n / X) * kF * n * (global_b ? 1 : 0) + kF * n;
    p.dram_bytes = kF * n * n + 2 * kF * n;
    p.dram_write_bytes = kF * n;  // c
    p.warp_instructions = warps * n * (global_b ? 3.5 : 3.0);
    p.loads_in_flight = 1;
    p.request_bytes = kWarp * kSector;  // a miss brings one sector per lane
    p.chain_fma = n;
    w.phases.push_back(p);
    return;
  }
  // mv-shared<X>: X-way (per warp: lanes·gcd(X,32)/32) conflicts on the column read.
  const double lanes = std::min(kWarp, X), tiles = n / X;
  GpuPhase p = b.phase(names[0], n / X, 1, X, 1, 32, X * X * kF);
  p.staged_tiles = true;
  const double warps = (n / X) * std::ceil(X / kWarp);
  const double accesses = warps * tiles * X;  // per warp: X loads, X stores, X reads per tile
  const double degree = lanes * std::gcd(static_cast<long>(X), 32L) / kWarp;
  p.flops_fp32 = 2 * n * n;
  p.l1_wavefronts = accesses * lines_spanned(0, kF * lanes) + warps;
  p.l1_data_bytes = accesses * kF * lanes + kF * n;
  p.shared_accesses[1] = accesses;
  p.shared_accesses[degree] += accesses;
  p.l2_bytes = kF * n * n + kF * n;
  p.dram_bytes = kF * n * n + 2 * kF * n;
  p.dram_write_bytes = kF * n;  // c
  p.warp_instructions = accesses * 5.5 + warps * tiles * 4;
  p.loads_in_flight = std::min(X, 8.0);
  p.request_bytes = kF * lanes;
  p.chain_fma = n;
  p.chain_l2_loads = tiles;
  w.phases.push_back(p);
}

void describe_mm(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n;
  const double X = req.X;
  const double Y = req.Y;
  const double threads = req.threads;
  const double l2 = req.l2;
  const KernelConfig& c = req.config;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 2 * n * n * n;
  w.algorithmic_bytes = 3 * kF * n * n;
  w.h2d_bytes = 2 * kF * n * n, w.d2h_bytes = kF * n * n;
  const double warps = n * n / kWarp;
  if (kernel == "mm-global" || kernel == "matmul") {
    const double bx = kernel == "matmul" ? 32 : X, by = kernel == "matmul" ? 32 : Y;
    const double gx = std::ceil(n / bx), gy = std::ceil(n / by);
    GpuPhase p = b.phase(names[0], gx, gy, bx, by, 32, 0);
    const double rows = rows_per_warp(bx, bx * by);
    p.flops_fp32 = 2 * n * n * n;
    // Per k: the A element of each row the warp spans (broadcast) and a contiguous B segment.
    p.l1_wavefronts = warps * n * (rows + 1) + warps;
    p.l1_data_bytes = warps * n * kF * (rows + std::min(kWarp, bx)) + kF * n * n;
    const double a_l2 = kF * n * n * n / bx, b_l2 = n * n * n * std::max(kF * bx, kSector) / (bx * by);
    p.l2_bytes = a_l2 + b_l2 + kF * n * n;
    // B is swept once per row of blocks; A's rows stay in L2 while their blocks run.
    p.dram_bytes = kF * n * n + swept_dram(kF * n * n, n / by, l2) + kF * n * n;
    p.dram_write_bytes = kF * n * n;  // C
    p.warp_instructions = warps * n * (kernel == "matmul" ? 4.0 : 3.5);
    p.loads_in_flight = 2;
    p.request_bytes = kF * std::min(kWarp, bx);
    p.chain_fma = n;
    w.phases.push_back(p);
    return;
  }
  if (kernel == "mm-shared") {
    const double t = X, tiles = n / t, rows = rows_per_warp(t, t * t);
    GpuPhase p = b.phase(names[0], n / t, n / t, t, t, 32, 2 * t * t * kF);
    p.staged_tiles = true;
    p.flops_fp32 = 2 * n * n * n;
    p.l1_wavefronts = warps * tiles * 2 * rows + warps;
    p.l1_data_bytes = warps * tiles * 2 * kLine + kF * n * n;
    // Two tile stores; per k a B row; the A row is read 4 k-values at a time (LDS.128, as the
    // compiled code does). A 128-bit shared load takes two passes even when it broadcasts.
    p.shared_accesses[1] = warps * tiles * (2 + t);
    p.shared_accesses[2] = warps * tiles * (t / 4);
    p.l2_bytes = 2 * kF * n * n * n / t + kF * n * n;
    p.dram_bytes = kF * n * n + swept_dram(kF * n * n, n / t, l2) + kF * n * n;
    p.dram_write_bytes = kF * n * n;  // C
    p.warp_instructions = warps * tiles * (8 + 2.25 * t);
    p.loads_in_flight = 2;
    p.request_bytes = kF * std::min(kWarp, t * t);
    p.chain_fma = n;
    p.chain_l2_loads = tiles;
    w.phases.push_back(p);
    return;
  }
  // mm-opt<X,Y,NE> (S0 4.17): bytes 4n³(1/(XY) + 1/NE) (S0 Eq 4.9/4.10 in bytes).
  const double ne = c.p, tiles = n / X;
  GpuPhase p = b.phase(names[0], n / (X * Y), n / ne, X, Y, 64, ne * X * kF);
  p.staged_tiles = true;
  const double tw = (n / (X * Y)) * (n / ne) * std::ceil(threads / kWarp);  // warps (a 16-thread block fills half of one)
  const double a_loads = tw * tiles * (ne / Y), b_loads = tw * tiles * X;
  p.flops_fp32 = 2 * n * n * n;
  p.l1_wavefronts = a_loads * rows_per_warp(X, threads) + b_loads + tw * ne;
  p.l1_data_bytes = (a_loads + b_loads) * kF * std::min(kWarp, threads) + kF * n * n;
  p.shared_accesses[1] = a_loads;                 // tile stores
  p.shared_accesses[2] = tw * tiles * X * ne / 4;  // 128-bit broadcast reads of 4 k-values: two passes each
  p.l2_bytes = kF * n * n * n * (1 / (X * Y) + 1 / ne) + kF * n * n;
  p.dram_bytes = swept_dram(kF * n * n, n / ne, l2) + kF * n * n + kF * n * n;
  p.dram_write_bytes = kF * n * n;  // C
  p.warp_instructions = tw * tiles * (2 * ne / Y + X + X * ne * 1.25 + 4);
  p.loads_in_flight = X;
  p.request_bytes = kF * kWarp;
  p.chain_fma = n;
  p.chain_l2_loads = tiles;
  w.phases.push_back(p);
}

// Column-major C ← α·A·B + β·C, M = N = K = n.
void describe_sgemm(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n;
  const double l2 = req.l2;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 2 * n * n * n + 3 * n * n;
  w.algorithmic_bytes = 4 * kF * n * n;
  w.h2d_bytes = 3 * kF * n * n, w.d2h_bytes = kF * n * n;
  if (kernel == "sgemm-256x16") {  // (16,16) threads, 256×16 tile, k-step 128, A streamed from global
    GpuPhase p = b.phase(names[0], n / 256, n / 16, 16, 16, 64, 128 * 16 * kF);
    p.staged_tiles = true;
    const double warps = n * n / 512, steps = n / 128;
    p.flops_fp32 = 2 * n * n * n + 3 * n * n;
    // Per step a warp loads 128 A words per lane (128-B lines) and 8 B words; it stores 8 words
    // into the slab (row stride 16 words: a 16-way conflict) and reads it as 128-bit broadcasts,
    // 4 per k (512 per step).
    p.l1_wavefronts = warps * steps * (128 + 8) + warps * 16 * 2;
    p.l1_data_bytes = kLine * (warps * steps * (128 + 8) + warps * 16 * 2);
    p.shared_accesses[16] = warps * steps * 8;
    p.shared_accesses[2] = warps * steps * 512;
    // A is read once per block column of 16: 4n³/16 bytes; B once per block row of 256.
    p.l2_bytes = kF * n * n * n * (1.0 / 16 + 1.0 / 256) + 2 * kF * n * n;
    p.dram_bytes = swept_dram(kF * n * n, n / 16, l2) + kF * n * n + 2 * kF * n * n;
    p.dram_write_bytes = kF * n * n;  // C
    p.warp_instructions = warps * steps * (2048 + 512 + 136 + 8 + 40);
    p.loads_in_flight = 4;
    p.request_bytes = kF * kWarp;
    p.chain_fma = n;
    p.chain_l2_loads = steps;
    w.phases.push_back(p);
    return;
  }
  if (kernel == "sgemm-tiled") {  // (32,8) threads, 32×32 tile, k-step 8
    GpuPhase p = b.phase(names[0], n / 32, n / 32, 32, 8, 40, 2 * 32 * 9 * kF);
    p.staged_tiles = true;
    const double warps = n * n / 128, steps = n / 8;
    p.flops_fp32 = 2 * n * n * n + 3 * n * n;
    p.l1_wavefronts = warps * steps * (1 + 32) + warps * 4 * 2;  // A coalesced; B: 32 columns per warp access
    p.l1_data_bytes = kLine * (warps * steps * 2 + warps * 4 * 2);
    // Two stores; the compiled code reads the tiles with 8 LDS and 9 LDS.128 per k-step (each
    // 128-bit read of 32 distinct rows takes two passes).
    p.shared_accesses[1] = warps * steps * (2 + 8);
    p.shared_accesses[2] = warps * steps * 9;
    p.l2_bytes = kF * n * n * n / 16 + 2 * kF * n * n;
    p.dram_bytes = swept_dram(kF * n * n, n / 32, l2) + swept_dram(kF * n * n, n / 32, l2) + 2 * kF * n * n;
    p.dram_write_bytes = kF * n * n;  // C
    p.warp_instructions = warps * steps * 64;
    p.loads_in_flight = 2;
    p.request_bytes = kF * kWarp;
    p.chain_fma = n;
    p.chain_l2_loads = steps;
    w.phases.push_back(p);
    return;
  }
  // sgemm-64: (16,16) threads, 64×64 tile, k-step 16, 4×4 results per thread.
  GpuPhase p = b.phase(names[0], n / 64, n / 64, 16, 16, 64, (16 * 64 + 64 * 17) * kF);
  p.staged_tiles = true;
  const double warps = n * n / 512, steps = n / 16;
  p.flops_fp32 = 2 * n * n * n + 3 * n * n;
  p.l1_wavefronts = warps * steps * (4 + 4 * 2) + warps * 16 * 2;
  p.l1_data_bytes = kLine * (warps * steps * 8 + warps * 16 * 2);
  p.shared_accesses[1] = warps * steps * (4 + 64);             // A tile stores; B reads (two addresses per warp: broadcast)
  p.shared_accesses[2] = warps * steps * (4 + 16);             // B tile stores (2-way); 128-bit A reads (two wavefronts)
  p.l2_bytes = kF * n * n * n / 32 + 2 * kF * n * n;
  p.dram_bytes = swept_dram(kF * n * n, n / 64, l2) + swept_dram(kF * n * n, n / 64, l2) + 2 * kF * n * n;
  p.dram_write_bytes = kF * n * n;  // C
  p.warp_instructions = warps * steps * 362;
  p.loads_in_flight = 8;
  p.request_bytes = kF * kWarp;
  p.chain_fma = n;
  p.chain_l2_loads = steps;
  w.phases.push_back(p);
}

void describe_conv2d(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n;
  const double X = req.X;
  const double Y = req.Y;
  const double threads = req.threads;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  static_assert(kConvFilter == 5, "the convolutions' instruction counts below were counted for a 5x5 filter");
  const double fs = kConvFilter, r = (fs - 1) / 2, taps = fs * fs;
  w.flops = 2 * taps * n * n;
  w.algorithmic_bytes = kF * (2 * n * n + taps);
  w.h2d_bytes = kF * (n * n + taps), w.d2h_bytes = kF * n * n;
  const double warps = n * n / kWarp, lanes = std::min(kWarp, X), rows = rows_per_warp(X, threads);
  // A warp's segment of a row starts at a multiple of its lane count; a tap shifts it by o floats.
  auto tap_lines = [&](double o) {
    double total = 0;
    const double starts = std::max(1.0, kLine / (kF * lanes));  // segment start positions within a line
    for (double s = 0; s < starts; ++s) total += lines_spanned(std::fmod(s * kF * lanes + kF * (o + kLine), kLine), kF * lanes);
    return total / starts;
  };
  if (kernel == "conv2d-global") {
    GpuPhase p = b.phase(names[0], n / X, n / Y, X, Y, 32, 0);
    double a_wf = 0;
    for (double o = -r; o <= r; ++o) a_wf += fs * tap_lines(o);
    p.flops_fp32 = 2 * taps * n * n;
    p.l1_wavefronts = warps * (rows * a_wf + taps) + warps;
    p.l1_data_bytes = warps * (taps * (kLine + kF) + kLine);
    const double blocks = (n / X) * (n / Y);
    p.l2_bytes = blocks * (Y + fs - 1) * sectors(kF * (X + fs - 1)) * kSector + kF * n * n;
    p.dram_bytes = 2 * kF * n * n;
    p.dram_write_bytes = kF * n * n;  // the output image
    // Nsight Compute (data/experiments/2026-11-23-h100-ncu): 282 warp instructions per output warp
    // at every size and block shape (the 25 taps' bounds checks and index arithmetic included).
    p.warp_instructions = warps * 282;
    p.loads_in_flight = taps;
    p.request_bytes = kF * lanes * rows;
    p.chain_fma = taps;
    p.chain_l2_loads = 1;
    w.phases.push_back(p);
    return;
  }
  // conv2d-shared<X,Y>: per filter row two staged loads of A; X=16 tiles (row of 2X = 32 words) put a
  // warp's two rows on the same banks: its tile stores and window reads are 2-way (Nsight Compute:
  // 96.3 shared wavefronts per output warp at 16x4, n = 4096; these counts give 97.5, 85 with the
  // stores conflict-free).
  GpuPhase p = b.phase(names[0], n / X, n / Y, X, Y, 32, (2 * X * Y + X) * kF);
  const double degree = std::fmod(2 * X, kWarp) == 0 ? rows : 1;
  p.flops_fp32 = 2 * taps * n * n;
  p.l1_wavefronts = warps * fs * rows * (tap_lines(-r) + tap_lines(-r + X)) + warps;
  p.l1_data_bytes = warps * (fs * 2 * kLine + kLine);
  p.shared_accesses[1] = warps * fs * fs + (n / X) * (n / Y) * fs;  // filter reads (broadcast), filter row stores
  p.shared_accesses[degree] += warps * fs * (2 + fs);               // tile stores, window reads
  const double blocks = (n / X) * (n / Y);
  p.l2_bytes = blocks * (Y + fs - 1) * sectors(kF * 2 * X) * kSector + kF * n * n;
  p.dram_bytes = 2 * kF * n * n;
  p.dram_write_bytes = kF * n * n;  // the output image
  // Nsight Compute (data/experiments/2026-11-23-h100-ncu): 209 warp instructions per output warp
  // plus 45 per block (the filter-row stores of the ty = 0 warp), within 2 % for every block shape
  // but 64x1 (5 % under).
  p.warp_instructions = warps * 209 + blocks * 45;
  p.loads_in_flight = 2;
  p.request_bytes = kF * lanes * rows;
  p.chain_fma = taps;
  p.chain_l2_loads = fs;
  w.phases.push_back(p);
}

void describe_dot(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double X = req.X;
  const KernelConfig& c = req.config;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 2 * n;
  w.algorithmic_bytes = 2 * kF * n;
  w.h2d_bytes = 2 * kF * n, w.d2h_bytes = kF;
  w.phases.push_back(memset_phase());
  w.phases.push_back(dot_phase(b, names[0], n, X, c.p));
}

void describe_cg(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double X = req.X;
  const double Y = req.Y;
  const double l2 = req.l2;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  const double it = kCgIterations, grid = std::min(std::ceil(n / 256), 528.0);  // dot blocks, as kernels/cuda runs it
  w.flops = it * (2 * n * n + 10 * n);
  w.algorithmic_bytes = kF * (n * n + 5 * n);
  w.h2d_bytes = kF * (n * n + n), w.d2h_bytes = kF * n;
  GpuPhase dots = dot_phase(b, names[0], n, 256, grid);
  dots.launches = 1 + 2 * it;
  w.phases.push_back(dots);
  // The first product reads A from DRAM (the L2 is flushed before a run); the others find it
  // in L2 when it fits there.
  GpuPhase mv = mv_opt_phase(b, names[1], n, X, Y, true);
  mv.launches = 1;
  w.phases.push_back(mv);
  if (kF * n * n <= 0.75 * l2) {
    mv.dram_bytes = 2 * kF * n;
    mv.chain_l2_loads += mv.chain_dram_loads;  // each tile's round trip ends in L2
    mv.chain_dram_loads = 0;
  }
  mv.launches = it - 1;
  w.phases.push_back(mv);
  GpuPhase xr = vector_phase(b, names[2], n, 256, 4, 2, 12, 4 * n);
  xr.launches = it;
  w.phases.push_back(xr);
  GpuPhase pu = vector_phase(b, names[3], n, 256, 2, 1, 8, 2 * n);
  pu.launches = it;
  w.phases.push_back(pu);
}

void describe_cholesky(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n;
  const double X = req.X;
  const double l2 = req.l2;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = n * n * n / 3;
  w.algorithmic_bytes = 2 * kF * n * n;
  w.h2d_bytes = kF * n * n, w.d2h_bytes = kF * n * n;
  const double fits = kF * n * n <= 0.75 * l2 ? 1 : 0;
  if (kernel == "cholesky-single") {
    // One block; per column k, thread t updates rows k+1+t, k+1+t+B, … along j (32 rows per warp access).
    GpuPhase p = b.phase(names[0], 1, 1, X, 1, 32, 0);
    const double updates = n * n * n / 6, warp_steps = updates / kWarp;
    p.flops_fp32 = 2 * updates;
    p.l1_wavefronts = warp_steps * (kWarp + 2 + kWarp) + n * n / kWarp;
    p.l1_data_bytes = warp_steps * 3 * kLine + kF * n * n;
    p.l2_bytes = updates * (kSector + kF) + kF * n * n;  // each lane's store writes a sector through to L2
    p.dram_bytes = fits ? 2 * kF * n * n : 2 * kF * updates;
    p.warp_instructions = warp_steps * 7 + n * 40;
    p.loads_in_flight = 2;
    p.request_bytes = kWarp * kSector;
    p.chain_l2_loads = 4 * n;  // per column: sqrt read, divisions, barrier round trips
    w.phases.push_back(p);
    return;
  }
  // cholesky-opt: per column k a division kernel (one block) and an elimination kernel (n−k−1
  // blocks, block i updates row i from column i on). Columns are grouped in buckets of equal
  // launches, each described at its mean column.
  const double buckets = std::min(n, 64.0), per = n / buckets;
  for (double bk = 0; bk < buckets; ++bk) {
    const double k = (bk + 0.5) * per, rest = n - k;  // rows below and including the mean column
    GpuPhase d = b.phase(names[0], 1, 1, X, 1, 16, 0);
    d.launches = per;
    d.flops_fp32 = rest;
    d.l1_wavefronts = 2 * std::ceil(rest / kWarp);
    d.l1_data_bytes = 2 * kF * rest;
    d.l2_bytes = 2 * kF * rest + kSector;
    d.dram_bytes = fits ? 0 : 2 * kF * rest;
    d.warp_instructions = std::ceil(rest / kWarp) * 8 + 40;
    d.chain_l2_loads = 3;
    w.phases.push_back(d);
    const double rows = std::max(1.0, rest - 1);
    GpuPhase e = b.phase(names[1], rows, 1, X, 1, 16, 0);
    e.launches = bk + 1 < buckets ? per : std::max(0.0, per - 1);
    const double elements = rows * (rows + 1) / 2;                         // Σ over rows of the row's length
    const double warp_steps = elements / kWarp + rows * X / kWarp / 2;       // plus the idle lanes of each row's last pass
    e.flops_fp32 = 2 * elements;
    e.l1_wavefronts = warp_steps * 3 * 1.5;  // u_kj, u_ij loads and the u_ij store; rows start unaligned
    e.l1_data_bytes = warp_steps * 3 * kLine;
    e.l2_bytes = 3 * kF * elements;
    // The trailing triangle stays in L2 once it fits; before that, rows stream from DRAM.
    const bool trailing_fits = fits || 2 * rest * rest <= 0.75 * l2;
    e.dram_bytes = trailing_fits ? kF * n * n * 2 * elements / (n * n * n / 3) : 2 * kF * elements;
    e.warp_instructions = warp_steps * 6 + rows * (X / kWarp) * 10;
    e.loads_in_flight = 2;
    e.chain_l2_loads = 2 + std::ceil(rows / X);
    w.phases.push_back(e);
  }
}

void describe_cosine(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double X = req.X;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 10.0 * kCosineRepeats * n;
  w.algorithmic_bytes = 2 * kF * n;
  w.h2d_bytes = kF * n, w.d2h_bytes = kF * n;
  GpuPhase p = b.phase(names[0], std::ceil(n / X), 1, X, 1, 16, 0);
  const double warps = std::ceil(n / kWarp);
  p.special_calls = kCosineRepeats * n;
  p.l1_wavefronts = 2 * warps;
  p.l1_data_bytes = 2 * kLine * warps;
  p.l2_bytes = p.dram_bytes = 2 * kF * n;
  p.dram_write_bytes = kF * n;  // the output
  // Per call, besides the call's own instructions (in the cosf ceiling): the loop counter,
  // compare and branch and cosf's argument-range test (SASS: ≈ 5).
  p.warp_instructions = warps * (12 + 5.0 * kCosineRepeats);
  p.chain_cosf = kCosineRepeats;
  p.chain_l2_loads = 2;
  w.phases.push_back(p);
}

void describe_blur(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double X = req.X;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  const double window = (2.0 * kBlurRadius + 1) * (2.0 * kBlurRadius + 1), pixels = n * n;
  w.flops = 3 * window * pixels;  // integer adds
  w.algorithmic_bytes = 6 * pixels;
  w.h2d_bytes = 3 * pixels, w.d2h_bytes = 3 * pixels;
  GpuPhase p = b.phase(names[0], std::ceil(pixels / X), 1, X, 1, 32, 0);
  const double warps = std::ceil(pixels / kWarp);
  // Each of a warp's three byte loads per window pixel spans 96 B of a row: one or two lines.
  const double per_load = (lines_spanned(0, 96) + lines_spanned(96, 96) + lines_spanned(64, 96) + lines_spanned(32, 96)) / 4;
  p.l1_wavefronts = warps * (window * 3 * per_load + 3 * per_load);
  p.l1_data_bytes = warps * (window + 1) * 3 * kWarp;  // byte loads: 32 distinct bytes per warp access
  const double blocks = std::ceil(pixels / X), span = std::min(X, n);
  p.l2_bytes = blocks * (2 * kBlurRadius + 1) * std::ceil(X / n) * sectors(3 * (span + 2 * kBlurRadius)) * kSector + 3 * pixels;
  p.dram_bytes = 6 * pixels;
  p.dram_write_bytes = 3 * pixels;  // the output image
  // SASS: 261 instructions per window column of 11 pixels (a 4-way unrolled loop of 83 for 4
  // pixels, twice, the 3-pixel remainder, the column overhead): ≈ 24 per window pixel.
  p.warp_instructions = warps * (window * 261.0 / 11 + 60);
  p.loads_in_flight = 3;
  p.request_bytes = 96;
  p.chain_l2_loads = 1;
  w.phases.push_back(p);
}

GpuWorkload describe(const std::string& kernel, double n, const KernelConfig& c, Builder& b, double l2) {
  GpuWorkload w;
  w.kernel = kernel;
  w.n = n;
  w.config = c;
  const Request r{kernel, n, static_cast<double>(c.bx), static_cast<double>(c.by), static_cast<double>(c.bx) * c.by, l2, c,
                  phase_kernel_names(kernel, c), b};
  using Describe = void (*)(const Request&, GpuWorkload&);
  static const std::map<std::string, Describe> families = {
      {"mv", describe_mv},
      {"mm", describe_mm},
      {"sgemm", describe_sgemm},
      {"conv2d", describe_conv2d},
      {"dot", describe_dot},
      {"cg", describe_cg},
      {"cholesky", describe_cholesky},
      {"cosine", describe_cosine},
      {"blur", describe_blur}};
  const auto it = families.find(gpu_kernel_spec(kernel).family);
  if (it == families.end()) throw InputError("no workload descriptor for GPU kernel '" + kernel + "'");
  it->second(r, w);
  return w;
}

}  // namespace

GpuWorkload describe_gpu_kernel_counted(const std::string& kernel, double n, const KernelConfig& config, const ResourceTable& resources,
                                double l2_bytes_capacity, std::vector<std::string>* missing) {
  const GpuKernelSpec& spec = gpu_kernel_spec(kernel);
  const std::string problem = config_problem(spec, n, config);
  if (!problem.empty()) throw InputError(kernel + ": " + problem);
  Builder b{resources, missing};
  return describe(kernel, n, config, b, l2_bytes_capacity > 0 ? l2_bytes_capacity : 50e6);
}

}  // namespace perfmodel
