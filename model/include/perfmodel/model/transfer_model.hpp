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
// streams; T(b) is the time until both have finished.
//
// Two ways of issuing a copy, two curves (TransferMode; docs/transfers.md):
//   single: one synchronous cudaMemcpy with a CUDA event recorded before and after it, as a user
//           times one copy (White (2013)'s model was fitted to such copies);
//   stream: the per-copy cost of many copies queued back to back in one stream (cudaMemcpyAsync),
//           what a pipeline of copies (a task farm) pays per copy.
// They differ by a fixed cost per copy (the synchronous round trip); at sizes where that is far
// below the noise the stream curve is fitted on single copies (TransferCurve::timing).
//
// Every segment carries the 5-95 % band of the times the calibration itself observed around the
// fitted line in that regime, widened by the drift it saw between the first and second half of
// its samples (interval_low / interval_high, ratios to T(b); 0: unknown, as in profiles of
// schema 3). The band is for one copy's time.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfmodel/model/segmented_fit.hpp"

namespace perfmodel {

enum class Direction { h2d, d2h, bidir };
enum class TransferMode { single, stream };
const char* to_string(TransferMode m);                            // "single", "stream"
std::optional<TransferMode> parse_transfer_mode(const std::string& s);
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
  // The 5 % and 95 % quantiles of observed time / fitted time in this regime, widened by the
  // drift seen within the run (fit_transfer_curve); 0 where unknown (schema-3 profiles).
  double interval_low = 0, interval_high = 0;

  bool is_bridge() const { return sizes == 0; }
  bool has_interval() const { return interval_low > 0 && interval_high >= interval_low; }

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
  // How the fitted times were taken: "single" (one event-timed synchronous copy per sample),
  // "stream" (copies queued in a stream; sizes whose copies last milliseconds from single copies),
  // "batched" (profiles of schema 3 and samples files v1: back-to-back synchronous copies timed
  // as a batch below ~30 µs a copy, one at a time above).
  std::string timing = "single";
  std::size_t samples = 0;                // raw timing samples behind the fit (fit set)
  double min_bytes = 0, max_bytes = 0;    // range of the fitted sizes
  FitQuality fit;                         // on the sizes the fit saw
  std::optional<FitQuality> holdout;      // on held-out sizes the fit never saw
  // Single copies only: what a copy issued among other copies (of other kinds and sizes, host
  // bytes anywhere: calibrate's pcie.mixed, timed as `perfmodel check transfers` times) cost
  // beyond one issued back to back with copies of its own kind; already added to every
  // segment's setup_s (apply_mixed_copies). 0 where not measured (profiles before 2026-11-26).
  double mixed_setup_s = 0;

  const TransferSegment& segment_for(double bytes) const;
  // T(b): the line of b's segment. Within a regime time grows with size (s_per_byte > 0);
  // between two regimes it may step down where the copies do: on the H100 hosts a pinned h2d
  // copy of 24 KiB took 13.6 µs and one of 28 KB 10.5 µs (the driver changes the copy's path).
  double seconds(double bytes) const { return segment_for(bytes).seconds(bytes, is_misaligned(bytes)); }
  // [low, high] seconds of one copy of `bytes` (the segment's band around seconds()); {0, 0}
  // where the curve has no interval.
  std::pair<double, double> interval_s(double bytes) const;
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
  int batch = 0;          // copies one sample timed back to back (0: unknown)
  // Every sample's time, in the order they were taken (empty: unknown). The interval of the
  // curve's regimes is computed from them.
  std::vector<double> samples_s = {};
};

// PCIe Gen5 x16 per direction: 32 GT/s × 16 lanes × 128/130 ≈ 63 GB/s. No regime's time per byte
// is fitted below its inverse (a pair of bidirectional copies moves b bytes each way).
inline constexpr double kPcieGen5x16BytesPerS = 63.0e9;

// Options of the transfer fit: at most four regimes a curve, no bridges, no ragged-tail penalty
// (docs/transfers.md: neither paid off on another run's measurements).
SegmentedFitOptions transfer_fit_options();

// The 5-95 % band of sample / model over the sizes [first, last) of `set` (each size weighs the
// same, whatever its sample count), widened by the median drift of those sizes between the
// first and second half of their samples: low = q05 · e^-d, high = q95 · e^d with
// d = median |ln(median(late half) / median(early half))|. Returns {0, 0} where no size has
// samples. Exposed for tests.
std::pair<double, double> observed_interval(const std::vector<SizeTime>& set, const TransferCurve& curve, double from_bytes,
                                            double to_bytes);

// Fits a curve to per-size typical times (one per distinct size), then reports its error on
// held-out sizes if any are given. Segment boundaries are rounded up to whole bytes.
TransferCurve fit_transfer_curve(const std::vector<SizeTime>& fit_set, const std::vector<SizeTime>& holdout_set,
                                 const SegmentedFitOptions& options = transfer_fit_options());

// A single-copy curve fitted to copies issued back to back with their own kind, corrected to
// copies issued among others (the mixed set: each size's copies timed in one random interleaved
// order with the other kinds and sizes, host bytes at a random page):
//   shift = median over the mixed sizes below 1 MiB (all sizes where none is) of
//           (median of the size's copies − curve time),
// added to every segment's setup_s (a fixed cost per copy: on the H100 host of 2026-11-26,
// GPU 92e6119c, copies of 1–13 MB issued so missed by 3–6 µs as small ones by 3–4 µs); each
// segment's interval then spans both its own copies' band and the mixed copies' (observed_interval,
// the union of the two). The fit quality stays that of the fitted line on its own copies.
// Returns the shift (also kept as curve.mixed_setup_s); 0 and no change for an empty set.
double apply_mixed_copies(TransferCurve& curve, const std::vector<SizeTime>& fit_set, const std::vector<SizeTime>& mixed_set);

// Relative errors of a curve on a set of typical times.
FitQuality evaluate_curve(const TransferCurve& curve, const std::vector<SizeTime>& set);

}  // namespace perfmodel
