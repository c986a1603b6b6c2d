// The outputs of `perfmodel check transfers` (perfmodel/report/transfer_check_report.hpp).
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/report/transfer_check_report.hpp"

namespace perfmodel::report {
namespace {

Cell optional_cell(const std::optional<double>& v, Unit unit = Unit::none) { return v ? Cell(*v, unit) : Cell(nullptr); }

std::string prediction_of(TransferMode mode) {
  return mode == TransferMode::single
             ? "one synchronous cudaMemcpy timed with CUDA events around it (median of the copies of each size)"
             : "one copy of many queued back to back in a stream, compared with single copies";
}

Report sizes_report(const TransferCheckAnalysis& a) {
  Report r;
  r.meta.push_back({"prediction_of", Cell(prediction_of(a.mode))});
  Table t{"sizes", {}};
  for (const TransferCheckSize& s : a.sizes)
    t.rows.push_back({{"direction", Cell(to_string(s.key.direction))},
                      {"memory", Cell(to_string(s.key.memory))},
                      {"bytes", Cell(static_cast<std::int64_t>(s.bytes), Unit::bytes)},
                      {"copies", Cell(static_cast<std::int64_t>(s.copies))},
                      {"measured_s", Cell(s.measured_s, Unit::seconds)},
                      {"predicted_s", Cell(s.predicted_s, Unit::seconds)},
                      {"relative_error", Cell(s.relative_error, Unit::percent)},
                      {"interval_low_s", optional_cell(s.interval_low_s, Unit::seconds)},
                      {"interval_high_s", optional_cell(s.interval_high_s, Unit::seconds)},
                      {"inside_fraction", s.interval_low_s ? Cell(static_cast<double>(s.inside) / static_cast<double>(s.copies))
                                                           : Cell(nullptr)}});
  r.tables.push_back(std::move(t));
  return r;
}

Table summary_table(const TransferCheckAnalysis& a) {
  Table t{"summary", {}};
  for (const TransferCheckGroup& g : a.groups) {
    const bool covered = g.inside_fraction && *g.inside_fraction >= a.coverage_target;
    const bool accurate = !g.target_median_abs_rel_error ||
                          (g.median_abs_rel_error && *g.median_abs_rel_error <= *g.target_median_abs_rel_error);
    t.rows.push_back({{"group", Cell(g.name)},
                      {"sizes", Cell(static_cast<std::int64_t>(g.sizes))},
                      {"copies", Cell(static_cast<std::int64_t>(g.copies))},
                      {"inside_fraction", optional_cell(g.inside_fraction)},
                      {"coverage_target_fraction", Cell(a.coverage_target)},
                      {"median_abs_relative_error", optional_cell(g.median_abs_rel_error, Unit::percent)},
                      {"target_median_abs_relative_error", optional_cell(g.target_median_abs_rel_error, Unit::percent)},
                      {"meets_targets", g.inside_fraction ? Cell(covered && accurate) : Cell(nullptr)}});
  }
  return t;
}

}  // namespace

void write_transfer_check_tables(const std::string& out_dir, const TransferCheckAnalysis& analysis) {
  std::ostringstream sizes_csv, summary_csv;
  render(sizes_report(analysis), Format::csv, sizes_csv);
  Report summary;
  summary.tables.push_back(summary_table(analysis));
  render(summary, Format::csv, summary_csv);
  write_file_atomically(out_dir + "/transfer_check_sizes.csv", sizes_csv.str());
  write_file_atomically(out_dir + "/transfer_check_summary.csv", summary_csv.str());
}

void add_transfer_check(Report& report, const TransferCheckRecord& record, const TransferCheckAnalysis& analysis, const std::string& out_dir,
                        bool from_recorded) {
  report.meta.push_back({"prediction_of", Cell(prediction_of(analysis.mode))});
  report.meta.push_back({"mode", Cell(to_string(analysis.mode))});
  report.meta.push_back({"measured_on", Cell(record.provenance.device_name + ", " + record.provenance.date_utc)});
  report.meta.push_back({"seed", Cell(static_cast<std::int64_t>(record.seed))});
  report.meta.push_back({"copies", Cell(static_cast<std::int64_t>(record.copies.size()))});
  report.tables.push_back(summary_table(analysis));
  report.notes.push_back("wrote " + out_dir + "/{" + (from_recorded ? "" : "transfer_check.csv,") +
                         "transfer_check_sizes.csv,transfer_check_summary.csv}");
}

}  // namespace perfmodel::report
