// libFuzzer target: the profile reader (parse_profile). An accepted profile must write back to a
// profile the reader accepts again, and its transfer and CPU predictions are finite or refused.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"

using namespace perfmodel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Profile profile;
  try {
    profile = parse_profile(text, "fuzz.yaml");
  } catch (const InputError&) {
    return 0;
  }
  try {
    static_cast<void>(parse_profile(profile_to_yaml(profile), "written.yaml"));
  } catch (const InputError& e) {
    fuzz::finding(std::string("an accepted profile does not read back after writing: ") + e.what());
  }
  if (profile.pcie)
    for (const auto& [key, curve] : profile.pcie->curves) {
      const CommunicationPredictor predictor(profile);
      for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{4096}, std::uint64_t{1} << 30, std::uint64_t{1} << 50}) {
        try {
          fuzz::require_finite(predictor.predict(Transfer{key, bytes}).seconds, "a transfer prediction");
        } catch (const InputError&) {
        }
      }
    }
  if (profile.cpu)
    for (const std::string& kernel : cpu_kernel_names())
      for (double n : {1.0, 1000.0, 100000.0}) {
        try {
          fuzz::require_finite(predict_cpu(profile, kernel, n).seconds, "a CPU prediction");
        } catch (const InputError&) {
        }
      }
  return 0;
}
