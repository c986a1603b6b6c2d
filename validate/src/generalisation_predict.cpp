// The format-2 predictor of the generalisation suite: each kernel's pre-registered signature
// (data/workloads/generalisation/<kernel>.yaml) read at the measured params and predicted from
// the profile, as `perfmodel predict workload` predicts it (single: after the runner's L2 flush;
// steady: back to back).
#include <filesystem>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/generalisation.hpp"

#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {


std::optional<GenPredictor> format2_predictor(const Profile& profile, const std::string& workloads_dir, std::string& why_not) {
  if (!profile.gpu) {
    why_not = "the profile has no gpu section";
    return std::nullopt;
  }
  if (!std::filesystem::is_directory(workloads_dir)) throw InputError("--workloads: '" + workloads_dir + "' is not a folder");
  const GpuCalibration gpu = *profile.gpu;
  return GenPredictor([gpu, workloads_dir](const GenMeasurement& m) {
    const std::string path = (std::filesystem::path(workloads_dir) / (m.kernel + ".yaml")).string();
    WorkloadParams set;
    for (const auto& [k, v] : m.params) set[k] = static_cast<double>(v);
    const GpuWorkloadFile file = read_gpu_workload(path, gpu, set);
    GenPrediction p;
    // single: the runner's state at every timed run (L2 flushed by a memset just before the start event).
    const GpuPrediction single = predict_gpu(gpu, file.workload, dirty_l2_where_measured(gpu));
    p.single_s = single.seconds;
    p.steady_s = predict_gpu_steady_seconds(gpu, file.workload);
    p.bound = single.bound;
    p.notes = file.notes;
    return p;
  });
}

}  // namespace perfmodel
