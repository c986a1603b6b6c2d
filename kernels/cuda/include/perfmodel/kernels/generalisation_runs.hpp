#pragma once
// Runs the generalisation suite's kernels (perfmodel/kernels/generalisation.hpp) on GPU 0 as a
// user times them: inputs filled on the device from their pure functions, one launch as a warm-up
// whose result is checked against the CPU reference before any time is kept, then
//   single: `single_reps` runs, each alone between two CUDA events, L2 flushed before each
//           (a memset of twice the L2 size) and the kernel's untimed reset (zeroing an
//           accumulator) before that;
//   steady: `steady_batches` batches of N back-to-back runs between two events, per run
//           (N = steady_target_s / median single time, clamped to [steady_min, steady_max]).
// A run is every launch the kernel needs (the scan: three). CUDA stays behind this header.
#include <memory>
#include <string>
#include <vector>

#include "perfmodel/kernels/generalisation.hpp"
#include "perfmodel/model/gpu_kernels.hpp"

namespace perfmodel::gpu {

struct GenSettings {
  int single_reps = 20;
  int steady_batches = 3;
  double steady_target_s = 0.01;
  int steady_min = 5, steady_max = 2000;
};

struct GenPhase {
  std::string kernel;  // the __global__ function's name
  long long blocks = 0;
  int threads_per_block = 0;
  KernelResources resources;        // cudaFuncGetAttributes
  int occupancy_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

struct GenResult {
  std::string kernel;
  gen::Params params;
  double check_error = 0, check_bound = 0;
  std::size_t checked_outputs = 0;
  std::string check_what;
  std::vector<double> single_s;  // one per timed run (empty when the check failed)
  std::vector<double> steady_s;  // per run, one per batch
  int steady_runs = 0;           // N, runs per batch
  std::vector<GenPhase> phases;
  bool passed() const { return check_error <= check_bound; }
};

class GeneralisationRunner {
 public:
  explicit GeneralisationRunner(int host_threads = 0);  // threads of the CPU references (0: all)
  ~GeneralisationRunner();
  GeneralisationRunner(const GeneralisationRunner&) = delete;
  GeneralisationRunner& operator=(const GeneralisationRunner&) = delete;

  // Throws InputError for an unknown kernel or missing parameter, RuntimeFailure on a CUDA error.
  // A failed check returns a result with passed() false and no times. time = false: check only.
  GenResult measure(const std::string& kernel, const gen::Params& params, const GenSettings& settings, bool time = true);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfmodel::gpu
