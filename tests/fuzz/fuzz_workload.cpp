// libFuzzer target: the workload reader (parse_gpu_workload) against the bundled H100 profile's
// gpu section; an accepted workload's prediction is finite or refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

using namespace perfmodel;

namespace {
const GpuCalibration& bundled_gpu() {
  static const Profile profile = load_profile(PERFMODEL_FUZZ_PROFILE);
  return profile.require_gpu();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const GpuCalibration& gpu = bundled_gpu();
  const std::string text(reinterpret_cast<const char*>(data), size);
  GpuWorkloadFile file;
  try {
    file = parse_gpu_workload(text, "fuzz.yaml", gpu);
  } catch (const InputError&) {
    return 0;
  }
  try {
    const GpuPrediction p = predict_gpu(gpu, file.workload, dirty_l2_where_measured(gpu));
    fuzz::require_finite(p.seconds, "a workload prediction");
    if (p.phases.size() > file.workload.phases.size()) fuzz::finding("more predicted phases than described ones");
  } catch (const InputError&) {
  }
  return 0;
}
