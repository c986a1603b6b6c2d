#include "perfmodel/report/profile_report.hpp"

#include <cmath>
#include <string>

#include "perfmodel/model/cpu_fit.hpp"

namespace perfmodel::report {

namespace {

Cell count(double v) { return Cell(static_cast<std::int64_t>(std::llround(v))); }

void add_quality(Record& row, const std::string& prefix, const FitQuality& q) {
  row.push_back({prefix + "_points", Cell(static_cast<std::int64_t>(q.sizes))});
  row.push_back({prefix + "_mean_rel_error", Cell(q.mean_rel_error, Unit::percent)});
  row.push_back({prefix + "_max_rel_error", Cell(q.max_rel_error, Unit::percent)});
}

// The theoretical peak a measured ceiling can be compared with (0 when unknown).
double theoretical_for(const std::string& name, const GpuDeviceInfo& d) {
  if (name.rfind("dram_", 0) == 0) return d.theoretical_dram_Bps();
  if (name == "fp32") return d.theoretical_flops(d.fp32_lanes_per_sm);
  if (name == "fp64") return d.theoretical_flops(d.fp64_lanes_per_sm);
  if (name == "fp16") return d.theoretical_flops(d.fp16_lanes_per_sm);
  if (name == "int32") return d.theoretical_flops(d.int32_lanes_per_sm);
  if (name.rfind("tensor_", 0) == 0) return d.theoretical_tensor_ops(name);
  if (name == "shared_load" || name == "shared_store")
    return d.multiprocessors * d.shared_memory_banks * d.shared_memory_bank_bytes * d.sm_clock_hz;
  return 0;
}

void add_gpu(Report& r, const GpuCalibration& gpu) {
  const GpuDeviceInfo& d = gpu.device;
  r.meta.push_back({"gpu_samples_file", Cell(gpu.samples_file)});
  r.meta.push_back({"gpu_calibration_wall_s", Cell(gpu.calibration_wall_s, Unit::seconds)});
  Table device{"gpu_device", {}};
  device.rows.push_back({{"compute_capability", Cell(std::to_string(static_cast<int>(d.compute_capability_major)) + "." +
                                                     std::to_string(static_cast<int>(d.compute_capability_minor)))},
                         {"sms", count(d.multiprocessors)},
                         {"sm_clock", Cell(d.sm_clock_hz, Unit::per_s)},
                         {"l2_bytes", Cell(d.l2_cache_bytes, Unit::bytes)},
                         {"shared_per_sm_bytes", Cell(d.shared_memory_per_multiprocessor, Unit::bytes)},
                         {"registers_per_sm", count(d.registers_per_multiprocessor)},
                         {"max_threads_per_sm", count(d.max_threads_per_multiprocessor)},
                         {"max_blocks_per_sm", count(d.max_blocks_per_multiprocessor)},
                         {"copy_engines", count(d.async_engines)},
                         {"theoretical_dram_bytes_per_s", Cell(d.theoretical_dram_Bps(), Unit::bytes_per_s)}});
  r.tables.push_back(std::move(device));

  if (!gpu.ceilings.empty()) {
    Table t{"gpu_ceilings", {}};
    for (const CeilingKind& k : ceiling_kinds()) {
      const auto it = gpu.ceilings.find(k.name);
      if (it == gpu.ceilings.end()) continue;
      const MeasuredRate& m = it->second;
      const Unit unit = std::string(k.unit) == "B/s" ? Unit::bytes_per_s : std::string(k.unit) == "flop/s" ? Unit::flop_per_s : Unit::per_s;
      const double peak = theoretical_for(k.name, d);
      t.rows.push_back({{"ceiling", Cell(k.name)},
                        {"unit", Cell(k.unit)},
                        {"median", Cell(m.median, unit)},
                        {"p10", Cell(m.p10, unit)},
                        {"p90", Cell(m.p90, unit)},
                        {"repetitions", Cell(static_cast<std::int64_t>(m.samples))},
                        {"theoretical", peak > 0 ? Cell(peak, unit) : Cell("")},
                        {"of_theoretical", peak > 0 ? Cell(m.median / peak, Unit::percent) : Cell("")},
                        {"best_configuration", Cell(m.config)}});
    }
    r.tables.push_back(std::move(t));
  }
  // One row per access pattern: contiguous runs, and one line per row (tiled Mv/MM).
  std::vector<Record> curves;
  for (const auto& [pattern, curve] : {std::pair{"contiguous", &gpu.dram_concurrency}, std::pair{"line per row", &gpu.dram_concurrency_rows}}) {
    if (!*curve) continue;
    const SaturationCurve& c = **curve;
    Record row{{"access", Cell(pattern)},
               {"peak_bytes_per_s", Cell(c.peak_Bps, Unit::bytes_per_s)},
               {"latency_s", Cell(c.latency_s, Unit::seconds)},
               {"sharpness", Cell(c.sharpness)},
               {"max_requests_per_warp", Cell(c.max_requests_per_warp)},
               {"bytes_in_flight_for_90pct", Cell(c.bytes_in_flight_for(0.9), Unit::bytes)}};
    add_quality(row, "fit", c.fit);
    if (c.holdout) add_quality(row, "holdout", *c.holdout);
    curves.push_back(std::move(row));
  }
  if (!curves.empty()) r.tables.push_back({"gpu_dram_concurrency", std::move(curves)});
  if (gpu.latency) {
    const LatencyLevels& l = *gpu.latency;
    r.tables.push_back({"gpu_latency",
                        {{{"level", Cell("L1")}, {"latency_s", Cell(l.l1_s, Unit::seconds)}, {"footprint", Cell(l.l1_footprint_bytes, Unit::bytes)}},
                         {{"level", Cell("L2")}, {"latency_s", Cell(l.l2_s, Unit::seconds)}, {"footprint", Cell(l.l2_footprint_bytes, Unit::bytes)}},
                         {{"level", Cell("DRAM")}, {"latency_s", Cell(l.dram_s, Unit::seconds)}, {"footprint", Cell(l.dram_footprint_bytes, Unit::bytes)}}}});
  }
  if (!gpu.bank_conflicts.empty()) {
    Table t{"gpu_bank_conflicts", {}};
    for (const auto& [word, c] : gpu.bank_conflicts) {
      Record row{{"word_bytes", Cell(std::int64_t{word})},
                 {"degree_1_s_per_access", Cell(c.seconds_per_access.front(), Unit::seconds)},
                 {"slope_s_per_degree", Cell(c.slope_s, Unit::seconds)}};
      for (int degree : {2, 4, 8, 16, 32})  // 8-byte words have degrees up to 16 only
        row.push_back({"penalty_" + std::to_string(degree) + "way",
                       degree <= static_cast<int>(c.seconds_per_access.size()) ? Cell(c.penalty(degree), Unit::ratio) : Cell("")});
      add_quality(row, "line_fit", c.fit);
      t.rows.push_back(row);
    }
    r.tables.push_back(std::move(t));
  }
  if (gpu.partition) {
    const PartitionCalibration& p = *gpu.partition;
    r.tables.push_back({"gpu_partition_camping",
                        {{{"penalty", Cell(p.penalty, Unit::ratio)},
                          {"worst_granule", Cell(p.worst_granule_bytes, Unit::bytes)},
                          {"worst_stride", Cell(p.worst_stride_bytes, Unit::bytes)},
                          {"cases_measured", Cell(static_cast<std::int64_t>(p.sweep.rows.size()))}}}});
    if (!p.strided.rows.empty()) {
      Table t{"gpu_strided_access", {}};
      const std::size_t stride = p.strided.column("stride_elements"), bps = p.strided.column("Bps"),
                        eff = p.strided.column("efficiency"), sectors = p.strided.column("sectors_per_request");
      for (const auto& row : p.strided.rows)
        t.rows.push_back({{"stride_elements", count(row[stride])},
                          {"useful_bytes_per_s", Cell(row[bps], Unit::bytes_per_s)},
                          {"efficiency_vs_stride_1", Cell(row[eff], Unit::percent)},
                          {"sectors_per_request", count(row[sectors])},
                          {"sector_model_efficiency", Cell(row[sectors] > 0 ? 4.0 / row[sectors] : 0.0, Unit::percent)}});
      r.tables.push_back(std::move(t));
    }
  }
  if (gpu.launch) {
    const LaunchCalibration& l = *gpu.launch;
    Record row{{"empty_kernel_s", Cell(l.empty_kernel_s, Unit::seconds)},
               {"launch_sync_s", Cell(l.launch_sync_s, Unit::seconds)},
               {"graph_kernel_s", Cell(l.graph_kernel_s, Unit::seconds)},
               {"wave_base_s", Cell(l.wave_base_s, Unit::seconds)},
               {"per_wave_s", Cell(l.per_wave_s, Unit::seconds)},
               {"blocks_per_wave", count(l.blocks_per_wave)}};
    add_quality(row, "wave_fit", l.wave_fit);
    r.tables.push_back({"gpu_launch", {row}});
    if (const auto& q = l.queued) {
      Record queued{{"base_s", Cell(q->base_s, Unit::seconds)},
                    {"kernel_s", Cell(q->kernel_s, Unit::seconds)},
                    {"memset_s", Cell(q->memset_s, Unit::seconds)},
                    {"host_memset_s", Cell(q->host_memset_s, Unit::seconds)}};
      add_quality(queued, "fit", q->fit);
      r.tables.push_back({"gpu_launch_queued", {queued}});
    }
  }
  if (gpu.overlap) {
    const OverlapCalibration& o = *gpu.overlap;
    auto overlap = [](double alone_sum, double together) { return together > 0 ? alone_sum / together : 0.0; };
    r.tables.push_back(
        {"gpu_overlap",
         {{{"copy_engines", count(o.copy_engines)},
           {"copy_bytes", Cell(o.copy_bytes, Unit::bytes)},
           {"h2d_s", Cell(o.h2d_s, Unit::seconds)},
           {"d2h_s", Cell(o.d2h_s, Unit::seconds)},
           {"kernel_s", Cell(o.kernel_s, Unit::seconds)},
           {"all_three_s", Cell(o.all_s, Unit::seconds)},
           {"speedup_h2d_d2h", Cell(overlap(o.h2d_s + o.d2h_s, o.h2d_d2h_s), Unit::ratio)},
           {"speedup_h2d_kernel", Cell(overlap(o.h2d_s + o.kernel_s, o.h2d_kernel_s), Unit::ratio)},
           {"speedup_d2h_kernel", Cell(overlap(o.d2h_s + o.kernel_s, o.d2h_kernel_s), Unit::ratio)},
           {"speedup_all_three", Cell(overlap(o.h2d_s + o.d2h_s + o.kernel_s, o.all_s), Unit::ratio)},
           {"max_concurrent_kernels", Cell(o.max_concurrent_kernels)}}}});
  }
  if (gpu.streams) {  // the task farm's limits (model/stream_calibration.hpp)
    const StreamCalibration& s = *gpu.streams;
    r.tables.push_back({"gpu_streams",
                        {{{"measured_on", Cell(s.measured_on)},
                          {"cuda_device_max_connections", s.connections > 0 ? count(s.connections) : Cell(nullptr)},
                          {"issue_s", Cell(s.issue_s, Unit::seconds)},
                          {"busy_issue_s", s.busy_issue_s() > 0 ? Cell(s.busy_issue_s(), Unit::seconds) : Cell(nullptr)},
                          {"serial_task_s", Cell(s.serial_task_s, Unit::seconds)},
                          {"work_queues", Cell(s.queues)}}}});
    Table conc{"gpu_streams_concurrency", {}};
    const bool with_host = s.concurrency.has("host_s");
    const std::size_t ch = with_host ? s.concurrency.column("host_s") : 0;
    for (const auto& row : s.concurrency.rows)
      conc.rows.push_back({{"streams", count(row[0])}, {"tasks", count(row[1])}, {"seconds", Cell(row[2], Unit::seconds)},
                           {"kernels_at_once", Cell(row[3])},
                           {"host_s", with_host ? Cell(row[ch], Unit::seconds) : Cell(nullptr)}});
    r.tables.push_back(std::move(conc));
  }
}

void add_cpu(Report& r, const CpuCalibration& c) {
  for (const std::string& w : cpu_calibration_warnings(c)) r.notes.push_back("warning: cpu: " + w);
  r.meta.push_back({"cpu_samples_file", Cell(c.samples_file)});
  r.meta.push_back({"cpu_calibration_wall_s", Cell(c.calibration_wall_s, Unit::seconds)});
  r.tables.push_back({"cpu_info",
                      {{{"logical_cpus", count(c.cpu.logical_cpus)},
                        {"l1d", Cell(c.cpu.l1d_bytes, Unit::bytes)},
                        {"l2", Cell(c.cpu.l2_bytes, Unit::bytes)},
                        {"l3", Cell(c.cpu.l3_bytes, Unit::bytes)},
                        {"l3_shared_by", count(c.cpu.l3_shared_by)},
                        {"memory", Cell(c.cpu.memory_bytes, Unit::bytes)}}}});
  if (!c.plateaus.empty()) {
    Table t{"cpu_plateaus", {}};
    for (const CachePlateau& p : c.plateaus)
      t.rows.push_back({{"threads", count(p.threads)},
                        {"level", Cell(p.level)},
                        {"from", Cell(std::round(p.from_bytes), Unit::bytes)},
                        {"to", Cell(std::isinf(p.to_bytes) ? p.to_bytes : std::round(p.to_bytes), Unit::bytes)},
                        {"read_bandwidth", Cell(p.read_Bps, Unit::bytes_per_s)},
                        {"points", count(p.points)}});
    r.tables.push_back(std::move(t));
  }
  if (!c.compute.rows.empty()) {
    Table t{"cpu_compute", {}};
    for (const auto& row : c.compute.rows)
      t.rows.push_back({{"threads", count(row[0])},
                        {"fp32", Cell(row[1], Unit::per_s)},
                        {"fp64", Cell(row[2], Unit::per_s)},
                        {"pool_fork_join_s", Cell(c.dispatch_seconds(row[0]), Unit::seconds)}});
    r.tables.push_back(std::move(t));
  }
  if (!c.kernels.empty()) {
    Table t{"cpu_kernels", {}};
    for (const auto& [name, m] : c.kernels) {
      Record row{{"kernel", Cell(name)},
                 {"threads", count(m.threads)},
                 {"fitted_sizes", Cell(static_cast<std::int64_t>(m.efficiency.rows.size()))},
                 {"efficiency_smallest", Cell(m.efficiency.rows.front()[1], Unit::percent)},
                 {"efficiency_largest", Cell(m.efficiency.rows.back()[1], Unit::percent)}};
      if (m.holdout) add_quality(row, "holdout", *m.holdout);
      t.rows.push_back(row);
    }
    r.tables.push_back(std::move(t));
  }
}

}  // namespace

Report profile_report(const Profile& profile) {
  Report r;
  r.meta.push_back({"schema_version", Cell(std::int64_t{profile.schema_version})});
  for (const auto& [key, value] : profile.provenance.fields()) r.meta.push_back({key, Cell(*value)});
  if (!profile.provenance.refit.empty()) r.meta.push_back({"refit", Cell(profile.provenance.refit)});
  if (profile.gpu) add_gpu(r, *profile.gpu);
  if (profile.cpu) add_cpu(r, *profile.cpu);
  if (!profile.pcie) return r;
  const PcieCalibration& pcie = *profile.pcie;
  r.meta.push_back({"pcie_samples_file", Cell(pcie.samples_file)});
  r.meta.push_back({"pcie_timer", Cell(pcie.timer)});
  r.meta.push_back({"pcie_host_buffer", Cell(pcie.host_buffer.empty() ? std::string("not recorded") : pcie.host_buffer)});
  r.meta.push_back({"pcie_calibration_wall_s", Cell(pcie.calibration_wall_s, Unit::seconds)});
  Table curves{"pcie_curves", {}};
  Table segments{"pcie_segments", {}};
  constexpr double kGiB = 1073741824.0;
  for (const auto& [key, c] : pcie.curves) {
    Record row{{"curve", Cell(key.name())},
               {"segments", Cell(static_cast<std::int64_t>(c.segments.size()))},
               {"T_x_bytes_per_s", Cell(c.asymptotic_rate_bytes_per_s(), Unit::bytes_per_s)},
               {"rate_at_1GiB_bytes_per_s", Cell(kGiB / c.seconds(kGiB), Unit::bytes_per_s)},
               {"time_at_4B_s", Cell(c.seconds(4), Unit::seconds)},
               {"fit_sizes", Cell(static_cast<std::int64_t>(c.fit.sizes))},
               {"fit_mean_rel_error", Cell(c.fit.mean_rel_error, Unit::percent)},
               {"fit_max_rel_error", Cell(c.fit.max_rel_error, Unit::percent)}};
    if (c.holdout) {
      row.push_back({"holdout_sizes", Cell(static_cast<std::int64_t>(c.holdout->sizes))});
      row.push_back({"holdout_mean_rel_error", Cell(c.holdout->mean_rel_error, Unit::percent)});
      row.push_back({"holdout_max_rel_error", Cell(c.holdout->max_rel_error, Unit::percent)});
      // How precisely the held-out times are known (a profile fitted before the noise figures
      // existed has none): an error within three standard errors is within the measurement.
      if (const auto& n = c.holdout->noise) {
        row.push_back({"holdout_median_rel_se", Cell(n->median_rel_se, Unit::percent)});
        row.push_back({"holdout_max_rel_se", Cell(n->max_rel_se, Unit::percent)});
        row.push_back({"holdout_sizes_beyond_3se", Cell(static_cast<std::int64_t>(n->sizes_beyond_3se))});
      }
    }
    curves.rows.push_back(row);
    for (const TransferSegment& s : c.segments)
      segments.rows.push_back({{"curve", Cell(key.name())},
                               {"from_bytes", Cell(s.from_bytes, Unit::bytes)},
                               {"to_bytes", Cell(s.to_bytes, Unit::bytes)},
                               {"c1_setup_s", Cell(s.setup_s, Unit::seconds)},
                               {"rate_bytes_per_s", Cell(s.s_per_byte > 0 ? 1.0 / s.s_per_byte : 0.0, Unit::bytes_per_s)},
                               {"c0_s_per_byte", Cell(c.c0_s_per_byte(s))},
                               {"misaligned_s", Cell(s.misaligned_s, Unit::seconds)},
                               {"sizes", Cell(static_cast<std::int64_t>(s.sizes))},
                               {"mean_rel_error", Cell(s.mean_rel_error, Unit::percent)},
                               {"max_rel_error", Cell(s.max_rel_error, Unit::percent)}});
  }
  r.tables.push_back(std::move(curves));
  r.tables.push_back(std::move(segments));
  return r;
}

void add_profile_header(Report& report, const std::string& path, bool bundled, const Provenance& provenance, const std::string& note) {
  report.notes.push_back(note);
  report.meta.push_back({"profile", Cell(path)});
  report.meta.push_back({"profile_source", Cell(bundled ? "bundled" : "user")});
  const std::string& device = provenance.device_name;  // a CPU-only profile names no GPU
  report.meta.push_back({"device", device.empty() ? Cell(nullptr) : Cell(device)});
  report.meta.push_back({"host_cpu", Cell(provenance.host_cpu)});
}

}  // namespace perfmodel::report
