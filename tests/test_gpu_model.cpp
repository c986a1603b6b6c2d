// The GPU model without the recorded data: execution metrics against hand-computed cases, the
// workload descriptors against the seeds' closed forms, the predictor's limiting cases, the
// workload-file reader's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/execution_metrics.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

using namespace perfmodel;

namespace {

GpuDeviceInfo h100() {
  GpuDeviceInfo d;
  d.multiprocessors = 132, d.warp_size = 32, d.max_threads_per_block = 1024, d.max_threads_per_multiprocessor = 2048;
  d.max_blocks_per_multiprocessor = 32, d.registers_per_multiprocessor = 65536, d.registers_per_block = 65536;
  d.max_registers_per_thread = 255, d.register_allocation_unit = 256, d.shared_memory_per_multiprocessor = 233472;
  d.shared_memory_per_block = 49152, d.shared_memory_per_block_optin = 232448, d.reserved_shared_memory_per_block = 1024;
  d.shared_memory_allocation_unit = 128, d.l2_cache_bytes = 50331648;
  return d;
}

// A calibration with round numbers, so predictions can be computed by hand.
GpuCalibration simple_gpu() {
  GpuCalibration g;
  g.device = h100();
  auto rate = [](double v) {
    MeasuredRate r;
    r.median = r.p10 = r.p90 = v;
    return r;
  };
  g.ceilings["fp32"] = rate(64e12);
  g.ceilings["fp64"] = rate(32e12);
  g.ceilings["cosf"] = rate(1e12);
  g.ceilings["l2_read"] = rate(8e12);
  g.ceilings["shared_load"] = rate(128.0 * 132 * 2e9);
  SaturationCurve c;
  c.peak_Bps = 3e12, c.latency_s = 400e-9, c.sharpness = 64, c.max_requests_per_warp = 0;
  g.dram_concurrency = c;
  g.latency = LatencyLevels{20e-9, 160e-9, 340e-9, 0, 0, 0};
  g.launch = LaunchCalibration{2e-6, 8e-6, 1e-6, 2e-6, 0, 1056, {}, std::nullopt};
  return g;
}

}  // namespace

TEST(ExecutionMetrics, LimitsFollowTheAllocationRules) {
  const GpuDeviceInfo d = h100();
  std::string why;
  // 256 threads, 32 registers: 8 warps × 1024 registers = 8 KiB per block → threads limit 8 blocks.
  EXPECT_EQ(resident_blocks_per_sm(d, 256, 32, 0, &why), 8);
  EXPECT_EQ(why, "threads");
  // 128 registers: a warp needs 4096 of a sub-partition's 16384 → 4 warps each → 16 warps → 2 blocks of 8.
  EXPECT_EQ(resident_blocks_per_sm(d, 256, 128, 0, &why), 2);
  EXPECT_EQ(why, "registers");
  // 40 KiB of shared memory + 1 KiB reserved: 233472 / 41984 = 5.56 → 5.
  EXPECT_EQ(resident_blocks_per_sm(d, 64, 32, 40 * 1024, &why), 5);
  EXPECT_EQ(why, "shared memory");
  // Tiny blocks: the 32-block limit.
  EXPECT_EQ(resident_blocks_per_sm(d, 32, 16, 0, &why), 32);
  EXPECT_EQ(why, "blocks");
  EXPECT_THROW(resident_blocks_per_sm(d, 2048, 32, 0), InputError);
  EXPECT_THROW(resident_blocks_per_sm(d, 256, 300, 0), InputError);
}

TEST(ExecutionMetrics, WavesAndFragmentFollowS0Eq38To311) {
  const ExecutionMetrics m = execution_metrics(h100(), 3000, 256, 32, 0);  // 8 per SM → 1056 per wave
  EXPECT_EQ(m.active_blocks, 1056);
  EXPECT_EQ(m.full_waves, 2);
  EXPECT_EQ(m.fragment_blocks, 3000 - 2 * 1056);
  EXPECT_EQ(m.fragment_threads, (3000 - 2 * 1056) * 256);
  EXPECT_NEAR(m.waves, 3000.0 / 1056, 1e-12);
  EXPECT_DOUBLE_EQ(m.occupancy, 1.0);
  const ExecutionMetrics small = execution_metrics(h100(), 10, 256, 32, 0);
  EXPECT_EQ(small.active_blocks, 10);
  EXPECT_EQ(small.warps_per_sm, 8);
}

TEST(GpuWorkloads, DescriptorsMatchTheSeedsClosedForms) {
  const ResourceTable none;
  // mm-opt: global bytes 4n³(1/(XY) + 1/NE) (S0 Eq 4.9/4.10 in bytes) plus the C writes, which
  // format 2's derivation charges 148 bytes of L2 a written line (docs/workload-format.md). At
  // X = 16 a warp's A rows fill their sectors; at X = 8 its four 32-byte rows each take a line
  // request's 64-byte minimum, twice their bytes.
  const double n = 2048;
  const GpuWorkload mm16 = describe_gpu_kernel("mm-opt", n, {16, 4, 16}, none, 50e6);
  ASSERT_EQ(mm16.phases.size(), 1u);
  EXPECT_NEAR(mm16.phases[0].l2_bytes, 4 * n * n * n * (1.0 / 64 + 1.0 / 16) + 4 * n * n * 148 / 128, 1);
  const GpuWorkload mm = describe_gpu_kernel("mm-opt", n, {8, 8, 16}, none, 50e6);
  ASSERT_EQ(mm.phases.size(), 1u);
  EXPECT_NEAR(mm.phases[0].l2_bytes, 4 * n * n * n * (2.0 / 64 + 1.0 / 16) + 4 * n * n * 148 / 128, 1);
  EXPECT_DOUBLE_EQ(mm.phases[0].flops_fp32, 2 * n * n * n);
  EXPECT_EQ(mm.phases[0].grid_x, n / 64);
  EXPECT_EQ(mm.phases[0].grid_y, n / 16);
  // mv-shared<32>: the column read is a 32-way conflict; mv-opt's padded tile has none.
  const GpuWorkload ms = describe_gpu_kernel("mv-shared", 4096, {32, 1, 0}, none, 50e6);
  EXPECT_GT(ms.phases[0].shared_accesses.at(32), 0);
  const GpuWorkload mo = describe_gpu_kernel("mv-opt", 4096, {32, 4, 0}, none, 50e6);
  EXPECT_EQ(mo.phases[0].shared_accesses.size(), 1u);
  EXPECT_EQ(mo.phases[0].shared_accesses.begin()->first, 1);
  // conv2d-shared's 16-wide tile rows are 32 words apart: a warp's two rows share banks, so its
  // tile stores (2 per filter row) and window reads (5 per filter row) are 2-way; 32 wide, none.
  const double conv_warps = 4096.0 * 4096 / 32;
  const GpuWorkload c16 = describe_gpu_kernel("conv2d-shared", 4096, {16, 4, 0}, none, 50e6);
  EXPECT_DOUBLE_EQ(c16.phases[0].shared_accesses.at(2), conv_warps * 5 * (2 + 5));
  const GpuWorkload c32 = describe_gpu_kernel("conv2d-shared", 4096, {32, 4, 0}, none, 50e6);
  EXPECT_EQ(c32.phases[0].shared_accesses.size(), 1u);
  const double c32_blocks = (4096.0 / 32) * (4096.0 / 4);  // each stores its 5 filter rows
  EXPECT_DOUBLE_EQ(c32.phases[0].shared_accesses.at(1), conv_warps * 5 * (2 + 5) + conv_warps * 5 * 5 + c32_blocks * 5);
  // The loops that stage tiles through shared memory between barriers, and only those.
  EXPECT_TRUE(mm.phases[0].staged_tiles);
  EXPECT_TRUE(ms.phases[0].staged_tiles && mo.phases[0].staged_tiles);
  for (const char* kernel : {"mm-shared", "sgemm-tiled", "sgemm-64", "sgemm-256x16"})
    EXPECT_TRUE(describe_gpu_kernel(kernel, 4096, default_config(gpu_kernel_spec(kernel), 4096), none, 50e6).phases[0].staged_tiles)
        << kernel;
  for (const char* kernel : {"mm-global", "matmul", "mv-global", "mv-constant", "conv2d-shared", "dot", "cosine", "blur"})
    for (const GpuPhase& p : describe_gpu_kernel(kernel, 4096, default_config(gpu_kernel_spec(kernel), 4096), none, 50e6).phases)
      EXPECT_FALSE(p.staged_tiles) << kernel;
  // Compulsory DRAM bytes of mv: A once, b once, c once.
  EXPECT_DOUBLE_EQ(mo.phases[0].dram_bytes, 4.0 * (4096.0 * 4096 + 2 * 4096));
  // CG: 10 products, 21 dot products, 10 + 10 vector updates.
  const GpuWorkload cg = describe_gpu_kernel("cg", 4096, {32, 4, 0}, none, 50e6);
  double launches = 0;
  for (const GpuPhase& p : cg.phases) launches += p.launches;
  EXPECT_EQ(launches, 10 + 21 + 20);
  // mv-opt's per-tile chain: the compiled loop's DRAM round trips (32x4: one a tile), b's
  // constant-cache miss (an L2 round trip a tile) and R = X/Y dependent L1 loads; only a one-warp
  // block issues its R loads together.
  EXPECT_EQ(mo.phases[0].chain_dram_loads, 4096 / 32);
  EXPECT_EQ(mo.phases[0].chain_l2_loads, 4096 / 32);
  EXPECT_EQ(mo.phases[0].chain_l1_loads, 4096 / 32 * 8);
  EXPECT_TRUE(mo.phases[0].fetch_rounds_in_chain);
  EXPECT_FALSE(mo.phases[0].loads_issued_together);
  EXPECT_TRUE(describe_gpu_kernel("mv-opt", 4096, {32, 1, 0}, none, 50e6).phases[0].loads_issued_together);
  // In CG at n = 1024 A (4 MiB) stays in L2 after the first product: those tiles wait on L2.
  const GpuWorkload small = describe_gpu_kernel("cg", 1024, {32, 4, 0}, none, 50e6);
  int l2_products = 0;
  for (const GpuPhase& p : small.phases)
    if (p.chain_l2_loads == 1024 / 32 && p.chain_dram_loads == 0) l2_products += static_cast<int>(p.launches);
  EXPECT_EQ(l2_products, 9);
  // The compiled loops differ in how many tiles' loads they hoist above the barrier: 64x16 waits
  // for 1.5 round trips a tile (4, 2 and 2 loads in three rounds per two tiles), 32x16 for a
  // quarter (four tiles' loads in one round).
  const GpuPhase m64 = describe_gpu_kernel("mv-opt", 4096, {64, 16, 0}, none, 50e6).phases[0];
  EXPECT_EQ(m64.chain_dram_loads, 4096 / 64 * 1.5);
  EXPECT_EQ(describe_gpu_kernel("mv-opt", 4096, {32, 16, 0}, none, 50e6).phases[0].chain_dram_loads, 4096 / 32 / 4);
  // 16-wide tiles: rows of 64 B, fetched as whole lines. A warp's load brings two lines, and
  // every other tile's round trip ends in L2 (16x8: a quarter round trip a tile); 32-wide tiles
  // use their lines whole.
  const GpuPhase m16 = describe_gpu_kernel("mv-opt", 4096, {16, 8, 0}, none, 50e6).phases[0];
  EXPECT_EQ(m16.request_bytes, 256);
  EXPECT_EQ(m16.chain_dram_loads, 4096 / 16 / 4 / 2);
  EXPECT_EQ(m16.chain_l2_loads, 4096 / 16 / 4 / 2 + 4096 / 16);
  EXPECT_EQ(mo.phases[0].request_bytes, 128);
  // CG's product reads b from global memory through L1: its loop keeps one round trip a tile
  // and no constant-cache wait.
  for (const GpuPhase& p : describe_gpu_kernel("cg", 4096, {64, 16, 0}, none, 50e6).phases)
    if (p.staged_tiles) {
      EXPECT_FALSE(p.fetch_rounds_in_chain) << p.name;
      EXPECT_EQ(p.chain_dram_loads, 4096 / 64) << p.name;
      EXPECT_EQ(p.chain_l2_loads, 0) << p.name;
    }
  // In CG with A in L2, both halves of a 16-wide tile's round trips end in L2.
  int l2_resident = 0;
  for (const GpuPhase& p : describe_gpu_kernel("cg", 1024, {16, 8, 0}, none, 50e6).phases)
    if (p.launches == 9) {
      ++l2_resident;
      EXPECT_EQ(p.chain_l2_loads, 1024 / 16);
      EXPECT_EQ(p.chain_dram_loads, 0);
    }
  EXPECT_EQ(l2_resident, 1);
  // A size the kernel cannot run is refused with the reason.
  EXPECT_THROW(describe_gpu_kernel("mm-opt", 1000, {8, 8, 16}, none, 50e6), InputError);
  EXPECT_THROW(describe_gpu_kernel("nope", 1024, {8, 8, 16}, none, 50e6), InputError);
}

TEST(GpuPredictor, LimitingCasesComeOutByHand) {
  const GpuCalibration g = simple_gpu();
  // A streaming kernel with plenty in flight: time = launch + bytes / peak.
  GpuWorkload w;
  GpuPhase p;
  p.name = "stream";
  p.grid_x = 132 * 8, p.block_x = 256, p.registers_per_thread = 32;
  p.dram_bytes = 3e9, p.l2_bytes = 3e9, p.loads_in_flight = 8, p.request_bytes = 128;
  w.phases = {p};
  const GpuPrediction s = predict_gpu(g, w);
  EXPECT_NEAR(s.seconds, 2e-6 + 1e-3, 2e-6);
  EXPECT_EQ(s.bound, "dram");
  // One warp in flight: Little's law, bytes / (q / latency).
  p.grid_x = 1, p.block_x = 32, p.loads_in_flight = 1, p.dram_bytes = 128 * 1000, p.l2_bytes = 0;
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 1000 * 400e-9, 1e-8);
  // Five loads in flight of which one takes a DRAM slot (the others hit L1 on lines it brings):
  // DRAM sees one load's bytes in flight, as if the kernel had one load in flight.
  p.loads_in_flight = 5, p.dram_loads_in_flight = 1;
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 1000 * 400e-9, 1e-8);
  p.dram_loads_in_flight = 0;  // all five take one: a fifth of the time
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 1000 * 400e-9 / 5, 1e-8);
  p.loads_in_flight = 1;
  // Compute: issue-bound FMAs, 64 flop per warp instruction at the FP32 ceiling.
  GpuPhase c;
  c.name = "fma";
  c.grid_x = 132 * 8, c.block_x = 256, c.registers_per_thread = 32;
  c.warp_instructions = 64e12 / 64 * 1e-3;
  w.phases = {c};
  const GpuPrediction f = predict_gpu(g, w);
  EXPECT_NEAR(f.seconds, 2e-6 + 1e-3, 1e-8);
  EXPECT_EQ(f.bound, "issue");
  // Back-to-back launches of empty kernels cost the launch time each.
  c.warp_instructions = 0;
  c.launches = 100;
  w.phases = {c};
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 99 * 2e-6, 1e-9);
}

// The launch timeline, launch by launch: the host enqueues at its own rate, the GPU starts a
// launch once it has finished the previous one and paid its queued cost, and once the host has
// enqueued it. The predictor's closed form per phase must agree with this.
double simulate_launches(const std::vector<std::tuple<int, double, double, double>>& launches, double lead, double base) {
  double host = -lead, end = base;
  for (const auto& [count, host_cost, gpu_cost, work] : launches)
    for (int i = 0; i < count; ++i) {
      host += host_cost;
      end = std::max(end + gpu_cost, host) + work;
    }
  return end;
}

TEST(GpuPredictor, LaunchesQueueBehindTheLeadAndTheHostRate) {
  GpuCalibration g = simple_gpu();  // host: 2 µs per launch
  QueuedLaunch q;
  q.base_s = 1.3e-6, q.kernel_s = 1.5e-6, q.memset_s = 1e-6, q.host_memset_s = 1.6e-6;
  g.launch->queued = q;
  GpuPhase empty;
  empty.name = "empty";
  empty.grid_x = 1, empty.block_x = 32, empty.registers_per_thread = 16;
  GpuWorkload w;
  // Idle GPU: launches cost the host's rate; behind 32 µs of work the GPU's own cost shows while
  // the host stays ahead (4 launches), and the host's rate again once it falls behind (100).
  empty.launches = 4;
  w.phases = {empty};
  GpuRunStart busy;
  busy.queue_lead_s = 32e-6;
  EXPECT_NEAR(predict_gpu(g, w).seconds, 4 * 2e-6, 1e-12);
  EXPECT_NEAR(predict_gpu(g, w, busy).seconds, 1.3e-6 + 4 * 1.5e-6, 1e-12);
  empty.launches = 100;
  w.phases = {empty};
  EXPECT_NEAR(predict_gpu(g, w, busy).seconds, 100 * 2e-6 - 32e-6, 1e-12);
  EXPECT_EQ(predict_gpu(g, w, busy).bound, "launch");
  // Without the queued costs (an older profile) the lead is ignored, as the launches would be free.
  GpuCalibration old = g;
  old.launch->queued.reset();
  EXPECT_NEAR(predict_gpu(old, w, busy).seconds, 100 * 2e-6, 1e-12);
  // Mixed phases (memsets, kernels with work above and below the host rate) against the
  // launch-by-launch timeline.
  GpuPhase work = empty;
  work.name = "work";
  work.grid_x = 132, work.block_x = 256;
  work.chain_l2_loads = 25;  // 25 × 160 ns = 4 µs, one wave
  GpuPhase little = work;
  little.chain_l2_loads = 3;  // 0.48 µs
  GpuPhase memset;
  memset.name = "memset";
  for (const double lead : {0.0, 32e-6})
    for (const int n : {1, 3, 40}) {
      memset.launches = 1, work.launches = n, little.launches = 2 * n;
      w.phases = {memset, work, little, memset, little};
      GpuRunStart start;
      start.queue_lead_s = lead;
      const double expected = simulate_launches({{1, 1.6e-6, 1e-6, 0},
                                                 {n, 2e-6, 1.5e-6, 4e-6},
                                                 {2 * n, 2e-6, 1.5e-6, 0.48e-6},
                                                 {1, 1.6e-6, 1e-6, 0},
                                                 {2 * n, 2e-6, 1.5e-6, 0.48e-6}},
                                                lead, 1.3e-6);
      EXPECT_NEAR(predict_gpu(g, w, start).seconds, expected, 1e-12) << "lead " << lead << ", n " << n;
    }
}

TEST(GpuPredictor, AStagedTileLoopOverlapsItsL2AndL1PhasesOnlyAcrossBlocks) {
  const GpuCalibration g = simple_gpu();
  GpuPhase p;
  p.name = "tiles";
  p.block_x = 256, p.registers_per_thread = 32;
  p.l2_bytes = 8e9;                     // 1 ms at the 8 TB/s L2 ceiling, all SMs busy
  p.shared_accesses[1] = 132 * 1e6;     // 1e6 conflict-free passes per SM: 0.5 ms at 2 GHz
  p.loads_in_flight = 64, p.request_bytes = 128;
  for (const double blocks_per_sm : {1.0, 4.0}) {
    p.grid_x = 132 * blocks_per_sm;
    GpuWorkload w;
    w.phases = {p};
    const GpuPrediction free_running = predict_gpu(g, w);
    w.phases[0].staged_tiles = true;
    const GpuPrediction staged = predict_gpu(g, w);
    ASSERT_NEAR(free_running.l2_s, 1e-3, 1e-9);
    ASSERT_NEAR(free_running.l1_s, 0.5e-3, 1e-9);
    // Unstaged the two overlap fully; staged, 1/b of the shorter stays exposed.
    EXPECT_NEAR(free_running.seconds, 2e-6 + 1e-3, 1e-9) << blocks_per_sm;
    EXPECT_NEAR(staged.seconds - free_running.seconds, 0.5e-3 / blocks_per_sm, 1e-9) << blocks_per_sm;
  }
}

TEST(GpuPredictor, BlocksOfOneWaveLeaveEachTilesFetchLatencyExposed) {
  const GpuCalibration g = simple_gpu();  // L2 latency 160 ns, DRAM 340 ns; 8 blocks per SM fit
  GpuPhase p;
  p.name = "tiles";
  p.block_x = 256, p.registers_per_thread = 32;
  p.l2_bytes = 8e9;                  // 1 ms at the 8 TB/s L2 ceiling, all SMs busy
  p.shared_accesses[1] = 132 * 1e6;  // 0.5 ms of L1 per SM
  p.loads_in_flight = 64, p.request_bytes = 128;
  p.staged_tiles = true;
  const auto seconds = [&](double blocks_per_sm, double tiles_from_l2, double tiles_from_dram) {
    GpuPhase q = p;
    q.grid_x = 132 * blocks_per_sm;
    q.chain_l2_loads = tiles_from_l2, q.chain_dram_loads = tiles_from_dram;
    GpuWorkload w;
    w.phases = {q};
    return predict_gpu(g, w).seconds;
  };
  // One wave (b = 4 blocks per SM, in phase): of every round trip the share 1 − 1/b stays exposed.
  EXPECT_NEAR(seconds(4, 1000, 0) - seconds(4, 0, 0), 1000 * 160e-9 * 0.75, 1e-12);
  EXPECT_NEAR(seconds(4, 0, 500) - seconds(4, 0, 0), 500 * 340e-9 * 0.75, 1e-12);
  // One block per SM: T_l2 already serialises its fetches; nothing more is exposed.
  EXPECT_NEAR(seconds(1, 1000, 0), seconds(1, 0, 0), 1e-12);
  // Two waves (16 blocks per SM's worth): the blocks drift out of phase and overlap each other.
  EXPECT_NEAR(seconds(16, 1000, 0), seconds(16, 0, 0), 1e-12);
}

TEST(GpuPredictor, OneBlockPerSmWithCompiledFetchRoundsRunsItsTilesSerially) {
  const GpuCalibration g = simple_gpu();  // L2 latency 160 ns, DRAM 340 ns, L2 ceiling 8 TB/s
  GpuPhase p;
  p.name = "tiles";
  p.block_x = 256, p.registers_per_thread = 32;
  p.grid_x = 66;                     // half the SMs, one block each: one wave
  p.l2_bytes = 66 * 1024 * 1024;     // 1 MiB a block
  p.shared_accesses[1] = 66 * 1e5;   // the same L1 work on every SM
  p.loads_in_flight = 64, p.request_bytes = 128;  // 2 MiB in flight: the latency never limits L2
  p.staged_tiles = true;
  p.chain_dram_loads = 30, p.chain_l2_loads = 20;  // 13.4 µs: less than the L2 transfer alone
  const auto predict = [&](const GpuPhase& q) {
    GpuWorkload w;
    w.phases = {q};
    return predict_gpu(g, w);
  };
  const GpuPrediction overlapped = predict(p);
  GpuPhase serial = p;
  serial.fetch_rounds_in_chain = true;
  const GpuPrediction s = predict(serial);
  // The rounds' latency adds to the L2 transfer (at the 66 SMs' half of the L2 ceiling) and the
  // L1 work, where the overlapped form held it in neither.
  EXPECT_NEAR(s.l2_s, 66.0 * 1024 * 1024 / (g.ceiling("l2_read").median / 2), 1e-12);
  EXPECT_NEAR(s.seconds - overlapped.seconds, 30 * 340e-9 + 20 * 160e-9, 1e-9);
  // Two blocks per SM (264 blocks, still one wave): the other block overlaps, and the form is the
  // shared one again.
  GpuPhase two = serial, two_overlapped = p;
  two.grid_x = two_overlapped.grid_x = 264;
  EXPECT_NEAR(predict(two).seconds, predict(two_overlapped).seconds, 1e-12);
}

TEST(GpuPredictor, WaveSchedulingSharesTheIssueSlotsAndHidesUnderTheMemoryPipes) {
  GpuCalibration g = simple_gpu();  // 2 GHz issue: 1e12 warp instructions per second GPU-wide
  g.launch->per_wave_s = 1e-6;
  GpuPhase p;
  p.name = "waves";
  p.block_x = 256, p.registers_per_thread = 32;  // 8 blocks per SM: 1056 a wave
  p.grid_x = 1056 * 10;                          // 10 full waves: 9 of them scheduled after the first
  p.warp_instructions = 1e12 * 100e-6;           // 100 µs of issue
  GpuWorkload w;
  w.phases = {p};
  // Issue-bound: each later wave's scheduling adds to its issue time.
  const GpuPrediction issue = predict_gpu(g, w);
  EXPECT_EQ(issue.bound, "issue");
  EXPECT_NEAR(issue.seconds, 2e-6 + 100e-6 + 9e-6, 1e-9);
  // L1-bound with room to spare (150 µs against 100 + 9): the scheduling hides.
  w.phases[0].shared_accesses[1] = 132 * 2e9 * 150e-6;  // conflict-free passes at one per clock per SM
  const GpuPrediction l1 = predict_gpu(g, w);
  EXPECT_EQ(l1.bound, "l1/shared");
  EXPECT_NEAR(l1.seconds, 2e-6 + 150e-6, 1e-9);
  // L1 just over the issue time alone (10.5 µs a wave against 10): the first wave takes its L1
  // time, each later one its issue time plus its scheduling (11 µs).
  w.phases[0].shared_accesses[1] = 132 * 2e9 * 105e-6;
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 10.5e-6 + 9 * 11e-6, 1e-9);
  // A fragment wave after the full ones pays the scheduling too; one wave alone pays none.
  w.phases[0].shared_accesses.clear();
  w.phases[0].grid_x = 1056 * 10 + 528;
  w.phases[0].warp_instructions = 1e12 * 105e-6;  // 10 µs per full wave, 5 µs for the half one
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 105e-6 + 10e-6, 1e-9);
  w.phases[0].grid_x = 1056;
  w.phases[0].warp_instructions = 1e12 * 10e-6;
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 10e-6, 1e-9);
}

TEST(GpuPredictor, TheRunnersStartIsTheFlushsDirtyL2AndItsTime) {
  GpuCalibration g = simple_gpu();
  EXPECT_EQ(dirty_l2_where_measured(g).queue_lead_s, 0);  // no write-back measured: a clean start
  g.l2_write_back = L2WriteBack{};
  MeasuredRate write;
  write.median = write.p10 = write.p90 = 3.2e12;
  g.ceilings["dram_write"] = write;
  const GpuRunStart s = dirty_l2_where_measured(g);
  EXPECT_TRUE(s.l2_dirty);
  EXPECT_NEAR(s.queue_lead_s, 2 * g.device.l2_cache_bytes / 3.2e12, 1e-15);
}

TEST(GpuPredictor, QueuesAreReadGpuWideAndLatencyChainsAdd) {
  GpuCalibration g = simple_gpu();
  GpuWorkload w;
  GpuPhase p;
  p.name = "stream";
  // One block of 1024 threads on each of 66 SMs, far past the knee: the DRAM sees the wave's
  // bytes in flight, so half the SMs reach the whole peak (as 64 SMs did on the H100).
  p.grid_x = 66, p.block_x = 1024, p.registers_per_thread = 32;
  p.dram_bytes = 1.5e9, p.loads_in_flight = 64, p.request_bytes = 128;
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds, 2e-6 + 1.5e9 / 3e12, 1e-6);
  // In the linear part of the curve the rate follows the bytes in flight, not the SMs holding
  // them: 32 KiB on 8 SMs or on 16 run alike, 1000 round trips of 400 ns (Little's law).
  p.grid_x = 8, p.block_x = 1024, p.loads_in_flight = 1, p.dram_bytes = 8 * 32 * 128 * 1000.0;
  w.phases = {p};
  const double on_8 = predict_gpu(g, w).seconds;
  p.grid_x = 16, p.block_x = 512;
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds, on_8, 1e-12);
  EXPECT_NEAR(on_8, 2e-6 + 1000 * 400e-9, 1e-9);
  // A per-warp request limit of 4 holds 32 independent loads to 4 in flight; a kernel whose loads
  // are issued together escapes it (Little's law, linear part of the curve: 8× the rate).
  g.dram_concurrency->max_requests_per_warp = 4;
  p.grid_x = 132, p.block_x = 32, p.loads_in_flight = 32, p.dram_bytes = 132 * 128 * 32 * 100.0;
  w.phases = {p};
  const double capped = predict_gpu(g, w).seconds - 2e-6;
  w.phases[0].loads_issued_together = true;
  const double together = predict_gpu(g, w).seconds - 2e-6;
  EXPECT_NEAR(capped, 800 * 400e-9, 1e-9);
  EXPECT_NEAR(together, 100 * 400e-9, 1e-9);
  // Dependent loads add their levels' latencies (profile: L1 20 ns, L2 160 ns, DRAM 340 ns).
  GpuPhase chain;
  chain.name = "chain";
  chain.grid_x = 1, chain.block_x = 32, chain.registers_per_thread = 32;
  chain.chain_dram_loads = 100, chain.chain_l2_loads = 10, chain.chain_l1_loads = 1000;
  w.phases = {chain};
  const GpuPrediction c = predict_gpu(g, w);
  EXPECT_NEAR(c.seconds, 2e-6 + 100 * 340e-9 + 10 * 160e-9 + 1000 * 20e-9, 1e-10);
  EXPECT_EQ(c.bound, "latency");
}

// Stores do not hold their warps: in the linear part of the curve a loop's writes stream in the
// DRAM time its reads leave idle; near the peak they share the bandwidth.
TEST(GpuPredictor, WritesStreamInTheDramTimeTheReadsLeaveIdle) {
  GpuCalibration g = simple_gpu();
  g.dram_concurrency->sharpness = 2;  // a smooth knee, so the idle fraction is neither 0 nor 1
  GpuWorkload w;
  GpuPhase p;
  p.name = "triad";
  p.grid_x = 32, p.block_x = 256, p.registers_per_thread = 32, p.loads_in_flight = 2, p.request_bytes = 128;
  const double reads = 32 * 8 * 2 * 128 * 1000.0;  // a thousand round trips of the reads' bytes in flight
  p.dram_bytes = 1.5 * reads;
  w.phases = {p};
  const double all_reads = predict_gpu(g, w).seconds;
  w.phases[0].dram_write_bytes = 0.5 * reads;
  const GpuPrediction split = predict_gpu(g, w);
  const double q = 32 * 8 * 2 * 128.0, bw = g.dram_concurrency->bandwidth_Bps(q);
  const double q_split = q * (1 + (1 - bw / 3e12) * 0.5);
  EXPECT_DOUBLE_EQ(split.phases[0].bytes_in_flight, q_split);
  EXPECT_NEAR(split.seconds, 2e-6 + 1.5 * reads / g.dram_concurrency->bandwidth_Bps(q_split), 1e-10);
  EXPECT_LT(split.seconds, all_reads);
  // Far past the knee the reads leave no idle time: the writes take their full share.
  p.grid_x = 132 * 8, p.loads_in_flight = 8, p.dram_bytes = 3e9, p.dram_write_bytes = 1e9;
  w.phases = {p};
  EXPECT_NEAR(predict_gpu(g, w).seconds - 2e-6, 3e9 / 3e12, 0.02 * 1e-3);
}

// A reduction tree after one load per thread (GpuPhase::barriers): each round of a block's serial
// phase holds its slot with no load in flight, so below the knee (BW(q) = q / 400 ns) every round
// of loads takes the latency plus the phase: τ = 9 · (3 · 20 ns + 0 (no FMA latency in this
// profile) + 8 warps · 7 instructions · 132 / 1e12 warp instructions/s) = 606.528 ns.
TEST(GpuPredictor, ABlocksSerialPhaseStallsItsLoadsUnlessTheStreamIsSaturated) {
  const GpuCalibration g = simple_gpu();
  GpuPhase p;
  p.name = "tree";
  p.grid_x = 132, p.block_x = 256, p.registers_per_thread = 32, p.loads_in_flight = 1, p.request_bytes = 128;
  const double q = 132 * 8 * 128.0;  // 135 KB in flight: x = q / (3 TB/s · 400 ns) = 0.11, far below the knee
  p.dram_bytes = 1000 * q;            // a thousand rounds of loads
  const auto seconds = [&](double barriers, double load_rounds) {
    GpuPhase x = p;
    x.barriers = barriers, x.load_rounds = load_rounds;
    GpuWorkload w;
    w.phases = {x};
    return predict_gpu(g, w).seconds;
  };
  const double tau = 9 * (3 * 20e-9 + 8 * 7 * 132 / 1e12);
  EXPECT_NEAR(seconds(0, 1), 2e-6 + 1000 * 400e-9, 1e-12);
  EXPECT_NEAR(seconds(9, 1) - seconds(0, 1), 1000 * tau, 1e-12);
  // A grid-stride loop's four rounds of loads share one phase.
  EXPECT_NEAR(seconds(9, 4) - seconds(0, 1), 1000 * tau / 4, 1e-12);
  // Past the knee (q = 8.65 MB, x = 7.2) the stream keeps the DRAM busy through the phase: the
  // other slots' loads still saturate it (q' = q − peak · τ = 6.8 MB, x = 5.7).
  p.grid_x = 132 * 8, p.loads_in_flight = 8, p.dram_bytes = 3e9;
  EXPECT_NEAR(seconds(9, 1), seconds(0, 1), 1e-9);
  EXPECT_NEAR(seconds(0, 1), 2e-6 + 1e-3, 1e-9);
}

// A fast special-function call runs on the SFU beside the FP32 instructions: the longer of the
// two, not their sum.
TEST(GpuPredictor, FastSpecialCallsRunBesideTheOtherInstructions) {
  GpuCalibration g = simple_gpu();
  g.ceilings["fast_cosf"] = g.ceilings["cosf"];
  g.ceilings["fast_cosf"].median = 4e12;
  GpuWorkload w;
  GpuPhase p;
  p.name = "sfu";
  p.grid_x = 132 * 8, p.block_x = 256, p.registers_per_thread = 32;
  p.sfu_calls = 4e9, p.warp_instructions = 4e9 / 32 * 2;  // a call and an add per lane
  w.phases = {p};
  const GpuPrediction r = predict_gpu(g, w);
  EXPECT_NEAR(r.seconds - 2e-6, 4e9 / 4e12, 1e-9);  // the SFU's 1 ms, the adds' 0.25 ms beside it
  EXPECT_EQ(r.bound, "special");
}

// Integer work (`int`, operations as written) issues at the profile's shift/xor/add rate
// (int32_logic), not at the multiply-add ceiling; without the rate, at 4/3 FP32 issue slots an
// operation (the ALU pipe's half rate, two operations in three on it), and the output says so.
TEST(GpuPredictor, IntegerWorkIssuesAtTheMeasuredShiftXorAddRate) {
  GpuCalibration g = simple_gpu();
  auto rate = [](double v) {
    MeasuredRate r;
    r.median = r.p10 = r.p90 = v;
    return r;
  };
  g.ceilings["int32"] = rate(32e12);
  g.ceilings["int32_logic"] = rate(20e12);
  // One full wave (132 SMs · 8 blocks of 256 threads), 9000 integer operations a thread, one
  // 4-byte write each: issue-bound.
  const std::string text =
      "format: 2\nparams: {n: 132*8*256, k: 1000}\nkernels:\n  - name: chain\n    grid: [n/256]\n    block: [256]\n"
      "    registers: 28\n    accesses:\n      - {name: out, kind: write, count: n}\n    work: {int: 9*k*n}\n";
  const double n = 132 * 8 * 256, warps = n / 32;
  const auto predict = [&](const GpuCalibration& gpu, std::vector<std::string>* notes = nullptr) {
    const GpuWorkloadFile f = parse_gpu_workload(text, "w.yaml", gpu);
    if (notes) *notes = f.notes;
    return predict_gpu(gpu, f.workload);
  };
  // By hand: (64e12 / 64) / (20e12 / 32) = 1.6 slots a warp of operations, 3 for the write; the
  // FP32 issue rate 1e12 warp instructions a second over the 132 SMs, all of them busy.
  std::vector<std::string> notes;
  const GpuPrediction measured = predict(g, &notes);
  EXPECT_EQ(measured.bound, "issue");
  EXPECT_NEAR(measured.issue_s, (warps * 9000 * 1.6 + 3 * warps) / 1e12, 1e-12);
  EXPECT_NEAR(measured.issue_s, 9000 * n / 20e12 + 3 * warps / 1e12, 1e-12);  // the operations at 20 Top/s
  EXPECT_TRUE(notes.empty());
  // The multiply-add ceiling plays no part.
  g.ceilings["int32"] = rate(8e12);
  EXPECT_DOUBLE_EQ(predict(g).issue_s, measured.issue_s);
  // An older profile: 4/3 slots an operation, 24 Top/s at this FP32 rate.
  g.ceilings.erase("int32_logic");
  const GpuPrediction fallback = predict(g, &notes);
  EXPECT_NEAR(fallback.issue_s, (warps * 9000 * 4 / 3 + 3 * warps) / 1e12, 1e-12);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("4/3 FP32 issue slots an operation"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("no int32_logic ceiling"), std::string::npos) << notes[0];
}

// A compiled count's integer share (format 2's integer_share) issues at the same integer rate:
// of W instructions, s·W take (64e12 / 64) / (20e12 / 32) = 1.6 slots each, the rest one.
TEST(GpuPredictor, ACompiledCountsIntegerShareIssuesAtTheIntegerRate) {
  GpuCalibration g = simple_gpu();
  MeasuredRate logic;
  logic.median = logic.p10 = logic.p90 = 20e12;
  g.ceilings["int32_logic"] = logic;
  const double n = 132 * 8 * 256, warps = n / 32, W = warps * 9000;
  const auto text = [](const std::string& extra) {
    return "format: 2\nparams: {n: 132*8*256}\nkernels:\n  - name: compiled\n    grid: [n/256]\n    block: [256]\n"
           "    registers: 28\n    accesses:\n      - {name: out, kind: write, count: n}\n    warp_instructions: n/32*9000\n" +
           extra;
  };
  const auto issue = [&](const GpuCalibration& gpu, const std::string& extra, std::vector<std::string>* notes = nullptr) {
    const GpuWorkloadFile f = parse_gpu_workload(text(extra), "w.yaml", gpu);
    if (notes) *notes = f.notes;
    const GpuPrediction r = predict_gpu(gpu, f.workload);
    EXPECT_EQ(r.bound, "issue");
    return r.issue_s;
  };
  EXPECT_NEAR(issue(g, ""), W / 1e12, 1e-12);
  std::vector<std::string> notes;
  EXPECT_NEAR(issue(g, "    integer_share: 0.75\n", &notes), (0.25 * W + 0.75 * W * 1.6) / 1e12, 1e-12);
  EXPECT_TRUE(notes.empty());
  EXPECT_NEAR(issue(g, "    integer_share: 0\n"), W / 1e12, 1e-12);
  // An older profile: 4/3 slots, and the output says so.
  g.ceilings.erase("int32_logic");
  EXPECT_NEAR(issue(g, "    integer_share: 0.75\n", &notes), (0.25 * W + 0.75 * W * 4 / 3) / 1e12, 1e-12);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no int32_logic ceiling"), std::string::npos) << notes[0];
}

// A wave of k blocks on S SMs, k not a multiple of S: ⌈k/S⌉ blocks sit on the busiest SM.
TEST(GpuPredictor, APartialWaveHasItsOwnBlocksInFlightAndLastsAsItsBusiestSm) {
  const GpuCalibration g = simple_gpu();
  GpuWorkload w;
  GpuPhase p;
  p.name = "stream";
  p.block_x = 128, p.registers_per_thread = 32, p.loads_in_flight = 1, p.request_bytes = 128;
  // DRAM is shared: 192 blocks of 4 warps have 192 · 4 · 128 B in flight (not 2 blocks on each
  // of the 132 SMs), and in the linear part of the curve their bytes take that many round trips.
  p.grid_x = 192, p.dram_bytes = 192 * 4 * 128 * 1000.0;
  w.phases = {p};
  const GpuPrediction d = predict_gpu(g, w);
  EXPECT_DOUBLE_EQ(d.phases[0].bytes_in_flight, 192 * 4 * 128.0);
  EXPECT_NEAR(d.seconds, 2e-6 + 1000 * 400e-9, 1e-10);
  EXPECT_EQ(d.bound, "dram");
  // The issue slots are per SM: 133 issue-bound blocks take as long as 264 (two on the busiest
  // SM), twice what 132 take; the work per block is the same in all three.
  const double per_block = 1e6;  // warp instructions
  const auto issue_time = [&](double blocks) {
    GpuPhase c = p;
    c.name = "fma";
    c.grid_x = blocks, c.dram_bytes = 0, c.warp_instructions = per_block * blocks;
    w.phases = {c};
    const GpuPrediction r = predict_gpu(g, w);
    EXPECT_EQ(r.bound, "issue");
    return r.seconds - 2e-6;
  };
  const double one = issue_time(132);
  EXPECT_NEAR(one, per_block / (64e12 / 64 / 132), 1e-12);
  EXPECT_NEAR(issue_time(133), 2 * one, 1e-12);
  EXPECT_NEAR(issue_time(264), 2 * one, 1e-12);
}

TEST(GpuPredictor, ADirtyL2SlowsTheFirstLaunchsReadsByTheirShareOfTheDram) {
  GpuCalibration g = simple_gpu();
  GpuWorkload w;
  GpuPhase p;
  p.name = "stream";  // 132 SMs × 1024 threads × 64 loads: at the 3 TB/s peak
  p.grid_x = 132, p.block_x = 1024, p.registers_per_thread = 32;
  p.dram_bytes = 1.5e9, p.loads_in_flight = 64, p.request_bytes = 128;
  w.phases = {p};
  // Without the calibration a dirty start cannot be predicted, and is not the default.
  EXPECT_THROW(predict_gpu(g, w, GpuRunStart{true}), InputError);
  EXPECT_FALSE(dirty_l2_where_measured(g).l2_dirty);
  L2WriteBack wb;
  wb.bytes = 70e6, wb.seconds_per_byte = 0.14e-12;
  g.l2_write_back = wb;
  EXPECT_TRUE(dirty_l2_where_measured(g).l2_dirty);
  const double clean = predict_gpu(g, w).seconds;
  EXPECT_NEAR(clean, 2e-6 + 1.5e9 / 3e12, 1e-9);
  // At the ceiling the first 70 MB read pay 0.14 ns per byte.
  const GpuPrediction dirty = predict_gpu(g, w, GpuRunStart{true});
  EXPECT_NEAR(dirty.seconds - clean, 70e6 * 0.14e-12, 1e-10);
  EXPECT_NEAR(dirty.dram_s - predict_gpu(g, w).dram_s, dirty.seconds - clean, 1e-12);
  // Only the first launch finds the L2 dirty.
  w.phases[0].launches = 3;
  EXPECT_NEAR(predict_gpu(g, w, GpuRunStart{true}).seconds - predict_gpu(g, w).seconds, 70e6 * 0.14e-12, 1e-10);
  // Two phases share the reach: the first reads 20 MB of it, the second the other 50 MB.
  w.phases[0].launches = 1, w.phases[0].dram_bytes = 20e6;
  w.phases.push_back(p);
  EXPECT_NEAR(predict_gpu(g, w, GpuRunStart{true}).seconds - predict_gpu(g, w).seconds, 70e6 * 0.14e-12, 1e-10);
  // One block of 32 warps with one 128-B line each in flight uses a sliver of the DRAM: a sliver
  // of the surcharge.
  GpuPhase slow = p;
  slow.grid_x = 1, slow.loads_in_flight = 1, slow.dram_bytes = 1e6;
  w.phases = {slow};
  const double share = 32 * 128 / 400e-9 / 3e12;  // Little's law, linear part of the curve
  EXPECT_NEAR(predict_gpu(g, w, GpuRunStart{true}).seconds - predict_gpu(g, w).seconds, 1e6 * 0.14e-12 * share, 1e-12);
}

TEST(GpuWorkloadFile, ReadsTheSignatureAndNamesBadKeys) {
  const GpuCalibration g = simple_gpu();
  const GpuWorkloadFile f = parse_gpu_workload(
      "perfmodel_workload: 1\nname: saxpy\nkernels:\n  - name: saxpy\n    grid: [4096]\n    block: [256]\n"
      "    flops_fp32: 2097152\n    read_bytes: 8388608\n    write_bytes: 4194304\n    loads_in_flight: 2\n"
      "transfers:\n  - {direction: h2d, memory: pinned, bytes: 8388608}\n",
      "saxpy.yaml", g);
  ASSERT_EQ(f.workload.phases.size(), 1u);
  EXPECT_EQ(f.workload.phases[0].dram_bytes, 12582912);
  EXPECT_EQ(f.workload.phases[0].l1_wavefronts, 12582912.0 / 4 / 32);
  EXPECT_EQ(f.transfers.size(), 1u);
  EXPECT_EQ(f.workload.h2d_bytes, 8388608);
  // Strided: every lane its own sector at stride ≥ 8 floats.
  const GpuWorkloadFile s = parse_gpu_workload(
      "perfmodel_workload: 1\nkernels:\n  - {grid: [1024], block: [256], read_bytes: 1048576, access: strided, stride_elements: 16}\n",
      "s.yaml", g);
  EXPECT_EQ(s.workload.phases[0].l2_bytes, 1048576.0 * 8);
  // A described latency chain replaces the default one, and loads issued together lift the
  // compiler's load window: the same kernel then predicts what the mv-opt descriptor does.
  const GpuWorkloadFile chained = parse_gpu_workload(
      "perfmodel_workload: 1\nkernels:\n  - {grid: [128], block: [32], read_bytes: 67108864, loads_in_flight: 32,\n"
      "     loads_issued_together: true, latency_chain: {dram_loads: 128, l1_loads: 4096}}\n",
      "c.yaml", g);
  const GpuPhase& cp = chained.workload.phases[0];
  EXPECT_TRUE(cp.loads_issued_together);
  EXPECT_EQ(cp.chain_dram_loads, 128);
  EXPECT_EQ(cp.chain_l1_loads, 4096);
  EXPECT_EQ(cp.chain_l2_loads, 0);
  const GpuPrediction with_chain = predict_gpu(g, chained.workload);
  EXPECT_NEAR(with_chain.chain_s, 128 * g.latency->dram_s + 4096 * g.latency->l1_s, 1e-12);
  auto error_of = [&](const std::string& text) {
    try {
      parse_gpu_workload(text, "w.yaml", g);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("perfmodel_workload: 2\nkernels: []\n").find("schema"), std::string::npos);
  const std::string typo = error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], read_byte: 4}\n");
  EXPECT_NE(typo.find("w.yaml:3"), std::string::npos) << typo;
  EXPECT_NE(typo.find("read_byte"), std::string::npos) << typo;
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [2048]}\n").find("1024"), std::string::npos);
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], read_bytes: -4}\n").find("read_bytes"),
            std::string::npos);
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], access: diagonal}\n").find("diagonal"),
            std::string::npos);
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], latency_chain: {l3_loads: 2}}\n").find("l3_loads"),
            std::string::npos);
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], latency_chain: {fma: -1}}\n").find("fma"),
            std::string::npos);
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], loads_issued_together: maybe}\n")
                .find("loads_issued_together"),
            std::string::npos);
}

// The datasheet's dense tensor rates per SM and clock, at the reported clock: H100 SXM's
// 989 Tflop/s FP16 is 4096 flop per SM per clock at 1.83 GHz.
TEST(GpuDevice, TensorPeaksFollowTheDatasheetPerClockRates) {
  GpuDeviceInfo d = h100();
  d.compute_capability_major = 9, d.compute_capability_minor = 0, d.sm_clock_hz = 1.83e9;
  EXPECT_NEAR(d.theoretical_tensor_ops("tensor_fp16") / 1e12, 989.4, 0.5);
  EXPECT_EQ(d.theoretical_tensor_ops("tensor_bf16"), d.theoretical_tensor_ops("tensor_fp16"));
  EXPECT_NEAR(d.theoretical_tensor_ops("tensor_tf32") / 1e12, 494.7, 0.5);
  EXPECT_NEAR(d.theoretical_tensor_ops("tensor_fp8") / 1e12, 1978.9, 1.0);
  EXPECT_EQ(d.theoretical_tensor_ops("fp32"), 0.0);
  d.compute_capability_major = 7;  // an architecture the table does not know: no datasheet value, not a guess
  EXPECT_EQ(d.theoretical_tensor_ops("tensor_fp16"), 0.0);
}
