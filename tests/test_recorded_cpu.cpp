// Tests on the recorded CPU calibrations in data/profiles: the H100 host (16 vCPUs, measured on
// the device machine inside the bundled profile) and this project's 2-core CI-class VM
// (xeon-2core-vm.yaml). They re-derive the cpu section from the raw samples, check the detected
// cache plateaus against the measured curves, and pin the held-out accuracy of the CPU time
// model so that a change that worsens it fails CI.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/statistics.hpp"

using namespace perfmodel;

namespace {

const std::string kDir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";

// Reads a CPU samples file; where only NAME.gz is kept (the other machines' samples, data/README.md)
// it is unpacked into the test's temporary folder first.
CpuSampleFile load_recorded_cpu_samples(const std::string& path) {
  if (std::filesystem::exists(path) || !std::filesystem::exists(path + ".gz")) return load_cpu_samples(path);
  std::string name = path.substr(kDir.size() < path.size() ? kDir.size() : 0);
  for (char& c : name)
    if (c == '/') c = '_';
  // Tests run in parallel processes: each unpacks its own copy, under the samples file's own name
  // (the reader reports it).
  const std::string dir = ::testing::TempDir() + "/cpu_samples_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string to = dir + "/" + name;
  const std::string command = "gzip -dc '" + path + ".gz' > '" + to + "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot unpack " + path + ".gz (is gzip installed?)");
  CpuSampleFile samples = load_cpu_samples(to);
  std::remove(to.c_str());
  return samples;
}

struct Recorded {
  std::string profile;
  double logical_cpus;
  // Held-out limits for this machine: the mean over kernels of their mean error, and any
  // kernel's max error. Today's levels plus a small margin (see each use). NaN for the bundled
  // profile, which a new calibration replaces: it is held to what any sound calibration meets
  // (the busy-host check's limits, unless its own warning says so) and to its own samples.
  double mean_of_means, worst_max;
  bool pinned() const { return !std::isnan(worst_max); }
};
constexpr double kNotPinned = std::numeric_limits<double>::quiet_NaN();

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
    // one). The bundled profile and its repeat: whichever run is bundled (2026-11-23, GPU
    // 110d06eb: 1.4 %, worst cosine 6.5 %, its repeat with the busy-host warning on dot;
    // 2026-11-26, GPU a8fb659b: 6.0 %, the busy-host warning on dot and mv).
    {"nvidia-h100-80gb-hbm3.yaml", 16, kNotPinned, kNotPinned},
    {"nvidia-h100-80gb-hbm3.repeat.yaml", 16, kNotPinned, kNotPinned},
    // Other H100 hosts of 2026-11-23 (data/profiles/other/, named by date and GPU UUID prefix):
    // f6238019, a quiet host (both runs meet 5 % mean / 10 % max); d95ef441, whose main run was
    // contended (the busy-host warning, held below) and whose repeat minutes later is held here.
    {"other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.yaml", 16, 0.02, 0.07},
    {"other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.02, 0.06},
    {"other/2026-11-23-h100-d95ef441/nvidia-h100-80gb-hbm3.repeat.yaml", 16, 0.045, 0.14},
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
    const CpuCalibration again = fit_cpu_samples(load_recorded_cpu_samples(beside(m.profile, c.samples_file)), c.samples_file);
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
    const CpuCalibration c = fit_cpu_samples(load_recorded_cpu_samples(beside(m.profile, samples)), samples);
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
// its raw samples: silent on each run held above at its pinned levels; it names the dot model of
// the contended main run on GPU d95ef441's host (thread wake-ups slow while the kernels ran). On
// the bundled pair it says what the profiles as written say: the samples and the profiles agree.
TEST(RecordedCpu, TheBusyHostCheckFlagsOnlyTheContendedRun) {
  auto warnings_of = [](const std::string& profile) {
    const std::string samples = load_profile(kDir + profile).require_cpu().samples_file;
    return cpu_calibration_warnings(fit_cpu_samples(load_recorded_cpu_samples(beside(profile, samples)), samples));
  };
  for (const Recorded& m : kMachines) {
    const std::vector<std::string> w = warnings_of(m.profile);
    if (m.pinned()) {
      EXPECT_TRUE(w.empty()) << m.profile << ": " << (w.empty() ? "" : w.front());
    } else {
      EXPECT_EQ(w, cpu_calibration_warnings(load_profile(kDir + m.profile).require_cpu())) << m.profile;
    }
  }
  // GPU d95ef441's host (2026-11-23 06:30 UTC), main run: ordered plateaus, but thread wake-ups slow while the kernels ran.
  const std::vector<std::string> slow = warnings_of("other/2026-11-23-h100-d95ef441/nvidia-h100-80gb-hbm3.yaml");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("the dot model missed its held-out sizes by 25.8 % on average, up to 69.6 %"), std::string::npos) << slow[0];
}

// A kernel sample is a batch of runs meant to last about 2 ms: each sample runs on until it
// does, so no size's median sample is shorter than a millisecond (docs/changelog.md has how
// the batch sizing got there). The one-run samples beside them (single=1, calibrations since
// 2026-11-26: one call timed on its own) are one run by design, however short.
TEST(RecordedCpu, KernelSamplesLastAboutTheBatchTarget) {
  auto short_sizes = [](const std::string& samples_file) {
    std::map<std::string, std::vector<double>> per_size;
    for (const BenchmarkSample& s : load_recorded_cpu_samples(kDir + samples_file).samples) {
      const auto single = s.params.find("single");
      if (s.series.rfind("kernel.", 0) == 0 && (single == s.params.end() || single->second == 0))
        per_size[s.series + "," + s.params_text()].push_back(s.seconds);
    }
    EXPECT_GT(per_size.size(), 100u) << samples_file;
    int n = 0;
    for (auto& [size, seconds] : per_size) n += summarize(seconds).median < 1e-3 ? 1 : 0;
    return n;
  };
  EXPECT_EQ(short_sizes("nvidia-h100-80gb-hbm3.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("xeon-2core-vm.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.cpu_samples.csv"), 0);
  EXPECT_EQ(short_sizes("other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv"), 0);
}

// The pinned runs at their levels. The bundled pair at the busy-host check's limits (10 % mean,
// 30 % max: twice and three times issue 4's targets) on every kernel its own warning does not
// name: a calibration may come from a busy host, but then it says so.
TEST(RecordedCpu, HeldOutKernelTimesDoNotRegress) {
  for (const Recorded& m : kMachines) {
    const CpuCalibration c = load_profile(kDir + m.profile).require_cpu();
    const std::vector<std::string> warnings = cpu_calibration_warnings(c);
    double sum = 0;
    for (const auto& [name, model] : c.kernels) {
      ASSERT_TRUE(model.holdout) << name;
      EXPECT_GE(model.holdout->sizes, 4u) << name;
      sum += model.holdout->mean_rel_error;
      if (m.pinned()) {
        EXPECT_LE(model.holdout->max_rel_error, m.worst_max) << m.profile << " " << name;
        continue;
      }
      const std::string flagged = "the " + name + " model missed its held-out sizes";
      if (std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return w.find(flagged) != std::string::npos; }))
        continue;
      EXPECT_LE(model.holdout->mean_rel_error, 0.10) << m.profile << " " << name;
      EXPECT_LE(model.holdout->max_rel_error, 0.30) << m.profile << " " << name;
    }
    if (m.pinned()) {
      EXPECT_LE(sum / static_cast<double>(c.kernels.size()), m.mean_of_means) << m.profile;
    }
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
  // The bundled profile's busy-host warnings beside each answer where its CPU calibration has
  // any, and no warning where it has none.
  const std::vector<std::string> bundled_warnings = cpu_calibration_warnings(load_profile(kDir + "nvidia-h100-80gb-hbm3.yaml").require_cpu());
  if (bundled_warnings.empty()) {
    EXPECT_EQ(out.str().find("warning"), std::string::npos) << out.str();
  }
  for (const std::string& w : bundled_warnings)
    EXPECT_NE(out.str().find("warning: the profile's CPU calibration: " + w), std::string::npos) << w << "\n" << out.str();
  // A contended calibration still loads and predicts, with the busy-host warning beside the answer.
  const std::string busy = kDir + "other/2026-11-23-h100-d95ef441/nvidia-h100-80gb-hbm3.yaml";
  std::ostringstream busy_out, busy_err;
  ASSERT_EQ(cli::run({"profile", "show", busy}, busy_out, busy_err), 0) << busy_err.str();
  EXPECT_NE(busy_out.str().find("# warning: cpu: the dot model missed its held-out sizes by 25.8 % on average"), std::string::npos)
      << busy_out.str();
  ASSERT_EQ(cli::run({"predict", "cpu", "--kernel", "dot", "--n", "1000000", "--profile", busy, "--format", "json"}, busy_out, busy_err), 0);
  EXPECT_NE(busy_out.str().find("warning: the profile's CPU calibration: the dot model missed"), std::string::npos) << busy_out.str();
  std::ostringstream bad_out, bad_err;
  EXPECT_EQ(cli::run({"predict", "cpu", "--kernel", "fft", "--n", "64"}, bad_out, bad_err), 1);
  EXPECT_EQ(cli::run({"predict", "cpu", "--kernel", "mv", "--n", "-3"}, bad_out, bad_err), 1);
  if (perfmodel::report::find_gnuplot().empty()) GTEST_SKIP() << "gnuplot not installed";
  const std::string dir = ::testing::TempDir() + "/perfmodel_plot_cpu_test";
  ASSERT_EQ(cli::run({"plot", "cpu", "--profile", kDir + "xeon-2core-vm.yaml", "--out", dir}, out, err), 0) << err.str();
  for (const char* name : {"cpu.svg", "cpu.png", "cpu.gp", "cpu_bandwidth.csv", "cpu_plateaus.csv"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    ASSERT_TRUE(f.good()) << name;
    EXPECT_GT(f.tellg(), 100) << name;
  }
}
