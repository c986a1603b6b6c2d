#pragma once
// `perfmodel validate --only farm`: Cecconi's three farm applications on the GPU, every stream
// count of the sweep, the serial and data-parallel references and the pageable variant
// (kernels/cuda/farm_runs.hpp), then the farm predictor's errors per application and per S, and
// the best-S check. The plan is budgeted to finish in about a minute on an H100 (the serial runs
// dominate: each is L synchronous tasks).
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/predictors/farm.hpp"
#include "perfmodel/validate/analysis.hpp"

namespace perfmodel {

struct FarmCase {
  FarmTask task;
  int tasks = 0;
};

// Which applications × sizes the validation runs: the standard set; quick, one per application; or
// the holdout set, disjoint from the standard one in every task size and task count (other matmul
// and blur sizes, 1536-float cosine tasks, M = 2000), for checking a model chosen on the standard
// set's run against sizes it was not chosen on.
enum class FarmCaseSet { standard, quick, holdout };
std::vector<FarmCase> farm_cases(FarmCaseSet set);
inline std::vector<FarmCase> farm_cases(bool quick) { return farm_cases(quick ? FarmCaseSet::quick : FarmCaseSet::standard); }
// The configurations run for each case on a GPU of `sms` SMs: serial, S of farm_stream_sweep,
// data-parallel, and pageable host memory at S = 1, 4 and #SM.
std::vector<FarmConfig> farm_configs(int sms, bool quick);
inline constexpr int kFarmRepetitions = 5;

// Measures every case on GPU 0. Throws RuntimeFailure when no GPU is usable or this build has no
// CUDA; a failed result check is reported in `failures` and its configuration is left out.
FarmRun run_farm_validation(FarmCaseSet set, const std::string& command, std::ostream* progress, std::vector<std::string>& failures);

struct FarmPointAnalysis {
  FarmMeasurement measurement;
  double measured_s = 0, spread = 0;  // median of the repetitions; (p90 − p10) / median
  FarmPrediction prediction;          // completion_s is the predicted time
  double error = 0;                   // predicted / measured − 1
  double host_issue_per_task_s = 0;   // the host's issue loop / L (median over the runs); 0: not recorded
};

// The host's issue cost per task, the profile's against a recorded run's own (a case's median over
// its pinned stream counts), and the case's pinned stream configurations predicted again with it.
struct FarmHostIssue {
  std::string label;  // the case
  double profile_s = 0, run_s = 0, run_min_s = 0, run_max_s = 0;
};

// Per case: the measured best S among the stream counts run (pinned, S ≥ 0), the predicted best,
// and what the predicted best measured.
struct FarmBestCheck {
  std::string label;  // the case, "cosine 1024 floats M=10000, L=264"
  int measured_best = 0, predicted_best = 0;
  double measured_best_s = 0, predicted_best_measured_s = 0;
  double loss = 0;     // predicted_best_measured_s / measured_best_s − 1
  bool within_5_percent = false;
  // Measured and predicted speedup over S = 0 at #SM streams (Cecconi's Sp(#SM)), and the bound.
  double measured_speedup_sm = 0, predicted_speedup_sm = 0;
  std::string bound_at_best;
  // Where the curve saturates: the fewest streams within 5 % of the best time, measured and
  // predicted, and the stage the model says bounds it there.
  int measured_saturation = 0, predicted_saturation = 0;
  std::string bound_at_saturation;
};

struct FarmAnalysis {
  std::vector<FarmPointAnalysis> points;
  std::map<std::string, ErrorStats> per_app;     // by application
  std::map<std::string, ErrorStats> per_config;  // by "S=…" label
  ErrorStats overall;
  std::vector<FarmBestCheck> best;
  std::vector<std::string> assumptions;  // what the predictions assumed (first case's, deduplicated)
  int queues_used = 0;
  // Where the run recorded its issue loop's host time: per case, and the pinned stream
  // configurations' errors from the profile and with the run's own issue cost (same points).
  std::vector<FarmHostIssue> host_issue;
  ErrorStats streams_from_profile, streams_with_run_issue;
};

// Predicts every recorded configuration with the run's CUDA_DEVICE_MAX_CONNECTIONS and recorded
// resources. Throws InputError when the profile lacks a section the predictor needs.
FarmAnalysis analyse_farm(const FarmRun& run, const Profile& profile);

// report.md (error tables, best-S checks, assumptions, provenance) and farm_predictions.csv in dir.
void write_farm_report(const std::string& dir, const FarmRun& run, const FarmAnalysis& analysis, const std::string& profile_path);

}  // namespace perfmodel
