#pragma once
// Robust summaries of repeated measurements. Every timing in perfmodel is reported as a
// median with its spread; the mean is kept for reference only.
#include <cstddef>
#include <vector>

namespace perfmodel {

struct SampleSummary {
  std::size_t count = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double p10 = 0, p25 = 0, p75 = 0, p90 = 0;  // linear interpolation between order statistics
  // Mean of the middle half (sorted samples floor(n/4) … n − floor(n/4) − 1; all of them when
  // n < 4). As robust to bursts as the median, but it moves smoothly where a time is bimodal:
  // small bidirectional copies on the H100 take about 6.0 or 7.2 µs, and a size's median jumps
  // between the two with the mix, where the interquartile mean follows the mix.
  double interquartile_mean = 0;
  // Relative interquartile range (p75 − p25) / median. Timings on shared hosts come with bursts
  // of slow samples; the IQR measures the spread of the bulk, which is what the median stands on.
  double relative_spread() const { return median > 0 ? (p75 - p25) / median : 0.0; }
};

// Throws std::invalid_argument on an empty input or a non-finite sample.
SampleSummary summarize(std::vector<double> samples);

// Relative standard error of a sample's interquartile mean, by the bootstrap: the standard
// deviation of the interquartile means of `resamples` resamples with replacement, divided by the
// sample's own interquartile mean. Deterministic (a fixed-seed splitmix64 stream, the same on
// every platform), so a profile re-fitted from the same samples reports the same figure. How
// precisely a size's typical time is known: a model cannot be judged closer to it than this.
// 0 for fewer than 2 samples. Throws std::invalid_argument on a non-finite sample.
double interquartile_mean_rel_se(const std::vector<double>& samples, int resamples = 200);

// q in [0,1] of an ascending vector (linear interpolation, as numpy's default).
double quantile_of_sorted(const std::vector<double>& sorted, double q);

// Default threshold above which a measurement is flagged as noisy.
inline constexpr double kWideSpreadThreshold = 0.10;

}  // namespace perfmodel
