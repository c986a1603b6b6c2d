#pragma once
// From raw samples to a profile: the fitting half of `perfmodel calibrate`, also usable on
// recorded samples without a GPU (`perfmodel fit`).
#include <string>

#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/model/profile.hpp"

namespace perfmodel {

// Fits every transfer curve present in the samples (fit set), one per mode measured (the stream
// curve takes the single copies above its largest queued size), and reports held-out error where
// the samples have a holdout set. `batched`: samples of file format v1, whose one measurement
// serves both modes (timing "batched"). `samples_file` is recorded in the profile as given
// (relative to the profile's folder).
PcieCalibration fit_pcie(const std::vector<TransferSample>& samples, const std::string& samples_file,
                         TimerSource timer = TimerSource::event, bool batched = false);

// Widens every curve's intervals to cover another calibration run of the same machine too (the
// 5-95 % band of that run's copies around this run's curve, regime by regime; its samples of
// the curve's mode, all sizes). The spread between runs minutes apart is larger than within one
// (docs/transfers.md). Returns how many segments widened.
std::size_t widen_intervals_across_runs(PcieCalibration& pcie, const std::vector<TransferSample>& other_run);

struct CalibrationOutputs {
  std::string profile_path;       // written atomically
  std::string pcie_samples_path;  // written atomically, beside the profile ("" when none)
  std::string gpu_samples_path;   // likewise
  std::string cpu_samples_path;   // likewise
};

// The `gpu` section from raw GPU samples; a sample set that cannot be fitted is an InputError
// naming the file.
GpuCalibration fit_gpu_samples(const GpuSampleFile& samples, const std::string& samples_file);

// The `cpu` section from raw CPU samples (InputError naming the file when it cannot be fitted).
CpuCalibration fit_cpu_samples(const CpuSampleFile& samples, const std::string& samples_file);

// Runs the selected benchmarks, writes the raw samples and the fitted profile.
// Throws InputError for a bad selection, RuntimeFailure when the GPU is missing or fails.
CalibrationOutputs run_calibration(const BenchmarkRegistry& registry, const std::vector<std::string>& only,
                                   const CalibrationOptions& options, const std::string& profile_path,
                                   const std::string& command_line);

// ("dir/name.yaml", "pcie") → "name.pcie_samples.csv"
std::string samples_file_name_for(const std::string& profile_path, const std::string& kind);

}  // namespace perfmodel
