// The format-2 predictor of the generalisation suite: each kernel's pre-registered signature
// (data/workloads/generalisation/<kernel>.yaml) read at the measured params and predicted from
// the profile. Compiled against the format-2 reader where this build has it
// (perfmodel/model/workload_expression.hpp ships with it); otherwise the analysis reports the
// measured table alone and says why.
#include <filesystem>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/generalisation.hpp"

#if __has_include("perfmodel/model/workload_expression.hpp")
#define PERFMODEL_HAVE_WORKLOAD_FORMAT_2 1
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#endif

namespace perfmodel {

#ifdef PERFMODEL_HAVE_WORKLOAD_FORMAT_2
namespace {
// The cost per run when runs follow each other back to back: the difference between 2m and m
// repetitions from an idle GPU, divided by m, so that the first run's start cancels and what
// remains is the launch timeline's steady rate (the rule of `perfmodel predict workload
// --timing steady`).
double steady_seconds(const GpuCalibration& gpu, const GpuWorkload& w) {
  auto repeated = [&](int m) {
    GpuWorkload r = w;
    r.phases.clear();
    for (int i = 0; i < m; ++i) r.phases.insert(r.phases.end(), w.phases.begin(), w.phases.end());
    return predict_gpu(gpu, r, GpuRunStart{}).seconds;
  };
  constexpr int m = 16;
  return (repeated(2 * m) - repeated(m)) / m;
}
}  // namespace
#endif

std::optional<GenPredictor> format2_predictor(const Profile& profile, const std::string& workloads_dir, std::string& why_not) {
#ifdef PERFMODEL_HAVE_WORKLOAD_FORMAT_2
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
    p.steady_s = steady_seconds(gpu, file.workload);
    p.bound = single.bound;
    p.notes = file.notes;
    return p;
  });
#else
  (void)profile;
  (void)workloads_dir;
  why_not = "this build has no workload format 2 reader; run `perfmodel validate --suite generalisation --from DIR --out DIR` "
            "with a build that has it";
  return std::nullopt;
#endif
}

}  // namespace perfmodel
