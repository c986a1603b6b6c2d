#include "perfmodel/calibrate/pcie_sizes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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
  const std::uint64_t top = std::uint64_t{1} << 30;
  for (std::uint64_t b = 4; b <= top; b *= quick ? 4 : 2) {
    out.push_back(b);
    if (!quick && b < (std::uint64_t{64} << 20)) out.push_back(3 * b / 2);
  }
  if (out.back() != top) out.push_back(top);
  std::sort(out.begin(), out.end());
  return out;
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

PcieSizePlan pcie_size_plan(std::uint64_t min_bytes, std::uint64_t max_bytes) {
  auto is_power_of_two = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  if (!is_power_of_two(min_bytes) || !is_power_of_two(max_bytes) || min_bytes < 4 || min_bytes >= max_bytes)
    throw std::invalid_argument("pcie_size_plan: bounds must be powers of two with 4 <= min < max");
  PcieSizePlan plan;
  for (std::uint64_t b = min_bytes; b <= max_bytes; b *= 2) {
    plan.fit.push_back(b);
    if (b < max_bytes) plan.fit.push_back(3 * b / 2);
  }
  // Odd sizes in the fit set teach the model what a misaligned copy costs (up to 64 MiB, beyond
  // which a few bytes of tail cannot matter).
  for (std::uint64_t b = min_bytes * 4; b < max_bytes && b <= (std::uint64_t{64} << 20); b *= 2)
    plan.fit.push_back(static_cast<std::uint64_t>(std::llround(static_cast<double>(b) * std::exp2(0.55))) | 1u);
  std::sort(plan.fit.begin(), plan.fit.end());
  auto taken = [&](std::uint64_t v) {
    return is_power_of_two(v) || std::binary_search(plan.fit.begin(), plan.fit.end(), v) ||
           std::find(plan.holdout.begin(), plan.holdout.end(), v) != plan.holdout.end();
  };
  for (std::uint64_t b = min_bytes; b < max_bytes; b *= 2)
    for (double offset : {0.3, 0.8}) {
      auto v = static_cast<std::uint64_t>(std::llround(static_cast<double>(b) * std::exp2(offset)));
      while (taken(v)) ++v;
      plan.holdout.push_back(v);
    }
  return plan;
}

std::vector<std::uint64_t> pcie_refinement_sizes(std::vector<SizeTime> fit_times, const std::vector<std::uint64_t>& taken,
                                                 const PcieRefinement& options) {
  for (const SizeTime& t : fit_times)
    if (!(t.bytes >= 1) || !(t.typical_s > 0) || !std::isfinite(t.typical_s) || !(t.rel_spread >= 0) || !std::isfinite(t.rel_spread))
      throw std::invalid_argument("pcie_refinement_sizes: sizes and typical times must be positive, spreads finite and >= 0");
  std::sort(fit_times.begin(), fit_times.end(), [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  std::vector<std::uint64_t> used = taken;
  for (const SizeTime& t : fit_times) used.push_back(static_cast<std::uint64_t>(t.bytes));
  std::sort(used.begin(), used.end());
  auto is_used = [&](std::uint64_t v) { return (v & (v - 1)) == 0 || std::binary_search(used.begin(), used.end(), v); };

  std::vector<std::pair<double, std::pair<std::uint64_t, std::uint64_t>>> bent;  // (how bent, interval)
  for (std::size_t i = 1; i + 1 < fit_times.size(); ++i) {
    const SizeTime &p0 = fit_times[i - 1], &p1 = fit_times[i], &p2 = fit_times[i + 1];
    if (p0.bytes < static_cast<double>(options.min_bytes)) continue;
    const double w = (p1.bytes - p0.bytes) / (p2.bytes - p0.bytes);
    const double line = p0.typical_s + (p2.typical_s - p0.typical_s) * w;
    const double off = std::fabs(p1.typical_s - line) / p1.typical_s;
    if (off <= options.tolerance) continue;
    const bool noisy = p0.rel_spread > 0 || p1.rel_spread > 0 || p2.rel_spread > 0;
    if (noisy && std::min({p0.samples, p1.samples, p2.samples}) < options.min_samples) continue;
    // The noise of `off`: the middle size's standard error and the line's, in units of p1's time.
    double spreads[3] = {p0.rel_spread, p1.rel_spread, p2.rel_spread};
    std::sort(spreads, spreads + 3);
    const double sd = spreads[1] / 1.349;
    auto se = [sd](const SizeTime& t) { return t.samples > 0 ? sd / std::sqrt(static_cast<double>(t.samples)) : 0.0; };
    const double a = se(p1), b = (1 - w) * p0.typical_s / p1.typical_s * se(p0), c = w * p2.typical_s / p1.typical_s * se(p2);
    if (off <= options.noise_z * std::sqrt(a * a + b * b + c * c)) continue;
    const auto x0 = static_cast<std::uint64_t>(p0.bytes), x1 = static_cast<std::uint64_t>(p1.bytes), x2 = static_cast<std::uint64_t>(p2.bytes);
    bent.push_back({off, {x0, x1}});
    bent.push_back({off, {x1, x2}});
  }
  std::stable_sort(bent.begin(), bent.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::uint64_t> out;
  for (const auto& [off, interval] : bent) {
    if (out.size() >= options.max_new) break;
    const auto [lo, hi] = interval;
    auto v = static_cast<std::uint64_t>(std::llround(std::sqrt(static_cast<double>(lo) * static_cast<double>(hi))));
    while (v < hi && (is_used(v) || std::find(out.begin(), out.end(), v) != out.end())) ++v;
    if (v <= lo || v >= hi) continue;  // no free size strictly inside (adjacent sizes)
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

PcieBatchPlan pcie_batch_plan(std::vector<std::pair<std::uint64_t, double>> pilot, double target_s, int max_batch) {
  if (pilot.empty()) throw std::invalid_argument("pcie_batch_plan: no pilot times");
  if (!(target_s > 0) || max_batch < 1) throw std::invalid_argument("pcie_batch_plan: the target and the largest batch must be positive");
  for (const auto& [bytes, seconds] : pilot)
    if (!(seconds > 0) || !std::isfinite(seconds))
      throw std::invalid_argument("pcie_batch_plan: the pilot time of " + std::to_string(bytes) + " B is not a positive number");
  std::sort(pilot.begin(), pilot.end());
  PcieBatchPlan plan;  // unbatched from 0 B: every copy reaches the target alone
  // The last size whose copy is shorter than the target; the sizes above it go unbatched.
  std::size_t last_short = pilot.size();
  for (std::size_t i = pilot.size(); i-- > 0;)
    if (pilot[i].second < target_s) {
      last_short = i;
      break;
    }
  if (last_short == pilot.size()) return plan;
  plan.unbatched_from = last_short + 1 < pilot.size() ? pilot[last_short + 1].first : pilot.back().first + 1;
  // The typical smallest copy: the median pilot of the (up to) five smallest sizes.
  std::vector<double> smallest;
  for (std::size_t i = 0; i < std::min<std::size_t>(5, last_short + 1); ++i) smallest.push_back(pilot[i].second);
  std::nth_element(smallest.begin(), smallest.begin() + smallest.size() / 2, smallest.end());
  const double typical = smallest[smallest.size() / 2];
  plan.small = static_cast<int>(std::clamp(std::ceil(target_s / typical), 1.0, static_cast<double>(max_batch)));
  return plan;
}

int PcieRoundPlan::rounds_for(double sample_s, bool pinned) const {
  if (!(sample_s > 0)) throw std::invalid_argument("PcieRoundPlan::rounds_for: a sample must take a positive time");
  if (sample_s > long_sample_s) return pinned ? long_pinned : sample_s <= 4 * long_sample_s ? long_pageable_mid : long_pageable;
  const double affordable = std::floor(size_budget_s / sample_s);
  return static_cast<int>(std::clamp(affordable, static_cast<double>(mid), static_cast<double>(all)));
}

std::vector<int> PcieRoundPlan::rounds_for_curve(const std::vector<double>& sample_s, bool pinned) const {
  std::vector<int> rounds;
  double long_s = 0;
  for (double s : sample_s) {
    rounds.push_back(rounds_for(s, pinned));
    if (!pinned && s > long_sample_s) long_s += rounds.back() * s;
  }
  if (pinned || long_s <= long_pageable_budget_s) return rounds;
  const double scale = long_pageable_budget_s / long_s;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (sample_s[i] <= long_sample_s) continue;
    const int floor = sample_s[i] <= 4 * long_sample_s ? std::min(long_pinned, long_pageable_mid) : std::min(3, long_pageable);
    rounds[i] = std::max(floor, static_cast<int>(std::lround(rounds[i] * scale)));
  }
  return rounds;
}

PcieRoundPlan PcieRoundPlan::scaled(double effort) const {
  if (!(effort >= 1 && effort <= 16)) throw std::invalid_argument("the PCIe effort must lie in [1, 16]");
  const auto times = [effort](int rounds) { return static_cast<int>(std::lround(rounds * effort)); };
  PcieRoundPlan p = *this;
  p.all = times(all), p.mid = times(mid), p.long_pinned = times(long_pinned), p.long_pageable_mid = times(long_pageable_mid);
  p.long_pageable = times(long_pageable);
  p.refine_after = times(refine_after);
  p.size_budget_s = size_budget_s * effort;
  p.long_pageable_budget_s = long_pageable_budget_s * effort;
  return p;
}

}  // namespace perfmodel
