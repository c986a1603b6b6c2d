// perfmodel predict kernel --kernel K --n N [--config C] [--resources DIR] [--profile P]
// perfmodel predict workload FILE.yaml [--set k=v1,v2,...]... [--timing single|steady] [--profile P]
// perfmodel tune --kernel K --n N [--top T] [--resources DIR] [--profile P]
// The tables are the report layer's: perfmodel/report/predict_tables.hpp.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/model/workload_expression.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/report/predict_tables.hpp"

namespace perfmodel::cli {
namespace {

struct Resources {
  ResourceTable table;
  std::string source;
  std::map<std::pair<int, KernelConfig>, double> measured;  // (n, config) → median seconds, for one kernel
};

// Compiled resources (and measured sweeps) from a validation run folder: --resources or the bundled one.
Resources load_resources(const po::variables_map& vm, const std::string& kernel) {
  Resources r;
  const bool given = vm.count("resources") > 0;
  const std::string dir = given ? vm["resources"].as<std::string>() : bundled_validation_dir();
  if (!given && !std::filesystem::exists(dir + "/" + kResourcesFile)) return r;
  const ValidationRun run = read_validation_run(dir);
  r.table = run.resource_table();
  r.source = dir + " (" + run.provenance.device_name + ", " + run.provenance.date_utc + ")";
  for (const KernelMeasurement& m : run.measurements)
    if (m.kernel == kernel) r.measured[{m.n, m.config}] = m.summary().median;
  return r;
}

void add_resources_option(po::options_description& options) {
  options.add_options()("resources", po::value<std::string>(),
                        "validation run folder whose resources.csv gives the compiled registers and shared memory "
                        "(default: the bundled H100 run)");
}

void add_l2_option(po::options_description& options) {
  options.add_options()("l2", po::value<std::string>(),
                        "how the run starts: dirty (right after the validation runner's L2 flush: the L2 full of written "
                        "data, whose write-back the first reads pay, and the GPU still busy with the flush while the host "
                        "enqueues the first launches) | clean (a clean L2 and an idle GPU); default: dirty where the profile "
                        "measured what it costs (gpu.l2_write_back), else clean");
}

GpuRunStart run_start(const po::variables_map& vm, const GpuCalibration& gpu) {
  if (!vm.count("l2")) return dirty_l2_where_measured(gpu);
  const std::string l2 = vm["l2"].as<std::string>();
  if (l2 == "dirty") return after_l2_flush(gpu);
  if (l2 == "clean") return {};
  throw InputError("--l2: expected dirty or clean, got '" + l2 + "'");
}

int parse_n(const po::variables_map& vm) {
  const double n = parse_positive_number(vm["n"].as<std::string>(), "--n");
  if (n != std::floor(n) || n > limits::kMaxProblemSize)
    throw InputError("--n: must be a whole number from 1 to 2147483647, got '" + vm["n"].as<std::string>() + "'");
  return static_cast<int>(n);
}

// The kernel's arrays must fit the GPU: its larger copy (inputs in, or results out) is a lower
// bound of the device memory it needs. Sizes beyond it are refused before any arithmetic on them.
void require_fits_device(const GpuWorkload& w, const GpuCalibration& gpu, const std::string& kernel, int n) {
  const double needed = std::max(w.h2d_bytes, w.d2h_bytes);
  const double memory = gpu.device.global_memory_bytes > 0 ? gpu.device.global_memory_bytes : limits::kMaxBytes;
  if (!(needed <= memory))
    throw InputError("--n: " + kernel + " at n = " + std::to_string(n) + " needs at least " + format_bytes(needed) +
                     " of device memory; the profile's GPU has " + format_bytes(memory));
}

}  // namespace

int predict_kernel_command(const Invocation& inv) {
  po::options_description options("perfmodel predict kernel options");
  std::string names;
  for (const GpuKernelSpec& s : gpu_kernel_specs()) names += (names.empty() ? "" : " | ") + s.name;
  options.add_options()("kernel,k", po::value<std::string>()->required(), ("GPU reference kernel: " + names + " (or a family: mv, mm, conv2d, cholesky, sgemm = its optimised variant)").c_str())(
      "n", po::value<std::string>()->required(), "problem size (matrix order, vector length or image side)")(
      "config,c", po::value<std::string>(), "launch configuration XxY (and /eNE, /gBLOCKS where the kernel has one); default: White (2013)'s rule")(
      "block,b", po::value<std::string>(), "the same as --config (the block X[xY]; /eNE, /gBLOCKS may follow)")(
      "memory,m", po::value<std::string>()->default_value("pinned"), "host memory of the transfers: pinned | pageable");
  add_l2_option(options);
  add_resources_option(options);
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel predict kernel --kernel K --n N [--config C | --block XxY] [--l2 dirty|clean] [--profile P]\n\n"
                     "Predicts a GPU reference kernel's time from its workload descriptor, the execution metrics of its\n"
                     "launch and the profile's measured ceilings (see predictors/gpu_compute.hpp for the equations).",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const GpuKernelSpec& spec = gpu_kernel_or_family(vm["kernel"].as<std::string>());
  const std::string& kernel = spec.name;
  const int n = parse_n(vm);
  const LoadedProfile loaded = load_selected_profile(vm);
  const GpuCalibration& gpu = loaded.gpu();
  if (vm.count("config") && vm.count("block")) throw InputError("--config and --block name the same thing: give one");
  const char* given = vm.count("config") ? "config" : vm.count("block") ? "block" : nullptr;
  const KernelConfig config = given ? parse_kernel_config(vm[given].as<std::string>(), spec) : default_config(spec, n);
  const std::string problem = config_problem(spec, n, config);
  if (!problem.empty()) throw InputError(kernel + ": " + problem);
  const Resources res = load_resources(vm, kernel);
  std::vector<std::string> missing;
  const GpuWorkload w = describe_gpu_kernel(kernel, n, config, res.table, gpu.device.l2_cache_bytes, &missing);
  require_fits_device(w, gpu, kernel, n);
  const GpuPrediction p = predict_gpu(gpu, w, run_start(vm, gpu));

  KernelPredictionView view{kernel, spec.source, to_string(config, spec), given ? std::string("--") + given : std::string("White (2013)'s launch rule"),
                            n, run_start(vm, gpu), p, w, loaded.profile, std::nullopt, std::nullopt, res.source, missing};
  if (loaded.profile.pcie) {
    const CommunicationPredictor comm(loaded.profile);
    const HostMemory memory = parse_host_memory(vm["memory"].as<std::string>()).value_or(HostMemory::pinned);
    std::vector<Transfer> t;
    if (w.h2d_bytes > 0) t.push_back({{Direction::h2d, memory}, static_cast<std::uint64_t>(w.h2d_bytes)});
    if (w.d2h_bytes > 0) t.push_back({{Direction::d2h, memory}, static_cast<std::uint64_t>(w.d2h_bytes)});
    view.transfers_s = t.empty() ? 0 : comm.predict(t).total_seconds;
  }
  const auto measured = res.measured.find({n, config});
  if (measured != res.measured.end()) view.measured_s = measured->second;
  Report report;
  add_profile_meta(report, loaded);
  add_kernel_prediction(report, view);
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

// `--set k=v1,v2,...` flags: every combination of the values, in the order given.
std::vector<WorkloadParams> parameter_points(const std::vector<std::string>& sets) {
  std::vector<WorkloadParams> points{{}};
  std::set<std::string> seen;
  for (const std::string& s : sets) {
    const std::size_t eq = s.find('=');
    const std::string name = eq == std::string::npos ? "" : s.substr(0, eq);
    if (name.empty() || eq + 1 >= s.size()) throw InputError("--set " + s + ": expected NAME=V1[,V2,...]");
    if (!valid_parameter_name(name)) throw InputError("--set " + s + ": '" + name + "' is not a parameter name");
    if (!seen.insert(name).second) throw InputError("--set " + name + ": given twice");
    std::vector<double> values;
    std::size_t from = eq + 1;
    for (;;) {
      const std::size_t comma = s.find(',', from);
      const std::string item = s.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      try {
        values.push_back(evaluate_expression(item));
      } catch (const ExpressionError& e) {
        throw InputError("--set " + name + ": " + e.what());
      }
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    std::vector<WorkloadParams> next;
    for (const WorkloadParams& p : points)
      for (double v : values) {
        WorkloadParams q = p;
        q[name] = v;
        next.push_back(q);
      }
    points = next;
  }
  return points;
}

int predict_workload_command(const Invocation& inv) {
  po::options_description options("perfmodel predict workload options");
  options.add_options()("workload,w", po::value<std::string>()->required(), "workload file (YAML: format: 2, or perfmodel_workload: 1)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "NAME=V1[,V2,...]: replace a parameter of the file; several values or several --set flags predict every combination, a row each")(
      "timing", po::value<std::string>(),
      "single (the workload run once, timed with events, as a user times it) | steady (per repetition, back to back); default: the "
      "file's timing key, else single");
  add_l2_option(options);
  add_profile_option(options);
  add_format_option(options);
  po::positional_options_description positional;
  positional.add("workload", 1);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel predict workload FILE.yaml [--set k=v1,v2,...]... [--timing single|steady] [--l2 dirty|clean] [--profile P]\n\n"
                     "Predicts kernels you have only described (launches, memory accesses, work, copies): the format is\n"
                     "documented in docs/workload-format.md, with an example per kernel class; data/workloads/ has more.",
                     options, &positional, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  if (vm.count("timing")) {
    const std::string t = vm["timing"].as<std::string>();
    if (t != "single" && t != "steady") throw InputError("--timing: expected single or steady, got '" + t + "'");
  }
  const std::vector<WorkloadParams> points = parameter_points(vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{});
  const LoadedProfile loaded = load_selected_profile(vm);
  const GpuCalibration& gpu = loaded.profile.require_gpu();
  const std::string path = vm["workload"].as<std::string>();
  // Every point is read (and checked) before any is predicted.
  std::vector<GpuWorkloadFile> files;
  for (const WorkloadParams& point : points) files.push_back(read_gpu_workload(path, gpu, point));
  const GpuWorkloadFile& first = files.front();
  const std::string timing = vm.count("timing") ? vm["timing"].as<std::string>() : first.timing.empty() ? "single" : first.timing;
  const GpuRunStart start = timing == "steady" ? GpuRunStart{} : run_start(vm, gpu);
  const bool any_transfers = !first.transfers.empty();
  if (any_transfers && !loaded.profile.pcie)
    throw InputError(loaded.path + ": the workload has copies but the profile has no pcie section");
  const std::optional<CommunicationPredictor> comm =
      any_transfers ? std::optional<CommunicationPredictor>(std::in_place, loaded.profile) : std::nullopt;
  auto transfer_seconds = [&](const GpuWorkloadFile& f) {
    double s = 0;
    for (const DescribedTransfer& d : f.transfers) s += d.repeats * comm->predict(std::vector<Transfer>{{d.key, static_cast<std::uint64_t>(d.bytes)}}).total_seconds;
    return s;
  };
  auto predict = [&](const GpuWorkloadFile& f) {
    GpuPrediction p;
    try {  // a kernel the device cannot run (shared memory or registers over its limits) is the file's error
      p = predict_gpu(gpu, f.workload, start);
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
    if (timing == "steady") p.seconds = predict_gpu_steady_seconds(gpu, f.workload);
    return p;
  };

  WorkloadPredictionView view{loaded.profile, timing, start, files.size() == 1 && !vm.count("set"), {}};
  for (const GpuWorkloadFile& f : files) {
    const GpuPrediction p = predict(f);
    view.points.push_back({f, p, any_transfers ? std::optional<double>(transfer_seconds(f)) : std::nullopt});
    if (view.single) break;
  }
  Report report;
  add_profile_meta(report, loaded);
  add_workload_prediction(report, view);
  // A parameter named like an output field would make two fields of one name.
  auto check_unique = [&](const Record& r) {
    std::set<std::string> names;
    for (const auto& [name, cell] : r)
      if (!names.insert(name).second) throw InputError(path + ": params." + name + ": the name of an output field; rename the parameter");
  };
  check_unique(report.meta);
  for (const Table& t : report.tables)
    if (t.name == "points")
      for (const Record& row : t.rows) check_unique(row);
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

int cmd_tune(const Invocation& inv) {
  po::options_description options("perfmodel tune options");
  options.add_options()("kernel,k", po::value<std::string>()->required(), "GPU reference kernel with several launch configurations (or a family: mv, mm, conv2d, … = its optimised variant)")(
      "n", po::value<std::string>()->required(), "problem size")("top", po::value<int>()->default_value(10), "configurations to list");
  add_l2_option(options);
  add_resources_option(options);
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel tune --kernel K --n N [--top T] [--l2 dirty|clean] [--profile P]\n\n"
                     "Ranks every compiled launch configuration of K at size n by predicted time (White (2013)'s Step 5 as a search\n"
                     "over legal configurations ranked by the predictor). Where the recorded validation run swept this\n"
                     "(kernel, n), the measured time of each configuration and the measured optimum are shown beside it.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const GpuKernelSpec& spec = gpu_kernel_or_family(vm["kernel"].as<std::string>());
  const std::string& kernel = spec.name;
  const int n = parse_n(vm);
  const int top = vm["top"].as<int>();
  if (top < 1) throw InputError("--top: must be >= 1");
  const LoadedProfile loaded = load_selected_profile(vm);
  const GpuCalibration& gpu = loaded.gpu();
  const Resources res = load_resources(vm, kernel);
  struct Ranked {
    KernelConfig config;
    GpuPrediction p;
  };
  std::vector<Ranked> ranked;
  const GpuRunStart start = run_start(vm, gpu);
  for (const KernelConfig& c : spec.configs) {
    if (!config_problem(spec, n, c).empty()) continue;
    GpuWorkload w;
    try {
      w = describe_gpu_kernel(kernel, n, c, res.table, gpu.device.l2_cache_bytes);
    } catch (const InputError&) {  // a configuration that cannot be resident on this device
      continue;
    }
    require_fits_device(w, gpu, kernel, n);
    try {
      ranked.push_back({c, predict_gpu(gpu, w, start)});
    } catch (const InputError&) {  // a configuration that cannot be resident on this device
    }
  }
  if (ranked.empty()) throw InputError(kernel + ": no compiled configuration runs at n = " + std::to_string(n));
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.p.seconds < b.p.seconds; });
  TuneView view{kernel, n, start, {}, to_string(default_config(spec, n), spec), top, res.source};
  for (const Ranked& r : ranked) {
    const auto it = res.measured.find({n, r.config});
    view.ranked.push_back({to_string(r.config, spec), r.p, it != res.measured.end() ? std::optional<double>(it->second) : std::nullopt});
  }
  Report report;
  add_profile_meta(report, loaded);
  add_tune_ranking(report, view);
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
