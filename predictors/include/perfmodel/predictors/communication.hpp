#pragma once
// Communication time: host↔device copies predicted from a profile's PCIe calibration.
//
// One transfer: T(b) from the curve of its direction × host memory (S0 Eq 3.14–3.15, piecewise;
// see model/transfer_model.hpp). A list of transfers is issued one after another, each a
// blocking cudaMemcpy, as in S0 §3.4, so the times add (S0 §4.6: T_comm of Mv = A↓ + b↓ + c↑).
#include <cstdint>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

struct Transfer {
  TransferKey key;
  std::uint64_t bytes = 0;
};

struct TransferPrediction {
  Transfer transfer;
  double seconds = 0;
  double effective_bytes_per_s = 0;  // bytes / seconds (for bidir: bytes moved each way / seconds)
  double setup_s = 0;                // c1 of the segment used
  double s_per_byte = 0;             // 1/T_x + c0 of the segment used
  bool misaligned = false;           // size with a ragged tail (is_misaligned)
  double misaligned_s = 0;           // what that costs here (included in seconds)
  double segment_from_bytes = 0, segment_to_bytes = 0;
  bool bridge = false;               // the segment is a bridge across a gap between fitted ones
                                     // (its setup_s is a line's intercept, possibly negative)
  bool extrapolated = false;         // outside the calibrated size range
};

struct TransferListPrediction {
  std::vector<TransferPrediction> transfers;
  double total_seconds = 0;
};

class CommunicationPredictor {
 public:
  // Throws InputError if the profile has no PCIe calibration.
  explicit CommunicationPredictor(const Profile& profile);

  // Throws InputError if the profile lacks the transfer's curve.
  TransferPrediction predict(const Transfer& transfer) const;
  TransferListPrediction predict(const std::vector<Transfer>& transfers) const;

 private:
  const PcieCalibration* pcie_;
};

// S0 §3.4 transfers of the reference kernels (single precision, square n×n).
std::vector<Transfer> mv_transfers(std::uint64_t n, HostMemory memory);                         // A, b down; c up
std::vector<Transfer> mm_transfers(std::uint64_t n, HostMemory memory);                         // A, B down; C up
std::vector<Transfer> conv2d_transfers(std::uint64_t n, std::uint64_t filter, HostMemory memory);  // A, F down; C up

}  // namespace perfmodel
