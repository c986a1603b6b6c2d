#include "perfmodel/predictors/communication.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

CommunicationPredictor::CommunicationPredictor(const Profile& profile) : pcie_(nullptr) {
  if (!profile.pcie) throw InputError("the profile has no pcie section; run `perfmodel calibrate --only pcie`");
  pcie_ = &*profile.pcie;
}

TransferPrediction CommunicationPredictor::predict(const Transfer& transfer, TransferMode mode) const {
  const TransferCurve& curve = pcie_->curve(transfer.key, mode);
  const double bytes = static_cast<double>(transfer.bytes);
  if (!(bytes <= limits::kMaxBytes))
    throw InputError("a copy of " + std::to_string(transfer.bytes) + " bytes: at most 2^50 bytes (1 PiB) may be copied at once (limits.hpp)");
  const TransferSegment& segment = curve.segment_for(bytes);
  TransferPrediction p;
  p.transfer = transfer;
  p.mode = mode;
  p.seconds = curve.seconds(bytes);
  p.has_interval = segment.has_interval();
  if (p.has_interval) std::tie(p.interval_low_s, p.interval_high_s) = curve.interval_s(bytes);
  p.timing = curve.timing;
  p.misaligned = is_misaligned(bytes);
  p.misaligned_s = p.misaligned ? segment.misaligned_s : 0.0;
  p.effective_bytes_per_s = p.seconds > 0 ? bytes / p.seconds : 0.0;
  p.setup_s = segment.setup_s;
  p.s_per_byte = segment.s_per_byte;
  p.segment_from_bytes = segment.from_bytes;
  p.segment_to_bytes = segment.to_bytes;
  p.bridge = segment.is_bridge();
  p.extrapolated = curve.extrapolates(bytes);
  if (!std::isfinite(p.seconds) || p.seconds < 0)
    throw InputError("the predicted time of a " + std::to_string(transfer.bytes) + "-byte " + transfer.key.name() +
                     " copy is not a finite, non-negative number: the profile's pcie curve lies outside what the model covers");
  return p;
}

TransferListPrediction CommunicationPredictor::predict(const std::vector<Transfer>& transfers, TransferMode mode) const {
  TransferListPrediction out;
  out.has_interval = !transfers.empty();
  for (const Transfer& t : transfers) {
    out.transfers.push_back(predict(t, mode));
    const TransferPrediction& p = out.transfers.back();
    out.total_seconds += p.seconds;
    out.has_interval = out.has_interval && p.has_interval;
    out.interval_low_s += p.interval_low_s;
    out.interval_high_s += p.interval_high_s;
  }
  if (!out.has_interval) out.interval_low_s = out.interval_high_s = 0;
  return out;
}

namespace {
constexpr std::uint64_t kFloat = 4;

// The float arrays of a reference kernel of side n (and filter side f): every copy at most
// limits::kMaxBytes, checked before the integer products that could overflow.
std::uint64_t floats(std::uint64_t a, std::uint64_t b, const char* what) {
  const double bytes = static_cast<double>(kFloat) * static_cast<double>(a) * static_cast<double>(b);
  if (!(bytes <= limits::kMaxBytes))
    throw InputError(std::string(what) + " = " + std::to_string(std::max(a, b)) + " makes a copy of " + format_bytes(bytes) +
                     ", more than the 1 PiB (2^50 bytes) perfmodel predicts (limits.hpp)");
  return kFloat * a * b;
}
}  // namespace

std::vector<Transfer> mv_transfers(std::uint64_t n, HostMemory memory) {
  return {{{Direction::h2d, memory}, floats(n, n, "n")}, {{Direction::h2d, memory}, floats(n, 1, "n")}, {{Direction::d2h, memory}, floats(n, 1, "n")}};
}

std::vector<Transfer> mm_transfers(std::uint64_t n, HostMemory memory) {
  const std::uint64_t matrix = floats(n, n, "n");
  return {{{Direction::h2d, memory}, matrix}, {{Direction::h2d, memory}, matrix}, {{Direction::d2h, memory}, matrix}};
}

std::vector<Transfer> conv2d_transfers(std::uint64_t n, std::uint64_t filter, HostMemory memory) {
  return {{{Direction::h2d, memory}, floats(n, n, "n")},
          {{Direction::h2d, memory}, floats(filter, filter, "filter")},
          {{Direction::d2h, memory}, floats(n, n, "n")}};
}

}  // namespace perfmodel
