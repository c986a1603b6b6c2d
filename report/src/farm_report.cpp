// The task farm's outputs (perfmodel/report/farm_report.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/report/farm_report.hpp"
#include "perfmodel/report/gnuplot.hpp"

namespace perfmodel::report {

const char* const kFarmPredictionOf =
    "the whole stream of L tasks (copy in, kernel, copy out per task), CUDA events on the default stream around the loop "
    "that issues it";

namespace {

// A gnuplot single-quoted string (as the farm plot has always quoted: newlines as spaces).
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "'";
}

Record pipeline_meta(const FarmPredictor& p) {
  const FarmPipeline& f = p.pipeline();
  return {{"bytes_in_per_task", Cell(p.bytes_in(), Unit::bytes)},
          {"bytes_out_per_task", Cell(p.bytes_out(), Unit::bytes)},
          {"h2d_s", Cell(f.h2d_s, Unit::seconds)},
          {"d2h_s", Cell(f.d2h_s, Unit::seconds)},
          {"kernel_s", Cell(f.kernel_s, Unit::seconds)},
          {"full_gpu_kernel_s", Cell(f.full_gpu_s, Unit::seconds)},
          {"issue_s", Cell(f.issue_s, Unit::seconds)},
          {"serial_gap_s", Cell(f.serial_gap_s, Unit::seconds)},
          {"serial_kernel_wait_s", Cell(f.kernel_wait_s, Unit::seconds)},
          {"stream_chain_extra_s", Cell(f.chain_s, Unit::seconds)},
          {"kernel_slots", Cell(f.kernel_slots)},
          {"work_queues", f.queues > 0 ? Cell(f.queues) : Cell(nullptr)},
          {"copy_link_factor", Cell(f.link_factor)},
          {"serial_s", Cell(p.serial_s(), Unit::seconds)},
          {"data_parallel_s", Cell(p.data_parallel_s(), Unit::seconds)},
          {"sm_bound_speedup", Cell(p.sm_bound())}};
}

Record prediction_row(const FarmPrediction& f) {
  return {{"streams", Cell(static_cast<std::int64_t>(f.streams))},
          {"predicted_s", Cell(f.completion_s, Unit::seconds)},
          {"service_s", Cell(f.service_s, Unit::seconds)},
          {"bound", Cell(f.bound)},
          {"speedup_vs_serial", Cell(f.speedup_vs_serial)},
          {"speedup_vs_data_parallel", Cell(f.speedup_vs_data_parallel)}};
}

}  // namespace

void add_farm_prediction(Report& report, const FarmPredictionView& view) {
  const FarmSetup& setup = view.setup;
  report.meta.push_back({"prediction_of", Cell(kFarmPredictionOf)});
  report.meta.push_back({"task", Cell(setup.label())});
  report.meta.push_back({"tasks", Cell(static_cast<std::int64_t>(setup.tasks))});
  report.meta.push_back({"memory", Cell(to_string(setup.memory))});
  for (auto& cell : pipeline_meta(view.predictor)) report.meta.push_back(cell);
  Table table{"streams", {}};
  for (const FarmPrediction& f : view.rows) table.rows.push_back(prediction_row(f));
  if (view.best) {
    report.meta.push_back({"best_streams", Cell(static_cast<std::int64_t>(view.best->streams))});
    report.meta.push_back({"best_predicted_s", Cell(view.best->completion_s, Unit::seconds)});
  }
  report.tables.push_back(std::move(table));
  if (view.streams && *view.streams > setup.tasks)
    report.notes.push_back("S = " + std::to_string(*view.streams) + " > L = " + std::to_string(setup.tasks) +
                           ": streams beyond the L-th receive no task, so this is the time of S = L");
  if (setup.memory == HostMemory::pageable)
    report.notes.push_back("pageable host memory: each copy returns only once staged or done, so the host issues a task after the "
                           "previous one's copy-out and every S runs as the serial loop with pageable copies");
  for (const std::string& a : view.predictor.assumptions()) report.notes.push_back("assumed: " + a);
}

FarmPlotOutputs write_farm_plot(const std::string& dir, const Profile& profile, const FarmRun* run) {
  std::vector<FarmCase> cases;
  std::optional<int> connections;
  if (run) {
    if (!run->cuda_device_max_connections.empty()) connections = std::atoi(run->cuda_device_max_connections.c_str());
    for (const FarmMeasurement& m : run->measurements) {
      const bool seen = std::any_of(cases.begin(), cases.end(), [&](const FarmCase& c) {
        return c.tasks == m.tasks && c.task.app == m.task.app && c.task.size == m.task.size && c.task.iterations == m.task.iterations;
      });
      if (!seen) cases.push_back({m.task, m.tasks});
    }
  } else {
    cases = farm_cases(false);
  }
  const GpuCalibration& gpu = profile.require_gpu();
  const int sms = static_cast<int>(gpu.device.multiprocessors);
  make_directory(dir);
  std::ostringstream predicted, measured, summary;
  predicted << "case,streams,predicted_s,predicted_speedup\n";
  measured << "case,streams,measured_s,measured_speedup\n";
  summary << "case,label,serial_s,data_parallel_s,sm_bound,best_streams\n";
  FarmPlotOutputs outputs{{"cases", {}}, ""};
  Table& rows = outputs.cases;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const FarmCase& c = cases[i];
    const FarmSetup setup = FarmSetup::built_in(c.task, c.tasks, HostMemory::pinned, connections, run ? run->resource_table() : ResourceTable{});
    const FarmPredictor p(profile, setup);
    std::vector<int> curve;
    for (int s = 1; s <= 2 * sms; s = s < 8 ? s + 1 : static_cast<int>(std::ceil(s * 1.15))) curve.push_back(s);
    curve.push_back(2 * sms);
    for (int s : curve) {
      const FarmPrediction f = p.predict(s);
      predicted << i << ',' << s << ',' << plot_number(f.completion_s) << ',' << plot_number(f.speedup_vs_serial) << '\n';
    }
    const int best = p.best_streams(farm_stream_sweep(sms));
    double serial_measured = 0;
    if (run) {
      std::map<int, double> by_s;
      for (const FarmMeasurement& m : run->measurements)
        if (m.task.app == c.task.app && m.task.size == c.task.size && m.task.iterations == c.task.iterations && m.tasks == c.tasks &&
            m.memory == HostMemory::pinned && m.mode != FarmMode::data_parallel)
          by_s[m.mode == FarmMode::serial ? 0 : m.streams] = m.summary().median;
      if (by_s.count(0)) serial_measured = by_s[0];
      for (const auto& [s, t] : by_s)
        if (s > 0) measured << i << ',' << s << ',' << plot_number(t) << ',' << (serial_measured > 0 ? plot_number(serial_measured / t) : "") << '\n';
    }
    summary << i << ',' << '"' << c.task.label() << ", L=" << c.tasks << '"' << ',' << plot_number(p.serial_s()) << ','
            << plot_number(p.data_parallel_s()) << ',' << sms << ',' << best << '\n';
    rows.rows.push_back({{"case", Cell(c.task.label() + ", L=" + std::to_string(c.tasks))},
                         {"serial_predicted_s", Cell(p.serial_s(), Unit::seconds)},
                         {"serial_measured_s", serial_measured > 0 ? Cell(serial_measured, Unit::seconds) : Cell(nullptr)},
                         {"data_parallel_predicted_s", Cell(p.data_parallel_s(), Unit::seconds)},
                         {"best_streams", Cell(static_cast<std::int64_t>(best))},
                         {"bound_at_best", Cell(p.predict(best).bound)}});
  }
  write_file_atomically(dir + "/farm_predicted.csv", predicted.str());
  write_file_atomically(dir + "/farm_measured.csv", measured.str());
  write_file_atomically(dir + "/farm_cases.csv", summary.str());

  // One row per case: completion time (left) and speedup with the #SM bound (right).
  std::ostringstream gp;
  gp << "# perfmodel plot farm — completion time and speedup over S = 0 against CUDA streams, per case.\n"
        "# Data: farm_predicted.csv (curves), farm_measured.csv (points), farm_cases.csv. Restyle freely.\n"
        "set datafile separator ','\nset grid lc rgb '#e5e5e5'\nset logscale x 2\nset key top right font ',7' samplen 2\n"
        "set xlabel 'CUDA streams S' font ',8'\n"
     << "set multiplot layout " << cases.size() << ",2 title "
     << quoted("Task farm on " + profile.provenance.device_name + (run ? " (measured " + run->provenance.date_utc + ")" : ""))
     << " font ',11'\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const FarmCase& c = cases[i];
    const FarmPredictor p(profile, FarmSetup::built_in(c.task, c.tasks, HostMemory::pinned, connections, run ? run->resource_table() : ResourceTable{}));
    const std::string title = c.task.label() + ", L=" + std::to_string(c.tasks);
    gp << "set title " << quoted(title) << " font ',8'\nset logscale y 10\nset ylabel 'completion time (s)' font ',8'\n"
       << "plot 'farm_predicted.csv' every ::1 using ($1==" << i << "?$2:1/0):3 with lines lw 2 lc rgb '#1f77b4' title 'predicted', \\\n"
       << "     'farm_measured.csv' every ::1 using ($1==" << i << "?$2:1/0):3 with points pt 7 ps 0.6 lc rgb '#d62728' title 'measured', \\\n"
       << "     " << plot_number(p.data_parallel_s()) << " with lines dt 2 lc rgb '#2ca02c' title 'data-parallel (predicted)'\n"
       << "set ylabel 'speedup over S = 0' font ',8'\n"
       << "plot 'farm_predicted.csv' every ::1 using ($1==" << i << "?$2:1/0):4 with lines lw 2 lc rgb '#1f77b4' title 'predicted', \\\n"
       << "     'farm_measured.csv' every ::1 using ($1==" << i << "?$2:1/0):4 with points pt 7 ps 0.6 lc rgb '#d62728' title 'measured', \\\n"
       << "     " << sms << " with lines dt 3 lc rgb '#555555' title '#SM bound (Eq 5.9)'\n";
  }
  gp << "unset multiplot\n";
  write_file_atomically(dir + "/farm.gp", gp.str());
  try {  // the numbers stand without the picture
    render_gnuplot(dir, "farm", PlotSize{900, static_cast<int>(220 * std::max<std::size_t>(1, cases.size()))});
  } catch (const RuntimeFailure& e) {
    outputs.not_drawn = e.what();
  }
  return outputs;
}

void add_farm_plot(Report& report, const FarmPlotOutputs& outputs, const std::string& dir) {
  report.meta.push_back({"prediction_of", Cell(kFarmPredictionOf)});
  report.tables.push_back(outputs.cases);
  std::string note = "wrote " + dir + "/{farm_predicted.csv,farm_measured.csv,farm_cases.csv,farm.gp}";
  if (outputs.not_drawn.empty()) note += " and farm.{svg,png}";
  else report.notes.push_back("plot not drawn: " + outputs.not_drawn);
  report.notes.push_back(note);
}

void add_farm_validation(Report& report, const FarmRun& run, const FarmAnalysis& analysis, const std::string& out_dir,
                         bool from_recorded, const std::vector<std::string>& failures) {
  report.meta.push_back({"prediction_of", Cell("the whole stream of tasks, CUDA events on the default stream around the loop that issues it")});
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"cuda_device_max_connections",
                         run.cuda_device_max_connections.empty() ? Cell(nullptr) : Cell(run.cuda_device_max_connections)});
  report.meta.push_back({"points", Cell(static_cast<std::int64_t>(analysis.points.size()))});
  report.meta.push_back({"farm_wall_s", Cell(run.wall_s, Unit::seconds)});
  Table errors{"errors", {}};
  const auto row = [&](const std::string& name, const ErrorStats& s) {
    errors.rows.push_back({{"application", Cell(name)},
                           {"points", Cell(static_cast<std::int64_t>(s.count))},
                           {"mean", Cell(s.mean, Unit::percent)},
                           {"median", Cell(s.median, Unit::percent)},
                           {"p90", Cell(s.p90, Unit::percent)},
                           {"max", Cell(s.max, Unit::percent)}});
  };
  for (const auto& [app, s] : analysis.per_app) row(app, s);
  row("all", analysis.overall);
  report.tables.push_back(errors);
  Table best{"best_streams", {}};
  for (const FarmBestCheck& b : analysis.best)
    best.rows.push_back({{"case", Cell(b.label)},
                         {"measured_best_streams", Cell(static_cast<std::int64_t>(b.measured_best))},
                         {"measured_best_s", Cell(b.measured_best_s, Unit::seconds)},
                         {"predicted_best_streams", Cell(static_cast<std::int64_t>(b.predicted_best))},
                         {"predicted_best_measured_s", Cell(b.predicted_best_measured_s, Unit::seconds)},
                         {"loss", Cell(b.loss, Unit::percent)},
                         {"within_5_percent", Cell(b.within_5_percent)},
                         {"bound", Cell(b.bound_at_best)}});
  report.tables.push_back(best);
  report.notes.push_back("wrote " + out_dir + "/{" + (from_recorded ? "" : "farm_measurements.csv,farm_resources.csv,") +
                         "farm_predictions.csv,report.md}");
  for (const std::string& a : analysis.assumptions) report.notes.push_back("assumed: " + a);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
}

}  // namespace perfmodel::report
