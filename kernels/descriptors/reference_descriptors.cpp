// Workload descriptors of the GPU reference kernels (kernels/cuda), written as format-2 kernel
// descriptions (model/include/perfmodel/model/kernel_description.hpp) and derived by the same
// derive_gpu_phase that reads a user's workload file: accesses with their space, kind, pattern,
// count, footprint and conflict degree, work by type, the chain. Nothing here counts lines,
// sectors or DRAM bytes; those come from the shared rules (docs/workload-format.md, "How
// accesses become traffic").
//
// Given values, not derived (each stated where it is given):
//  - warp_instructions: the compiled kernels' instruction counts per loop (read off the H100
//    build's SASS, or Nsight Compute's count for the convolutions);
//  - chain: the compiled loops' dependent rounds (mv-opt's from its SASS: kMvOptLoadRounds);
//  - request_bytes where the compiled requests differ from what the reads' sectors give;
//  - registers and shared memory: the compiled kernel's (`resources`), the estimate here where
//    the run recorded none;
//  - the staged-tile and serial-tile forms (staged_tiles, fetch_rounds_in_chain), chosen by the
//    validations predictors/gpu_compute.hpp states.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/kernel_description.hpp"
#include "perfmodel/model/kernel_workload.hpp"

namespace perfmodel {

namespace {

constexpr double kF = 4;  // bytes per float
constexpr double kWarp = 32;

AccessDescription access(const std::string& name, AccessKind kind, double count, const std::string& array = "") {
  AccessDescription a;
  a.name = name;
  a.array = array;
  a.kind = kind;
  a.count = count;
  return a;
}
AccessDescription read(const std::string& name, double count, const std::string& array = "") {
  return access(name, AccessKind::read, count, array);
}
AccessDescription write(const std::string& name, double count, const std::string& array = "") {
  return access(name, AccessKind::write, count, array);
}
// A shared-memory access of `count` lane accesses of `element_bytes` at `degree`-way conflicts.
AccessDescription shared(const std::string& name, AccessKind kind, double count, double degree = 1, double element_bytes = 4) {
  AccessDescription a = access(name, kind, count);
  a.space = AccessSpace::shared;
  a.conflict_degree = degree;
  a.element_bytes = element_bytes;
  return a;
}

// What every family's descriptor is a function of.
// Of each compiled kernel's executed warp instructions, the share on the integer pipes (IMAD,
// IADD3, ISETP, LEA, LOP3, SHF, SEL, VIADD, IMNMX, VIMNMX, IABS, PRMT, PLOP3, POPC, FLO, BREV,
// BMSK; not MOV): Nsight Compute's sass__inst_executed_per_opcode over one launch of
// `perfmodel validate --quick --only KERNEL` (sm_90 build, nvcc 13.0, 2026-11-27;
// data/profiles/runs/2026-11-27-h100-instruction-mix.txt). Keyed by the kernel's name up to its
// template arguments (one launch's mix stands for every size and configuration; mv_opt's variant
// reading the vector from global memory, inside CG, has its own); a kernel not listed: 0.
double integer_share(const std::string& name) {
  static const std::map<std::string, double> shares = {
      {"blur_kernel", 0.724},   {"chol_division", 0.262}, {"chol_elimination", 0.582}, {"chol_single", 0.335},
      {"conv_global", 0.571},   {"conv_shared", 0.365},   {"cosine_loop", 0.258},      {"dot_kernel", 0.528},
      {"matmul_naive", 0.433},  {"mm_global", 0.433},     {"mm_opt", 0.097},           {"mm_shared", 0.176},
      {"mv_constant", 0.093},   {"mv_global", 0.111},     {"mv_opt", 0.258},           {"mv_shared", 0.318},
      {"sgemm_256x16", 0.058},  {"sgemm_64", 0.036},      {"sgemm_tiled", 0.164}};
  if (name.rfind("mv_opt<", 0) == 0 && name.find(",global>") != std::string::npos) return 0.386;
  const auto it = shares.find(name.substr(0, name.find('<')));
  return it == shares.end() ? 0.0 : it->second;
}

struct Request {
  std::string kernel;
  double n, X, Y, threads, l2;  // X, Y: the block; l2: the L2 capacity in bytes
  KernelConfig config;
  std::vector<std::string> names;  // phase kernel names
  const ResourceTable& resources;
  std::vector<std::string>* missing;

  // A kernel of grid (gx, gy), block (bx, by) with the compiled registers and shared memory of
  // `name`, or the estimates where the run recorded none (the name is then listed as missing).
  KernelDescription launch(const std::string& name, double gx, double gy, double bx, double by, double est_regs, double est_shared) const {
    KernelDescription k;
    k.name = name;
    k.grid[0] = gx, k.grid[1] = gy, k.block[0] = bx, k.block[1] = by;
    const auto it = resources.find(name);
    if (it != resources.end()) {
      k.registers = it->second.registers_per_thread;
      k.shared_bytes = it->second.static_shared_bytes;
    } else {
      k.registers = est_regs, k.shared_bytes = est_shared;
      if (missing) missing->push_back(name);
    }
    return k;
  }
  std::vector<KernelDescription>* descriptions = nullptr;  // when set, every description derived is recorded here
  GpuPhase derive(KernelDescription k) const {
    if (k.warp_instructions && !k.integer_share) k.integer_share = integer_share(k.name);
    if (descriptions) descriptions->push_back(k);
    return derive_gpu_phase(k, DerivationContext{l2, nullptr});
  }
};

ChainDescription chain_fma_l2(double fma, double l2_loads) {
  ChainDescription c;
  c.fp32 = fma, c.l2_loads = l2_loads;
  return c;
}

AccessDescription with_footprint(AccessDescription a, double footprint) {
  a.footprint = footprint;
  return a;
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

// b read by every product: from constant memory (one address a warp access), or from global
// memory (CG's p: the block's warps find it in L1 but for the first touch of each sector).
AccessDescription vector_b(double count, double n, double block_x, bool global_b) {
  AccessDescription b = with_footprint(read("b", count), kF * n);
  b.pattern = AccessPattern::broadcast, b.pattern_given = true;
  if (global_b)
    b.l1_hit = 1 - 4 / block_x;  // a block's n·X/32 warp accesses touch its n/8 sectors once each
  else
    b.space = AccessSpace::constant;
  return b;
}

// mv-opt<X,Y>: Y threads per row, an X×X tile of A staged through shared memory (padded), R = X/Y
// products per thread and tile; b in constant memory (White (2013) Listing 4.16) or read from
// global memory (CG's variant).
GpuPhase mv_opt_phase(const Request& req, const std::string& name, double n, double x, double y, bool global_b,
                      bool a_in_l2 = false, double launches = 1) {
  const double threads = x * y, blocks = n / x, r = x / y, tiles = n / x, lanes = std::min(kWarp, threads);
  KernelDescription k = req.launch(name, blocks, 1, x, y, 32, (x * (x + 1)) * kF);
  k.launches = launches;
  k.staged_tiles = true;
  const double warps = blocks * std::ceil(threads / kWarp);
  const double loads = warps * tiles * r;  // warp-wide A loads (= tile stores = tile reads)
  AccessDescription a = read("a", loads * lanes, "A");
  a.active_lanes = lanes, a.contiguous_lanes = std::min(x, kWarp), a.independent = r;
  a.l2_resident = a_in_l2;
  AccessDescription b = vector_b(loads * lanes, n, x, global_b);
  b.active_lanes = lanes;
  AccessDescription store = shared("tile_store", AccessKind::write, loads * lanes), load = shared("tile_read", AccessKind::read, loads * lanes);
  store.active_lanes = load.active_lanes = lanes;
  AccessDescription reduce = shared("row_reduce", AccessKind::read, blocks * y * kWarp);  // the final Y-way reduction
  k.accesses = {a, b, write("c", n), store, load, reduce};
  k.work.fp32 = 2 * n * n;
  k.warp_instructions = loads * (global_b ? 6.5 : 5.5) + warps * tiles * 3;  // SASS: per tile load and per tile
  // A tile row narrower than a line (X = 16: 64 B) is fetched from DRAM as the whole line, and
  // the next tile finds its half in L2: a request brings a line per row it touches, and every
  // other tile's round trip ends in L2 (mv-opt 16x8 at n = 1024 ran in 16 µs, 87 % under what
  // 64-byte requests and a DRAM round trip per tile allowed).
  const double wf_per_load = std::ceil(lanes / x), row_bytes = kF * std::min(x, kWarp), line_share = std::min(1.0, row_bytes / 128);
  k.request_bytes = wf_per_load * 128;
  // A one-warp block issues all R tile loads before its first shared store (SASS: LDG ×R, then
  // STS ×R), and they are in flight together: 32x1 at n = 4096 ran in 130 µs, where 4.5 requests
  // per warp would allow no less than 370 µs. Several warps per block do not show it (32x4).
  k.loads_issued_together = y == 1;
  // Per tile, a thread waits one round trip for its loads, then runs its R products in order,
  // each waiting on a shared-memory (and constant- or L1-cached b) load: R L1 latencies.
  ChainDescription c;
  c.dram_loads = tiles * line_share;
  c.l2_loads = tiles * (1 - line_share);
  c.shared_loads = tiles * r;
  // With b in constant memory the compiled loop's own rounds are known (kMvOptLoadRounds), and each
  // tile also waits once for b: its X new floats miss the constant cache after the barrier and
  // come from L2 (the tile experiment: 64x16 at n = 4096 took 71 µs with b in constant memory,
  // 53 µs with b read through L1). CG's variant (b from global memory) keeps one round trip per
  // tile: its b loads share the rounds with A's and hit L1, which the round count cannot tell.
  if (!global_b)
    for (const LoadRounds& lr : kMvOptLoadRounds)
      if (lr.x == x && lr.y == y) {
        c.dram_loads = tiles * lr.per_tile * line_share;
        c.l2_loads = tiles * lr.per_tile * (1 - line_share) + tiles;
        k.fetch_rounds_in_chain = true;
      }
  if (a_in_l2) c.l2_loads += c.dram_loads, c.dram_loads = 0;  // each tile's round trip ends in L2
  k.chain = c;
  return req.derive(k);
}

// c = A·b, n×n floats.
void describe_mv(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n, X = req.X, Y = req.Y;
  w.flops = 2 * n * n;
  w.algorithmic_bytes = kF * (n * n + 2 * n);
  w.h2d_bytes = kF * (n * n + n), w.d2h_bytes = kF * n;
  if (kernel == "mv-opt") {
    w.phases.push_back(mv_opt_phase(req, req.names[0], n, X, Y, false));
    return;
  }
  if (kernel == "mv-global" || kernel == "mv-constant") {
    // Thread i runs over row i: lane i reads A[i][k], n floats from its neighbour (32 lines a
    // warp access; each lane's sector serves its next 7 k from L1), and b[k] (one address).
    const bool global_b = kernel == "mv-global";
    KernelDescription k = req.launch(req.names[0], n / X, 1, X, 1, 32, 0);
    AccessDescription a = with_footprint(read("a", n * n, "A"), kF * n * n);
    a.pattern = AccessPattern::strided, a.stride = n;
    a.l1_hit = 7.0 / 8;
    k.accesses = {a, vector_b(n * n, n, X, global_b), write("c", n)};
    k.work.fp32 = 2 * n * n;
    k.warp_instructions = n / kWarp * n * (global_b ? 3.5 : 3.0);  // SASS: per k and warp
    k.chain = chain_fma_l2(n, 0);
    w.phases.push_back(req.derive(k));
    return;
  }
  // mv-shared<X>: a block of X threads stages an X×X tile of A row by row, then each thread reads
  // its row down a column: X-way (per warp: lanes·gcd(X,32)/32) bank conflicts.
  const double lanes = std::min(kWarp, X), tiles = n / X;
  KernelDescription k = req.launch(req.names[0], n / X, 1, X, 1, 32, X * X * kF);
  k.staged_tiles = true;
  const double warps = (n / X) * std::ceil(X / kWarp);
  const double accesses = warps * tiles * X;  // per warp: X loads, X stores, X reads per tile
  const double degree = lanes * std::gcd(static_cast<long>(X), 32L) / kWarp;
  AccessDescription a = read("a", accesses * lanes, "A");
  a.active_lanes = lanes, a.independent = std::min(X, 8.0);
  AccessDescription store = shared("tile_store", AccessKind::write, accesses * lanes),
                    load = shared("tile_read", AccessKind::read, accesses * lanes, degree);
  store.active_lanes = load.active_lanes = lanes;
  k.accesses = {a, vector_b(n * n, n, X, false), write("c", n), store, load};
  k.work.fp32 = 2 * n * n;
  k.warp_instructions = accesses * 5.5 + warps * tiles * 4;  // SASS: per tile access and per tile
  k.chain = chain_fma_l2(n, tiles);
  w.phases.push_back(req.derive(k));
}

// C = A·B, n×n floats, row-major.
void describe_mm(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n, X = req.X, Y = req.Y, threads = req.threads;
  w.flops = 2 * n * n * n;
  w.algorithmic_bytes = 3 * kF * n * n;
  w.h2d_bytes = 2 * kF * n * n, w.d2h_bytes = kF * n * n;
  const double matrix = kF * n * n, warps = n * n / kWarp;
  if (kernel == "mm-global" || kernel == "matmul") {
    // Thread (x, y) computes C[row][col] over k: per k, A[row][k] (one address per row its warp
    // spans: a broadcast per row; the next 7 k come from the same sector in L1) and B[k][col..]
    // (the block's x extent; the warp's rows read the same segment, the block's other warps
    // find it in L1). B is swept whole by every row of blocks.
    const double bx = kernel == "matmul" ? 32 : X, by = kernel == "matmul" ? 32 : Y, lanes = std::min(kWarp, bx);
    KernelDescription k = req.launch(req.names[0], std::ceil(n / bx), std::ceil(n / by), bx, by, 32, 0);
    AccessDescription a = with_footprint(read("a", n * n * n, "A"), matrix);
    a.pattern = AccessPattern::broadcast, a.pattern_given = true;
    a.contiguous_lanes = lanes;
    a.l1_hit = 7.0 / 8;
    // The warp's rows read one segment: `lanes` distinct lanes a warp access.
    AccessDescription b = with_footprint(read("b", n * n * n * lanes / kWarp, "B"), matrix);
    b.active_lanes = lanes;
    b.l1_hit = 1 - kWarp / (bx * by);
    b.sweep = matrix;
    AccessDescription c = write("c", n * n, "C");
    c.contiguous_lanes = lanes;
    k.accesses = {a, b, c};
    k.work.fp32 = 2 * n * n * n;
    // SASS: 3.5 warp instructions per k (4 in matmul's loop).
    k.warp_instructions = warps * n * (kernel == "matmul" ? 4.0 : 3.5);
    k.request_bytes = kF * lanes;  // B's segment: A's broadcasts are L1 hits
    k.chain = chain_fma_l2(n, 0);
    w.phases.push_back(req.derive(k));
    return;
  }
  if (kernel == "mm-shared") {
    // Two t×t tiles staged per step (data/workloads/reference/mm-shared-32x32.yaml is the same
    // description at t = 32); per k a B row, the A row 4 k-values at a time (LDS.128, as
    // compiled: two passes even as it broadcasts).
    const double t = X, tiles = n / t;
    KernelDescription k = req.launch(req.names[0], n / t, n / t, t, t, 32, 2 * t * t * kF);
    k.staged_tiles = true;
    AccessDescription a = with_footprint(read("a_tile", n * n * n / t, "A"), matrix);
    AccessDescription b = with_footprint(read("b_tile", n * n * n / t, "B"), matrix);
    a.contiguous_lanes = b.contiguous_lanes = std::min(t, kWarp);
    b.sweep = matrix;
    AccessDescription c = write("c", n * n, "C");
    c.contiguous_lanes = std::min(t, kWarp);
    k.accesses = {a, b, c, shared("tile_stores", AccessKind::write, 2 * n * n * n / t), shared("b_row", AccessKind::read, n * n * n),
                  shared("a_row", AccessKind::read, n * n * n / 4, 2)};
    k.work.fp32 = 2 * n * n * n;
    k.warp_instructions = warps * tiles * (8 + 2.25 * t);  // SASS: per tile and warp
    k.chain = chain_fma_l2(n, tiles);
    w.phases.push_back(req.derive(k));
    return;
  }
  // mm-opt<X,Y,NE> (White (2013) Listing 4.17): each thread computes NE results of a column; per
  // tile of X k-values a block stages an NE×X tile of A (NE/Y loads a thread) and each thread
  // reads X values of B from global memory (bytes 4n³(1/(XY) + 1/NE), White (2013) Eq 4.9/4.10).
  const double ne = req.config.p, tiles = n / X, lanes = std::min(kWarp, threads);
  KernelDescription k = req.launch(req.names[0], n / (X * Y), n / ne, X, Y, 64, ne * X * kF);
  k.staged_tiles = true;
  const double tw = (n / (X * Y)) * (n / ne) * std::ceil(threads / kWarp);  // warps (a 16-thread block fills half of one)
  const double a_loads = tw * tiles * (ne / Y), b_loads = tw * tiles * X;  // warp accesses
  AccessDescription a = with_footprint(read("a_tile", a_loads * lanes, "A"), matrix);
  a.active_lanes = lanes, a.contiguous_lanes = std::min(X, kWarp);
  AccessDescription b = with_footprint(read("b", b_loads * lanes, "B"), matrix);
  b.active_lanes = lanes;
  b.independent = X;  // the X loads of a tile's column before the first FMA
  b.sweep = matrix;
  AccessDescription c = write("c", n * n, "C");
  c.active_lanes = lanes;
  AccessDescription store = shared("tile_store", AccessKind::write, a_loads * lanes);
  // 128-bit broadcast reads of 4 k-values: two passes each
  AccessDescription load = shared("tile_read", AccessKind::read, tw * tiles * X * ne / 4 * lanes, 2);
  store.active_lanes = load.active_lanes = lanes;
  k.accesses = {a, b, c, store, load};
  k.work.fp32 = 2 * n * n * n;
  k.warp_instructions = tw * tiles * (2 * ne / Y + X + X * ne * 1.25 + 4);  // SASS: per tile and warp
  k.chain = chain_fma_l2(n, tiles);
  w.phases.push_back(req.derive(k));
}

// Column-major C ← α·A·B + β·C, M = N = K = n (Bayerl (2012)'s listings). Each block stages
// tiles of A and B (or streams A) per k-step; both operands are swept once per block row or
// column, C is read and written once.
void describe_sgemm(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n, matrix = kF * n * n;
  w.flops = 2 * n * n * n + 3 * n * n;
  w.algorithmic_bytes = 4 * kF * n * n;
  w.h2d_bytes = 3 * kF * n * n, w.d2h_bytes = kF * n * n;
  // C is read in the epilogue, after the main loop's tile loads have all returned (one level
  // after them: its load is not in flight with theirs).
  AccessDescription c = access("c", AccessKind::read_modify_write, n * n, "C");
  c.after = "a";
  const auto swept = [&](AccessDescription a) {
    a.footprint = matrix, a.sweep = matrix;
    return a;
  };
  KernelDescription k;
  double warps = 0, steps = 0;
  if (kernel == "sgemm-256x16") {
    // (16,16) threads, a 256×16 tile of C, k-step 128; per step a warp loads 128 A words a lane
    // (whole lines; A streamed from global memory), 8 words of B that it stores into the slab (row
    // stride 16 words: 16-way conflicts) and reads as 128-bit broadcasts, 4 per k (512 a step).
    k = req.launch(req.names[0], n / 256, n / 16, 16, 16, 64, 128 * 16 * kF);
    warps = n * n / 512, steps = n / 128;
    AccessDescription a = swept(read("a", warps * steps * 128 * kWarp, "A"));
    a.independent = 4;
    a.after = "b";  // issued after the slab's barrier, which waits for B's loads
    AccessDescription b = with_footprint(read("b", warps * steps * 8 * kWarp, "B"), matrix);
    k.accesses = {a, b, c, shared("slab_store", AccessKind::write, warps * steps * 8 * kWarp, 16),
                  shared("slab_read", AccessKind::read, warps * steps * 512 * kWarp, 2)};
    k.warp_instructions = warps * steps * (2048 + 512 + 136 + 8 + 40);  // SASS: per k-step and warp
  } else if (kernel == "sgemm-tiled") {
    // (32,8) threads, a 32×32 tile, k-step 8: per step a warp loads a row of the A tile (one
    // line) and a row of the B tile across 32 columns (32 lines; the block's 8 warps read the 8
    // k of the same sectors); the compiled code reads the tiles with 8 LDS and 9 LDS.128 per
    // k-step (each 128-bit read of 32 distinct rows takes two passes).
    k = req.launch(req.names[0], n / 32, n / 32, 32, 8, 40, 2 * 32 * 9 * kF);
    warps = n * n / 128, steps = n / 8;
    AccessDescription a = swept(read("a", warps * steps * kWarp, "A"));
    AccessDescription b = swept(read("b", warps * steps * kWarp, "B"));
    b.pattern = AccessPattern::strided, b.stride = n;
    b.l1_hit = 7.0 / 8;
    k.accesses = {a, b, c, shared("tile_store", AccessKind::write, warps * steps * 2 * kWarp),
                  shared("tile_read", AccessKind::read, warps * steps * 8 * kWarp),
                  shared("tile_read_128", AccessKind::read, warps * steps * 9 * kWarp, 2)};
    k.warp_instructions = warps * steps * 64;  // SASS: per k-step and warp
  } else {
    // sgemm-64: (16,16) threads, a 64×64 tile, k-step 16, 4×4 results a thread; per step 4 loads
    // of A (a line each) and 4 of B (two 64-byte rows each), into registers first (prefetch).
    k = req.launch(req.names[0], n / 64, n / 64, 16, 16, 64, (16 * 64 + 64 * 17) * kF);
    warps = n * n / 512, steps = n / 16;
    AccessDescription a = swept(read("a", warps * steps * 4 * kWarp, "A"));
    AccessDescription b = swept(read("b", warps * steps * 4 * kWarp, "B"));
    a.independent = b.independent = 4;
    b.contiguous_lanes = 16;
    k.accesses = {a, b, c,
                  shared("a_store", AccessKind::write, warps * steps * 4 * kWarp),
                  shared("b_read", AccessKind::read, warps * steps * 64 * kWarp),  // two addresses a warp: broadcast
                  shared("b_store", AccessKind::write, warps * steps * 4 * kWarp, 2),
                  shared("a_read_128", AccessKind::read, warps * steps * 16 * kWarp, 2)};
    k.warp_instructions = warps * steps * 362;  // SASS: per k-step and warp
  }
  k.staged_tiles = true;
  k.work.fp32 = 2 * n * n * n + 3 * n * n;
  k.request_bytes = kF * kWarp;  // the compiled tile loads: a line a warp access
  k.chain = chain_fma_l2(n, steps);
  w.phases.push_back(req.derive(k));
}

// 2-D convolution of an n×n image with a 5×5 filter (White (2013) Listings 5.1 and 5.3).
void describe_conv2d(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n, X = req.X, Y = req.Y;
  static_assert(kConvFilter == 5, "the convolutions' instruction counts below were counted for a 5x5 filter");
  const double fs = kConvFilter, r = (fs - 1) / 2, taps = fs * fs;
  w.flops = 2 * taps * n * n;
  w.algorithmic_bytes = kF * (2 * n * n + taps);
  w.h2d_bytes = kF * (n * n + taps), w.d2h_bytes = kF * n * n;
  const double warps = n * n / kWarp, blocks = (n / X) * (n / Y), lanes = std::min(kWarp, X);
  const double rows = std::ceil(std::min(kWarp, X * Y) / X);  // rows of the block one warp spans
  KernelDescription k;
  AccessDescription out = write("c", n * n, "C");
  out.contiguous_lanes = lanes;
  if (kernel == "conv2d-global") {
    // Per tap (k, l) a thread reads A[row + l − 2][col + k − 2] and f[l·5 + k] from global memory:
    // per column shift k one access of 5 rows, its runs shifted by k − 2 floats. A block reads its
    // (Y+4)×(X+4) halo from L2 once; its other taps find the sectors in L1.
    k = req.launch(req.names[0], n / X, n / Y, X, Y, 32, 0);
    const double hit = 1 - (Y + fs - 1) * (X + fs - 1) / (taps * X * Y);
    for (double o = -r; o <= r; ++o) {
      AccessDescription a = with_footprint(read("a" + std::to_string(static_cast<int>(o + r)), fs * n * n, "A"), kF * n * n);
      a.contiguous_lanes = lanes, a.offset = o, a.independent = fs, a.l1_hit = hit;
      k.accesses.push_back(a);
    }
    AccessDescription f = with_footprint(read("f", taps * n * n), kF * taps);
    f.pattern = AccessPattern::broadcast, f.pattern_given = true, f.l1_hit = 1;
    k.accesses.push_back(f);
    k.accesses.push_back(out);
    // Nsight Compute (data/experiments/2026-11-23-h100-ncu): 282 warp instructions per output warp
    // at every size and block shape (the 25 taps' bounds checks and index arithmetic included).
    k.warp_instructions = warps * 282;
    k.chain = chain_fma_l2(taps, 1);
  } else {
    // conv2d-shared<X,Y>: per filter row two staged loads of A (columns col − 2 and col − 2 + X)
    // and the filter row (the ty = 0 warp), then 5 taps from shared memory. X = 16 tiles (rows of
    // 2X = 32 words) put a warp's two rows on the same banks: its tile stores and window reads are
    // 2-way (Nsight Compute: 96.3 shared wavefronts per output warp at 16x4, n = 4096; these
    // counts give 97.5, 85 with the stores conflict-free). A block's rows overlap from one filter
    // row to the next: it reads its (Y+4)×2X window from L2 once.
    k = req.launch(req.names[0], n / X, n / Y, X, Y, 32, (2 * X * Y + X) * kF);
    const double degree = std::fmod(2 * X, kWarp) == 0 ? rows : 1, hit = 1 - (Y + fs - 1) / (fs * Y);
    AccessDescription left = with_footprint(read("a_left", fs * n * n, "A"), kF * n * n);
    AccessDescription right = with_footprint(read("a_right", fs * n * n, "A"), kF * n * n);
    left.contiguous_lanes = right.contiguous_lanes = lanes;
    left.offset = -r, right.offset = X - r;
    left.l1_hit = right.l1_hit = hit;
    k.accesses = {left, right, out, shared("filter_store", AccessKind::write, blocks * fs * kWarp),
                  shared("filter_read", AccessKind::read, warps * taps * kWarp),  // a broadcast
                  shared("tile_store", AccessKind::write, warps * fs * 2 * kWarp, degree),
                  shared("window_read", AccessKind::read, warps * fs * fs * kWarp, degree)};
    // Nsight Compute (data/experiments/2026-11-23-h100-ncu): 209 warp instructions per output warp
    // plus 45 per block (the filter-row stores of the ty = 0 warp), within 2 % for every block shape
    // but 64x1 (5 % under).
    k.warp_instructions = warps * 209 + blocks * 45;
    k.chain = chain_fma_l2(taps, fs);
  }
  k.work.fp32 = 2 * taps * n * n;
  k.request_bytes = kF * lanes * rows;  // a warp's row segments of A
  w.phases.push_back(req.derive(k));
}

// Box blur of an n×n RGB image (bytes), radius kBlurRadius (Cecconi's task): thread p sums the
// window's pixels channel by channel (three byte loads a pixel: lane i at byte 3i + c) and
// writes its three bytes.
void describe_blur(const Request& req, GpuWorkload& w) {
  const double n = req.n, X = req.X;
  const double side = 2.0 * kBlurRadius + 1, window = side * side, pixels = n * n;
  w.flops = 3 * window * pixels;  // integer adds
  w.algorithmic_bytes = 6 * pixels;
  w.h2d_bytes = 3 * pixels, w.d2h_bytes = 3 * pixels;
  KernelDescription k = req.launch(req.names[0], std::ceil(pixels / X), 1, X, 1, 32, 0);
  const auto bytes = [](AccessDescription a) {
    a.element_bytes = 1, a.pattern = AccessPattern::strided, a.stride = 3;
    a.footprint = 0;
    return a;
  };
  // A block's threads cover ceil(X/n) image rows of min(X, n) pixels: it reads its 11 rows of
  // them (and the 10 pixels of halo) from L2 once; its other window reads find them in L1. A
  // warp access moves 3 bytes of sectors a lane (its channel's byte and the other two's).
  const double tile = side * std::ceil(X / n) * (std::min(X, n) + 2 * kBlurRadius);
  AccessDescription in = bytes(read("in", 3 * window * pixels));
  in.footprint = 3 * pixels;
  in.independent = 3;  // the three channels of a pixel
  in.l1_hit = 1 - 3 * tile / (3 * window * X * 3);
  AccessDescription out = bytes(write("out", 3 * pixels));
  out.footprint = 3 * pixels;
  k.accesses = {in, out};
  // SASS: 261 instructions per window column of 11 pixels (a 4-way unrolled loop of 83 for 4
  // pixels, twice, the 3-pixel remainder, the column overhead): ≈ 24 per window pixel.
  k.warp_instructions = std::ceil(pixels / kWarp) * (window * 261.0 / 11 + 60);
  k.chain = chain_fma_l2(0, 1);
  w.phases.push_back(req.derive(k));
}

// Cholesky factorisation U of an n×n SPD matrix, row-major, in place (ECEC 622 (2013)). Per
// column k: the pivot row is divided by √u_kk, then every row i > k below is updated from
// column i on: u_ij −= u_ki·u_kj. The matrix stays in L2 from one column to the next when it
// fits in the share a swept operand keeps (three quarters).
void describe_cholesky(const Request& req, GpuWorkload& w) {
  const std::string& kernel = req.kernel;
  const double n = req.n, X = req.X, matrix = kF * n * n;
  w.flops = n * n * n / 3;
  w.algorithmic_bytes = 2 * kF * n * n;
  w.h2d_bytes = kF * n * n, w.d2h_bytes = kF * n * n;
  const bool fits = matrix <= 0.75 * req.l2;
  if (kernel == "cholesky-single") {
    // One block; thread t updates rows k+1+t, k+1+t+B, … along j (32 rows per warp access).
    // The one descriptor still counted by hand rather than derived: as accesses (u_ij a strided
    // read-modify-write, 32 rows a warp access; u_kj a broadcast) format 2 charges each store's
    // 32 partial lines the L2 minimum of a scattered write (148 bytes a line, fitted to
    // transpose_naive over the whole GPU), and one block, bound by its bytes in flight, would then
    // be predicted 80–100 % over its measured time (2026-11-27 run, GPU 6fc1c3de), where this
    // count is 8–18 % under. Counted: each lane's store writes its sector through to L2 (32 bytes),
    // each load 4 bytes after L1.
    KernelDescription k = req.launch(req.names[0], 1, 1, X, 1, 32, 0);
    GpuPhase p = derive_gpu_phase(k, DerivationContext{req.l2, nullptr});  // the launch only
    const double updates = n * n * n / 6, warp_steps = updates / kWarp;
    p.flops_fp32 = 2 * updates;
    p.l1_wavefronts = warp_steps * (kWarp + 2 + kWarp) + n * n / kWarp;
    p.l1_data_bytes = warp_steps * 3 * 128 + kF * n * n;
    p.l2_bytes = updates * (32 + kF) + kF * n * n;
    p.dram_bytes = fits ? 2 * matrix : 2 * kF * updates;
    p.warp_instructions = warp_steps * 7 + n * 40;  // SASS: per warp step, and per column
    p.loads_in_flight = 2;
    p.request_bytes = kWarp * 32;
    p.chain_l2_loads = 4 * n;  // per column: the pivot's read, the divisions, the barriers' round trips
    w.phases.push_back(p);
    return;
  }
  // cholesky-opt: per column k a division kernel (one block) and an elimination kernel (n−k−1
  // blocks, block i updates row i from column i on, its threads striding along the row). Columns
  // are grouped in 64 buckets of equal launches, each described at its mean column. Where the
  // matrix (or the trailing triangle still updated) fits, it stays in L2 across the launches
  // (`l2_resident`): a launch reads it from L2 and leaves its writes there.
  const double buckets = std::min(n, 64.0), per = n / buckets;
  for (double bk = 0; bk < buckets; ++bk) {
    const double col = (bk + 0.5) * per, rest = n - col;  // rows below and including the mean column
    KernelDescription d = req.launch(req.names[0], 1, 1, X, 1, 16, 0);
    d.launches = per;
    AccessDescription row = with_footprint(access("pivot_row", AccessKind::read_modify_write, rest, "U"), kF * rest);
    AccessDescription pivot = with_footprint(read("pivot", rest, "P"), kF);
    pivot.pattern = AccessPattern::broadcast, pivot.pattern_given = true;
    row.l2_resident = pivot.l2_resident = fits;
    d.accesses = {row, pivot};
    d.work.fp32 = rest;
    d.warp_instructions = std::ceil(rest / kWarp) * 8 + 40;  // SASS
    d.chain = chain_fma_l2(0, 3);
    w.phases.push_back(req.derive(d));
    const double rows = std::max(1.0, rest - 1);
    KernelDescription e = req.launch(req.names[1], rows, 1, X, 1, 16, 0);
    e.launches = bk + 1 < buckets ? per : std::max(0.0, per - 1);
    const double elements = rows * (rows + 1) / 2;                    // Σ over rows of the row's length
    const double lane_steps = elements + rows * X / 2;                 // plus the idle lanes of each row's last pass
    // Rows start at column i: unaligned, half a line on average.
    AccessDescription ukj = with_footprint(read("u_kj", lane_steps, "Uk"), kF * rest);
    AccessDescription uij = with_footprint(access("u_ij", AccessKind::read_modify_write, lane_steps, "U"), kF * elements);
    ukj.offset = uij.offset = 16;
    const bool trailing_fits = fits || 2 * rest * rest <= 0.75 * req.l2;
    ukj.l2_resident = uij.l2_resident = trailing_fits;
    e.accesses = {ukj, uij};
    e.work.fp32 = 2 * elements;
    e.warp_instructions = lane_steps / kWarp * 6 + rows * (X / kWarp) * 10;  // SASS: per warp step, and per row
    e.chain = chain_fma_l2(0, 2 + std::ceil(rows / X));
    w.phases.push_back(req.derive(e));
  }
}

// cudaMemsetAsync before a kernel that accumulates (not a kernel: its launch cost only).
GpuPhase memset_phase() {
  GpuPhase p;
  p.name = "memset";
  p.block_x = 32;
  return p;
}

// Dot product of n floats, block B, grid g (ECEC 622 (2013)): grid-stride partial sums (the loop
// unrolled 4 times, two loads each, as compiled), a shared-memory tree, one atomicAdd per block.
GpuPhase dot_phase(const Request& req, const std::string& name, double n, double block, double grid, double launches = 1) {
  KernelDescription k = req.launch(name, grid, 1, block, 1, 16, block * kF);
  k.launches = launches;
  const double warps = grid * block / kWarp, iterations = std::ceil(n / (grid * block)), tree = std::log2(block);
  AccessDescription x = read("x", warps * iterations * kWarp), y = read("y", warps * iterations * kWarp);
  x.independent = y.independent = 4;
  AccessDescription total = with_footprint(access("total", AccessKind::atomic, grid), kF);
  total.active_lanes = 1, total.addresses_per_warp = 1, total.atomic_type = "fp32";
  // The tree: a store, then load/load/store per level (upper levels partially idle).
  k.accesses = {x, y, shared("tree", AccessKind::read, warps * (1 + 3 * tree) * kWarp), total};
  k.work.fp32 = 2 * n;
  k.warp_instructions = warps * (iterations * 6 + tree * 6 + 8);  // SASS: per iteration, tree level and warp
  k.barriers = tree + 1;  // the tree's serial phase after the loads (docs/workload-format.md, "Barriers")
  ChainDescription c;
  c.fp32 = iterations;
  c.l2_loads = 2 + tree / 4;  // the last loads, the tree's barrier round trips, the atomic
  k.chain = c;
  return req.derive(k);
}

void describe_dot(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  w.flops = 2 * n;
  w.algorithmic_bytes = 2 * kF * n;
  w.h2d_bytes = 2 * kF * n, w.d2h_bytes = kF;
  w.phases.push_back(memset_phase());
  w.phases.push_back(dot_phase(req, req.names[0], n, req.X, req.config.p));
}

// An element-wise kernel over n floats: `reads` and `writes` streams, `instructions` warp
// instructions per warp (SASS), `flops` in all.
GpuPhase vector_phase(const Request& req, const std::string& name, double n, double block, int reads, int writes, double instructions,
                      double flops, double launches) {
  KernelDescription k = req.launch(name, std::ceil(n / block), 1, block, 1, 16, 0);
  k.launches = launches;
  for (int i = 0; i < reads; ++i) k.accesses.push_back(read("in" + std::to_string(i), n));
  for (int i = 0; i < writes; ++i) k.accesses.push_back(write("out" + std::to_string(i), n));
  k.work.fp32 = flops;
  k.warp_instructions = std::ceil(n / kWarp) * instructions;
  k.chain = chain_fma_l2(0, 1);
  return req.derive(k);
}

// Ten conjugate-gradient iterations on the GPU: per iteration two dot products, A·p (mv-opt with
// p read from global memory), the x/r update and the p update; scalars stay on the device.
void describe_cg(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double it = kCgIterations, grid = std::min(std::ceil(n / 256), 528.0);  // dot blocks, as kernels/cuda runs it
  w.flops = it * (2 * n * n + 10 * n);
  w.algorithmic_bytes = kF * (n * n + 5 * n);
  w.h2d_bytes = kF * (n * n + n), w.d2h_bytes = kF * n;
  w.phases.push_back(dot_phase(req, req.names[0], n, 256, grid, 1 + 2 * it));
  // The first product reads A from DRAM (the L2 is flushed before a run); the others find it in
  // L2 when it fits in the share a swept operand keeps (three quarters: the vectors and what the
  // other kernels write take the rest), and each tile's round trip ends there.
  w.phases.push_back(mv_opt_phase(req, req.names[1], n, req.X, req.Y, true, false, 1));
  const bool resident = kF * n * n <= 0.75 * req.l2;
  w.phases.push_back(mv_opt_phase(req, req.names[1], n, req.X, req.Y, true, resident, it - 1));
  w.phases.push_back(vector_phase(req, req.names[2], n, 256, 4, 2, 12, 4 * n, it));
  const GpuPhase pu = vector_phase(req, req.names[3], n, 256, 2, 1, 8, 2 * n, it);
  w.phases.push_back(pu);
}

// y[i] = cos applied kCosineRepeats times to x[i] (Cecconi's task).
void describe_cosine(const Request& req, GpuWorkload& w) {
  const double n = req.n, X = req.X;
  w.flops = 10.0 * kCosineRepeats * n;
  w.algorithmic_bytes = 2 * kF * n;
  w.h2d_bytes = kF * n, w.d2h_bytes = kF * n;
  KernelDescription k = req.launch(req.names[0], std::ceil(n / X), 1, X, 1, 16, 0);
  k.accesses = {read("x", n), write("y", n)};
  k.work.special = kCosineRepeats * n;
  // Per call, besides the call's own instructions (in the cosf ceiling): the loop counter,
  // compare and branch and cosf's argument-range test (SASS: ≈ 5).
  k.warp_instructions = std::ceil(n / kWarp) * (12 + 5.0 * kCosineRepeats);
  ChainDescription c;
  c.special = kCosineRepeats, c.l2_loads = 2;
  k.chain = c;
  w.phases.push_back(req.derive(k));
}

using Describe = void (*)(const Request&, GpuWorkload&);
const std::map<std::string, Describe>& families() {
  static const std::map<std::string, Describe> f = {{"mv", describe_mv}, {"mm", describe_mm}, {"sgemm", describe_sgemm}, {"conv2d", describe_conv2d}, {"dot", describe_dot}, {"cg", describe_cg}, {"cholesky", describe_cholesky}, {"cosine", describe_cosine}, {"blur", describe_blur}};
  return f;
}

}  // namespace

namespace {

GpuWorkload describe(const std::string& kernel, double n, const KernelConfig& config, const ResourceTable& resources,
                     double l2_bytes_capacity, std::vector<std::string>* missing, std::vector<KernelDescription>* descriptions) {
  const GpuKernelSpec& spec = gpu_kernel_spec(kernel);
  const auto it = families().find(spec.family);
  if (it == families().end()) throw InputError("no workload descriptor for GPU kernel '" + kernel + "'");
  const std::string problem = config_problem(spec, n, config);
  if (!problem.empty()) throw InputError(kernel + ": " + problem);
  GpuWorkload w;
  w.kernel = kernel;
  w.n = n;
  w.config = config;
  const double l2 = l2_bytes_capacity > 0 ? l2_bytes_capacity : 50e6;
  Request r{kernel, n, static_cast<double>(config.bx), static_cast<double>(config.by), static_cast<double>(config.bx) * config.by,
            l2, config, phase_kernel_names(kernel, config), resources, missing};
  r.descriptions = descriptions;
  it->second(r, w);
  return w;
}

}  // namespace

GpuWorkload describe_gpu_kernel(const std::string& kernel, double n, const KernelConfig& config, const ResourceTable& resources,
                                double l2_bytes_capacity, std::vector<std::string>* missing) {
  return describe(kernel, n, config, resources, l2_bytes_capacity, missing, nullptr);
}

std::vector<KernelDescription> reference_kernel_descriptions(const std::string& kernel, double n, const KernelConfig& config,
                                                             const ResourceTable& resources, double l2_bytes_capacity) {
  std::vector<KernelDescription> out;
  describe(kernel, n, config, resources, l2_bytes_capacity, nullptr, &out);
  return out;
}

}  // namespace perfmodel
