#pragma once
// What `perfmodel calibrate --list` prints: the benchmarks of this build and whether each runs here.
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

struct BenchmarkListing {
  std::string key, description;
  std::optional<std::string> unavailable;  // why it cannot run here; absent where it can
};

// `none_note`: what to say when the build has no benchmark at all (why no GPU is usable).
Report benchmark_list_report(bool built_with_cuda, const std::vector<BenchmarkListing>& benchmarks, const std::string& none_note);

}  // namespace perfmodel::report
