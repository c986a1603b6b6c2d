// Workload format 2: the reader. It evaluates a file's expressions, checks every key (errors name
// file:line:key) and fills a KernelDescription per kernel; derive_gpu_phase (kernel_derivation.cpp,
// shared with the reference kernels' descriptors) turns each into the descriptor. The keys are
// documented in docs/workload-format.md; keep the two in step.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "gpu_workload_detail.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_description.hpp"
#include "perfmodel/model/workload_expression.hpp"

namespace perfmodel::detail {
namespace {

constexpr double kAbsurd = 4611686018427387904.0;  // 2^62: nothing a kernel counts comes near it

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

using Space = AccessSpace;
using Kind = AccessKind;
using Pattern = AccessPattern;

// One access as read: its description and the node it came from (for errors that name it).
struct Access {
  explicit Access(yaml::Value v) : node(std::move(v)) {}
  yaml::Value node;
  AccessDescription d;
  bool reads() const { return d.kind == Kind::read || d.kind == Kind::read_modify_write; }
  bool memory_path() const { return d.space == Space::global || d.space == Space::local; }
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
                "sectors_per_warp", "independent", "after", "index", "l1_hit", "conflict_degree", "addresses_per_warp", "window", "atomic_type", "warp_aggregated",
                "l2_resident", "sweep", "contiguous_lanes", "offset"});
  Access x(a);
  x.d.name = a.has("name") ? a.get("name").as_string() : "access" + std::to_string(index);
  x.d.array = a.has("array") ? a.get("array").as_string() : x.d.name;
  if (a.has("space"))
    x.d.space = one_of<Space>(a.get("space"), {{"global", Space::global}, {"shared", Space::shared}, {"constant", Space::constant}, {"local", Space::local}});
  if (a.has("kind"))
    x.d.kind = one_of<Kind>(a.get("kind"), {{"read", Kind::read}, {"write", Kind::write}, {"read-modify-write", Kind::read_modify_write}, {"atomic", Kind::atomic}});
  x.d.pattern_given = a.has("pattern");
  if (a.has("pattern"))
    x.d.pattern = one_of<Pattern>(a.get("pattern"), {{"coalesced", Pattern::coalesced}, {"strided", Pattern::strided}, {"random", Pattern::random},
                                                   {"broadcast", Pattern::broadcast}, {"gather", Pattern::gather}});
  if (a.has("element_bytes")) {
    x.d.element_bytes = r.value(a.get("element_bytes"));
    if (x.d.element_bytes != 1 && x.d.element_bytes != 2 && x.d.element_bytes != 4 && x.d.element_bytes != 8 && x.d.element_bytes != 16) throw a.get("element_bytes").error("must be 1, 2, 4, 8 or 16");
  }
  x.d.count = r.nonnegative(a.get("count"));
  if (a.has("active_lanes")) x.d.active_lanes = r.whole(a.get("active_lanes"), 1, 32);
  auto only_if = [&](const char* key, bool allowed, const std::string& why) {
    if (a.has(key) && !allowed) throw a.get(key).error(why);
  };
  only_if("stride", x.d.pattern == Pattern::strided, "only meaningful with pattern: strided");
  if (x.d.pattern == Pattern::strided) x.d.stride = r.in_range(a.get("stride"), 1, kAbsurd);
  only_if("sectors_per_warp", x.d.pattern == Pattern::random || x.d.pattern == Pattern::gather, "only meaningful with pattern: random or gather");
  if (a.has("sectors_per_warp")) x.d.sectors_per_warp = r.in_range(a.get("sectors_per_warp"), 1, 32);
  only_if("window", x.d.pattern == Pattern::random || x.d.pattern == Pattern::gather || x.d.kind == Kind::atomic,
          "only meaningful with pattern: random or gather, or for kind: atomic");
  if (a.has("window")) x.d.window = r.positive(a.get("window"));
  only_if("index", x.d.pattern == Pattern::gather, "only meaningful with pattern: gather");
  if (x.d.pattern == Pattern::gather) x.d.after = a.get("index").as_string();
  if (a.has("after")) {
    if (a.has("index")) throw a.get("after").error("a gather's index already says what it waits for: give index or after, not both");
    x.d.after = a.get("after").as_string();
  }
  only_if("independent", x.reads(), "only meaningful for reads (kind: read or read-modify-write)");
  if (a.has("independent")) x.d.independent = r.in_range(a.get("independent"), 1, 1e6);
  only_if("l1_hit", x.reads() && x.memory_path(), "only meaningful for global or local reads");
  if (a.has("l1_hit")) x.d.l1_hit = r.in_range(a.get("l1_hit"), 0, 1);
  only_if("conflict_degree", x.d.space == Space::shared, "only meaningful for space: shared");
  if (a.has("conflict_degree")) x.d.conflict_degree = r.in_range(a.get("conflict_degree"), 1, 32);
  only_if("addresses_per_warp", x.d.kind == Kind::atomic || (x.d.space == Space::constant && x.d.pattern != Pattern::broadcast),
          "only meaningful for atomics and non-broadcast constant reads");
  if (a.has("addresses_per_warp")) x.d.addresses_per_warp = r.in_range(a.get("addresses_per_warp"), 1, 32);
  if (x.d.space == Space::shared && x.d.pattern != Pattern::coalesced && x.d.pattern != Pattern::broadcast)
    throw a.get("pattern").error("shared-memory accesses state their bank conflicts with conflict_degree, not a pattern");
  if (x.d.space == Space::constant && x.d.kind != Kind::read) throw a.get("kind").error("constant memory is read-only");
  if (x.d.kind == Kind::atomic && x.d.space != Space::global && x.d.space != Space::shared)
    throw a.get("kind").error("atomics are global or shared");
  only_if("atomic_type", x.d.kind == Kind::atomic, "only meaningful for kind: atomic");
  if (x.d.kind == Kind::atomic) {
    if (a.has("atomic_type")) {
      x.d.atomic_type = one_of<std::string>(a.get("atomic_type"), {{"int32", "int32"}, {"fp32", "fp32"}, {"fp64", "fp64"}});
      if ((x.d.atomic_type == "fp64") != (x.d.element_bytes == 8))
        throw a.get("atomic_type").error("atomic_type " + x.d.atomic_type + " needs element_bytes: " + (x.d.atomic_type == "fp64" ? "8" : "4"));
    } else {
      x.d.atomic_type = x.d.element_bytes == 8 ? "fp64" : "int32";
    }
  }
  only_if("warp_aggregated", x.d.kind == Kind::atomic && x.d.space == Space::global, "only meaningful for global atomics");
  if (a.has("warp_aggregated")) {
    if (boolean(a.get("warp_aggregated")) && std::min(x.d.active_lanes, x.d.addresses_per_warp) > 1)
      throw a.get("warp_aggregated").error("a warp-aggregated atomic updates one address per warp access: give addresses_per_warp: 1");
    x.d.warp_aggregated = boolean(a.get("warp_aggregated")) ? 1 : 0;
  }
  if (a.has("footprint")) x.d.footprint = r.positive(a.get("footprint"));
  only_if("l2_resident", x.memory_path() && x.d.kind != Kind::atomic, "only meaningful for global or local reads and writes");
  if (a.has("l2_resident")) x.d.l2_resident = boolean(a.get("l2_resident"));
  only_if("sweep", x.reads() && x.memory_path() && (x.d.pattern == Pattern::coalesced || x.d.pattern == Pattern::strided),
          "only meaningful for coalesced or strided global or local reads (random ones give window)");
  if (a.has("sweep")) x.d.sweep = r.positive(a.get("sweep"));
  only_if("contiguous_lanes", x.memory_path() && (x.d.pattern == Pattern::coalesced || x.d.pattern == Pattern::broadcast) && x.d.kind != Kind::atomic,
          "only meaningful for coalesced or broadcast global or local accesses");
  if (a.has("contiguous_lanes")) x.d.contiguous_lanes = r.whole(a.get("contiguous_lanes"), 1, 32);
  only_if("offset", x.memory_path() && (x.d.pattern == Pattern::coalesced || x.d.pattern == Pattern::strided) && x.d.kind != Kind::atomic,
          "only meaningful for coalesced or strided global or local accesses");
  if (a.has("offset")) x.d.offset = r.in_range(a.get("offset"), -kAbsurd, kAbsurd);
  return x;
}

WorkDescription read_work(const yaml::Value& work, const Reader& r) {
  work.expect_map();
  work.allow_only({"fp32", "fp64", "fp16", "bf16", "fp16x2", "bf16x2", "int", "special", "special_fast", "shuffles", "mma"});
  auto amount = [&](const char* key) { return work.has(key) ? r.nonnegative(work.get(key)) : 0.0; };
  WorkDescription w;
  w.fp32 = amount("fp32");
  w.fp64 = amount("fp64");
  w.fp16 = amount("fp16"), w.bf16 = amount("bf16"), w.fp16x2 = amount("fp16x2"), w.bf16x2 = amount("bf16x2");
  w.integer = amount("int"), w.shuffles = amount("shuffles");
  w.special = amount("special");
  w.special_fast = amount("special_fast");
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
      MmaWork x;
      x.m = std::stod(sm[1]), x.n = std::stod(sm[2]), x.k = std::stod(sm[3]);
      if (!(x.m * x.n * x.k > 0)) throw m.get("shape").error("dimensions must be > 0");
      one_of<int>(m.get("precision"), {{"fp16", 0}, {"bf16", 0}, {"tf32", 0}, {"fp8", 0}, {"int8", 0}, {"fp64", 0}});
      x.flops = r.nonnegative(m.get("flops"));
      w.mma.push_back(x);
    }
  }
  return w;
}

ChainDescription read_chain(const yaml::Value& c, const Reader& r) {
  c.expect_map();
  c.allow_only({"fp32", "fp64", "fp16", "int", "special", "shared_loads", "l1_loads", "l2_loads", "dram_loads"});
  auto steps = [&](const char* key) { return c.has(key) ? r.nonnegative(c.get(key)) : 0.0; };
  ChainDescription x;
  x.fp32 = steps("fp32"), x.fp64 = steps("fp64"), x.fp16 = steps("fp16"), x.integer = steps("int");
  x.special = steps("special");
  x.shared_loads = steps("shared_loads"), x.l1_loads = steps("l1_loads");
  x.l2_loads = steps("l2_loads"), x.dram_loads = steps("dram_loads");
  return x;
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

GpuPhase read_kernel(const yaml::Value& k, const Reader& r, const GpuCalibration& gpu, GpuWorkloadFile& f) {
  k.expect_map();
  k.allow_only({"name", "launches", "grid", "block", "registers", "shared_bytes", "accesses", "work", "chain", "warp_instructions",
                "integer_share", "request_bytes", "loads_issued_together", "staged_tiles", "fetch_rounds_in_chain", "barriers", "copies"});
  KernelDescription d;
  d.name = k.has("name") ? k.get("name").as_string() : "kernel";
  d.launches = k.has("launches") ? r.whole(k.get("launches"), 1) : 1;
  auto dims = [&](const char* key, const std::vector<double>& limits, double (&out)[3]) {
    const yaml::Value v = k.get(key);
    if (v.sequence_size() < 1 || v.sequence_size() > 3) throw v.error("expected [x], [x, y] or [x, y, z]");
    for (std::size_t i = 0; i < v.sequence_size(); ++i) out[i] = r.whole(v.at(i), 1, limits[i]);
  };
  dims("grid", {2147483647.0, 65535, 65535}, d.grid);
  dims("block", {1024, 1024, 64}, d.block);
  if (d.block[0] * d.block[1] * d.block[2] > 1024) throw k.get("block").error("more than 1024 threads per block");
  d.registers = k.has("registers") ? r.whole(k.get("registers"), 1, 255) : 32;
  d.shared_bytes = k.has("shared_bytes") ? r.whole(k.get("shared_bytes"), 0) : 0;
  if (k.has("loads_issued_together")) d.loads_issued_together = boolean(k.get("loads_issued_together"));
  // The staged-tile and serial-tile forms (predictors/gpu_compute.hpp), for a kernel that has them.
  if (k.has("staged_tiles")) d.staged_tiles = boolean(k.get("staged_tiles"));
  if (k.has("fetch_rounds_in_chain")) {
    d.fetch_rounds_in_chain = boolean(k.get("fetch_rounds_in_chain"));
    if (d.fetch_rounds_in_chain && !d.staged_tiles)
      throw k.get("fetch_rounds_in_chain").error("only meaningful with staged_tiles: true (the serial tile form)");
  }

  std::vector<Access> accesses;
  if (k.has("accesses")) {
    const yaml::Value list = k.get("accesses");
    for (std::size_t i = 0; i < list.sequence_size(); ++i) {
      accesses.push_back(read_access(list.at(i), i, r));
      for (std::size_t j = 0; j + 1 < accesses.size(); ++j)
        if (accesses[j].d.name == accesses.back().d.name) throw list.at(i).error("a second access named '" + accesses.back().d.name + "'");
    }
  }
  // What the derivation would reject, named by the file's line: an `after` that names no read, a cycle.
  std::map<std::string, const Access*> by_name;
  for (const Access& a : accesses) by_name[a.d.name] = &a;
  for (const Access& a : accesses) {
    if (a.d.after.empty()) continue;
    const yaml::Value at = a.node.get(a.node.has("index") ? "index" : "after");
    const auto it = by_name.find(a.d.after);
    if (it == by_name.end()) throw at.error("no access named '" + a.d.after + "' in this kernel");
    if (it->second == &a) throw at.error("an access cannot wait for itself");
    if (!it->second->reads() || !it->second->memory_path()) throw at.error("'" + a.d.after + "' is not a global or local read");
  }
  for (const Access& a : accesses) {  // a chain of `after` longer than the list is a cycle
    const Access* x = &a;
    for (std::size_t steps = 0; x && !x->d.after.empty(); ++steps) {
      if (steps > accesses.size()) throw a.node.error("its after/index references form a cycle");
      x = by_name.at(x->d.after);
    }
  }
  for (const Access& a : accesses) d.accesses.push_back(a.d);
  if (k.has("work")) d.work = read_work(k.get("work"), r);
  if (k.has("warp_instructions")) d.warp_instructions = r.nonnegative(k.get("warp_instructions"));
  if (k.has("integer_share")) {
    if (!d.warp_instructions) throw k.get("integer_share").error("is the integer share of a given warp_instructions: give warp_instructions too");
    d.integer_share = r.in_range(k.get("integer_share"), 0, 1);
  }
  if (k.has("barriers")) d.barriers = r.nonnegative(k.get("barriers"));
  if (k.has("request_bytes")) d.request_bytes = r.in_range(k.get("request_bytes"), 1, 4096);
  if (k.has("chain")) d.chain = read_chain(k.get("chain"), r);

  const GpuPhase p = derive_gpu_phase(d, DerivationContext{gpu.device.l2_cache_bytes, &gpu}, &f.notes);
  if (k.has("copies")) read_copies(k.get("copies"), r, p.launches, f);
  f.workload.flops += p.launches * description_flops(d);
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
  const yaml::Value kernels = root.get("kernels");
  if (kernels.sequence_size() == 0) throw kernels.error("needs at least one kernel");
  for (std::size_t i = 0; i < kernels.sequence_size(); ++i) f.workload.phases.push_back(read_kernel(kernels.at(i), r, gpu, f));
  if (root.has("copies")) read_copies(root.get("copies"), r, 1, f);
  return f;
}

}  // namespace perfmodel::detail
