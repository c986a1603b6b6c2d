#pragma once
// `perfmodel calibrate`: runs the benchmarks, keeps their raw samples and fits them into a profile
// (the fits are model/'s, profile_refit.hpp, which `perfmodel fit` uses on recorded samples).
#include <string>

#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/profile_refit.hpp"  // the fits of each section from its samples

namespace perfmodel {

struct CalibrationOutputs {
  std::string profile_path;       // written atomically
  std::string pcie_samples_path;  // written atomically, beside the profile ("" when none)
  std::string gpu_samples_path;   // likewise
  std::string cpu_samples_path;   // likewise
};

// Runs the selected benchmarks, writes the raw samples and the fitted profile.
// Throws InputError for a bad selection, RuntimeFailure when the GPU is missing or fails.
CalibrationOutputs run_calibration(const BenchmarkRegistry& registry, const std::vector<std::string>& only,
                                   const CalibrationOptions& options, const std::string& profile_path,
                                   const std::string& command_line);

// ("dir/name.yaml", "pcie") → "name.pcie_samples.csv"
std::string samples_file_name_for(const std::string& profile_path, const std::string& kind);

}  // namespace perfmodel
