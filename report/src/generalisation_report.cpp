// What `perfmodel validate --suite generalisation` prints (perfmodel/report/generalisation_report.hpp).
#include <optional>

#include "perfmodel/report/generalisation_report.hpp"

namespace perfmodel::report {
namespace {

Cell opt(const std::optional<double>& v, Unit unit) { return v ? Cell(*v, unit) : Cell(nullptr); }

}  // namespace

void add_generalisation_summary(Report& report, const GenRunRecord& run, const GenAnalysis& analysis, const std::string& out_dir,
                                bool from_recorded, const std::vector<std::string>& written, const std::vector<std::string>& failures) {
  report.meta.push_back({"suite", Cell("generalisation")});
  report.meta.push_back({"prediction_of", Cell("single: one run timed with CUDA events around it after an L2 flush; steady: per run, back to back")});
  report.meta.push_back({"measured_on", Cell(run.provenance.device_name + ", " + run.provenance.date_utc)});
  report.meta.push_back({"kernel_sizes", Cell(static_cast<std::int64_t>(run.measurements.size()))});
  report.meta.push_back({"validation_wall_s", Cell(run.wall_s, Unit::seconds)});
  if (analysis.predicted) {
    report.meta.push_back({"median_abs_error_single", Cell(analysis.single_all.median, Unit::percent)});
    report.meta.push_back({"p90_abs_error_single", Cell(analysis.single_all.p90, Unit::percent)});
    report.meta.push_back({"median_abs_error_single_half_b", Cell(analysis.single_b.median, Unit::percent)});
    // Halves C on were added over time: a run without one has no median for it (null).
    const std::pair<char, const ErrorStats*> later[] = {{'c', &analysis.single_c}, {'d', &analysis.single_d}, {'e', &analysis.single_e},
                                                        {'f', &analysis.single_f}, {'g', &analysis.single_g}, {'h', &analysis.single_h}};
    for (const auto& [half, stats] : later)
      report.meta.push_back({std::string("median_abs_error_single_half_") + half,
                             stats->count > 0 ? Cell(stats->median, Unit::percent) : Cell(nullptr)});
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
  if (!from_recorded) files = out_dir + "/{measurements.csv,resources.csv}, ";
  for (const std::string& w : written) files += (files.empty() || files.back() == ' ' ? "" : ", ") + w;
  report.notes.push_back("wrote " + files);
  if (!analysis.predicted) report.notes.push_back("no predictions: " + analysis.not_predicted_because);
  for (const std::string& f : failures) report.notes.push_back("FAILED: " + f);
}

}  // namespace perfmodel::report
