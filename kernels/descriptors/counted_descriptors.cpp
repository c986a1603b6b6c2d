// The reference kernels whose descriptors are still counted by hand, not yet written as format-2
// kernel descriptions (reference_descriptors.cpp holds the others and says why these remain):
// mv-global, conv2d-global, conv2d-shared, cholesky-single, cholesky-opt and blur. What one run
// issues and moves, counted from the kernels' code as functions of n and the launch configuration.
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

// What every family's descriptor is a function of.
struct Request {
  std::string kernel;
  double n, X, Y, threads, l2;  // X, Y: the block; l2: the L2 capacity in bytes
  KernelConfig config;
  std::vector<std::string> names;  // phase kernel names
  Builder& builder;
};

// mv-global: thread i runs over row i, A read down its rows from global memory, b read from
// global memory (one address a warp access). Not yet a kernel description: b's loads hit L1,
// and format 2 counts them in flight with A's: 32-wide blocks at n = 1024 then predict 47 %
// under this count.
void describe_mv(const Request& req, GpuWorkload& w) {
  const double n = req.n;
  const double X = req.X;
  const std::vector<std::string>& names = req.names;
  Builder& b = req.builder;
  w.flops = 2 * n * n;
  w.algorithmic_bytes = kF * (n * n + 2 * n);
  w.h2d_bytes = kF * (n * n + n), w.d2h_bytes = kF * n;
  GpuPhase p = b.phase(names[0], n / X, 1, X, 1, 32, 0);
  const double warps = n / kWarp;
  p.flops_fp32 = 2 * n * n;
  // Each warp access to A touches 32 rows: 32 lines (and 32 sectors, of which each lane uses
  // one float now and the next seven from L1 later).
  p.l1_wavefronts = warps * n * (kWarp + 1) + warps;
  p.l1_data_bytes = warps * n * (kLine + kF) + kF * n;
  p.l2_bytes = kF * n * n + (n / X) * kF * n + kF * n;
  p.dram_bytes = kF * n * n + 2 * kF * n;
  p.dram_write_bytes = kF * n;  // c
  p.warp_instructions = warps * n * 3.5;
  p.loads_in_flight = 1;
  p.request_bytes = kWarp * kSector;  // a miss brings one sector per lane
  p.chain_fma = n;
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
      {"conv2d", describe_conv2d},
      {"cholesky", describe_cholesky},
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
