// Workload format 2: the reader and the derivation from accesses to the descriptor. Every rule
// here is stated, with its reason, in docs/workload-format.md ("How accesses become traffic");
// keep the two in step.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "gpu_workload_detail.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/workload_expression.hpp"

namespace perfmodel::detail {
namespace {

constexpr double kSector = 32, kLine = 128, kWarpLanes = 32;
constexpr double kAbsurd = 4611686018427387904.0;  // 2^62: nothing a kernel counts comes near it
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
// -1 %; 2, the read and the write alone, 56 % under); no microbenchmark measures it.
constexpr double kRandomWriteBackReads = 5;

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

enum class Space { global, shared, constant, local };
enum class Kind { read, write, read_modify_write, atomic };
enum class Pattern { coalesced, strided, random, broadcast, gather };

struct Access {
  explicit Access(yaml::Value v) : node(std::move(v)) {}
  yaml::Value node;
  std::string name, array, after;
  Space space = Space::global;
  Kind kind = Kind::read;
  Pattern pattern = Pattern::coalesced;
  double e = 4, count = 0, lanes = kWarpLanes, stride = 1, footprint = 0, sectors_per_warp = kWarpLanes, independent = 1,
         l1_hit = 0, conflict = 1, addresses = kWarpLanes, window = 0;
  bool pattern_given = false, window_given = false;
  int warp_aggregated = -1;  // atomics: -1 the default rule, 0 no, 1 yes
  std::string atomic_type;  // global atomics: int32, fp32, fp64 (default from element_bytes: 8 → fp64, else int32)
  bool reads() const { return kind == Kind::read || kind == Kind::read_modify_write; }
  bool memory_path() const { return space == Space::global || space == Space::local; }
};

// Evaluates the scalars of one file with its params bound; every failure names file:line:key.
class Reader {
 public:
  std::map<std::string, double> names;

  double value(const yaml::Value& v) const {
    if (!v.node().IsScalar()) throw v.error("expected a number or an expression");
    double x = 0;
    try {
      x = evaluate_expression(v.as_string(), names);
    } catch (const ExpressionError& e) {
      throw v.error(e.what());
    }
    if (!(std::fabs(x) <= kAbsurd)) throw v.error("'" + v.as_string() + "' = " + number_text(x) + " is beyond 2^62");
    return x;
  }
  double nonnegative(const yaml::Value& v) const {
    const double x = value(v);
    if (x < 0) throw v.error("must be >= 0, got " + number_text(x) + " ('" + v.as_string() + "')");
    return x;
  }
  double positive(const yaml::Value& v) const {
    const double x = value(v);
    if (!(x > 0)) throw v.error("must be > 0, got " + number_text(x) + " ('" + v.as_string() + "')");
    return x;
  }
  double in_range(const yaml::Value& v, double lo, double hi) const {
    const double x = value(v);
    if (x < lo || x > hi)
      throw v.error("must be " + number_text(lo) + " … " + number_text(hi) + ", got " + number_text(x) + " ('" + v.as_string() + "')");
    return x;
  }
  double whole(const yaml::Value& v, double lo, double hi = kAbsurd) const {
    const double x = in_range(v, lo, hi);
    if (x != std::floor(x)) throw v.error("must be a whole number, got " + number_text(x) + " ('" + v.as_string() + "')");
    return x;
  }
};

template <typename E>
E one_of(const yaml::Value& v, const std::vector<std::pair<const char*, E>>& choices) {
  const std::string s = v.as_string();
  std::string list;
  for (const auto& [name, e] : choices) {
    if (s == name) return e;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  throw v.error("'" + s + "' is not one of: " + list);
}

bool boolean(const yaml::Value& v) {
  const std::string s = v.as_string();
  if (s == "true") return true;
  if (s == "false") return false;
  throw v.error("must be true or false");
}

Access read_access(const yaml::Value& a, std::size_t index, const Reader& r) {
  a.expect_map();
  a.allow_only({"name", "array", "space", "kind", "element_bytes", "count", "active_lanes", "pattern", "stride", "footprint",
                "sectors_per_warp", "independent", "after", "index", "l1_hit", "conflict_degree", "addresses_per_warp", "window", "atomic_type", "warp_aggregated"});
  Access x(a);
  x.name = a.has("name") ? a.get("name").as_string() : "access" + std::to_string(index);
  x.array = a.has("array") ? a.get("array").as_string() : x.name;
  if (a.has("space"))
    x.space = one_of<Space>(a.get("space"), {{"global", Space::global}, {"shared", Space::shared}, {"constant", Space::constant}, {"local", Space::local}});
  if (a.has("kind"))
    x.kind = one_of<Kind>(a.get("kind"), {{"read", Kind::read}, {"write", Kind::write}, {"read-modify-write", Kind::read_modify_write}, {"atomic", Kind::atomic}});
  x.pattern_given = a.has("pattern");
  if (a.has("pattern"))
    x.pattern = one_of<Pattern>(a.get("pattern"), {{"coalesced", Pattern::coalesced}, {"strided", Pattern::strided}, {"random", Pattern::random},
                                                   {"broadcast", Pattern::broadcast}, {"gather", Pattern::gather}});
  if (a.has("element_bytes")) {
    x.e = r.value(a.get("element_bytes"));
    if (x.e != 1 && x.e != 2 && x.e != 4 && x.e != 8 && x.e != 16) throw a.get("element_bytes").error("must be 1, 2, 4, 8 or 16");
  }
  x.count = r.nonnegative(a.get("count"));
  if (a.has("active_lanes")) x.lanes = r.whole(a.get("active_lanes"), 1, 32);
  auto only_if = [&](const char* key, bool allowed, const std::string& why) {
    if (a.has(key) && !allowed) throw a.get(key).error(why);
  };
  only_if("stride", x.pattern == Pattern::strided, "only meaningful with pattern: strided");
  if (x.pattern == Pattern::strided) x.stride = r.in_range(a.get("stride"), 1, kAbsurd);
  only_if("sectors_per_warp", x.pattern == Pattern::random || x.pattern == Pattern::gather, "only meaningful with pattern: random or gather");
  if (a.has("sectors_per_warp")) x.sectors_per_warp = r.in_range(a.get("sectors_per_warp"), 1, 32);
  only_if("window", x.pattern == Pattern::random || x.pattern == Pattern::gather || x.kind == Kind::atomic,
          "only meaningful with pattern: random or gather, or for kind: atomic");
  x.window_given = a.has("window");
  if (a.has("window")) x.window = r.positive(a.get("window"));
  x.sectors_per_warp = std::min(x.sectors_per_warp, x.lanes);
  only_if("index", x.pattern == Pattern::gather, "only meaningful with pattern: gather");
  if (x.pattern == Pattern::gather) x.after = a.get("index").as_string();
  if (a.has("after")) {
    if (a.has("index")) throw a.get("after").error("a gather's index already says what it waits for: give index or after, not both");
    x.after = a.get("after").as_string();
  }
  only_if("independent", x.reads(), "only meaningful for reads (kind: read or read-modify-write)");
  if (a.has("independent")) x.independent = r.in_range(a.get("independent"), 1, 1e6);
  only_if("l1_hit", x.reads() && x.memory_path(), "only meaningful for global or local reads");
  if (a.has("l1_hit")) x.l1_hit = r.in_range(a.get("l1_hit"), 0, 1);
  only_if("conflict_degree", x.space == Space::shared, "only meaningful for space: shared");
  if (a.has("conflict_degree")) x.conflict = r.in_range(a.get("conflict_degree"), 1, 32);
  only_if("addresses_per_warp", x.kind == Kind::atomic || (x.space == Space::constant && x.pattern != Pattern::broadcast),
          "only meaningful for atomics and non-broadcast constant reads");
  if (a.has("addresses_per_warp")) x.addresses = r.in_range(a.get("addresses_per_warp"), 1, 32);
  if (x.space == Space::shared && x.pattern != Pattern::coalesced && x.pattern != Pattern::broadcast)
    throw a.get("pattern").error("shared-memory accesses state their bank conflicts with conflict_degree, not a pattern");
  if (x.space == Space::constant && x.kind != Kind::read) throw a.get("kind").error("constant memory is read-only");
  if (x.kind == Kind::atomic && x.space != Space::global && x.space != Space::shared)
    throw a.get("kind").error("atomics are global or shared");
  only_if("atomic_type", x.kind == Kind::atomic, "only meaningful for kind: atomic");
  if (x.kind == Kind::atomic) {
    if (a.has("atomic_type")) {
      x.atomic_type = one_of<std::string>(a.get("atomic_type"), {{"int32", "int32"}, {"fp32", "fp32"}, {"fp64", "fp64"}});
      if ((x.atomic_type == "fp64") != (x.e == 8))
        throw a.get("atomic_type").error("atomic_type " + x.atomic_type + " needs element_bytes: " + (x.atomic_type == "fp64" ? "8" : "4"));
    } else {
      x.atomic_type = x.e == 8 ? "fp64" : "int32";
    }
  }
  only_if("warp_aggregated", x.kind == Kind::atomic && x.space == Space::global, "only meaningful for global atomics");
  if (a.has("warp_aggregated")) {
    if (boolean(a.get("warp_aggregated")) && std::min(x.lanes, x.addresses) > 1)
      throw a.get("warp_aggregated").error("a warp-aggregated atomic updates one address per warp access: give addresses_per_warp: 1");
    x.warp_aggregated = boolean(a.get("warp_aggregated")) ? 1 : 0;
  }
  // The region the addresses range over (docs: "Footprint defaults").
  const double w = x.count / x.lanes;
  if (a.has("footprint")) {
    x.footprint = r.positive(a.get("footprint"));
  } else if (x.kind == Kind::atomic) {
    x.footprint = x.count * x.e;
  } else {
    switch (x.pattern) {
      case Pattern::coalesced: case Pattern::random: case Pattern::gather: x.footprint = x.count * x.e; break;
      case Pattern::strided: x.footprint = x.count * x.stride * x.e; break;
      case Pattern::broadcast: x.footprint = x.e * w; break;
    }
  }
  x.window = x.window > 0 ? std::min(x.window, x.footprint) : x.footprint;
  return x;
}

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
  const bool broadcast = a.pattern_given && a.pattern == Pattern::broadcast;
  const double L = a.lanes, A = broadcast ? 1 : std::min(a.lanes, a.addresses), e = a.e, F = a.footprint;
  GpuPhase::Atomic out;
  out.type = a.atomic_type;
  out.warp_accesses = w;
  out.updates = a.count;
  out.words = std::max(1.0, std::floor(F / e));
  out.footprint_bytes = F;
  out.window_bytes = a.window_given ? a.window : 0;
  out.one_address_per_warp = A <= 1;
  out.sector_updates = w * std::min(L, a.addresses) / std::max(1.0, F / kSector);
  const bool aggregated = a.warp_aggregated == 1 || (a.warp_aggregated == -1 && A <= 1 && L > 1 && a.atomic_type == "int32");
  if (aggregated) {
    out.steps_per_warp = 1, out.updates = w;
    return out;
  }
  if (!a.pattern_given || a.pattern == Pattern::random || a.pattern == Pattern::gather) {
    out.steps_per_warp = random_atomic_steps(L, A, F, e);
  } else if (a.pattern == Pattern::coalesced) {
    out.steps_per_warp = std::ceil(A * e / kSector) * L / A;
  } else if (a.pattern == Pattern::strided) {
    out.steps_per_warp = std::min(A, std::ceil(A * a.stride * e / kSector)) * L / A;
  } else {
    out.steps_per_warp = L;
  }
  return out;
}

// The rates that turn FP16, INT32 and fast special-function work into the predictor's FP32 issue
// slots and cosf calls, with a note where the profile lacks one.
struct WorkRates {
  double fp16_slot = 1, int_slot = 1;  // FP32 issue slots per warp instruction
  bool has_fp16 = false, has_int = false, has_fast = false;
  explicit WorkRates(const GpuCalibration& gpu) {
    const auto rate = [&](const char* k) { const auto it = gpu.ceilings.find(k); return it == gpu.ceilings.end() ? 0.0 : it->second.median; };
    const double fp32 = rate("fp32");
    // half2: 4 flop per lane. The constant-operand rate where measured: a*x+c with a scalar a,
    // what FP16 arithmetic written from a formula compiles to (fma_chain_f16x2, the generalisation
    // suite's half A: 66 Tflop/s, the constant-operand rate; 130 with registers only).
    const double fp16 = rate("fp16_constant_operand") > 0 ? rate("fp16_constant_operand") : rate("fp16");
    if (fp32 > 0 && fp16 > 0) has_fp16 = true, fp16_slot = (fp32 / 64) / (fp16 / 128);
    if (fp32 > 0 && rate("int32") > 0) has_int = true, int_slot = (fp32 / 64) / (rate("int32") / 64);   // IMAD: 2 op per lane
    has_fast = rate("fast_cosf") > 0;
  }
};

struct KernelNotes {
  std::vector<std::string>& notes;
  void add(const std::string& line) {
    if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
  }
};

void read_work(const yaml::Value& work, const Reader& r, const WorkRates& rates, GpuPhase& p, double& extra_flops,
               double& slots, KernelNotes& notes) {
  work.expect_map();
  work.allow_only({"fp32", "fp64", "fp16", "bf16", "fp16x2", "bf16x2", "int", "special", "special_fast", "shuffles", "mma"});
  auto amount = [&](const char* key) { return work.has(key) ? r.nonnegative(work.get(key)) : 0.0; };
  p.flops_fp32 = amount("fp32");
  p.flops_fp64 = amount("fp64");
  const double half = amount("fp16") + amount("bf16"), pairs = amount("fp16x2") + amount("bf16x2");
  const double integer = amount("int"), shuffles = amount("shuffles");
  p.special_calls = amount("special");
  p.sfu_calls = amount("special_fast");
  // A fast call is one MUFU instruction: one issue slot a warp, its rate on the SFU pipe.
  slots = p.flops_fp32 / 64 + (half / 64 + pairs / 128) * rates.fp16_slot + integer / 32 * rates.int_slot + shuffles / 32 +
          p.sfu_calls / 32;
  extra_flops = half + pairs;
  if (shuffles > 0) p.shared_accesses[1] += shuffles / 32;  // the shared-memory crossbar, 32 lanes a pass
  if ((half > 0 || pairs > 0) && !rates.has_fp16)
    notes.add("FP16/BF16 work at the FP32 instruction rate: the profile has no fp16 ceiling");
  if (integer > 0 && !rates.has_int) notes.add("integer work at the FP32 instruction rate: the profile has no int32 ceiling");
  if (work.has("special_fast") && !rates.has_fast) notes.add("fast special-function calls at the cosf rate: the profile has no fast_cosf ceiling");
  if (work.has("mma")) {
    const yaml::Value list = work.get("mma");
    static const std::regex shape_re("m([0-9]+)n([0-9]+)k([0-9]+)");
    for (std::size_t i = 0; i < list.sequence_size(); ++i) {
      const yaml::Value m = list.at(i);
      m.expect_map();
      m.allow_only({"shape", "precision", "flops"});
      std::smatch sm;
      const std::string shape = m.get("shape").as_string();
      if (!std::regex_match(shape, sm, shape_re)) throw m.get("shape").error("expected mMnNkK, e.g. m16n8k16, got '" + shape + "'");
      const double mnk = std::stod(sm[1]) * std::stod(sm[2]) * std::stod(sm[3]);
      if (!(mnk > 0)) throw m.get("shape").error("dimensions must be > 0");
      one_of<int>(m.get("precision"), {{"fp16", 0}, {"bf16", 0}, {"tf32", 0}, {"fp8", 0}, {"int8", 0}, {"fp64", 0}});
      const double flops = r.nonnegative(m.get("flops"));
      slots += flops / (2 * mnk);  // one warp-wide mma instruction each
      extra_flops += flops;
    }
    notes.add("tensor-core mma: one issue slot per instruction, the profile has no tensor-core ceiling (a lower bound on its time)");
  }
}

void read_chain(const yaml::Value& c, const Reader& r, GpuPhase& p) {
  c.expect_map();
  c.allow_only({"fp32", "fp64", "fp16", "int", "special", "shared_loads", "l1_loads", "l2_loads", "dram_loads"});
  auto steps = [&](const char* key) { return c.has(key) ? r.nonnegative(c.get(key)) : 0.0; };
  // Only the FP32 FMA latency is measured: the other dependent arithmetic waits that long.
  p.chain_fma = steps("fp32") + steps("fp64") + steps("fp16") + steps("int");
  p.chain_cosf = steps("special");
  p.chain_l1_loads = steps("shared_loads") + steps("l1_loads");
  p.chain_l2_loads = steps("l2_loads");
  p.chain_dram_loads = steps("dram_loads");
}

void read_copies(const yaml::Value& list, const Reader& r, double repeats, GpuWorkloadFile& f) {
  for (std::size_t i = 0; i < list.sequence_size(); ++i) {
    const yaml::Value x = list.at(i);
    x.expect_map();
    x.allow_only({"direction", "memory", "bytes"});
    const auto dir = parse_direction(x.get("direction").as_string());
    if (!dir) throw x.get("direction").error("must be h2d, d2h or bidir");
    const auto mem = parse_host_memory(x.has("memory") ? x.get("memory").as_string() : "pinned");
    if (!mem) throw x.get("memory").error("must be pinned or pageable");
    DescribedTransfer d;
    d.key = {*dir, *mem};
    d.bytes = r.whole(x.get("bytes"), 1);
    d.repeats = repeats;
    (*dir == Direction::d2h ? f.workload.d2h_bytes : f.workload.h2d_bytes) += d.bytes * repeats;
    f.transfers.push_back(d);
  }
}

// DRAM traffic of one array's reads or writes (docs: "DRAM bytes, the reuse rule").
struct Region {
  double distinct = 0, touched = 0, factor = 1;  // D, T, and the strided-read efficiency factor of the access defining D
  bool random = false;
  // Writes only: whether the sectors leave L2 partly written (the access defining D writes fewer
  // than 32 bytes of each sector it touches), and the bytes written over the distinct bytes.
  bool partial = false;
  double coverage = 1;
  // The part of the region a random access's neighbouring warps address at one time (its
  // `window`; the distinct bytes where it gives none): a re-touch misses only when that exceeds L2.
  double window = 0;
  void add(double d, double t, double phi, bool is_random, bool is_partial = false, double written = 0, double win = 0) {
    if (d > distinct) distinct = d, factor = phi, partial = is_partial, coverage = d > 0 ? written / d : 1, window = win;
    touched += t;
    random = random || is_random;
  }
  double miss(double l2_capacity) const {
    const double live = window > 0 ? std::min(window, distinct) : distinct;
    return live <= l2_capacity || !random ? 0.0 : 1.0 - l2_capacity / live;
  }
  double dram(double l2_capacity) const { return (distinct + std::max(0.0, touched - distinct) * miss(l2_capacity)) * factor; }
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

GpuPhase read_kernel(const yaml::Value& k, const Reader& r, const GpuCalibration& gpu, const WorkRates& rates, GpuWorkloadFile& f) {
  k.expect_map();
  k.allow_only({"name", "launches", "grid", "block", "registers", "shared_bytes", "accesses", "work", "chain", "warp_instructions",
                "loads_issued_together", "staged_tiles", "fetch_rounds_in_chain", "copies"});
  GpuPhase p;
  p.name = k.has("name") ? k.get("name").as_string() : "kernel";
  KernelNotes notes{f.notes};
  const std::string who = "kernel " + p.name + ": ";
  p.launches = k.has("launches") ? r.whole(k.get("launches"), 1) : 1;
  auto dims = [&](const char* key, const std::vector<double>& limits) {
    const yaml::Value v = k.get(key);
    if (v.sequence_size() < 1 || v.sequence_size() > 3) throw v.error("expected [x], [x, y] or [x, y, z]");
    std::vector<double> d{1, 1, 1};
    for (std::size_t i = 0; i < v.sequence_size(); ++i) d[i] = r.whole(v.at(i), 1, limits[i]);
    return d;
  };
  const std::vector<double> grid = dims("grid", {2147483647.0, 65535, 65535}), block = dims("block", {1024, 1024, 64});
  if (block[0] * block[1] * block[2] > 1024) throw k.get("block").error("more than 1024 threads per block");
  // The model sees two dimensions; occupancy and waves depend only on the products.
  p.grid_x = grid[0], p.grid_y = grid[1] * grid[2];
  p.block_x = block[0], p.block_y = block[1] * block[2];
  p.registers_per_thread = k.has("registers") ? r.whole(k.get("registers"), 1, 255) : 32;
  p.shared_bytes_per_block = k.has("shared_bytes") ? r.whole(k.get("shared_bytes"), 0) : 0;
  if (k.has("loads_issued_together")) p.loads_issued_together = boolean(k.get("loads_issued_together"));
  // The reference kernels' special forms (predictors/gpu_compute.hpp), for a kernel that has them.
  if (k.has("staged_tiles")) p.staged_tiles = boolean(k.get("staged_tiles"));
  if (k.has("fetch_rounds_in_chain")) {
    p.fetch_rounds_in_chain = boolean(k.get("fetch_rounds_in_chain"));
    if (p.fetch_rounds_in_chain && !p.staged_tiles)
      throw k.get("fetch_rounds_in_chain").error("only meaningful with staged_tiles: true (the serial tile form)");
  }
  const double threads = p.blocks() * p.threads_per_block();

  std::vector<Access> accesses;
  if (k.has("accesses")) {
    const yaml::Value list = k.get("accesses");
    for (std::size_t i = 0; i < list.sequence_size(); ++i) {
      accesses.push_back(read_access(list.at(i), i, r));
      for (std::size_t j = 0; j + 1 < accesses.size(); ++j)
        if (accesses[j].name == accesses.back().name) throw list.at(i).error("a second access named '" + accesses.back().name + "'");
    }
  }
  // Dependency levels of the reads: a read `after` another is one level deeper.
  std::map<std::string, const Access*> by_name;
  for (const Access& a : accesses) by_name[a.name] = &a;
  for (const Access& a : accesses) {
    if (a.after.empty()) continue;
    const yaml::Value at = a.node.get(a.node.has("index") ? "index" : "after");
    const auto it = by_name.find(a.after);
    if (it == by_name.end()) throw at.error("no access named '" + a.after + "' in this kernel");
    if (it->second == &a) throw at.error("an access cannot wait for itself");
    if (!it->second->reads() || !it->second->memory_path()) throw at.error("'" + a.after + "' is not a global or local read");
  }
  for (const Access& a : accesses) {  // a chain of `after` longer than the list is a cycle
    const Access* x = &a;
    for (std::size_t steps = 0; x && !x->after.empty(); ++steps) {
      if (steps > accesses.size()) throw a.node.error("its after/index references form a cycle");
      x = by_name.at(x->after);
    }
  }
  std::map<const Access*, int> level;
  std::function<int(const Access&)> level_of = [&](const Access& a) -> int {
    const auto it = level.find(&a);
    if (it != level.end()) return it->second;
    const int l = a.after.empty() ? 1 : 1 + level_of(*by_name.at(a.after));
    level[&a] = l;
    return l;
  };

  const double l2_capacity = gpu.device.l2_cache_bytes;
  const bool measured_strided = has_strided_efficiency(gpu);
  std::map<std::string, Region> read_regions, write_regions;
  double memory_warp_accesses = 0, shared_warp_accesses = 0, per_thread_accesses = 0;
  double read_warp_accesses = 0, read_request_bytes = 0, any_warp_accesses = 0, any_request_bytes = 0;
  std::map<int, double> in_flight_by_level;
  // Per dependency level, the loads in flight toward DRAM: each read's independent loads that miss
  // L1, weighted after the loop by its array's DRAM share (DRAM bytes over the bytes it requests).
  std::vector<std::tuple<int, std::string, double>> dram_loads_by_level;
  bool atomics = false, scattered_writes = false, unmeasured_atomics = false;
  for (const Access& a : accesses) {
    const double w = a.count / a.lanes, L = a.lanes, e = a.e;
    const double both = a.kind == Kind::read_modify_write ? 2 : 1;
    if (a.space == Space::shared) {
      const double passes = std::max(1.0, std::ceil(L * e / kLine));
      const double degree = a.kind == Kind::atomic ? std::max(a.conflict, L / std::min(L, a.addresses)) : a.conflict;
      p.shared_accesses[degree] += w * passes * both;
      shared_warp_accesses += w * both;
      continue;
    }
    if (a.space == Space::constant) {
      // The constant cache serves one address per pass; its footprint comes from L2 (and DRAM) once.
      p.l1_wavefronts += w * (a.pattern == Pattern::broadcast ? 1 : std::min(L, a.addresses));
      p.l1_data_bytes += w * e;
      const double d = a.footprint;
      p.l2_bytes += d;
      read_regions[a.array].add(d, d, 1, false);
      memory_warp_accesses += w;
      continue;
    }
    // Global and local: sectors and lines one warp access touches.
    double sectors = 0, lines = 0;
    if (a.kind == Kind::atomic) {
      sectors = lines = std::min(L, a.addresses);
    } else {
      switch (a.pattern) {
        case Pattern::coalesced: sectors = std::ceil(L * e / kSector), lines = std::ceil(L * e / kLine); break;
        case Pattern::strided:
          sectors = std::min(L, std::ceil(L * a.stride * e / kSector)), lines = std::min(L, std::ceil(L * a.stride * e / kLine));
          break;
        case Pattern::random: case Pattern::gather: sectors = lines = a.sectors_per_warp; break;
        case Pattern::broadcast: sectors = lines = 1; break;
      }
    }
    const double bytes = sectors * kSector;  // per warp access, between L1 and L2
    const double moved = w * bytes;
    // Distinct bytes (sectors counted once) over the region.
    double distinct = 0;
    const double F = a.footprint;
    if (a.kind == Kind::atomic) {
      distinct = std::min(F, moved);
    } else {
      switch (a.pattern) {
        case Pattern::coalesced: distinct = std::min(F, a.count * e); break;
        case Pattern::strided: distinct = std::min(F, a.count * std::min(kSector, a.stride * e)); break;
        case Pattern::random: case Pattern::gather: distinct = F * -std::expm1(-moved / F); break;
        case Pattern::broadcast: distinct = std::min(F, w * kSector); break;
      }
    }
    // A sparse strided or random read costs what the profile measured for that stride (the DRAM
    // fetches more than the 32-byte sector); a dense one (other warps use the rest of each sector) does not.
    double phi = 1;
    if (measured_strided && a.reads() && a.kind != Kind::atomic) {
      if (a.pattern == Pattern::strided && a.count * std::min(kSector, a.stride * e) < F)
        phi = (e / std::min(kSector, a.stride * e)) / strided_efficiency(gpu, a.stride, e);
      else if (a.pattern == Pattern::random || a.pattern == Pattern::gather)
        phi = 1 + ((e / kSector) / strided_efficiency(gpu, 1e9, e) - 1) * (1 - distinct / F);
    }
    const bool is_random = a.pattern == Pattern::random || a.pattern == Pattern::gather;
    const double data = a.pattern == Pattern::broadcast && a.kind != Kind::atomic ? w * e : moved;
    p.l1_wavefronts += w * lines * both;
    p.l1_data_bytes += data * both;
    // A line request moving few sectors occupies the L2 as a larger one would (kL2*RequestBytes).
    const double l2_read = a.kind == Kind::atomic ? moved : std::max(moved, w * lines * kL2ReadRequestBytes);
    const double l2_write = a.kind == Kind::atomic ? moved : std::max(moved, w * lines * kL2WriteRequestBytes);
    if (a.reads()) {
      p.l2_bytes += l2_read * (1 - a.l1_hit);
      read_regions[a.array].add(distinct, moved * (1 - a.l1_hit), phi, is_random, false, 0, is_random ? a.window : 0);
      in_flight_by_level[level_of(a)] += a.independent;
      dram_loads_by_level.emplace_back(level_of(a), a.array, a.independent * (1 - a.l1_hit));
      read_warp_accesses += w, read_request_bytes += moved;
    }
    if (a.kind == Kind::write || a.kind == Kind::read_modify_write || a.kind == Kind::atomic) {
      p.l2_bytes += l2_write;
      // Bytes of each touched sector one warp access writes: fewer than 32 leaves the sector
      // partly written unless other accesses complete it (Region::partial_share).
      const double per_sector = a.kind == Kind::atomic ? kSector : std::min(kSector, L * e / std::max(1.0, sectors));
      write_regions[a.array].add(distinct, moved, 1, is_random, per_sector < kSector, a.count * e, is_random ? a.window : 0);
      if (a.kind == Kind::atomic) {
        read_regions[a.array].add(distinct, moved, 1, is_random);
        // The updates of every warp access spread over the footprint's sectors; the L2 applies
        // those of one sector one after another (the predictor's atomic term).
        if (a.space == Space::global) {
          const double sector_updates = w * std::min(L, a.addresses) / std::max(1.0, F / kSector);
          p.atomic_sector_updates = std::max(p.atomic_sector_updates, sector_updates);
          p.atomics.push_back(atomic_steps(a, w));
          if (!gpu.atomics.count(a.atomic_type)) unmeasured_atomics = true;
        }
      }
      if (a.kind != Kind::atomic && a.pattern != Pattern::coalesced && a.space == Space::global) scattered_writes = true;
    }
    atomics = atomics || (a.kind == Kind::atomic && a.space == Space::global);
    any_warp_accesses += w, any_request_bytes += moved;
    memory_warp_accesses += w * both;
    per_thread_accesses += a.count * both / threads;
  }
  std::map<std::string, double> dram_share;
  for (const auto& [array, region] : read_regions) {
    const double bytes = region.dram(l2_capacity);
    p.dram_bytes += bytes;
    dram_share[array] = region.touched > 0 ? std::min(1.0, bytes / region.factor / region.touched) : 1.0;
  }
  // A partly written sector leaving L2 is read before it is written (the DRAM's ECC words are
  // wider than the bytes written): strided_write_f32 (half A) moved its sectors twice. Where the
  // order is random, both go to random sectors, at the profile's sparse-read cost, and the
  // write-back takes kRandomWriteBackReads of them.
  const double phi_random = measured_strided ? (4 / kSector) / strided_efficiency(gpu, 1e9, 4) : 1.0;
  for (const auto& [array, region] : write_regions) {
    const double bytes = region.dram(l2_capacity), partial = bytes * region.partial_share(l2_capacity);
    const double written = region.random ? (bytes - partial) + partial * phi_random * kRandomWriteBackReads : bytes + partial;
    p.dram_bytes += written;
    p.dram_write_bytes += written;
  }
  double in_flight = 0;
  for (const auto& [l, n] : in_flight_by_level) in_flight = std::max(in_flight, n);
  p.loads_in_flight = std::max(1.0, in_flight);
  // Little's law at DRAM counts the loads that reach it: a stencil's five loads per thread carry
  // one new line between them (its neighbours hit L1 or L2), so its DRAM bytes in flight are a
  // copy's, not five times that. At least one load: a sweep that re-reads an L2-resident array
  // takes its compulsory misses at the full rate on its first pass.
  std::map<int, double> dram_by_level;
  for (const auto& [lv, array, loads] : dram_loads_by_level) dram_by_level[lv] += loads * dram_share[array];
  double dram_in_flight = 0;
  for (const auto& [l, n] : dram_by_level) dram_in_flight = std::max(dram_in_flight, n);
  p.dram_loads_in_flight = std::min(p.loads_in_flight, std::max(1.0, dram_in_flight));
  p.request_bytes = read_warp_accesses > 0 ? read_request_bytes / read_warp_accesses
                    : any_warp_accesses > 0 ? any_request_bytes / any_warp_accesses
                                            : kLine;
  if (atomics && unmeasured_atomics)
    notes.add(who + "global atomics: updates of one sector at a serial rate fitted to the generalisation suite (the profile has "
                    "no gpu.atomics measurement of this atomic type)");
  else if (atomics)
    notes.add(who + "global atomics: the profile's measured atomicAdd rates (gpu.atomics) for the type: L2 steps over the bytes updated at one time, and each word's updates one after another");
  if (scattered_writes)
    notes.add(who + "strided or random writes: partly written sectors read before they are written, scattered line requests "
                    "at an L2 cost fitted to the generalisation suite (the profile has no strided-write rate)");

  double extra_flops = 0, slots = 0;
  if (k.has("work")) read_work(k.get("work"), r, rates, p, extra_flops, slots, notes);
  // One issue slot per FP32 instruction (and its FP16/INT/MMA equivalent), three per global,
  // local or constant warp access (the access, address arithmetic, loop overhead), one per shared one.
  p.warp_instructions = k.has("warp_instructions") ? r.nonnegative(k.get("warp_instructions"))
                                                   : slots + 3 * memory_warp_accesses + shared_warp_accesses;
  if (k.has("chain")) {
    read_chain(k.get("chain"), r, p);
  } else if (per_thread_accesses > 0) {
    const double levels = in_flight_by_level.empty() ? 0.0 : static_cast<double>(in_flight_by_level.rbegin()->first);
    p.chain_l2_loads = std::max({1.0, levels, std::ceil(per_thread_accesses / p.loads_in_flight)});
  }
  if (k.has("copies")) read_copies(k.get("copies"), r, p.launches, f);
  f.workload.flops += p.launches * (p.flops_fp32 + p.flops_fp64 + extra_flops);
  f.workload.algorithmic_bytes += p.launches * p.dram_bytes;
  return p;
}

}  // namespace

GpuWorkloadFile parse_workload_format2(const yaml::Value& root, const std::string& file_name, const GpuCalibration& gpu,
                                       const WorkloadParams& set) {
  root.allow_only({"format", "name", "params", "timing", "kernels", "copies", "cpu"});
  const yaml::Value version = root.get("format");
  if (version.as_string() != "2")
    throw version.error("workload format " + version.as_string() + " is not supported (this perfmodel reads format 2, and perfmodel_workload: 1)");
  if (root.has("cpu"))
    throw root.get("cpu").error("not supported yet: the CPU side of a workload is reserved for the offload advisor and not read by this perfmodel");
  GpuWorkloadFile f;
  f.format = 2;
  f.name = root.has("name") ? root.get("name").as_string() : file_name;
  f.workload.kernel = f.name;
  Reader r;
  if (root.has("params")) {
    const yaml::Value params = root.get("params");
    params.expect_map();
    for (const auto& item : params.node()) {
      const std::string name = item.first.Scalar();
      const yaml::Value v = params.get(name);
      if (!valid_parameter_name(name))
        throw v.error("'" + name + "' is not a parameter name (a letter or _, then letters, digits, _; not a function name)");
      double x = r.value(v);  // checked even when --set replaces it
      const auto it = set.find(name);
      if (it != set.end()) x = it->second;
      r.names[name] = x;
      f.params.push_back({name, x});
    }
  }
  for (const auto& [name, value] : set)
    if (!r.names.count(name)) {
      std::string known;
      for (const auto& [k, v] : f.params) known += (known.empty() ? "" : ", ") + k;
      throw InputError("--set " + name + ": " + file_name + " has no parameter '" + name + "'" +
                       (known.empty() ? std::string(" (it has no params)") : " (its params: " + known + ")"));
    }
  if (root.has("timing")) {
    const yaml::Value t = root.get("timing");
    f.timing = t.as_string();
    if (f.timing != "single" && f.timing != "steady") throw t.error("must be single or steady");
  } else {
    f.timing = "single";
  }
  const WorkRates rates(gpu);
  const yaml::Value kernels = root.get("kernels");
  if (kernels.sequence_size() == 0) throw kernels.error("needs at least one kernel");
  for (std::size_t i = 0; i < kernels.sequence_size(); ++i) f.workload.phases.push_back(read_kernel(kernels.at(i), r, gpu, rates, f));
  if (root.has("copies")) read_copies(root.get("copies"), r, 1, f);
  return f;
}

}  // namespace perfmodel::detail
