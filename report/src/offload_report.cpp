// The offload advisor's outputs (perfmodel/report/offload_report.hpp).
#include <sstream>

#include "perfmodel/model/units.hpp"
#include "perfmodel/report/offload_report.hpp"

namespace perfmodel::report {
namespace {

void add_offload_sides(Report& report, const OffloadSides& p, bool cpu_used) {
  const Provenance &gpu = p.gpu.profile->provenance, &cpu = p.cpu.profile->provenance;
  // The common header (docs/output.md): the profile is the GPU side's; bundled only when every side used is.
  report.meta.push_back({"profile", Cell(p.gpu.path)});
  report.meta.push_back({"profile_source", Cell(p.gpu.bundled && (!cpu_used || p.cpu.bundled) ? "bundled" : "user")});
  report.meta.push_back({"gpu_profile", Cell(p.gpu.path)});
  report.meta.push_back({"device", Cell(gpu.device_name)});
  report.meta.push_back({"gpu_host", Cell(gpu.host_name + " (" + gpu.host_cpu + ")")});
  if (cpu_used) {
    report.meta.push_back({"cpu_profile", Cell(p.cpu.path)});
    report.meta.push_back({"host_cpu", Cell(cpu.host_cpu)});
    report.meta.push_back({"cpu_host", Cell(cpu.host_name)});
    if (p.cpu.path != p.gpu.path && (cpu.host_name != gpu.host_name || cpu.host_cpu != gpu.host_cpu))
      report.notes.push_back("warning: the CPU profile (host " + cpu.host_name + ", " + cpu.host_cpu + ") and the GPU profile (host " + gpu.host_name + ", " +
                             gpu.host_cpu + ") come from different hosts: the CPU time is the first host's, the copies and kernels the second's");
  }
  report.notes.push_back("GPU side: " + p.gpu.note);
  if (cpu_used && p.cpu.path != p.gpu.path) report.notes.push_back("CPU side: " + p.cpu.note);
}

Cell opt(const std::optional<double>& v, Unit u = Unit::none) { return v ? Cell(*v, u) : Cell(nullptr); }

Record decision_record(const OffloadDecision& d) {
  return {{"cpu_s", Cell(d.terms.cpu_s, Unit::seconds)},
          {"gpu_kernels_s", Cell(d.terms.kernels_s, Unit::seconds)},
          {"h2d_s", Cell(d.terms.h2d_s, Unit::seconds)},
          {"d2h_s", Cell(d.terms.d2h_s, Unit::seconds)},
          {"gpu_s", Cell(d.terms.gpu_s(), Unit::seconds)},
          {"speedup", Cell(d.speedup)},
          {"speedup_low", Cell(d.speedup_low)},
          {"speedup_high", opt(d.speedup_high)},
          {"decision", Cell(d.decision)},
          {"firm", Cell(d.firm)},
          {"dominant", Cell(d.dominant)},
          {"reason", Cell(d.reason)}};
}

std::string decision_note(const OffloadDecision& d) {
  return "decision: " + std::string(d.decision == "gpu" ? "offload to the GPU" : "keep on the CPU") + " (speedup " + format_number(d.speedup) +
         ", " + (d.firm ? "firm" : "within the models' error: a close call") + "): " + d.reason;
}

Table offload_error_table(const OffloadErrorLevels& e) {
  return {"error_levels",
          {{{"term", Cell("cpu")}, {"relative_error", Cell(e.cpu, Unit::percent)}, {"source", Cell(e.cpu_source)}},
           {{"term", Cell("gpu_kernels")}, {"relative_error", Cell(e.gpu, Unit::percent)}, {"source", Cell(e.gpu_source)}},
           {{"term", Cell("copies")}, {"relative_error", Cell(e.copies, Unit::percent)}, {"source", Cell(e.copies_source)}}}};
}

Table overlap_table(const OverlapResult& o) {
  return {"overlap",
          {{{"possible", Cell(o.possible)},
            {"copy_engines", o.possible ? Cell(o.copy_engines) : Cell(nullptr)},
            {"chunks", o.possible ? Cell(static_cast<std::int64_t>(o.chunks)) : Cell(nullptr)},
            {"serial_s", Cell(o.serial_s, Unit::seconds)},
            {"overlapped_s", o.possible ? Cell(o.overlapped_s, Unit::seconds) : Cell(nullptr)},
            {"note", Cell(o.possible ? "copies in chunks on pinned memory (cudaMemcpyAsync), each chunk's kernel behind its copy; not measured" : o.why_not)}}}};
}

Table split_table(const SplitResult& s) {
  return {"split",
          {{{"possible", Cell(s.possible)},
            {"cpu_fraction", s.possible ? Cell(s.cpu_fraction, Unit::ratio) : Cell(nullptr)},
            {"split_s", s.possible ? Cell(s.split_s, Unit::seconds) : Cell(nullptr)},
            {"best_alone_s", s.possible ? Cell(s.best_alone_s, Unit::seconds) : Cell(nullptr)},
            {"saved_s", s.possible ? Cell(s.saved_s, Unit::seconds) : Cell(nullptr)},
            {"saved_fraction", s.possible ? Cell(s.saved_fraction, Unit::ratio) : Cell(nullptr)},
            {"note", Cell(s.possible ? "f of the rows on the CPU while the GPU does the rest (its copies included), concurrently; not measured"
                                     : s.why_not)}}}};
}

Table crossover_table(const CrossoverResult& cross) {
  Table ct{"crossover", {}};
  if (cross.crossings.empty())
    ct.rows.push_back({{"crossover_n", Cell(nullptr)}, {"wins_above", Cell(nullptr)}, {"from_n", Cell(cross.from_n)}, {"to_n", Cell(cross.to_n)},
                       {"verdict", Cell(cross.verdict)}});
  for (const Crossing& c : cross.crossings)
    ct.rows.push_back({{"crossover_n", Cell(c.n)}, {"wins_above", Cell(c.wins_above)}, {"from_n", Cell(cross.from_n)}, {"to_n", Cell(cross.to_n)},
                       {"verdict", Cell(cross.verdict)}});
  return ct;
}

}  // namespace

Report offload_builtin_report(const BuiltinOffloadView& view) {
  const std::string& kernel = view.kernel;
  Report report;
  report.meta.push_back({"prediction_of", Cell("one offloaded " + kernel + ": the host's clock around the copies in, the " + view.gpu_kernel +
                                               " kernels and the copies out (blocking cudaMemcpy, " + to_string(view.memory) +
                                               " memory), against the CPU reference kernel")});
  report.meta.push_back({"kernel", Cell(kernel)});
  report.meta.push_back({"gpu_kernel", Cell(view.gpu_kernel)});
  if (kernel == "cg") report.meta.push_back({"iterations", Cell(static_cast<std::int64_t>(view.iterations))});
  add_offload_sides(report, view.sides, true);
  const Table ct = crossover_table(view.crossover);
  if (view.at_n) {
    const BuiltinOffloadAtN& a = *view.at_n;
    const BuiltinOffload& o = a.offload;
    report.meta.push_back({"n", Cell(a.n)});
    report.meta.push_back({"cpu_threads", Cell(o.cpu.threads)});
    if (o.cpu.outside_fitted_sizes)
      report.notes.push_back("warning: the CPU working set lies outside the sizes the CPU model of " + kernel +
                             " was fitted on: its efficiency is held at the nearest fitted size (an extrapolation)");
    if (o.cpu.extrapolated_threads) report.notes.push_back("warning: more CPU threads than the calibration measured");
    Record r = {{"n", Cell(a.n)}};
    for (auto& c : decision_record(a.decision)) r.push_back(c);
    report.tables.push_back({"offload", {r}});
    Table parts{"gpu_kernels", {}};
    for (const auto& [name, s] : o.kernel_phases_s) parts.rows.push_back({{"phase_kernel", Cell(name)}, {"predicted_s", Cell(s, Unit::seconds)}});
    parts.rows.push_back({{"phase_kernel", Cell("(bound: " + o.gpu_bound + ")")}, {"predicted_s", Cell(o.terms.kernels_s, Unit::seconds)}});
    report.tables.push_back(parts);
    Table mem{"host_memory", {}};
    for (const BuiltinOffloadAtN::MemoryRow& m : a.memories) {
      if (m.terms) {
        const OffloadTerms& x = *m.terms;
        mem.rows.push_back({{"memory", Cell(to_string(m.memory))}, {"copies_s", Cell(x.h2d_s + x.d2h_s, Unit::seconds)},
                            {"gpu_s", Cell(x.gpu_s(), Unit::seconds)}, {"speedup", Cell(x.cpu_s / x.gpu_s())}});
      } else {
        mem.rows.push_back({{"memory", Cell(to_string(m.memory))}, {"copies_s", Cell(nullptr)}, {"gpu_s", Cell(nullptr)}, {"speedup", Cell(nullptr)}});
        report.notes.push_back(std::string(to_string(m.memory)) + ": " + m.error);
      }
    }
    report.tables.push_back(mem);
    report.tables.push_back(offload_error_table(a.errors));
    report.tables.push_back(ct);
    if (a.reuse) {
      const ReuseResult& reuse = *a.reuse;
      report.tables.push_back({"reuse",
                               {{{"break_even_iterations", opt(reuse.break_even_iterations)},
                                 {"cpu_fixed_s", Cell(reuse.cpu_fixed_s, Unit::seconds)},
                                 {"cpu_per_iteration_s", Cell(reuse.cpu_per_iteration_s, Unit::seconds)},
                                 {"gpu_fixed_s", Cell(reuse.gpu_fixed_s, Unit::seconds)},
                                 {"gpu_per_iteration_s", Cell(reuse.gpu_per_iteration_s, Unit::seconds)},
                                 {"verdict", Cell(reuse.verdict)}}}});
    }
    report.tables.push_back(overlap_table(a.overlap));
    report.tables.push_back(split_table(a.split));
    report.notes.push_back(decision_note(a.decision));
  } else {
    report.tables.push_back(ct);
  }
  report.notes.push_back("sizes: " + view.crossover.verdict);
  if (view.sweep) {
    Table sw{"sweep", {}};
    for (const auto& [n, t] : *view.sweep) {
      const double s = t.cpu_s / t.gpu_s();
      sw.rows.push_back({{"n", Cell(n)}, {"cpu_s", Cell(t.cpu_s, Unit::seconds)}, {"gpu_kernels_s", Cell(t.kernels_s, Unit::seconds)},
                         {"copies_s", Cell(t.h2d_s + t.d2h_s, Unit::seconds)}, {"gpu_s", Cell(t.gpu_s(), Unit::seconds)},
                         {"speedup", Cell(s)}, {"decision", Cell(s > 1 ? "gpu" : "cpu")}});
    }
    report.tables.push_back(sw);
  }
  return report;
}

Report offload_workload_report(const WorkloadOffloadView& view) {
  Report report;
  report.meta.push_back({"prediction_of", Cell("the workload " + view.workload_name +
                                               " offloaded: its transfers (blocking copies) around its kernels, against its CPU side (" +
                                               view.cpu.model + ")")});
  report.meta.push_back({"workload", Cell(view.path)});
  report.meta.push_back({"cpu_threads", view.cpu.threads > 0 ? Cell(view.cpu.threads) : Cell(nullptr)});
  add_offload_sides(report, view.sides, view.cpu_profile_used);
  report.tables.push_back({"offload", {decision_record(view.decision)}});
  Table parts{"gpu_kernels", {}};
  for (const GpuPhasePrediction& ph : view.gpu.phases)
    parts.rows.push_back({{"phase_kernel", Cell(ph.name)}, {"predicted_s", Cell(ph.seconds, Unit::seconds)}, {"bound", Cell(ph.bound)}});
  report.tables.push_back(parts);
  report.tables.push_back(offload_error_table(view.errors));
  if (view.overlap) report.tables.push_back(overlap_table(*view.overlap));
  if (view.split) report.tables.push_back(split_table(*view.split));
  if (!view.overlap && !view.split)
    report.notes.push_back("overlap and split: not evaluated (the `cpu:` section does not say `splittable: true`)");
  report.notes.push_back("sizes: a workload file describes one size; a crossover over n needs a workload written in n");
  report.notes.push_back(decision_note(view.decision));
  return report;
}

void add_offload_validation(Report& report, const OffloadRun& run, const OffloadAnalysis& a, const std::string& out_dir,
                            const std::vector<std::string>& failures) {
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"cpu_threads", Cell(static_cast<std::int64_t>(run.cpu_threads))});
  report.meta.push_back({"validation_wall_s", Cell(run.wall_s, Unit::seconds)});
  Table t{"offload_validation", {}};
  for (const auto& [name, s] : {std::pair<std::string, OffloadAnalysis::Summary>{"all threads", a.all_threads}, {"one thread", a.one_thread}})
    t.rows.push_back({{"cpu_side", Cell(name)},
                      {"comparisons", Cell(static_cast<std::int64_t>(s.cases))},
                      {"within_5_percent", Cell(static_cast<std::int64_t>(s.close))},
                      {"decisions", Cell(static_cast<std::int64_t>(s.decided))},
                      {"decision_accuracy", s.decided ? Cell(s.accuracy, Unit::percent) : Cell(nullptr)},
                      {"speedup_error_median", s.cases ? Cell(s.speedup_median, Unit::percent) : Cell(nullptr)},
                      {"speedup_error_p90", s.cases ? Cell(s.speedup_p90, Unit::percent) : Cell(nullptr)},
                      {"crossovers_within_25_percent", Cell(static_cast<std::int64_t>(s.crossovers_within_25))},
                      {"crossovers_compared", Cell(static_cast<std::int64_t>(s.crossovers_compared))},
                      {"crossovers_within_25_percent_or_measured_interval", Cell(static_cast<std::int64_t>(s.crossovers_within_25_or_noise))},
                      {"inside_interval_fraction",
                       s.with_interval ? Cell(static_cast<double>(s.inside_interval) / s.with_interval, Unit::percent) : Cell(nullptr)}});
  report.tables.push_back(t);
  Table c{"crossovers", {}};
  for (const OffloadCrossoverCheck& x : a.crossovers)
    if (x.threads == run.cpu_threads)
      c.rows.push_back({{"case", Cell(x.c.label())}, {"memory", Cell(x.memory)}, {"measured_crossover_n", opt(x.measured_n)},
                        {"measured_crossover_low_n", opt(x.measured_low_n)}, {"measured_crossover_high_n", opt(x.measured_high_n)},
                        {"predicted_crossover_n", opt(x.predicted_n)}, {"relative_error", opt(x.error, Unit::percent)}});
  report.tables.push_back(c);
  report.notes.push_back("wrote " + out_dir + "/{offload_plan.csv,offload_measurements.csv,offload_predictions.csv,offload_crossovers.csv,report.md}");
  for (const std::string& n : run.notes) report.notes.push_back(n);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
}

}  // namespace perfmodel::report
