#pragma once
// The offload advisor's outputs: `perfmodel offload --kernel K` and `--workload FILE` (the decision
// with its terms, the error levels behind its interval, the crossover, CG's break-even, overlap,
// split, a sweep over n) and the summary `perfmodel validate --only offload` prints.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/predictors/offload.hpp"
#include "perfmodel/report/report.hpp"
#include "perfmodel/validate/offload_validation.hpp"

namespace perfmodel::report {

// The profile of each side as the header names it: its path, whether it is the bundled one, and
// the line that says so (the CLI's "profile: PATH (bundled: …)").
struct OffloadSide {
  std::string path;
  bool bundled = false;
  const Profile* profile = nullptr;
  std::string note;
};
struct OffloadSides {
  OffloadSide cpu, gpu;
};

// `offload --kernel K [--n N] [--sweep]`. `at_n`: the answer at one n (with --n); `sweep`: the
// rows of a sweep over n (sizes the model refuses left out).
struct BuiltinOffloadAtN {
  struct MemoryRow {
    HostMemory memory = HostMemory::pinned;
    std::optional<OffloadTerms> terms;  // absent: the prediction refused that memory (`error` says why)
    std::string error;
  };
  double n = 0;
  BuiltinOffload offload;
  OffloadErrorLevels errors;
  OffloadDecision decision;
  std::vector<MemoryRow> memories;  // pinned, pageable
  std::optional<ReuseResult> reuse;  // cg only
  OverlapResult overlap;
  SplitResult split;
};
struct BuiltinOffloadView {
  std::string kernel, gpu_kernel;
  HostMemory memory = HostMemory::pinned;
  int iterations = 1;
  const OffloadSides& sides;
  CrossoverResult crossover;
  std::optional<BuiltinOffloadAtN> at_n;
  std::optional<std::vector<std::pair<double, OffloadTerms>>> sweep;
};
Report offload_builtin_report(const BuiltinOffloadView& view);

// `offload --workload FILE`: `overlap` and `split` where the file's CPU side is splittable.
struct WorkloadOffloadView {
  std::string path, workload_name;
  const OffloadSides& sides;
  bool cpu_profile_used = true;  // false where the CPU side is a measured time
  CpuSideTime cpu;
  GpuPrediction gpu;
  OffloadErrorLevels errors;
  OffloadDecision decision;
  std::optional<OverlapResult> overlap;
  std::optional<SplitResult> split;
};
Report offload_workload_report(const WorkloadOffloadView& view);

// `validate --only offload`: the run's header fields, the summary per CPU side and the crossovers;
// notes: the files written under out_dir, the run's notes, the failures.
void add_offload_validation(Report& report, const OffloadRun& run, const OffloadAnalysis& analysis, const std::string& out_dir,
                            const std::vector<std::string>& failures);

}  // namespace perfmodel::report
