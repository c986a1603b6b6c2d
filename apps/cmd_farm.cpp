// perfmodel predict farm (alias: perfmodel farm) --app cosine|matmul|blur [--size N] [--iterations M]
//                         | --workload FILE [--bytes-in B] [--bytes-out B]
//                         --tasks L [--streams N|sweep] [--memory pinned|pageable] [--connections C] [--profile P]
// perfmodel plot farm --out DIR [--from RECORDED_FARM_RUN] [--profile P]
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include "cli_common.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/predictors/farm.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel::cli {
namespace {

constexpr const char* kPredictionOf =
    "the whole stream of L tasks (copy in, kernel, copy out per task), CUDA events on the default stream around the loop "
    "that issues it";

long long parse_count_option(const std::string& text, const std::string& flag, long long min_value) {
  long long v = 0;
  try {
    std::size_t used = 0;
    v = std::stoll(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::logic_error&) {
    throw InputError(flag + ": '" + text + "' is not a whole number");
  }
  if (v < min_value) throw InputError(flag + ": must be at least " + std::to_string(min_value) + ", got " + text);
  return v;
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

int predict_farm(const Invocation& inv) {
  po::options_description options("perfmodel predict farm options");
  options.add_options()("app", po::value<std::string>(), "built-in task: cosine | matmul | blur (Cecconi's three applications)")(
      "size", po::value<std::string>(),
      "task size: cosine floats per task (default 1024; 1024 runs <<<1,1024>>>, 2048 <<<2,1024>>>), matmul N (N×N), blur image side")(
      "iterations,M", po::value<std::string>(), "cosine: cosf per element (M; default 10000)")(
      "workload,w", po::value<std::string>(), "a described task instead: workload file (YAML) whose kernels are one task")(
      "bytes-in", po::value<std::string>(), "with --workload: bytes copied in per task (default: the file's h2d transfers)")(
      "bytes-out", po::value<std::string>(), "with --workload: bytes copied out per task (default: the file's d2h transfers)")(
      "tasks,L", po::value<std::string>()->required(), "tasks in the stream (L >= 1)")(
      "streams,S", po::value<std::string>()->default_value("sweep"),
      "CUDA streams: N (0 = the serial loop; more than L allowed: the extra streams get no task) or sweep")(
      "memory", po::value<std::string>()->default_value("pinned"), "host buffers: pinned | pageable")(
      "connections", po::value<std::string>(), "CUDA_DEVICE_MAX_CONNECTIONS of the program predicted (default: the profile's, or 8)");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel predict farm --app cosine|matmul|blur [--size N] [--iterations M] --tasks L\n"
                     "                              [--streams N|sweep] [--memory pinned|pageable] [--connections C] [--profile P]\n"
                     "       perfmodel predict farm --workload FILE [--bytes-in B] [--bytes-out B] --tasks L [...]\n\n"
                     "A stream of L independent tasks (copy in, one kernel, copy out) dealt round-robin over S CUDA streams\n"
                     "(Cecconi's farm): completion and service time, the stage that bounds them (host issue, H2D, D2H, copy\n"
                     "link, kernel slots, GPU throughput, per-stream latency, work queues), the speedup over the serial loop\n"
                     "(S = 0) and over one data-parallel launch, and the best S of a sweep. The model and its equations:\n"
                     "predictors/include/perfmodel/predictors/farm.hpp and docs/farm.md.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  FarmSetup setup;
  setup.tasks = parse_count_option(vm["tasks"].as<std::string>(), "--tasks", 1);
  const auto memory = parse_host_memory(vm["memory"].as<std::string>());
  if (!memory) throw InputError("--memory: must be pinned or pageable, got '" + vm["memory"].as<std::string>() + "'");
  setup.memory = *memory;
  if (vm.count("connections")) setup.connections = static_cast<int>(parse_count_option(vm["connections"].as<std::string>(), "--connections", 1));
  const std::string streams_text = vm["streams"].as<std::string>();
  const bool sweep = streams_text == "sweep";
  const int streams = sweep ? 0 : static_cast<int>(parse_count_option(streams_text, "--streams", 0));
  if (vm.count("app") == vm.count("workload")) throw InputError("give exactly one of --app and --workload");
  const LoadedProfile loaded = load_selected_profile(vm);
  if (vm.count("app")) {
    for (const char* flag : {"bytes-in", "bytes-out"})
      if (vm.count(flag)) throw InputError(std::string("--") + flag + " applies to --workload only (a built-in task knows its copies)");
    const auto app = parse_farm_app(vm["app"].as<std::string>());
    if (!app) throw InputError("--app: must be cosine, matmul or blur, got '" + vm["app"].as<std::string>() + "'");
    setup.task.app = *app;
    if (vm.count("size")) setup.task.size = static_cast<int>(std::min<long long>(parse_count_option(vm["size"].as<std::string>(), "--size", 1), 1LL << 30));
    else if (*app == FarmApp::cosine) setup.task.size = 1024;
    else throw InputError("--size: give the task size (matmul: N, blur: image side)");
    if (*app == FarmApp::cosine)
      setup.task.iterations =
          vm.count("iterations") ? static_cast<int>(std::min<long long>(parse_count_option(vm["iterations"].as<std::string>(), "--iterations", 1), 1LL << 30)) : 10000;
    else if (vm.count("iterations"))
      throw InputError("--iterations applies to --app cosine only");
    const std::string problem = farm_task_problem(setup.task);
    if (!problem.empty()) throw InputError("--size/--iterations: " + problem);
  } else {
    for (const char* flag : {"size", "iterations"})
      if (vm.count(flag)) throw InputError(std::string("--") + flag + " applies to --app only");
    const GpuWorkloadFile f = read_gpu_workload(vm["workload"].as<std::string>(), loaded.profile.require_gpu());
    setup.workload = f.workload;
    setup.workload->kernel = f.name;
    for (const DescribedTransfer& t : f.transfers) {
      if (t.key.direction == Direction::h2d) setup.bytes_in += t.bytes;
      if (t.key.direction == Direction::d2h) setup.bytes_out += t.bytes;
    }
    if (vm.count("bytes-in")) setup.bytes_in = static_cast<double>(parse_count_option(vm["bytes-in"].as<std::string>(), "--bytes-in", 0));
    if (vm.count("bytes-out")) setup.bytes_out = static_cast<double>(parse_count_option(vm["bytes-out"].as<std::string>(), "--bytes-out", 0));
  }
  const FarmPredictor predictor(loaded.profile, setup);

  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"prediction_of", Cell(kPredictionOf)});
  report.meta.push_back({"task", Cell(setup.label())});
  report.meta.push_back({"tasks", Cell(static_cast<std::int64_t>(setup.tasks))});
  report.meta.push_back({"memory", Cell(to_string(setup.memory))});
  for (auto& cell : pipeline_meta(predictor)) report.meta.push_back(cell);
  Table table{"streams", {}};
  const std::vector<int> counts = sweep ? farm_stream_sweep(static_cast<int>(predictor.sm_bound())) : std::vector<int>{streams};
  for (int s : counts) table.rows.push_back(prediction_row(predictor.predict(s)));
  if (sweep) {
    const int best = predictor.best_streams(counts);
    report.meta.push_back({"best_streams", Cell(static_cast<std::int64_t>(best))});
    report.meta.push_back({"best_predicted_s", Cell(predictor.predict(best).completion_s, Unit::seconds)});
  }
  report.tables.push_back(std::move(table));
  if (!sweep && streams > setup.tasks)
    report.notes.push_back("S = " + std::to_string(streams) + " > L = " + std::to_string(setup.tasks) +
                           ": streams beyond the L-th receive no task, so this is the time of S = L");
  if (setup.memory == HostMemory::pageable)
    report.notes.push_back("pageable host memory: each copy returns only once staged or done, so the host issues a task after the "
                           "previous one's copy-out and every S runs as the serial loop with pageable copies");
  for (const std::string& a : predictor.assumptions()) report.notes.push_back("assumed: " + a);
  render(report, format, inv.out);
  return kExitOk;
}

// ------------------------------------------------------------------ plot farm
std::string quoted(const std::string& s) {  // a gnuplot single-quoted string
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "'";
}

}  // namespace

int plot_farm(const Invocation& inv) {
  po::options_description options("perfmodel plot farm options");
  options.add_options()("out,o", po::value<std::string>()->required(), "folder for farm_*.csv, farm.gp, farm.svg and farm.png")(
      "from", po::value<std::string>(), "a recorded farm run (validate --only farm): its cases, measured points and CUDA_DEVICE_MAX_CONNECTIONS");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot farm --out DIR [--from RECORDED_FARM_RUN] [--profile P]\n\n"
                     "Completion time and speedup over the serial loop against the number of CUDA streams, one panel pair\n"
                     "per farm case: predicted curves, measured points (with --from), the data-parallel time and\n"
                     "Cecconi's #SM bound on the speedup (Eq 5.9). Without --from, the validation's cases, predicted only.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const std::string dir = vm["out"].as<std::string>();
  const LoadedProfile loaded = load_selected_profile(vm);
  std::vector<FarmCase> cases;
  std::optional<FarmRun> run;
  std::optional<int> connections;
  if (vm.count("from")) {
    run = read_farm_run(vm["from"].as<std::string>());
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
  const GpuCalibration& gpu = loaded.profile.require_gpu();
  const int sms = static_cast<int>(gpu.device.multiprocessors);
  make_directory(dir);
  std::ostringstream predicted, measured, summary;
  predicted << "case,streams,predicted_s,predicted_speedup\n";
  measured << "case,streams,measured_s,measured_speedup\n";
  summary << "case,label,serial_s,data_parallel_s,sm_bound,best_streams\n";
  Table rows{"cases", {}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const FarmCase& c = cases[i];
    const FarmSetup setup = FarmSetup::built_in(c.task, c.tasks, HostMemory::pinned, connections, run ? run->resource_table() : ResourceTable{});
    const FarmPredictor p(loaded.profile, setup);
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
     << quoted("Task farm on " + loaded.profile.provenance.device_name + (run ? " (measured " + run->provenance.date_utc + ")" : ""))
     << " font ',11'\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const FarmCase& c = cases[i];
    const FarmPredictor p(loaded.profile, FarmSetup::built_in(c.task, c.tasks, HostMemory::pinned, connections, run ? run->resource_table() : ResourceTable{}));
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
  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"prediction_of", Cell(kPredictionOf)});
  report.tables.push_back(std::move(rows));
  std::string note = "wrote " + dir + "/{farm_predicted.csv,farm_measured.csv,farm_cases.csv,farm.gp}";
  try {  // the numbers stand without the picture
    render_gnuplot(dir, "farm", PlotSize{900, static_cast<int>(220 * std::max<std::size_t>(1, cases.size()))});
    note += " and farm.{svg,png}";
  } catch (const RuntimeFailure& e) {
    report.notes.push_back(std::string("plot not drawn: ") + e.what());
  }
  report.notes.push_back(note);
  render(report, format, inv.out);
  return kExitOk;
}

int predict_farm_command(const Invocation& inv) { return predict_farm(inv); }

}  // namespace perfmodel::cli
