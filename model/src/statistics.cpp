#include "perfmodel/model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>

namespace perfmodel {

namespace {
double interquartile_mean_of_sorted(const std::vector<double>& sorted) {
  const std::size_t trim = sorted.size() / 4;
  const auto first = sorted.begin() + static_cast<std::ptrdiff_t>(trim), last = sorted.end() - static_cast<std::ptrdiff_t>(trim);
  return std::accumulate(first, last, 0.0) / static_cast<double>(last - first);
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

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
  out.interquartile_mean = interquartile_mean_of_sorted(samples);
  return out;
}

double interquartile_mean_rel_se(const std::vector<double>& samples, int resamples) {
  for (double s : samples)
    if (!std::isfinite(s)) throw std::invalid_argument("interquartile_mean_rel_se: non-finite sample");
  if (samples.size() < 2 || resamples < 2) return 0.0;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double center = interquartile_mean_of_sorted(sorted);
  if (!(center > 0)) return 0.0;
  std::uint64_t state = 0x5EED5EEDull;
  std::vector<double> draw(samples.size());
  double sum = 0, sum2 = 0;
  for (int r = 0; r < resamples; ++r) {
    for (double& d : draw) d = samples[splitmix64(state) % samples.size()];
    std::sort(draw.begin(), draw.end());
    const double m = interquartile_mean_of_sorted(draw);
    sum += m, sum2 += m * m;
  }
  const double mean = sum / resamples, var = std::max(0.0, sum2 / resamples - mean * mean);
  return std::sqrt(var * resamples / (resamples - 1)) / center;
}

}  // namespace perfmodel
