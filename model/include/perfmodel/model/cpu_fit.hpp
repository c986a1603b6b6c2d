#pragma once
// From raw CPU samples (benchmark_samples.hpp, "# perfmodel cpu samples v1") to the `cpu` section.
//
// Series and what `amount` counts in them:
//   bandwidth.<kind>    bytes; params threads, working_set_bytes     (kind: read, write, copy, triad)
//   compute.fp32|fp64   flops; params threads
//   sync.dispatch       empty fork-joins of the thread pool; params threads
//   kernel.<name>       runs (a batch, back to back); params n, threads, holdout (1 = never fitted)
#include <string>
#include <vector>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/cpu_calibration.hpp"

namespace perfmodel {

// Piecewise-constant fit of log(bandwidth) over log(working set): dynamic programming, number
// of plateaus (1 … max_plateaus) by BIC, at least 2 points each. Returns the index ranges
// [first, last] of each plateau over `bandwidths` (ordered by working set).
std::vector<std::pair<std::size_t, std::size_t>> find_plateaus(const std::vector<double>& bandwidths,
                                                               std::size_t max_plateaus = 5);

// One measured size of a kernel: its working set, its model time before the efficiency
// (roofline + thread-pool dispatches) and the measured time.
struct KernelPoint {
  double working_set_bytes = 0, roofline_s = 0, measured_s = 0;
};
// The efficiency curve through the fit points (one node per distinct working set), and its
// relative error on the held-out points. Throws std::invalid_argument for no fit point.
CpuKernelModel fit_kernel_model(std::vector<KernelPoint> fit_set, const std::vector<KernelPoint>& holdout_set);

CpuCalibration fit_cpu(const CpuSampleFile& file, const std::string& samples_file);

}  // namespace perfmodel
