#pragma once
// Times an offloaded computation as a user times it: the host's steady clock around the whole
// operation — copies in (cudaMemcpy from pinned or pageable host memory), the kernel(s) of the
// built-in GPU counterpart at its default launch configuration, copies out, synchronize — and
// the same computation on the CPU with the toolkit's CPU reference kernel (kernels/cpu) at a
// given thread count. Every GPU result is checked against the CPU reference's result before any
// time is kept. CUDA stays behind this header (validate/ is plain C++).
#include <memory>
#include <string>
#include <vector>

#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel::gpu {

struct OffloadTimingSettings {
  double target_s = 0.1;  // timed time per measurement; repetitions = clamp(target / first run)
  int min_reps = 5, max_reps = 20;
};

struct OffloadTiming {
  double check_error = 0, check_bound = 0;  // GPU runs: the result check (CPU runs: 0, 0)
  std::string check_what;
  std::vector<double> seconds;              // one per timed repetition; empty when the check failed
  // As PointResult's (gpu_runs.hpp): the racecheck build's block subset; an incomplete grid is not checked.
  bool grid_complete = true;
  std::string blocks_launched;
  bool passed() const { return check_error <= check_bound; }
};

class OffloadRunner {
 public:
  OffloadRunner();  // a thread pool over every CPU this process may use
  ~OffloadRunner();
  OffloadRunner(const OffloadRunner&) = delete;
  OffloadRunner& operator=(const OffloadRunner&) = delete;

  int max_threads() const;
  // cpu_kernel: mv, mm, dot, cg, cholesky, conv2d, blur, cosine; iterations: cg only.
  // Inputs are deterministic and built once per (kernel, n, iterations).
  OffloadTiming time_cpu(const std::string& cpu_kernel, int n, int iterations, int threads, const OffloadTimingSettings& settings);
  // Checks the GPU result against the CPU reference (run at all threads if not yet run for this problem).
  OffloadTiming time_gpu(const std::string& cpu_kernel, int n, int iterations, HostMemory memory, const OffloadTimingSettings& settings);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfmodel::gpu
