#pragma once
// The speedup and variant plots, shared by `perfmodel plot speedup` and `perfmodel report`.
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/offload.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

// The predicted curve is the offload advisor's (perfmodel/predictors/offload.hpp): the CPU
// reference kernel against the offloaded operation (copies in, kernels, copies out), and its
// crossings solved by bisection, each labelled by the side that wins above it.
struct SpeedupCurve {
  std::string cpu_kernel, gpu_kernel;
  CrossoverResult crossover;  // crossings empty: none over the sizes drawn (verdict says which side wins)
  std::vector<std::pair<double, double>> predicted, measured;  // (n, speedup)
};

struct SpeedupOutputs {
  std::vector<SpeedupCurve> curves;
  std::size_t variant_points = 0;
};

// Writes DIR/{speedup,variants}.{gp,svg,png} and their CSV data (DIR is created; callers stage it).
// `profile` gives the GPU side and the copies; the CPU side comes from `cpu_profile` (its path
// `cpu_profile_path`: its raw samples give the measured CPU points) when given, else from `profile`.
SpeedupOutputs write_speedup(const std::string& dir, const Profile& profile, const std::string& profile_path, const ValidationRun* run,
                             HostMemory memory, const Profile* cpu_profile = nullptr, const std::string& cpu_profile_path = "");

// What `perfmodel plot speedup` prints: prediction_of, the CPU profile where one was given apart
// (warning where it is another host's than `gpu`, the GPU profile's provenance), one row per
// curve (crossover, speedup at the largest n, measured points) and notes on what is predicted and
// measured.
void add_speedup_summary(Report& report, const SpeedupOutputs& outputs, HostMemory memory, const Provenance& gpu,
                         const Profile* cpu_profile, const std::string& cpu_profile_path);

}  // namespace perfmodel::report
