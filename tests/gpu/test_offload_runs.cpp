// GPU test (CTest label `gpu`): every offloaded operation of `validate --only offload` — copies in,
// kernels, copies out, pinned and pageable — gives the CPU reference kernel's result, at a small
// size of each case.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/offload_runs.hpp"

using namespace perfmodel;

TEST(OffloadRuns, EveryCaseMatchesTheCpuReferencePinnedAndPageable) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  gpu::OffloadRunner runner;
  gpu::OffloadTimingSettings settings;
  settings.target_s = 0, settings.min_reps = 1, settings.max_reps = 1;
  const std::vector<std::tuple<std::string, int, int>> cases = {{"mv", 1024, 0},     {"mm", 512, 0},     {"dot", 1 << 20, 0},
                                                                 {"cg", 1024, 1},     {"cg", 1024, 64},   {"cholesky", 300, 0},
                                                                 {"conv2d", 512, 0},  {"blur", 300, 0},   {"cosine", 100000, 0}};
  for (const auto& [kernel, n, iterations] : cases) {
    SCOPED_TRACE(kernel + " n=" + std::to_string(n) + " iterations=" + std::to_string(iterations));
    const gpu::OffloadTiming cpu = runner.time_cpu(kernel, n, iterations, runner.max_threads(), settings);
    EXPECT_EQ(cpu.seconds.size(), 1u);
    for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable}) {
      const gpu::OffloadTiming t = runner.time_gpu(kernel, n, iterations, memory, settings);
      EXPECT_TRUE(t.passed()) << to_string(memory) << ": " << t.check_what << " = " << t.check_error << " > " << t.check_bound;
      EXPECT_EQ(t.seconds.size(), t.passed() ? 1u : 0u);
      for (double s : t.seconds) EXPECT_GT(s, 0);
    }
  }
}
