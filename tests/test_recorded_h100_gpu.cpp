// Tests on the recorded H100 GPU microbenchmarks in data/profiles (measured by `perfmodel
// calibrate` on the device machine; see data/profiles/README.md). They re-derive the gpu section
// from the raw samples, hold the measured ceilings to the anchors of ANCHORS.md and to physics,
// and pin the fit quality so that a change that worsens it fails CI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/profile_io.hpp"

using namespace perfmodel;

namespace {

const std::string kDir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";
const std::string kProfile = kDir + "nvidia-h100-80gb-hbm3.yaml";
const std::string kRepeat = kDir + "nvidia-h100-80gb-hbm3.repeat.yaml";

const GpuCalibration& bundled() {
  static const Profile p = load_profile(kProfile);
  return p.require_gpu();
}

}  // namespace

TEST(RecordedH100Gpu, RefittingTheRawSamplesReproducesTheProfile) {
  const GpuCalibration& g = bundled();
  const GpuSampleFile samples = load_gpu_samples(kDir + g.samples_file);
  EXPECT_EQ(samples.provenance.toolkit_commit, load_profile(kProfile).provenance.toolkit_commit);
  const GpuCalibration again = fit_gpu_samples(samples, g.samples_file);
  // The samples keep 9 significant digits; the profile was fitted before rounding.
  for (const auto& [name, rate] : g.ceilings) EXPECT_NEAR(again.ceiling(name).median / rate.median, 1, 1e-6) << name;
  EXPECT_NEAR(again.dram_concurrency->peak_Bps / g.dram_concurrency->peak_Bps, 1, 1e-3);
  EXPECT_NEAR(again.dram_concurrency->latency_s / g.dram_concurrency->latency_s, 1, 1e-3);
  EXPECT_EQ(again.dram_concurrency->max_requests_per_warp, g.dram_concurrency->max_requests_per_warp);
  EXPECT_NEAR(again.latency->dram_s / g.latency->dram_s, 1, 1e-6);
  ASSERT_TRUE(again.operation_latency && g.operation_latency);
  EXPECT_NEAR(again.operation_latency->cosf_s / g.operation_latency->cosf_s, 1, 1e-6);
  EXPECT_NEAR(again.operation_latency->fp32_fma_s / g.operation_latency->fp32_fma_s, 1, 1e-6);
  EXPECT_NEAR(again.partition->penalty, g.partition->penalty, 1e-6);
  EXPECT_NEAR(again.launch->per_wave_s / g.launch->per_wave_s, 1, 1e-6);
  ASSERT_TRUE(again.launch->queued && g.launch->queued);
  EXPECT_NEAR(again.launch->queued->kernel_s / g.launch->queued->kernel_s, 1, 1e-6);
  EXPECT_NEAR(again.launch->queued->host_memset_s / g.launch->queued->host_memset_s, 1, 1e-6);
}

// Launches queued behind busy work cost the GPU less than the host needs to enqueue one (1.97 µs
// against 4.35 µs in the 2026-11-23 run of GPU 110d06eb, its repeat 1.96 against 3.48; 1.95 µs
// against 3.59 µs in the run before it, its repeat 1.81 against 3.55; 2.03 against 3.17, 2.03
// against 4.29, 1.80 against 4.06 and 2.0 against 3.9 on the machines before), and the GPU's cost
// repeats between two runs to 15 % (1.97 and 1.96 µs in the 110d06eb pair, 1.95 and 1.81 in the pair before, 2.03 and
// 2.01 and 1.80 and 1.96 in the pairs before; the host's rate is what wanders: 3.2–4.3 µs across machines, 2.7–4.4 within one process,
// git history: data/experiments/2026-11-23-h100-launch-warmup).
TEST(RecordedH100Gpu, QueuedLaunchesCostTheGpuLessThanTheHostAndRepeat) {
  const Profile a = load_profile(kProfile), b = load_profile(kRepeat);
  for (const Profile* p : {&a, &b}) {
    const LaunchCalibration& l = *p->gpu->launch;
    ASSERT_TRUE(l.queued);
    EXPECT_LT(l.queued->kernel_s, 0.7 * l.empty_kernel_s);
    EXPECT_GT(l.queued->kernel_s, 0.5e-6);
    // The line through the queue depths misses none of them by more than two runs differ (15 %,
    // below): a worse fit measured something else than one per-launch cost (the recorded runs:
    // 1.1–11.5 %).
    EXPECT_LT(l.queued->fit.max_rel_error, 0.15);
  }
  EXPECT_NEAR(a.gpu->launch->queued->kernel_s / b.gpu->launch->queued->kernel_s, 1.0, 0.15);
}

// ANCHORS.md, measured on the same kind of H100: BabelStream's best DRAM rate 3.07 TB/s (Dot),
// mixbench FP32 59.6 and FP64 31.2 TFLOP/s. Issue 3's target: ≥ 0.98 × each.
TEST(RecordedH100Gpu, CeilingsReachTheAnchors) {
  const GpuCalibration& g = bundled();
  double dram = 0;
  for (const char* name : {"dram_read", "dram_copy", "dram_triad"}) dram = std::max(dram, g.ceiling(name).median);
  EXPECT_GE(dram, 0.98 * 3.07e12);
  EXPECT_GE(g.ceiling("dram_triad").median, 0.98 * 3.03e12);  // BabelStream Triad
  EXPECT_GE(g.ceiling("fp32").median, 0.98 * 59.6e12);
  EXPECT_GE(g.ceiling("fp64").median, 0.98 * 31.2e12);
}

TEST(RecordedH100Gpu, CeilingsStayBelowThePhysicalLimits) {
  const GpuCalibration& g = bundled();
  const GpuDeviceInfo& d = g.device;
  EXPECT_EQ(d.multiprocessors, 132);
  for (const char* name : {"dram_read", "dram_write", "dram_copy", "dram_triad"})
    EXPECT_LT(g.ceiling(name).median, d.theoretical_dram_Bps()) << name;
  // Lanes × 2 flops per clock at the reported clock, and 32 banks × 4 B per clock per SM for shared
  // memory. The 2026-11-23 machine measured 8-byte shared loads 0.4 % above the latter with a
  // p10–p90 of 0.03 %, GPU a8fb659b's int32 rate 0.03 % above the former: the SM ran that little
  // above its reported 1.98 GHz, or the events gain that much; no more than 1 % is physical.
  EXPECT_LT(g.ceiling("fp32").median, 1.01 * d.theoretical_flops(d.fp32_lanes_per_sm));
  EXPECT_LT(g.ceiling("fp64").median, 1.01 * d.theoretical_flops(d.fp64_lanes_per_sm));
  EXPECT_LT(g.ceiling("fp16").median, 1.01 * d.theoretical_flops(d.fp16_lanes_per_sm));
  EXPECT_LT(g.ceiling("int32").median, 1.01 * d.theoretical_flops(d.int32_lanes_per_sm));
  const double shared_peak = d.multiprocessors * 32 * 4 * d.sm_clock_hz;
  EXPECT_LT(g.ceiling("shared_load").median, 1.01 * shared_peak);
  EXPECT_LT(g.ceiling("shared_store").median, 1.01 * shared_peak);
  // The hierarchy is ordered.
  EXPECT_GT(g.ceiling("shared_load").median, g.ceiling("l2_read").median);
  EXPECT_GT(g.ceiling("l2_read").median, g.ceiling("dram_read").median);
  EXPECT_LT(g.latency->l1_s, g.latency->l2_s);
  EXPECT_LT(g.latency->l2_s, g.latency->dram_s);
  EXPECT_GT(g.ceiling("cosf").median, 0);
  EXPECT_GT(g.ceiling("fast_cosf").median, 2 * g.ceiling("cosf").median);  // the SFU path is the fast one
}

// Throughput-bound conflicts serialise: each extra way costs one more pass of the banks, so the
// time per access grows with the degree, one conflict-free access per 4-byte way (two per
// 8-byte way, as 8-byte words are served per half-warp).
TEST(RecordedH100Gpu, BankConflictPenaltyIsMonotoneAndLinearInDegree) {
  const GpuCalibration& g = bundled();
  for (const auto& [word, expected_degrees] : std::vector<std::pair<int, std::size_t>>{{4, 32}, {8, 16}}) {
    const ConflictCurve& c = g.bank_conflicts.at(word);
    ASSERT_EQ(c.seconds_per_access.size(), expected_degrees) << word;
    for (std::size_t d = 1; d < c.seconds_per_access.size(); ++d)
      EXPECT_GT(c.seconds_per_access[d], c.seconds_per_access[d - 1]) << word << "-byte, degree " << d + 1;
    EXPECT_NEAR(c.penalty(static_cast<double>(expected_degrees)), static_cast<double>(expected_degrees), 0.05 * expected_degrees);
    EXPECT_LT(c.fit.max_rel_error, 0.02) << word;
  }
  EXPECT_NEAR(g.bank_conflicts.at(8).seconds_per_access[0] / g.bank_conflicts.at(4).seconds_per_access[0], 2.0, 0.05);
}

// The H100 hashes addresses over its channels: confining every access to one slot of a period
// costs nothing measurable. Camping is claimed only where both recorded runs see it: the bundled
// run of 2026-11-22 21:2x has one case at 1.19 (256-B granule, 32-KiB stride) that its repeat run,
// minutes later, puts at 1.01 — a burst on the machine, not the address map.
TEST(RecordedH100Gpu, NoPartitionCampingAndTheEvidenceIsKept) {
  const PartitionCalibration& p = *bundled().partition;
  const Profile repeat_profile = load_profile(kRepeat);
  const PartitionCalibration& repeat = *repeat_profile.gpu->partition;
  EXPECT_LT(std::min(p.penalty, repeat.penalty), 1.05);
  EXPECT_GE(p.penalty, 1.0);
  EXPECT_GE(p.sweep.rows.size(), 40u);
  // Strided access follows the 32-byte sector model up to 8 elements (one sector per lane);
  // beyond it the efficiency keeps falling towards 4/64: DRAM is fetched in 64-byte pairs.
  const NumericTable& s = p.strided;
  for (const auto& row : s.rows) {
    const double stride = row[s.column("stride_elements")], efficiency = row[s.column("efficiency")];
    const double sector_model = 4.0 / row[s.column("sectors_per_request")];
    if (stride <= 8) {
      EXPECT_NEAR(efficiency / sector_model, 1.0, 0.16) << "stride " << stride;
    } else if (stride >= 16) {
      EXPECT_NEAR(efficiency / (4.0 / 64), 1.0, 0.2) << "stride " << stride;
    }
  }
}

// Fit quality of the bandwidth-vs-bytes-in-flight model, on the thread counts it never saw.
// Limits: the recorded runs' level plus a small margin (2.1 %/11.1 % and 2.5 %/13.7 % so far).
TEST(RecordedH100Gpu, ConcurrencyModelHoldsOnHeldOutConfigurations) {
  const SaturationCurve& c = *bundled().dram_concurrency;
  ASSERT_TRUE(c.holdout);
  EXPECT_GE(c.holdout->sizes, 60u);
  EXPECT_LE(c.holdout->mean_rel_error, 0.03);
  EXPECT_LE(c.holdout->max_rel_error, 0.15);
  EXPECT_LE(c.fit.mean_rel_error, 0.035);  // 3.09 % on the 23:22 run
  // The fitted constants are physical: unloaded latency between the L2 and 2× the chased DRAM
  // latency; the peak within 2 % of the best measured read.
  EXPECT_GT(c.latency_s, bundled().latency->l2_s);
  EXPECT_LT(c.latency_s, 2 * bundled().latency->dram_s);
  EXPECT_NEAR(c.peak_Bps / bundled().ceiling("dram_read").median, 1.0, 0.025);  // 2.03 % on the 23:22 run
}

TEST(RecordedH100Gpu, TwoRunsAgree) {
  const Profile a = load_profile(kProfile), b = load_profile(kRepeat);
  // The L2 read ceiling is the exception: 8.65 against 7.06 TB/s in the two runs of 23:22 UTC
  // (8.58 against 8.97 in an earlier machine), with each run's own p10–p90 within 5 %. Why it moves
  // between runs is not measured yet (open).
  for (const auto& [name, rate] : a.gpu->ceilings)
    EXPECT_NEAR(rate.median / b.gpu->ceiling(name).median, 1.0, name == "l2_read" ? 0.25 : 0.025) << name;
  EXPECT_NEAR(a.gpu->latency->dram_s / b.gpu->latency->dram_s, 1.0, 0.03);
  EXPECT_NEAR(a.gpu->dram_concurrency->latency_s / b.gpu->dram_concurrency->latency_s, 1.0, 0.05);
}

// Issue 3's wall-time targets: full GPU calibration ≤ 60 s, --quick ≤ 15 s (the device log of the
// quick run records its wall time).
TEST(RecordedH100Gpu, CalibrationWallTimesMeetTheTargets) {
  EXPECT_LE(bundled().calibration_wall_s, 60.0);
  std::ifstream log(kDir + "runs/2026-11-22-h100-calibrate-gpu-quick.log");
  ASSERT_TRUE(log.good());
  std::stringstream text;
  text << log.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  ASSERT_TRUE(std::regex_search(s, m, std::regex(R"(exit 0, wall ([0-9.]+) s)")));
  EXPECT_LE(std::stod(m[1]), 15.0);
}

TEST(RecordedH100Gpu, ProfileShowAndPlotMicrobench) {
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"profile", "show"}, out, err), 0) << err.str();
  for (const char* table : {"gpu_ceilings:", "gpu_dram_concurrency:", "gpu_bank_conflicts:", "gpu_partition_camping:", "gpu_launch:",
                            "gpu_launch_queued:", "gpu_overlap:"})
    EXPECT_NE(out.str().find(table), std::string::npos) << table;
  if (perfmodel::report::find_gnuplot().empty()) GTEST_SKIP() << "gnuplot not installed";
  const std::string dir = ::testing::TempDir() + "/perfmodel_microbench_test";
  std::ostringstream plot_out;
  ASSERT_EQ(cli::run({"plot", "microbench", "--out", dir}, plot_out, err), 0) << err.str();
  for (const char* name : {"microbench.svg", "microbench.png", "microbench.gp", "microbench_concurrency.csv",
                           "microbench_conflicts.csv", "microbench_partition.csv", "microbench_latency.csv"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    ASSERT_TRUE(f.good()) << name;
    EXPECT_GT(f.tellg(), 200) << name;
  }
  std::ifstream svg(dir + "/microbench.svg");
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("DRAM read bandwidth vs bytes in flight"), std::string::npos);
  EXPECT_NE(text.find("measured (held out)"), std::string::npos);
}
