#include "perfmodel/predictors/cpu_compute.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {
namespace {

// The kernel's workload at the size whose working set is `bytes` (the smallest n reaching it).
CpuWorkload workload_at(const std::string& kernel, double bytes) {
  double lo = 1, hi = 2;
  while (cpu_workload(kernel, hi).working_set_bytes < bytes && hi < 1e12) lo = hi, hi *= 2;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (cpu_workload(kernel, mid).working_set_bytes < bytes ? lo : hi) = mid;
  }
  return cpu_workload(kernel, hi);
}

}  // namespace

CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, double threads) {
  return predict_cpu(profile, kernel, n, cpu_workload(kernel, n), threads);
}

CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, const CpuWorkload& workload, double threads) {
  const CpuCalibration& c = profile.require_cpu();
  CpuPrediction p;
  p.kernel = kernel;
  p.n = n;
  if (!(n >= 1 && n <= limits::kMaxProblemSize) || n != std::floor(n))
    throw InputError("n must be a whole number from 1 to 2147483647, got " + std::to_string(n));
  p.workload = workload;
  // The working set must fit the host (its memory where the profile records it): beyond it the
  // bandwidth curves no longer describe the run.
  const double memory = c.cpu.memory_bytes > 0 ? c.cpu.memory_bytes : limits::kMaxBytes;
  if (!(p.workload.working_set_bytes <= memory))
    throw InputError(kernel + " at n = " + std::to_string(static_cast<long long>(n)) + " works on " + format_bytes(p.workload.working_set_bytes) +
                     ", more than the host's " + format_bytes(memory) + " of memory");
  const auto it = c.kernels.find(kernel);
  if (it == c.kernels.end()) throw InputError("the profile's cpu section has no fitted model for kernel '" + kernel + "'");
  const CpuKernelModel& m = it->second;
  p.threads = threads > 0 ? threads : m.threads;
  if (!(p.threads >= 1 && p.threads <= limits::kMaxThreads) || p.threads != std::floor(p.threads))
    throw InputError("threads must be a whole number from 1 to 65536");
  p.extrapolated_threads = p.threads > c.max_threads();
  const CpuWorkload& w = p.workload;
  p.read_Bps = c.bandwidth_Bps("read", w.working_set_bytes, p.threads);
  if (w.bytes_read > 0) p.memory_s += w.bytes_read / p.read_Bps;
  if (w.bytes_written > 0) p.memory_s += w.bytes_written / c.bandwidth_Bps("write", w.working_set_bytes, p.threads);
  p.flops_per_s = c.fp32_flops(p.threads);
  if (w.flops > 0) p.compute_s = w.serial_flops / c.fp32_flops(1) + (w.flops - w.serial_flops) / p.flops_per_s;
  p.memory_bound = p.memory_s >= p.compute_s;
  p.synchronisation_s = c.synchronisation_seconds(w, p.threads);
  const auto& nodes = m.efficiency.rows;
  p.outside_fitted_sizes = nodes.empty() || w.working_set_bytes < nodes.front()[0] || w.working_set_bytes > nodes.back()[0];
  // The fitted model at t threads.
  const auto fitted_seconds = [&](double t) {
    const double sync = c.synchronisation_seconds(w, t), work = c.roofline_seconds(w, t);
    double seconds = (sync + work) / m.efficiency_at(w.working_set_bytes);
    if (nodes.empty()) return seconds;
    if (w.working_set_bytes < nodes.front()[0]) {
      // Below the smallest fitted size the pool's synchronisation, measured on its own, is paid as
      // it is; only the work keeps the efficiency measured there: at that size (n0, fitted at
      // m.threads) the measured time was M0 = (S0 + R0) / e0, of which R0 / (M0 − S0) is the work's
      // efficiency. Dividing the synchronisation by e0 as well put a 32-element cosine at 16
      // threads at 69 µs, 16 times its one-thread time, for 3.3 µs of measured dispatch.
      const CpuWorkload node = workload_at(kernel, nodes.front()[0]);
      const double s0 = c.synchronisation_seconds(node, m.threads), r0 = c.roofline_seconds(node, m.threads);
      const double measured0 = (s0 + r0) / nodes.front()[1];
      if (measured0 > s0 && r0 > 0) seconds = sync + work / (r0 / (measured0 - s0));
    } else if (w.working_set_bytes > nodes.back()[0]) {
      // Beyond the largest fitted size a memory-bound kernel keeps the time per byte it spent
      // there beyond its roofline (instructions and latency a byte costs whatever level it comes
      // from), not its efficiency: held, the efficiency carried a level's contention into the
      // next level (cg on the H100 host of GPU a8fb659b, fitted to 38 MB at 0.65 of its 185 GB/s
      // roofline, ran at 0.97 of the memory's 111 GB/s at 1 GB: predicted 1.5 times too slow).
      // A kernel that ran at or above its roofline there, or is compute-bound, keeps its efficiency.
      const CpuWorkload node = workload_at(kernel, nodes.back()[0]);
      const double s1 = c.synchronisation_seconds(node, m.threads), r1 = c.roofline_seconds(node, m.threads);
      const double memory1 = node.bytes_read / c.bandwidth_Bps("read", node.working_set_bytes, m.threads) +
                             node.bytes_written / c.bandwidth_Bps("write", node.working_set_bytes, m.threads);
      const double excess = (s1 + r1) / nodes.back()[1] - s1 - r1, bytes1 = node.bytes_read + node.bytes_written;
      if (excess > 0 && memory1 >= r1 && bytes1 > 0) seconds = sync + work + excess / bytes1 * (w.bytes_read + w.bytes_written);
    }
    return seconds;
  };
  const double e1 = m.one_thread_efficiency(w.working_set_bytes);
  if (e1 > 0 && p.threads < m.threads && m.threads > 1) {
    // Below the fitted thread count, where the calibration ran one thread: the efficiency measured
    // at one thread (CpuKernelModel::one_thread_efficiency), linear in threads up to the fitted
    // count's effective efficiency at this size. The ratio form before (the all-threads model
    // times ρ) divided a one-thread cosine's work by the 16-thread work efficiency left over after
    // its dispatch: 78 times its measured time at 32 elements on the H100 host (2026-11-26).
    const double e_fitted = (c.roofline_seconds(w, m.threads) + c.synchronisation_seconds(w, m.threads)) / fitted_seconds(m.threads);
    p.efficiency = e1 + (e_fitted - e1) * (p.threads - 1) / (m.threads - 1);
    p.seconds = (p.synchronisation_s + std::max(p.memory_s, p.compute_s)) / p.efficiency;
  } else {
    p.seconds = fitted_seconds(p.threads);
    p.efficiency = (p.synchronisation_s + std::max(p.memory_s, p.compute_s)) / p.seconds;
  }
  // The last line of defence: a value the profile's limits let through still never becomes a time.
  if (!std::isfinite(p.seconds) || p.seconds < 0)
    throw InputError("the predicted time of " + kernel + " at n = " + std::to_string(n) +
                     " is not a finite, non-negative number: the profile's cpu section or the size lies outside what the model covers");
  return p;
}

}  // namespace perfmodel
