// The profile's `gpu` section: writing, and reading with validation.
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "profile_io_streams.hpp"
#include "profile_sections.hpp"

namespace perfmodel::sections {
namespace {

// Named numeric members of the section's plain structs: one list for the writer and the reader.
template <class T, class D = std::conditional_t<std::is_const_v<T>, const double, double>>
std::vector<std::pair<const char*, D*>> number_fields(T& l) {
  if constexpr (std::is_same_v<std::remove_const_t<T>, LaunchCalibration>)
    return {{"empty_kernel_s", &l.empty_kernel_s}, {"launch_sync_s", &l.launch_sync_s},
            {"graph_kernel_s", &l.graph_kernel_s}, {"wave_base_s", &l.wave_base_s},
            {"per_wave_s", &l.per_wave_s},         {"blocks_per_wave", &l.blocks_per_wave}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, QueuedLaunch>)
    return {{"base_s", &l.base_s}, {"kernel_s", &l.kernel_s}, {"memset_s", &l.memset_s}, {"host_memset_s", &l.host_memset_s}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, OverlapCalibration>)
    return {{"copy_engines", &l.copy_engines}, {"copy_bytes", &l.copy_bytes},     {"h2d_s", &l.h2d_s},
            {"d2h_s", &l.d2h_s},               {"kernel_s", &l.kernel_s},         {"h2d_d2h_s", &l.h2d_d2h_s},
            {"h2d_kernel_s", &l.h2d_kernel_s}, {"d2h_kernel_s", &l.d2h_kernel_s}, {"all_s", &l.all_s},
            {"max_concurrent_kernels", &l.max_concurrent_kernels}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, LatencyLevels>)
    return {{"l1_s", &l.l1_s},
            {"l2_s", &l.l2_s},
            {"dram_s", &l.dram_s},
            {"l1_footprint_bytes", &l.l1_footprint_bytes},
            {"l2_footprint_bytes", &l.l2_footprint_bytes},
            {"dram_footprint_bytes", &l.dram_footprint_bytes}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, OperationLatency>)
    return {{"fp32_fma_s", &l.fp32_fma_s}, {"cosf_s", &l.cosf_s}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, PartitionCalibration>)
    return {{"penalty", &l.penalty}, {"worst_granule_bytes", &l.worst_granule_bytes}, {"worst_stride_bytes", &l.worst_stride_bytes}};
  else if constexpr (std::is_same_v<std::remove_const_t<T>, SaturationCurve>)
    return {{"peak_Bps", &l.peak_Bps},
            {"latency_s", &l.latency_s},
            {"sharpness", &l.sharpness},
            {"max_requests_per_warp", &l.max_requests_per_warp}};
  else
    static_assert(sizeof(T) == 0, "no field list for this type");
}

template <class T>
void emit_numbers(YAML::Emitter& out, const T& object) {
  for (const auto& [name, value] : number_fields(object)) out << YAML::Key << name << YAML::Value << *value;
}

template <class T>
std::vector<std::string> names_of(T& object, std::vector<std::string> extra = {}) {
  for (const auto& field : number_fields(object)) extra.emplace_back(field.first);
  return extra;
}

// What a named number of the gpu section may hold (limits.hpp): times of one step are constants,
// sizes are bytes, rates are rates; whatever else is a count or a ratio below kMaxProfileNumber.
struct Range {
  double low, high;
  bool whole;
};

bool ends_with(const std::string& s, const char* suffix) {
  const std::string t(suffix);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

Range range_of(const std::string& name) {
  using namespace limits;
  if (name == "copy_engines" || name == "max_concurrent_kernels" || name == "blocks_per_wave") return {0, kMaxLanes * kMaxMultiprocessors, false};
  if (name == "all_s" || name == "h2d_s" || name == "d2h_s" || name == "kernel_s" || ends_with(name, "_kernel_s") ||
      name == "h2d_d2h_s")
    return {0, kMaxSampleSeconds, false};  // overlap runs: measured times of whole copies and kernels
  if (ends_with(name, "_s")) return {0, kMaxConstantSeconds, false};
  if (name == "sharpness") return {0, 1000, false};  // an exponent: beyond this the curve is a corner
  if (ends_with(name, "_bytes")) return {0, kMaxBytes, false};
  if (ends_with(name, "_Bps")) return {0, kMaxRate, false};
  return {0, kMaxProfileNumber, false};
}

template <class T>
void read_numbers(const yaml::Value& v, T& object) {
  for (auto& [name, value] : number_fields(object)) {
    const Range r = range_of(name);
    *value = v.get(name).as_number_in(r.low, r.high);
  }
}

// The device as the CUDA runtime reports it: whole numbers, within what any GPU could have.
Range device_range(const std::string& name) {
  using namespace limits;
  if (name == "multiprocessors") return {1, kMaxMultiprocessors, true};
  if (name == "warp_size") return {1, kMaxWarpSize, true};
  if (name == "max_threads_per_block") return {1, kMaxThreadsPerBlock, true};
  if (name == "max_threads_per_multiprocessor" || name == "max_blocks_per_multiprocessor" || name == "shared_memory_banks")
    return {1, kMaxLanes, true};
  if (name == "registers_per_multiprocessor") return {1, kMaxRegisters, true};
  if (name == "registers_per_block" || name == "max_registers_per_thread" || name == "register_allocation_unit")
    return {0, kMaxRegisters, true};
  if (name == "shared_memory_bank_bytes" || name == "sector_bytes") return {1, 65536, true};
  if (name == "cache_line_bytes") return {0, 65536, true};
  if (ends_with(name, "_hz")) return {0, kMaxClockHz, false};
  if (name == "memory_bus_width_bits") return {0, kMaxBusWidthBits, true};
  if (name == "max_grid_x") return {0, 4294967296.0, true};
  if (name.rfind("compute_capability", 0) == 0) return {0, 1000, true};
  if (ends_with(name, "_bytes") || name.rfind("shared_memory", 0) == 0) return {0, kMaxBytes, true};
  return {0, kMaxLanes, true};  // lanes per SM, copy engines, concurrent kernels
}

double read_positive(const yaml::Value& v) {
  const double x = v.as_nonnegative();
  if (!(x > 0)) throw v.error("must be > 0");
  return x;
}

// gpu.dram_random, gpu.dram_random_rmw and gpu.dram_random_write (gpu_calibration.hpp, RandomReadCalibration).
void emit_random(YAML::Emitter& out, const char* key, const std::string& what, const RandomReadCalibration& r) {
  out << YAML::Key << key << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value
      << what + " over footprint_bytes: sectors = (D + (T - D) * max(0, 1 - L2/D)) / 32, T = reads * 32, D = F * (1 - exp(-T/F)); " +
             (r.fixed_s.empty() ? std::string("sectors_per_s = sectors / seconds")
                                : std::string("seconds = fixed_s + sectors / sectors_per_s, fitted over two or more read counts (reads, seconds: the largest)"));
  out << YAML::Key << "element_bytes" << YAML::Value << r.element_bytes;
  out << YAML::Key << "footprint_bytes" << YAML::Value << YAML::Flow << r.footprint_bytes;
  out << YAML::Key << "reads" << YAML::Value << YAML::Flow << r.reads;
  out << YAML::Key << "seconds" << YAML::Value << YAML::Flow << r.seconds;
  if (!r.fixed_s.empty()) out << YAML::Key << "fixed_s" << YAML::Value << YAML::Flow << r.fixed_s;
  out << YAML::Key << "sectors_per_s" << YAML::Value << YAML::Flow << r.sectors_per_s;
  out << YAML::EndMap;
}

RandomReadCalibration read_random(const yaml::Value& d) {
  d.allow_only({"model", "element_bytes", "footprint_bytes", "reads", "seconds", "fixed_s", "sectors_per_s"});
  RandomReadCalibration r;
  r.element_bytes = d.get("element_bytes").as_number_in(1, 32);
  const yaml::Value f = d.get("footprint_bytes"), n = d.get("reads"), t = d.get("seconds"), rate = d.get("sectors_per_s");
  if (f.sequence_size() == 0) throw f.error("needs at least one table size");
  for (const yaml::Value& list : {n, t, rate})
    if (list.sequence_size() != f.sequence_size()) throw list.error("needs one value per entry of footprint_bytes");
  if (d.has("fixed_s") && d.get("fixed_s").sequence_size() != f.sequence_size())
    throw d.get("fixed_s").error("needs one value per entry of footprint_bytes");
  for (std::size_t i = 0; i < f.sequence_size(); ++i) {
    const double fi = f.at(i).as_number_in(1, limits::kMaxBytes);
    if (i > 0 && !(fi > r.footprint_bytes.back())) throw f.at(i).error("must be larger than the entry before it");
    r.footprint_bytes.push_back(fi);
    r.reads.push_back(n.at(i).as_number_in(1, limits::kMaxBytes));
    r.seconds.push_back(read_positive(t.at(i)));
    if (r.seconds.back() > limits::kMaxConstantSeconds) throw t.at(i).error("must be at most 10 s (limits.hpp)");
    // The intercept of a line through medians: a small negative value is a fit, not an error.
    if (d.has("fixed_s")) r.fixed_s.push_back(d.get("fixed_s").at(i).as_number_in(-r.seconds.back(), r.seconds.back()));
    r.sectors_per_s.push_back(rate.at(i).as_number_in(limits::kMinRate, limits::kMaxRate));
  }
  return r;
}

}  // namespace

void emit_table(YAML::Emitter& out, const char* name, const NumericTable& t) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "columns" << YAML::Value << YAML::Flow << t.columns;
  out << YAML::Key << "rows" << YAML::Value << YAML::BeginSeq;
  for (const auto& row : t.rows) out << YAML::Flow << row;
  out << YAML::EndSeq << YAML::EndMap;
}

NumericTable read_table(const yaml::Value& v, const std::vector<std::string>& expected_columns) {
  v.allow_only({"columns", "rows"});
  NumericTable t;
  const yaml::Value columns = v.get("columns");
  for (std::size_t i = 0; i < columns.sequence_size(); ++i) t.columns.push_back(columns.at(i).as_string());
  if (t.columns != expected_columns) {
    std::string list;
    for (const std::string& c : expected_columns) list += (list.empty() ? "" : ", ") + c;
    throw columns.error("must be [" + list + "]");
  }
  const yaml::Value rows = v.get("rows");
  for (std::size_t i = 0; i < rows.sequence_size(); ++i) {
    const yaml::Value row = rows.at(i);
    if (row.sequence_size() != t.columns.size())
      throw row.error("has " + std::to_string(row.sequence_size()) + " values for " + std::to_string(t.columns.size()) +
                      " columns");
    std::vector<double> values;
    for (std::size_t j = 0; j < t.columns.size(); ++j) values.push_back(row.at(j).as_nonnegative());
    t.rows.push_back(std::move(values));
  }
  return t;
}

void emit_quality(YAML::Emitter& out, const char* name, const FitQuality& q) {
  out << YAML::Key << name << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "sizes" << YAML::Value << q.sizes;
  out << YAML::Key << "mean_rel_error" << YAML::Value << q.mean_rel_error;
  out << YAML::Key << "max_rel_error" << YAML::Value << q.max_rel_error;
  if (q.noise) {
    out << YAML::Key << "median_rel_se" << YAML::Value << q.noise->median_rel_se;
    out << YAML::Key << "max_rel_se" << YAML::Value << q.noise->max_rel_se;
    out << YAML::Key << "sizes_beyond_3se" << YAML::Value << q.noise->sizes_beyond_3se;
  }
  out << YAML::EndMap;
}

FitQuality read_quality(const yaml::Value& v) {
  v.allow_only({"sizes", "mean_rel_error", "max_rel_error", "median_rel_se", "max_rel_se", "sizes_beyond_3se"});
  FitQuality q;
  q.sizes = v.get("sizes").as_count();
  q.mean_rel_error = v.get("mean_rel_error").as_nonnegative();
  q.max_rel_error = v.get("max_rel_error").as_nonnegative();
  if (q.max_rel_error < q.mean_rel_error) throw v.error("max_rel_error is smaller than mean_rel_error");
  // The measurement noise (FitQuality::Noise) comes as its three keys together or not at all.
  const bool a = v.has("median_rel_se"), b = v.has("max_rel_se"), c = v.has("sizes_beyond_3se");
  if (a || b || c) {
    if (!(a && b && c)) throw v.error("median_rel_se, max_rel_se and sizes_beyond_3se come together");
    FitQuality::Noise n;
    n.median_rel_se = v.get("median_rel_se").as_nonnegative();
    n.max_rel_se = v.get("max_rel_se").as_nonnegative();
    n.sizes_beyond_3se = v.get("sizes_beyond_3se").as_count();
    if (n.max_rel_se < n.median_rel_se) throw v.error("max_rel_se is smaller than median_rel_se");
    if (n.sizes_beyond_3se > q.sizes) throw v.error("sizes_beyond_3se exceeds sizes");
    q.noise = n;
  }
  return q;
}

void emit_gpu(YAML::Emitter& out, const GpuCalibration& gpu) {
  out << YAML::BeginMap;
  out << YAML::Key << "samples_file" << YAML::Value << gpu.samples_file;
  out << YAML::Key << "calibration_wall_s" << YAML::Value << gpu.calibration_wall_s;
  out << YAML::Key << "device" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, value] : gpu.device.fields()) out << YAML::Key << name << YAML::Value << *value;
  out << YAML::EndMap;
  if (!gpu.ceilings.empty()) {
    out << YAML::Key << "ceilings" << YAML::Value << YAML::BeginMap;
    for (const CeilingKind& kind : ceiling_kinds()) {
      const auto it = gpu.ceilings.find(kind.name);
      if (it == gpu.ceilings.end()) continue;
      const MeasuredRate& r = it->second;
      out << YAML::Key << kind.name << YAML::Value << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "median" << YAML::Value << r.median << YAML::Key << "unit" << YAML::Value << kind.unit;
      out << YAML::Key << "p10" << YAML::Value << r.p10 << YAML::Key << "p90" << YAML::Value << r.p90;
      out << YAML::Key << "samples" << YAML::Value << r.samples << YAML::Key << "config" << YAML::Value << r.config;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  const auto emit_curve = [&](const char* key, const SaturationCurve& c) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "model" << YAML::Value
        << "peak * x / (1 + x^sharpness)^(1/sharpness), x = q / (peak * latency), "
           "q = SMs * warps/SM * min(loads/thread, max_requests_per_warp) * bytes/request";
    emit_numbers(out, c);
    out << YAML::Key << "points" << YAML::Value << c.points;
    emit_quality(out, "fit", c.fit);
    if (c.holdout) emit_quality(out, "holdout", *c.holdout);
    out << YAML::EndMap;
  };
  if (gpu.dram_concurrency) emit_curve("dram_concurrency", *gpu.dram_concurrency);
  if (gpu.dram_concurrency_rows) emit_curve("dram_concurrency_rows", *gpu.dram_concurrency_rows);
  if (gpu.operation_latency) {
    out << YAML::Key << "operation_latency" << YAML::Value << YAML::BeginMap;
    emit_numbers(out, *gpu.operation_latency);
    out << YAML::EndMap;
  }
  if (gpu.latency) {
    out << YAML::Key << "latency" << YAML::Value << YAML::BeginMap;
    emit_numbers(out, *gpu.latency);
    out << YAML::EndMap;
  }
  if (!gpu.bank_conflicts.empty()) {
    out << YAML::Key << "bank_conflicts" << YAML::Value << YAML::BeginMap;
    for (const auto& [word, curve] : gpu.bank_conflicts) {
      out << YAML::Key << "word_" + std::to_string(word) + "B" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "intercept_s" << YAML::Value << curve.intercept_s;
      out << YAML::Key << "slope_s" << YAML::Value << curve.slope_s;
      emit_quality(out, "fit", curve.fit);
      out << YAML::Key << "seconds_per_access" << YAML::Value << YAML::Flow << curve.seconds_per_access;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (gpu.partition) {
    out << YAML::Key << "partition" << YAML::Value << YAML::BeginMap;
    emit_numbers(out, *gpu.partition);
    emit_table(out, "sweep", gpu.partition->sweep);
    emit_table(out, "strided", gpu.partition->strided);
    out << YAML::EndMap;
  }
  if (gpu.l2_write_back) {
    const L2WriteBack& w = *gpu.l2_write_back;
    out << YAML::Key << "l2_write_back" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "model" << YAML::Value
        << "after a dirty L2, reading N bytes at BW adds seconds_per_byte * min(N, bytes) * BW / BW_peak";
    out << YAML::Key << "bytes" << YAML::Value << w.bytes;
    out << YAML::Key << "seconds_per_byte" << YAML::Value << w.seconds_per_byte;
    out << YAML::Key << "points" << YAML::Value << w.points;
    emit_quality(out, "fit", w.fit);
    if (w.holdout) emit_quality(out, "holdout", *w.holdout);
    emit_table(out, "runs", w.runs);
    out << YAML::EndMap;
  }
  if (gpu.launch) {
    out << YAML::Key << "launch" << YAML::Value << YAML::BeginMap;
    emit_numbers(out, *gpu.launch);
    emit_quality(out, "wave_fit", gpu.launch->wave_fit);
    if (const auto& q = gpu.launch->queued) {
      out << YAML::Key << "queued" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "model" << YAML::Value
          << "behind busy GPU work: t(k kernels) = base + kernel * k; a memset adds memset on the GPU, host_memset on the host";
      emit_numbers(out, *q);
      emit_quality(out, "fit", q->fit);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (gpu.overlap) {
    out << YAML::Key << "overlap" << YAML::Value << YAML::BeginMap;
    emit_numbers(out, *gpu.overlap);
    emit_table(out, "kernel_concurrency", gpu.overlap->kernel_concurrency);
    out << YAML::EndMap;
  }
  if (gpu.streams) emit_streams(out, *gpu.streams);
  if (!gpu.atomics.empty()) {
    out << YAML::Key << "atomics" << YAML::Value << YAML::BeginMap;
    for (const auto& [type, curve] : gpu.atomics) {
      out << YAML::Key << type << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "sector_update_s" << YAML::Value << curve.sector_update_s();
      if (curve.one_lane_update_s > 0) out << YAML::Key << "one_lane_update_s" << YAML::Value << curve.one_lane_update_s;
      out << YAML::Key << "threads" << YAML::Value << curve.threads;
      out << YAML::Key << "addresses" << YAML::Value << YAML::Flow << curve.addresses;
      out << YAML::Key << "seconds_per_update" << YAML::Value << YAML::Flow << curve.seconds_per_update;
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (gpu.dram_random) emit_random(out, "dram_random", "random element_bytes reads", *gpu.dram_random);
  if (gpu.dram_random_rmw)
    emit_random(out, "dram_random_rmw", "random element_bytes read-modify-writes (each sector read, then written back whole)", *gpu.dram_random_rmw);
  if (gpu.dram_random_write)
    emit_random(out, "dram_random_write", "random element_bytes writes (no read first: each sector written back partly written)", *gpu.dram_random_write);
  out << YAML::EndMap;
}

GpuCalibration read_gpu(const yaml::Value& v) {
  v.allow_only({"samples_file", "calibration_wall_s", "device", "ceilings", "dram_concurrency", "dram_concurrency_rows", "latency", "operation_latency", "bank_conflicts",
                "partition", "l2_write_back", "launch", "overlap", "streams", "atomics", "dram_random", "dram_random_rmw",
                "dram_random_write"});
  GpuCalibration gpu;
  gpu.samples_file = v.get("samples_file").as_file_name();
  gpu.calibration_wall_s = v.get("calibration_wall_s").as_nonnegative();

  const yaml::Value device = v.get("device");
  std::vector<std::string> device_names;
  for (const auto& field : gpu.device.fields()) device_names.push_back(field.first);
  device.allow_only(device_names);
  for (auto& [name, value] : gpu.device.fields()) {
    const Range r = device_range(name);
    *value = r.whole ? device.get(name).as_whole_in(r.low, r.high) : device.get(name).as_number_in(r.low, r.high);
  }

  if (v.has("ceilings")) {
    const yaml::Value ceilings = v.get("ceilings");
    std::vector<std::string> names;
    for (const CeilingKind& k : ceiling_kinds()) names.emplace_back(k.name);
    ceilings.allow_only(names);
    for (const CeilingKind& k : ceiling_kinds()) {
      if (!ceilings.has(k.name)) continue;
      const yaml::Value c = ceilings.get(k.name);
      c.allow_only({"median", "unit", "p10", "p90", "samples", "config"});
      MeasuredRate r;
      r.median = c.get("median").as_number_in(limits::kMinRate, limits::kMaxRate);
      if (c.get("unit").as_string() != k.unit)
        throw c.get("unit").error(std::string("must be ") + k.unit + " for " + k.name);
      r.p10 = c.get("p10").as_nonnegative();
      r.p90 = c.get("p90").as_nonnegative();
      if (!(r.p10 <= r.median && r.median <= r.p90)) throw c.error("needs p10 <= median <= p90");
      r.samples = c.get("samples").as_count();
      r.config = c.get("config").as_string();
      gpu.ceilings[k.name] = r;
    }
  }
  // Every GPU kernel prediction reads the measured ceilings: a section without them holds no model,
  // unless it holds the stream calibration alone (`calibrate --only gpu.streams`, which
  // `fit --streams-samples` merges into a full profile) or the random-read rate alone
  // (`calibrate --only gpu.dram.random`: its record, shown by `profile show`).
  if (gpu.ceilings.empty() && !v.has("streams") && !v.has("dram_random") && !v.has("dram_random_rmw") &&
      !v.has("dram_random_write"))
    throw v.error("the gpu section has no measured ceilings: no model to predict with");
  const auto read_curve = [&](const char* key) {
    const yaml::Value d = v.get(key);
    SaturationCurve c;
    d.allow_only(names_of(c, {"model", "points", "fit", "holdout"}));
    read_numbers(d, c);
    for (const char* positive : {"peak_Bps", "latency_s", "sharpness"}) read_positive(d.get(positive));
    if (c.peak_Bps < limits::kMinRate) throw d.get("peak_Bps").error("must be at least 1e3 B/s (limits.hpp)");
    c.points = d.get("points").as_count();
    c.fit = read_quality(d.get("fit"));
    if (d.has("holdout")) c.holdout = read_quality(d.get("holdout"));
    return c;
  };
  if (v.has("dram_concurrency")) gpu.dram_concurrency = read_curve("dram_concurrency");
  if (v.has("dram_concurrency_rows")) gpu.dram_concurrency_rows = read_curve("dram_concurrency_rows");
  if (v.has("latency")) {
    const yaml::Value l = v.get("latency");
    LatencyLevels levels;
    l.allow_only(names_of(levels));
    read_numbers(l, levels);
    gpu.latency = levels;
  }
  if (v.has("operation_latency")) {
    const yaml::Value l = v.get("operation_latency");
    OperationLatency op;
    l.allow_only(names_of(op));
    read_numbers(l, op);
    for (const char* positive : {"fp32_fma_s", "cosf_s"}) read_positive(l.get(positive));
    gpu.operation_latency = op;
  }
  if (v.has("bank_conflicts")) {
    const yaml::Value b = v.get("bank_conflicts");
    b.allow_only({"word_4B", "word_8B", "word_16B"});
    for (int word : {4, 8, 16}) {
      const std::string key = "word_" + std::to_string(word) + "B";
      if (!b.has(key)) continue;
      const yaml::Value c = b.get(key);
      c.allow_only({"intercept_s", "slope_s", "fit", "seconds_per_access"});
      ConflictCurve curve;
      curve.intercept_s = c.get("intercept_s").as_double();
      curve.slope_s = c.get("slope_s").as_double();
      curve.fit = read_quality(c.get("fit"));
      const yaml::Value t = c.get("seconds_per_access");
      if (t.sequence_size() == 0) throw t.error("needs the time of at least conflict degree 1");
      for (std::size_t i = 0; i < t.sequence_size(); ++i) {
        curve.seconds_per_access.push_back(read_positive(t.at(i)));
        if (curve.seconds_per_access.back() > limits::kMaxConstantSeconds) throw t.at(i).error("must be at most 10 s (limits.hpp)");
      }
      if (std::fabs(curve.intercept_s) > limits::kMaxConstantSeconds) throw c.get("intercept_s").error("must be within ±10 s (limits.hpp)");
      if (std::fabs(curve.slope_s) > limits::kMaxConstantSeconds) throw c.get("slope_s").error("must be within ±10 s (limits.hpp)");
      gpu.bank_conflicts[word] = curve;
    }
  }
  if (v.has("partition")) {
    const yaml::Value p = v.get("partition");
    PartitionCalibration part;
    p.allow_only(names_of(part, {"sweep", "strided"}));
    read_numbers(p, part);
    read_positive(p.get("penalty"));
    part.sweep = read_table(p.get("sweep"), {"granule_bytes", "stride_bytes", "slots_used", "Bps"});
    part.strided = read_table(p.get("strided"), {"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"});
    gpu.partition = part;
  }
  if (v.has("l2_write_back")) {
    const yaml::Value l = v.get("l2_write_back");
    l.allow_only({"model", "bytes", "seconds_per_byte", "points", "fit", "holdout", "runs"});
    L2WriteBack w;
    w.bytes = l.get("bytes").as_nonnegative();
    w.seconds_per_byte = l.get("seconds_per_byte").as_nonnegative();
    w.points = l.get("points").as_count();
    w.fit = read_quality(l.get("fit"));
    if (l.has("holdout")) w.holdout = read_quality(l.get("holdout"));
    w.runs = read_table(l.get("runs"), {"read_bytes", "clean_s", "dirty_s", "holdout"});
    gpu.l2_write_back = w;
  }
  if (v.has("launch")) {
    const yaml::Value l = v.get("launch");
    LaunchCalibration launch;
    l.allow_only(names_of(launch, {"wave_fit", "queued"}));
    read_numbers(l, launch);
    launch.wave_fit = read_quality(l.get("wave_fit"));
    if (l.has("queued")) {
      const yaml::Value q = l.get("queued");
      QueuedLaunch queued;
      q.allow_only(names_of(queued, {"model", "fit"}));
      read_numbers(q, queued);
      queued.fit = read_quality(q.get("fit"));
      launch.queued = queued;
    }
    gpu.launch = launch;
  }
  if (v.has("overlap")) {
    const yaml::Value o = v.get("overlap");
    OverlapCalibration overlap;
    o.allow_only(names_of(overlap, {"kernel_concurrency"}));
    read_numbers(o, overlap);
    overlap.kernel_concurrency = read_table(o.get("kernel_concurrency"), {"streams", "seconds", "concurrency"});
    gpu.overlap = overlap;
  }
  if (v.has("streams")) gpu.streams = read_streams(v.get("streams"));
  if (v.has("atomics")) {
    const yaml::Value a = v.get("atomics");
    a.allow_only(atomic_type_names());
    for (const std::string& type : atomic_type_names()) {
      if (!a.has(type)) continue;
      const yaml::Value c = a.get(type);
      // sector_update_s is written for readers of the profile; it is 32 × the first time, so it is not read back.
      c.allow_only({"sector_update_s", "one_lane_update_s", "threads", "addresses", "seconds_per_update"});
      AtomicCurve curve;
      if (c.has("one_lane_update_s")) {
        curve.one_lane_update_s = read_positive(c.get("one_lane_update_s"));
        if (curve.one_lane_update_s > limits::kMaxConstantSeconds) throw c.get("one_lane_update_s").error("must be at most 10 s (limits.hpp)");
      }
      curve.threads = c.get("threads").as_number_in(1, 1e12);
      const yaml::Value k = c.get("addresses"), t = c.get("seconds_per_update");
      if (k.sequence_size() == 0) throw k.error("needs at least the time on one address");
      if (t.sequence_size() != k.sequence_size()) throw t.error("needs one time per entry of addresses");
      for (std::size_t i = 0; i < k.sequence_size(); ++i) {
        const double ki = k.at(i).as_number_in(1, curve.threads);
        if (i == 0 && ki != 1) throw k.at(i).error("the first entry must be 1 (one address)");
        if (i > 0 && !(ki > curve.addresses.back())) throw k.at(i).error("must be larger than the entry before it");
        curve.addresses.push_back(ki);
        curve.seconds_per_update.push_back(read_positive(t.at(i)));
        if (curve.seconds_per_update.back() > limits::kMaxConstantSeconds) throw t.at(i).error("must be at most 10 s (limits.hpp)");
      }
      gpu.atomics[type] = curve;
    }
  }
  if (v.has("dram_random")) gpu.dram_random = read_random(v.get("dram_random"));
  if (v.has("dram_random_rmw")) gpu.dram_random_rmw = read_random(v.get("dram_random_rmw"));
  if (v.has("dram_random_write")) gpu.dram_random_write = read_random(v.get("dram_random_write"));
  return gpu;
}

}  // namespace perfmodel::sections
