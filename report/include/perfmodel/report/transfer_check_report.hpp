#pragma once
// The outputs of `perfmodel check transfers`: its two CSV tables beside the record and the summary
// it prints.
#include <string>

#include "perfmodel/report/report.hpp"
#include "perfmodel/validate/transfer_check.hpp"

namespace perfmodel::report {

// Writes OUT_DIR/transfer_check_sizes.csv (one row per size: measured, predicted, error, interval,
// fraction inside) and OUT_DIR/transfer_check_summary.csv (per group, against its targets).
void write_transfer_check_tables(const std::string& out_dir, const TransferCheckAnalysis& analysis);
// The check's header fields (mode, where and when it was measured, seed, copies), the summary
// table and a note on the files written (the record itself unless it was read `from_recorded`).
void add_transfer_check(Report& report, const TransferCheckRecord& record, const TransferCheckAnalysis& analysis, const std::string& out_dir,
                        bool from_recorded);

}  // namespace perfmodel::report
