// perfmodel offload --kernel K --n N [--iterations I] [--threads T] [--memory pinned|pageable] [--sweep]
// perfmodel offload --workload FILE
//   [--profile P | --cpu-profile C --gpu-profile G]
// and the offload validation behind `perfmodel validate --only offload`.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>

#include "offload_cli.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/predictors/offload.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/offload_validation.hpp"
#include "perfmodel/report/offload_report.hpp"

namespace perfmodel::cli {
namespace {

struct OffloadProfiles {
  LoadedProfile cpu, gpu;
};

LoadedProfile load_path(const std::string& path, bool bundled) {
  LoadedProfile l;
  l.path = path;
  l.bundled = bundled;
  l.profile = load_profile(path);
  return l;
}

// --profile gives both sides; --cpu-profile / --gpu-profile override one each.
OffloadProfiles load_offload_profiles(const po::variables_map& vm, bool need_cpu) {
  const bool common = vm.count("profile") > 0;
  const std::string base = common ? vm["profile"].as<std::string>() : bundled_profile_path();
  OffloadProfiles p;
  const std::string gpu_path = vm.count("gpu-profile") ? vm["gpu-profile"].as<std::string>() : base;
  const std::string cpu_path = vm.count("cpu-profile") ? vm["cpu-profile"].as<std::string>() : base;
  const std::string gpu_flag = vm.count("gpu-profile") ? "--gpu-profile" : common ? "--profile" : "the bundled profile";
  const std::string cpu_flag = vm.count("cpu-profile") ? "--cpu-profile" : common ? "--profile" : "the bundled profile";
  p.gpu = load_path(gpu_path, !vm.count("gpu-profile") && !common);
  if (!p.gpu.profile.gpu) {
    const bool cpu_only = p.gpu.profile.cpu && !p.gpu.profile.pcie;
    throw InputError(gpu_flag + " " + gpu_path + ": the profile has no gpu section" +
                     (cpu_only ? " — it is a CPU-only profile (device: " + p.gpu.profile.provenance.device_name +
                                     "); give it as --cpu-profile and keep a GPU profile for --gpu-profile"
                               : "; run perfmodel calibrate on the GPU's host"));
  }
  if (!p.gpu.profile.pcie)
    throw InputError(gpu_flag + " " + gpu_path + ": the profile has no pcie section: the copies cannot be predicted (perfmodel calibrate --only pcie)");
  p.cpu = cpu_path == gpu_path ? p.gpu : load_path(cpu_path, !vm.count("cpu-profile") && !common);
  if (need_cpu && !p.cpu.profile.cpu)
    throw InputError(cpu_flag + " " + cpu_path + ": the profile has no cpu section: no CPU side to compare with (perfmodel calibrate --only cpu)");
  return p;
}

// Each side's profile as the report names it.
OffloadSides sides(const OffloadProfiles& p) {
  return {{p.cpu.path, p.cpu.bundled, &p.cpu.profile, p.cpu.note()}, {p.gpu.path, p.gpu.bundled, &p.gpu.profile, p.gpu.note()}};
}

// The bundled recorded GPU validation run: the compiled kernels' resources and the GPU model's
// recorded error (absent: estimated resources, the error not included).
const std::optional<ValidationRun>& bundled_gpu_run() {
  static const std::optional<ValidationRun> run = [] {
    const std::string dir = bundled_validation_dir();
    return std::filesystem::exists(dir + "/measurements.csv") ? std::optional<ValidationRun>(read_validation_run(dir)) : std::nullopt;
  }();
  return run;
}

// The bundled recorded offload validation run (beside the GPU one), for the interval's CPU level.
const std::optional<OffloadRun>& bundled_offload_run() {
  static const std::optional<OffloadRun> run = [] {
    const std::string dir = bundled_validation_dir() + "-offload";
    return std::filesystem::exists(dir + "/offload_measurements.csv") ? std::optional<OffloadRun>(read_offload_run(dir)) : std::nullopt;
  }();
  return run;
}

ResourceTable bundled_resources() { return bundled_gpu_run() ? bundled_gpu_run()->resource_table() : ResourceTable{}; }

// The GPU model's recorded error from the bundled validation run (this GPU kernel's runs, or all).
void gpu_error_level(const Profile& gpu, const std::string& gpu_kernel, OffloadErrorLevels& e) {
  if (!bundled_gpu_run()) {
    e.gpu_source = "no recorded validation run found (" + bundled_validation_dir() + "): the GPU model's error is not included";
    return;
  }
  offload_gpu_error_level(gpu, *bundled_gpu_run(), gpu_kernel, e);
}

int offload_builtin(const Invocation& inv, const po::variables_map& vm, Format format) {
  const std::string kernel = vm["kernel"].as<std::string>();
  offload_gpu_kernel(kernel);  // unknown kernel → exit 1 before any work
  const int iterations = vm["iterations"].as<int>();
  if (iterations < 1) throw InputError("--iterations must be >= 1, got " + std::to_string(iterations));
  if (vm.count("iterations") && !vm["iterations"].defaulted() && kernel != "cg")
    throw InputError("--iterations applies to --kernel cg only");
  const double threads = vm.count("threads") ? parse_positive_number(vm["threads"].as<std::string>(), "--threads") : 0;
  const auto memory = parse_host_memory(vm["memory"].as<std::string>());
  if (!memory) throw InputError("--memory: '" + vm["memory"].as<std::string>() + "' is not pinned or pageable");
  const OffloadProfiles p = load_offload_profiles(vm, true);
  const Profile &cpu = p.cpu.profile, &gpu = p.gpu.profile;
  OffloadOptions options;
  options.memory = *memory;
  options.cpu_threads = threads;
  options.iterations = iterations;
  double from = 0, to = 0, multiple = 1;
  offload_size_range(kernel, from, to, multiple);
  if (vm.count("from-n")) from = parse_positive_number(vm["from-n"].as<std::string>(), "--from-n");
  if (vm.count("to-n")) to = parse_positive_number(vm["to-n"].as<std::string>(), "--to-n");
  if (from > to) throw InputError("--from-n must not exceed --to-n");
  const ResourceTable resources = bundled_resources();
  const auto speedup = [&](double n) {
    const OffloadTerms t = predict_builtin_offload(cpu, gpu, kernel, n, options, resources).terms;
    return t.cpu_s / t.gpu_s();
  };

  const std::string gk = offload_gpu_kernel(kernel);
  const OffloadSides both = sides(p);
  BuiltinOffloadView view{kernel, gk, *memory, iterations, both, find_crossover(speedup, from, to, multiple), std::nullopt, std::nullopt};
  const CrossoverResult& cross = view.crossover;
  if (vm.count("n")) {
    BuiltinOffloadAtN at;
    at.n = parse_positive_number(vm["n"].as<std::string>(), "--n");
    const double n = at.n;
    at.offload = predict_builtin_offload(cpu, gpu, kernel, n, options, resources);
    const BuiltinOffload& o = at.offload;
    OffloadErrorLevels& e = at.errors;
    CpuSide side;
    side.kernel = kernel, side.n = n, side.iterations = iterations, side.threads = threads;
    // The CPU level: the bundled offload run's spread for this kernel when the CPU side is the
    // bundled profile's (the one that run was predicted from), else the model's held-out error.
    if (!(bundled_offload_run() && p.cpu.bundled &&
          offload_cpu_error_level(offload_cpu_spread(*bundled_offload_run(), cpu, gpu, bundled_resources()), kernel, o.cpu.threads, e)))
      offload_cpu_error_level(cpu, side, o.cpu, e);
    gpu_error_level(gpu, gk, e);
    std::vector<Transfer> all = o.gpu.copies_in;
    all.insert(all.end(), o.gpu.copies_out.begin(), o.gpu.copies_out.end());
    offload_copy_error_level(gpu, all, e);
    at.decision = decide_offload(o.terms, e);
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable}) {
      OffloadOptions om = options;
      om.memory = m;
      try {
        at.memories.push_back({m, predict_builtin_offload(cpu, gpu, kernel, n, om, resources).terms, ""});
      } catch (const InputError& err) {
        at.memories.push_back({m, std::nullopt, err.what()});
      }
    }
    if (kernel == "cg")
      at.reuse = reuse_break_even([&](int i) {
        OffloadOptions oi = options;
        oi.iterations = i;
        return predict_builtin_offload(cpu, gpu, kernel, n, oi, resources).terms;
      });
    at.overlap = overlap_builtin_offload(gpu, o, *memory);
    at.split = split_builtin_offload(cpu, gpu, o, options);
    view.at_n = std::move(at);
  }
  if (vm.count("sweep")) {
    view.sweep.emplace();
    const int points = 16;
    std::set<double> sizes;
    for (int i = 0; i < points; ++i) {
      const double u = static_cast<double>(i) / (points - 1);
      sizes.insert(std::max(cross.from_n, std::round(std::exp(std::log(cross.from_n) + u * (std::log(cross.to_n) - std::log(cross.from_n))) / multiple) *
                                              multiple));
    }
    for (double n : sizes) {
      try {
        view.sweep->push_back({n, predict_builtin_offload(cpu, gpu, kernel, n, options, resources).terms});
      } catch (const InputError&) {  // a size the GPU kernel does not run: no row
      }
    }
  }
  render(offload_builtin_report(view), format, inv.out);
  return kExitOk;
}

int offload_workload(const Invocation& inv, const po::variables_map& vm, Format format) {
  const std::string path = vm["workload"].as<std::string>();
  for (const char* flag : {"n", "iterations", "threads", "sweep", "from-n", "to-n"})
    if (vm.count(flag) && !vm[flag].defaulted())
      throw InputError(std::string("--") + flag + " applies to --kernel; a workload file states its CPU side in its `cpu:` section");
  OffloadProfiles p = load_offload_profiles(vm, false);
  const Profile& gpu = p.gpu.profile;
  const OffloadWorkloadFile f = read_offload_workload(path, gpu.require_gpu());
  if (!f.cpu)
    throw InputError(path + ": no `cpu:` section: the offload decision needs the CPU side (a built-in `kernel` and `n`, a signature, or `measured_s`)");
  const CpuSide& side = *f.cpu;
  if (side.kind != CpuSide::Kind::measured && !p.cpu.profile.cpu) load_offload_profiles(vm, true);  // names the profile that lacks it
  const Profile& cpu = p.cpu.profile;
  const CpuSideTime ct = cpu_side_time(cpu, side);
  const GpuPrediction g = predict_gpu(gpu.require_gpu(), f.gpu.workload, offload_run_start(gpu.require_gpu()));
  std::vector<Transfer> in, out;
  for (const DescribedTransfer& t : f.gpu.transfers)
    (t.key.direction == Direction::d2h ? out : in).push_back({t.key, static_cast<std::uint64_t>(std::llround(t.bytes))});
  const OffloadCopies copies(gpu);
  double host_bytes = 0;
  for (const Transfer& t : in) host_bytes += static_cast<double>(t.bytes);
  for (const Transfer& t : out) host_bytes += static_cast<double>(t.bytes);
  OffloadTerms terms;
  terms.cpu_s = ct.seconds;
  terms.cpu_lower_bound = ct.lower_bound;
  terms.kernels_s = g.seconds;
  terms.h2d_s = copies.seconds(in, host_bytes);
  terms.d2h_s = copies.seconds(out, host_bytes);
  OffloadErrorLevels e;
  offload_cpu_error_level(cpu, side, ct, e);
  gpu_error_level(gpu, "", e);
  std::vector<Transfer> all = in;
  all.insert(all.end(), out.begin(), out.end());
  if (!all.empty()) offload_copy_error_level(gpu, all, e);
  else e.copies_source = "the workload has no transfers";
  const OffloadSides both = sides(p);
  WorkloadOffloadView view{path, f.gpu.name, both, side.kind != CpuSide::Kind::measured, ct, g, e, decide_offload(terms, e), std::nullopt, std::nullopt};
  if (f.splittable) {
    view.overlap = chunked_overlap(gpu, {}, in, out, g.seconds, in.empty() ? HostMemory::pinned : in.front().key.memory);
    const double launch = std::min(g.launch_s, g.seconds);
    const auto gpu_of = [&](double x) {
      if (x <= 0) return 0.0;
      double t = launch + x * (g.seconds - launch);
      std::vector<Transfer> part = all;
      for (Transfer& s : part) s.bytes = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(x * static_cast<double>(s.bytes))));
      return t + copies.seconds(part);
    };
    const auto cpu_of = [&](double x) {
      if (x <= 0) return 0.0;
      CpuSide s = side;
      if (s.kind == CpuSide::Kind::measured) return x * s.measured_s;  // linear in the work: the only assumption a measured time allows
      if (s.kind == CpuSide::Kind::signature) {
        CpuSignature& q = s.signature;
        q.bytes_read *= x, q.bytes_written *= x, q.working_set_bytes *= x, q.flops_fp32 *= x, q.flops_fp64 *= x, q.serial_flops *= x;
        return cpu_side_time(cpu, s).seconds;
      }
      CpuWorkload w = offload_cpu_workload(s.kernel, s.n, s.iterations);
      w.bytes_read *= x, w.bytes_written *= x, w.flops *= x, w.serial_flops *= x, w.working_set_bytes *= x;
      return predict_cpu(cpu, s.kernel, s.n, w, s.threads).seconds;
    };
    view.split = split_work(cpu_of, gpu_of);
  }
  render(offload_workload_report(view), format, inv.out);
  return kExitOk;
}

}  // namespace

int cmd_offload(const Invocation& inv) {
  po::options_description options("perfmodel offload options");
  options.add_options()("kernel,k", po::value<std::string>(), "built-in computation: mv mm dot cg cholesky conv2d blur cosine")(
      "n", po::value<std::string>(), "problem size (matrix order, vector length or image side)")(
      "iterations", po::value<int>()->default_value(kCgIterations), "cg: iterations (A uploaded once)")(
      "threads", po::value<std::string>(), "CPU threads (default: the threads the CPU model was fitted at)")(
      "memory,m", po::value<std::string>()->default_value("pinned"), "host memory of the copies: pinned | pageable")(
      "workload,w", po::value<std::string>(), "a workload file: GPU kernels + transfers (format 1) and a `cpu:` section")(
      "sweep", "a table over n (built-in kernels)")("from-n", po::value<std::string>(), "smallest n searched (default: the GPU kernel's smallest)")(
      "to-n", po::value<std::string>(), "largest n searched (default: the GPU kernel's largest)")(
      "cpu-profile", po::value<std::string>(), "profile for the CPU side (default: --profile)")(
      "gpu-profile", po::value<std::string>(), "profile for the GPU side and the copies (default: --profile)");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel offload --kernel K --n N [--iterations I] [--threads T] [--memory pinned|pageable] [--sweep]\n"
                     "       perfmodel offload --workload FILE\n"
                     "       [--profile P] [--cpu-profile C] [--gpu-profile G]   (--profile: both sides; the others override one)\n\n"
                     "CPU or GPU? The CPU time, the GPU time (kernels + copies), the decision, the speedup with its uncertainty\n"
                     "and the term that decides it; the crossover n; for cg the break-even iteration count; chunked copy/compute\n"
                     "overlap; and the best CPU/GPU split of the work.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  if (vm.count("kernel") == vm.count("workload")) throw InputError("give either --kernel (with --n) or --workload FILE");
  return vm.count("kernel") ? offload_builtin(inv, vm, format) : offload_workload(inv, vm, format);
}

int validate_offload(const Invocation& inv, const po::variables_map& vm, Format format, const std::string& out_dir) {
  if (vm.count("quick")) throw InputError("--quick does not apply to the offload validation");
  const LoadedProfile loaded = load_selected_profile(vm);
  loaded.profile.require_gpu();
  loaded.profile.require_pcie();
  // --cpu-profile: another profile's CPU section predicts the CPU side (a CPU calibration of the
  // host that ran the validation, beside the GPU profile).
  std::optional<LoadedProfile> cpu_loaded;
  if (vm.count("cpu-profile")) {
    // The measured run's plan (its sizes around the predicted crossovers, its CPU time cap) comes
    // from --profile; a CPU calibration beside it applies to re-analysing the run.
    if (!vm.count("from")) throw InputError("--cpu-profile applies to re-analysing a recorded offload run (--from RUN); a run measures with --profile");
    cpu_loaded = load_path(vm["cpu-profile"].as<std::string>(), false);
    if (!cpu_loaded->profile.cpu)
      throw InputError("--cpu-profile " + cpu_loaded->path + ": the profile has no cpu section (perfmodel calibrate --only cpu)");
  } else {
    loaded.profile.require_cpu();
  }
  const Profile& cpu_profile = cpu_loaded ? cpu_loaded->profile : loaded.profile;
  OffloadRun run;
  std::vector<std::string> failures;
  if (vm.count("from")) {
    run = read_offload_run(vm["from"].as<std::string>());
  } else {
    OffloadPlanLimits limits;
    limits.holdout = vm.count("plan") && vm["plan"].as<std::string>() == "holdout";
    run = run_offload_validation(loaded.profile, bundled_resources(), out_dir, inv.command_line, &inv.err, failures, 170, limits);
    write_offload_run(out_dir, run);
  }
  // The interval's GPU level comes from the bundled recorded GPU validation run, as `perfmodel offload` takes it.
  const std::optional<ValidationRun>& gpu_run = bundled_gpu_run();
  // The interval's CPU level from the bundled recorded offload run (for that run itself: in-sample),
  // which is the bundled CPU section's record; another CPU profile's level is its own held-out error.
  const std::optional<OffloadRun>& reference = bundled_offload_run();
  const OffloadRun* cpu_reference = reference && !cpu_loaded ? &*reference : nullptr;
  const OffloadAnalysis a = analyse_offload(run, cpu_profile, loaded.profile, gpu_run ? &*gpu_run : nullptr, cpu_reference);
  write_offload_analysis(out_dir, run, a, loaded.note() + (cpu_loaded ? "; CPU side: " + cpu_loaded->note() : ""));
  Report report;
  add_profile_meta(report, loaded);
  if (cpu_loaded) report.meta.push_back({"cpu_profile", Cell(cpu_loaded->path)});
  add_offload_validation(report, run, a, out_dir, failures);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
