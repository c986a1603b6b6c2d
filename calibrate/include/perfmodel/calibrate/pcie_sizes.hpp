#pragma once
// The PCIe calibration's sizes, host bytes and sampling plan (pcie_benchmark.cu). Sizes the model
// is judged on are drawn elsewhere, at random, by the independent check
// (validate/transfer_check.hpp): no size here is held out.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

// Which host bytes a PCIe copy uses (calibrate --pcie-host-buffer).
//   rotating (the default): each copy, each of a batch too, takes the page-aligned bytes after
//     the previous copy's, wrapping to the buffer's start where it ends, so its host side is the
//     one touched longest ago: not in the host's caches, whatever size ran before.
//   fixed: every copy at the buffer's start, as nvbandwidth and bandwidthTest do. Then the sizes
//     that fit the host's last-level cache (300 MiB on the H100 hosts) find their bytes there or
//     not depending on the copies before: on GPU be2ef489 (2026-11-23, data/experiments/
//     2026-11-23-h100-pcie-host-buffer) an h2d pageable copy of 1-30 MB right after a copy of
//     over 128 MB ran 25-43 % slower than its size's median, the h2d pageable curve bent between
//     12 and 50 MB, and its held-out maxima were 21.8 and 10.8 % (rotating, minutes later: 5.8
//     and 2.9 %; under 8 % in 7 of 8 rotating runs on three machines).
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
// midpoints 3·2^k between them (quick: the powers of 4 from 4 B to 256 MiB). Above 64 MiB a copy
// takes milliseconds and its curve is a straight line in bytes; the time goes to samples instead.
std::vector<std::uint64_t> pcie_calibration_sizes(bool quick);

// The copies of pcie.mixed: single copies of the four one-way kinds (h2d, d2h × pinned, pageable)
// at every calibration size up to 64 MiB (pcie_calibration_sizes), `reps` each (3; quick: 2), in
// one random order drawn from `seed`. Timed by time_transfer_check, as `perfmodel check
// transfers` times its own (other) sizes: a copy among copies of other kinds and sizes, host bytes
// at a random page, the issuing thread free to move. About 580 copies and 0.3 s on an H100 host.
std::vector<TransferCheckCopy> pcie_mixed_plan(bool quick, std::uint64_t seed);

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
  double budget_pinned_s = 1.2, budget_pageable_s = 2.4, budget_bidir_s = 1.2;
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

}  // namespace perfmodel
