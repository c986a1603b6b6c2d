// perfmodel validate [--quick] [--only KERNEL]... --out DIR [--profile P]
// perfmodel validate --from RECORDED_DIR --out DIR [--profile P]
// perfmodel validate --suite generalisation ... (cmd_validate_generalisation.cpp)
#include <algorithm>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/plan.hpp"
#include "offload_cli.hpp"
#include "perfmodel/validate/offload_validation.hpp"
#include "validation_report.hpp"

namespace perfmodel::cli {

int cmd_validate_generalisation(const Invocation& inv, const po::variables_map& vm);

int cmd_validate(const Invocation& inv) {
  po::options_description options("perfmodel validate options");
  options.add_options()("quick", "default launch configurations at two sizes per kernel, no configuration sweeps")(
      "only", po::value<std::vector<std::string>>()->composing(), "validate only this kernel or family (repeatable); `offload`: the offload advisor (GPU offload vs CPU, host-timed)")(
      "from", po::value<std::string>(), "analyse a recorded run (its measurements.csv and resources.csv) instead of measuring")(
      "out,o", po::value<std::string>()->required(), "folder for measurements.csv, resources.csv, predictions.csv, report.md and the plots")(
      "suite", po::value<std::string>()->default_value("reference"),
      "reference (the reference kernels) or generalisation (kernels the model was never tuned on; --only takes a kernel or a class)")(
      "workloads", po::value<std::string>(), "--suite generalisation: the folder of the kernels' signatures (default: the bundled workloads/generalisation)");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel validate [--quick] [--only KERNEL]... --out DIR [--profile P]\n"
                     "       perfmodel validate --from RECORDED_DIR --out DIR [--profile P]\n"
                     "       perfmodel validate --suite generalisation [--only KERNEL|CLASS]... [--from RECORDED_DIR] --out DIR [--profile P]\n\n"
                     "Runs every GPU reference kernel (checked against its CPU reference first) over its sizes and launch\n"
                     "configurations, predicts each run from the profile, and reports the errors per kernel and overall.",
                     options, nullptr, vm))
    return kExitOk;
  const std::string suite = vm["suite"].as<std::string>();
  if (suite == "generalisation") return cmd_validate_generalisation(inv, vm);
  if (suite != "reference") throw InputError("--suite: '" + suite + "' is not reference or generalisation");
  if (vm.count("workloads")) throw InputError("--workloads applies to --suite generalisation only");
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  // The offload advisor's validation (copies + kernels vs the CPU, host-timed): its own runner and files.
  const auto only = vm.count("only") ? vm["only"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const bool offload = std::find(only.begin(), only.end(), "offload") != only.end();
  if (offload && only.size() > 1) throw InputError("--only offload runs the offload validation on its own: drop the other --only names");
  if (offload || (vm.count("from") && is_offload_run(vm["from"].as<std::string>())))
    return validate_offload(inv, vm, format, out_dir);
  // The output folder and the profile are checked before anything is measured: a full run takes
  // minutes of GPU time.
  check_output_directory(out_dir, "--out");
  const LoadedProfile loaded = load_selected_profile(vm);
  loaded.gpu();
  ValidationRun run;
  std::vector<std::string> failures;
  if (vm.count("from")) {
    if (vm.count("quick") || vm.count("only")) throw InputError("--from analyses a recorded run as it is: --quick and --only do not apply");
    run = read_validation_run(vm["from"].as<std::string>());
  } else {
    ValidationOptions options_v;
    options_v.quick = vm.count("quick") > 0;
    if (vm.count("only")) options_v.only = vm["only"].as<std::vector<std::string>>();
    validation_plan(options_v);  // unknown --only names fail before the GPU is touched
    run = run_validation(options_v, inv.command_line, &inv.err, failures);
    write_validation_run(out_dir, run);
  }
  const ValidationAnalysis analysis = analyse_validation(run, loaded.profile);
  const std::string plot_note = write_validation_outputs(out_dir, run, analysis, loaded.path);

  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"points", Cell(static_cast<std::int64_t>(analysis.points.size()))});
  report.meta.push_back({"validation_wall_s", Cell(run.wall_s, Unit::seconds)});
  report.tables.push_back(error_table(analysis));
  report.notes.push_back("wrote " + out_dir + "/{measurements.csv,resources.csv,predictions.csv,report.md,validation.gp}" +
                         (plot_note.empty() ? " and validation.{svg,png}" : ""));
  if (!plot_note.empty()) report.notes.push_back(plot_note);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
