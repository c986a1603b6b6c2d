// perfmodel predict kernel --kernel K --n N [--config C] [--resources DIR] [--profile P]
// perfmodel predict workload FILE.yaml [--set k=v1,v2,...]... [--timing single|steady] [--profile P]
// perfmodel tune --kernel K --n N [--top T] [--resources DIR] [--profile P]
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
#include "perfmodel/predictors/roofline.hpp"

namespace perfmodel::cli {
namespace {

std::string plot_like(double x, double y) {
  return std::to_string(static_cast<long long>(x)) + "x" + std::to_string(static_cast<long long>(y));
}

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

  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"prediction_of", Cell(launch_prediction_of(run_start(vm, gpu)))});
  report.meta.push_back({"kernel", Cell(kernel)});
  report.meta.push_back({"source", Cell(spec.source)});
  report.meta.push_back({"n", Cell(static_cast<std::int64_t>(n))});
  report.meta.push_back({"config", Cell(to_string(config, spec))});
  report.meta.push_back({"config_from", Cell(given ? std::string("--") + given : std::string("White (2013)'s launch rule"))});
  for (auto& cell : prediction_meta(p, w)) report.meta.push_back(cell);
  add_roofline(report.meta, loaded.profile, p, w);
  if (loaded.profile.pcie) {
    const CommunicationPredictor comm(loaded.profile);
    const HostMemory memory = parse_host_memory(vm["memory"].as<std::string>()).value_or(HostMemory::pinned);
    std::vector<Transfer> t;
    if (w.h2d_bytes > 0) t.push_back({{Direction::h2d, memory}, static_cast<std::uint64_t>(w.h2d_bytes)});
    if (w.d2h_bytes > 0) t.push_back({{Direction::d2h, memory}, static_cast<std::uint64_t>(w.d2h_bytes)});
    const double transfers = t.empty() ? 0 : comm.predict(t).total_seconds;
    report.meta.push_back({"transfers_s", Cell(transfers, Unit::seconds)});
    report.meta.push_back({"with_transfers_s", Cell(transfers + p.seconds, Unit::seconds)});
  }
  const auto measured = res.measured.find({n, config});
  if (measured != res.measured.end()) {
    report.meta.push_back({"measured_s", Cell(measured->second, Unit::seconds)});
    report.meta.push_back({"error", Cell(p.seconds / measured->second - 1, Unit::percent)});
    report.notes.push_back("measured: " + res.source);
  }
  report.tables.push_back(phase_table(p, w));
  if (!missing.empty()) report.notes.push_back("registers/shared memory estimated (no recorded resources) for " + missing.front());
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
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
                      {"special_calls", Cell(p.special_calls)},
                      {"chain_l2_loads", Cell(p.chain_l2_loads)}});
  }
  return t;
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

std::string prediction_of(const std::string& timing, const GpuRunStart& start) {
  if (timing == "steady")
    return "the workload (every kernel and launch) repeated back to back: time per repetition, a loop of repetitions "
           "timed as a whole and divided by their number";
  return std::string("the workload (every kernel and launch) run once, timed with CUDA events around it, ") +
         (start.l2_dirty ? "right after an L2 flush (a dirty L2, as the validation runner times)" : "from an idle GPU with a clean L2");
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

  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"workload", Cell(first.name)});
  report.meta.push_back({"workload_format", Cell(static_cast<std::int64_t>(first.format))});
  report.meta.push_back({"timing", Cell(timing)});
  report.meta.push_back({"prediction_of", Cell(prediction_of(timing, start))});
  if (files.size() == 1 && !vm.count("set")) {
    const GpuWorkloadFile& f = first;
    const GpuPrediction p = predict(f);
    for (const auto& [name, value] : f.params) report.meta.push_back({name, Cell(value)});
    report.meta.push_back({"predicted_s", Cell(p.seconds, Unit::seconds)});
    report.meta.push_back({"per_launch_s", Cell(p.seconds / f.launches(), Unit::seconds)});
    for (auto& cell : prediction_meta(p, f.workload)) report.meta.push_back(cell);
    add_roofline(report.meta, loaded.profile, p, f.workload);
    if (any_transfers) {
      const double transfers = transfer_seconds(f);
      report.meta.push_back({"transfers_s", Cell(transfers, Unit::seconds)});
      report.meta.push_back({"with_transfers_s", Cell(transfers + p.seconds, Unit::seconds)});
    }
    report.tables.push_back(phase_table(p, f.workload));
    report.tables.push_back(descriptor_table(f.workload));
  } else {
    Table t{"points", {}};
    for (const GpuWorkloadFile& f : files) {
      const GpuPrediction p = predict(f);
      Record row;
      for (const auto& [name, value] : f.params) row.push_back({name, Cell(value)});
      row.push_back({"predicted_s", Cell(p.seconds, Unit::seconds)});
      row.push_back({"per_launch_s", Cell(p.seconds / f.launches(), Unit::seconds)});
      row.push_back({"bound", Cell(p.bound)});
      row.push_back({"dram_bytes", Cell(f.workload.dram_bytes(), Unit::bytes)});
      if (any_transfers) {
        const double transfers = transfer_seconds(f);
        row.push_back({"transfers_s", Cell(transfers, Unit::seconds)});
        row.push_back({"with_transfers_s", Cell(transfers + p.seconds, Unit::seconds)});
      }
      t.rows.push_back(row);
    }
    report.tables.push_back(t);
  }
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
  for (const std::string& note : first.notes) report.notes.push_back(note);
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
  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"prediction_of", Cell(launch_prediction_of(start))});
  report.meta.push_back({"kernel", Cell(kernel)});
  report.meta.push_back({"n", Cell(static_cast<std::int64_t>(n))});
  report.meta.push_back({"configurations", Cell(static_cast<std::int64_t>(ranked.size()))});
  report.meta.push_back({"predicted_best", Cell(to_string(ranked.front().config, spec))});
  report.meta.push_back({"predicted_best_s", Cell(ranked.front().p.seconds, Unit::seconds)});
  const KernelConfig rule = default_config(spec, n);
  report.meta.push_back({"s0_rule", Cell(to_string(rule, spec))});
  // Measured sweep, where recorded.
  const Ranked* best_measured = nullptr;
  double best_measured_s = 0;
  std::size_t measured_count = 0;
  for (const Ranked& r : ranked) {
    const auto it = res.measured.find({n, r.config});
    if (it == res.measured.end()) continue;
    ++measured_count;
    if (!best_measured || it->second < best_measured_s) best_measured = &r, best_measured_s = it->second;
  }
  const auto predicted_measured = res.measured.find({n, ranked.front().config});
  if (best_measured && measured_count >= 3 && predicted_measured != res.measured.end()) {
    report.meta.push_back({"measured_best", Cell(to_string(best_measured->config, spec))});
    report.meta.push_back({"measured_best_s", Cell(best_measured_s, Unit::seconds)});
    report.meta.push_back({"predicted_best_measured_s", Cell(predicted_measured->second, Unit::seconds)});
    report.meta.push_back({"loss_vs_measured_optimum", Cell(predicted_measured->second / best_measured_s - 1, Unit::percent)});
    report.notes.push_back("measured: " + res.source + " (" + std::to_string(measured_count) + " configurations)");
  } else {
    report.notes.push_back("no recorded sweep of " + kernel + " at n = " + std::to_string(n) + ": predicted ranking only");
  }
  Table t{"ranking", {}};
  for (std::size_t i = 0; i < ranked.size() && static_cast<int>(i) < top; ++i) {
    const Ranked& r = ranked[i];
    Record row{{"rank", Cell(static_cast<std::int64_t>(i + 1))},
               {"config", Cell(to_string(r.config, spec))},
               {"predicted_s", Cell(r.p.seconds, Unit::seconds)},
               {"bound", Cell(r.p.bound)},
               {"blocks_per_sm", Cell(r.p.longest_phase() ? r.p.longest_phase()->metrics.blocks_per_sm : 0.0)}};
    // Only beside a recorded sweep; a configuration the sweep did not run has no measured time.
    if (measured_count > 0) {
      const auto it = res.measured.find({n, r.config});
      row.push_back({"measured_s", it != res.measured.end() ? Cell(it->second, Unit::seconds) : Cell("not measured")});
    }
    t.rows.push_back(row);
  }
  report.tables.push_back(t);
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
