// GPU tests (CTest label `gpu`): the microbenchmarks in quick mode on the device, fitted, and
// checked against physics (nothing above the datasheet peak) and against their own models.
#include <gtest/gtest.h>

#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/sanitizer_probes.hpp"

using namespace perfmodel;

namespace {

GpuCalibration quick_gpu_calibration() {
  const BenchmarkRegistry registry = make_default_registry();
  CalibrationOptions options;
  options.quick = true;
  CalibrationData data;
  for (Benchmark* b : registry.select({"gpu"})) b->run(options, data);  // each verifies its results
  return fit_gpu_samples({data.provenance, data.gpu_device, data.gpu_samples, data.gpu_wall_s}, "mem");
}

}  // namespace

TEST(GpuMicrobench, QuickCalibrationIsPhysicallyPlausible) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  const GpuCalibration gpu = quick_gpu_calibration();
  const GpuDeviceInfo& d = gpu.device;
  ASSERT_GT(d.multiprocessors, 0);
  // Measured ceilings never exceed the datasheet peaks (5 % for clock reporting slack).
  for (const char* name : {"dram_read", "dram_write", "dram_copy", "dram_triad"}) {
    EXPECT_LT(gpu.ceiling(name).median, 1.05 * d.theoretical_dram_Bps()) << name;
    EXPECT_GT(gpu.ceiling(name).median, 0.5 * d.theoretical_dram_Bps()) << name;
  }
  if (d.fp32_lanes_per_sm > 0) {
    EXPECT_LT(gpu.ceiling("fp32").median, 1.05 * d.theoretical_flops(d.fp32_lanes_per_sm));
    EXPECT_GT(gpu.ceiling("fp32").median, 0.5 * d.theoretical_flops(d.fp32_lanes_per_sm));
  }
  // The shift/xor/add chain runs faster than the ALU pipe alone allows (the compiler moves a third
  // of its operations onto the FMA pipes), and at most one operation a lane per clock.
  if (d.fp32_lanes_per_sm > 0 && d.int32_lanes_per_sm > 0) {
    EXPECT_LT(gpu.ceiling("int32_logic").median, 1.05 * d.theoretical_flops(d.fp32_lanes_per_sm) / 2);
    EXPECT_GT(gpu.ceiling("int32_logic").median, 0.9 * d.theoretical_flops(d.int32_lanes_per_sm) / 2);
  }
  // The memory hierarchy is ordered: shared > L2 > DRAM bandwidth, L1 < L2 < DRAM latency.
  EXPECT_GT(gpu.ceiling("shared_load").median, gpu.ceiling("l2_read").median);
  EXPECT_GT(gpu.ceiling("l2_read").median, gpu.ceiling("dram_read").median);
  ASSERT_TRUE(gpu.latency);
  EXPECT_LT(gpu.latency->l1_s, gpu.latency->l2_s);
  EXPECT_LT(gpu.latency->l2_s, gpu.latency->dram_s);
  // Bank conflicts serialise: 32-way 4-byte accesses cost at least 16× a conflict-free one.
  ASSERT_TRUE(gpu.bank_conflicts.count(4));
  EXPECT_GT(gpu.bank_conflicts.at(4).penalty(32), 16.0);
  // The saturation model fits the concurrency sweep it was fitted on.
  ASSERT_TRUE(gpu.dram_concurrency);
  EXPECT_LT(gpu.dram_concurrency->fit.mean_rel_error, 0.10);
  EXPECT_LT(gpu.dram_concurrency->peak_Bps, 1.05 * d.theoretical_dram_Bps());
  // Launches cost something, and a graph launch is cheaper per kernel than a stream launch.
  ASSERT_TRUE(gpu.launch);
  EXPECT_GT(gpu.launch->empty_kernel_s, 0.5e-6);
  EXPECT_LT(gpu.launch->graph_kernel_s, gpu.launch->empty_kernel_s);
  // Atomics: every type measured at every K, and the whole grid on one address is slower per
  // update than one address per thread (the updates of one address are applied one at a time).
  ASSERT_EQ(gpu.atomics.size(), 3u);
  for (const auto& [type, curve] : gpu.atomics) {
    EXPECT_EQ(curve.addresses.size(), 6u) << type;
    EXPECT_GT(curve.seconds_per_update.front(), curve.seconds_per_update.back()) << type;
    EXPECT_GT(curve.one_lane_update_s, 0) << type;
  }
  // Random reads beyond the L2: both quick tables measured, each random sector slower than a
  // streamed one (32 bytes at the DRAM curve's peak) and faster than one DRAM latency per SM.
  ASSERT_TRUE(gpu.dram_random);
  EXPECT_EQ(gpu.dram_random->footprint_bytes.size(), 2u);
  for (const double rate : gpu.dram_random->sectors_per_s) {
    EXPECT_LT(rate, gpu.dram_concurrency->peak_Bps / 32);
    EXPECT_GT(rate, d.multiprocessors / gpu.latency->dram_s);
  }
  // Fitted from the slope over read counts: an intercept per table. A read-modify-write reads its
  // sector and writes it back: slower per sector than the read alone.
  EXPECT_EQ(gpu.dram_random->fixed_s.size(), 2u);
  ASSERT_TRUE(gpu.dram_random_rmw);
  ASSERT_EQ(gpu.dram_random_rmw->footprint_bytes, gpu.dram_random->footprint_bytes);
  for (std::size_t i = 0; i < gpu.dram_random_rmw->sectors_per_s.size(); ++i) {
    EXPECT_LT(gpu.dram_random_rmw->sectors_per_s[i], gpu.dram_random->sectors_per_s[i]);
    EXPECT_GT(gpu.dram_random_rmw->sectors_per_s[i], d.multiprocessors / gpu.latency->dram_s);
  }
  // Random writes (no read first): a rate for every table, each fitted from its slope.
  ASSERT_TRUE(gpu.dram_random_write);
  ASSERT_EQ(gpu.dram_random_write->footprint_bytes, gpu.dram_random->footprint_bytes);
  EXPECT_EQ(gpu.dram_random_write->fixed_s.size(), gpu.dram_random_write->footprint_bytes.size());
  for (const double rate : gpu.dram_random_write->sectors_per_s) EXPECT_GT(rate, 0);
  // Copy engines overlap: H2D and D2H together finish before they would one after the other.
  ASSERT_TRUE(gpu.overlap);
  EXPECT_LT(gpu.overlap->h2d_d2h_s, 0.9 * (gpu.overlap->h2d_s + gpu.overlap->d2h_s));
}

// What scripts/device-run.sh runs under compute-sanitizer racecheck for the microbenchmarks.
TEST(GpuMicrobench, SharedMemoryKernelsPassTheirChecksOnASmallGrid) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  EXPECT_NO_THROW(run_shared_memory_kernels_once());
}
