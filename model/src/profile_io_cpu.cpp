// The profile's `cpu` section: writing, and reading with validation.
#include <cmath>
#include <limits>

#include "profile_sections.hpp"

namespace perfmodel::sections {

void emit_cpu(YAML::Emitter& out, const CpuCalibration& c) {
  out << YAML::BeginMap;
  out << YAML::Key << "samples_file" << YAML::Value << c.samples_file;
  out << YAML::Key << "calibration_wall_s" << YAML::Value << c.calibration_wall_s;
  out << YAML::Key << "model" << YAML::Value
      << "T = (regions*dispatch(threads) + max(bytes_read/BW_read(W,threads) + bytes_written/BW_write(W,threads), "
         "serial_flops/fp32(1) + (flops - serial_flops)/fp32(threads))) / efficiency(W)";
  out << YAML::Key << "info" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, value] : c.cpu.fields()) out << YAML::Key << name << YAML::Value << *value;
  out << YAML::EndMap;
  if (!c.bandwidth.empty()) {
    out << YAML::Key << "bandwidth" << YAML::Value << YAML::BeginMap;
    for (const std::string& kind : cpu_bandwidth_kinds()) {
      const auto it = c.bandwidth.find(kind);
      if (it != c.bandwidth.end()) emit_table(out, kind.c_str(), it->second);
    }
    out << YAML::EndMap;
  }
  if (!c.plateaus.empty()) {
    out << YAML::Key << "plateaus" << YAML::Value << YAML::BeginSeq;
    for (const CachePlateau& p : c.plateaus) {
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "threads" << YAML::Value << p.threads << YAML::Key << "level" << YAML::Value << p.level;
      out << YAML::Key << "from_bytes" << YAML::Value << p.from_bytes << YAML::Key << "to_bytes" << YAML::Value << p.to_bytes;
      out << YAML::Key << "read_Bps" << YAML::Value << p.read_Bps << YAML::Key << "points" << YAML::Value << p.points;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!c.compute.rows.empty()) emit_table(out, "compute", c.compute);
  if (!c.dispatch.rows.empty()) emit_table(out, "dispatch", c.dispatch);
  if (!c.kernels.empty()) {
    out << YAML::Key << "kernels" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, m] : c.kernels) {
      out << YAML::Key << name << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "threads" << YAML::Value << m.threads;
      if (m.holdout) emit_quality(out, "holdout", *m.holdout);
      emit_table(out, "efficiency", m.efficiency);
      if (!m.one_thread.rows.empty()) emit_table(out, "one_thread", m.one_thread);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

namespace {

// Column `column` of every row of t (read from `rows`) lies in [low, high] (and is whole).
void check_column(const yaml::Value& rows, const NumericTable& t, std::size_t column, double low, double high, bool whole) {
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const double x = t.rows[i][column];
    if (!(x >= low && x <= high) || (whole && x != std::floor(x))) {
      const yaml::Value cell = rows.at(i).at(column);
      if (whole) static_cast<void>(cell.as_whole_in(low, high));  // throws, naming the cell
      static_cast<void>(cell.as_number_in(low, high));
    }
  }
}

}  // namespace

CpuCalibration read_cpu(const yaml::Value& v) {
  v.allow_only({"samples_file", "calibration_wall_s", "model", "info", "bandwidth", "plateaus", "compute", "dispatch", "kernels"});
  CpuCalibration c;
  c.samples_file = v.get("samples_file").as_file_name();
  c.calibration_wall_s = v.get("calibration_wall_s").as_nonnegative();
  const yaml::Value info = v.get("info");
  std::vector<std::string> names;
  for (const auto& field : c.cpu.fields()) names.push_back(field.first);
  info.allow_only(names);
  for (auto& [name, value] : c.cpu.fields()) {
    const yaml::Value field = info.get(name);
    if (name == "logical_cpus") *value = field.as_whole_in(1, limits::kMaxThreads);
    else if (name.find("shared_by") != std::string::npos) *value = field.as_whole_in(0, limits::kMaxThreads);
    else *value = field.as_whole_in(0, limits::kMaxBytes);
  }
  if (v.has("bandwidth")) {
    const yaml::Value b = v.get("bandwidth");
    b.allow_only(cpu_bandwidth_kinds());
    for (const std::string& kind : cpu_bandwidth_kinds())
      if (b.has(kind)) {
        NumericTable t = read_table(b.get(kind), {"threads", "working_set_bytes", "Bps"});
        const yaml::Value rows = b.get(kind).get("rows");
        if (t.rows.empty()) throw rows.error("needs at least one measured point");
        check_column(rows, t, 0, 1, limits::kMaxThreads, true);
        check_column(rows, t, 1, 0, limits::kMaxBytes, false);
        check_column(rows, t, 2, limits::kMinRate, limits::kMaxRate, false);
        c.bandwidth[kind] = t;
      }
  }
  if (v.has("plateaus")) {
    const yaml::Value list = v.get("plateaus");
    for (std::size_t i = 0; i < list.sequence_size(); ++i) {
      const yaml::Value p = list.at(i);
      p.allow_only({"threads", "level", "from_bytes", "to_bytes", "read_Bps", "points"});
      CachePlateau plateau;
      plateau.threads = p.get("threads").as_whole_in(1, limits::kMaxThreads);
      plateau.level = p.get("level").as_string();
      if (plateau.level != "L1" && plateau.level != "L2" && plateau.level != "L3" && plateau.level != "memory")
        throw p.get("level").error("must be L1, L2, L3 or memory, got '" + plateau.level + "'");
      plateau.from_bytes = p.get("from_bytes").as_number_in(0, limits::kMaxBytes);
      plateau.to_bytes = p.get("to_bytes").as_nonnegative_or_inf();
      if (!(plateau.to_bytes > plateau.from_bytes)) throw p.get("to_bytes").error("must be greater than from_bytes");
      plateau.read_Bps = p.get("read_Bps").as_number_in(0, limits::kMaxRate);
      plateau.points = p.get("points").as_nonnegative();
      c.plateaus.push_back(plateau);
    }
  }
  if (v.has("compute")) {
    c.compute = read_table(v.get("compute"), {"threads", "fp32_flops", "fp64_flops"});
    const yaml::Value rows = v.get("compute").get("rows");
    if (c.compute.rows.empty()) throw rows.error("needs at least one measured point");
    check_column(rows, c.compute, 0, 1, limits::kMaxThreads, true);
    check_column(rows, c.compute, 1, limits::kMinRate, limits::kMaxRate, false);
    check_column(rows, c.compute, 2, 0, limits::kMaxRate, false);
  }
  if (v.has("dispatch")) {
    c.dispatch = read_table(v.get("dispatch"), {"threads", "seconds"});
    const yaml::Value rows = v.get("dispatch").get("rows");
    if (c.dispatch.rows.empty()) throw rows.error("needs at least one measured point");
    check_column(rows, c.dispatch, 0, 1, limits::kMaxThreads, true);
    check_column(rows, c.dispatch, 1, 0, limits::kMaxConstantSeconds, false);
  }
  if (v.has("kernels")) {
    const yaml::Value k = v.get("kernels");
    k.allow_only(cpu_kernel_names());
    for (const std::string& name : cpu_kernel_names()) {
      if (!k.has(name)) continue;
      const yaml::Value m = k.get(name);
      m.allow_only({"threads", "holdout", "efficiency", "one_thread"});
      CpuKernelModel model;
      model.threads = m.get("threads").as_whole_in(1, limits::kMaxThreads);
      if (m.has("holdout")) model.holdout = read_quality(m.get("holdout"));
      model.efficiency = read_table(m.get("efficiency"), {"working_set_bytes", "efficiency"});
      if (model.efficiency.rows.empty()) throw m.get("efficiency").error("needs at least one node");
      for (std::size_t i = 0; i < model.efficiency.rows.size(); ++i) {
        const auto& row = model.efficiency.rows[i];
        // A ratio of roofline to measured time: far outside [1e-6, 1e6] it is no longer a measurement.
        if (!(row[1] >= 1e-6 && row[1] <= 1e6)) throw m.get("efficiency").get("rows").at(i).error("efficiency must be between 1e-6 and 1e6");
        if (!(row[0] <= limits::kMaxBytes)) throw m.get("efficiency").get("rows").at(i).error("working set beyond 2^50 bytes (limits.hpp)");
        if (i > 0 && !(row[0] > model.efficiency.rows[i - 1][0]))
          throw m.get("efficiency").get("rows").at(i).error("working sets must be ascending");
      }
      if (m.has("one_thread")) {
        model.one_thread = read_table(m.get("one_thread"), {"working_set_bytes", "ratio"});
        for (std::size_t i = 0; i < model.one_thread.rows.size(); ++i) {
          const auto& row = model.one_thread.rows[i];
          const yaml::Value at = m.get("one_thread").get("rows").at(i);
          if (!(row[1] >= 1e-6 && row[1] <= 1e6)) throw at.error("ratio must be between 1e-6 and 1e6");
          if (!(row[0] > 0 && row[0] <= limits::kMaxBytes)) throw at.error("working set must be in (0, 2^50] bytes (limits.hpp)");
          if (i > 0 && !(row[0] > model.one_thread.rows[i - 1][0])) throw at.error("working sets must be ascending");
        }
      }
      c.kernels[name] = model;
    }
    if (!c.kernels.empty() && (c.bandwidth.empty() || c.compute.rows.empty()))
      throw k.error("kernel models need the bandwidth curves and compute ceilings they were fitted on");
  }
  // Every CPU prediction reads both: a section without them holds no model (a fit of samples
  // without those series, or a file cut short).
  if (c.bandwidth.empty()) throw v.error("the cpu section has no bandwidth curves: no model to predict with");
  if (c.compute.rows.empty()) throw v.error("the cpu section has no compute ceilings: no model to predict with");
  return c;
}

}  // namespace perfmodel::sections
