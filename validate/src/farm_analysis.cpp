// The farm predictor against a recorded farm run: errors per application and per stream count,
// the best-S check, and the report. Pure C++: CI recomputes it from the recorded run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel {
namespace {

std::string case_label(const FarmTask& task, int tasks) { return task.label() + ", L=" + std::to_string(tasks); }

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f %%", 100 * v);
  return b;
}
std::string pct_abs(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * v);
  return b;
}
std::string num(double v, const char* fmt = "%.3g") {
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

}  // namespace

FarmAnalysis analyse_farm(const FarmRun& run, const Profile& profile) {
  FarmAnalysis a;
  std::optional<int> connections;
  if (!run.cuda_device_max_connections.empty()) {
    try {
      connections = std::stoi(run.cuda_device_max_connections);
    } catch (const std::exception&) {
      throw InputError("the recorded run's cuda_device_max_connections '" + run.cuda_device_max_connections + "' is not a number");
    }
  }
  const ResourceTable resources = run.resource_table();
  std::map<std::string, std::unique_ptr<FarmPredictor>> predictors;  // by case and host memory
  const auto predictor_for = [&](const FarmMeasurement& m) -> const FarmPredictor& {
    const std::string key = case_label(m.task, m.tasks) + "/" + to_string(m.memory);
    auto& p = predictors[key];
    if (!p) p = std::make_unique<FarmPredictor>(profile, FarmSetup::built_in(m.task, m.tasks, m.memory, connections, resources));
    return *p;
  };
  std::set<std::string> assumptions;
  std::map<std::string, std::vector<double>> by_app, by_config;
  std::vector<double> all;
  for (const FarmMeasurement& m : run.measurements) {
    const FarmPredictor& predictor = predictor_for(m);
    for (const std::string& s : predictor.assumptions())
      if (assumptions.insert(s).second) a.assumptions.push_back(s);
    a.queues_used = static_cast<int>(predictor.pipeline().queues);
    FarmPointAnalysis p;
    p.measurement = m;
    const SampleSummary s = m.summary();
    p.measured_s = s.median;
    p.spread = s.median > 0 ? (s.p90 - s.p10) / s.median : 0;
    if (m.mode == FarmMode::data_parallel) {
      p.prediction.completion_s = predictor.data_parallel_s();
      p.prediction.service_s = p.prediction.completion_s / m.tasks;
      p.prediction.bound = "data-parallel (one launch)";
      p.prediction.memory = m.memory;
      p.prediction.speedup_vs_serial = predictor.serial_s() / p.prediction.completion_s;
      p.prediction.speedup_vs_data_parallel = 1;
    } else {
      p.prediction = predictor.predict(m.mode == FarmMode::serial ? 0 : m.streams);
    }
    p.error = p.prediction.completion_s / p.measured_s - 1;
    // The issuing loop is the API calls alone only for stream configurations in pinned memory
    // (the serial loop and pageable copies wait in it; the data-parallel version is one launch).
    if (!m.issue_seconds.empty() && m.mode == FarmMode::streams && m.memory == HostMemory::pinned)
      p.host_issue_per_task_s = summarize(m.issue_seconds).median / m.tasks;
    by_app[to_string(m.task.app)].push_back(std::abs(p.error));
    by_config[m.config_label()].push_back(std::abs(p.error));
    all.push_back(std::abs(p.error));
    a.points.push_back(std::move(p));
  }
  for (const auto& [k, v] : by_app) a.per_app[k] = error_stats(v);
  for (const auto& [k, v] : by_config) a.per_config[k] = error_stats(v);
  a.overall = error_stats(all);

  // The host's issue cost: per case, the median of its pinned stream configurations' issue loops,
  // and those configurations predicted again with it in place of the profile's.
  {
    std::map<std::string, std::vector<const FarmPointAnalysis*>> streams_points;
    std::vector<std::string> cases_in_order;
    for (const FarmPointAnalysis& p : a.points) {
      const FarmMeasurement& m = p.measurement;
      if (m.mode != FarmMode::streams || m.memory != HostMemory::pinned || !(p.host_issue_per_task_s > 0)) continue;
      const std::string label = case_label(m.task, m.tasks);
      if (!streams_points.count(label)) cases_in_order.push_back(label);
      streams_points[label].push_back(&p);
    }
    std::vector<double> from_profile, with_run;
    for (const std::string& label : cases_in_order) {
      const auto& points = streams_points[label];
      std::vector<double> per_task;
      for (const FarmPointAnalysis* p : points) per_task.push_back(p->host_issue_per_task_s);
      const SampleSummary h = summarize(per_task);
      const FarmMeasurement& m0 = points.front()->measurement;
      FarmHostIssue hi;
      hi.label = label;
      hi.profile_s = predictor_for(m0).pipeline().issue_s;
      hi.run_s = h.median;
      hi.run_min_s = h.min;
      hi.run_max_s = h.max;
      a.host_issue.push_back(hi);
      FarmSetup setup = FarmSetup::built_in(m0.task, m0.tasks, m0.memory, connections, resources);
      setup.issue_s = h.median;
      const FarmPredictor own(profile, setup);
      for (const FarmPointAnalysis* p : points) {
        from_profile.push_back(std::abs(p->error));
        with_run.push_back(std::abs(own.predict(p->measurement.streams).completion_s / p->measured_s - 1));
      }
    }
    if (!from_profile.empty()) a.streams_from_profile = error_stats(from_profile), a.streams_with_run_issue = error_stats(with_run);
  }

  // Best S per case, over the pinned stream counts run (S = 0 included).
  std::map<std::string, std::vector<const FarmPointAnalysis*>> cases;
  std::vector<std::string> order;
  for (const FarmPointAnalysis& p : a.points) {
    const FarmMeasurement& m = p.measurement;
    if (m.memory != HostMemory::pinned || m.mode == FarmMode::data_parallel) continue;
    const std::string label = case_label(m.task, m.tasks);
    if (!cases.count(label)) order.push_back(label);
    cases[label].push_back(&p);
  }
  const double sms = run.device.multiprocessors;
  for (const std::string& label : order) {
    const auto& points = cases[label];
    FarmBestCheck b;
    b.label = label;
    const FarmPointAnalysis* best = nullptr;
    std::vector<int> candidates;
    std::map<int, const FarmPointAnalysis*> by_s;
    for (const FarmPointAnalysis* p : points) {
      const int s = p->measurement.mode == FarmMode::serial ? 0 : p->measurement.streams;
      candidates.push_back(s);
      by_s[s] = p;
      if (!best || p->measured_s < best->measured_s) best = p;
    }
    b.measured_best = best->measurement.mode == FarmMode::serial ? 0 : best->measurement.streams;
    b.measured_best_s = best->measured_s;
    const FarmPredictor& predictor = predictor_for(best->measurement);
    b.predicted_best = predictor.best_streams(candidates);
    b.predicted_best_measured_s = by_s.at(b.predicted_best)->measured_s;
    b.loss = b.predicted_best_measured_s / b.measured_best_s - 1;
    b.within_5_percent = b.loss <= 0.05;
    b.bound_at_best = by_s.at(b.predicted_best)->prediction.bound;
    double predicted_min = 0;
    for (const auto& [s, p] : by_s)
      if (predicted_min == 0 || p->prediction.completion_s < predicted_min) predicted_min = p->prediction.completion_s;
    b.measured_saturation = b.predicted_saturation = -1;
    for (const auto& [s, p] : by_s) {  // ascending S
      if (b.measured_saturation < 0 && p->measured_s <= 1.05 * b.measured_best_s) b.measured_saturation = s;
      if (b.predicted_saturation < 0 && p->prediction.completion_s <= 1.05 * predicted_min) {
        b.predicted_saturation = s;
        b.bound_at_saturation = p->prediction.bound;
      }
    }
    const auto zero = by_s.find(0), at_sm = by_s.find(static_cast<int>(sms));
    if (zero != by_s.end() && at_sm != by_s.end()) {
      b.measured_speedup_sm = zero->second->measured_s / at_sm->second->measured_s;
      b.predicted_speedup_sm = zero->second->prediction.completion_s / at_sm->second->prediction.completion_s;
    }
    a.best.push_back(b);
  }
  return a;
}

void write_farm_report(const std::string& dir, const FarmRun& run, const FarmAnalysis& a, const std::string& profile_path) {
  std::filesystem::create_directories(dir);
  std::ostringstream csv;
  csv << "app,size,iterations,tasks,config,streams,memory,measured_s,spread,predicted_s,relative_error,bound,measured_speedup,"
         "predicted_speedup,host_issue_per_task_s\n";
  // Measured speedups over the same case's pinned serial run.
  std::map<std::string, double> serial_measured;
  for (const FarmPointAnalysis& p : a.points)
    if (p.measurement.mode == FarmMode::serial && p.measurement.memory == HostMemory::pinned)
      serial_measured[case_label(p.measurement.task, p.measurement.tasks)] = p.measured_s;
  for (const FarmPointAnalysis& p : a.points) {
    const FarmMeasurement& m = p.measurement;
    const auto serial = serial_measured.find(case_label(m.task, m.tasks));
    csv << to_string(m.task.app) << ',' << m.task.size << ',' << m.task.iterations << ',' << m.tasks << ',' << m.config_label() << ','
        << m.streams << ',' << to_string(m.memory) << ',' << num(p.measured_s, "%.6g") << ',' << num(p.spread, "%.4g") << ','
        << num(p.prediction.completion_s, "%.6g") << ',' << num(p.error, "%.4g") << ',' << p.prediction.bound << ','
        << (serial != serial_measured.end() ? num(serial->second / p.measured_s, "%.4g") : "") << ','
        << num(p.prediction.speedup_vs_serial, "%.4g") << ','
        << (p.host_issue_per_task_s > 0 ? num(p.host_issue_per_task_s, "%.4g") : "") << "\n";
  }
  write_file_atomically((std::filesystem::path(dir) / "farm_predictions.csv").string(), csv.str());

  std::ostringstream md;
  const Provenance& pv = run.provenance;
  md << "# Task farm on CUDA streams: measured against predicted\n\n";
  md << "Recorded run: " << pv.device_name << " (" << pv.device_uuid << "), driver " << pv.driver_version << ", " << pv.date_utc
     << ", toolkit " << pv.toolkit_version << " commit " << pv.toolkit_commit << "; command `" << pv.command << "`; "
     << num(run.device.multiprocessors, "%.0f") << " SMs, " << num(run.device.async_engines, "%.0f")
     << " copy engines (asyncEngineCount), CUDA_DEVICE_MAX_CONNECTIONS "
     << (run.cuda_device_max_connections.empty() ? "unset (runtime default 8)" : run.cuda_device_max_connections) << "; "
     << format_seconds(run.wall_s) << " wall.\n\n";
  md << "Predicted from `" << profile_path << "`. Each time is the whole stream of L tasks, CUDA events on the legacy default "
        "stream around the loop that issues it, median of "
     << kFarmRepetitions << " runs after a warm-up; every run's results checked against the CPU reference at sampled positions "
        "of every task.\n\n";
  md << "## Completion time, |predicted / measured − 1|\n\n| group | points | mean | median | p90 | max |\n|---|---|---|---|---|---|\n";
  const auto row = [&](const std::string& name, const ErrorStats& s) {
    md << "| " << name << " | " << s.count << " | " << pct_abs(s.mean) << " | " << pct_abs(s.median) << " | " << pct_abs(s.p90) << " | "
       << pct_abs(s.max) << " |\n";
  };
  row("all", a.overall);
  for (const auto& [k, s] : a.per_app) row(k, s);
  md << "\n### By configuration\n\n| configuration | points | mean | median | p90 | max |\n|---|---|---|---|---|---|\n";
  {  // in the order S = 0, 1, 2, …, data-parallel, then pageable
    std::vector<const FarmMeasurement*> order;
    for (const FarmPointAnalysis& p : a.points) order.push_back(&p.measurement);
    const auto rank = [](const FarmMeasurement* m) {
      return std::make_tuple(m->memory == HostMemory::pageable, m->mode == FarmMode::data_parallel, m->streams);
    };
    std::stable_sort(order.begin(), order.end(), [&](const auto* x, const auto* y) { return rank(x) < rank(y); });
    std::set<std::string> done;
    for (const FarmMeasurement* m : order)
      if (done.insert(m->config_label()).second) row(m->config_label(), a.per_config.at(m->config_label()));
  }
  md << "\n## Best number of streams (predicted best, run on the GPU, within 5 % of the measured best?)\n\n"
        "| case | measured best S | its time | predicted best S | its measured time | loss | within 5 % | bound there | "
        "saturates at S (measured) | (predicted) | bound there | Sp(#SM) measured | Sp(#SM) predicted |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const FarmBestCheck& b : a.best)
    md << "| " << b.label << " | " << b.measured_best << " | " << format_seconds(b.measured_best_s) << " | " << b.predicted_best << " | "
       << format_seconds(b.predicted_best_measured_s) << " | " << pct(b.loss) << " | " << (b.within_5_percent ? "yes" : "no") << " | "
       << b.bound_at_best << " | " << b.measured_saturation << " | " << b.predicted_saturation << " | " << b.bound_at_saturation
       << " | " << (b.measured_speedup_sm > 0 ? num(b.measured_speedup_sm) : "-") << " | "
       << (b.predicted_speedup_sm > 0 ? num(b.predicted_speedup_sm) : "-") << " |\n";
  if (!a.host_issue.empty()) {
    md << "\n## The host's issue cost: the profile's against this run's\n\n"
          "The host's time in the loop that issues a stream, per task (this run: the median over the case's pinned stream "
          "counts, and their range), against the profile's (the cost the predictions used: with the GPU busy where the "
          "calibration kept it, else gpu.streams.issue_s). Below, the same pinned stream configurations "
          "predicted again with the run's own cost in place of the profile's: the completion-time error net of the host's "
          "drift between the calibration and the run. A what-if, not a prediction: that cost is read off the run itself.\n\n"
          "| case | profile | this run | range over S |\n|---|---|---|---|\n";
    for (const FarmHostIssue& h : a.host_issue)
      md << "| " << h.label << " | " << format_seconds(h.profile_s) << " | " << format_seconds(h.run_s) << " | "
         << format_seconds(h.run_min_s) << " … " << format_seconds(h.run_max_s) << " |\n";
    md << "\n| pinned stream configurations | points | mean | median | p90 | max |\n|---|---|---|---|---|---|\n";
    row("the profile's host issue cost", a.streams_from_profile);
    row("this run's host issue cost", a.streams_with_run_issue);
  }
  md << "\n## Every configuration\n\n| case | configuration | measured | spread | predicted | error | bound | host issue per task |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const FarmPointAnalysis& p : a.points)
    md << "| " << case_label(p.measurement.task, p.measurement.tasks) << " | " << p.measurement.config_label() << " | "
       << format_seconds(p.measured_s) << " | " << pct_abs(p.spread) << " | " << format_seconds(p.prediction.completion_s) << " | "
       << pct(p.error) << " | " << p.prediction.bound << " | "
       << (p.host_issue_per_task_s > 0 ? format_seconds(p.host_issue_per_task_s) : "-") << " |\n";
  md << "\n## What the predictions assumed\n\n";
  if (a.assumptions.empty()) md << "Nothing beyond the profile's measured sections.\n";
  for (const std::string& s : a.assumptions) md << "- " << s << "\n";
  write_file_atomically((std::filesystem::path(dir) / "report.md").string(), md.str());
}

}  // namespace perfmodel
