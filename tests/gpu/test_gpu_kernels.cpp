// GPU tests (CTest label `gpu`): every reference kernel in every compiled launch configuration
// passes its check against the CPU reference, and the occupancy model agrees with the CUDA
// occupancy API for every phase kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/gpu_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/execution_metrics.hpp"
#include "perfmodel/validate/plan.hpp"

using namespace perfmodel;

namespace {

// The smallest validation size at which the configuration runs.
int smallest_size(const GpuKernelSpec& spec, const KernelConfig& c) {
  for (int n : validation_sizes(spec, false))
    if (config_problem(spec, n, c).empty()) return n;
  return 0;
}

// The smallest size the configuration accepts (powers of two from 16): compute-sanitizer's racecheck
// instruments every shared-memory access, so its run of every configuration must be small.
// Whether index i is in PERFMODEL_GPU_TEST_ONLY's list ("3,7-9"); every index when it is unset.
bool selected(int i) {
  const char* list = std::getenv("PERFMODEL_GPU_TEST_ONLY");
  if (list == nullptr) return true;
  std::string s(list);
  for (std::size_t pos = 0; pos <= s.size();) {
    const std::size_t end = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, end - pos);
    int a = -1, b = -1;
    if (std::sscanf(item.c_str(), "%d-%d", &a, &b) == 2 ? a <= i && i <= b : std::sscanf(item.c_str(), "%d", &a) == 1 && a == i)
      return true;
    pos = end + 1;
  }
  return false;
}

int tiny_size(const GpuKernelSpec& spec, const KernelConfig& c) {
  for (int n = 16; n <= (1 << 16); n *= 2)
    if (config_problem(spec, n, c).empty()) return n;
  return 0;
}

}  // namespace

TEST(GpuKernels, EveryConfigurationPassesItsCheckAndMatchesTheOccupancyApi) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  const GpuDeviceInfo device = query_gpu_device();
  gpu::ReferenceRunner runner;
  gpu::MeasureSettings settings;
  settings.target_seconds = 0, settings.min_reps = 1, settings.max_reps = 1;
  int runs = 0;
  for (const GpuKernelSpec& spec : gpu_kernel_specs())
    for (const KernelConfig& c : spec.configs) {
      const int n = smallest_size(spec, c);
      if (n == 0) continue;
      SCOPED_TRACE(spec.name + " n=" + std::to_string(n) + " " + to_string(c, spec));
      gpu::PointResult r;
      try {
        r = runner.measure(spec.name, n, c, settings);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      ++runs;
      EXPECT_TRUE(r.passed()) << r.check_what << " = " << r.check_error << " > " << r.check_bound;
      EXPECT_EQ(r.seconds.size(), 1u);
      const std::vector<std::string> names = phase_kernel_names(spec.name, c);
      for (const gpu::PhaseInfo& p : r.phases) {
        EXPECT_NE(std::find(names.begin(), names.end(), p.kernel), names.end()) << p.kernel;
        const double model = resident_blocks_per_sm(device, p.threads_per_block, p.resources.registers_per_thread,
                                                    p.resources.static_shared_bytes);
        EXPECT_EQ(model, p.occupancy_blocks_per_sm) << p.kernel << " with " << p.threads_per_block << " threads, "
                                                    << p.resources.registers_per_thread << " registers, "
                                                    << p.resources.static_shared_bytes << " B shared";
      }
    }
  EXPECT_GT(runs, 100);
}

// What scripts/device-run.sh runs under compute-sanitizer racecheck: every configuration once, at its
// smallest accepted size, checked against the CPU reference. PERFMODEL_GPU_TEST_SHARD=K/N runs only
// the configurations whose index is K modulo N (so that N processes share the work);
// PERFMODEL_GPU_TEST_ONLY=LIST (indices and ranges: "52,54-80") only those; each configuration is
// named on stderr with its index as it starts.
TEST(GpuKernels, EveryConfigurationPassesItsCheckAtItsSmallestSize) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  int shard = 0, shards = 1;
  if (const char* s = std::getenv("PERFMODEL_GPU_TEST_SHARD")) {
    ASSERT_TRUE(std::sscanf(s, "%d/%d", &shard, &shards) == 2 && shards >= 1 && shard >= 0 && shard < shards)
        << "PERFMODEL_GPU_TEST_SHARD=" << s << ": expected K/N with 0 <= K < N";
  }
  gpu::ReferenceRunner runner;
  gpu::MeasureSettings settings;
  settings.target_seconds = 0, settings.min_reps = 1, settings.max_reps = 1;
  int runs = 0, index = -1, configurations = 0;
  for (const GpuKernelSpec& spec : gpu_kernel_specs())
    for (const KernelConfig& c : spec.configs) {
      const int n = tiny_size(spec, c);
      if (n == 0) continue;
      ++configurations;
      if (++index % shards != shard || !selected(index)) continue;
      const std::string what = spec.name + " n=" + std::to_string(n) + " " + to_string(c, spec);
      std::fprintf(stderr, "configuration %d: %s\n", index, what.c_str());
      std::fflush(stderr);
      SCOPED_TRACE(what);
      try {
        const gpu::PointResult r = runner.measure(spec.name, n, c, settings);
        EXPECT_TRUE(r.passed()) << r.check_what << " = " << r.check_error << " > " << r.check_bound;
        ++runs;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  EXPECT_GT(configurations, 100);
  if (std::getenv("PERFMODEL_GPU_TEST_ONLY") == nullptr) {
    EXPECT_GE(runs, configurations / shards);
  }
}

TEST(GpuKernels, RefusesWhatTheCatalogueRejectsBeforeTheGpuRuns) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  gpu::ReferenceRunner runner;  // n not a multiple of the block; a configuration that is not compiled
  EXPECT_THROW(runner.measure("mv-opt", 1000, {32, 4, 0}, {}), InputError);
  EXPECT_THROW(runner.measure("mm-opt", 1024, {8, 8, 12}, {}), InputError);
}
