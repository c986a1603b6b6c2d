// perfmodel report DIR [--profile P] [--validation RUN] [--farm RUN]
// The page itself (figures, sections, HTML and Markdown) is the report layer's:
// perfmodel/report/report_page.hpp. This command checks and loads its inputs.
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/report_page.hpp"

namespace perfmodel::cli {

int cmd_report(const Invocation& inv) {
  po::options_description options("perfmodel report options");
  options.add_options()("out,o", po::value<std::string>(), "output directory (created if missing): DIR or --out DIR")(
      "validation", po::value<std::string>(), "recorded validation run (default: the bundled H100 run)")(
      "farm", po::value<std::string>(), "recorded farm run (validate --only farm; default: the bundled run's '-farm' twin where it exists)");
  add_profile_option(options);
  po::positional_options_description positional;
  positional.add("out", 1);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel report DIR [--profile P] [--validation RUN] [--farm RUN]\n\n"
                     "Writes DIR/report.html (self-contained: every plot embedded) and DIR/report.md (plots beside it):\n"
                     "the profile summary, the GPU microbenchmark, transfer and CPU plots, the validation errors and plot,\n"
                     "the roofline, the speedups and the task farm. Needs gnuplot; no GPU.",
                     options, &positional, vm))
    return kExitOk;
  // Inputs and the output folder first; the report is built in a staging folder and appears
  // whole at the end, or not at all.
  if (!vm.count("out")) throw InputError("report: give the output folder (perfmodel report DIR, or --out DIR)");
  const std::string target = vm["out"].as<std::string>();
  check_output_directory(target, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  const Profile& profile = loaded.profile;
  loaded.gpu();
  loaded.cpu();  // the speedup section compares with the host CPU
  const std::string validation_dir = vm.count("validation") ? vm["validation"].as<std::string>() : bundled_validation_dir();
  if (!std::filesystem::exists(validation_dir + "/measurements.csv"))
    throw InputError((vm.count("validation") ? "--validation " : "") + validation_dir +
                     ": no recorded validation run (measurements.csv) to report");
  const ValidationRun run = read_validation_run(validation_dir);
  std::string farm_dir = vm.count("farm") ? vm["farm"].as<std::string>() : bundled_validation_dir() + "-farm";
  if (vm.count("farm") && !has_farm_run(farm_dir)) throw InputError("--farm: " + farm_dir + " holds no farm_measurements.csv");
  if (!has_farm_run(farm_dir)) farm_dir.clear();
  const std::optional<FarmRun> farm = farm_dir.empty() ? std::nullopt : std::optional<FarmRun>(read_farm_run(farm_dir));
  const GpuSampleFile gpu_samples = microbench_inputs(loaded, std::nullopt);
  const std::optional<TransferSampleFile> transfer_samples =
      profile.pcie ? std::optional<TransferSampleFile>(transfer_plot_inputs(loaded, std::nullopt)) : std::nullopt;
  cpu_plot_inputs(loaded);
  StagedDirectory stage(target, "--out");
  const int images = write_report_page(stage.path(), {profile, loaded.path, run, gpu_samples, transfer_samples ? &*transfer_samples : nullptr,
                                                      farm ? &*farm : nullptr, inv.command_line});
  stage.publish();
  inv.out << "wrote " << target << "/report.html (" << images << " figures embedded) and " << target << "/report.md\n";
  return kExitOk;
}

}  // namespace perfmodel::cli
