#include "perfmodel/calibrate/pcie_sizes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "perfmodel/model/statistics.hpp"

namespace perfmodel {

const char* to_string(PcieHostBuffer b) { return b == PcieHostBuffer::rotating ? "rotating" : "fixed"; }

std::size_t PcieHostCursor::next(std::uint64_t bytes) {
  if (bytes > capacity_)
    throw std::invalid_argument("PcieHostCursor: a copy of " + std::to_string(bytes) + " B does not fit a buffer of " +
                                std::to_string(capacity_) + " B");
  if (mode_ == PcieHostBuffer::fixed) return 0;
  if (at_ + bytes > capacity_) at_ = 0;
  const std::size_t offset = at_;
  at_ += (bytes + kAlign - 1) / kAlign * kAlign;
  return offset;
}

std::vector<std::uint64_t> pcie_calibration_sizes(bool quick) {
  std::vector<std::uint64_t> out;
  // Quick stops at 256 MiB: a copy there already lasts milliseconds on the curve's last rate, and
  // the 1 GiB host buffers alone (pinned 0.36-0.66 s, pageable 0.53-0.76 s to allocate and touch
  // on the H100 host) and their copies were 1-2 s of a 13-20 s quick calibration.
  const std::uint64_t top = std::uint64_t{1} << (quick ? 28 : 30);
  for (std::uint64_t b = 4; b <= top; b *= quick ? 4 : 2) {
    out.push_back(b);
    if (!quick && b < (std::uint64_t{64} << 20)) out.push_back(3 * b / 2);
  }
  if (out.back() != top) out.push_back(top);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<TransferCheckCopy> pcie_mixed_plan(bool quick, std::uint64_t seed) {
  std::vector<TransferCheckCopy> copies;
  const int reps = quick ? 2 : 3;
  for (std::uint64_t bytes : pcie_calibration_sizes(quick)) {
    if (bytes > (std::uint64_t{64} << 20)) continue;
    for (Direction d : {Direction::h2d, Direction::d2h})
      for (HostMemory m : {HostMemory::pinned, HostMemory::pageable})
        for (int r = 0; r < reps; ++r) copies.push_back({{d, m}, bytes, r, 0.0, 0.0});
  }
  std::mt19937_64 rng(seed);
  std::shuffle(copies.begin(), copies.end(), rng);
  return copies;
}

PcieSampling PcieSampling::quick() {
  PcieSampling s;
  s.target_rel_se_pinned = 0.01;
  s.target_rel_se_pageable = 0.03;
  s.min_samples = 4;
  s.min_samples_long = 2;
  s.max_samples = 15;
  s.budget_pinned_s = 0.35;
  s.budget_pageable_s = 0.7;
  s.budget_bidir_s = 0.35;
  s.stream_sample_s = 0.5e-3;
  return s;
}

PcieSampling PcieSampling::scaled(double effort) const {
  if (!(effort >= 1 && effort <= 16)) throw std::invalid_argument("the effort must lie in [1, 16]");
  PcieSampling s = *this;
  s.target_rel_se_pinned /= std::sqrt(effort);
  s.target_rel_se_pageable /= std::sqrt(effort);
  s.min_samples = static_cast<int>(std::lround(min_samples * effort));
  s.min_samples_long = static_cast<int>(std::lround(min_samples_long * effort));
  s.max_samples = static_cast<int>(std::lround(max_samples * effort));
  s.budget_pinned_s *= effort;
  s.budget_pageable_s *= effort;
  s.budget_bidir_s *= effort;
  return s;
}

int PcieSampling::queue_for(double single_s) const {
  if (!(single_s > 0) || single_s > stream_up_to_s) return 0;
  return std::clamp(static_cast<int>(std::ceil(stream_sample_s / single_s)), min_queue, max_queue);
}

double median_rel_se(std::vector<double> samples_s) {
  if (samples_s.size() < 2) return std::numeric_limits<double>::infinity();
  std::sort(samples_s.begin(), samples_s.end());
  const double median = quantile_of_sorted(samples_s, 0.5);
  const double iqr = quantile_of_sorted(samples_s, 0.75) - quantile_of_sorted(samples_s, 0.25);
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  return 1.2533 * (iqr / 1.349) / median / std::sqrt(static_cast<double>(samples_s.size()));
}

bool PcieSampling::enough(const std::vector<double>& samples_s, HostMemory memory) const {
  const int n = static_cast<int>(samples_s.size());
  if (n >= max_samples) return true;
  double typical = 0;
  for (double t : samples_s) typical += t;
  typical = n > 0 ? typical / n : 0.0;
  const int least = typical >= long_sample_s ? min_samples_long : min_samples;
  return n >= least && median_rel_se(samples_s) <= target_rel_se(memory);
}

}  // namespace perfmodel
