// libFuzzer target: the three raw-sample CSV readers (PCIe transfers, GPU and CPU microbenchmarks).
// Each checks the magic first line, so every input goes to all three.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/transfer_samples.hpp"

using namespace perfmodel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    for (const TransferSample& s : parse_transfer_samples(text, "fuzz.pcie_samples.csv").samples)
      if (!(s.event_s > 0) || !(s.wall_s > 0) || s.bytes == 0) fuzz::finding("an accepted transfer sample is not positive");
  } catch (const InputError&) {
  }
  try {
    for (const BenchmarkSample& s : parse_gpu_samples(text, "fuzz.gpu_samples.csv").samples) fuzz::require_finite(s.seconds, "a GPU sample");
  } catch (const InputError&) {
  }
  try {
    for (const BenchmarkSample& s : parse_cpu_samples(text, "fuzz.cpu_samples.csv").samples) fuzz::require_finite(s.seconds, "a CPU sample");
  } catch (const InputError&) {
  }
  return 0;
}
