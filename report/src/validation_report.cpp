#include "perfmodel/report/validation_report.hpp"

#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel::report {
namespace {

// Targets of the GPU predictor over the whole validation sweep (issue: median ≤ 10 %, p90 ≤ 20 %;
// tuner within 3 % of the measured optimum on average).
constexpr double kMedianTarget = 0.10, kP90Target = 0.20, kTunerTarget = 0.03;

std::string config_text(const KernelMeasurement& m) { return to_string(m.config, gpu_kernel_spec(m.kernel)); }

std::string predictions_csv(const ValidationAnalysis& a) {
  std::ostringstream o;
  o << "kernel,family,n,config,default_config,measured_s,spread,predicted_s,error,bound,launch_s,dram_s,l2_s,l1_s,issue_s,special_s,"
       "latency_s,blocks_per_sm,limited_by,waves,bytes_in_flight,measured_flop_per_s,measured_effective_Bps\n";
  for (const PointAnalysis& p : a.points) {
    const GpuPhasePrediction* main = p.prediction.longest_phase();
    o << p.measurement.kernel << ',' << gpu_kernel_spec(p.measurement.kernel).family << ',' << p.measurement.n << ','
      << config_text(p.measurement) << ',' << (p.default_config ? 1 : 0) << ',' << plot_number(p.measured_s) << ','
      << plot_number(p.spread) << ',' << plot_number(p.prediction.seconds) << ',' << plot_number(p.error) << ','
      << p.prediction.bound << ',' << plot_number(p.prediction.launch_s) << ',' << plot_number(p.prediction.dram_s) << ','
      << plot_number(p.prediction.l2_s) << ',' << plot_number(p.prediction.l1_s) << ',' << plot_number(p.prediction.issue_s) << ','
      << plot_number(p.prediction.special_s) << ',' << plot_number(p.prediction.chain_s) << ','
      << (main ? plot_number(main->metrics.blocks_per_sm) : "") << ',' << (main ? main->metrics.limited_by : "") << ','
      << (main ? plot_number(main->metrics.waves) : "") << ',' << (main ? plot_number(main->bytes_in_flight) : "") << ','
      << plot_number(p.flops / p.measured_s) << ',' << plot_number(p.algorithmic_bytes / p.measured_s) << "\n";
  }
  return o.str();
}

std::string plot_script(const ValidationRun& run, const ValidationAnalysis& a) {
  std::set<std::string> families;
  for (const PointAnalysis& p : a.points) families.insert(gpu_kernel_spec(p.measurement.kernel).family);
  std::ostringstream s;
  s << "# perfmodel validate — measured vs predicted kernel time, one point style per kernel family.\n"
       "# Data: predictions.csv (family = column 2, measured_s = 6, predicted_s = 8). Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#dddddd'\n"
       "set logscale xy 10\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
       "set xlabel 'measured time (s)'\nset ylabel 'predicted time (s)'\n"
       "set key top left font ',9' samplen 2\n"
       "set title "
    << gnuplot_text("GPU kernel time, " + run.provenance.device_name + ": median |error| " + pct(a.overall.median) + ", p90 " +
                     pct(a.overall.p90) + " (" + std::to_string(a.overall.count) + " runs)")
    << " font ',12'\n"
    << "plot x with lines lc rgb '#000000' dt 1 title 'predicted = measured', \\\n"
       "     1.2*x with lines lc rgb '#888888' dt 2 title '±20 %', 0.8*x with lines lc rgb '#888888' dt 2 notitle";
  int style = 0;
  for (const std::string& f : families) {
    s << ", \\\n     'predictions.csv' skip 1 using (strcol(2) eq " << gnuplot_quote(f) << " ? $6 : 1/0):8 with points pt " << (1 + style % 13)
      << " ps 0.8 lc rgb '#" << (style % 2 ? "555555" : "000000") << "' title " << gnuplot_quote(f);
    ++style;
  }
  s << "\n";
  return s.str();
}

std::string markdown(const ValidationRun& run, const ValidationAnalysis& a, const std::string& profile_path) {
  std::ostringstream o;
  const Provenance& p = run.provenance;
  o << "# GPU kernel-time validation: " << p.device_name << "\n\n"
    << "Measured " << p.date_utc << " on " << p.device_name << " (driver " << p.driver_version << ", runtime " << p.runtime_version
    << ", host " << p.host_name << "), toolkit " << p.toolkit_version << " (" << p.toolkit_commit << "), command `" << p.command
    << "`; " << run.measurements.size() << " runs in " << format_seconds(run.wall_s) << (run.quick ? " (quick)" : "") << ".\n"
    << "Predicted from `" << profile_path << "`. Each run: one warm-up (its result checked against the CPU reference before any "
    << "time was kept), then repetitions timed with CUDA events, L2 flushed before each; the measured time is their median.\n\n"
    << "## Error per kernel (|predicted / measured − 1|)\n\n"
    << "| kernel | runs | mean | median | p90 | max |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [kernel, s] : a.per_kernel)
    o << "| " << kernel << " | " << s.count << " | " << pct(s.mean) << " | " << pct(s.median) << " | " << pct(s.p90) << " | "
      << pct(s.max) << " |\n";
  o << "| **all** | " << a.overall.count << " | " << pct(a.overall.mean) << " | **" << pct(a.overall.median) << "** | **"
    << pct(a.overall.p90) << "** | " << pct(a.overall.max) << " |\n\n"
    << "Targets: median ≤ " << pct(kMedianTarget) << " (" << (a.overall.median <= kMedianTarget ? "met" : "NOT met") << "), p90 ≤ "
    << pct(kP90Target) << " (" << (a.overall.p90 <= kP90Target ? "met" : "NOT met") << ").\n\n"
    << "![measured vs predicted](validation.svg)\n\n";
  if (!a.tuner.empty()) {
    o << "## Launch configuration: predicted best vs measured optimum\n\n"
      << "| kernel | n | configs | measured best | predicted best | loss |\n|---|---:|---:|---|---|---:|\n";
    for (const TunerCheck& t : a.tuner) {
      const GpuKernelSpec& spec = gpu_kernel_spec(t.kernel);
      o << "| " << t.kernel << " | " << t.n << " | " << t.configs << " | " << to_string(t.measured_best, spec) << " ("
        << format_seconds(t.measured_best_s) << ") | " << to_string(t.predicted_best, spec) << " ("
        << format_seconds(t.predicted_best_measured_s) << " measured) | " << pct(t.loss) << " |\n";
    }
    o << "\nMean loss " << pct(a.tuner_mean_loss) << " (target ≤ " << pct(kTunerTarget) << ": "
      << (a.tuner_mean_loss <= kTunerTarget ? "met" : "NOT met") << ").\n\n";
  }
  if (!a.missing_resources.empty()) {
    o << "Resources estimated (not in resources.csv) for:";
    for (const std::string& m : a.missing_resources) o << " " << m;
    o << "\n\n";
  }
  o << "Per-run predictions, their parts and the measured spread: `predictions.csv`.\n";
  return o.str();
}

}  // namespace

std::string pct(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * v << " %";
  return o.str();
}

Table error_table(const ValidationAnalysis& a) {
  Table t{"errors", {}};
  auto row = [&](const std::string& name, const ErrorStats& s) {
    t.rows.push_back({{"kernel", Cell(name)},
                      {"runs", Cell(static_cast<std::int64_t>(s.count))},
                      {"mean", Cell(s.mean, Unit::percent)},
                      {"median", Cell(s.median, Unit::percent)},
                      {"p90", Cell(s.p90, Unit::percent)},
                      {"max", Cell(s.max, Unit::percent)}});
  };
  for (const auto& [kernel, s] : a.per_kernel) row(kernel, s);
  row("all", a.overall);
  return t;
}

std::string write_validation_outputs(const std::string& dir, const ValidationRun& run, const ValidationAnalysis& analysis,
                                     const std::string& profile_path) {
  StagedDirectory stage(dir, "--out");
  write_file_atomically(stage.path() + "/predictions.csv", predictions_csv(analysis));
  write_file_atomically(stage.path() + "/report.md", markdown(run, analysis, profile_path));
  write_file_atomically(stage.path() + "/validation.gp", plot_script(run, analysis));
  std::string note;
  try {  // the numbers stand without the picture (GPU machines often lack gnuplot)
    render_gnuplot(stage.path(), "validation", PlotSize{900, 750});
  } catch (const RuntimeFailure& e) {
    note = std::string("plot not drawn: ") + e.what();
  }
  stage.publish();
  return note;
}

void add_validation_summary(Report& report, const ValidationRun& run, const ValidationAnalysis& analysis, const std::string& out_dir,
                            const std::string& plot_note, const std::vector<std::string>& failures) {
  report.meta.push_back({"prediction_of", Cell("one launch of each reference kernel timed with CUDA events around it, right after an L2 flush")});
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"points", Cell(static_cast<std::int64_t>(analysis.points.size()))});
  report.meta.push_back({"validation_wall_s", Cell(run.wall_s, Unit::seconds)});
  report.tables.push_back(error_table(analysis));
  report.notes.push_back("wrote " + out_dir + "/{measurements.csv,resources.csv,predictions.csv,report.md,validation.gp}" +
                         (plot_note.empty() ? " and validation.{svg,png}" : ""));
  if (!plot_note.empty()) report.notes.push_back(plot_note);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
}

}  // namespace perfmodel::report
