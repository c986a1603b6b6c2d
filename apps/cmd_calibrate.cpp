// perfmodel calibrate [--list] [--only KEY|PREFIX]... [--quick | --pcie-effort F] [--pcie-host-buffer rotating|fixed] [--out PROFILE.yaml]
// perfmodel fit [--samples PCIE.csv] [--gpu-samples GPU.csv] [--cpu-samples CPU.csv] [--profile P.yaml] --out PROFILE.yaml
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "cli_common.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/pcie_sizes.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/profile_refit.hpp"
#include "perfmodel/report/benchmark_list.hpp"
#include "perfmodel/report/profile_report.hpp"

namespace perfmodel::cli {

int cmd_calibrate(const Invocation& inv) {
  po::options_description options("perfmodel calibrate options");
  options.add_options()("list", "list the benchmarks of this build, and whether each can run here")(
      "only", po::value<std::vector<std::string>>()->composing(), "run only benchmarks with this key or key prefix (repeatable), e.g. --only pcie")(
      "quick", "fewer repetitions (smoke runs; not for profiles you keep)")(
      "pcie-effort", po::value<double>()->default_value(1.0),
      "PCIe sampling effort (1-16): the time budget and the samples per size times this, the precision target over "
      "its square root (the PCIe curves take about as many times longer: ~12 s at 1 on the H100)")(
      "pcie-host-buffer", po::value<std::string>()->default_value("rotating"),
      "host bytes of the PCIe copies: rotating (each copy after the previous one's: a host side not in the "
      "host's caches) | fixed (every copy at the start of one buffer, as nvbandwidth does: what the host caches "
      "then depends on the copies before)")(
      "out,o", po::value<std::string>()->default_value("perfmodel-profile.yaml"),
      "profile to write (atomically); raw samples go beside it as NAME.{gpu,cpu,pcie}_samples.csv");
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel calibrate [--list] [--only KEY]... [--quick | --pcie-effort F] [--pcie-host-buffer rotating|fixed] [--out PROFILE.yaml]\n\n"
                     "Runs the microbenchmarks (GPU 0 and the host CPU), keeps every raw sample, fits the models and writes a profile.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const BenchmarkRegistry registry = make_default_registry();
  if (vm.count("list")) {
    std::vector<BenchmarkListing> listing;
    for (const auto& b : registry.all()) listing.push_back({b->key(), b->description(), b->unavailable_reason()});
    const Report report = benchmark_list_report(built_with_cuda(), listing, registry.all().empty() ? *gpu_unavailable_reason() : "");
    render(report, format, inv.out);
    return kExitOk;
  }
  std::vector<std::string> only;
  if (vm.count("only")) only = vm["only"].as<std::vector<std::string>>();

  CalibrationOptions calibration;
  calibration.quick = vm.count("quick") > 0;
  calibration.pcie_effort = vm["pcie-effort"].as<double>();
  try {
    (void)PcieSampling{}.scaled(calibration.pcie_effort);  // checked here, before anything is measured
  } catch (const std::invalid_argument& e) {
    throw InputError("--pcie-effort: " + std::string(e.what()) + ", got " + plot_number(calibration.pcie_effort));
  }
  if (calibration.quick && !vm["pcie-effort"].defaulted()) throw InputError("--pcie-effort: not with --quick");
  const std::string host_buffer = vm["pcie-host-buffer"].as<std::string>();
  if (!is_pcie_host_buffer(host_buffer)) throw InputError("--pcie-host-buffer: expected fixed or rotating, got '" + host_buffer + "'");
  if (host_buffer == "fixed") calibration.pcie_host_buffer = PcieHostBuffer::fixed;
  calibration.progress = &inv.err;
  const std::string out_path = vm["out"].as<std::string>();
  // Checked before anything is measured: a full calibration takes minutes, and the profile and
  // its samples files are written only at its end.
  check_output_file(out_path, "--out");
  for (const char* kind : {"gpu", "cpu", "pcie"}) {
    const std::string samples = directory_of(out_path) + "/" + samples_file_name_for(out_path, kind);
    check_output_file(samples, "--out (its samples file)");
  }
  // Every flag is checked before this: a build without CUDA answers a bad flag as any build does.
  // A GPU benchmark asked for by name in such a build: the machine, not the flag, is the problem
  // (a key that exists in no build is the flag's, and the registry says so below).
  if (!built_with_cuda())
    for (const std::string& pattern : only)
      if (names_gpu_benchmark(pattern)) throw RuntimeFailure("cannot calibrate " + pattern + ": " + *gpu_unavailable_reason());
  const CalibrationOutputs outputs = run_calibration(registry, only, calibration, out_path, inv.command_line);
  Report report = profile_report(load_profile(outputs.profile_path));
  std::string wrote = "wrote " + outputs.profile_path;
  for (const std::string* extra : {&outputs.gpu_samples_path, &outputs.cpu_samples_path, &outputs.pcie_samples_path})
    if (!extra->empty()) wrote += ", " + *extra;
  report.notes.push_back(wrote);
  render(report, format, inv.out);
  return kExitOk;
}

int cmd_fit(const Invocation& inv) {
  po::options_description options("perfmodel fit options");
  options.add_options()("samples,s", po::value<std::string>(), "raw transfer samples (NAME.pcie_samples.csv written by calibrate)")(
      "gpu-samples", po::value<std::string>(), "raw GPU microbenchmark samples (NAME.gpu_samples.csv written by calibrate)")(
      "cpu-samples", po::value<std::string>(), "raw CPU benchmark samples (NAME.cpu_samples.csv written by calibrate)")(
      "streams-samples", po::value<std::string>(),
      "GPU samples with the gpu.streams series (calibrate --only gpu.streams), measured on the profile's GPU model, maybe "
      "another day: fitted into gpu.streams of --profile, which keeps everything else (the section records its own provenance)")(
      "profile,p", po::value<std::string>(),
      "start from this profile (the same calibration run as the samples): the sections re-fitted from the samples given "
      "replace its own, the others are kept")(
      "out,o", po::value<std::string>()->required(), "profile to write (atomically; may be --profile itself)")(
      "timer", po::value<std::string>()->default_value("events"), "which timing to fit: events (CUDA events) | host (steady clock)")(
      "repeat-samples", po::value<std::vector<std::string>>()->composing(),
      "raw transfer samples of another calibration run of the same machine (repeatable): the intervals of the curves "
      "fitted from --samples widen to cover its copies too (the spread between runs, not only within one)");
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel fit [--samples PCIE.csv] [--gpu-samples GPU.csv] [--cpu-samples CPU.csv] [--profile P.yaml] "
                     "--out PROFILE.yaml\n\n"
                     "Re-fits the models from recorded raw samples; provenance is taken from the samples files, and the\n"
                     "re-fit (this command, toolkit version and commit, date) is recorded as provenance.refit. With --profile,\n"
                     "the sections not re-fitted are kept from it: a profile brought up to a newer toolkit's fits without\n"
                     "measuring again (its samples must come from the run that wrote it).",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const std::string timer_name = vm["timer"].as<std::string>();
  if (timer_name != "events" && timer_name != "host") throw InputError("--timer: must be events or host, got '" + timer_name + "'");
  if (!vm.count("samples") && !vm.count("gpu-samples") && !vm.count("cpu-samples") && !vm.count("streams-samples"))
    throw InputError("fit: give at least one of --samples, --gpu-samples, --cpu-samples, --streams-samples");
  if (vm.count("streams-samples") && !vm.count("profile") && !vm.count("gpu-samples"))
    throw InputError("--streams-samples: give --profile (or --gpu-samples) to merge the gpu.streams section into");
  if (vm.count("repeat-samples") && !vm.count("samples"))
    throw InputError("--repeat-samples: needs --samples (the run whose curves it widens)");
  const std::string out_path = vm["out"].as<std::string>();
  check_output_file(out_path, "--out");
  ProfileRefitInputs inputs;
  auto path_of = [&](const char* flag) { return vm.count(flag) ? std::optional<std::string>(vm[flag].as<std::string>()) : std::nullopt; };
  inputs.base_profile = path_of("profile");
  inputs.gpu_samples = path_of("gpu-samples");
  inputs.streams_samples = path_of("streams-samples");
  inputs.cpu_samples = path_of("cpu-samples");
  inputs.pcie_samples = path_of("samples");
  if (vm.count("repeat-samples")) inputs.repeat_pcie_samples = vm["repeat-samples"].as<std::vector<std::string>>();
  inputs.timer = timer_name == "events" ? TimerSource::event : TimerSource::wall;
  inputs.command_line = inv.command_line;
  inputs.output_path = out_path;
  const ProfileRefit refit = refit_profile(inputs);
  for (const std::string& note : refit.notes) inv.err << note << "\n";
  const Profile& profile = refit.profile;
  save_profile(profile, out_path);
  Report report = profile_report(profile);
  report.notes.push_back("wrote " + out_path);
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
