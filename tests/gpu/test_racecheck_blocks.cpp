// GPU tests of the racecheck build (CTest label `gpu`): the binary perfmodel_gpu_racecheck_tests
// links the reference and offload runners compiled with PERFMODEL_BLOCK_SUBSET
// (kernels/cuda/src/block_index.cuh), in which PERFMODEL_RACECHECK_BLOCKS=N makes every launch run
// at most N chosen blocks of its grid (perfmodel/kernels/block_subset.hpp: the first block, the
// last of each dimension, the corners, the centre, then consecutive ones), each computing as the
// block it stands for. scripts/device-run.sh runs these under compute-sanitizer racecheck.
//
// A launch that ran fewer blocks than its grid leaves outputs unwritten, so its result is not
// checked (said on stderr); a launch whose grid the budget covers runs every block, through the
// table in another order than the launch order, and its result is checked as in the timed build.
// Without PERFMODEL_RACECHECK_BLOCKS every launch is its whole grid and every result is checked.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/block_subset.hpp"
#include "perfmodel/kernels/gpu_runs.hpp"
#include "perfmodel/kernels/offload_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/predictors/offload.hpp"

using namespace perfmodel;

namespace {

// The smallest size the configuration accepts (powers of two from 16), as
// GpuKernels.EveryConfigurationPassesItsCheckAtItsSmallestSize: the indices are the same.
int tiny_size(const GpuKernelSpec& spec, const KernelConfig& c) {
  for (int n = 16; n <= (1 << 16); n *= 2)
    if (config_problem(spec, n, c).empty()) return n;
  return 0;
}

struct Configuration {
  int index = 0, n = 0;
  const GpuKernelSpec* spec = nullptr;
  KernelConfig config;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void say(const std::string& line) {  // stderr, unbuffered: a killed run's log still shows how far it got
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

// Every reference-kernel configuration at its smallest size (the indices of
// GpuKernels.EveryConfigurationPassesItsCheckAtItsSmallestSize). PERFMODEL_GPU_TEST_ONLY=LIST picks
// configurations in the order given (default: all, in catalogue order); PERFMODEL_GPU_TEST_SHARD=K/N
// keeps the positions of that order congruent to K modulo N. One warm-up run each (no timed
// repetition). stderr: the shard's plan, then per configuration a line when it starts and one
// when it finishes, with the blocks each launch ran (scripts/racecheck-summary.sh reads them).
TEST(RacecheckBlocks, EveryConfigurationAtItsSmallestSize) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  ASSERT_TRUE(gpu::block_subset_build());
  int budget = 0, shard = 0, shards = 1;
  ASSERT_NO_THROW(budget = gpu::parse_racecheck_blocks(std::getenv("PERFMODEL_RACECHECK_BLOCKS")));
  if (const char* s = std::getenv("PERFMODEL_GPU_TEST_SHARD")) {
    ASSERT_TRUE(std::sscanf(s, "%d/%d", &shard, &shards) == 2 && shards >= 1 && shard >= 0 && shard < shards)
        << "PERFMODEL_GPU_TEST_SHARD=" << s << ": expected K/N with 0 <= K < N";
  }
  std::vector<Configuration> all;
  for (const GpuKernelSpec& spec : gpu_kernel_specs())
    for (const KernelConfig& c : spec.configs)
      if (const int n = tiny_size(spec, c); n > 0) all.push_back({static_cast<int>(all.size()), n, &spec, c});
  std::vector<int> order;
  if (const char* only = std::getenv("PERFMODEL_GPU_TEST_ONLY")) {
    ASSERT_NO_THROW(order = gpu::parse_index_list(only, "PERFMODEL_GPU_TEST_ONLY"));
    for (int i : order) ASSERT_LT(i, static_cast<int>(all.size())) << "PERFMODEL_GPU_TEST_ONLY: no configuration " << i;
  } else {
    for (const Configuration& c : all) order.push_back(c.index);
  }
  std::vector<int> mine;
  for (std::size_t j = 0; j < order.size(); ++j)
    if (static_cast<int>(j % static_cast<std::size_t>(shards)) == shard) mine.push_back(order[j]);
  std::string plan = "racecheck plan: shard " + std::to_string(shard) + "/" + std::to_string(shards) + ", " +
                     (budget > 0 ? "at most " + std::to_string(budget) + " blocks per launch" : "whole grids") + ", configurations";
  for (int i : mine) plan += " " + std::to_string(i);
  say(plan);

  gpu::ReferenceRunner runner;
  gpu::MeasureSettings settings;
  settings.target_seconds = 0, settings.min_reps = 0, settings.max_reps = 0;  // the warm-up run alone
  for (int i : mine) {
    const Configuration& c = all[static_cast<std::size_t>(i)];
    const std::string what = c.spec->name + " n=" + std::to_string(c.n) + " " + to_string(c.config, *c.spec);
    say("configuration " + std::to_string(i) + ": " + what);
    SCOPED_TRACE(what);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const gpu::PointResult r = runner.measure(c.spec->name, c.n, c.config, settings);
      char took[32];
      std::snprintf(took, sizeof took, "%.1f", seconds_since(t0));
      say("configuration " + std::to_string(i) + " finished in " + took + " s: " + r.blocks_launched + "; result " +
          (r.grid_complete ? std::string(r.passed() ? "checked, passed" : "checked, FAILED") : std::string("not checked (partial grid)")));
      if (r.grid_complete) {
        EXPECT_TRUE(r.passed()) << r.check_what << " = " << r.check_error << " > " << r.check_bound;
      }
      EXPECT_FALSE(r.blocks_launched.empty());
    } catch (const std::exception& e) {
      say("configuration " + std::to_string(i) + " failed: " + e.what());
      ADD_FAILURE() << e.what();
    }
  }
}

// The offloaded operations of OffloadRuns.EveryCaseMatchesTheCpuReferencePinnedAndPageable, at its
// sizes, pinned and pageable (one warm-up run each). With PERFMODEL_RACECHECK_BLOCKS set (the
// racecheck run) it leaves out, saying so, the cases none of whose kernels use shared memory
// (racecheck has nothing to check in them) and cg's 64 iterations (the kernels of its 1 iteration).
TEST(RacecheckBlocks, OffloadCases) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  ASSERT_TRUE(gpu::block_subset_build());
  int budget = 0;
  ASSERT_NO_THROW(budget = gpu::parse_racecheck_blocks(std::getenv("PERFMODEL_RACECHECK_BLOCKS")));
  std::map<std::string, int> shared_bytes;  // phase kernel -> static shared memory, from the compiled functions
  {
    gpu::ReferenceRunner reference;
    for (const gpu::PhaseInfo& p : reference.all_resources()) shared_bytes[p.kernel] = p.resources.static_shared_bytes;
  }
  gpu::OffloadRunner runner;
  gpu::OffloadTimingSettings settings;
  settings.target_s = 0, settings.min_reps = 1, settings.max_reps = 1;
  const std::vector<std::tuple<std::string, int, int>> cases = {{"mv", 1024, 0},     {"mm", 512, 0},     {"dot", 1 << 20, 0},
                                                                 {"cg", 1024, 1},     {"cg", 1024, 64},   {"cholesky", 300, 0},
                                                                 {"conv2d", 512, 0},  {"blur", 300, 0},   {"cosine", 100000, 0}};
  for (const auto& [kernel, n, iterations] : cases) {
    const std::string what = "offload " + kernel + " n=" + std::to_string(n) + (iterations ? " iterations=" + std::to_string(iterations) : "");
    SCOPED_TRACE(what);
    const std::string& gk = offload_gpu_kernel(kernel);
    const GpuKernelSpec& spec = gpu_kernel_spec(gk);
    std::string phases;
    int shared = 0;
    for (const std::string& p : phase_kernel_names(gk, default_config(spec, n))) {
      const auto it = shared_bytes.find(p);
      ASSERT_NE(it, shared_bytes.end()) << p << ": not among the compiled phase kernels";
      shared += it->second;
      phases += (phases.empty() ? "" : ", ") + p + " " + std::to_string(it->second) + " B";
    }
    if (budget > 0 && shared == 0) {
      say(what + ": skipped, no shared memory in its kernels (" + phases + " static shared; no dynamic shared memory)");
      continue;
    }
    if (budget > 0 && kernel == "cg" && iterations > 1) {
      say(what + ": skipped, the kernels of iterations=1, launched more often");
      continue;
    }
    say(what + ": " + phases + " static shared");
    const gpu::OffloadTiming cpu = runner.time_cpu(kernel, n, iterations, runner.max_threads(), settings);
    EXPECT_EQ(cpu.seconds.size(), 1u);
    for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable}) {
      const auto t0 = std::chrono::steady_clock::now();
      const gpu::OffloadTiming t = runner.time_gpu(kernel, n, iterations, memory, settings);
      char took[32];
      std::snprintf(took, sizeof took, "%.1f", seconds_since(t0));
      say(what + " " + to_string(memory) + " finished in " + took + " s: " + t.blocks_launched + "; result " +
          (t.grid_complete ? std::string(t.passed() ? "checked, passed" : "checked, FAILED") : std::string("not checked (partial grid)")));
      if (t.grid_complete) {
        EXPECT_TRUE(t.passed()) << to_string(memory) << ": " << t.check_what << " = " << t.check_error << " > " << t.check_bound;
      }
    }
  }
}
