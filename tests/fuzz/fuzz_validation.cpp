// libFuzzer target: the validation run reader (measurements.csv + resources.csv). One input holds
// both files: the resources file starts at its magic line; without one, the resources are empty.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/validation_data.hpp"

using namespace perfmodel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t split = text.find("# perfmodel validation resources v1");
  const std::string measurements = text.substr(0, split);
  const std::string resources = split == std::string::npos ? std::string() : text.substr(split);
  try {
    const ValidationRun run = parse_validation_run(measurements, "measurements.csv", resources, "resources.csv");
    for (const KernelMeasurement& m : run.measurements) fuzz::require_finite(m.summary().median, "a measured median");
    static_cast<void>(run.resource_table());
  } catch (const InputError&) {
  }
  return 0;
}
