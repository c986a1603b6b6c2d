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
#include <sstream>

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

namespace perfmodel::cli {
namespace {

std::string format_number(double v) {
  std::ostringstream o;
  o.precision(3);
  o << v;
  return o.str();
}

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

void add_offload_meta(Report& report, const OffloadProfiles& p, bool cpu_used) {
  // The common header (docs/output.md): the profile is the GPU side's; bundled only when every side used is.
  report.meta.push_back({"profile", Cell(p.gpu.path)});
  report.meta.push_back({"profile_source", Cell(p.gpu.bundled && (!cpu_used || p.cpu.bundled) ? "bundled" : "user")});
  report.meta.push_back({"gpu_profile", Cell(p.gpu.path)});
  report.meta.push_back({"device", Cell(p.gpu.profile.provenance.device_name)});
  report.meta.push_back({"gpu_host", Cell(p.gpu.profile.provenance.host_name + " (" + p.gpu.profile.provenance.host_cpu + ")")});
  if (cpu_used) {
    report.meta.push_back({"cpu_profile", Cell(p.cpu.path)});
    report.meta.push_back({"host_cpu", Cell(p.cpu.profile.provenance.host_cpu)});
    report.meta.push_back({"cpu_host", Cell(p.cpu.profile.provenance.host_name)});
    const Provenance &a = p.cpu.profile.provenance, &b = p.gpu.profile.provenance;
    if (p.cpu.path != p.gpu.path && (a.host_name != b.host_name || a.host_cpu != b.host_cpu))
      report.notes.push_back("warning: the CPU profile (host " + a.host_name + ", " + a.host_cpu + ") and the GPU profile (host " + b.host_name + ", " +
                             b.host_cpu + ") come from different hosts: the CPU time is the first host's, the copies and kernels the second's");
  }
  report.notes.push_back("GPU side: " + p.gpu.note());
  if (cpu_used && p.cpu.path != p.gpu.path) report.notes.push_back("CPU side: " + p.cpu.note());
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

Table error_table(const OffloadErrorLevels& e) {
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

  Report report;
  const std::string gk = offload_gpu_kernel(kernel);
  report.meta.push_back({"prediction_of", Cell("one offloaded " + kernel + ": the host's clock around the copies in, the " + gk +
                                               " kernels and the copies out (blocking cudaMemcpy, " + to_string(*memory) +
                                               " memory), against the CPU reference kernel")});
  report.meta.push_back({"kernel", Cell(kernel)});
  report.meta.push_back({"gpu_kernel", Cell(gk)});
  if (kernel == "cg") report.meta.push_back({"iterations", Cell(static_cast<std::int64_t>(iterations))});
  add_offload_meta(report, p, true);

  const CrossoverResult cross = find_crossover(speedup, from, to, multiple);
  Table ct{"crossover", {}};
  if (cross.crossings.empty())
    ct.rows.push_back({{"crossover_n", Cell(nullptr)}, {"wins_above", Cell(nullptr)}, {"from_n", Cell(cross.from_n)}, {"to_n", Cell(cross.to_n)},
                       {"verdict", Cell(cross.verdict)}});
  for (const Crossing& c : cross.crossings)
    ct.rows.push_back({{"crossover_n", Cell(c.n)}, {"wins_above", Cell(c.wins_above)}, {"from_n", Cell(cross.from_n)}, {"to_n", Cell(cross.to_n)},
                       {"verdict", Cell(cross.verdict)}});

  if (vm.count("n")) {
    const double n = parse_positive_number(vm["n"].as<std::string>(), "--n");
    const BuiltinOffload o = predict_builtin_offload(cpu, gpu, kernel, n, options, resources);
    report.meta.push_back({"n", Cell(n)});
    report.meta.push_back({"cpu_threads", Cell(o.cpu.threads)});
    if (o.cpu.outside_fitted_sizes)
      report.notes.push_back("warning: the CPU working set lies outside the sizes the CPU model of " + kernel +
                             " was fitted on: its efficiency is held at the nearest fitted size (an extrapolation)");
    if (o.cpu.extrapolated_threads) report.notes.push_back("warning: more CPU threads than the calibration measured");
    OffloadErrorLevels e;
    CpuSide side;
    side.kernel = kernel, side.n = n, side.iterations = iterations, side.threads = threads;
    // The CPU level: the bundled offload run's spread for this kernel when the CPU side is the
    // bundled profile's (the one that run was predicted from), else the model's held-out error.
    if (!(bundled_offload_run() && p.cpu.bundled &&
          offload_cpu_error_level(offload_cpu_spread(*bundled_offload_run(), cpu, bundled_resources()), kernel, o.cpu.threads, e)))
      offload_cpu_error_level(cpu, side, o.cpu, e);
    gpu_error_level(gpu, gk, e);
    std::vector<Transfer> all = o.gpu.copies_in;
    all.insert(all.end(), o.gpu.copies_out.begin(), o.gpu.copies_out.end());
    offload_copy_error_level(gpu, all, e);
    const OffloadDecision d = decide_offload(o.terms, e);
    Record r = {{"n", Cell(n)}};
    for (auto& c : decision_record(d)) r.push_back(c);
    report.tables.push_back({"offload", {r}});
    Table parts{"gpu_kernels", {}};
    for (const auto& [name, s] : o.kernel_phases_s) parts.rows.push_back({{"phase_kernel", Cell(name)}, {"predicted_s", Cell(s, Unit::seconds)}});
    parts.rows.push_back({{"phase_kernel", Cell("(bound: " + o.gpu_bound + ")")}, {"predicted_s", Cell(o.terms.kernels_s, Unit::seconds)}});
    report.tables.push_back(parts);
    Table mem{"host_memory", {}};
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable}) {
      OffloadOptions om = options;
      om.memory = m;
      try {
        const BuiltinOffload x = predict_builtin_offload(cpu, gpu, kernel, n, om, resources);
        mem.rows.push_back({{"memory", Cell(to_string(m))}, {"copies_s", Cell(x.terms.h2d_s + x.terms.d2h_s, Unit::seconds)},
                            {"gpu_s", Cell(x.terms.gpu_s(), Unit::seconds)}, {"speedup", Cell(x.terms.cpu_s / x.terms.gpu_s())}});
      } catch (const InputError& err) {
        mem.rows.push_back({{"memory", Cell(to_string(m))}, {"copies_s", Cell(nullptr)}, {"gpu_s", Cell(nullptr)}, {"speedup", Cell(nullptr)}});
        report.notes.push_back(std::string(to_string(m)) + ": " + err.what());
      }
    }
    report.tables.push_back(mem);
    report.tables.push_back(error_table(e));
    report.tables.push_back(ct);
    if (kernel == "cg") {
      const ReuseResult reuse = reuse_break_even([&](int i) {
        OffloadOptions oi = options;
        oi.iterations = i;
        return predict_builtin_offload(cpu, gpu, kernel, n, oi, resources).terms;
      });
      report.tables.push_back({"reuse",
                               {{{"break_even_iterations", opt(reuse.break_even_iterations)},
                                 {"cpu_fixed_s", Cell(reuse.cpu_fixed_s, Unit::seconds)},
                                 {"cpu_per_iteration_s", Cell(reuse.cpu_per_iteration_s, Unit::seconds)},
                                 {"gpu_fixed_s", Cell(reuse.gpu_fixed_s, Unit::seconds)},
                                 {"gpu_per_iteration_s", Cell(reuse.gpu_per_iteration_s, Unit::seconds)},
                                 {"verdict", Cell(reuse.verdict)}}}});
    }
    report.tables.push_back(overlap_table(overlap_builtin_offload(gpu, o, *memory)));
    report.tables.push_back(split_table(split_builtin_offload(cpu, gpu, o, options)));
    report.notes.push_back("decision: " + std::string(d.decision == "gpu" ? "offload to the GPU" : "keep on the CPU") + " (speedup " +
                           format_number(d.speedup) + ", " + (d.firm ? "firm" : "within the models' error: a close call") + "): " + d.reason);
  } else {
    report.tables.push_back(ct);
  }
  report.notes.push_back("sizes: " + cross.verdict);
  if (vm.count("sweep")) {
    Table sw{"sweep", {}};
    const int points = 16;
    std::set<double> sizes;
    for (int i = 0; i < points; ++i) {
      const double u = static_cast<double>(i) / (points - 1);
      sizes.insert(std::max(cross.from_n, std::round(std::exp(std::log(cross.from_n) + u * (std::log(cross.to_n) - std::log(cross.from_n))) / multiple) *
                                              multiple));
    }
    for (double n : sizes) {
      try {
        const BuiltinOffload o = predict_builtin_offload(cpu, gpu, kernel, n, options, resources);
        const double s = o.terms.cpu_s / o.terms.gpu_s();
        sw.rows.push_back({{"n", Cell(n)}, {"cpu_s", Cell(o.terms.cpu_s, Unit::seconds)}, {"gpu_kernels_s", Cell(o.terms.kernels_s, Unit::seconds)},
                           {"copies_s", Cell(o.terms.h2d_s + o.terms.d2h_s, Unit::seconds)}, {"gpu_s", Cell(o.terms.gpu_s(), Unit::seconds)},
                           {"speedup", Cell(s)}, {"decision", Cell(s > 1 ? "gpu" : "cpu")}});
      } catch (const InputError&) {
      }
    }
    report.tables.push_back(sw);
  }
  render(report, format, inv.out);
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
  const OffloadDecision d = decide_offload(terms, e);

  Report report;
  report.meta.push_back({"prediction_of", Cell("the workload " + f.gpu.name + " offloaded: its transfers (blocking copies) around its kernels, against its CPU side (" + ct.model + ")")});
  report.meta.push_back({"workload", Cell(path)});
  report.meta.push_back({"cpu_threads", ct.threads > 0 ? Cell(ct.threads) : Cell(nullptr)});
  add_offload_meta(report, p, side.kind != CpuSide::Kind::measured);
  report.tables.push_back({"offload", {decision_record(d)}});
  Table parts{"gpu_kernels", {}};
  for (const GpuPhasePrediction& ph : g.phases) parts.rows.push_back({{"phase_kernel", Cell(ph.name)}, {"predicted_s", Cell(ph.seconds, Unit::seconds)}, {"bound", Cell(ph.bound)}});
  report.tables.push_back(parts);
  report.tables.push_back(error_table(e));
  if (f.splittable) {
    report.tables.push_back(overlap_table(chunked_overlap(gpu, {}, in, out, g.seconds, in.empty() ? HostMemory::pinned : in.front().key.memory)));
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
    report.tables.push_back(split_table(split_work(cpu_of, gpu_of)));
  } else {
    report.notes.push_back("overlap and split: not evaluated (the `cpu:` section does not say `splittable: true`)");
  }
  report.notes.push_back("sizes: a workload file describes one size; a crossover over n needs a workload written in n");
  report.notes.push_back("decision: " + std::string(d.decision == "gpu" ? "offload to the GPU" : "keep on the CPU") + " (speedup " + format_number(d.speedup) +
                         ", " + (d.firm ? "firm" : "within the models' error: a close call") + "): " + d.reason);
  render(report, format, inv.out);
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
  loaded.profile.require_cpu();
  loaded.profile.require_gpu();
  loaded.profile.require_pcie();
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
  // The interval's CPU level from the bundled recorded offload run (for that run itself: in-sample).
  const std::optional<OffloadRun>& reference = bundled_offload_run();
  const OffloadAnalysis a = analyse_offload(run, loaded.profile, loaded.profile, gpu_run ? &*gpu_run : nullptr, reference ? &*reference : nullptr);
  write_offload_analysis(out_dir, run, a, loaded.note());
  Report report;
  add_profile_meta(report, loaded);
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
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
