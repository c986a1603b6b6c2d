// perfmodel validate --suite generalisation [--only KERNEL|CLASS]... --out DIR [--profile P] [--workloads DIR]
// perfmodel validate --suite generalisation --from RECORDED_DIR --out DIR [--profile P] [--workloads DIR]
// The suite of kernels the model was never tuned on (docs/generalisation-suite.md).
#include <filesystem>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/report/generalisation_report.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel::cli {
namespace {

// data/workloads/generalisation beside the bundled profiles folder.
std::string bundled_generalisation_workloads() {
  const std::string profiles = bundled_profiles_dir();
  return profiles.substr(0, profiles.size() - std::string("profiles").size()) + "workloads/generalisation";
}

}  // namespace

int cmd_validate_generalisation(const Invocation& inv, const po::variables_map& vm) {
  if (vm.count("quick")) throw InputError("--quick applies to the reference suite; --suite generalisation has one plan");
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  const std::string workloads = vm.count("workloads") ? vm["workloads"].as<std::string>() : bundled_generalisation_workloads();
  GenRunRecord run;
  std::vector<std::string> failures;
  // Inputs first: the profile and the plan are checked before the GPU is touched.
  const LoadedProfile loaded = load_selected_profile(vm);
  if (vm.count("from")) {
    if (vm.count("only")) throw InputError("--from analyses a recorded run as it is: --only does not apply");
    run = read_generalisation_run(vm["from"].as<std::string>());
  } else {
    const std::vector<std::string> only = vm.count("only") ? vm["only"].as<std::vector<std::string>>() : std::vector<std::string>{};
    const std::vector<GenPoint> plan = generalisation_plan(only);
    run = run_generalisation(plan, inv.command_line, &inv.err, failures, out_dir);
    if (run.measurements.empty())
      throw RuntimeFailure("no kernel of the plan was measured" + (failures.empty() ? std::string() : ": " + failures.front()));
    write_generalisation_run(out_dir, run);
  }
  std::string why_not;
  const std::optional<GenPredictor> predictor = format2_predictor(loaded.profile, workloads, why_not);
  const GenAnalysis analysis = analyse_generalisation(run, predictor ? *predictor : GenPredictor{}, why_not);
  const std::vector<std::string> written = write_generalisation_report(out_dir, run, analysis, loaded.note(), inv.command_line);

  Report report;
  add_profile_meta(report, loaded);
  add_generalisation_summary(report, run, analysis, out_dir, vm.count("from") > 0, written, failures);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
