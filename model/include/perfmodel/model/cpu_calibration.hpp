#pragma once
// The `cpu` section of a profile: the host CPU, its measured bandwidth curves (working set ×
// threads), the cache plateaus detected in them, its arithmetic ceilings, and the fitted
// per-kernel constants of the CPU time model:
//
//   T(kernel, n, threads) = (regions · dispatch(threads) + max(T_mem, T_compute)) / efficiency_k(W)
//   T_mem     = bytes_read / BW_read(W, threads) + bytes_written / BW_write(W, threads)
//   T_compute = serial_flops / FP32 peak(1) + (flops − serial_flops) / FP32 peak(threads)
//
// with W the kernel's working set and the bandwidths read off the measured curves (log-log
// interpolation in W, linear in threads). S0 fitted an effective bandwidth per kernel against n
// on a 2009 Xeon (Mv: min(max(16384/n, 2), 8) GB/s, MM 51 GB/s). Here the machine's curves carry
// the cache hierarchy and the kernel carries one thing: its efficiency against that roofline,
// measured at the fit sizes and interpolated (linearly in log W; constant beyond the ends) —
// because one constant cannot describe a kernel whose code is instruction-bound in cache and
// bandwidth-bound in memory. Checked on held-out sizes the fit never saw.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/cpu_info.hpp"
#include "perfmodel/model/gpu_calibration.hpp"  // NumericTable
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/transfer_model.hpp"  // FitQuality

namespace perfmodel {

// The bandwidth kernels, likwid-bench style: read (sum), write (fill), copy, triad (a = b + s·c).
const std::vector<std::string>& cpu_bandwidth_kinds();

struct CachePlateau {
  double threads = 0;
  std::string level;          // "L1", "L2", "L3" or "memory"
  double from_bytes = 0, to_bytes = 0;  // working-set range (to_bytes = +inf for the last)
  double read_Bps = 0;        // median read bandwidth over the plateau's points (after a 3-point running median)
  double points = 0;
};

struct CpuKernelModel {
  NumericTable efficiency;   // [working_set_bytes, efficiency], ascending: roofline time / measured time
  double threads = 0;        // thread count it was fitted at
  std::optional<FitQuality> holdout;
  // [working_set_bytes, ratio], ascending, possibly empty: the efficiency measured at one thread
  // over the model's at `threads`, at the sizes the calibration ran one thread (the efficiency
  // at all threads does not carry to one: hyper-threads, turbo, no fork-join).
  NumericTable one_thread;

  double efficiency_at(double working_set_bytes) const;
  // The factor on efficiency_at at `t` threads: ρ(W) at one thread (log-linear in W between the
  // measured sizes, held beyond them), 1 at `threads` and above, linear in t between; 1 without
  // one-thread measurements.
  double thread_factor(double working_set_bytes, double t) const;
  // The efficiency at one thread, (roofline(1) + dispatch(1)) / measured, at the sizes the
  // calibration ran one thread (ρ · efficiency_at there), log-linear in W between them, held
  // beyond both ends: one thread pays no fork-join and shares no cache, so the all-threads
  // curve's shape over W (both of those) does not carry to it. 0 without one-thread measurements.
  double one_thread_efficiency(double working_set_bytes) const;
};

struct CpuCalibration {
  std::string samples_file;
  double calibration_wall_s = 0;
  CpuInfo cpu;
  std::map<std::string, NumericTable> bandwidth;  // kind → [threads, working_set_bytes, Bps]
  std::vector<CachePlateau> plateaus;
  NumericTable compute;                           // [threads, fp32_flops, fp64_flops]
  NumericTable dispatch;                          // [threads, seconds]: one fork-join of the pool, each worker writing one result
  std::map<std::string, CpuKernelModel> kernels;

  // Interpolated measured bandwidth of `kind` (InputError when not measured).
  double bandwidth_Bps(const std::string& kind, double working_set_bytes, double threads) const;
  double fp32_flops(double threads) const;
  double dispatch_seconds(double threads) const;  // 0 when not measured
  // max(T_mem, T_compute), see above.
  double roofline_seconds(const CpuWorkload& w, double threads) const;
  // regions · dispatch(threads): the measured fork-join cost of the kernel's parallel steps.
  double synchronisation_seconds(const CpuWorkload& w, double threads) const;
  double max_threads() const;
};

}  // namespace perfmodel
