#include "perfmodel/predictors/cpu_compute.hpp"

#include <algorithm>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {

CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, double threads) {
  return predict_cpu(profile, kernel, n, cpu_workload(kernel, n), threads);
}

CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, const CpuWorkload& workload, double threads) {
  const CpuCalibration& c = profile.require_cpu();
  CpuPrediction p;
  p.kernel = kernel;
  p.n = n;
  p.workload = workload;
  const auto it = c.kernels.find(kernel);
  if (it == c.kernels.end()) throw InputError("the profile's cpu section has no fitted model for kernel '" + kernel + "'");
  const CpuKernelModel& m = it->second;
  p.threads = threads > 0 ? threads : m.threads;
  if (!(p.threads >= 1)) throw InputError("threads must be >= 1");
  p.extrapolated_threads = p.threads > c.max_threads();
  const CpuWorkload& w = p.workload;
  p.read_Bps = c.bandwidth_Bps("read", w.working_set_bytes, p.threads);
  if (w.bytes_read > 0) p.memory_s += w.bytes_read / p.read_Bps;
  if (w.bytes_written > 0) p.memory_s += w.bytes_written / c.bandwidth_Bps("write", w.working_set_bytes, p.threads);
  p.flops_per_s = c.fp32_flops(p.threads);
  if (w.flops > 0) p.compute_s = w.serial_flops / c.fp32_flops(1) + (w.flops - w.serial_flops) / p.flops_per_s;
  p.memory_bound = p.memory_s >= p.compute_s;
  p.synchronisation_s = c.synchronisation_seconds(w, p.threads);
  p.efficiency = m.efficiency_at(w.working_set_bytes);
  const auto& nodes = m.efficiency.rows;
  p.outside_fitted_sizes = nodes.empty() || w.working_set_bytes < nodes.front()[0] || w.working_set_bytes > nodes.back()[0];
  p.seconds = (p.synchronisation_s + std::max(p.memory_s, p.compute_s)) / p.efficiency;
  return p;
}

}  // namespace perfmodel
