// The task-farm predictor (predictors/farm.hpp): hand-computed pipelines, the predictor on the
// bundled profile, the gpu.streams section (fit, profile round trip), the recorded-run analysis and
// the CLI (formats, bad input). No GPU, no timing assertions.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/farm.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/stream_calibration.hpp"
#include "perfmodel/predictors/farm.hpp"
#include "perfmodel/validate/farm.hpp"

using namespace perfmodel;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;
const std::string kBundled = kData + "/profiles/nvidia-h100-80gb-hbm3.yaml";
// The recorded farm runs the re-analysis tests hold to their errors (docs/farm.md). Ceilings: the
// errors at the last model change + 1 percentage point; floors: the best-S checks it passed. That
// change (a compiled count's integer instructions at the integer rate: the blur tasks' kernels; a
// pageable copy in of at most 64 KiB returned once staged; before them, in parentheses)
// re-analysed every run below with the profile it was predicted from.
// The farm cases of 2026-11-26 on GPU-5355697b predicted from the GPU-a8fb659b calibration (they
// chose the chain, farm_blur's count and the headroom rule): mean 9.6 % (12.7), p90 29.8 % (30.4), 9 of 11;
const std::string kA8Profile = kData + "/profiles/other/2026-11-26-h100-a8fb659b/nvidia-h100-80gb-hbm3.yaml";
const std::string kA8FarmRun = kData + "/validation/2026-11-26-h100-a8fb659b/farm";
constexpr double kA8MeanErrorCeiling = 0.106, kA8P90ErrorCeiling = 0.308;
constexpr int kA8BestWithinFloor = 9;
// the same GPU's holdout cases, mean 12.5 % (15.2), p90 39.2 % (39.1), 8 of 9 (6);
const std::string kA8HoldoutRun = kData + "/validation/2026-11-26-h100-a8fb659b/farm-holdout";
constexpr double kA8HoldoutMeanErrorCeiling = 0.135, kA8HoldoutP90ErrorCeiling = 0.402;
constexpr int kA8HoldoutBestWithinFloor = 8;
// Runs predicted from the then bundled profile (GPU 110d06eb, 2026-11-23, with the gpu.streams
// measured on GPU-3910abed in the in-sample run) re-analyse from its copy under profiles/other/: a
// later bundled profile leaves these records alone.
// The H100 80GB HBM3 run of 2026-11-26 on GPU-3910abed (it chose the copy stage, the waves and the
// queue limit): mean 6.7 % (9.3), p90 20.1 % (23.0), 9 of 11;
const std::string kRecordedRunProfile = kData + "/profiles/other/2026-11-23-h100-110d06eb/nvidia-h100-80gb-hbm3.yaml";
const std::string kRecordedFarmRun = kData + "/validation/nvidia-h100-80gb-hbm3-farm";
constexpr double kRecordedMeanErrorCeiling = 0.077, kRecordedP90ErrorCeiling = 0.211;
constexpr int kRecordedBestWithinFloor = 9;
// the holdout cases of 2026-11-26 on GPU-92e6119c: mean 8.5 % (10.7), p90 28.9 % (28.8), 9 of 9;
const std::string kRecordedHoldoutRun = kData + "/validation/nvidia-h100-80gb-hbm3-farm-holdout";
constexpr double kHoldoutMeanErrorCeiling = 0.095, kHoldoutP90ErrorCeiling = 0.299;
constexpr int kHoldoutBestWithinFloor = 9;
// the farm cases of 2026-11-27 on GPU a07c6e1d, with that machine's fresh gpu.streams merged in (it
// chose the bidirectional rate): mean 8.0 % (10.9), p90 27.7 % (24.9: blur 512² at two streams,
// whose longer kernel puts it +33 % over, was +15 %), 7 of 11;
const std::string kA07Streams = kData + "/profiles/runs/2026-11-27-h100-a07c6e1d-streams/nvidia-h100-80gb-hbm3.streams.yaml";
const std::string kA07FarmRun = kData + "/validation/2026-11-27-h100-a07c6e1d/farm";
constexpr double kA07MeanErrorCeiling = 0.090, kA07P90ErrorCeiling = 0.287;
constexpr int kA07BestWithinFloor = 7;
// and its holdout cases (the 2026-11-23 profile as bundled): mean 6.7 % (8.9), p90 18.6 % (22.2), 7 of 9.
const std::string kA07HoldoutRun = kData + "/validation/2026-11-27-h100-a07c6e1d/farm-holdout";
constexpr double kA07HoldoutMeanErrorCeiling = 0.077, kA07HoldoutP90ErrorCeiling = 0.196;
constexpr int kA07HoldoutBestWithinFloor = 7;

struct Result {
  int code;
  std::string out, err;
};
Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

FarmPipeline pipeline(double h, double in, double ker, double out) {
  FarmPipeline p;
  p.issue_s = h, p.h2d_s = in, p.kernel_s = ker, p.d2h_s = out;
  p.full_gpu_s = 0, p.kernel_slots = 128, p.queues = 8, p.link_factor = 0.5;
  return p;
}

const Profile& bundled() {
  static const Profile p = load_profile(kBundled);
  return p;
}

}  // namespace

// ------------------------------------------------------------------ the schedule by hand
TEST(FarmSchedule, OneStreamIsTheSerialSumOfTheStages) {
  // h = 1 µs, in 10, kernel 100, out 20: one stream runs task after task; the first waits h.
  const FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  const FarmSchedule s = schedule_farm(p, 50, 1);
  EXPECT_NEAR(s.completion_s, 1e-6 + 50 * 130e-6, 1e-12);
  EXPECT_EQ(s.bound, "per-stream latency");
  EXPECT_NEAR(s.service_s, 130e-6, 1e-15);
  EXPECT_NEAR(s.first_task_s, 131e-6, 1e-12);
}

TEST(FarmSchedule, KernelDominantStreamsFillThenRunTheirTasksBackToBack) {
  // Kernel 1 ms, copies 10 µs, 4 streams and 4 slots: each stream runs its tasks one after another,
  // so T_s = (t_in + t_ker + t_out) / 4 (just above t_ker / 4: the kernel slots would allow more).
  FarmPipeline p = pipeline(1e-6, 10e-6, 1e-3, 10e-6);
  p.kernel_slots = 4;
  const long long L = 40;
  const FarmSchedule s = schedule_farm(p, L, 4);
  EXPECT_EQ(s.bound, "per-stream latency");
  EXPECT_NEAR(s.service_s, 1.02e-3 / 4, 1e-15);
  // Task 3 (the fourth stream's first) starts its copy-in at 1 + 3·10 µs behind the others on the
  // H2D engine; each stream then runs its ten tasks one after another.
  const double per_stream = 10e-6 + 1e-3 + 10e-6;
  EXPECT_NEAR(s.completion_s, 1e-6 + 3 * 10e-6 + 10 * per_stream, 1e-9);
  // Cecconi's Eq 3.5: T_seq / n_w plus the overhead (here the stagger of the first copy-ins).
  EXPECT_NEAR(s.completion_s, L * s.service_s + 31e-6, 1e-9);
}

TEST(FarmSchedule, MoreStreamsThanCopyEnginesLeavesTheCopiesBound) {
  // Copies of 100 µs each way against a 10 µs kernel: with 2 or 64 streams the two engines bound
  // the stream at κ·(t_in + t_out) = 100 µs per task (κ = 1/2: full duplex).
  const FarmPipeline p = pipeline(1e-6, 100e-6, 10e-6, 100e-6);
  const long long L = 100;
  for (long long S : {3LL, 8LL, 64LL}) {  // (two streams: each stream's cycle, 210 µs / 2, binds)
    const FarmSchedule s = schedule_farm(p, L, S);
    EXPECT_NEAR(s.service_s, 100e-6, 1e-12) << S;
    EXPECT_TRUE(s.bound == "H2D" || s.bound == "copy link") << s.bound;
    // Every copy-in back to back, then the last kernel and copy-out.
    EXPECT_NEAR(s.completion_s, 1e-6 + L * 100e-6 + 10e-6 + 100e-6, 1e-9) << S;
  }
}

TEST(FarmSchedule, HalfDuplexLinkMakesBothDirectionsShareIt) {
  FarmPipeline p = pipeline(1e-6, 100e-6, 10e-6, 100e-6);
  p.link_factor = 1;  // one link for both directions: a task's two copies cannot overlap another's
  const FarmSchedule s = schedule_farm(p, 100, 8);
  EXPECT_EQ(s.bound, "copy link");
  EXPECT_NEAR(s.service_s, 200e-6, 1e-12);
  EXPECT_NEAR(s.completion_s / (100 * 200e-6), 1.0, 0.02);
}

TEST(FarmSchedule, TooFewKernelSlotsBoundTheKernels) {
  // Two slots (say two task-grids fit the GPU at once) for eight streams: T_s = t_ker / 2.
  FarmPipeline p = pipeline(1e-6, 10e-6, 1e-3, 10e-6);
  p.kernel_slots = 2;
  const FarmSchedule s = schedule_farm(p, 40, 8);
  EXPECT_EQ(s.bound, "kernel slots");
  EXPECT_NEAR(s.service_s, 0.5e-3, 1e-15);
  EXPECT_NEAR(s.completion_s / (10e-6 + 20 * 1e-3 + 10e-6), 1.0, 0.01);
}

TEST(FarmSchedule, TheHostBoundsShortTasks) {
  const FarmPipeline p = pipeline(10e-6, 1e-6, 5e-6, 1e-6);
  const FarmSchedule s = schedule_farm(p, 1000, 16);
  EXPECT_EQ(s.bound, "host issue");
  EXPECT_NEAR(s.completion_s, 1000 * 10e-6 + 1e-6 + 5e-6 + 1e-6, 1e-9);
}

TEST(FarmSchedule, StreamsSharingAWorkQueueSerialiseBehindTheirCopyOut) {
  // 16 streams over 2 queues: a queue takes its next task's copy-in only after its previous kernel.
  FarmPipeline p = pipeline(0.1e-6, 1e-6, 100e-6, 1e-6);
  p.queues = 2;
  const FarmSchedule s = schedule_farm(p, 64, 16);
  EXPECT_EQ(s.bound, "work queues");
  EXPECT_NEAR(s.service_s, 101e-6 / 2, 1e-12);
  EXPECT_GT(s.completion_s, 64 * 100e-6 / 2);
  // The same with enough queues runs 16 kernels at once.
  p.queues = 16;
  EXPECT_LT(schedule_farm(p, 64, 16).completion_s, s.completion_s / 4);
}

TEST(FarmSchedule, TheFullGpuRateIsAFloor) {
  FarmPipeline p = pipeline(0.1e-6, 1e-6, 100e-6, 1e-6);
  p.full_gpu_s = 20e-6;  // 128 slots would allow 100/128 µs per task; the GPU only 20
  const FarmSchedule s = schedule_farm(p, 500, 128);
  EXPECT_EQ(s.bound, "GPU throughput");
  EXPECT_NEAR(s.completion_s / (500 * 20e-6), 1.0, 0.05);
}

TEST(FarmSchedule, MoreStreamsThanResidentGridsRunInWaves) {
  // 264 one-block tasks of 1 ms, 128 resident grids, 264 streams: three waves (128, 128, 8).
  FarmPipeline p = pipeline(0.1e-6, 1e-6, 1e-3, 1e-6);
  p.full_gpu_s = 1e-6, p.queues = 0;  // no work-queue limit
  const FarmSchedule s = schedule_farm(p, 264, 264);
  EXPECT_EQ(s.bound, "kernel slots");
  EXPECT_NEAR(s.service_s, 3e-3 / 264, 1e-15);
  EXPECT_NEAR(s.completion_s / 3e-3, 1.0, 0.01);
}

TEST(FarmSchedule, KernelsResidentTogetherShareTheGpu) {
  // Each group of 128 kernels needs 128 · 20 µs = 2.56 ms of the GPU (more than one kernel's 1 ms
  // alone); the last group of 8 runs at its own speed: 2 × 2.56 ms + 1 ms.
  FarmPipeline p = pipeline(0.1e-6, 1e-6, 1e-3, 1e-6);
  p.full_gpu_s = 20e-6, p.queues = 0;
  const FarmSchedule s = schedule_farm(p, 264, 264);
  EXPECT_EQ(s.bound, "GPU throughput");
  EXPECT_NEAR(s.service_s, (2 * 2.56e-3 + 1e-3) / 264, 1e-12);
  EXPECT_NEAR(s.completion_s / (2 * 2.56e-3 + 1e-3), 1.0, 0.01);
  // Tasks the host issues slower than they run do not share: 10 µs apart, a 1 ms kernel meets
  // about 100 others, not 128.
  p.issue_s = 10e-6;
  const FarmSchedule sparse = schedule_farm(p, 264, 264);
  EXPECT_LT(sparse.completion_s, s.completion_s);
}

TEST(FarmSchedule, TheQueueLimitIsWhatTheHostIssueDoesNotExplain) {
  // gpu.streams.concurrency with 1 ms spins, the host issuing a task per 10 µs: 512 tasks over
  // 128 streams take 512 · 10 µs + 1 ms (a plateau of 86 kernels at once) — host issue, no queues.
  StreamCalibration c;
  c.issue_s = 10e-6, c.spin_s = 1e-3;
  c.concurrency.columns = {"streams", "tasks", "seconds", "concurrency"};
  for (double S : {1.0, 8.0, 32.0, 128.0}) {
    const double L = std::max(16.0, 4 * S);
    const double t = std::max(L / S * 1e-3, L * 10e-6 + 1e-3);
    c.concurrency.rows.push_back({S, L, t, L * 1e-3 / t});
  }
  EXPECT_EQ(observed_queue_limit(c, 128), 0);
  // The same with the times of 8 queues beyond 8 streams (S/8 times longer): the limit is 8.
  for (auto& row : c.concurrency.rows)
    if (row[0] > 8) row[2] *= row[0] / 8;
  EXPECT_EQ(observed_queue_limit(c, 128), 8);
  // Where the calibration kept each row's host time, the row is explained at that rate: the same
  // slow rows issued by a host at 10 µs a task are a limit of 8; issued at the rate that explains
  // them (its time less the last spin), they are the host's, and no limit is seen.
  c.concurrency.columns.push_back("host_s");
  for (auto& row : c.concurrency.rows) row.push_back(row[1] * 10e-6);
  EXPECT_EQ(observed_queue_limit(c, 128), 8);
  for (auto& row : c.concurrency.rows)
    if (row[0] > 8) row[4] = row[2] - 1e-3;
  EXPECT_EQ(observed_queue_limit(c, 128), 0);
}

TEST(FarmSchedule, OneStreamsChainPaysItsHandOffsOncePerTask) {
  // h = 1 µs, in 10, kernel 100, out 20, and δ = 9 µs of hand-offs before a stream's next copy-in:
  // one stream runs a task per 139 µs (the per-stream latency), the last task without its δ.
  FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  p.chain_s = 9e-6;
  const FarmSchedule s = schedule_farm(p, 50, 1);
  EXPECT_NEAR(s.completion_s, 1e-6 + 50 * 130e-6 + 49 * 9e-6, 1e-12);
  EXPECT_EQ(s.bound, "per-stream latency");
  EXPECT_NEAR(s.service_s, 139e-6, 1e-15);
  // Two streams hide it behind each other's copies and kernels: (130 + 9) / 2 per task.
  EXPECT_NEAR(schedule_farm(p, 50, 2).service_s, 69.5e-6, 1e-15);
  // Where the host binds, δ is hidden altogether.
  FarmPipeline host = pipeline(10e-6, 1e-6, 5e-6, 1e-6);
  host.chain_s = 9e-6;
  EXPECT_NEAR(schedule_farm(host, 1000, 16).completion_s, 1000 * 10e-6 + 7e-6, 1e-9);
}

TEST(FarmSchedule, MoreStreamsThanTasksIsTheSameAsOneStreamPerTask) {
  const FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  EXPECT_DOUBLE_EQ(schedule_farm(p, 5, 64).completion_s, schedule_farm(p, 5, 5).completion_s);
}

TEST(FarmSchedule, ZeroTasksOrStreamsAreInputErrors) {
  const FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  EXPECT_THROW(schedule_farm(p, 0, 4), InputError);
  EXPECT_THROW(schedule_farm(p, 10, 0), InputError);
  EXPECT_THROW(serial_farm_s(p, 0), InputError);
}

TEST(FarmSchedule, SerialLoopAddsTheSynchronisationGapPerTask) {
  FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  p.serial_gap_s = 15e-6;
  EXPECT_NEAR(serial_farm_s(p, 10), 10 * 145e-6, 1e-12);
  // and the copy-out's wait for the running kernel, once per task: 10 · (145 + 6) µs
  p.kernel_wait_s = 6e-6;
  EXPECT_NEAR(serial_farm_s(p, 10), 10 * 151e-6, 1e-12);
}

TEST(FarmSchedule, EachRoundATaskWaitsForTheOtherStreamsLaunches) {
  // Chain-bound: t_in = 10, t_ker = 100, t_out = 20 µs, δ = 0, host 1 µs; q = 2 µs per launch.
  // At S streams each stream's round is 130 + (min(S, C) − 1)·2 µs: per task (130 + 2)/2 = 66 µs at
  // S = 2, (130 + 6)/4 = 34 µs at S = 4; with C = 3 connections S = 4 waits for 2 others only.
  FarmPipeline p = pipeline(1e-6, 10e-6, 100e-6, 20e-6);
  p.link_factor = 0;  // no shared-link floor: the chains bind
  p.handoff_s = 2e-6;
  p.connections = 8;
  EXPECT_NEAR(p.round_wait_s(1), 0, 1e-15);
  EXPECT_NEAR(p.round_wait_s(4), 6e-6, 1e-15);
  EXPECT_NEAR(p.round_wait_s(64), 14e-6, 1e-15);  // at most C − 1 = 7 others
  const FarmSchedule two = schedule_farm(p, 200, 2);
  EXPECT_EQ(two.bound, "per-stream latency");
  EXPECT_NEAR(two.service_s, 66e-6, 1e-12);
  // Stream 0's first task: copy-in 1–11, kernel 11–111, copy-out 111–131 µs. Stream 1's queues
  // behind it at both engines: copy-in 11–21, kernel 21–121, copy-out 131–151 µs. Then each stream
  // takes a round of 130 + 2 µs: stream 1's 100th task ends at 151 + 99·132 µs.
  EXPECT_NEAR(two.completion_s, 151e-6 + 99 * 132e-6, 1e-10);
  EXPECT_NEAR(schedule_farm(p, 200, 4).service_s, 34e-6, 1e-12);
  p.connections = 3;
  EXPECT_NEAR(schedule_farm(p, 200, 4).service_s, (130e-6 + 4e-6) / 4, 1e-12);
  // One stream never waits for another.
  p.handoff_s = 0;
  const double alone = schedule_farm(p, 200, 1).completion_s;
  p.handoff_s = 2e-6;
  EXPECT_DOUBLE_EQ(schedule_farm(p, 200, 1).completion_s, alone);
}

TEST(FarmSchedule, ACopyBesideTheOtherDirectionsTakesTheBidirectionalRate) {
  // Copies only: t_in = 10 µs, t_out = 5 µs, host and kernel negligible, 100 tasks on 8 streams.
  // Measured sharing: r = 1, κ·(t_in + t_out) = 9 µs (the pair at the mean size), ρ = 1.2: the H2D
  // engine's floor is max(9, 1.2 · 10) = 12 µs a copy, the D2H engine's max(9, 1.2 · 5) = 9 µs.
  FarmPipeline p = pipeline(1e-9, 10e-6, 1e-9, 5e-6);
  p.kernel_slots = 128;
  FarmPipeline::Sharing x;
  x.streams = 1, x.h2d_ratio = 1, x.d2h_ratio = 1, x.link_factor = 9.0 / 15.0, x.bidir_slowdown = 1.2;
  p.sharing = {x};
  const FarmSchedule s = schedule_farm(p, 100, 8);
  EXPECT_NEAR(s.service_s, 12e-6, 1e-12);
  EXPECT_EQ(s.bound, "copy link");
  // The H2D engine starts a copy every 12 µs: the last copy-in ends 99 · 12 + 10 µs after the
  // first host call, its kernel and copy-out follow.
  EXPECT_NEAR(s.completion_s, 1e-9 + 99 * 12e-6 + 10e-6 + 1e-9 + 5e-6, 1e-10);
  // Without ρ (not measured) the pair's 9 µs binds, as before.
  p.sharing.front().bidir_slowdown = 0;
  EXPECT_NEAR(schedule_farm(p, 100, 8).service_s, 10e-6, 1e-12);  // (the H2D copy's own 10 µs then)
  EXPECT_EQ(schedule_farm(p, 100, 8).bound, "H2D");
}

// ------------------------------------------------------------------ tasks and descriptors
TEST(FarmTasks, BytesBlocksAndTheCosineCountFollowM) {
  const FarmTask cos{FarmApp::cosine, 2048, 400};
  EXPECT_EQ(cos.bytes_in(), 8192);
  EXPECT_EQ(cos.blocks(), 2);
  const GpuWorkload w = describe_farm_task(cos, {}, 50e6);
  EXPECT_EQ(w.phases.at(0).special_calls, 400.0 * 2048);
  EXPECT_EQ(w.phases.at(0).chain_cosf, 400);
  EXPECT_EQ(w.phases.at(0).name, "farm_cosine");
  const FarmTask mm{FarmApp::matmul, 100, 0};
  EXPECT_EQ(mm.bytes_in(), 8 * 100 * 100);
  EXPECT_EQ(mm.bytes_out(), 4 * 100 * 100);
  EXPECT_EQ(mm.blocks(), 16);
  const GpuWorkload b = describe_farm_batch(mm, 10, {}, 50e6);
  EXPECT_EQ(b.phases.at(0).blocks(), 160);
  EXPECT_DOUBLE_EQ(b.flops, 10 * describe_farm_task(mm, {}, 50e6).flops);
  // One cosine task's launch is as long as its fullest block: 1536 floats run 32 busy warps on one
  // SM, 16 on another; alone it counts two blocks of 32, in a many-task launch its real 48.
  const FarmTask c1536{FarmApp::cosine, 1536, 400};
  const GpuPhase alone = describe_farm_task(c1536, {}, 50e6).phases.at(0);
  const GpuPhase shared = describe_farm_batch(c1536, 1, {}, 50e6).phases.at(0);
  EXPECT_DOUBLE_EQ(alone.warp_instructions, shared.warp_instructions * 64 / 48);
  EXPECT_DOUBLE_EQ(alone.special_calls, 400.0 * 2048);
  EXPECT_DOUBLE_EQ(shared.special_calls, 400.0 * 1536);
  EXPECT_DOUBLE_EQ(describe_farm_task(cos, {}, 50e6).phases.at(0).warp_instructions,
                   describe_farm_batch(cos, 1, {}, 50e6).phases.at(0).warp_instructions);
  // farm_blur's compiled loop redoes the task offset at every window pixel: 394 instructions per
  // window column of 11 against blur_kernel's 261, per warp 121 · 394 / 11 + 60.
  const FarmTask blur{FarmApp::blur, 64, 0};
  const double warps = 64 * 64 / 32;
  EXPECT_NEAR(describe_farm_task(blur, {}, 50e6).phases.at(0).warp_instructions, warps * (121 * 394.0 / 11 + 60), 1e-6);
  EXPECT_NEAR(describe_gpu_kernel("blur", 64, {1024, 1, 0}, {}, 50e6).phases.at(0).warp_instructions, warps * (121 * 261.0 / 11 + 60),
              1e-6);
  // Their integer shares (Nsight Compute's instruction mix): farm_blur's own 74.9 %, blur_kernel's
  // 72.4 %; the cosine task keeps the reference loop's, and a batch of L tasks carries L times each.
  const GpuPhase fb = describe_farm_task(blur, {}, 50e6).phases.at(0);
  EXPECT_NEAR(fb.integer_warp_instructions, 0.749 * fb.warp_instructions, 1e-6);
  const GpuPhase rb = describe_gpu_kernel("blur", 64, {1024, 1, 0}, {}, 50e6).phases.at(0);
  EXPECT_NEAR(rb.integer_warp_instructions, 0.724 * rb.warp_instructions, 1e-6);
  const GpuPhase rc = describe_gpu_kernel("cosine", 1024, {1024, 1, 0}, {}, 50e6).phases.at(0);
  ASSERT_GT(rc.integer_warp_instructions, 0);
  EXPECT_NEAR(alone.integer_warp_instructions / alone.warp_instructions, rc.integer_warp_instructions / rc.warp_instructions, 1e-12);
  EXPECT_NEAR(describe_farm_batch(blur, 7, {}, 50e6).phases.at(0).integer_warp_instructions, 7 * fb.integer_warp_instructions, 1e-6);
  EXPECT_NE(farm_task_problem({FarmApp::cosine, 1024, 0}), "");
  EXPECT_NE(farm_task_problem({FarmApp::matmul, 0, 0}), "");
  EXPECT_NE(farm_task_problem({FarmApp::blur, 64, 5}), "");
  EXPECT_EQ(farm_task_problem({FarmApp::blur, 64, 0}), "");
}

// ------------------------------------------------------------------ the predictor on the bundled profile
TEST(FarmPredictor, WithoutTheStreamsSectionItSaysWhatItAssumes) {
  Profile without = bundled();
  without.gpu->streams.reset();
  const FarmPredictor p(without, FarmSetup::built_in({FarmApp::cosine, 1024, 10000}, 264, HostMemory::pinned));
  bool default_connections = false;
  for (const std::string& a : p.assumptions())
    default_connections = default_connections || a.find("documented default, not a measurement") != std::string::npos;
  EXPECT_TRUE(default_connections);
  EXPECT_EQ(p.pipeline().queues, 8);
  // Speedups: S = 0 is the reference; no S beats #SM times it for one-block tasks (Eq 5.9).
  EXPECT_DOUBLE_EQ(p.predict(0).speedup_vs_serial, 1.0);
  for (int s : farm_stream_sweep(132)) EXPECT_LE(p.predict(s).speedup_vs_serial, p.sm_bound() + 1e-9) << s;
  // A compute-heavy task gains from streams.
  EXPECT_GT(p.predict(8).speedup_vs_serial, 4);
  // Given connections override the default.
  const FarmPredictor q(without, FarmSetup::built_in({FarmApp::cosine, 1024, 10000}, 264, HostMemory::pinned, 32));
  EXPECT_EQ(q.pipeline().queues, 32);
  EXPECT_LT(q.predict(32).completion_s, p.predict(32).completion_s);
}

TEST(FarmPredictor, PageableMemorySerialisesEveryStreamCount) {
  const FarmPredictor p(bundled(), FarmSetup::built_in({FarmApp::blur, 128, 0}, 100, HostMemory::pageable));
  EXPECT_DOUBLE_EQ(p.predict(1).completion_s, p.predict(64).completion_s);
  EXPECT_EQ(p.predict(8).bound, "pageable copies (serialised)");
}

TEST(FarmPredictor, ATaskWhoseKernelCannotLaunchIsAnInputError) {
  ResourceTable heavy;
  heavy["farm_cosine"] = {255, 0, 1024};  // 255 registers × 1024 threads: no SM holds the block
  try {
    FarmPredictor(bundled(), FarmSetup::built_in({FarmApp::cosine, 1024, 100}, 10, HostMemory::pinned, {}, heavy));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot launch"), std::string::npos) << e.what();
  }
  EXPECT_THROW(FarmPredictor(bundled(), FarmSetup::built_in({FarmApp::cosine, 1024, 100}, 0, HostMemory::pinned)), InputError);
}

TEST(FarmPredictor, BestStreamsIsTheFirstFastWithHeadroom) {
  // Among the S within 5 % of the least predicted time, the first whose streams' chains take at most
  // half the binding stage's time: (t_in + t_ker + t_out + δ) / S ≤ T_s / 2.
  for (const FarmTask& task : {FarmTask{FarmApp::matmul, 128, 0}, FarmTask{FarmApp::matmul, 32, 0}, FarmTask{FarmApp::blur, 64, 0}}) {
    const FarmPredictor p(bundled(), FarmSetup::built_in(task, 528, HostMemory::pinned));
    const std::vector<int> sweep = farm_stream_sweep(132);
    const int best = p.best_streams(sweep);
    double least = 0;
    for (int s : sweep) least = least == 0 ? p.predict(s).completion_s : std::min(least, p.predict(s).completion_s);
    EXPECT_LE(p.predict(best).completion_s, least * 1.05) << task.label();
    const FarmPipeline& f = p.pipeline();
    const double chain = f.h2d_s + f.kernel_s + f.d2h_s + f.chain_s;
    EXPECT_LE(chain / best, 0.5 * p.predict(best).service_s) << task.label();
    for (int s : sweep) {
      if (s > 0 && s < best && p.predict(s).completion_s <= least * 1.05) {
        EXPECT_GT(chain / s, 0.5 * p.predict(s).service_s) << s;
      }
    }
    EXPECT_GT(best, 1) << task.label();
  }
}

TEST(FarmPredictor, OneStreamsChainIsWhatItsMeasuredRowAddsBeyondTheCopies) {
  // δ = T(1 stream)/L − spin − (t_in(4 B) + q + t_out(4 B)) from gpu.streams.concurrency: 5 µs
  // more per task in that row is 5 µs more δ, and nothing else moves.
  const FarmSetup setup = FarmSetup::built_in({FarmApp::matmul, 64, 0}, 1056, HostMemory::pinned);
  Profile slower = bundled();
  auto& rows = slower.gpu->streams->concurrency.rows;
  ASSERT_EQ(rows.front()[0], 1);
  rows.front()[2] += rows.front()[1] * 5e-6;
  const FarmPredictor p(bundled(), setup), q(slower, setup);
  EXPECT_NEAR(q.pipeline().chain_s - p.pipeline().chain_s, 5e-6, 1e-12);
  EXPECT_DOUBLE_EQ(q.pipeline().h2d_s, p.pipeline().h2d_s);
  // At one stream each task pays it: T(1) grows by (L − 1) · 5 µs.
  EXPECT_NEAR(q.predict(1).completion_s - p.predict(1).completion_s, 1055 * 5e-6, 1e-9);
  // The 2026-11-23 profile's small copies (one curve for both modes, 9–10 µs) already hold more
  // than its one-stream row shows (negative δ); the GPU-a8fb659b calibration's stream copies
  // (2.4 µs) leave the hand-offs (about 8.5 µs a task).
  EXPECT_LT(FarmPredictor(load_profile(kRecordedRunProfile), setup).pipeline().chain_s, 0);
  const FarmPredictor a8(load_profile(kA8Profile), setup);
  EXPECT_GT(a8.pipeline().chain_s, 5e-6);
  EXPECT_LT(a8.pipeline().chain_s, 12e-6);
}

TEST(FarmPredictor, AKernelStartsWhereItsFirstBlocksFit) {
  // 2 blocks of 1024 threads per SM on 132 SMs: 264 block slots. A task of 144 blocks (blur 384²)
  // leaves room for the first 120 blocks of the next: two resident, sharing the GPU; 64 blocks
  // (matmul 256²): five; one block (cosine 1024): CUDA's 128 resident grids.
  const auto slots = [](const FarmTask& t) {
    return FarmPredictor(bundled(), FarmSetup::built_in(t, 200, HostMemory::pinned)).pipeline().kernel_slots;
  };
  EXPECT_EQ(slots({FarmApp::blur, 384, 0}), 2);
  EXPECT_EQ(slots({FarmApp::blur, 512, 0}), 2);
  EXPECT_EQ(slots({FarmApp::matmul, 256, 0}), 5);
  EXPECT_EQ(slots({FarmApp::cosine, 1024, 1000}), 128);
}

TEST(FarmPredictor, TheSerialLoopsCopyOutWaitsForTheRunningKernel) {
  // w = gpu.launch.launch_sync_s − empty_kernel_s, once per task of the pinned serial loop and once
  // for the data-parallel reference; the streams do not pay it, and a pageable task whose copy in
  // is at most 64 KiB (returned once staged) saves it: its round trip overlaps the task.
  const FarmSetup setup = FarmSetup::built_in({FarmApp::matmul, 64, 0}, 100, HostMemory::pinned);
  const LaunchCalibration& launch = *bundled().gpu->launch;
  const FarmPredictor p(bundled(), setup);
  EXPECT_NEAR(p.pipeline().kernel_wait_s, launch.launch_sync_s - launch.empty_kernel_s, 1e-15);
  EXPECT_GT(p.pipeline().kernel_wait_s, 0);
  const FarmPipeline& f = p.pipeline();
  EXPECT_NEAR(p.serial_s(), 100 * (f.h2d_s + f.kernel_s + f.d2h_s + f.serial_gap_s + f.kernel_wait_s), 1e-12);
  Profile no_wait = bundled();
  no_wait.gpu->launch->launch_sync_s = no_wait.gpu->launch->empty_kernel_s;  // w = 0
  const FarmPredictor q(no_wait, setup);
  EXPECT_EQ(q.pipeline().kernel_wait_s, 0);
  EXPECT_NEAR(p.serial_s() - q.serial_s(), 100 * f.kernel_wait_s, 1e-12);
  EXPECT_NEAR(p.data_parallel_s() - q.data_parallel_s(), f.kernel_wait_s, 1e-12);
  EXPECT_DOUBLE_EQ(p.predict(8).completion_s, q.predict(8).completion_s);
  const FarmSetup pageable = FarmSetup::built_in({FarmApp::matmul, 64, 0}, 100, HostMemory::pageable);  // 32 KiB in
  EXPECT_NEAR(FarmPredictor(no_wait, pageable).predict(4).completion_s - FarmPredictor(bundled(), pageable).predict(4).completion_s,
              100 * f.kernel_wait_s, 1e-12);
  const FarmSetup large = FarmSetup::built_in({FarmApp::matmul, 128, 0}, 100, HostMemory::pageable);  // 128 KiB in
  EXPECT_DOUBLE_EQ(FarmPredictor(bundled(), large).predict(4).completion_s, FarmPredictor(no_wait, large).predict(4).completion_s);
}

TEST(FarmPredictor, TheRoundWaitIsTheQueuedLaunchCostUpToTheConnections) {
  // q = gpu.launch.queued.kernel_s (one kernel a task), C = CUDA_DEVICE_MAX_CONNECTIONS: the
  // profile's (unset: the runtime's 8) or --connections.
  const FarmSetup setup = FarmSetup::built_in({FarmApp::matmul, 128, 0}, 528, HostMemory::pinned);
  const FarmPredictor p(bundled(), setup);
  ASSERT_TRUE(bundled().gpu->launch->queued.has_value());
  EXPECT_DOUBLE_EQ(p.pipeline().handoff_s, bundled().gpu->launch->queued->kernel_s);
  EXPECT_EQ(p.pipeline().connections, 8);
  EXPECT_NEAR(p.pipeline().round_wait_s(264), 7 * p.pipeline().handoff_s, 1e-15);
  const FarmPredictor q(bundled(), FarmSetup::built_in({FarmApp::matmul, 128, 0}, 528, HostMemory::pinned, 2));
  EXPECT_EQ(q.pipeline().connections, 2);
  EXPECT_NEAR(q.pipeline().round_wait_s(264), q.pipeline().handoff_s, 1e-15);
}

TEST(FarmPredictor, TheBidirectionalSlowdownIsThePairOverTheCopyAtTheLargestSize) {
  // ρ(S) = bidir_s_per_pair / h2d_s_per_copy at the largest bytes gpu.streams.copies measured at S
  // streams (1 MiB): the bundled profile's rows, read back by hand.
  const FarmPredictor p(bundled(), FarmSetup::built_in({FarmApp::matmul, 256, 0}, 264, HostMemory::pinned));
  const NumericTable& t = bundled().gpu->streams->copies;
  const std::size_t cs = t.column("streams"), cb = t.column("bytes"), ch = t.column("h2d_s_per_copy"), cp = t.column("bidir_s_per_pair");
  int checked = 0;
  for (const FarmPipeline::Sharing& x : p.pipeline().sharing)
    for (const auto& row : t.rows)
      if (row[cs] == x.streams && row[cb] == 1048576) {
        // At one stream the pair's copies share the stream and run one after the other: no ρ.
        EXPECT_NEAR(x.bidir_slowdown, x.streams >= 2 ? row[cp] / row[ch] : 0.0, 1e-12) << x.streams;
        if (x.streams >= 2) {
          EXPECT_GT(x.bidir_slowdown, 1.0);
          EXPECT_LT(x.bidir_slowdown, 1.3);
        }
        ++checked;
      }
  EXPECT_EQ(checked, 4);  // 1, 2, 4 and 8 streams
}

// ------------------------------------------------------------------ gpu.streams: fit and profile round trip
namespace {
GpuSampleFile synthetic_stream_samples() {
  GpuSampleFile f;
  f.provenance.device_name = "NVIDIA H100 80GB HBM3";
  f.provenance.device_uuid = "GPU-test";
  f.provenance.date_utc = "2026-11-26T00:00:00Z";
  f.provenance.command = "perfmodel calibrate --only gpu.streams";
  for (int r = 0; r < 3; ++r) {
    f.samples.push_back({"streams.issue", {{"streams", 8}, {"connections", 0}}, r, 256 * 6e-6, 256});
    f.samples.push_back({"streams.serial", {}, r, 256 * 30e-6, 256});
    for (int s : {1, 8, 32}) {
      const double tasks = std::max(16, 4 * s), conc = std::min(s, 8);
      f.samples.push_back({"streams.concurrency", {{"streams", s}, {"spin_ns", 1e6}, {"connections", 0}}, r, tasks * 1e-3 / conc, tasks});
      f.samples.push_back({"streams.concurrency_host", {{"streams", s}, {"spin_ns", 1e6}, {"connections", 0}}, r, tasks * 7e-6, tasks});
    }
    for (int s : {1, 2}) {
      f.samples.push_back({"streams.copies", {{"streams", s}, {"bytes", 4096}, {"bidir", 0}}, r, 64 * 8e-6 / s, 64});
      f.samples.push_back({"streams.copies", {{"streams", s}, {"bytes", 4096}, {"bidir", 1}}, r, 64 * 12e-6, 64});
    }
  }
  return f;
}
}  // namespace

TEST(StreamCalibration, FitsTheSeriesAndSurvivesTheProfileRoundTrip) {
  const StreamCalibration c = fit_streams(synthetic_stream_samples(), "s.gpu_samples.csv");
  EXPECT_NEAR(c.issue_s, 6e-6, 1e-15);
  EXPECT_NEAR(c.serial_task_s, 30e-6, 1e-15);
  EXPECT_NEAR(c.queues, 8, 1e-9);
  EXPECT_NEAR(c.concurrency_at(4), 1 + (8 - 1) * 3.0 / 7, 1e-9);  // between the measured 1 and 8
  const auto share = c.copy_sharing(4096, 2);
  EXPECT_NEAR(share.h2d_ratio, 0.5, 1e-12);
  EXPECT_NEAR(share.pair_factor, 12.0 / 16, 1e-12);

  Profile p = load_profile(kBundled);
  p.gpu->streams = c;
  const std::string path = ::testing::TempDir() + "/farm_streams_profile.yaml";
  save_profile(p, path);
  const Profile back = load_profile(path);
  ASSERT_TRUE(back.gpu->streams);
  EXPECT_EQ(back.gpu->streams->measured_on, c.measured_on);
  EXPECT_DOUBLE_EQ(back.gpu->streams->queues, c.queues);
  EXPECT_EQ(back.gpu->streams->copies.rows, c.copies.rows);
  // The host's cost with the GPU busy: the rows of 8 and 32 streams issued 7 µs a task.
  EXPECT_NEAR(c.busy_issue_s(), 7e-6, 1e-15);
  // Each concurrency row keeps the host's time to issue it (host_s), through the round trip.
  ASSERT_EQ(c.concurrency.columns.back(), "host_s");
  EXPECT_NEAR(c.concurrency.rows.back().back(), 128 * 7e-6, 1e-15);
  EXPECT_EQ(back.gpu->streams->concurrency.columns, c.concurrency.columns);
  EXPECT_EQ(back.gpu->streams->concurrency.rows, c.concurrency.rows);

  // The predictor now uses the measured values and assumes none of the defaults.
  const FarmPredictor f(back, FarmSetup::built_in({FarmApp::cosine, 1024, 1000}, 100, HostMemory::pinned));
  EXPECT_DOUBLE_EQ(f.pipeline().issue_s, 7e-6);  // the busy GPU's, not the idle loop's 6 µs
  EXPECT_DOUBLE_EQ(f.pipeline().queues, 8);
  for (const std::string& a : f.assumptions()) EXPECT_EQ(a.find("no gpu.streams"), std::string::npos) << a;
}

TEST(StreamCalibration, ABadSectionNamesItsKey) {
  Profile p = load_profile(kBundled);
  p.gpu->streams = fit_streams(synthetic_stream_samples(), "s.csv");
  const std::string path = ::testing::TempDir() + "/farm_streams_bad.yaml";
  save_profile(p, path);
  std::string text;
  {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const auto at = text.find("    issue_s: ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at) - at, "    issue_s: -1");
  std::ofstream(path) << text;
  try {
    load_profile(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("issue_s"), std::string::npos) << e.what();
  }
}

TEST(StreamCalibration, MissingSeriesAreNamed) {
  GpuSampleFile f = synthetic_stream_samples();
  f.samples.erase(std::remove_if(f.samples.begin(), f.samples.end(), [](const BenchmarkSample& s) { return s.series == "streams.serial"; }),
                  f.samples.end());
  try {
    fit_streams(f, "s.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("streams.serial"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ recorded runs
namespace {
void expect_reanalysis_holds(const std::string& dir, double mean_ceiling, double p90_ceiling, int best_floor, const Profile& profile,
                             const std::string& profile_path) {
  const FarmRun run = read_farm_run(dir);
  ASSERT_TRUE(profile.gpu->streams.has_value());
  const FarmAnalysis a = analyse_farm(run, profile);
  ASSERT_EQ(a.points.size(), run.measurements.size());
  EXPECT_LE(a.overall.mean, mean_ceiling);
  EXPECT_LE(a.overall.p90, p90_ceiling);
  EXPECT_FALSE(a.best.empty());
  int within = 0;
  for (const FarmBestCheck& b : a.best) {
    EXPECT_GE(b.loss, 0) << b.label;  // nothing beats the measured best
    within += b.within_5_percent ? 1 : 0;
  }
  EXPECT_GE(within, best_floor);
  const std::string out = ::testing::TempDir() + "/farm_reanalysis";
  write_farm_report(out, run, a, profile_path);
  EXPECT_TRUE(std::filesystem::exists(out + "/report.md"));
  EXPECT_TRUE(std::filesystem::exists(out + "/farm_predictions.csv"));
}
void expect_reanalysis_holds(const std::string& dir, double mean_ceiling, double p90_ceiling, int best_floor,
                             const std::string& profile_path = kRecordedRunProfile) {
  expect_reanalysis_holds(dir, mean_ceiling, p90_ceiling, best_floor, load_profile(profile_path), profile_path);
}
// The farm cases of 2026-11-27 on GPU a07c6e1d were predicted from the then bundled profile (GPU
// 110d06eb) with the gpu.streams that the farm step measured on a07c6e1d minutes before merged in
// (perfmodel fit --streams-samples); that section is kept in data/profiles/runs/.
Profile a07_farm_profile() {
  Profile p = load_profile(kRecordedRunProfile);
  const Profile streams = load_profile(kA07Streams);
  p.gpu->streams = streams.gpu->streams;
  return p;
}
// A run predicted from the bundled profile (GPU 29a2cd25, 2026-11-27) with its own machine's gpu.streams.
Profile bundled_with_streams(const std::string& streams_path) {
  Profile p = load_profile(kBundled);
  p.gpu->streams = load_profile(streams_path).gpu->streams;
  return p;
}
const std::string kRuns = kData + "/profiles/runs/2026-11-27-h100-";
}  // namespace

TEST(FarmRecordedRun, ReanalysisHoldsItsErrors) {
  expect_reanalysis_holds(kRecordedFarmRun, kRecordedMeanErrorCeiling, kRecordedP90ErrorCeiling, kRecordedBestWithinFloor);
}

TEST(FarmRecordedRun, HoldoutReanalysisHoldsItsErrors) {
  expect_reanalysis_holds(kRecordedHoldoutRun, kHoldoutMeanErrorCeiling, kHoldoutP90ErrorCeiling, kHoldoutBestWithinFloor);
}

TEST(FarmRecordedRun, TheRunThatChoseTheChainHoldsItsErrors) {
  expect_reanalysis_holds(kA8FarmRun, kA8MeanErrorCeiling, kA8P90ErrorCeiling, kA8BestWithinFloor, kA8Profile);
}

TEST(FarmRecordedRun, ItsHoldoutCasesHoldTheirErrors) {
  expect_reanalysis_holds(kA8HoldoutRun, kA8HoldoutMeanErrorCeiling, kA8HoldoutP90ErrorCeiling, kA8HoldoutBestWithinFloor, kA8Profile);
}

TEST(FarmRecordedRun, TheFarmCasesOf2026_11_27HoldTheirErrors) {
  expect_reanalysis_holds(kA07FarmRun, kA07MeanErrorCeiling, kA07P90ErrorCeiling, kA07BestWithinFloor, a07_farm_profile(), kA07Streams);
}

// The last runs of 2026-11-27, measured after the host issue cost with the GPU busy was chosen (on
// GPU 418e2ad9's run), each predicted from the bundled profile (GPU 29a2cd25) with its own machine's
// gpu.streams merged in, as they came out: GPU 12f0227a mean 7.2 %, p90 16.7 %, 11 of 11 (holdout
// 9.2 %, 23.1 %, 8 of 9); GPU bf08d174 8.4 %, 22.5 %, 8 of 11 (holdout 7.7 %, 16.5 %, 8 of 9);
// GPU 0d285e39 8.4 %, 18.7 %, 9 of 11 (holdout 6.1 %, 15.3 %, 7 of 9). Re-analysed after a pageable
// copy in of at most 64 KiB returned once staged (ceilings: these + 1 point): 6.6 / 15.1, 8.8 / 21.0;
// 7.9 / 20.1, 7.2 / 14.6; 7.8 / 16.8, 5.5 / 15.0 %.
TEST(FarmRecordedRun, TheRunsAfterTheBusyHostIssueHoldTheirErrors) {
  const std::string s12 = kRuns + "12f0227a-streams/nvidia-h100-80gb-hbm3.streams.yaml";
  const std::string sbf = kRuns + "bf08d174-streams/nvidia-h100-80gb-hbm3.streams.yaml";
  const std::string v = kData + "/validation/2026-11-27-h100-";
  expect_reanalysis_holds(v + "12f0227a/farm", 0.076, 0.161, 11, bundled_with_streams(s12), s12);
  expect_reanalysis_holds(v + "12f0227a/farm-holdout", 0.098, 0.220, 8, bundled_with_streams(s12), s12);
  expect_reanalysis_holds(v + "bf08d174/farm", 0.089, 0.211, 8, bundled_with_streams(sbf), sbf);
  expect_reanalysis_holds(v + "bf08d174/farm-holdout", 0.082, 0.156, 8, bundled_with_streams(sbf), sbf);
  const std::string s0d = kRuns + "0d285e39-streams/nvidia-h100-80gb-hbm3.streams.yaml";
  expect_reanalysis_holds(v + "0d285e39/farm", 0.088, 0.178, 9, bundled_with_streams(s0d), s0d);
  expect_reanalysis_holds(v + "0d285e39/farm-holdout", 0.065, 0.160, 7, bundled_with_streams(s0d), s0d);
  // GPU a11957b4, the first run after the pageable staging rule: 8.8 %, 20.6 %, 8 of 11 (holdout
  // 7.9 %, 17.9 %, 8 of 9), as it came out.
  const std::string sa1 = kRuns + "a11957b4-streams/nvidia-h100-80gb-hbm3.streams.yaml";
  expect_reanalysis_holds(v + "a11957b4/farm", 0.098, 0.216, 8, bundled_with_streams(sa1), sa1);
  expect_reanalysis_holds(v + "a11957b4/farm-holdout", 0.089, 0.189, 8, bundled_with_streams(sa1), sa1);
}

TEST(FarmRecordedRun, TheHoldoutCasesOf2026_11_27HoldTheirErrors) {
  expect_reanalysis_holds(kA07HoldoutRun, kA07HoldoutMeanErrorCeiling, kA07HoldoutP90ErrorCeiling, kA07HoldoutBestWithinFloor);
}

TEST(FarmRecordedRun, ThatRunsOwnReportIsItsFreshHostIssueOf17Microseconds) {
  // The run's report.md (mean 41.8 %) was predicted from a profile whose gpu.streams was measured
  // on GPU-5355697b minutes before: every host-bound case came out 1056 × 17.07 µs (matmul 32² at
  // 64 streams: 18.03 ms against 7.83 ms measured). The GPU-a8fb659b calibration says 9.69 µs;
  // the farm itself issued a task per 6–8 µs.
  Profile profile = load_profile(kA8Profile);
  ASSERT_TRUE(profile.gpu && profile.gpu->streams);
  EXPECT_NEAR(profile.gpu->streams->issue_s, 9.69e-6, 0.01e-6);
  profile.gpu->streams->issue_s = 17.07e-6;
  const FarmAnalysis a = analyse_farm(read_farm_run(kA8FarmRun), profile);
  int seen = 0;
  for (const FarmPointAnalysis& p : a.points) {
    const FarmMeasurement& m = p.measurement;
    if (m.task.app != FarmApp::matmul || m.task.size != 32 || m.mode != FarmMode::streams || m.memory != HostMemory::pinned ||
        m.streams != 64)
      continue;
    ++seen;
    EXPECT_NEAR(p.prediction.completion_s, 18.03e-3, 0.02e-3);
    EXPECT_EQ(p.prediction.bound, "host issue");
  }
  EXPECT_EQ(seen, 1);
  EXPECT_GT(a.overall.mean, 0.3);
}

TEST(FarmRecordedRun, TheResidentGridWavesOfTheCosineRun) {
  // cosine 1024 floats, M = 10000, 264 tasks at 132 and 264 streams measured 4.14 ms: three waves
  // of the 128 resident grids. The prediction is within 5 % and names the kernel slots.
  const FarmRun run = read_farm_run(kRecordedFarmRun);
  const FarmAnalysis a = analyse_farm(run, bundled());
  int seen = 0;
  for (const FarmPointAnalysis& p : a.points) {
    const FarmMeasurement& m = p.measurement;
    if (m.task.app != FarmApp::cosine || m.task.size != 1024 || m.task.iterations != 10000 || m.mode != FarmMode::streams ||
        m.memory != HostMemory::pinned || m.streams < 132)
      continue;
    ++seen;
    EXPECT_LT(std::abs(p.error), 0.05) << m.streams;
    EXPECT_EQ(p.prediction.bound, "kernel slots") << m.streams;
  }
  EXPECT_EQ(seen, 2);
}

TEST(FarmRecordedRun, WriteReadRoundTripAndBadRowsNameTheirLine) {
  FarmRun run = read_farm_run(kRecordedFarmRun);
  const std::string dir = ::testing::TempDir() + "/farm_roundtrip";
  write_farm_run(dir, run);
  const FarmRun back = read_farm_run(dir);
  ASSERT_EQ(back.measurements.size(), run.measurements.size());
  EXPECT_EQ(back.measurements[3].seconds, run.measurements[3].seconds);
  EXPECT_EQ(back.device.multiprocessors, 132);
  run.measurements[0].check_error = 1, run.measurements[0].check_bound = 0;  // a failed check may not carry times
  write_farm_run(dir, run);
  try {
    read_farm_run(dir);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("farm_measurements.csv:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("check_error"), std::string::npos) << e.what();
  }
}

// A run that kept its issue loop's host time (format v2) writes and reads it back, one per timed
// run; the analysis puts the run's own cost beside the profile's and predicts the pinned stream
// configurations again with it. Every host-bound configuration then follows it: the synthetic
// run below issues its tasks at three times the profile's cost and takes that long.
TEST(FarmRecordedRun, TheIssueLoopsHostTimeRoundTripsAndReplacesTheProfilesCost) {
  FarmRun run = read_farm_run(kRecordedFarmRun);  // a v1 recording: no issue times
  for (const FarmMeasurement& m : run.measurements) EXPECT_TRUE(m.issue_seconds.empty());
  const Profile profile = load_profile(kRecordedRunProfile);
  // One host-bound case: matmul 32², L = 1056, S = 16 and 64, each measured at L·3h.
  std::vector<FarmMeasurement> kept;
  double h = 0;
  for (FarmMeasurement m : run.measurements)
    if (m.task.app == FarmApp::matmul && m.task.size == 32 && m.mode == FarmMode::streams && m.memory == HostMemory::pinned &&
        (m.streams == 16 || m.streams == 64)) {
      h = FarmPredictor(profile, FarmSetup::built_in(m.task, m.tasks, m.memory)).pipeline().issue_s;
      m.seconds.assign(m.seconds.size(), m.tasks * 3 * h);
      m.issue_seconds.assign(m.seconds.size(), m.tasks * 3 * h);
      kept.push_back(m);
    }
  ASSERT_EQ(kept.size(), 2u);
  ASSERT_GT(h, 0);
  run.measurements = kept;
  const std::string dir = ::testing::TempDir() + "/farm_issue_v2";
  write_farm_run(dir, run);
  const FarmRun back = read_farm_run(dir);
  ASSERT_EQ(back.measurements.size(), 2u);
  ASSERT_EQ(back.measurements[0].issue_seconds.size(), kept[0].issue_seconds.size());
  for (std::size_t i = 0; i < kept[0].issue_seconds.size(); ++i)
    EXPECT_NEAR(back.measurements[0].issue_seconds[i], kept[0].issue_seconds[i], 1e-6 * kept[0].issue_seconds[i]);
  const FarmAnalysis a = analyse_farm(back, profile);
  ASSERT_EQ(a.host_issue.size(), 1u);
  EXPECT_NEAR(a.host_issue[0].run_s, 3 * h, 1e-12);
  EXPECT_NEAR(a.host_issue[0].profile_s, h, 1e-12);
  EXPECT_GT(a.streams_from_profile.median, 0.5);      // predicted at h, measured at 3h
  EXPECT_LT(a.streams_with_run_issue.median, 0.05);   // at the run's own cost
  EXPECT_NEAR(a.points[0].host_issue_per_task_s, 3 * h, 1e-12);
  write_farm_report(::testing::TempDir() + "/farm_issue_v2_report", back, a, "p.yaml");
  // A count of issue times that is not one per timed run is bad input naming the column.
  std::string text;
  {
    std::ifstream in(dir + "/farm_measurements.csv");
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const auto last = text.rfind(';');
  ASSERT_NE(last, std::string::npos);
  text.erase(text.find_last_of(';'), text.find('\n', last) - last);  // drop the last issue time
  std::ofstream(dir + "/farm_measurements.csv") << text;
  try {
    read_farm_run(dir);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("issue_seconds"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ case sets
TEST(FarmPlan, HoldoutCasesAreValidAndDisjointFromTheStandardOnes) {
  const std::vector<FarmCase> standard = farm_cases(FarmCaseSet::standard), holdout = farm_cases(FarmCaseSet::holdout);
  ASSERT_EQ(standard.size(), farm_cases(false).size());  // the default set is unchanged by the holdout one
  ASSERT_GE(holdout.size(), 6u);
  std::set<FarmApp> apps;
  for (const FarmCase& h : holdout) {
    EXPECT_EQ(farm_task_problem(h.task), "") << h.task.label();
    EXPECT_GE(h.tasks, 200) << h.task.label();
    apps.insert(h.task.app);
    for (const FarmCase& c : standard) {
      EXPECT_NE(h.tasks, c.tasks) << h.task.label() << ": task count " << h.tasks << " is in the standard set";
      if (h.task.app == c.task.app) {
        EXPECT_NE(h.task.size, c.task.size) << h.task.label() << ": task size is in the standard set";
      }
    }
  }
  EXPECT_EQ(apps.size(), 3u);  // every application
}

TEST(FarmCli, CasesFlagIsCheckedBeforeAnyGpuWork) {
  const std::string out = ::testing::TempDir() + "/farm_cases_flag";
  EXPECT_EQ(run({"validate", "--only", "farm", "--cases", "other", "--out", out}).code, 1);
  EXPECT_EQ(run({"validate", "--cases", "holdout", "--out", out}).code, 1);  // not the farm
  EXPECT_EQ(run({"validate", "--only", "farm", "--cases", "holdout", "--quick", "--out", out}).code, 1);
  const Result r = run({"validate", "--only", "farm", "--cases", "holdout", "--from", kRecordedFarmRun, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--cases"), std::string::npos) << r.err;
}

// ------------------------------------------------------------------ CLI
TEST(FarmCli, PredictFarmInEveryFormat) {
  const std::vector<std::string> base = {"predict", "farm", "--app", "cosine", "--iterations", "1000", "--tasks", "264"};
  for (const char* format : {"table", "yaml", "json", "csv"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--format", format});
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << format << r.err;
    EXPECT_NE(r.out.find("prediction_of"), std::string::npos) << format;
    EXPECT_NE(r.out.find("predicted_s"), std::string::npos) << format;
  }
  const YAML::Node y = YAML::Load(run({"predict", "farm", "--app", "matmul", "--size", "64", "--tasks", "100", "--streams", "4", "--format",
                                       "json"}).out);
  EXPECT_EQ(y["tasks"].as<int>(), 100);
  EXPECT_EQ(y["streams"].size(), 1u);
  EXPECT_EQ(y["streams"][0]["streams"].as<int>(), 4);
  EXPECT_GT(y["streams"][0]["predicted_s"].as<double>(), 0);
  EXPECT_TRUE(y["stream_chain_extra_s"].IsScalar());  // δ, signed (the bundled profile's is negative)
  EXPECT_GT(y["serial_kernel_wait_s"].as<double>(), 0);   // w: the serial loop's wait for the kernel
  // `perfmodel farm` is the same command.
  EXPECT_EQ(run({"farm", "--app", "blur", "--size", "64", "--tasks", "10", "--streams", "2", "--format", "csv"}).out,
            run({"predict", "farm", "--app", "blur", "--size", "64", "--tasks", "10", "--streams", "2", "--format", "csv"}).out);
}

TEST(FarmCli, MoreStreamsThanTasksIsAllowedAndSaidSo) {
  const Result r = run({"predict", "farm", "--app", "blur", "--size", "64", "--tasks", "10", "--streams", "64"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("receive no task"), std::string::npos) << r.out;
}

TEST(FarmCli, BadInputExitsOneNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"predict", "farm", "--app", "cosine", "--tasks", "0"}, "--tasks"},
      {{"predict", "farm", "--app", "cosine", "--tasks", "10", "--streams", "-1"}, "--streams"},
      {{"predict", "farm", "--app", "cosine", "--tasks", "10", "--streams", "many"}, "--streams"},
      {{"predict", "farm", "--app", "fft", "--tasks", "10"}, "--app"},
      {{"predict", "farm", "--app", "matmul", "--tasks", "10"}, "--size"},
      {{"predict", "farm", "--app", "matmul", "--size", "64", "--iterations", "5", "--tasks", "10"}, "--iterations"},
      {{"predict", "farm", "--app", "cosine", "--tasks", "10", "--memory", "unified"}, "--memory"},
      {{"predict", "farm", "--tasks", "10"}, "--app"},
      {{"predict", "farm", "--app", "cosine", "--tasks", "10", "--connections", "99"}, "--connections"},
      {{"predict", "farm", "--app", "cosine"}, "tasks"},
  };
  for (const auto& [args, flag] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 1) << args.back() << ": " << r.out;
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(FarmCli, AWorkloadTaskWhoseKernelCannotLaunchIsBadInput) {
  const std::string path = ::testing::TempDir() + "/farm_heavy_workload.yaml";
  std::ofstream(path) << "perfmodel_workload: 1\nname: heavy\nkernels:\n  - name: heavy\n    grid: [1]\n    block: [1024]\n"
                         "    registers_per_thread: 255\n    flops_fp32: 1e6\n    read_bytes: 4096\n    write_bytes: 4096\n"
                         "transfers:\n  - {direction: h2d, memory: pinned, bytes: 4096}\n  - {direction: d2h, memory: pinned, bytes: 4096}\n";
  const Result r = run({"predict", "farm", "--workload", path, "--tasks", "10"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("cannot launch"), std::string::npos) << r.err;
  // The same task with a block that fits predicts, its copies taken from the file.
  std::ofstream(path) << "perfmodel_workload: 1\nname: light\nkernels:\n  - name: light\n    grid: [1]\n    block: [256]\n"
                         "    registers_per_thread: 32\n    flops_fp32: 1e6\n    read_bytes: 4096\n    write_bytes: 4096\n"
                         "transfers:\n  - {direction: h2d, memory: pinned, bytes: 4096}\n  - {direction: d2h, memory: pinned, bytes: 8192}\n";
  const Result ok = run({"predict", "farm", "--workload", path, "--tasks", "10", "--format", "json"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  const YAML::Node y = YAML::Load(ok.out);
  EXPECT_EQ(y["bytes_out_per_task"].as<double>(), 8192);
}

TEST(FarmCli, ValidateFromTheRecordedFarmRunWritesTheReport) {
  const std::string out = ::testing::TempDir() + "/farm_validate_from";
  const Result r = run({"validate", "--from", kRecordedFarmRun, "--out", out, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node y = YAML::Load(r.out);
  EXPECT_GT(y["errors"].size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(out + "/report.md"));
  const Result both = run({"validate", "--only", "farm", "--only", "mv", "--out", out});
  EXPECT_EQ(both.code, 1);
}

TEST(FarmCli, PlotFarmWritesDataAndScriptFromTheRecordedRun) {
  const std::string out = ::testing::TempDir() + "/farm_plot";
  const Result r = run({"plot", "farm", "--out", out, "--from", kRecordedFarmRun});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"farm_predicted.csv", "farm_measured.csv", "farm_cases.csv", "farm.gp"})
    EXPECT_TRUE(std::filesystem::exists(out + "/" + f)) << f;
  std::ifstream gp(out + "/farm.gp");
  std::stringstream ss;
  ss << gp.rdbuf();
  EXPECT_NE(ss.str().find("#SM bound"), std::string::npos);
}

TEST(FarmCli, StreamSamplesFitAloneOrMergeIntoTheBundledProfile) {
  GpuSampleFile f = synthetic_stream_samples();
  f.device = bundled().gpu->device;
  const std::string samples = ::testing::TempDir() + "/farm_streams.gpu_samples.csv";
  std::ofstream(samples) << to_csv(f);
  // What `calibrate --only gpu.streams --out P.yaml` fits: a profile whose gpu section has streams only.
  const std::string alone = ::testing::TempDir() + "/farm_streams_alone.yaml";
  const Result a = run({"fit", "--gpu-samples", samples, "--out", alone});
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_TRUE(load_profile(alone).gpu->streams);
  // Merged into the bundled profile (another day's run): everything else kept.
  const std::string merged = ::testing::TempDir() + "/farm_streams_merged.yaml";
  const Result m = run({"fit", "--streams-samples", samples, "--profile", kBundled, "--out", merged});
  ASSERT_EQ(m.code, 0) << m.err;
  const Profile p = load_profile(merged);
  ASSERT_TRUE(p.gpu->streams);
  EXPECT_EQ(p.gpu->streams->measured_on, "NVIDIA H100 80GB HBM3, GPU-test, 2026-11-26T00:00:00Z");
  EXPECT_EQ(p.gpu->ceilings.size(), bundled().gpu->ceilings.size());
  EXPECT_EQ(p.provenance.date_utc, bundled().provenance.date_utc);
  EXPECT_EQ(p.provenance.refit, bundled().provenance.refit);  // the section has its own provenance
  // Another GPU's samples do not merge.
  f.provenance.device_name = "Another GPU";
  std::ofstream(samples) << to_csv(f);
  const Result bad = run({"fit", "--streams-samples", samples, "--profile", kBundled, "--out", merged});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("Another GPU"), std::string::npos) << bad.err;
}
