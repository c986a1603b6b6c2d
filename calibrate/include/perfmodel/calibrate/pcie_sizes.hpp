#pragma once
// Transfer sizes of the PCIe calibration.
//   fit set:     every power of two 2^2 … 2^30, the midpoints 3·2^k between them, and one odd
//                size per octave (2^(k+0.55), made odd) from 16 B to 64 MiB;
//   held-out set: two sizes per octave at 2^(k+0.3) and 2^(k+0.8), rounded to a whole byte,
//                 never a power of two nor a fit size. The fit never sees them.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

// Which host bytes a PCIe copy uses (calibrate --pcie-host-buffer).
//   rotating (the default): each copy, each of a batch too, takes the page-aligned bytes after
//     the previous copy's, wrapping to the buffer's start where it ends, so its host side is the
//     one touched longest ago: not in the host's caches, whatever size ran before.
//   fixed: every copy at the buffer's start, as nvbandwidth and bandwidthTest do. Then the sizes
//     that fit the host's last-level cache (300 MiB on the H100 hosts) find their bytes there or
//     not depending on the copies before: on lease be2ef489 (2026-11-23, data/experiments/
//     2026-11-23-h100-pcie-host-buffer) an h2d pageable copy of 1-30 MB right after a copy of
//     over 128 MB ran 25-43 % slower than its size's median, the h2d pageable curve bent between
//     12 and 50 MB, and its held-out maxima were 21.8 and 10.8 % (rotating, minutes later: 5.8
//     and 2.9 %; under 8 % in 7 of 8 rotating runs on three leases).
enum class PcieHostBuffer { rotating, fixed };
const char* to_string(PcieHostBuffer b);

// Hands out each copy's offset into a host buffer of `capacity` bytes (PcieHostBuffer).
class PcieHostCursor {
 public:
  static constexpr std::size_t kAlign = 4096;  // every offset keeps the buffer's page alignment
  PcieHostCursor(PcieHostBuffer mode, std::size_t capacity) : mode_(mode), capacity_(capacity) {}
  // The offset of the next copy of `bytes`. Throws std::invalid_argument when bytes > capacity.
  std::size_t next(std::uint64_t bytes);

 private:
  PcieHostBuffer mode_;
  std::size_t capacity_;
  std::size_t at_ = 0;
};

// ------------------------------------------------------------------ the calibration's sampling
// Sizes the PCIe calibration times: every power of two from 4 B to 1 GiB and, up to 64 MiB, the
// midpoints 3·2^k between them (quick: the powers of two of 4^k and 1 GiB). Above 64 MiB a copy
// takes milliseconds and its curve is a straight line in bytes; the time goes to samples instead.
std::vector<std::uint64_t> pcie_calibration_sizes(bool quick);

// When a size has been sampled enough: the relative standard error of its median, estimated as
// 1.2533 · (interquartile range / 1.349) / median / √n (the normal approximation; cheap enough to
// check after every round), at most `target_rel_se`, after at least `min_samples`. Samples
// taken by a size of the calibration keep coming until then, or until `max_samples` or the
// curve's time budget is spent: the samples go where the variance is.
struct PcieSampling {
  double target_rel_se_pinned = 0.005, target_rel_se_pageable = 0.015;
  int min_samples = 5, min_samples_long = 3, max_samples = 41;
  double long_sample_s = 20e-3;  // a sample at least this long needs only min_samples_long
  // Seconds of sampling per curve (after its pilot copies): where the target is not reached by
  // then, the curve stops with what it has (the interval it reports is then wider).
  double budget_pinned_s = 1.6, budget_pageable_s = 3.0, budget_bidir_s = 1.6;
  // Stream-mode samples: `queue` copies back to back in a stream, the queue long enough that one
  // sample lasts stream_sample_s (≥ min_queue copies, ≤ max_queue), for sizes whose single copy
  // lasts at most stream_up_to_s; above, the stream curve takes the single copies (a copy that
  // long hides the modes' difference of a few microseconds: < 0.5 %).
  double stream_sample_s = 1e-3, stream_up_to_s = 2.5e-3;
  int min_queue = 8, max_queue = 256;

  static PcieSampling quick();
  // `effort` times the samples and the budgets, the target precision over √effort
  // (--pcie-effort). Throws std::invalid_argument unless 1 ≤ effort ≤ 16.
  PcieSampling scaled(double effort) const;
  double target_rel_se(HostMemory memory) const {
    return memory == HostMemory::pinned ? target_rel_se_pinned : target_rel_se_pageable;
  }
  double budget_s(const TransferKey& key) const {
    return key.direction == Direction::bidir ? budget_bidir_s
                                             : key.memory == HostMemory::pinned ? budget_pinned_s : budget_pageable_s;
  }
  // The queue of a stream-mode sample for a copy whose single time is single_s; 0 when the size
  // is not sampled in stream mode.
  int queue_for(double single_s) const;
  // Whether a size with these sample times (one copy's time each) needs no more samples.
  bool enough(const std::vector<double>& samples_s, HostMemory memory) const;
};
// The relative standard error of a sample's median (PcieSampling::enough); +inf below 2 samples.
double median_rel_se(std::vector<double> samples_s);

struct PcieSizePlan {
  std::vector<std::uint64_t> fit;
  std::vector<std::uint64_t> holdout;
};

// Sizes from min_bytes up to max_bytes (both powers of two, 4 ≤ min < max).
PcieSizePlan pcie_size_plan(std::uint64_t min_bytes = 4, std::uint64_t max_bytes = std::uint64_t{1} << 30);

// How often each size is sampled. Noise on shared hosts comes in bursts that last milliseconds,
// so a size's samples are spread over the whole run: the run has `all` rounds, each visits the
// sizes in a fresh random order, and a size with fewer rounds takes part in evenly spaced ones.
// A cheap size gets every round (its median is what the small-size segments stand on, and its
// samples are the noisiest); a costlier one as many as `size_budget_s` of sampling buys, at
// least `mid`; a pinned sample longer than `long_sample_s` gets `long_pinned` rounds. Pageable
// copies are staged through the host's memory by a CPU, and their noise is the host's: on the
// 2026-11-23 H100 hosts a single pageable copy of 2 MB-1 GiB strays 6-20 % (sd) from its size's
// typical time, drifting over hundreds of milliseconds. A pageable sample of up to
// 4·long_sample_s (h2d: 20-70 MB) gets `long_pageable_mid` rounds, a longer one `long_pageable`.
// Subsampling a four-times-effort run (data/experiments/2026-11-23-h100-pcie-effort, 8 draws),
// 18 and 6 instead of 9 and 5, without the pageable refinement sizes (the noise-aware test below
// drops most of them), took the same time and lowered each pageable held-out mean in 7 of the 8
// draws (on average h2d 2.36 → 2.08 %, d2h 2.41 → 1.88 %); the h2d maxima stayed at 6-12 %.
// Where the measured curve bends between fit sizes, the fit set is too sparse to place the bend:
// the h2d pageable copies of the 2026-11-22 H100 fell from 14 to 8 GB/s between 12 and 30 MB,
// and the held-out 14.6 MB copy missed by 82 %. Half way through the rounds, a fit size whose typical
// time lies more than `tolerance` off the straight line through its neighbours' times (the
// model is linear in bytes within a segment) gets new fit sizes at the geometric midpoints of
// both intervals beside it. The new sizes avoid powers of two, every fit and held-out size, and
// sizes below `min_bytes`; at most `max_new` are returned, the most bent intervals first.
// A bend must also stand `noise_z` standard errors clear of the noise: each size's standard error
// is the median relative spread of the three sizes (interquartile range / 1.349 / median) over
// the square root of its sample count. Without that test, the noise of the pageable copies above
// 2 MB (two or three samples each half way through) passed for 11-20 bends a run on the
// 2026-11-23 H100 hosts, whose up to 24 new sizes took 2.4-3.3 s of the h2d pageable curve's
// 7-8 s and did not lower its held-out error (re-fitted without them: 8 recorded runs, the mean
// within ±0.5 point); with it, 2-7 bends remain (the 1 MiB step of the staging path among them),
// and pinned curves keep theirs (their noise is a tenth). A size with noise but fewer than
// `min_samples` samples cannot show a bend: the spread of two or three samples is itself noise
// (on lease b7d13afa the largest pageable sizes, two samples each half way, passed for 4-5 bends at
// 164-930 MB, whose 8-9 new sizes took 2.6-4.0 s of the h2d curve and pushed the calibration
// to 29.9 and 31.8 s).
// The bends are found after the first `refine_after` rounds (half), and the new sizes join the rounds
// that remain, so they share the main sizes' time window: sampled afterwards, on their own, a
// refined h2d size near 930 MB sat 10 % above its held-out neighbour on a drifting host.
struct PcieRefinement {
  double tolerance = 0.03;
  double noise_z = 3.0;
  std::size_t min_samples = 4;
  std::uint64_t min_bytes = 4096;
  std::size_t max_new = 24;
};
// fit_times: the fit set's typical times, any order (bytes, typical_s, samples, rel_spread).
// Where all three sizes of a bend have rel_spread 0 they count as noiseless, and no sample count
// is asked of them. taken: sizes that may not be reused (the fit and held-out sets). Returns the
// new sizes, ascending.
std::vector<std::uint64_t> pcie_refinement_sizes(std::vector<SizeTime> fit_times,
                                                 const std::vector<std::uint64_t>& taken, const PcieRefinement& options = {});

struct PcieRoundPlan {
  int all = 243, mid = 27, long_pinned = 9, long_pageable_mid = 18, long_pageable = 6, refine_after = 121;
  double size_budget_s = 7.3e-3, long_sample_s = 2e-3;
  // The most a curve's long pageable sizes may sample (seconds, all their rounds together). Their
  // time is the host's staging rate's: 7.5-9.5 s at 18 and 6 rounds where the H100 host staged
  // h2d copies at 8 GB/s, 12-13 s on a lease that staged them at 3.9 GB/s (2026-11-23 14:05 UTC,
  // lease 0fe75998: PCIe 34.7 s), over issue 2's 30 s for the whole calibration.
  double long_pageable_budget_s = 7.5;

  static PcieRoundPlan quick() { return {15, 5, 3, 3, 3, 7, 7.3e-3, 2e-3, 0.5}; }
  // `effort` times the rounds, the rounds of every kind of size and the sampling budget per size
  // (≈ effort times the samples and the time; --pcie-effort). Throws std::invalid_argument unless
  // 1 ≤ effort ≤ 16.
  PcieRoundPlan scaled(double effort) const;
  // Rounds for a size whose one sample (a batch of copies) takes sample_s seconds.
  int rounds_for(double sample_s, bool pinned) const;
  // Rounds for each of a curve's sizes (sample_s: one sample's seconds each): rounds_for, except
  // that where the long pageable sizes' sampling would exceed long_pageable_budget_s, their rounds
  // are scaled down together to fit it, to no fewer than long_pinned (up to 4·long_sample_s) and 3
  // (longer) rounds. Throws std::invalid_argument as rounds_for does.
  std::vector<int> rounds_for_curve(const std::vector<double>& sample_s, bool pinned) const;
  // Whether a size of `rounds` rounds that joins the run at round `first` takes part in round
  // `round` (first ≤ round < all): its rounds are spread evenly over the rest of the run, and it
  // takes part in every one of them when it was given more.
  bool takes_part(int round, int rounds, int first = 0) const {
    const int span = all - first, r = round - first;
    return r >= 0 && r < span && (r + 1) * rounds / span != r * rounds / span;
  }
};

// How many copies one sample times back to back (the timer resolves ~0.5 µs, so a sample should
// last ≥ target_s). A copy's time inside a batch depends on the batch itself: on the 2026-11-23
// H100 a 4-byte pinned bidirectional pair took 7.2 µs in batches of 3 and 7.6 µs in batches of 4
// (6.84 and 7.13 in the repeat run), a one-way pinned copy 8.4 against 8.0–8.2 µs; a batch chosen
// per size from one noisy pilot copy flipped between 2, 3 and 4 along the flat small-size
// regime and put steps of up to 20 % into the measured curve that no smooth model (nor the
// held-out sizes) follows. So every copy shorter than target_s takes one batch, `small`: the one
// that brings the typical smallest copy (the median pilot of the five smallest sizes) to
// target_s. Sizes above the last one whose pilot is shorter than target_s go one copy at a
// time, so the batch never rises with size, and a size added later gets the batch of its place.
struct PcieBatchPlan {
  int small = 1;                          // the batch of every copy shorter than the target
  std::uint64_t unbatched_from = 0;       // sizes ≥ this go one copy per sample
  int batch_for(std::uint64_t bytes) const { return bytes >= unbatched_from ? 1 : small; }
};
// pilot: (size, one copy's time) for every size timed, any order; sizes not piloted (copies far
// longer than the target) go unbatched. Throws std::invalid_argument on an empty list, a
// non-positive time, or target_s ≤ 0 / max_batch < 1.
PcieBatchPlan pcie_batch_plan(std::vector<std::pair<std::uint64_t, double>> pilot, double target_s, int max_batch);

}  // namespace perfmodel
