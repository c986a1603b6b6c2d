#pragma once
// Runs the GPU reference kernels: builds each problem (deterministic inputs), checks every
// result against a CPU reference before any time is kept, and times runs with CUDA events
// (warm-up, L2 flushed before each repetition, every repetition kept). CUDA stays behind this
// header: callers (validate/, the GPU tests) are plain C++.
#include <memory>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_kernels.hpp"

namespace perfmodel::gpu {

struct PhaseInfo {
  std::string kernel;  // phase_kernel_names() spelling
  KernelResources resources;
  int threads_per_block = 0;
  int occupancy_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

struct PointResult {
  std::string kernel;
  int n = 0;
  KernelConfig config;
  double check_error = 0, check_bound = 0;  // the check's error measure and the bound it must meet
  std::string check_what;                   // what the error measures
  std::vector<double> seconds;              // one per timed repetition (empty when the check failed)
  std::vector<PhaseInfo> phases;
  // The racecheck build (block_subset_build()) with PERFMODEL_RACECHECK_BLOCKS set: every launch
  // runs the blocks select_blocks() chooses; blocks_launched says which, per grid ("grid 32x64
  // (2048 blocks): 8 launched: (0,0) (31,0) ..."). grid_complete is false when some launch ran
  // fewer blocks than its grid: the result is then not checked (check_error = check_bound = 0,
  // check_what says so) and no repetition is timed. Other builds: true and empty.
  bool grid_complete = true;
  std::string blocks_launched;
  bool passed() const { return check_error <= check_bound; }
};

// Whether this is the racecheck build of the kernels (PERFMODEL_BLOCK_SUBSET), in which
// PERFMODEL_RACECHECK_BLOCKS=N makes every launch of the reference and offload runners run at most
// N chosen blocks of its grid (perfmodel/kernels/block_subset.hpp).
bool block_subset_build();

struct MeasureSettings {
  double target_seconds = 0.08;  // timed time per point; repetitions = clamp(target / first run)
  int min_reps = 5, max_reps = 40;
};

class ReferenceRunner {
 public:
  // host_threads: threads of the CPU references (0: all).
  explicit ReferenceRunner(int host_threads = 0);
  ~ReferenceRunner();
  ReferenceRunner(const ReferenceRunner&) = delete;
  ReferenceRunner& operator=(const ReferenceRunner&) = delete;

  // Throws InputError when (kernel, n, config) cannot run (config_problem), RuntimeFailure on a
  // CUDA error. A failed check returns a result with passed() false and no times.
  PointResult measure(const std::string& kernel, int n, const KernelConfig& config, const MeasureSettings& settings);
  // Compiled resources of every phase kernel of every catalogued configuration.
  std::vector<PhaseInfo> all_resources();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfmodel::gpu
