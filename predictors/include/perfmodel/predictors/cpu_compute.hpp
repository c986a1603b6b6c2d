#pragma once
// CPU computation time of a reference kernel, from a profile's `cpu` section:
//
//   T = (regions·dispatch(threads) + max(T_mem, T_compute)) / efficiency_k(W)      (see model/cpu_calibration.hpp)
//
// T_mem reads the machine's measured read and write bandwidth curves at the kernel's working
// set and thread count; T_compute its measured FP32 FMA ceiling (serial part at one thread).
// efficiency_k(W) is the kernel's efficiency curve, measured at its fit sizes (S0 §3.5.1
// generalised: S0 fitted an effective bandwidth per kernel against n; here the machine's curves
// carry the hierarchy and the kernel carries its efficiency against them). Below the smallest
// fitted working set the synchronisation is paid as measured and only the work keeps the
// efficiency measured there: T = regions·dispatch + max(T_mem, T_compute) / e_work, e_work =
// R0 / (M0 − S0) at that size (equal to the form above at that size; see cpu_compute.cpp).
// Beyond the largest fitted working set W1 a memory-bound kernel keeps its excess time per byte:
// T = dispatch + max(T_mem, T_compute) + X · bytes, X = (M1 − S1 − R1) / bytes1 at W1 (where
// X > 0 and W1 is memory-bound; else the efficiency is held).
// Below the fitted thread count, where the calibration ran one thread: the efficiency measured at
// one thread (CpuKernelModel::one_thread_efficiency), linear in threads up to the fitted count's
// effective efficiency (roofline + dispatch) / T at this size; without one-thread measurements,
// the fitted model as it stands.
#include <string>

#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/profile.hpp"

namespace perfmodel {

struct CpuPrediction {
  std::string kernel;
  double n = 0, threads = 0;
  CpuWorkload workload;
  double seconds = 0;
  double memory_s = 0, compute_s = 0;  // the two roofline terms, before the efficiency
  double synchronisation_s = 0;
  double efficiency = 0;
  double read_Bps = 0, flops_per_s = 0;  // the curve values used
  bool memory_bound = false;
  bool extrapolated_threads = false;  // more threads than the calibration measured
  bool outside_fitted_sizes = false;  // working set outside the kernel's fitted range: efficiency held at the nearest end
};

// Throws InputError for an unknown kernel, n < 1, threads < 1, or a profile without the cpu
// section or without a fitted model for the kernel.
CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, double threads = 0 /* all measured */);
// The same for a given workload of the kernel's code (e.g. CG with another iteration count): its
// fitted efficiency curve, read at the workload's working set.
CpuPrediction predict_cpu(const Profile& profile, const std::string& kernel, double n, const CpuWorkload& workload,
                          double threads = 0);

}  // namespace perfmodel
