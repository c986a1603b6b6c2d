#include "perfmodel/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace perfmodel {

double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

SampleSummary summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  for (double s : samples)
    if (!std::isfinite(s)) throw std::invalid_argument("summarize: non-finite sample");
  std::sort(samples.begin(), samples.end());
  SampleSummary out;
  out.count = samples.size();
  out.min = samples.front();
  out.max = samples.back();
  out.median = quantile_of_sorted(samples, 0.5);
  out.p10 = quantile_of_sorted(samples, 0.1);
  out.p25 = quantile_of_sorted(samples, 0.25);
  out.p75 = quantile_of_sorted(samples, 0.75);
  out.p90 = quantile_of_sorted(samples, 0.9);
  out.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  const std::size_t trim = samples.size() / 4;
  const auto first = samples.begin() + static_cast<std::ptrdiff_t>(trim), last = samples.end() - static_cast<std::ptrdiff_t>(trim);
  out.interquartile_mean = std::accumulate(first, last, 0.0) / static_cast<double>(last - first);
  return out;
}

}  // namespace perfmodel
