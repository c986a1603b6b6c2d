// Built instead of the CUDA sources when no CUDA toolkit was found at configure time.
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/errors.hpp"

namespace perfmodel {

bool built_with_cuda() { return false; }

std::optional<std::string> gpu_unavailable_reason() {
  return std::string("this perfmodel was built without CUDA (no CUDA compiler at configure time)");
}

void fill_device_provenance(Provenance&) { throw RuntimeFailure(*gpu_unavailable_reason()); }

void register_gpu_benchmarks(BenchmarkRegistry&) {}

void time_transfer_check(std::vector<TransferCheckCopy>&, std::ostream*) { throw RuntimeFailure(*gpu_unavailable_reason()); }

}  // namespace perfmodel
