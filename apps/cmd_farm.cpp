// perfmodel predict farm (alias: perfmodel farm) --app cosine|matmul|blur [--size N] [--iterations M]
//                         | --workload FILE [--bytes-in B] [--bytes-out B]
//                         --tasks L [--streams N|sweep] [--memory pinned|pageable] [--connections C] [--profile P]
// perfmodel plot farm --out DIR [--from RECORDED_FARM_RUN] [--profile P]
// The outputs (tables, the plot's data and script) are the report layer's: perfmodel/report/farm_report.hpp.
#include <algorithm>
#include <optional>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/predictors/farm.hpp"
#include "perfmodel/report/farm_report.hpp"

namespace perfmodel::cli {
namespace {

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

  FarmPredictionView view{setup, predictor, {}, std::nullopt, std::nullopt};
  const std::vector<int> counts = sweep ? farm_stream_sweep(static_cast<int>(predictor.sm_bound())) : std::vector<int>{streams};
  for (int s : counts) view.rows.push_back(predictor.predict(s));
  if (sweep) view.best = predictor.predict(predictor.best_streams(counts));
  else view.streams = streams;
  Report report;
  add_profile_meta(report, loaded);
  add_farm_prediction(report, view);
  render(report, format, inv.out);
  return kExitOk;
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
  std::optional<FarmRun> run;
  if (vm.count("from")) run = read_farm_run(vm["from"].as<std::string>());
  loaded.profile.require_gpu();
  const FarmPlotOutputs outputs = write_farm_plot(dir, loaded.profile, run ? &*run : nullptr);
  Report report;
  add_profile_meta(report, loaded);
  add_farm_plot(report, outputs, dir);
  render(report, format, inv.out);
  return kExitOk;
}

int predict_farm_command(const Invocation& inv) { return predict_farm(inv); }

}  // namespace perfmodel::cli
