// GPU tests (CTest label `gpu`): the farm runner's every mode passes its result check on every
// application, and the farm kernels' occupancy agrees with the model's.
#include <gtest/gtest.h>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/farm_runs.hpp"
#include "perfmodel/model/execution_metrics.hpp"

using namespace perfmodel;

TEST(GpuFarm, EveryModeOfEveryApplicationPassesItsCheck) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  gpu::FarmRunner runner;
  for (const FarmTask& task : {FarmTask{FarmApp::cosine, 2048, 50}, FarmTask{FarmApp::matmul, 40, 0}, FarmTask{FarmApp::blur, 37, 0}}) {
    runner.prepare(task, 12);
    for (const FarmConfig& c : {FarmConfig{FarmMode::serial, 0, HostMemory::pinned}, FarmConfig{FarmMode::streams, 1, HostMemory::pinned},
                                FarmConfig{FarmMode::streams, 5, HostMemory::pinned}, FarmConfig{FarmMode::streams, 20, HostMemory::pinned},
                                FarmConfig{FarmMode::data_parallel, 0, HostMemory::pinned},
                                FarmConfig{FarmMode::streams, 3, HostMemory::pageable}}) {
      const gpu::FarmResult r = runner.measure(c, 2);
      EXPECT_TRUE(r.passed()) << task.label() << " " << to_string(c.mode) << " S=" << c.streams << ": " << r.check_what << " = "
                              << r.check_error << " > " << r.check_bound;
      EXPECT_EQ(r.seconds.size(), 2u);
    }
  }
}

TEST(GpuFarm, KernelOccupancyMatchesTheModel) {
  const GpuDeviceInfo device = query_gpu_device();
  gpu::FarmRunner runner;
  for (const gpu::PhaseInfo& p : runner.resources()) {
    const double model = resident_blocks_per_sm(device, p.threads_per_block, p.resources.registers_per_thread, p.resources.static_shared_bytes);
    EXPECT_EQ(model, p.occupancy_blocks_per_sm) << p.kernel;
  }
}
