#pragma once
// What `perfmodel validate --suite generalisation` prints (the files it writes are the validation
// layer's: write_generalisation_report).
#include <string>
#include <vector>

#include "perfmodel/report/report.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel::report {

// The suite's header fields (errors of the single-run predictions overall and per half where
// predicted), one row per kernel and size, and notes on the files written (`written`, and the
// record itself unless it was read `from_recorded`), on why nothing was predicted, and the failures.
void add_generalisation_summary(Report& report, const GenRunRecord& run, const GenAnalysis& analysis, const std::string& out_dir,
                                bool from_recorded, const std::vector<std::string>& written, const std::vector<std::string>& failures);

}  // namespace perfmodel::report
