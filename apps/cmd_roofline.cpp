// perfmodel roofline --out DIR [--profile P] [--validation RUN] [--workload F]... [--intensity I]...
// The hierarchical roofline of a profile with measured and predicted kernel points.
#include <filesystem>
#include <optional>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/predictors/roofline.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/roofline_report.hpp"
#include "perfmodel/validate/analysis.hpp"

namespace perfmodel::cli {

int cmd_roofline(const Invocation& inv) {
  po::options_description options("perfmodel roofline options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)")(
      "validation", po::value<std::string>(), "recorded validation run for the kernel points (default: the bundled H100 run)")(
      "no-kernels", "draw no kernel points")(
      "workload,w", po::value<std::vector<std::string>>()->composing(), "a workload file to place on the roofline (repeatable)")(
      "intensity", po::value<std::vector<std::string>>()->composing(), "print the bound of this intensity, flop/byte (repeatable)")(
      "memory", po::value<std::string>()->default_value("dram"), "memory roof for --intensity: dram | l2 | shared | pcie")(
      "precision", po::value<std::string>()->default_value("fp32"), "compute roof for --intensity: fp32 | fp64 | fp16, and where the profile measured them tensor_fp16 | tensor_bf16 | tensor_tf32 | tensor_fp8");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel roofline --out DIR [--validation RUN] [--workload F]... [--intensity I]... [--profile P]\n\n"
                     "Draws the hierarchical roofline of the profile (DRAM, L2, shared, PCIe roofs; FP32, FP64, FP16 roofs;\n"
                     "datasheet peaks faintly) with the reference kernels measured and predicted side by side, and prints\n"
                     "the bound of each point: attainable performance, ridge point, memory- or compute-bound, headroom.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  check_output_directory(out_dir, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  loaded.gpu();
  std::optional<ValidationRun> run;
  if (!vm.count("no-kernels")) {
    const std::string dir = vm.count("validation") ? vm["validation"].as<std::string>() : bundled_validation_dir();
    if (vm.count("validation") || std::filesystem::exists(dir + "/measurements.csv")) run = read_validation_run(dir);
  }
  std::vector<std::string> workloads;
  if (vm.count("workload")) workloads = vm["workload"].as<std::vector<std::string>>();
  std::vector<double> intensities;  // checked before anything is drawn
  if (vm.count("intensity"))
    for (const std::string& text : vm["intensity"].as<std::vector<std::string>>())
      intensities.push_back(parse_positive_number(text, "--intensity"));
  const Roofline named = roofline_of(loaded.profile);  // --memory and --precision name roofs that exist
  try {
    named.memory_roof(vm["memory"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError("--memory: " + std::string(e.what()));
  }
  try {
    named.compute_roof(vm["precision"].as<std::string>());
  } catch (const InputError& e) {
    throw InputError("--precision: " + std::string(e.what()));
  }
  StagedDirectory stage(out_dir, "--out");
  const RooflineOutputs out = write_roofline(stage.path(), loaded.profile, run ? &*run : nullptr, workloads);
  stage.publish();
  Report report;
  add_profile_meta(report, loaded);
  std::vector<RooflineBound> bounds;
  for (double intensity : intensities)
    bounds.push_back(roofline_bound(out.roofline, intensity, vm["memory"].as<std::string>(), vm["precision"].as<std::string>()));
  add_roofline_tables(report, out, intensities, bounds);
  report.notes.push_back("wrote " + vm["out"].as<std::string>() + "/roofline.{gp,svg,png} with roofs.csv, points.csv, workloads.csv");
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
