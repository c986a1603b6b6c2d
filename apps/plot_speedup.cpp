// perfmodel plot speedup --out DIR [--profile P] [--validation RUN] [--memory pinned|pageable]
// GPU (kernel + copies) against CPU over n for each reference kernel, measured and predicted on
// the same axes with the crossovers marked by the side that wins above them (the predicted curve
// and the crossovers are the offload advisor's, perfmodel/predictors/offload.hpp); and S0's
// stepwise comparison of kernel variants (naive → shared → optimised) as effective bandwidth.
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/speedup_report.hpp"

namespace perfmodel::cli {

int plot_speedup(const Invocation& inv) {
  po::options_description options("perfmodel plot speedup options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)")(
      "validation", po::value<std::string>(), "recorded validation run for the measured GPU points (default: the bundled H100 run)")(
      "memory,m", po::value<std::string>()->default_value("pinned"), "host memory of the copies: pinned | pageable")(
      "cpu-profile", po::value<std::string>(), "profile for the CPU side (default: --profile); e.g. your CPU's beside the bundled GPU profile");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot speedup --out DIR [--validation RUN] [--memory pinned|pageable] [--profile P] [--cpu-profile C]\n\n"
                     "Writes DIR/speedup.{gp,svg,png} (CPU time / (GPU kernel + copies) over n for each reference kernel,\n"
                     "measured and predicted, crossover marked) and DIR/variants.{gp,svg,png} (effective bandwidth of each\n"
                     "kernel variant), with their CSV data.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  check_output_directory(out_dir, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  if (!loaded.profile.gpu)
    throw InputError((vm.count("profile") ? "--profile " : "the bundled profile ") + loaded.path + ": the profile has no gpu section" +
                     (loaded.profile.cpu ? " — a CPU-only profile: give it as --cpu-profile beside a GPU profile" : ""));
  std::optional<Profile> cpu_profile;
  std::string cpu_path;
  if (vm.count("cpu-profile")) cpu_path = vm["cpu-profile"].as<std::string>(), cpu_profile = load_profile(cpu_path);
  if (!cpu_profile) loaded.cpu();  // the CPU side of the comparison
  const auto memory = parse_host_memory(vm["memory"].as<std::string>());
  if (!memory) throw InputError("--memory: '" + vm["memory"].as<std::string>() + "' is not pinned or pageable");
  std::optional<ValidationRun> run;
  const std::string dir = vm.count("validation") ? vm["validation"].as<std::string>() : bundled_validation_dir();
  if (vm.count("validation") || std::filesystem::exists(dir + "/measurements.csv")) run = read_validation_run(dir);
  StagedDirectory stage(out_dir, "--out");
  const SpeedupOutputs out = write_speedup(stage.path(), loaded.profile, loaded.path, run ? &*run : nullptr, *memory,
                                           cpu_profile ? &*cpu_profile : nullptr, cpu_path);
  stage.publish();
  Report report;
  add_profile_meta(report, loaded);
  add_speedup_summary(report, out, *memory, loaded.profile.provenance, cpu_profile ? &*cpu_profile : nullptr, cpu_path);
  report.notes.push_back("wrote " + vm["out"].as<std::string>() + "/{speedup,variants}.{gp,svg,png} with their CSV data");
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
