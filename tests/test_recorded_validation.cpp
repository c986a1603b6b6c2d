// Tests on the recorded H100 validation run in data/validation (measured by `perfmodel validate`
// on the device machine; see data/validation/README.md). Every prediction is recomputed from the
// bundled profile for every recorded measurement, so a model change that worsens accuracy fails.
//
// The targets are median |error| ≤ 10 %, p90 ≤ 20 % and a tuner within 3 % of the
// measured optimum on average. The recorded run is the bundled machine's (2026-11-23 19:57 UTC, GPU
// 110d06eb, commit c29c26e, 64.8 s), predicted from its bundled calibration a minute later:
// median 6.4 %, p90 19.0 %, tuner 2.3 % (mv-opt 11.9 % mean, cg 14.0 %, dot 9.5 %,
// Cholesky-opt 3.0 %: that host launched kernels at 4.35 µs back to back, in calibration and
// validation alike). The figures "here" in the notes below are those of the run recorded before
// it (the machine bundled until then, now held with the other machines further down).
// On that run (2026-11-23 04:26 UTC, GPU 300c76ef) the model reaches
// median 6.9 % (met), p90 19.2 % (met) and a tuner loss of 2.3 % (met). The limits hold the
// model at this level. The last model change, mv-opt's compiled fetch rounds and the serial tile
// form of one block per SM (predictors/gpu_compute.hpp), was chosen on all nine recorded runs
// together (median / p90 / tuner before → after, here 6.9 / 19.8 / 5.6 → 6.9 / 19.2 / 2.3 %; each
// machine below) and checked out of sample on the machine after it
// (TheLeaseAfterTheFetchRoundsOutOfSample: every target met from all three profiles). The one
// before it, the partial waves (a wave's DRAM bytes in flight
// counted over its k blocks, not ⌈k/SMs⌉ on every SM; its per-SM pipes timed on the busiest SM:
// predictors/gpu_compute.hpp), was chosen on all eight recorded runs together (this one, the five
// machines after it, two before): median 7.0 → 6.9 %, p90 19.8 → 19.8 %, tuner 5.2 → 5.6 % here;
// p90 19.7 → 18.8, 20.1 → 19.6, 19.4 → 19.2, 21.5 → 20.2 and 19.7 → 19.2 % on the machines after,
// each from its own calibration. The two changes before it were chosen on this run and the two
// machines before together (all three in sample):
// the wave scheduling sharing the issue slots instead of adding to the whole wave, and
// conv2d-shared's 2-way tile stores at X = 16 (Nsight Compute's shared wavefronts): 7.5 %, 21.8 %
// before them here, 7.5 %, 22.1 % → 6.9 %, 19.5 % on GPU fa6f3566, 7.9 %, 22.0 % → 7.3 %, 21.4 %
// on GPU 3ac5e21a. This run is out of sample for every model change before them: the one before,
// the in-phase fetch latency of one-wave staged-tile loops (predictors/gpu_compute.hpp,
// T_l1l2's E), was chosen on the two machines before together (03:48 UTC on GPU fa6f3566: 7.6 %,
// 23.1 %, 5.7 % without it, 7.5 %, 22.1 %, 5.2 % with it; 02:39 UTC on GPU 3ac5e21a: 8.1 %,
// 23.5 %, 5.7 % without, 7.9 %, 22.0 %, 5.3 % with); the convolutions' counted instruction totals
// on the GPU 3ac5e21a; the launch timeline and the staged-tile overlap on the one before that,
// 01:57 UTC on GPU 4748ab49: 8.0 %, 23.7 %, 5.6 %, and 8.8 %, 25.1 %, 7.1 % before them; the
// earlier machine's run in nvidia-h100-80gb-hbm3-earlier 7.5 %, 21.9 %, 7.5 %. (The machines before:
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
// The run's own machine's calibration (GPU 110d06eb, bundled until a later one replaced it), kept
// under profiles/other/: the run was predicted from it, and a later bundled profile leaves this
// record alone.
const Profile& profile() {
  static const Profile p = load_profile(kData + "/profiles/other/2026-11-23-h100-110d06eb/nvidia-h100-80gb-hbm3.yaml");
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
  EXPECT_EQ(run.provenance.device_uuid, profile().provenance.device_uuid);  // predicted from its own machine's calibration
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
  // same machine (19.8 % before mv-opt's compiled fetch rounds and before the partial waves; 19.5 % and 21.4 % on the two machines before; 21.8 % here, 22.1 % and 22.0 % there
  // while the wave scheduling added to the whole wave; 23.1 % and 23.5 % there before the
  // in-phase fetch latency; 23.7 % and 25.1 % before the staged-tile overlap; 25.9 %, 25.1 %,
  // 27.8 % and 27.5 % on the machines before; 32.2 % before mv-opt's per-tile latency chain).
  EXPECT_LE(a.overall.p90, 0.195);
  // 47 % (mv-opt 64x2 at n = 1024, over-predicted: its 2-warp blocks ask for 36 KiB in flight;
  // 64x16 under-predicted by as much before its fetch rounds; 58 % before the partial waves, sgemm-256x16 at n = 768, 101 blocks on
  // 132 SMs at 5 per SM; 66 % before the staged-tile overlap); 87 % before 16-wide tiles fetched
  // whole lines, 247 % before mv-opt's per-tile chain.
  EXPECT_LE(a.overall.max, 0.5);
  // The tiled matrix-vector product alone and inside CG: 12.2 % and 14.2 % mean (13.9 % and 14.2 %
  // before mv-opt's compiled fetch rounds; its p90 36.9 → 22.3 %); before the partial waves 14.5 % and 14.5 % (14.5 % and 13.6 %,
  // 14.3 % and 14.1 % on the machines before, 14.4 % and 12.3 % and 15.5 % and 16.2 % before that; 44 %
  // and 33 % before the per-tile chain). CG's 51 launches and Cholesky-opt's 2n: each launch starts when the host has
  // enqueued it and the GPU has finished the one before and paid its own queued cost
  // (gpu.launch.queued: 1.95 µs here, 2.03, 2.03 and 1.80 on the machines before); the host's rate is
  // the profile's back-to-back launch cost (3.59 µs, the median of 3 s of batches; 3.17 and 4.29 µs
  // on the machines before). Before the GPU's queued cost and the L2 flush's lead were modelled, CG's mean was
  // 16.2 % (GPU bd0b5927). Cholesky-opt follows the host's regime: 9.5 % here, 11.7 %, 17.9 % and
  // 18.9 % on the machines before, where it ran faster per launch than the launch benchmark measured
  // minutes later on the same host: the VM host's launch rate wanders between 2.7 and 4.4 µs in
  // regimes that last seconds (git history: data/experiments/2026-11-23-h100-launch-warmup).
  EXPECT_LE(a.per_kernel.at("mv-opt").mean, 0.13);
  EXPECT_LE(a.per_kernel.at("mv-opt").p90, 0.23);
  EXPECT_LE(a.per_kernel.at("cg").mean, 0.15);
  // The dot product, whose large sizes stream at the DRAM ceiling right after the L2 flush:
  // 8.4 % mean with the write-back (9.05 %, 8.9 %, 8.8 %, 7.7 % and 8.5 % on the machines before),
  // 15.5 % without.
  EXPECT_LE(a.per_kernel.at("dot").mean, 0.095);
  // Kernels the model already predicts to within the targets stay there.
  for (const char* kernel : {"mv-constant", "mv-global", "conv2d-shared", "cosine", "mm-shared", "sgemm-tiled", "sgemm-64",
                             "mm-global", "matmul", "mm-opt"}) {
    EXPECT_LE(a.per_kernel.at(kernel).median, 0.10) << kernel;
  }
  // The optimized matrix product over its 33 configurations: 9.2 % mean (9.1 % on the machine before,
  // 10.3 % there before a one-wave launch's in-phase blocks left each tile's fetch latency exposed:
  // at n = 1024 its 16-result configurations were predicted 20–31 % under, then 15–19 %; 10.0 % and 10.1 % on
  // the machines before, 13.6 %
  // there before its L2 and L1 phases overlapped only across blocks: at one or two blocks per SM
  // it ran 23–39 % over the larger of the two).
  EXPECT_LE(a.per_kernel.at("mm-opt").mean, 0.095);
  // sgemm-256x16 streams A from global memory inside its staged loop; at five blocks per SM
  // (n ≥ 3072) the staged overlap over-predicts it by 11–14 %: median 12.8 % (12.9 % while the
  // wave scheduling added to the whole wave; 12.7 %, 12.6 % and 12.5 % on the machines before, 8.3 %
  // there before the staged overlap; its mean 20.1 %, was 21.9 %, from the small sizes' one or two
  // blocks per SM). The partial waves put its last wave on the busiest SM: median 15.7 % (+16 %
  // at n = 3072 and 4096, whose last waves put 2 blocks on a few SMs), n = 768 from −58 to −25 %.
  EXPECT_LE(a.per_kernel.at("sgemm-256x16").median, 0.16);
  // The global-memory convolution: 4.8 % median on the bundled machine (7.9 % while the wave
  // scheduling added to the whole wave: its L1-bound 16-wide blocks ran 15–23 % over at large n;
  // 7.8 % and 8.7 % on the machines before, where its instruction count became Nsight Compute's: 282
  // per output warp; 11.7 % with the 175 read off the inner loop before).
  // This profile predates the int32_logic rate: its 57 % integer instructions take 4/3 slots each,
  // 7.4 % median (4.2 % at one slot; 4.5 % with the bundled profile's measured 1.28).
  EXPECT_LE(a.per_kernel.at("conv2d-global").median, 0.085);
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
  // The target is 0.20: 16.5 % here (17.7 % before the partial waves), 17.8 % and 19.1 % on the two machines before (19.1 %,
  // 19.6 % and 20.2 % while the wave scheduling added to the whole wave; 20.1 % and
  // 21.4 % there before the in-phase fetch latency), 21.3 %, 21.5 %, 19.5 %, 24.8 % and 19.8 % on the
  // machines before.
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
  // 5.2 % and 5.3 % on the two machines before, 5.7 % there before the in-phase fetch latency;
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

// Two full validation runs 2 hours apart, on two machines of the GPU machine (different H100s: the
// GPU UUIDs differ; the earlier one before sgemm-256x16 existed): kernels whose time is their work
// repeat to 1 %; launch-bound runs (Cholesky's 2n launches, CG's 51, dot's smallest vectors) move
// with the host's launch rate (3.1–4.0 µs back to back across machines): Cholesky-opt by 21 %.
TEST(RecordedValidation, TwoRunsAgreeWhereTheWorkDominates) {
  const ValidationRun earlier = read_validation_run(kData + "/validation/other/2026-11-22-h100-4ab98316");
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

// Other H100 machines of the same kind (data/validation/other/, named by date and GPU UUID
// prefix), each validated minutes before its own calibration: out of sample for the bundled
// profile, and for the model wherever the model changed after their run. Held at the project's
// targets (median 10 %, p90 20 %; the launch-bound Cholesky-opt runs follow each host's launch
// rate, which drifts between 3.1 and 4.4 µs, so a profile of another host may cost up to two
// points of p90) and, from each machine's own calibration, the tuner's 3 %.
TEST(RecordedValidation, OtherMachinesMeetTheTargets) {
  for (const char* id : {"c2b15968", "f6238019", "d95ef441"}) {
    SCOPED_TRACE(id);
    const std::string dir = std::string("/2026-11-23-h100-") + id;
    const ValidationRun run = read_validation_run(kData + "/validation/other" + dir);
    ASSERT_EQ(run.provenance.device_uuid.rfind(std::string("GPU-") + id, 0), 0u);
    const ValidationAnalysis bundled = analyse_validation(run, profile());
    ASSERT_EQ(bundled.points.size(), recorded().measurements.size());
    EXPECT_LE(bundled.overall.median, 0.10);
    EXPECT_LE(bundled.overall.p90, 0.22);
    for (const char* which : {"nvidia-h100-80gb-hbm3.yaml", "nvidia-h100-80gb-hbm3.repeat.yaml"}) {
      const Profile own = load_profile(kData + "/profiles/other" + dir + "/" + which);
      ASSERT_EQ(own.provenance.device_uuid, run.provenance.device_uuid);
      const ValidationAnalysis a = analyse_validation(run, own);
      EXPECT_LE(a.overall.median, 0.10) << which;
      EXPECT_LE(a.overall.p90, 0.21) << which;
      EXPECT_LE(a.tuner_mean_loss, 0.035) << which;
    }
  }
}
