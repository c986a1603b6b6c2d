// The tables of the prediction commands (perfmodel/report/predict_tables.hpp).
#include <utility>

#include "perfmodel/model/units.hpp"
#include "perfmodel/predictors/roofline.hpp"
#include "perfmodel/report/predict_tables.hpp"

namespace perfmodel::report {
namespace {

std::string plot_like(double x, double y) {
  return std::to_string(static_cast<long long>(x)) + "x" + std::to_string(static_cast<long long>(y));
}

// Where the workload sits on the profile's DRAM/FP32 roofline.
void add_roofline(Record& r, const Profile& profile, const GpuPrediction& p, const GpuWorkload& w) {
  const double dram = w.dram_bytes();
  if (!(w.flops > 0) || !(dram > 0)) return;
  const RooflineBound b = roofline_bound(roofline_of(profile), w.flops / dram, "dram", "fp32", w.flops / p.seconds);
  r.push_back({"flop_per_dram_byte", Cell(b.intensity)});
  r.push_back({"roofline_bound", Cell(b.memory_bound ? "memory" : "compute")});
  r.push_back({"roofline_attainable_flop_per_s", Cell(b.attainable, Unit::flop_per_s)});
  r.push_back({"roofline_headroom", Cell(b.headroom)});
}

Record prediction_meta(const GpuPrediction& p, const GpuWorkload& w) {
  Record r;
  r.push_back({"seconds", Cell(p.seconds, Unit::seconds)});
  r.push_back({"bound", Cell(p.bound)});
  // The launches' own cost beyond the work plus the scheduling of every wave after a launch's first:
  // for a large grid most of it is wave scheduling, which overlaps the memory pipes.
  r.push_back({"launch_and_scheduling_s", Cell(p.launch_s, Unit::seconds)});
  r.push_back({"dram_s", Cell(p.dram_s, Unit::seconds)});
  r.push_back({"l2_s", Cell(p.l2_s, Unit::seconds)});
  r.push_back({"l1_shared_s", Cell(p.l1_s, Unit::seconds)});
  r.push_back({"issue_s", Cell(p.issue_s, Unit::seconds)});
  r.push_back({"fp64_s", Cell(p.fp64_s, Unit::seconds)});
  r.push_back({"special_s", Cell(p.special_s, Unit::seconds)});
  r.push_back({"latency_s", Cell(p.chain_s, Unit::seconds)});
  r.push_back({"atomic_s", Cell(p.atomic_s, Unit::seconds)});
  if (w.flops > 0) r.push_back({"flop_per_s", Cell(w.flops / p.seconds, Unit::flop_per_s)});
  if (w.algorithmic_bytes > 0) r.push_back({"effective_bytes_per_s", Cell(w.algorithmic_bytes / p.seconds, Unit::bytes_per_s)});
  r.push_back({"dram_fraction_of_peak", Cell(p.dram_fraction, Unit::percent)});
  r.push_back({"flop_fraction_of_fp32_peak", Cell(p.flop_fraction, Unit::percent)});  // FP32 and FP64 flops over the FP32 ceiling
  // How busy each ceiling is over the predicted time (its part / the time): the achieved fraction
  // of the L2, L1/shared and issue ceilings at the kernel's occupancy.
  for (const auto& [name, part] : std::vector<std::pair<const char*, double>>{
           {"l2_utilisation", p.l2_s}, {"l1_shared_utilisation", p.l1_s}, {"issue_utilisation", p.issue_s + p.special_s}})
    r.push_back({name, Cell(p.seconds > 0 ? part / p.seconds : 0.0, Unit::percent)});
  return r;
}

Table phase_table(const GpuPrediction& p, const GpuWorkload& w) {
  Table t{"phases", {}};
  // The predictions follow the described phases in order, leaving out those of no launch
  // (predict_gpu); names repeat (two unnamed kernels are both "kernel"), so they are matched by place.
  std::size_t next = 0;
  for (std::size_t i = 0; i < p.phases.size(); ++i) {
    const GpuPhasePrediction& ph = p.phases[i];
    while (next < w.phases.size() && !(w.phases[next].launches > 0)) ++next;
    const GpuPhase* desc = next < w.phases.size() && w.phases[next].name == ph.name ? &w.phases[next] : nullptr;
    ++next;
    t.rows.push_back({{"phase", Cell(ph.name)},
                      {"launches", Cell(ph.launches)},
                      {"grid", Cell(desc ? plot_like(desc->grid_x, desc->grid_y) : "")},
                      {"block", Cell(desc ? plot_like(desc->block_x, desc->block_y) : "")},
                      {"registers", Cell(desc ? desc->registers_per_thread : 0.0)},
                      {"shared_bytes", Cell(desc ? desc->shared_bytes_per_block : 0.0, Unit::bytes)},
                      {"blocks_per_sm", Cell(ph.metrics.blocks_per_sm)},
                      {"limited_by", Cell(ph.metrics.limited_by)},
                      {"occupancy", Cell(ph.metrics.occupancy, Unit::percent)},
                      {"waves", Cell(ph.metrics.waves)},
                      {"seconds", Cell(ph.seconds, Unit::seconds)},
                      {"bound", Cell(ph.bound)},
                      {"sectors_per_request", Cell(desc ? desc->request_bytes / 32 : 0.0)},
                      {"bytes_in_flight", Cell(ph.bytes_in_flight, Unit::bytes)},
                      {"dram_reachable", Cell(ph.dram_Bps_reachable, Unit::bytes_per_s)}});
  }
  return t;
}

// What `predict kernel` and `tune` predict: one launch of a reference kernel.
std::string launch_prediction_of(const GpuRunStart& start) {
  return std::string("one launch of the kernel timed with CUDA events around it, ") +
         (start.l2_dirty ? "right after an L2 flush (a dirty L2, as the validation runner times)" : "from an idle GPU with a clean L2");
}

// What the reader derived for each kernel, per launch: the descriptor the prediction rests on
// (for format 2, from the accesses by the rules of docs/workload-format.md).
Table descriptor_table(const GpuWorkload& w) {
  Table t{"descriptor", {}};
  for (const GpuPhase& p : w.phases) {
    double shared = 0;
    for (const auto& [degree, accesses] : p.shared_accesses) shared += accesses;
    t.rows.push_back({{"phase", Cell(p.name)},
                      {"dram_bytes", Cell(p.dram_bytes, Unit::bytes)},
                      {"l2_bytes", Cell(p.l2_bytes, Unit::bytes)},
                      {"l1_wavefronts", Cell(p.l1_wavefronts)},
                      {"shared_wavefronts", Cell(shared)},
                      {"loads_in_flight", Cell(p.loads_in_flight)},
                      {"request_bytes", Cell(p.request_bytes, Unit::bytes)},
                      {"warp_instructions", Cell(p.warp_instructions)},
                      {"integer_warp_instructions", Cell(p.integer_warp_instructions)},
                      {"special_calls", Cell(p.special_calls)},
                      {"sfu_calls", Cell(p.sfu_calls)},
                      {"chain_l2_loads", Cell(p.chain_l2_loads)}});
  }
  return t;
}

std::string workload_prediction_of(const std::string& timing, const GpuRunStart& start) {
  if (timing == "steady")
    return "the workload (every kernel and launch) repeated back to back: time per repetition, a loop of repetitions "
           "timed as a whole and divided by their number";
  return std::string("the workload (every kernel and launch) run once, timed with CUDA events around it, ") +
         (start.l2_dirty ? "right after an L2 flush (a dirty L2, as the validation runner times)" : "from an idle GPU with a clean L2");
}

}  // namespace

void add_transfer_prediction(Report& report, const TransferListPrediction& prediction, TransferMode mode, int profile_schema) {
  report.meta.push_back({"prediction_of", Cell(mode == TransferMode::single
                                                   ? "each copy a synchronous cudaMemcpy timed with CUDA events around it; copies one after another"
                                                   : "each copy's cost when many are queued back to back in a stream")});
  report.meta.push_back({"mode", Cell(to_string(mode))});
  report.meta.push_back({"total_seconds", Cell(prediction.total_seconds, Unit::seconds)});
  report.meta.push_back({"interval_low_s", prediction.has_interval ? Cell(prediction.interval_low_s, Unit::seconds) : Cell(nullptr)});
  report.meta.push_back({"interval_high_s", prediction.has_interval ? Cell(prediction.interval_high_s, Unit::seconds) : Cell(nullptr)});
  Table table{"transfers", {}};
  bool extrapolated = false;
  for (const TransferPrediction& p : prediction.transfers) {
    extrapolated = extrapolated || p.extrapolated;
    table.rows.push_back({{"direction", Cell(to_string(p.transfer.key.direction))},
                          {"memory", Cell(to_string(p.transfer.key.memory))},
                          {"bytes", Cell(static_cast<std::int64_t>(p.transfer.bytes), Unit::bytes)},
                          {"seconds", Cell(p.seconds, Unit::seconds)},
                          {"interval_low_s", p.has_interval ? Cell(p.interval_low_s, Unit::seconds) : Cell(nullptr)},
                          {"interval_high_s", p.has_interval ? Cell(p.interval_high_s, Unit::seconds) : Cell(nullptr)},
                          {"bytes_per_s", Cell(p.effective_bytes_per_s, Unit::bytes_per_s)},
                          {"setup_s", Cell(p.setup_s, Unit::seconds)},
                          {"misaligned_s", Cell(p.misaligned_s, Unit::seconds)},
                          {"segment_from_bytes", Cell(p.segment_from_bytes, Unit::bytes)},
                          {"segment_to_bytes", Cell(p.segment_to_bytes, Unit::bytes)},
                          {"bridge", Cell(p.bridge)},
                          {"extrapolated", Cell(p.extrapolated)},
                          {"timing", Cell(p.timing)}});
  }
  report.tables.push_back(std::move(table));
  if (extrapolated) report.notes.push_back("some sizes lie outside the calibrated range: those predictions are extrapolated");
  if (!prediction.transfers.empty() && prediction.transfers.front().timing == "batched")
    report.notes.push_back("the profile (schema " + std::to_string(profile_schema) +
                           ") has one curve per transfer, measured as back-to-back copies in batches; it serves both modes and "
                           "states no interval: re-calibrate for single/stream curves with intervals");
}

void add_cpu_predictions(Report& report, const std::string& kernel, const std::vector<CpuPrediction>& predictions,
                         const std::vector<std::string>& calibration_warnings) {
  report.meta.push_back({"prediction_of", Cell("one call of the kernel on the host: the median of repeated calls, each timed with the host's "
                                               "steady clock, as the CPU calibration times its kernels")});
  report.meta.push_back({"kernel", Cell(kernel)});
  report.meta.push_back({"n_means", Cell(size_meaning(kernel))});
  Table table{"predictions", {}};
  bool any_outside = false;
  for (const CpuPrediction& p : predictions) {
    table.rows.push_back({{"n", Cell(p.n)},
                          {"threads", Cell(p.threads)},
                          {"seconds", Cell(p.seconds, Unit::seconds)},
                          {"bound", Cell(p.memory_bound ? "memory" : "compute")},
                          {"memory_s", Cell(p.memory_s, Unit::seconds)},
                          {"compute_s", Cell(p.compute_s, Unit::seconds)},
                          {"synchronisation_s", Cell(p.synchronisation_s, Unit::seconds)},
                          {"efficiency", Cell(p.efficiency, Unit::percent)},
                          {"working_set_bytes", Cell(p.workload.working_set_bytes, Unit::bytes)},
                          {"read_bw_at_working_set", Cell(p.read_Bps, Unit::bytes_per_s)},
                          {"flops", Cell(p.workload.flops)},
                          {"extrapolated_threads", Cell(p.extrapolated_threads)},
                          {"outside_fitted_sizes", Cell(p.outside_fitted_sizes)}});
    any_outside = any_outside || p.outside_fitted_sizes || p.extrapolated_threads;
  }
  report.tables.push_back(std::move(table));
  if (any_outside)
    report.notes.push_back("some predictions lie outside what was calibrated (sizes or threads): they are extrapolated");
  for (const std::string& w : calibration_warnings) report.notes.push_back("warning: the profile's CPU calibration: " + w);
}

void add_kernel_prediction(Report& report, const KernelPredictionView& view) {
  const GpuPrediction& p = view.prediction;
  const GpuWorkload& w = view.workload;
  report.meta.push_back({"prediction_of", Cell(launch_prediction_of(view.start))});
  report.meta.push_back({"kernel", Cell(view.kernel)});
  report.meta.push_back({"source", Cell(view.source)});
  report.meta.push_back({"n", Cell(static_cast<std::int64_t>(view.n))});
  report.meta.push_back({"config", Cell(view.config)});
  report.meta.push_back({"config_from", Cell(view.config_from)});
  for (auto& cell : prediction_meta(p, w)) report.meta.push_back(cell);
  add_roofline(report.meta, view.profile, p, w);
  if (view.transfers_s) {
    report.meta.push_back({"transfers_s", Cell(*view.transfers_s, Unit::seconds)});
    report.meta.push_back({"with_transfers_s", Cell(*view.transfers_s + p.seconds, Unit::seconds)});
  }
  if (view.measured_s) {
    report.meta.push_back({"measured_s", Cell(*view.measured_s, Unit::seconds)});
    report.meta.push_back({"error", Cell(p.seconds / *view.measured_s - 1, Unit::percent)});
    report.notes.push_back("measured: " + view.measured_source);
  }
  report.tables.push_back(phase_table(p, w));
  if (!view.estimated.empty()) report.notes.push_back("registers/shared memory estimated (no recorded resources) for " + view.estimated.front());
}

void add_workload_prediction(Report& report, const WorkloadPredictionView& view) {
  const GpuWorkloadFile& first = view.points.front().file;
  report.meta.push_back({"workload", Cell(first.name)});
  report.meta.push_back({"workload_format", Cell(static_cast<std::int64_t>(first.format))});
  report.meta.push_back({"timing", Cell(view.timing)});
  report.meta.push_back({"prediction_of", Cell(workload_prediction_of(view.timing, view.start))});
  if (view.single) {
    const GpuWorkloadFile& f = first;
    const GpuPrediction& p = view.points.front().prediction;
    for (const auto& [name, value] : f.params) report.meta.push_back({name, Cell(value)});
    report.meta.push_back({"predicted_s", Cell(p.seconds, Unit::seconds)});
    report.meta.push_back({"per_launch_s", Cell(p.seconds / f.launches(), Unit::seconds)});
    for (auto& cell : prediction_meta(p, f.workload)) report.meta.push_back(cell);
    add_roofline(report.meta, view.profile, p, f.workload);
    if (const auto& transfers = view.points.front().transfers_s) {
      report.meta.push_back({"transfers_s", Cell(*transfers, Unit::seconds)});
      report.meta.push_back({"with_transfers_s", Cell(*transfers + p.seconds, Unit::seconds)});
    }
    report.tables.push_back(phase_table(p, f.workload));
    report.tables.push_back(descriptor_table(f.workload));
  } else {
    Table t{"points", {}};
    for (const WorkloadPoint& point : view.points) {
      const GpuWorkloadFile& f = point.file;
      const GpuPrediction& p = point.prediction;
      Record row;
      for (const auto& [name, value] : f.params) row.push_back({name, Cell(value)});
      row.push_back({"predicted_s", Cell(p.seconds, Unit::seconds)});
      row.push_back({"per_launch_s", Cell(p.seconds / f.launches(), Unit::seconds)});
      row.push_back({"bound", Cell(p.bound)});
      row.push_back({"dram_bytes", Cell(f.workload.dram_bytes(), Unit::bytes)});
      if (point.transfers_s) {
        row.push_back({"transfers_s", Cell(*point.transfers_s, Unit::seconds)});
        row.push_back({"with_transfers_s", Cell(*point.transfers_s + p.seconds, Unit::seconds)});
      }
      t.rows.push_back(row);
    }
    report.tables.push_back(t);
  }
  for (const std::string& note : first.notes) report.notes.push_back(note);
}

void add_tune_ranking(Report& report, const TuneView& view) {
  const std::vector<TuneEntry>& ranked = view.ranked;
  report.meta.push_back({"prediction_of", Cell(launch_prediction_of(view.start))});
  report.meta.push_back({"kernel", Cell(view.kernel)});
  report.meta.push_back({"n", Cell(static_cast<std::int64_t>(view.n))});
  report.meta.push_back({"configurations", Cell(static_cast<std::int64_t>(ranked.size()))});
  report.meta.push_back({"predicted_best", Cell(ranked.front().config)});
  report.meta.push_back({"predicted_best_s", Cell(ranked.front().prediction.seconds, Unit::seconds)});
  report.meta.push_back({"s0_rule", Cell(view.rule_config)});
  // Measured sweep, where recorded.
  const TuneEntry* best_measured = nullptr;
  std::size_t measured_count = 0;
  for (const TuneEntry& r : ranked) {
    if (!r.measured_s) continue;
    ++measured_count;
    if (!best_measured || *r.measured_s < *best_measured->measured_s) best_measured = &r;
  }
  const std::optional<double>& predicted_measured = ranked.front().measured_s;
  if (best_measured && measured_count >= 3 && predicted_measured) {
    const double best_measured_s = *best_measured->measured_s;
    report.meta.push_back({"measured_best", Cell(best_measured->config)});
    report.meta.push_back({"measured_best_s", Cell(best_measured_s, Unit::seconds)});
    report.meta.push_back({"predicted_best_measured_s", Cell(*predicted_measured, Unit::seconds)});
    report.meta.push_back({"loss_vs_measured_optimum", Cell(*predicted_measured / best_measured_s - 1, Unit::percent)});
    report.notes.push_back("measured: " + view.measured_source + " (" + std::to_string(measured_count) + " configurations)");
  } else {
    report.notes.push_back("no recorded sweep of " + view.kernel + " at n = " + std::to_string(view.n) + ": predicted ranking only");
  }
  Table t{"ranking", {}};
  for (std::size_t i = 0; i < ranked.size() && static_cast<int>(i) < view.top; ++i) {
    const TuneEntry& r = ranked[i];
    const GpuPrediction& p = r.prediction;
    Record row{{"rank", Cell(static_cast<std::int64_t>(i + 1))},
               {"config", Cell(r.config)},
               {"predicted_s", Cell(p.seconds, Unit::seconds)},
               {"bound", Cell(p.bound)},
               {"blocks_per_sm", Cell(p.longest_phase() ? p.longest_phase()->metrics.blocks_per_sm : 0.0)}};
    // Only beside a recorded sweep; a configuration the sweep did not run has no measured time.
    if (measured_count > 0) row.push_back({"measured_s", r.measured_s ? Cell(*r.measured_s, Unit::seconds) : Cell("not measured")});
    t.rows.push_back(row);
  }
  report.tables.push_back(t);
}

}  // namespace perfmodel::report
