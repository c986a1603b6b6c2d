#pragma once
// Runs Cecconi's task farm on the GPU (MODELS.md §2.6, §3.7 K-FARM): a stream of L tasks, each
// copied in, processed by one kernel launch and copied out, in one of three ways:
//   serial         (S = 0) cudaMemcpy in, launch, cudaMemcpy out, all on the legacy default stream,
//                  task after task: Cecconi's zero-stream reference;
//   streams        S blocking CUDA streams (cudaStreamCreate, made before and destroyed after the
//                  timed region); task k goes to stream k mod S: cudaMemcpyAsync H2D into the
//                  stream's own device slot, the kernel on that slot, cudaMemcpyAsync D2H into the
//                  task's own place in the host output buffer;
//   data-parallel  one cudaMemcpy of every task's input, one launch over all tasks (the task index
//                  in the grid), one cudaMemcpy back (Cecconi Eq 5.12 at equal work).
// Host buffers are pinned (cudaMallocHost) or pageable (plain heap memory, the variant that
// serialises). Timing: two events on the legacy default stream around the loop that issues the
// tasks; the blocking streams wait for the start event and the stop event waits for them, as in
// Cecconi's driver. One untimed warm-up run, then `reps` timed runs. Every task's result is checked
// against a CPU reference at deterministic sample positions after every run (the sampled outputs
// are overwritten with a sentinel before it), before any time is kept. CUDA stays behind this header.
#include <memory>
#include <string>
#include <vector>

#include "perfmodel/kernels/gpu_runs.hpp"
#include "perfmodel/model/farm.hpp"
#include "perfmodel/model/farm_data.hpp"

namespace perfmodel::gpu {

struct FarmResult {
  double check_error = 0, check_bound = 0;  // the worst over the runs; passed() when error <= bound
  std::string check_what;
  std::vector<double> seconds;  // one per timed run (empty when a check failed)
  std::vector<double> issue_seconds;  // the host's time in the loop that issues the stream, per timed run
  bool passed() const { return check_error <= check_bound; }
};

class FarmRunner {
 public:
  FarmRunner();
  ~FarmRunner();
  FarmRunner(const FarmRunner&) = delete;
  FarmRunner& operator=(const FarmRunner&) = delete;

  // Builds the inputs of `tasks` tasks (deterministic) and their sampled CPU reference results.
  // Throws InputError for a task with a problem, RuntimeFailure on a CUDA error.
  void prepare(const FarmTask& task, int tasks);
  // Measures one configuration of the prepared stream of tasks.
  FarmResult measure(const FarmConfig& config, int reps);
  // The compiled resources and occupancy of the three farm kernels.
  std::vector<PhaseInfo> resources();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The CUDA_DEVICE_MAX_CONNECTIONS environment variable as this process sees it ("" when unset).
std::string cuda_device_max_connections();

}  // namespace perfmodel::gpu
