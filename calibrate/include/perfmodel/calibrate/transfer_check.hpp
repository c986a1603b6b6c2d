#pragma once
// The measuring half of the independent transfer check (`perfmodel check transfers`): single
// host<->device copies, each a synchronous cudaMemcpy between two CUDA events of its own on the
// default stream, waited for, as a user times one copy. It shares no code with the PCIe
// calibration's sampling (calibrate/cuda/pcie_benchmark.cu): its own buffers, its own events,
// its own loop, and host bytes at a random page of its buffer for every copy.
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

struct TransferCheckCopy {
  TransferKey key;  // h2d or d2h, pinned or pageable
  std::uint64_t bytes = 0;
  int rep = 0;
  double event_s = 0;  // filled by time_transfer_check
  double wall_s = 0;   // the host's steady clock from before the first event to after the second completed
};

// Times every copy in the order given (the caller shuffles). Throws RuntimeFailure without a
// GPU or on a CUDA error, InputError for a bidirectional key or a size of 0.
void time_transfer_check(std::vector<TransferCheckCopy>& copies, std::ostream* progress);

}  // namespace perfmodel
