#pragma once
// Host↔device transfer model (S0 Eqs 3.14–3.15), piecewise by size.
//
//   T(b) = b / T_x + T_su,  T_su = c0 · b + c1          (S0 3.14, 3.15)
//
// Per size segment [from_bytes, to_bytes) the model is affine in b, so each segment stores the
// two constants that are identifiable from data:
//   setup_s    = c1                     (seconds)
//   s_per_byte = 1/T_x + c0             (seconds per byte)
// S0's decomposition is derived, not stored: T_x is the rate of the largest-size segment (the
// asymptotic rate), and c0 = s_per_byte − 1/T_x per segment (negative where a mid-size regime
// moves bytes faster than the asymptote, which pageable copies do).
//
// Beyond S0: a copy with a ragged tail (is_misaligned) pays `misaligned_s` more in its segment.
// It is fitted per segment and is 0 where the data shows no such cost.
//
// Bidirectional curves time a pair of b-byte copies, one each way, issued together on two
// streams; T(b) is the time until both have finished. Short copies of every curve are timed back
// to back in batches (per stream), and T(b) is the batch's time over its copies (pairs).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/segmented_fit.hpp"

namespace perfmodel {

enum class Direction { h2d, d2h, bidir };
enum class HostMemory { pinned, pageable };

const char* to_string(Direction d);
const char* to_string(HostMemory m);
std::optional<Direction> parse_direction(const std::string& s);    // "h2d", "d2h", "bidir"
std::optional<HostMemory> parse_host_memory(const std::string& s);  // "pinned", "pageable"
// Which host bytes the copies of a calibration used, as profiles and samples files name it
// (calibrate --pcie-host-buffer): "rotating" or "fixed".
bool is_pcie_host_buffer(const std::string& s);

struct TransferKey {
  Direction direction = Direction::h2d;
  HostMemory memory = HostMemory::pinned;
  std::string name() const;  // "h2d/pinned"
  bool operator<(const TransferKey& o) const {
    return direction != o.direction ? direction < o.direction : memory < o.memory;
  }
  bool operator==(const TransferKey& o) const { return direction == o.direction && memory == o.memory; }
};

// The combinations perfmodel calibrates (bidirectional copies need pinned memory to overlap).
const std::vector<TransferKey>& calibrated_transfer_keys();

struct TransferSegment {
  double from_bytes = 0;  // inclusive
  double to_bytes = 0;    // exclusive; +inf for the last segment
  double setup_s = 0;     // c1
  double s_per_byte = 0;  // 1/T_x + c0
  double misaligned_s = 0;  // extra time of a size that is not a multiple of the curve's alignment
  std::size_t sizes = 0;  // distinct sizes fitted in this segment; 0: a bridge (segmented_fit.hpp)
  double mean_rel_error = 0, max_rel_error = 0;

  bool is_bridge() const { return sizes == 0; }

  double seconds(double bytes, bool misaligned) const {
    return setup_s + s_per_byte * bytes + (misaligned ? misaligned_s : 0.0);
  }
};

// Whether a size has the ragged tail that costs pageable device→host copies ~0.5 µs on the H100
// host: a size that is not a multiple of 16 B whose last partial 64-byte block holds 16 B or more.
// Sizes whose tail is shorter than 16 B cost no more than the multiples of 16 around them:
// 1–15 B past a multiple of 64 took 9.16, 9.37 and 9.51 µs on average, 17–63 B past it 9.83,
// 9.81 and 9.97 µs, past 0, 64 and 1024 B (data/experiments/2026-11-23-h100-pcie-pageable). With the plain "not a multiple of
// 16" rule every calibration put the held-out 79 B and 20171 B copies (tails of 15 and 11 B)
// 6–8 % above what they took. Pinned copies and host-to-device ones show no such cost; their
// fitted penalty is 0.
inline bool is_misaligned(double bytes) {
  return std::fmod(bytes, 16.0) != 0.0 && std::fmod(bytes, 64.0) >= 16.0;
}

struct FitQuality {
  std::size_t sizes = 0;  // distinct sizes the error was evaluated on
  double mean_rel_error = 0, max_rel_error = 0;
  // How precisely the measured times themselves are known, where the set carried it (transfer
  // curves: SizeTime::rel_se): the median and largest relative standard error of the sizes'
  // typical times, and how many sizes the model misses by more than three of their own standard
  // errors. It is the precision within one calibration run: an error inside it is the
  // measurement's, one beyond it the model's (a host's level can shift more between two runs:
  // the bundled H100 pair's h2d pageable times differ by 7 % at the median size).
  struct Noise {
    double median_rel_se = 0, max_rel_se = 0;
    std::size_t sizes_beyond_3se = 0;
  };
  std::optional<Noise> noise;
};

struct TransferCurve {
  std::vector<TransferSegment> segments;  // contiguous, ascending, covering [0, +inf)
  std::string criterion = "bic";          // how the number of segments was chosen
  std::size_t samples = 0;                // raw timing samples behind the fit (fit set)
  double min_bytes = 0, max_bytes = 0;    // range of the fitted sizes
  FitQuality fit;                         // on the sizes the fit saw
  std::optional<FitQuality> holdout;      // on held-out sizes the fit never saw

  const TransferSegment& segment_for(double bytes) const;
  double seconds(double bytes) const { return segment_for(bytes).seconds(bytes, is_misaligned(bytes)); }
  // T_x of S0: the incremental rate of the largest-size segment.
  double asymptotic_rate_bytes_per_s() const;
  // S0's c0 for a segment: s_per_byte − 1/T_x.
  double c0_s_per_byte(const TransferSegment& s) const { return s.s_per_byte - 1.0 / asymptotic_rate_bytes_per_s(); }
  bool extrapolates(double bytes) const { return bytes < min_bytes || bytes > max_bytes; }
};

// A size's typical time, the unit the fit works on: the interquartile mean of its samples
// (SampleSummary::interquartile_mean; robust to bursts, smooth where a copy's time is bimodal).
struct SizeTime {
  double bytes = 0;
  double typical_s = 0;
  std::size_t samples = 0;
  double rel_se = 0;  // relative standard error of typical_s (interquartile_mean_rel_se); 0: unknown
  double rel_spread = 0;  // interquartile range of the samples / their median; 0: unknown
  int batch = 0;          // copies one sample timed back to back (0: unknown); a segment never mixes batches
};

// Fits a curve to per-size typical times (one per distinct size), then reports its error on
// held-out sizes if any are given. Segment boundaries are rounded up to whole bytes.
TransferCurve fit_transfer_curve(const std::vector<SizeTime>& fit_set, const std::vector<SizeTime>& holdout_set,
                                 const SegmentedFitOptions& options = {});

// Relative errors of a curve on a set of typical times.
FitQuality evaluate_curve(const TransferCurve& curve, const std::vector<SizeTime>& set);

}  // namespace perfmodel
