// What `perfmodel calibrate --list` prints (perfmodel/report/benchmark_list.hpp).
#include "perfmodel/report/benchmark_list.hpp"

namespace perfmodel::report {

Report benchmark_list_report(bool built_with_cuda, const std::vector<BenchmarkListing>& benchmarks, const std::string& none_note) {
  Report report;
  report.meta.push_back({"built_with_cuda", Cell(built_with_cuda)});
  Table table{"benchmarks", {}};
  for (const BenchmarkListing& b : benchmarks)
    table.rows.push_back({{"key", Cell(b.key)},
                          {"runs_here", Cell(!b.unavailable.has_value())},
                          {"description", Cell(b.description)},
                          {"why_not", Cell(b.unavailable.value_or(""))}});
  if (benchmarks.empty()) report.notes.push_back(none_note);
  report.tables.push_back(std::move(table));
  return report;
}

}  // namespace perfmodel::report
