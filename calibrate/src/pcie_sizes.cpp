#include "perfmodel/calibrate/pcie_sizes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace perfmodel {

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

int PcieRoundPlan::rounds_for(double sample_s, bool pinned) const {
  if (!(sample_s > 0)) throw std::invalid_argument("PcieRoundPlan::rounds_for: a sample must take a positive time");
  if (sample_s > long_sample_s) return pinned ? long_pinned : long_pageable;
  const double affordable = std::floor(size_budget_s / sample_s);
  return static_cast<int>(std::clamp(affordable, static_cast<double>(mid), static_cast<double>(all)));
}

}  // namespace perfmodel
