#pragma once
// The speedup and variant plots, shared by `perfmodel plot speedup` and `perfmodel report`.
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/model/validation_data.hpp"

namespace perfmodel::cli {

struct SpeedupCurve {
  std::string cpu_kernel, gpu_kernel;
  double crossover_n = 0;  // 0: no crossing over the sizes drawn
  std::vector<std::pair<double, double>> predicted, measured;  // (n, speedup)
};

struct SpeedupOutputs {
  std::vector<SpeedupCurve> curves;
  std::size_t variant_points = 0;
};

// Writes DIR/{speedup,variants}.{gp,svg,png} and their CSV data (DIR is created; callers stage it).
SpeedupOutputs write_speedup(const std::string& dir, const Profile& profile, const std::string& profile_path, const ValidationRun* run,
                             HostMemory memory);

}  // namespace perfmodel::cli
