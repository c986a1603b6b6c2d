#pragma once
// From raw GPU samples (gpu_samples.hpp) to the fitted `gpu` section (gpu_calibration.hpp).
//
// Series and what `amount` counts in them:
//   ceiling.<name>            bytes / flops / ops / calls (ceiling_kinds() gives the unit)
//   dram.concurrency          bytes; params blocks_per_sm, threads, ilp, element_bytes, sms, holdout (1 = never fitted)
//   hierarchy.read            bytes; params footprint_bytes
//   latency.chase             dependent loads; params footprint_bytes, steps
//   shared.conflict           warp-wide accesses per SM; params word_bytes, degree
//   dram.partition            bytes; params granule_bytes, stride_bytes, slots_used
//   dram.stride               useful bytes; params stride_elements, element_bytes
//   launch.empty|sync|graph   kernels
//   launch.waves              kernels; params waves, blocks
//   overlap.<combination>     1; combination ∈ h2d, d2h, kernel, h2d+d2h, h2d+kernel, d2h+kernel, all; param bytes
//   overlap.kernels           kernels; param streams, single_s
//   atomic.add                atomic updates; params type (0 int32, 1 fp32, 2 fp64), addresses, threads
#include <map>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/benchmark_samples.hpp"

namespace perfmodel {

struct XY {
  double x = 0, y = 0;
};

// Least squares in relative error over (log peak, log latency, log sharpness), started from a
// grid. Throws std::invalid_argument for fewer than 3 points or non-positive values.
SaturationCurve fit_saturation(const std::vector<XY>& fit_set, const std::vector<XY>& holdout_set);

// One measured launch of the concurrency sweep.
struct ConcurrencyPoint {
  double sms = 0, warps_per_sm = 0, loads_per_thread = 0, request_bytes = 0;
  double bandwidth_Bps = 0;
};
// fit_saturation on q = bytes_in_flight(…) with the per-warp request limit chosen (grid 1 … 32)
// to minimise the fit set's squared relative error.
SaturationCurve fit_concurrency(const std::vector<ConcurrencyPoint>& fit_set, const std::vector<ConcurrencyPoint>& holdout_set);

// y ≈ intercept + slope · x, minimising squared relative residuals. Both coefficients free.
struct LineFit {
  double intercept = 0, slope = 0;
  FitQuality quality;
};
LineFit fit_line(const std::vector<XY>& points);

// Relative errors |model − y| / y.
FitQuality relative_errors(const std::vector<double>& model, const std::vector<double>& measured);

// Medians per configuration of one series (rates are amount / seconds), in configuration order.
struct SeriesPoint {
  std::map<std::string, double> params;
  double median_seconds = 0;
  double median_rate = 0, p10_rate = 0, p90_rate = 0;
  std::size_t samples = 0;
  double typical_rate = 0;  // interquartile mean of the rates (SampleSummary::interquartile_mean)
};
std::vector<SeriesPoint> series_medians(const std::vector<BenchmarkSample>& samples, const std::string& series);

// Dependent-load latency per footprint from latency.chase samples: the slope of the median time
// between the smallest and the largest step count (launch overhead cancels). Throws InputError
// when a footprint's time does not grow with the steps.
std::map<double, double> chase_latency_by_footprint(const std::vector<SeriesPoint>& chase);

// Fits everything present in the samples; sections without samples stay empty.
// Throws InputError (naming the series) when samples cannot be fitted.
GpuCalibration fit_gpu(const GpuSampleFile& file, const std::string& samples_file);

}  // namespace perfmodel
