// Tests on the recorded CPU calibrations in data/profiles: the H100 host (16 vCPUs, measured on
// the device machine inside the bundled profile) and this project's 2-core CI-class VM
// (xeon-2core-vm.yaml). They re-derive the cpu section from the raw samples, check the detected
// cache plateaus against the measured curves, and pin the held-out accuracy of the CPU time
// model so that a change that worsens it fails CI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "gnuplot.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/statistics.hpp"

using namespace perfmodel;

namespace {

const std::string kDir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";

struct Recorded {
  std::string profile;
  double logical_cpus;
  // Held-out limits for this machine: the mean over kernels of their mean error, and any
  // kernel's max error. Today's levels plus a small margin (see each use).
  double mean_of_means, worst_max;
};

const Recorded kMachines[] = {
    // The 2-core VM: issue 4's targets are 5 % mean / 10 % max per kernel. This run (2026-11-23
    // 08:01 UTC, commit cd784ff: each kernel sample's batch sized from back-to-back batches)
    // averages 1.4 % over the eight kernels, worst dot 8.3 %: both targets met. The one before it
    // (07:47 UTC, commit 723de1b, batches from the fastest of three runs) 1.5 %, worst dot 11.3 %
    // at the held-out n = 20480; the one before that (06:05 UTC, commit d951145: fit sizes added
    // inside cache cliffs, each sample warmed, up to 31 rounds, one probe run) 1.4 %, worst mv
    // 8.3 % (dot 7.7 %). The one before that (05:47 UTC, commit 8587f72, 15 rounds) 1.5 %, worst dot 7.3 %; the
    // one before that (commit 5573f8f, no added sizes, no warm-up) 2.0 %, worst mv 12.6 % at
    // n = 2560 on the L3 cliff between the fit sizes 2304 and 3072. Two with added sizes but no
    // warm-up (not kept; judged on medians) 2.2 %, worst mv 12.2 % (at most 4 sizes added, none
    // in that cliff) and 1.6 %, worst dot 13.8 %: one-run samples near the cache capacity started
    // from whatever the shuffled size before them left cached. The 2026-11-22 run 2.9 %, worst 11 %.
    {"xeon-2core-vm.yaml", 2, 0.02, 0.09},
    // The H100 host: a 16-vCPU VM whose multi-threaded speed drifts from run to run (and within
    // one). The bundled run (2026-11-23 19:58 UTC, GPU 110d06eb, commit c29c26e; no busy-host
    // warning) averages 1.4 %, worst cosine 6.5 % (mv 4.6 %): both of issue 4's targets met, every
    // kernel under 7 %. Its repeat minutes later carries the busy-host warning (4.6 %, worst dot
    // 35.7 %, cholesky 27.9 %; see the busy-host test below) and is not held here.
    {"nvidia-h100-80gb-hbm3.yaml", 16, 0.02, 0.075},
    // The run bundled before it (2026-11-23 04:29 UTC, GPU 300c76ef, now lease-300c76ef/) averages 4.9 %, worst dot 23.9 %
    // (mv 12.2 %, mm 12.5 %, cosine 13 %: mean target met, max missed); its repeat minutes later
    // 4.0 %, worst cg 28.5 %. The lease before (03:50 UTC, GPU fa6f3566, kept below) 2.3 %, worst
    // cg 14.4 % (mv 13.1 %, dot 9.5 %), its repeat 3.4 %, worst dot 31 %; the one before that
    // (02:41 UTC, GPU 3ac5e21a, in git history) 6.9 %, worst cg 24.4 %, and the one before that
    // (01:59 UTC, GPU 4748ab49) 8.1 %, worst dot 33.3 %: a noisy host, whose kernel timings
    // scatter by up to 2× per size (the profiles' efficiency ranges). Also kept below:
    // the run of 01:26 UTC (GPU bd0b5927) 2.2 %, worst cg 10.3 % (mean target met, max missed by
    // 0.3 points), and the one at 00:19 UTC (GPU fd001d54) 2.2 % with a worst size of 8.6 % (mv),
    // both targets met. The run at 01:01 UTC (GPU 5c5ac176, in git history) averaged 4.3 %, worst
    // cg 33.5 %. The lease after the bundled one (05:23 UTC, GPU e8ad28eb, kept below, recorded
    // for its GPU validation run) 2.0 %, worst dot 9.1 % (cg 7.4 %, cosine 7.2 %): both targets met.
    {"lease-300c76ef/nvidia-h100-80gb-hbm3.yaml", 16, 0.05, 0.25},
    {"lease-e8ad28eb/nvidia-h100-80gb-hbm3.yaml", 16, 0.025, 0.10},
    // The lease after it (05:53 UTC, GPU 324324f1), the first H100-host calibration that adds
    // cliff sizes and warms each sample (15 rounds): 2.6 %, worst dot 12.2 % (mm 10.5 %; its
    // repeat 2.8 %, worst conv2d 13.6 %). The lease after that (06:11 UTC, GPU cf74aa6d, 31
    // rounds; its profile kept in data/profiles/lease-cf74aa6d/ for its GPU validation) is not
    // held here: its host was busy (cpu_calibration_warnings says so, see the test below), its
    // 16-thread read curve tops out at 22 GB/s below 222 KiB (other leases: 0.9–1 TB/s), one
    // size's 31 samples span 37–756 µs (conv2d, n = 192), and its kernel models are 4.8 %, worst
    // conv2d 22.2 % (the repeat minutes later 2.7 %, worst dot 14.5 %). Nor is the next one's
    // (06:31 UTC, GPU d95ef441, commit 1d1281a), also flagged: 6.5 %, worst dot 69.6 % (a
    // 16-thread dot of 20 K elements took 38 µs); its repeat minutes later, held here, 3.8 %,
    // worst cosine 13.7 % (cholesky 13.4 %, dot 13.2 %). The lease after it (06:44 UTC, GPU
    // 6def8b90, commit b86601e) 2.1 %, worst cholesky 7.7 %: both targets met, the first H100-host
    // run of this calibration to meet the max; its repeat minutes later 2.2 %, worst dot 15.7 %
    // (cg 11.3 %). The one after the partial waves (07:18 UTC, GPU 4a0c8e60, commit 2ccd23a)
    // 2.2 %, worst cg 22.5 % (mv 11.3 %; no busy-host warning); its repeat minutes later 1.9 %,
    // worst cg 8.5 %: both targets met. The first lease with each sample's batch sized from the
    // fastest of three warm runs (07:53 UTC, GPU 1410ec15, commit 8399d79): its own calibration
    // 4.1 %, worst mv 44.8 %, not held: the host was busy while mv ran (interquartile ranges of
    // 200–1600 % per size; the profile carries the busy-host warning); its repeat minutes later
    // 1.5 %, worst mv 6.8 % (dot 5.4 %, cosine 5.4 %): both targets met, every kernel under 7 %.
    {"lease-1410ec15/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.02, 0.07},
    // The first with each sample run on to 2 ms (08:20 UTC, GPU 5f2c6c42, commit 1380ff1,
    // `calibrate --only cpu` twice): every size sampled for 2 ms or more; 2.4 %, worst cg 10.8 %
    // (cholesky 8.5 %), its repeat 4.2 %, worst cg 28.4 % (mm 22.8 %): the batch artefact gone,
    // the host's scatter not.
    {"lease-5f2c6c42/h100-host-cpu.yaml", 16, 0.025, 0.11},
    {"lease-5f2c6c42/h100-host-cpu.repeat.yaml", 16, 0.045, 0.29},
    // The lease of 08:40 UTC (GPU 431c7c37, commit dbc517a, a full calibration and its repeat,
    // every CPU sample run on to 2 ms, no busy-host warning): its own calibration 2.4 %, worst
    // cholesky 14.8 % (blur 14.6 %: mean met, max missed; its profile kept, its samples not, for
    // the device tool's 64 MiB), the repeat minutes later 3.1 %, worst conv2d 6.1 % (cosine 6.0,
    // mm 5.9 %): both targets met.
    {"lease-431c7c37/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.035, 0.065},
    // The lease after it (08:53–09:00 UTC, GPU f6238019, commit fc37071; no busy-host warning), a
    // quiet host: 1.7 %, worst cosine 6.4 % (cholesky 5.4 %), its repeat minutes later 1.7 %,
    // worst cholesky 5.7 %: both targets met on both, every kernel under 7 %.
    {"lease-f6238019/nvidia-h100-80gb-hbm3.yaml", 16, 0.02, 0.07},
    {"lease-f6238019/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.02, 0.06},
    // The first with cliff intervals refined whatever the pilot shows (09:15 UTC, GPU eeb2c20b,
    // commit 6a9bece, `calibrate --only cpu` twice): 1.4 %, worst cg 6.9 %, and 1.8 %, worst cg
    // 6.0 %: both targets met on both. CG got its 2656 (the 32 MiB L2 cliff) in both runs.
    {"lease-eeb2c20b/h100-host-cpu.yaml", 16, 0.02, 0.075},
    {"lease-eeb2c20b/h100-host-cpu.repeat.yaml", 16, 0.02, 0.065},
    {"lease-324324f1/nvidia-h100-80gb-hbm3.yaml", 16, 0.03, 0.13},
    {"lease-d95ef441/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.045, 0.14},
    {"lease-6def8b90/nvidia-h100-80gb-hbm3.yaml", 16, 0.025, 0.08},
    {"lease-6def8b90/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.025, 0.16},
    {"lease-4a0c8e60/nvidia-h100-80gb-hbm3.yaml", 16, 0.025, 0.23},
    {"lease-4a0c8e60/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.02, 0.09},
    {"lease-fa6f3566/nvidia-h100-80gb-hbm3.yaml", 16, 0.03, 0.15},
    {"lease-bd0b5927/nvidia-h100-80gb-hbm3.yaml", 16, 0.025, 0.11},
    {"lease-fd001d54/nvidia-h100-80gb-hbm3.yaml", 16, 0.03, 0.10},
};

// A samples file named by a profile lies in the profile's folder.
std::string beside(const std::string& profile, const std::string& file) {
  const std::size_t slash = profile.rfind('/');
  return kDir + (slash == std::string::npos ? "" : profile.substr(0, slash + 1)) + file;
}

}  // namespace

TEST(RecordedCpu, RefittingTheRawSamplesReproducesTheProfiles) {
  for (const Recorded& m : kMachines) {
    const Profile p = load_profile(kDir + m.profile);
    const CpuCalibration& c = p.require_cpu();
    EXPECT_EQ(c.cpu.logical_cpus, m.logical_cpus) << m.profile;
    const CpuCalibration again = fit_cpu_samples(load_cpu_samples(beside(m.profile, c.samples_file)), c.samples_file);
    ASSERT_EQ(again.kernels.size(), 8u) << m.profile;
    for (const auto& [name, model] : c.kernels) {
      const CpuKernelModel& r = again.kernels.at(name);
      ASSERT_EQ(r.efficiency.rows.size(), model.efficiency.rows.size()) << name;
      for (std::size_t i = 0; i < r.efficiency.rows.size(); ++i)
        EXPECT_NEAR(r.efficiency.rows[i][1] / model.efficiency.rows[i][1], 1, 1e-6) << m.profile << " " << name;
      EXPECT_NEAR(r.holdout->mean_rel_error, model.holdout->mean_rel_error, 1e-6) << name;
    }
  }
}

// Plateaus: L1 first, memory last, and the levels' rates falling L1 > L2 > L3 > memory (a level
// may be split in two where the curve bends inside it). On the quiet 2-core VM the memory plateau
// is within 5 % of the read kernel's rate at the largest working set; on the H100 host the
// 16-thread curve declines slowly from 64 MiB to 2 GiB (300 MiB of L3, shared), so the plateau
// only has to sit within 50 % of it there.
TEST(RecordedCpu, CachePlateausAreOrderedAndMatchTheCurves) {
  for (const Recorded& m : kMachines) {
    // Re-derived from the raw samples: the plateau detection under test is this build's.
    const std::string samples = load_profile(kDir + m.profile).require_cpu().samples_file;
    const CpuCalibration c = fit_cpu_samples(load_cpu_samples(beside(m.profile, samples)), samples);
    const double threads = c.max_threads();
    std::vector<CachePlateau> all;
    std::map<std::string, double> best;
    for (const CachePlateau& p : c.plateaus)
      if (p.threads == threads) all.push_back(p), best[p.level] = std::max(best[p.level], p.read_Bps);
    ASSERT_GE(all.size(), 3u) << m.profile;
    EXPECT_EQ(all.front().level, "L1") << m.profile;
    EXPECT_EQ(all.back().level, "memory") << m.profile;
    const std::vector<std::string> order = {"L1", "L2", "L3", "memory"};
    for (std::size_t i = 1; i < order.size(); ++i)
      if (best.count(order[i]) && best.count(order[i - 1])) {
        EXPECT_LT(best[order[i]], best[order[i - 1]]) << m.profile << " " << order[i];
      }
    EXPECT_GT(best["L1"], 3 * best["memory"]) << m.profile;
    double largest = 0, at_largest = 0;
    for (const auto& row : c.bandwidth.at("read").rows)
      if (row[0] == threads && row[1] > largest) largest = row[1], at_largest = row[2];
    EXPECT_NEAR(all.back().read_Bps / at_largest, 1.0, m.logical_cpus <= 2 ? 0.05 : 0.5) << m.profile;
    // More threads, more memory bandwidth.
    EXPECT_GT(c.bandwidth_Bps("read", largest, threads), 1.5 * c.bandwidth_Bps("read", largest, 1)) << m.profile;
  }
}

// The busy-host check (cpu_calibration_warnings) on every recorded calibration, re-derived from
// its raw samples: silent on each run held above and on the repeats; it names both plateau signs
// in lease cf74aa6d's contended run (16 threads reading L1-resident data at 22 GB/s, slower than
// from L2 and than 8 threads), whose kernel models missed by up to 22 %, and the dot model of
// lease d95ef441's main run.
TEST(RecordedCpu, TheBusyHostCheckFlagsOnlyTheContendedRun) {
  auto warnings_of = [](const std::string& profile) {
    const std::string samples = load_profile(kDir + profile).require_cpu().samples_file;
    return cpu_calibration_warnings(fit_cpu_samples(load_cpu_samples(beside(profile, samples)), samples));
  };
  std::vector<std::string> quiet;
  for (const Recorded& m : kMachines) quiet.push_back(m.profile);
  for (const char* repeat : {"lease-300c76ef/nvidia-h100-80gb-hbm3.repeat.yaml", "lease-324324f1/nvidia-h100-80gb-hbm3.repeat.yaml",
                             "lease-cf74aa6d/nvidia-h100-80gb-hbm3.repeat.yaml"})
    quiet.push_back(repeat);
  for (const std::string& profile : quiet) {
    const std::vector<std::string> w = warnings_of(profile);
    EXPECT_TRUE(w.empty()) << profile << ": " << (w.empty() ? "" : w.front());
  }
  const std::vector<std::string> busy = warnings_of("lease-cf74aa6d/nvidia-h100-80gb-hbm3.yaml");
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_NE(busy[0].find("16 threads read the L2 plateau faster"), std::string::npos) << busy[0];
  EXPECT_NE(busy[1].find("16 threads read the L1 plateau slower"), std::string::npos) << busy[1];
  EXPECT_NE(busy[1].find("than 8 threads"), std::string::npos) << busy[1];
  // Lease d95ef441's main run: ordered plateaus, but thread wake-ups slow while the kernels ran.
  const std::vector<std::string> slow = warnings_of("lease-d95ef441/nvidia-h100-80gb-hbm3.yaml");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("the dot model missed its held-out sizes by 25.8 % on average, up to 69.6 %"), std::string::npos) << slow[0];
  // Lease 1410ec15's main run: mv's samples scattered by up to 16× per size while it ran.
  const std::vector<std::string> mv = warnings_of("lease-1410ec15/nvidia-h100-80gb-hbm3.yaml");
  ASSERT_EQ(mv.size(), 1u);
  EXPECT_NE(mv[0].find("the mv model missed its held-out sizes by 17.0 % on average, up to 44.8 %"), std::string::npos) << mv[0];
  // The bundled run's repeat (lease 110d06eb, minutes after the bundled calibration, which is
  // silent): dot's held-out sizes scattered while it ran.
  const std::vector<std::string> dot = warnings_of("nvidia-h100-80gb-hbm3.repeat.yaml");
  ASSERT_EQ(dot.size(), 1u);
  EXPECT_NE(dot[0].find("the dot model missed its held-out sizes by 5.4 % on average, up to 35.7 %"), std::string::npos) << dot[0];
}

// A kernel sample is a batch of runs meant to last about 2 ms. The H100 calibration bundled before
// the current one (lease 300c76ef) sized
// it from one probe run: 24 of its 127 sizes were sampled in under a millisecond (median), down to
// 0.09 ms (dot's first sizes, whose probes met a pool still waking up). Lease 1410ec15's sized it
// from the fastest of three runs: 3 of 166 still (dot at n = 49152: 0.15 ms). Since commit
// 04f11a6 it is sized from back-to-back batches timed as the samples are: none on the 2-core VM,
// though on the H100 host (lease 1c3cca94, samples not kept) 5 and 11 of 165 sizes were, a
// stall during a probe batch shrinking the batch. Since commit 1380ff1 a sample runs on until it
// lasts 2 ms: none on the H100 host either (leases 5f2c6c42 and f6238019 and the bundled lease
// 110d06eb, both calibrations each).
TEST(RecordedCpu, KernelSamplesLastAboutTheBatchTarget) {
  auto short_sizes = [](const std::string& samples_file) {
    std::map<std::string, std::vector<double>> per_size;
    for (const BenchmarkSample& s : load_cpu_samples(kDir + samples_file).samples)
      if (s.series.rfind("kernel.", 0) == 0) per_size[s.series + "," + s.params_text()].push_back(s.seconds);
    EXPECT_GT(per_size.size(), 100u) << samples_file;
    int n = 0;
    for (auto& [size, seconds] : per_size) n += summarize(seconds).median < 1e-3 ? 1 : 0;
    return n;
  };
  EXPECT_GE(short_sizes("lease-300c76ef/nvidia-h100-80gb-hbm3.cpu_samples.csv"), 20);
  EXPECT_EQ(short_sizes("nvidia-h100-80gb-hbm3.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv"), 0);
  EXPECT_LE(short_sizes("lease-1410ec15/nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv"), 3);
  EXPECT_EQ(short_sizes("xeon-2core-vm.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-5f2c6c42/h100-host-cpu.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-5f2c6c42/h100-host-cpu.repeat.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-f6238019/nvidia-h100-80gb-hbm3.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-f6238019/nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-eeb2c20b/h100-host-cpu.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("lease-eeb2c20b/h100-host-cpu.repeat.cpu_samples.csv"), 0);
}

TEST(RecordedCpu, HeldOutKernelTimesDoNotRegress) {
  for (const Recorded& m : kMachines) {
    const CpuCalibration c = load_profile(kDir + m.profile).require_cpu();
    double sum = 0;
    for (const auto& [name, model] : c.kernels) {
      ASSERT_TRUE(model.holdout) << name;
      EXPECT_GE(model.holdout->sizes, 4u) << name;
      EXPECT_LE(model.holdout->max_rel_error, m.worst_max) << m.profile << " " << name;
      sum += model.holdout->mean_rel_error;
    }
    EXPECT_LE(sum / static_cast<double>(c.kernels.size()), m.mean_of_means) << m.profile;
  }
}

// Issue 4: the quick CPU calibration finishes in ≤ 20 s on 2 cores (the recorded log's wall time).
TEST(RecordedCpu, QuickCalibrationFitsIn20SecondsOnTwoCores) {
  std::ifstream log(kDir + "runs/2026-11-23-xeon-2core-vm-calibrate-cpu-quick.log");
  ASSERT_TRUE(log.good());
  std::stringstream text;
  text << log.rdbuf();
  std::smatch match;
  const std::string s = text.str();
  ASSERT_TRUE(std::regex_search(s, match, std::regex(R"(exit 0, wall ([0-9.]+) s)")));
  EXPECT_LE(std::stod(match[1]), 20.0);
}

TEST(RecordedCpu, PredictCpuAndPlotCpu) {
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"profile", "show", kDir + "xeon-2core-vm.yaml"}, out, err), 0) << err.str();
  for (const char* table : {"cpu_info:", "cpu_plateaus:", "cpu_compute:", "cpu_kernels:"})
    EXPECT_NE(out.str().find(table), std::string::npos) << table;
  ASSERT_EQ(cli::run({"predict", "cpu", "--kernel", "mv", "--n", "4096", "--format", "json"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("\"bound\": \"memory\""), std::string::npos) << out.str();
  ASSERT_EQ(cli::run({"predict", "cpu", "--kernel", "mm", "--n", "2048", "--format", "json"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("\"bound\": \"compute\""), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("warning"), std::string::npos) << out.str();
  // A contended calibration still loads and predicts, with the busy-host warning beside the answer.
  const std::string busy = kDir + "lease-cf74aa6d/nvidia-h100-80gb-hbm3.yaml";
  std::ostringstream busy_out, busy_err;
  ASSERT_EQ(cli::run({"profile", "show", busy}, busy_out, busy_err), 0) << busy_err.str();
  EXPECT_NE(busy_out.str().find("# warning: cpu: 16 threads read the L1 plateau slower"), std::string::npos) << busy_out.str();
  ASSERT_EQ(cli::run({"predict", "cpu", "--kernel", "dot", "--n", "1000000", "--profile", busy, "--format", "json"}, busy_out, busy_err), 0);
  EXPECT_NE(busy_out.str().find("warning: the profile's 16 threads read the L2 plateau faster"), std::string::npos) << busy_out.str();
  std::ostringstream bad_out, bad_err;
  EXPECT_EQ(cli::run({"predict", "cpu", "--kernel", "fft", "--n", "64"}, bad_out, bad_err), 1);
  EXPECT_EQ(cli::run({"predict", "cpu", "--kernel", "mv", "--n", "-3"}, bad_out, bad_err), 1);
  if (cli::find_gnuplot().empty()) GTEST_SKIP() << "gnuplot not installed";
  const std::string dir = ::testing::TempDir() + "/perfmodel_plot_cpu_test";
  ASSERT_EQ(cli::run({"plot", "cpu", "--profile", kDir + "xeon-2core-vm.yaml", "--out", dir}, out, err), 0) << err.str();
  for (const char* name : {"cpu.svg", "cpu.png", "cpu.gp", "cpu_bandwidth.csv", "cpu_plateaus.csv"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    ASSERT_TRUE(f.good()) << name;
    EXPECT_GT(f.tellg(), 100) << name;
  }
}
