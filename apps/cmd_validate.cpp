// perfmodel validate [--quick] [--only KERNEL]... --out DIR [--profile P]
// perfmodel validate --from RECORDED_DIR --out DIR [--profile P]
// perfmodel validate --suite generalisation ... (cmd_validate_generalisation.cpp)
// perfmodel validate --only farm [--quick | --cases holdout] --out DIR [--profile P]   (the task farm; --from re-analyses it)
#include <algorithm>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/farm.hpp"
#include "perfmodel/validate/plan.hpp"
#include "offload_cli.hpp"
#include "perfmodel/validate/offload_validation.hpp"
#include "perfmodel/report/farm_report.hpp"
#include "perfmodel/report/validation_report.hpp"

namespace perfmodel::cli {
namespace {

// --only farm: the task farm on CUDA streams (validate/farm.hpp); measured, or re-analysed --from.
int validate_farm(const Invocation& inv, const po::variables_map& vm, bool from_recorded) {
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  const LoadedProfile loaded = load_selected_profile(vm);  // a bad --profile fails before the GPU is touched
  FarmRun run;
  std::vector<std::string> failures;
  if (from_recorded) {
    run = read_farm_run(vm["from"].as<std::string>());
  } else {
    const FarmCaseSet set = vm.count("quick") ? FarmCaseSet::quick : vm["cases"].as<std::string>() == "holdout" ? FarmCaseSet::holdout : FarmCaseSet::standard;
    run = run_farm_validation(set, inv.command_line, &inv.err, failures);
    write_farm_run(out_dir, run);
  }
  const FarmAnalysis analysis = analyse_farm(run, loaded.profile);
  write_farm_report(out_dir, run, analysis, loaded.path);

  Report report;
  add_profile_meta(report, loaded);
  add_farm_validation(report, run, analysis, out_dir, from_recorded, failures);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace

int cmd_validate_generalisation(const Invocation& inv, const po::variables_map& vm);

int cmd_validate(const Invocation& inv) {
  po::options_description options("perfmodel validate options");
  options.add_options()("quick", "default launch configurations at two sizes per kernel, no configuration sweeps")(
      "only", po::value<std::vector<std::string>>()->composing(), "validate only this kernel or family (repeatable); `offload`: the offload advisor (GPU offload vs CPU, host-timed, alone); `farm`: the task farm on CUDA streams (alone)")(
      "plan", po::value<std::string>(), "--only offload: default (sizes around the predicted crossover) or holdout (the midpoints between the default's sizes, none of them)")(
      "cpu-profile", po::value<std::string>(), "with --from an offload run: the profile whose CPU section predicts the CPU side (default: --profile), e.g. a CPU calibration of the host that ran it")(
      "from", po::value<std::string>(), "analyse a recorded run (its measurements.csv and resources.csv) instead of measuring")(
      "out,o", po::value<std::string>()->required(), "folder for measurements.csv, resources.csv, predictions.csv, report.md and the plots")(
      "suite", po::value<std::string>()->default_value("reference"),
      "reference (the reference kernels) or generalisation (kernels the model was never tuned on; --only takes a kernel or a class)")(
      "cases", po::value<std::string>()->default_value("standard"),
      "--only farm: standard (the default cases) or holdout (other task sizes and counts, disjoint from the standard ones)")(
      "workloads", po::value<std::string>(), "--suite generalisation: the folder of the kernels' signatures (default: the bundled workloads/generalisation)");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel validate [--quick] [--only KERNEL]... --out DIR [--profile P]\n"
                     "       perfmodel validate --from RECORDED_DIR --out DIR [--profile P]\n"
                     "       perfmodel validate --suite generalisation [--only KERNEL|CLASS]... [--from RECORDED_DIR] --out DIR [--profile P]\n"
                     "       perfmodel validate --only farm [--quick | --cases standard|holdout] --out DIR [--profile P]\n"
                     "       perfmodel validate --only offload [--plan default|holdout] --out DIR [--profile P]\n"
                     "       perfmodel validate --from RECORDED_OFFLOAD_DIR --out DIR [--profile P] [--cpu-profile C]\n\n"
                     "Runs every GPU reference kernel (checked against its CPU reference first) over its sizes and launch\n"
                     "configurations, predicts each run from the profile, and reports the errors per kernel and overall.\n"
                     "--only farm runs Cecconi's task farm instead (cosine, matmul, blur tasks over 0 … 2·#SM CUDA streams,\n"
                     "the data-parallel and pageable variants; about a minute on an H100) and reports the farm predictor's\n"
                     "errors per application and stream count and the best-S check; --from re-analyses such a run.",
                     options, nullptr, vm))
    return kExitOk;
  const std::string suite = vm["suite"].as<std::string>();
  if (suite == "generalisation" && vm.count("cpu-profile")) throw InputError("--cpu-profile applies to re-analysing a recorded offload run (--from RUN), not to --suite generalisation");
  if (suite == "generalisation") return cmd_validate_generalisation(inv, vm);
  if (suite != "reference") throw InputError("--suite: '" + suite + "' is not reference or generalisation");
  if (vm.count("workloads")) throw InputError("--workloads applies to --suite generalisation only");
  const auto only = vm.count("only") ? vm["only"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const bool farm = std::find(only.begin(), only.end(), "farm") != only.end();
  if (farm && only.size() > 1) throw InputError("--only farm runs the task farm alone: give it without other --only names");
  if (vm.count("cpu-profile") && std::find(only.begin(), only.end(), "offload") == only.end() &&
      !(vm.count("from") && is_offload_run(vm["from"].as<std::string>())))
    throw InputError("--cpu-profile applies to re-analysing a recorded offload run (--from RUN)");
  if (!vm["cases"].defaulted()) {
    const std::string cases = vm["cases"].as<std::string>();
    if (cases != "standard" && cases != "holdout") throw InputError("--cases: '" + cases + "' is not standard or holdout");
    if (!farm) throw InputError("--cases applies to --only farm");
    if (vm.count("from")) throw InputError("--from analyses a recorded run as it is: --cases does not apply");
    if (vm.count("quick") && cases == "holdout") throw InputError("--cases holdout: not with --quick");
  }
  if (vm.count("from") && vm.count("quick")) throw InputError("--from analyses a recorded run as it is: --quick does not apply");
  if (vm.count("from") && has_farm_run(vm["from"].as<std::string>())) {
    if (!only.empty() && !farm) throw InputError("--from: " + vm["from"].as<std::string>() + " holds a farm run; --only names kernels");
    return validate_farm(inv, vm, true);
  }
  if (farm && vm.count("from")) throw InputError("--from: " + vm["from"].as<std::string>() + " holds no farm_measurements.csv");
  if (farm) return validate_farm(inv, vm, false);
  const Format format = selected_format(vm);
  const std::string out_dir = vm["out"].as<std::string>();
  // The offload advisor's validation (copies + kernels vs the CPU, host-timed): its own runner and files.
  const bool offload = std::find(only.begin(), only.end(), "offload") != only.end();
  if (offload && only.size() > 1) throw InputError("--only offload runs the offload validation on its own: drop the other --only names");
  if (vm.count("plan")) {
    const std::string plan = vm["plan"].as<std::string>();
    if (plan != "default" && plan != "holdout") throw InputError("--plan: expected default or holdout, got '" + plan + "'");
    if (!offload) throw InputError("--plan applies to --only offload");
  }
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
  add_validation_summary(report, run, analysis, out_dir, plot_note, failures);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
