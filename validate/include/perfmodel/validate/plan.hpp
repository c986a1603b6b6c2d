#pragma once
// What `perfmodel validate` measures: every reference kernel over its sizes at S0's launch rule,
// and every compiled launch configuration at a few sweep sizes (the tuner's ground truth).
#include <iosfwd>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/validation_data.hpp"

namespace perfmodel {

struct ValidationPoint {
  std::string kernel;
  int n = 0;
  KernelConfig config;
  bool sweep = false;  // part of an exhaustive configuration sweep
};

struct ValidationOptions {
  bool quick = false;              // default configurations at two sizes per kernel, no sweeps
  std::vector<std::string> only;   // kernel names or families; empty = all
};

// Sizes a kernel is validated at (full or quick), and the sizes at which all configs are swept.
std::vector<int> validation_sizes(const GpuKernelSpec& spec, bool quick);
std::vector<int> sweep_sizes(const GpuKernelSpec& spec);

// The points, ordered so that consecutive points share their problem (family, n).
// Throws InputError for an --only name that matches no kernel.
std::vector<ValidationPoint> validation_plan(const ValidationOptions& options);

// Measures the plan on GPU 0 (the GPU half lives in kernels/cuda). Throws RuntimeFailure when no
// GPU is usable or this build has no CUDA; a failed result check is reported in `failures` and
// its point is left out.
ValidationRun run_validation(const ValidationOptions& options, const std::string& command, std::ostream* progress,
                             std::vector<std::string>& failures);

}  // namespace perfmodel
