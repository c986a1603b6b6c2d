#pragma once
// The files `perfmodel validate` leaves behind (predictions.csv, report.md, validation.{gp,svg,png})
// and the error table it prints.
#include <string>
#include <vector>

#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

// "12.3 %" for 0.123: how the reports print errors.
std::string pct(double fraction);

Table error_table(const ValidationAnalysis& analysis);
// Returns "" or a note on what could not be drawn (no gnuplot): the numbers are written regardless.
// The files are staged and put into dir together (StagedDirectory).
std::string write_validation_outputs(const std::string& dir, const ValidationRun& run, const ValidationAnalysis& analysis,
                                     const std::string& profile_path);

// What `perfmodel validate` prints: the run's header fields, the error table, and notes on the files
// written under out_dir, what could not be drawn (`plot_note`) and the failures.
void add_validation_summary(Report& report, const ValidationRun& run, const ValidationAnalysis& analysis, const std::string& out_dir,
                            const std::string& plot_note, const std::vector<std::string>& failures);

}  // namespace perfmodel::report
