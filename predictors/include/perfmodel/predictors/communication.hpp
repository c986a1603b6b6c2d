#pragma once
// Communication time: host↔device copies predicted from a profile's PCIe calibration.
//
// One transfer: T(b) from the curve of its direction × host memory (White (2013) Eq 3.14–3.15,
// piecewise; see model/transfer_model.hpp) and of the way it is issued (TransferMode): `single`,
// one synchronous cudaMemcpy timed on its own (the default: what a program that copies and then
// waits pays), or `stream`, the per-copy cost of copies queued back to back in a stream (what a
// pipeline of tasks pays per copy, fill and drain aside). A list of transfers is issued one after
// another, as in White (2013) §3.4, so the times add (§4.6: T_comm of Mv = A↓ + b↓ + c↑).
//
// Every prediction carries the interval the calibration observed around its curve in that
// regime (5–95 % of one copy's time, widened by the drift within the run; docs/transfers.md).
// Profiles of schema 2–3 have none: has_interval is false and the bounds are 0. A list's bounds
// are the sums of its copies' bounds (the drift of a host moves its copies together).
#include <cstdint>
#include <string>
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
  TransferMode mode = TransferMode::single;
  double seconds = 0;
  bool has_interval = false;
  double interval_low_s = 0, interval_high_s = 0;  // 5-95 % of one copy's time (0 without an interval)
  double effective_bytes_per_s = 0;  // bytes / seconds (for bidir: bytes moved each way / seconds)
  double setup_s = 0;                // c1 of the segment used
  double s_per_byte = 0;             // 1/T_x + c0 of the segment used
  bool misaligned = false;           // size with a ragged tail (is_misaligned)
  double misaligned_s = 0;           // what that costs here (included in seconds)
  double segment_from_bytes = 0, segment_to_bytes = 0;
  bool bridge = false;               // the segment is a bridge across a gap between fitted ones
                                     // (only in profiles of schema 3; its setup_s is a line's
                                     // intercept, possibly negative)
  std::string timing;                // how the curve's times were taken (TransferCurve::timing)
  bool extrapolated = false;         // outside the calibrated size range
};

struct TransferListPrediction {
  std::vector<TransferPrediction> transfers;
  double total_seconds = 0;
  bool has_interval = false;  // every copy has one
  double interval_low_s = 0, interval_high_s = 0;
};

class CommunicationPredictor {
 public:
  // Throws InputError if the profile has no PCIe calibration.
  explicit CommunicationPredictor(const Profile& profile);

  // Throws InputError if the profile lacks the transfer's curve (for that mode).
  TransferPrediction predict(const Transfer& transfer, TransferMode mode = TransferMode::single) const;
  TransferListPrediction predict(const std::vector<Transfer>& transfers, TransferMode mode = TransferMode::single) const;

 private:
  const PcieCalibration* pcie_;
};

// S0 §3.4 transfers of the reference kernels (single precision, square n×n).
std::vector<Transfer> mv_transfers(std::uint64_t n, HostMemory memory);                         // A, b down; c up
std::vector<Transfer> mm_transfers(std::uint64_t n, HostMemory memory);                         // A, B down; C up
std::vector<Transfer> conv2d_transfers(std::uint64_t n, std::uint64_t filter, HostMemory memory);  // A, F down; C up

}  // namespace perfmodel
