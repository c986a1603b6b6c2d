// The derivation of workload format 2, from a kernel's accesses and work to the predictor's
// descriptor (GpuPhase): the one path that a user's workload file (gpu_workload_v2.cpp reads it)
// and the reference kernels' descriptors (kernels/descriptors/) share. Every rule here is stated,
// with its reason, in docs/workload-format.md ("How accesses become traffic"); keep the two in step.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpu_workload_detail.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_description.hpp"

namespace perfmodel {
namespace {

constexpr double kSector = 32, kLine = 128;
// L2 bandwidth one warp access's request for a line takes at least, in bytes: a line request
// moving fewer sectors still occupies the L2 as if it moved this many. Reads: 64 (a random
// 4-byte gather of an L2-resident table, one sector per line, reached half the sector rate of
// streamed lines: gather_l2); writes: 148 (a store touching 32 lines, one partial sector each,
// took 4.6 times its sector bytes: transpose_naive). Both fitted to the generalisation suite's
// half A on the H100 (2026-11-26); the profile has no scattered-sector L2 microbenchmark.
constexpr double kL2ReadRequestBytes = 64, kL2WriteRequestBytes = 148;
// A random sector write-back that must first read its sector (a partly written sector leaving
// L2: the DRAM's ECC words are wider than the bytes written) costs this many random sector reads
// at the profile's largest measured stride: the read, the write, and the bank's turnaround and
// write recovery between them. Fitted to scatter_random (half A, H100, 2026-11-26: 5 gives
// -1 %; 2, the read and the write alone, 56 % under). A profile with gpu.dram_random_write
// prices a scatter's write-backs at that measured rate instead (derive_gpu_phase).
constexpr double kRandomWriteBackReads = 5;
// Share of the L2 that holds a swept array between two sweeps (`sweep`): the rest holds the
// launch's other operands and the lines being written. The reference kernels' swept operands
// (mm-opt's, mm-global's and the SGEMMs' B or A at n = 4096) were predicted with it before the
// reference suite went through this derivation; the whole L2 put mm-opt's 16-thread blocks at
// n = 4096 21–23 % under their measured times (2026-11-27 run, GPU 6fc1c3de).
constexpr double kSweptL2Share = 0.75;

// Units (lines of 128 bytes or sectors of 32) that a run of `span` contiguous bytes touches, on
// average over where the runs start: consecutive runs start `span` bytes apart, shifted by
// `shift` bytes (a stencil's neighbour), so they cycle through the positions of k·span + shift
// within a unit. An aligned run whose span is a multiple of the unit touches span/unit.
double units_touched(double span, double shift, double unit) {
  double sum = 0;
  int positions = 0;
  const double first = std::fmod(std::fmod(shift, unit) + unit, unit);
  double start = first;
  do {
    sum += std::ceil((start + span) / unit - 1e-9);
    ++positions;
    start = std::fmod(start + span, unit);
  } while (std::abs(start - first) > 1e-9 && positions < 256);
  return sum / positions;
}

// An access with the format's defaults applied (docs: "Footprint defaults").
struct Access {
  const AccessDescription& d;
  std::string array;
  double footprint = 0, window = 0, sectors_per_warp = 32;
  std::string atomic_type;
  explicit Access(const AccessDescription& a) : d(a) {
    array = a.array.empty() ? a.name : a.array;
    const double w = a.count / a.active_lanes;
    if (a.footprint > 0) {
      footprint = a.footprint;
    } else if (a.kind == AccessKind::atomic) {
      footprint = a.count * a.element_bytes;
    } else {
      switch (a.pattern) {
        case AccessPattern::coalesced: case AccessPattern::random: case AccessPattern::gather: footprint = a.count * a.element_bytes; break;
        case AccessPattern::strided: footprint = a.count * a.stride * a.element_bytes; break;
        case AccessPattern::broadcast: footprint = a.element_bytes * w; break;
      }
    }
    window = a.window > 0 ? std::min(a.window, footprint) : footprint;
    sectors_per_warp = std::min(a.sectors_per_warp, a.active_lanes);
    atomic_type = !a.atomic_type.empty() ? a.atomic_type : a.element_bytes == 8 ? "fp64" : "int32";
  }
  bool reads() const { return d.kind == AccessKind::read || d.kind == AccessKind::read_modify_write; }
  bool memory_path() const { return d.space == AccessSpace::global || d.space == AccessSpace::local; }
};

// A global atomic access as the L2 applies it (GpuPhase::Atomic; docs/workload-format.md,
// "Atomics"). Steps of one warp access, by how its lanes spread over the words:
//   random or gather (the default: a histogram's key picks the word) — random_atomic_steps;
//   coalesced — the addresses_per_warp words side by side, L/A lanes each: ⌈A·e/32⌉ sectors × L/A;
//   strided — one word per lane group, min(A, ⌈A·stride·e/32⌉) sectors × L/A;
//   broadcast — one word, L lanes.
// An int32 atomic whose whole warp updates one address is warp-aggregated (nvcc reduces the
// lanes' values and one lane updates: the generalisation suite's reduce_atomic_i32 took 0.77 ns a
// warp, the one-lane time, where 32 lanes would take 23 ns); `warp_aggregated` overrides.
GpuPhase::Atomic atomic_steps(const Access& a, double w) {
  const AccessDescription& d = a.d;
  const bool broadcast = d.pattern_given && d.pattern == AccessPattern::broadcast;
  const double L = d.active_lanes, A = broadcast ? 1 : std::min(L, d.addresses_per_warp), e = d.element_bytes, F = a.footprint;
  GpuPhase::Atomic out;
  out.type = a.atomic_type;
  out.warp_accesses = w;
  out.updates = d.count;
  out.words = std::max(1.0, std::floor(F / e));
  out.footprint_bytes = F;
  out.window_bytes = d.window > 0 ? a.window : 0;
  out.one_address_per_warp = A <= 1;
  out.sector_updates = w * std::min(L, d.addresses_per_warp) / std::max(1.0, F / kSector);
  const bool aggregated = d.warp_aggregated == 1 || (d.warp_aggregated == -1 && A <= 1 && L > 1 && a.atomic_type == "int32");
  if (aggregated) {
    out.steps_per_warp = 1, out.updates = w;
    return out;
  }
  if (!d.pattern_given || d.pattern == AccessPattern::random || d.pattern == AccessPattern::gather) {
    out.steps_per_warp = random_atomic_steps(L, A, F, e);
  } else if (d.pattern == AccessPattern::coalesced) {
    out.steps_per_warp = std::ceil(A * e / kSector) * L / A;
  } else if (d.pattern == AccessPattern::strided) {
    out.steps_per_warp = std::min(A, std::ceil(A * d.stride * e / kSector)) * L / A;
  } else {
    out.steps_per_warp = L;
  }
  return out;
}

// FP32 issue slots per integer operation where the profile has no int32_logic ceiling, from the
// instruction throughput table for compute capability 9.0 (CUDA C++ Programming Guide): integer
// add, shift and logic run on the ALU pipe at 64 results per clock per SM against FP32's 128, so an
// ALU instruction takes two issue slots' time; the FMA pipes take the rest (IMAD for multiplies and
// the left shifts the compiler turns into IMAD.SHL, VIADD for adds). In the SASS of the
// int32_logic benchmark chain and of the generalisation suite's integer chains (sm_90, CUDA 13.0)
// two operations in three are ALU instructions: 2 × 2/3 = 4/3 slots an operation.
constexpr double kIntSlotsWithoutMeasurement = 4.0 / 3.0;

}  // namespace

double integer_issue_slots(const GpuCalibration* gpu, bool* measured) {
  if (measured) *measured = false;
  if (!gpu) return kIntSlotsWithoutMeasurement;
  const auto fp32 = gpu->ceilings.find("fp32"), logic = gpu->ceilings.find("int32_logic");
  if (fp32 == gpu->ceilings.end() || logic == gpu->ceilings.end() || !(fp32->second.median > 0) || !(logic->second.median > 0))
    return kIntSlotsWithoutMeasurement;
  if (measured) *measured = true;
  return (fp32->second.median / 64) / (logic->second.median / 32);
}

namespace {

// The rates that turn FP16, INT32 and fast special-function work into the predictor's FP32 issue
// slots and cosf calls, with a note where the profile lacks one.
struct WorkRates {
  double fp16_slot = 1, int_slot = kIntSlotsWithoutMeasurement;  // FP32 issue slots per warp instruction
  bool has_fp16 = false, has_int = false, has_fast = false;
  explicit WorkRates(const GpuCalibration* gpu) {
    if (!gpu) return;
    const auto rate = [&](const char* k) { const auto it = gpu->ceilings.find(k); return it == gpu->ceilings.end() ? 0.0 : it->second.median; };
    const double fp32 = rate("fp32");
    // half2: 4 flop per lane. The constant-operand rate where measured: a*x+c with a scalar a,
    // what FP16 arithmetic written from a formula compiles to (fma_chain_f16x2, the generalisation
    // suite's half A: 66 Tflop/s, the constant-operand rate; 130 with registers only).
    const double fp16 = rate("fp16_constant_operand") > 0 ? rate("fp16_constant_operand") : rate("fp16");
    if (fp32 > 0 && fp16 > 0) has_fp16 = true, fp16_slot = (fp32 / 64) / (fp16 / 128);
    // Integer operations as written (shifts, logic, adds, multiply-adds: one each) at the measured
    // rate of a logic/shift/add chain, whose SASS spreads them over the ALU and FMA pipes as a
    // user's integer code compiles (not the int32 multiply-add ceiling: IMAD alone, one pipe).
    int_slot = integer_issue_slots(gpu, &has_int);
    has_fast = rate("fast_cosf") > 0;
  }
};

struct KernelNotes {
  std::vector<std::string>* notes;
  void add(const std::string& line) {
    if (notes && std::find(notes->begin(), notes->end(), line) == notes->end()) notes->push_back(line);
  }
};

// DRAM traffic of one array's reads or writes (docs: "DRAM bytes, the reuse rule").
struct Region {
  double distinct = 0, touched = 0, factor = 1;  // D, T, and the strided-read efficiency factor of the access defining D
  bool random = false;
  // Writes only: whether the sectors leave L2 partly written (the access defining D writes fewer
  // than 32 bytes of each sector it touches), and the bytes written over the distinct bytes.
  bool partial = false;
  double coverage = 1;
  // The part of the region a random access's neighbouring warps address at one time (its
  // `window`; the distinct bytes where it gives none), or the bytes an ordered access sweeps
  // before it comes back (`sweep`): a re-touch misses only when that exceeds L2.
  double window = 0;
  bool swept = false;
  // The region lives in L2 across the task's launches (`l2_resident`): reads find it there (no
  // first touch from DRAM), writes stay there (no write-back by this launch).
  bool resident = false;
  void add(double d, double t, double phi, bool is_random, bool is_partial = false, double written = 0, double win = 0,
           bool is_swept = false, bool is_resident = false) {
    if (d > distinct) distinct = d, factor = phi, partial = is_partial, coverage = d > 0 ? written / d : 1, window = win, swept = is_swept;
    touched += t;
    random = random || is_random;
    resident = resident || is_resident;
  }
  double miss(double l2_capacity) const {
    const double live = window > 0 ? std::min(window, distinct) : distinct;
    const double room = swept && !random ? kSweptL2Share * l2_capacity : l2_capacity;
    return live <= room || !(random || swept) ? 0.0 : 1.0 - room / live;
  }
  double dram(double l2_capacity) const {
    return ((resident ? 0.0 : distinct) + std::max(0.0, touched - distinct) * miss(l2_capacity)) * factor;
  }
  // Of a write region's DRAM bytes, the share that leaves L2 partly written: all of it when the
  // launch writes less than every byte of its sectors; when it writes them all, the re-touches a
  // random order evicts before the sector is complete (m of them); an ordered dense write (a
  // transpose's columns, which the block's other rows complete at once) leaves none.
  double partial_share(double l2_capacity) const {
    if (!partial) return 0;
    if (coverage < 1) return 1;
    return random ? miss(l2_capacity) : 0;
  }
};

// Work (docs: "Work"): the FP32 issue slots of every kind of arithmetic, and the notes where the
// profile lacks a rate. Returns the issue slots; `extra_flops` gets the FP16/BF16 and mma flops.
double derive_work(const WorkDescription& work, const WorkRates& rates, GpuPhase& p, double& extra_flops, KernelNotes& notes) {
  p.flops_fp32 = work.fp32;
  p.flops_fp64 = work.fp64;
  const double half = work.fp16 + work.bf16, pairs = work.fp16x2 + work.bf16x2;
  p.special_calls = work.special;
  p.sfu_calls = work.special_fast;
  // A fast call is one MUFU instruction: one issue slot a warp, its rate on the SFU pipe.
  double slots = p.flops_fp32 / 64 + (half / 64 + pairs / 128) * rates.fp16_slot + work.integer / 32 * rates.int_slot +
                 work.shuffles / 32 + p.sfu_calls / 32;
  extra_flops = half + pairs;
  if (work.shuffles > 0) p.shared_accesses[1] += work.shuffles / 32;  // the shared-memory crossbar, 32 lanes a pass
  if ((half > 0 || pairs > 0) && !rates.has_fp16) notes.add("FP16/BF16 work at the FP32 instruction rate: the profile has no fp16 ceiling");
  if (work.integer > 0 && !rates.has_int)
    notes.add("integer work at 4/3 FP32 issue slots an operation (the ALU pipe's rate in the instruction throughput table, two "
              "operations in three on it): the profile has no int32_logic ceiling");
  if (work.special_fast > 0 && !rates.has_fast)
    notes.add("fast special-function calls at the cosf rate: the profile has no fast_cosf ceiling");
  for (const MmaWork& m : work.mma) {
    slots += m.flops / (2 * m.m * m.n * m.k);  // one warp-wide mma instruction each
    extra_flops += m.flops;
  }
  if (!work.mma.empty())
    notes.add("tensor-core mma: one issue slot per instruction, the profile has no tensor-core ceiling (a lower bound on its time)");
  return slots;
}

}  // namespace

double description_flops(const KernelDescription& k) {
  double mma = 0;
  for (const MmaWork& m : k.work.mma) mma += m.flops;
  return k.work.fp32 + k.work.fp64 + k.work.fp16 + k.work.bf16 + k.work.fp16x2 + k.work.bf16x2 + mma;
}

GpuPhase derive_gpu_phase(const KernelDescription& k, const DerivationContext& context, std::vector<std::string>* note_list) {
  GpuPhase p;
  p.name = k.name;
  KernelNotes notes{note_list};
  const std::string who = "kernel " + p.name + ": ";
  p.launches = k.launches;
  // The model sees two dimensions; occupancy and waves depend only on the products.
  p.grid_x = k.grid[0], p.grid_y = k.grid[1] * k.grid[2];
  p.block_x = k.block[0], p.block_y = k.block[1] * k.block[2];
  p.registers_per_thread = k.registers;
  p.shared_bytes_per_block = k.shared_bytes;
  p.loads_issued_together = k.loads_issued_together;
  // The staged-tile and serial-tile forms (predictors/gpu_compute.hpp), for a kernel that has them.
  p.staged_tiles = k.staged_tiles;
  p.fetch_rounds_in_chain = k.fetch_rounds_in_chain;
  const double threads = p.blocks() * p.threads_per_block();

  std::vector<Access> accesses;
  accesses.reserve(k.accesses.size());
  for (const AccessDescription& a : k.accesses) accesses.emplace_back(a);
  // Dependency levels of the reads: a read `after` another is one level deeper.
  std::map<std::string, const Access*> by_name;
  for (const Access& a : accesses) by_name[a.d.name] = &a;
  const auto bad = [&](const Access& a, const std::string& why) { return InputError(who + "access " + a.d.name + ": " + why); };
  for (const Access& a : accesses) {
    if (a.d.after.empty()) continue;
    const auto it = by_name.find(a.d.after);
    if (it == by_name.end()) throw bad(a, "no access named '" + a.d.after + "' in this kernel");
    if (it->second == &a) throw bad(a, "an access cannot wait for itself");
    if (!it->second->reads() || !it->second->memory_path()) throw bad(a, "'" + a.d.after + "' is not a global or local read");
  }
  for (const Access& a : accesses) {  // a chain of `after` longer than the list is a cycle
    const Access* x = &a;
    for (std::size_t steps = 0; x && !x->d.after.empty(); ++steps) {
      if (steps > accesses.size()) throw bad(a, "its after/index references form a cycle");
      x = by_name.at(x->d.after);
    }
  }
  std::map<const Access*, int> level;
  std::function<int(const Access&)> level_of = [&](const Access& a) -> int {
    const auto it = level.find(&a);
    if (it != level.end()) return it->second;
    const int l = a.d.after.empty() ? 1 : 1 + level_of(*by_name.at(a.d.after));
    level[&a] = l;
    return l;
  };

  const double l2_capacity = context.l2_bytes;
  const bool measured_strided = context.gpu && detail::has_strided_efficiency(*context.gpu);
  const auto efficiency = [&](double stride, double e) { return detail::strided_efficiency(*context.gpu, stride, e); };
  // A random sector of a table beyond the L2 at the profile's measured random-read rate (gpu.dram_random):
  // 1/sectors_per_s(F) seconds, which the DRAM term (bytes over the DRAM curve, at its peak
  // when the reads saturate it) charges as peak / sectors_per_s(F) bytes, φ = that over 32.
  const bool measured_random = context.gpu && context.gpu->dram_random && context.gpu->dram_concurrency &&
                               context.gpu->dram_concurrency->peak_Bps > 0;
  const auto random_sector_factor = [&](double footprint) {
    return context.gpu->dram_concurrency->peak_Bps / (kSector * context.gpu->dram_random->sectors_per_s_at(footprint));
  };
  // A random read-modify-write beyond the L2 (gpu.dram_random_rmw, where the profile has it and
  // the read rate): the read brought each sector in whole, so its write-back is a whole sector,
  // priced at what the measured read-modify-write adds to the measured read,
  // 1/rmw(F) − 1/read(F) a sector (at least a streamed sector). An array's random writes are
  // read-modify-writes where the access is one (kind read-modify-write) or a random read of the same
  // array at the same index (`index`/`after`) precedes it (y[idx[i]] += x[i] as two accesses).
  const bool measured_rmw = measured_random && context.gpu->dram_random_rmw;
  const auto rmw_write_back_factor = [&](double footprint) {
    const double extra_s = 1 / context.gpu->dram_random_rmw->sectors_per_s_at(footprint) -
                           1 / context.gpu->dram_random->sectors_per_s_at(footprint);
    return std::max(1.0, context.gpu->dram_concurrency->peak_Bps * extra_s / kSector);
  };
  // A random write beyond the L2 with no read of its sectors first (a scatter; gpu.dram_random_write,
  // where the profile has it and the read rate): each partly written sector's write-back at the
  // measured random-write rate, 1/write(F) seconds (what the DRAM does for a partial sector, its
  // fetch of the sector included; at least a streamed sector); the sectors leaving L2 whole stay
  // at a streamed sector's price. It replaces kRandomWriteBackReads' strided-table price there.
  // Chosen on the 2026-11-27 run on GPU 7f47636c: the rates that make scatter_random (256 MiB)
  // and scatter_random_1g (1 GiB) right are 9.9 and 13.4 G sectors/s (1/R_w 101 and 75 ps, 2.9 and 2.3
  // random reads' time); a masked write at a streamed sector's price leaves both 74 % under, a read and
  // a whole write (1/R + a streamed sector) 41–51 % under, so the rate is measured as a scatter
  // does it rather than composed.
  const bool measured_write = measured_random && context.gpu->dram_random_write;
  const auto random_write_back_factor = [&](double footprint) {
    return std::max(1.0, context.gpu->dram_concurrency->peak_Bps / (kSector * context.gpu->dram_random_write->sectors_per_s_at(footprint)));
  };
  std::set<std::pair<std::string, std::string>> random_reads_at;  // (array, index) of random reads
  for (const Access& a : accesses)
    if (a.reads() && a.memory_path() && a.d.kind != AccessKind::atomic && !a.d.after.empty() &&
        (a.d.pattern == AccessPattern::random || a.d.pattern == AccessPattern::gather))
      random_reads_at.insert({a.array, a.d.after});
  std::map<std::string, bool> read_before_write;  // by array: every write of it a random read-modify-write
  bool random_rmw_beyond_l2 = false, random_write_beyond_l2 = false;
  bool random_beyond_l2 = false;
  std::map<std::string, Region> read_regions, write_regions;
  double memory_warp_accesses = 0, shared_warp_accesses = 0, per_thread_accesses = 0;
  double read_warp_accesses = 0, read_request_bytes = 0, any_warp_accesses = 0, any_request_bytes = 0;
  std::map<int, double> in_flight_by_level;
  // Per dependency level, each read's loads that take a DRAM slot (before the weighting by how
  // often a warp issues the read, applied after the loop): `dram_in_flight` below.
  struct DramLoads {
    int level;
    double loads, warp_accesses;
  };
  std::vector<DramLoads> dram_loads;
  bool atomics = false, scattered_writes = false, unmeasured_atomics = false;
  // The shape of the shared-memory work (the default barriers, docs/workload-format.md "Barriers").
  double widest_shared_write = 0, narrowest_shared_read = 0;
  double per_thread_reads = 0;
  for (const Access& a : accesses) {
    const AccessDescription& d = a.d;
    const double w = d.count / d.active_lanes, L = d.active_lanes, e = d.element_bytes;
    const double both = d.kind == AccessKind::read_modify_write ? 2 : 1;
    if (d.space == AccessSpace::shared) {
      const double passes = std::max(1.0, std::ceil(L * e / kLine));
      const double degree =
          d.kind == AccessKind::atomic ? std::max(d.conflict_degree, L / std::min(L, d.addresses_per_warp)) : d.conflict_degree;
      p.shared_accesses[degree] += w * passes * both;
      shared_warp_accesses += w * both;
      if (d.kind == AccessKind::write) widest_shared_write = std::max(widest_shared_write, L);
      if (d.kind == AccessKind::read) narrowest_shared_read = narrowest_shared_read > 0 ? std::min(narrowest_shared_read, L) : L;
      continue;
    }
    if (d.space == AccessSpace::constant) {
      // The constant cache serves a broadcast beside the L1 pipeline (the reference kernels' b in
      // constant memory: mv-constant, mv-shared, mv-opt, validated without L1 passes for it); it
      // serves distinct addresses one per pass. Its footprint comes from L2 (and DRAM) once.
      if (d.pattern != AccessPattern::broadcast) {
        p.l1_wavefronts += w * std::min(L, d.addresses_per_warp);
        p.l1_data_bytes += w * e;
      }
      const double f = a.footprint;
      p.l2_bytes += f;
      read_regions[a.array].add(f, f, 1, false, false, 0, 0, false, d.l2_resident);
      memory_warp_accesses += w;
      continue;
    }
    // Global and local: sectors and lines one warp access touches.
    double sectors = 0, lines = 0;
    // Runs of contiguous lanes, each at its own row (contiguous_lanes; one run by default).
    const double run = d.contiguous_lanes > 0 ? std::min(d.contiguous_lanes, L) : L, runs = std::ceil(L / run);
    if (d.kind == AccessKind::atomic) {
      sectors = lines = std::min(L, d.addresses_per_warp);
    } else {
      const double shift = d.offset * e;
      switch (d.pattern) {
        case AccessPattern::coalesced:
          sectors = runs * units_touched(run * e, shift, kSector), lines = runs * units_touched(run * e, shift, kLine);
          break;
        case AccessPattern::strided:
          sectors = std::min(L, units_touched(L * d.stride * e, shift, kSector)), lines = std::min(L, units_touched(L * d.stride * e, shift, kLine));
          break;
        case AccessPattern::random: case AccessPattern::gather: sectors = lines = a.sectors_per_warp; break;
        case AccessPattern::broadcast: sectors = lines = runs; break;
      }
    }
    const double bytes = sectors * kSector;  // per warp access, between L1 and L2
    const double moved = w * bytes;
    // Distinct bytes (sectors counted once) over the region.
    double distinct = 0;
    const double F = a.footprint;
    if (d.kind == AccessKind::atomic) {
      distinct = std::min(F, moved);
    } else {
      switch (d.pattern) {
        case AccessPattern::coalesced: distinct = std::min(F, d.count * e); break;
        case AccessPattern::strided: distinct = std::min(F, d.count * std::min(kSector, d.stride * e)); break;
        case AccessPattern::random: case AccessPattern::gather: distinct = F * -std::expm1(-moved / F); break;
        case AccessPattern::broadcast: distinct = std::min(F, moved); break;
      }
    }
    // A sparse strided or random read costs what the profile measured for that stride (the DRAM
    // fetches more than the 32-byte sector); a dense one (other warps use the rest of each sector) does not.
    const bool is_random = d.pattern == AccessPattern::random || d.pattern == AccessPattern::gather;
    // A random read whose window (the part of the table its neighbouring warps address at one
    // time: all of it unless `window` says less) exceeds the L2 misses to sectors the DRAM serves
    // one by one, every one of them (first touch or re-touch) at the measured random-sector
    // cost; without that measurement, at the strided table's largest stride, blended towards
    // dense reads as the launch covers the table. A gather with locality (a window within the
    // L2) keeps the blended rule.
    double phi = 1;
    const bool random_read_beyond_l2 = is_random && a.reads() && d.kind != AccessKind::atomic && a.window > l2_capacity;
    random_beyond_l2 = random_beyond_l2 || random_read_beyond_l2;
    if (measured_random && random_read_beyond_l2) {
      phi = random_sector_factor(a.window);
    } else if (measured_strided && a.reads() && d.kind != AccessKind::atomic) {
      if (d.pattern == AccessPattern::strided && d.count * std::min(kSector, d.stride * e) < F)
        phi = (e / std::min(kSector, d.stride * e)) / efficiency(d.stride, e);
      else if (is_random)
        phi = 1 + ((e / kSector) / efficiency(1e9, e) - 1) * (1 - distinct / F);
    }
    const double data = d.pattern == AccessPattern::broadcast && d.kind != AccessKind::atomic ? w * e * sectors : moved;
    p.l1_wavefronts += w * lines * both;
    p.l1_data_bytes += data * both;
    // A line request moving few sectors occupies the L2 as a larger one would (kL2*RequestBytes).
    const double l2_read = d.kind == AccessKind::atomic ? moved : std::max(moved, w * lines * kL2ReadRequestBytes);
    const double l2_write = d.kind == AccessKind::atomic ? moved : std::max(moved, w * lines * kL2WriteRequestBytes);
    if (a.reads()) {
      p.l2_bytes += l2_read * (1 - d.l1_hit);
      const bool swept = !is_random && d.sweep > 0;
      read_regions[a.array].add(distinct, moved * (1 - d.l1_hit), phi, is_random, false, 0, is_random ? a.window : swept ? d.sweep : 0,
                                swept, d.l2_resident);
      in_flight_by_level[level_of(a)] += d.independent;
      // Of the L1 hits, those the access's own sectors can serve (its next loads of the bytes a
      // request brings and it does not use: a lane's row walk, a broadcast) and those on lines
      // another access or warp brought (a stencil's neighbours): only the latter free the slot.
      const double used = d.pattern == AccessPattern::broadcast ? runs * e : L * e;
      const double own_reuse = bytes > 0 ? std::max(0.0, 1 - used / bytes) : 0.0;
      const double neighbour_hit = std::max(0.0, d.l1_hit - own_reuse);
      dram_loads.push_back({level_of(a), d.independent * (1 - neighbour_hit), w});
      if (d.kind != AccessKind::atomic) per_thread_reads += d.count / threads;
      read_warp_accesses += w, read_request_bytes += moved;
    }
    if (d.kind == AccessKind::write || d.kind == AccessKind::read_modify_write || d.kind == AccessKind::atomic) {
      p.l2_bytes += l2_write;
      // Bytes of each touched sector one warp access writes: fewer than 32 leaves the sector
      // partly written unless other accesses complete it (Region::partial_share).
      const double per_sector = d.kind == AccessKind::atomic ? kSector : std::min(kSector, L * e / std::max(1.0, sectors));
      write_regions[a.array].add(distinct, moved, 1, is_random, per_sector < kSector, d.count * e, is_random ? a.window : 0, false,
                                 d.l2_resident);
      const bool rmw = is_random && d.kind != AccessKind::atomic &&
                       (d.kind == AccessKind::read_modify_write || random_reads_at.count({a.array, d.after}));
      const auto seen = read_before_write.find(a.array);
      read_before_write[a.array] = rmw && (seen == read_before_write.end() || seen->second);
      if (d.kind == AccessKind::atomic) {
        read_regions[a.array].add(distinct, moved, 1, is_random);
        // The updates of every warp access spread over the footprint's sectors; the L2 applies
        // those of one sector one after another (the predictor's atomic term).
        if (d.space == AccessSpace::global) {
          const double sector_updates = w * std::min(L, d.addresses_per_warp) / std::max(1.0, F / kSector);
          p.atomic_sector_updates = std::max(p.atomic_sector_updates, sector_updates);
          p.atomics.push_back(atomic_steps(a, w));
          if (!context.gpu || !context.gpu->atomics.count(a.atomic_type)) unmeasured_atomics = true;
        }
      }
      if (d.kind != AccessKind::atomic && d.pattern != AccessPattern::coalesced && d.space == AccessSpace::global) scattered_writes = true;
    }
    atomics = atomics || (d.kind == AccessKind::atomic && d.space == AccessSpace::global);
    any_warp_accesses += w, any_request_bytes += moved;
    memory_warp_accesses += w * both;
    per_thread_accesses += d.count * both / threads;
  }
  for (const auto& [array, region] : read_regions) p.dram_bytes += region.dram(l2_capacity);
  // A partly written sector leaving L2 is read before it is written (the DRAM's ECC words are
  // wider than the bytes written): strided_write_f32 (half A) moved its sectors twice. Where the
  // order is random, both go to random sectors, at the profile's sparse-read cost, and the
  // write-back takes kRandomWriteBackReads of them.
  // The write-back stays at the strided table's price even where the profile measured random
  // reads (gpu.dram_random): kRandomWriteBackReads was fitted on scatter_random with that price,
  // and the two are one constant until scatter_random is refitted against the measured rate. A
  // random read-modify-write's write-back (its sector read whole first) goes at the measured
  // read-modify-write rate instead, where the profile has one (gpu.dram_random_rmw, above); a
  // random write with no read first (a scatter) at the measured random-write rate, where the
  // profile has one (gpu.dram_random_write, above).
  const double phi_random = measured_strided ? (4 / kSector) / efficiency(1e9, 4) : 1.0;
  for (const auto& [array, region] : write_regions) {
    if (region.resident) continue;  // it stays in L2 after the launch: no write-back here
    const double bytes = region.dram(l2_capacity), partial = bytes * region.partial_share(l2_capacity);
    if (measured_rmw && region.random && read_before_write[array] && region.window > l2_capacity) {
      const double written = bytes * rmw_write_back_factor(region.window);
      p.dram_bytes += written;
      p.dram_write_bytes += written;
      random_rmw_beyond_l2 = true;
      continue;
    }
    if (measured_write && region.random && !read_before_write[array] && region.window > l2_capacity && partial > 0) {
      const double written = (bytes - partial) + partial * random_write_back_factor(region.window);
      p.dram_bytes += written;
      p.dram_write_bytes += written;
      random_write_beyond_l2 = true;
      continue;
    }
    const double written = region.random ? (bytes - partial) + partial * phi_random * kRandomWriteBackReads : bytes + partial;
    p.dram_bytes += written;
    p.dram_write_bytes += written;
  }
  double in_flight = 0;
  for (const auto& [l, n] : in_flight_by_level) in_flight = std::max(in_flight, n);
  p.loads_in_flight = std::max(1.0, in_flight);
  // DRAM loads in flight (docs/workload-format.md, "DRAM loads in flight"): per level, each read's
  // loads that take a DRAM slot, weighted by how often a warp issues it against the level's most
  // frequent read (a prologue load or a halo that one warp in eight loads is not in flight beside
  // every step's loads); the most over the levels, at least one, at most loads_in_flight.
  std::map<int, double> most_issued, dram_by_level;
  for (const DramLoads& x : dram_loads) most_issued[x.level] = std::max(most_issued[x.level], x.warp_accesses);
  for (const DramLoads& x : dram_loads)
    if (most_issued[x.level] > 0) dram_by_level[x.level] += x.loads * x.warp_accesses / most_issued[x.level];
  double dram_in_flight = 0;
  for (const auto& [l, n] : dram_by_level) dram_in_flight = std::max(dram_in_flight, n);
  p.dram_loads_in_flight = std::min(p.loads_in_flight, std::max(1.0, dram_in_flight));
  // The serial phase after the loads (docs/workload-format.md, "Barriers"): the barriers given,
  // else a tree over the block where the shared-memory work has a tree's shape (it narrows: the
  // last rounds read with fewer lanes than the widest shared write and than a warp; a staged
  // tile's reads are as wide as its writes): log2(threads) rounds, each ending in a barrier, after
  // the first. Whether or not a `chain` is given: the chain is one thread's latency, a bound of
  // its own in the wave's max, while the phase lowers the bytes in flight of the DRAM and L2
  // terms; neither enters the other, so nothing is counted twice (chosen on the recorded runs:
  // reduce_shared_tree_256_f64, half G, GPU 7f47636c, -36.7 -> -11.3 %).
  p.load_rounds = std::max(1.0, per_thread_reads / p.loads_in_flight);
  if (k.barriers) {
    p.barriers = *k.barriers;
  } else if (narrowest_shared_read > 0 && narrowest_shared_read < std::min(32.0, widest_shared_write)) {
    p.barriers = std::ceil(std::log2(p.threads_per_block())) + 1;
    notes.add(who + "a shared-memory tree over the block (its last shared reads narrower than its writes and than a warp): " +
              std::to_string(static_cast<int>(p.barriers)) + " barriers after the loads, a serial phase that holds the block's slot (`barriers` to state them)");
  }
  p.request_bytes = k.request_bytes                ? *k.request_bytes
                    : read_warp_accesses > 0      ? read_request_bytes / read_warp_accesses
                    : any_warp_accesses > 0       ? any_request_bytes / any_warp_accesses
                                                  : kLine;
  if (atomics && unmeasured_atomics)
    notes.add(who + "global atomics: updates of one sector at a serial rate fitted to the generalisation suite (the profile has "
                    "no gpu.atomics measurement of this atomic type)");
  else if (atomics)
    notes.add(who + "global atomics: the profile's measured atomicAdd rates (gpu.atomics) for the type: L2 steps over the bytes updated at one time, and each word's updates one after another");
  if (random_beyond_l2 && measured_random)
    notes.add(who + "random reads over a window beyond the L2: each DRAM sector at the profile's measured random-read rate (gpu.dram_random)");
  else if (random_beyond_l2)
    notes.add(who + "random reads over a window beyond the L2: each DRAM sector at the strided-read table's largest stride (the profile has no "
                    "gpu.dram_random measurement)");
  if (random_rmw_beyond_l2)
    notes.add(who + "random read-modify-writes over a window beyond the L2: each sector written back whole, at what the profile's measured "
                    "read-modify-write rate adds to its read (gpu.dram_random_rmw)");
  if (random_write_beyond_l2)
    notes.add(who + "random writes over a window beyond the L2 (no read first): each partly written sector's write-back at the "
                    "profile's measured random-write rate (gpu.dram_random_write)");
  if (scattered_writes)
    notes.add(who + "strided or random writes: partly written sectors read before they are written, scattered line requests "
                    "at an L2 cost fitted to the generalisation suite (the profile has no strided-write rate)");

  double extra_flops = 0;
  const double slots = derive_work(k.work, WorkRates(context.gpu), p, extra_flops, notes);
  // One issue slot per FP32 instruction (and its FP16/INT/MMA equivalent), three per global,
  // local or constant warp access (the access, address arithmetic, loop overhead), one per shared one.
  p.warp_instructions = k.warp_instructions ? *k.warp_instructions : slots + 3 * memory_warp_accesses + shared_warp_accesses;
  // A compiled count's integer share: priced by the predictor at the profile's integer rate.
  if (k.integer_share && (!k.warp_instructions || !(*k.integer_share >= 0 && *k.integer_share <= 1)))
    throw InputError(who + "integer_share must lie in [0, 1] and needs a given warp_instructions");
  if (k.warp_instructions && k.integer_share) p.integer_warp_instructions = *k.integer_share * *k.warp_instructions;
  bool integer_rate_measured = false;
  integer_issue_slots(context.gpu, &integer_rate_measured);
  if (p.integer_warp_instructions > 0 && context.gpu && !integer_rate_measured)
    notes.add("integer instructions of the compiled count at 4/3 FP32 issue slots each: the profile has no int32_logic ceiling");
  if (k.chain) {
    const ChainDescription& c = *k.chain;
    // Only the FP32 FMA latency is measured: the other dependent arithmetic waits that long.
    p.chain_fma = c.fp32 + c.fp64 + c.fp16 + c.integer;
    p.chain_cosf = c.special;
    p.chain_l1_loads = c.shared_loads + c.l1_loads;
    p.chain_l2_loads = c.l2_loads;
    p.chain_dram_loads = c.dram_loads;
  } else if (per_thread_accesses > 0) {
    const double levels = in_flight_by_level.empty() ? 0.0 : static_cast<double>(in_flight_by_level.rbegin()->first);
    p.chain_l2_loads = std::max({1.0, levels, std::ceil(per_thread_accesses / p.loads_in_flight)});
  }
  return p;
}

}  // namespace perfmodel
