#pragma once
// The tables of the prediction commands: `predict transfer`, `predict cpu`, `predict kernel`,
// `predict workload` and `tune`. Each adds its fields after the header the CLI starts every
// prediction with (the profile used), in the vocabulary of docs/output.md.
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

// `predict transfer`: prediction_of, the mode, the total with its interval, one row per copy, and
// notes on extrapolated sizes and on profiles of one curve per transfer (`profile_schema` names it).
void add_transfer_prediction(Report& report, const TransferListPrediction& prediction, TransferMode mode, int profile_schema);

// `predict cpu`: one row per size; `calibration_warnings` are the profile's CPU calibration's.
void add_cpu_predictions(Report& report, const std::string& kernel, const std::vector<CpuPrediction>& predictions,
                         const std::vector<std::string>& calibration_warnings);

// `predict kernel`: one launch of a reference kernel. `transfers_s` where the profile has PCIe
// curves; `measured_s` where a recorded run timed this (n, configuration), from `measured_source`;
// `estimated` the kernels whose registers and shared memory were estimated.
struct KernelPredictionView {
  std::string kernel, source, config, config_from;
  int n = 0;
  GpuRunStart start;
  const GpuPrediction& prediction;
  const GpuWorkload& workload;
  const Profile& profile;
  std::optional<double> transfers_s, measured_s;
  std::string measured_source;
  std::vector<std::string> estimated;
};
void add_kernel_prediction(Report& report, const KernelPredictionView& view);

// `predict workload`: `single` gives the header the whole prediction and the phases and
// descriptor tables; otherwise one row per point (`--set` values). `transfers_s` where the file
// has copies. The file's notes follow.
struct WorkloadPoint {
  const GpuWorkloadFile& file;
  GpuPrediction prediction;
  std::optional<double> transfers_s;
};
struct WorkloadPredictionView {
  const Profile& profile;
  std::string timing;  // single | steady
  GpuRunStart start;
  bool single = true;
  std::vector<WorkloadPoint> points;  // at least one
};
void add_workload_prediction(Report& report, const WorkloadPredictionView& view);

// `tune`: the configurations ranked by predicted time (`ranked` sorted, fastest first), the top
// `top` listed, with the measured time of each where a recorded sweep timed it (from
// `measured_source`) and the loss of the predicted best against the measured optimum.
struct TuneEntry {
  std::string config;
  GpuPrediction prediction;
  std::optional<double> measured_s;
};
struct TuneView {
  std::string kernel;
  int n = 0;
  GpuRunStart start;
  std::vector<TuneEntry> ranked;
  std::string rule_config;  // White (2013)'s launch rule's configuration
  int top = 10;
  std::string measured_source;
};
void add_tune_ranking(Report& report, const TuneView& view);

}  // namespace perfmodel::report
