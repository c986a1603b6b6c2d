// perfmodel validate --suite generalisation [--only KERNEL|CLASS]... --out DIR [--profile P] [--workloads DIR]
// perfmodel validate --suite generalisation --from RECORDED_DIR --out DIR [--profile P] [--workloads DIR]
// The suite of kernels the model was never tuned on (docs/generalisation-suite.md).
#include <filesystem>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel::cli {
namespace {

// data/workloads/generalisation beside the bundled profiles folder.
std::string bundled_generalisation_workloads() {
  const std::string profiles = bundled_profiles_dir();
  return profiles.substr(0, profiles.size() - std::string("profiles").size()) + "workloads/generalisation";
}

Cell opt(const std::optional<double>& v, Unit unit) { return v ? Cell(*v, unit) : Cell(nullptr); }

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
  report.meta.push_back({"suite", Cell("generalisation")});
  report.meta.push_back({"prediction_of", Cell("single: one run timed with CUDA events around it after an L2 flush; steady: per run, back to back")});
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"kernel_sizes", Cell(static_cast<std::int64_t>(run.measurements.size()))});
  report.meta.push_back({"validation_wall_s", Cell(run.wall_s, Unit::seconds)});
  if (analysis.predicted) {
    report.meta.push_back({"median_abs_error_single", Cell(analysis.single_all.median, Unit::percent)});
    report.meta.push_back({"p90_abs_error_single", Cell(analysis.single_all.p90, Unit::percent)});
    report.meta.push_back({"median_abs_error_single_half_b", Cell(analysis.single_b.median, Unit::percent)});
    report.meta.push_back({"median_abs_error_single_half_c",
                           analysis.single_c.count > 0 ? Cell(analysis.single_c.median, Unit::percent) : Cell(nullptr)});
    report.meta.push_back({"median_abs_error_single_half_d",
                           analysis.single_d.count > 0 ? Cell(analysis.single_d.median, Unit::percent) : Cell(nullptr)});
    report.meta.push_back({"median_abs_error_single_half_e",
                           analysis.single_e.count > 0 ? Cell(analysis.single_e.median, Unit::percent) : Cell(nullptr)});
  }
  Table table{"kernels", {}};
  for (const GenRow& r : analysis.rows) {
    const GenMeasurement& m = r.measurement;
    table.rows.push_back({{"kernel", Cell(m.kernel)},
                          {"class", Cell(m.klass)},
                          {"half", Cell(std::string(1, m.half))},
                          {"params", Cell(gen::params_string(m.params))},
                          {"measured_single_s", Cell(r.measured_single_s, Unit::seconds)},
                          {"measured_steady_s", Cell(r.measured_steady_s, Unit::seconds)},
                          {"predicted_single_s", opt(r.prediction.single_s, Unit::seconds)},
                          {"relative_error_single", opt(r.error_single, Unit::percent)},
                          {"predicted_steady_s", opt(r.prediction.steady_s, Unit::seconds)},
                          {"relative_error_steady", opt(r.error_steady, Unit::percent)}});
  }
  report.tables.push_back(std::move(table));
  std::string files;
  if (!vm.count("from")) files = out_dir + "/{measurements.csv,resources.csv}, ";
  for (const std::string& w : written) files += (files.empty() || files.back() == ' ' ? "" : ", ") + w;
  report.notes.push_back("wrote " + files);
  if (!analysis.predicted) report.notes.push_back("no predictions: " + analysis.not_predicted_because);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
  render(report, format, inv.out);
  return failures.empty() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace perfmodel::cli
