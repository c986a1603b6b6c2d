#pragma once
// Predictions for every recorded measurement of a validation run, and their errors: per kernel
// and overall mean, median, p90 and max absolute percentage error (the seeds report "maximum and
// average percent error"), and how close the predicted-best launch configuration comes to the
// measured optimum in each configuration sweep. Pure C++: CI recomputes all of it from the
// recorded run and the bundled profile.
#include <map>
#include <string>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {

struct PointAnalysis {
  KernelMeasurement measurement;
  double measured_s = 0;      // median of the repetitions
  double spread = 0;          // (p90 − p10) / median of the repetitions
  GpuPrediction prediction;
  double flops = 0, algorithmic_bytes = 0;  // from the workload descriptor (the single source of both)
  double error = 0;           // predicted / measured − 1
  bool default_config = false;  // the launch rule's configuration for this n
};

struct ErrorStats {
  std::size_t count = 0;
  double mean = 0, median = 0, p90 = 0, max = 0;  // of |error|
};
ErrorStats error_stats(const std::vector<double>& abs_errors);

// One configuration sweep (kernel, n): the measured optimum and what the model would have picked.
struct TunerCheck {
  std::string kernel;
  int n = 0;
  std::size_t configs = 0;
  KernelConfig measured_best, predicted_best;
  double measured_best_s = 0, predicted_best_measured_s = 0;
  double loss = 0;  // predicted_best_measured_s / measured_best_s − 1
};

struct ValidationAnalysis {
  std::vector<PointAnalysis> points;
  std::map<std::string, ErrorStats> per_kernel;
  ErrorStats overall;
  std::vector<TunerCheck> tuner;
  double tuner_mean_loss = 0;
  std::vector<std::string> missing_resources;  // phase kernels predicted with estimated resources
};

ValidationAnalysis analyse_validation(const ValidationRun& run, const Profile& profile);

}  // namespace perfmodel
