// Tests on the recorded H100 calibration in data/profiles (measured by `perfmodel calibrate` on
// the device machine, 2026-11-22; see data/profiles/README.md). CI has no GPU: these re-derive
// everything from the raw samples, so a change to the fitting or the model that worsens
// accuracy fails here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/transfer_samples.hpp"
#include "perfmodel/validate/transfer_check.hpp"

using namespace perfmodel;

namespace {

const std::string kDir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";
const std::string kProfile = kDir + "nvidia-h100-80gb-hbm3.yaml";
const std::string kSamples = kDir + "nvidia-h100-80gb-hbm3.pcie_samples.csv";
const std::string kRepeat = kDir + "nvidia-h100-80gb-hbm3.repeat.yaml";
// Another machine's quiet run (GPU f6238019, 2026-11-23 09:00 UTC: the repeat calibration of the
// pair): the held-out limits hold there too.
const std::string kQuietSamples = kDir + "other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.repeat.pcie_samples.csv.gz";
// The bundled profile's repeat (its transfer samples gzipped, as scripts/install-bundled.sh keeps
// them). The tests below hold whichever run is bundled to what any sound calibration meets.
const std::string kRepeatSamples = kDir + "nvidia-h100-80gb-hbm3.repeat.pcie_samples.csv.gz";
const std::string kOtherSamples = kDir + "other/2026-11-23-h100-c2b15968/nvidia-h100-80gb-hbm3.pcie_samples.csv.gz";

// Reads a samples file; a gzipped one (NAME.gz) is unpacked into the test's temporary folder first.
TransferSampleFile load_samples(const std::string& path) {
  const std::string gz = ".gz";
  if (path.size() <= gz.size() || path.compare(path.size() - gz.size(), gz.size(), gz) != 0) return load_transfer_samples(path);
  const std::string data = PERFMODEL_TEST_DATA_DIR;
  std::string name = path.rfind(data, 0) == 0 ? path.substr(data.size()) : path;
  for (char& c : name)
    if (c == '/') c = '_';
  // Tests run in parallel processes: each unpacks its own copy.
  const std::string to = ::testing::TempDir() + "/" + name + "." + std::to_string(::getpid()) + ".csv";
  const std::string command = "gzip -dc '" + path + "' > '" + to + "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot unpack " + path + " (is gzip installed?)");
  const TransferSampleFile samples = load_transfer_samples(to);
  std::remove(to.c_str());
  return samples;
}

PcieCalibration refit(const std::string& samples = kSamples) { return fit_pcie(load_samples(samples).samples, "recorded"); }

double rate_at_1gib(const TransferCurve& c) { return 1073741824.0 / c.seconds(1073741824.0); }


}  // namespace

TEST(RecordedH100, BundledProfileIsValidAndSaysWhereItCameFrom) {
  const Profile p = load_profile(kProfile);
  EXPECT_NE(p.provenance.device_name.find("H100"), std::string::npos);
  for (const auto& [key, value] : p.provenance.fields()) EXPECT_FALSE(value->empty()) << key;
  EXPECT_NE(p.provenance.driver_version.find("580."), std::string::npos);
  EXPECT_EQ(p.provenance.command.rfind("perfmodel calibrate", 0), 0u);
  ASSERT_TRUE(p.pcie);
  EXPECT_EQ(p.pcie->curves.size(), calibrated_transfer_keys().size());
  const TransferSampleFile samples = load_transfer_samples(kSamples);
  EXPECT_EQ(samples.provenance.device_uuid, p.provenance.device_uuid);
  EXPECT_EQ(samples.provenance.toolkit_commit, p.provenance.toolkit_commit);
}


// Pinned bandwidth at 1 GiB against nvbandwidth on the same kind of machine (ANCHORS.md):
// 55.3 GB/s host->device, 55.2 GB/s device->host; the target is within 2 %, on the bundled run
// and a quiet one of another machine. The run of 2026-11-23 19:58 UTC (GPU 110d06eb) measured 54.85/55.11 GB/s at 1 GiB and its fitted
// curves give 54.82/55.02 there (0.9 % and 0.3 % under nvbandwidth), its repeat 55.10/55.14
// measured. The run before it (04:28 UTC, GPU 300c76ef) measured 54.66/55.09 GB/s at 1 GiB and its fitted
// curves give 55.10/55.16 there (0.4 % and 0.1 % off nvbandwidth), its repeat 54.69/55.10. The
// machine before (03:50 UTC, GPU fa6f3566): 55.27/55.20 fitted. The quiet run (GPU f6238019):
// 55.21/55.13 measured (its main run minutes before: 54.94/55.08). Earlier
// machines: 55.03/54.60 (fitted d2h 54.00, 2.2 % under: the 02:40 UTC run), 54.93/55.11 (01:59
// UTC), 55.18/54.86 (01:26), 54.95/54.93 and 54.07/55.06 (01:01), 55.08/55.09 and 54.08/54.49
// (00:19), 55.27/55.11 and 54.78/55.17 GB/s.
TEST(RecordedH100, PinnedBandwidthAt1GiBIsWithin2PercentOfNvbandwidth) {
  for (const std::string& samples : {kSamples, kQuietSamples}) {
    const PcieCalibration pcie = refit(samples);
    EXPECT_NEAR(rate_at_1gib(pcie.curve({Direction::h2d, HostMemory::pinned})) / 55.3e9, 1.0, 0.02) << samples;
    EXPECT_NEAR(rate_at_1gib(pcie.curve({Direction::d2h, HostMemory::pinned})) / 55.2e9, 1.0, 0.02) << samples;
  }
}



// Two calibrations in a row on one machine: large one-way pinned copies agree to 2.5 % (0.53 %
// and 0.26 % in the 2026-11-23 pair of GPU 110d06eb, h2d and d2h at 1 GiB, 0.69 % and 0.38 % at 64 MiB; 0.74 %
// and 0.12 % in the pair before it; 0.14 % and 0.07 %, 0.1 % and 1.8 %, 0.6 %,
// 2.0 % and 1 % in the pairs before); the bidirectional rate differs more: at 1 GiB by 2.2 % in
// the pair before it, by 7.4 % in the 2026-11-23 pair of GPU 110d06eb (43.8 vs 47.1 GB/s), by 0.13 %, 1 %,
// 5.6 %, 8.4 %, 2.3 % and 3.0 % in the six pairs before, at 64 MiB by 13.3 % in the 2026-11-23 pair of GPU 110d06eb
// (43.7 vs 49.5 GB/s; 1.1 % in the pair before, 13.5 % in one before that: 47.3 vs 40.9 GB/s). At
// 1 MiB the runs differ by up to 8 %: 7.9 % h2d, 4.6 % d2h and 7.6 % bidirectional in the
// 110d06eb pair, whose first run's copies each took about 2 µs longer (a 4-byte copy 8.98 against
// 7.00 µs; measured at 1 MiB, 29.3 against 27.5 µs h2d), 3.7 % in the pair before, 5.3 % d2h in
// an earlier one, 11.2 % h2d in GPU a8fb659b's pair (inside its profile's interval there): the
// machine sets that floor, not the model.
TEST(RecordedH100, TwoRunsOnOneMachineAgreeForLargePinnedCopies) {
  const Profile a = load_profile(kProfile), b = load_profile(kRepeat);
  for (Direction d : {Direction::h2d, Direction::d2h, Direction::bidir}) {
    const TransferKey key{d, HostMemory::pinned};
    for (double bytes : {67108864.0, 1073741824.0}) {
      const double ta = a.pcie->curve(key).seconds(bytes), tb = b.pcie->curve(key).seconds(bytes);
      EXPECT_NEAR(ta / tb, 1.0, d == Direction::bidir ? 0.14 : 0.025) << key.name() << " at " << bytes;
    }
    // At 1 MiB: inside the profile's interval there where it has one (schema 4: widened to the
    // repeat's copies, scripts/device-run.sh), else within the 8 % floor above.
    const double ta = a.pcie->curve(key).seconds(1048576.0), tb = b.pcie->curve(key).seconds(1048576.0);
    const TransferSegment& s = a.pcie->curve(key).segment_for(1048576.0);
    if (s.has_interval()) {
      EXPECT_GE(tb / ta, s.interval_low) << key.name() << " at 1 MiB";
      EXPECT_LE(tb / ta, s.interval_high) << key.name() << " at 1 MiB";
    } else {
      EXPECT_NEAR(ta / tb, 1.0, 0.085) << key.name() << " at 1 MiB";
    }
  }
}

TEST(RecordedH100, PredictWithoutProfileUsesTheBundledOneAndSaysSo) {
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"predict", "transfer", "--for", "mv", "--n", "4096"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("bundled: NVIDIA H100 80GB HBM3"), std::string::npos) << out.str();
  // S0 Mv transfers at n = 4096: 64 MiB + 16 KiB down, 16 KiB up; about 1.2 ms at ~55 GB/s.
  std::ostringstream json;
  ASSERT_EQ(cli::run({"predict", "transfer", "--for", "mv", "--n", "4096", "--format", "json"}, json, err), 0);
  const Profile p = load_profile(kProfile);
  const double expected = p.pcie->curve({Direction::h2d, HostMemory::pinned}).seconds(67108864.0) +
                          p.pcie->curve({Direction::h2d, HostMemory::pinned}).seconds(16384.0) +
                          p.pcie->curve({Direction::d2h, HostMemory::pinned}).seconds(16384.0);
  const auto at = json.str().find("\"total_seconds\": ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NEAR(std::stod(json.str().substr(at + 17)), expected, 1e-12);
}

TEST(RecordedH100, PlotTransfersDrawsSvgAndPngWithGnuplot) {
  if (perfmodel::report::find_gnuplot().empty()) GTEST_SKIP() << "gnuplot not installed";
  const std::string dir = ::testing::TempDir() + "/perfmodel_plot_test";
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"plot", "transfers", "--out", dir}, out, err), 0) << err.str();
  for (const char* name : {"transfers.svg", "transfers.png", "transfers.gp", "transfers.csv", "transfers_model.csv"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    ASSERT_TRUE(f.good()) << name;
    EXPECT_GT(f.tellg(), 1000) << name;
  }
  std::ifstream svg(dir + "/transfers.svg");
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("h2d/pageable: time per copy"), std::string::npos);
  EXPECT_NE(text.find("measured (held-out sizes)"), std::string::npos);
}



// ------------------------------------------------------------------ physical sanity, independent data
// What the recorded runs hold the transfer model to (docs/transfers.md): physics, and how it does
// on measurements it was not fitted on. A run's own held-out maxima are no longer a target: they
// follow the host's load (ANCHORS.md: pageable rates drift by 2x within minutes).

namespace {

// PCIe Gen5 x16: 32 GT/s × 16 lanes × 128/130 ≈ 63 GB/s per direction.
constexpr double kLinkLimit = 63.0e9;

// Every size of a run (fit and held out) as typical times, the independent measurement for a
// curve fitted on another run.
std::vector<SizeTime> all_sizes(const TransferSampleFile& f, const TransferKey& key) {
  std::vector<SizeTime> all = typical_times_by_size(f.samples, key, SizeSet::fit);
  for (SizeTime& m : typical_times_by_size(f.samples, key, SizeSet::holdout)) all.push_back(std::move(m));
  std::sort(all.begin(), all.end(), [](const SizeTime& a, const SizeTime& b) { return a.bytes < b.bytes; });
  return all;
}

double median_abs_error(const TransferCurve& c, const std::vector<SizeTime>& set) {
  std::vector<double> e;
  for (const SizeTime& m : set) e.push_back(std::fabs(c.seconds(m.bytes) / m.typical_s - 1));
  std::sort(e.begin(), e.end());
  return e.empty() ? 0.0 : e[e.size() / 2];
}

// The fraction of another run's copies (every sample) inside the curve's intervals.
double coverage(const TransferCurve& c, const std::vector<SizeTime>& set) {
  std::size_t in = 0, all = 0;
  for (const SizeTime& m : set) {
    const auto [lo, hi] = c.interval_s(m.bytes);
    for (double t : m.samples_s) in += t >= lo && t <= hi ? 1 : 0, ++all;
  }
  return all ? static_cast<double>(in) / static_cast<double>(all) : 0.0;
}

// Over doublings of the size from 4 B to 1 GiB: below the link's rate (a bidirectional pair
// moves b each way), and monotone but where the measured copies of that range step down too (GPU
// 92e6119c's single pinned h2d copies of 384 and 768 B took 15 µs, their neighbours 8.7 µs): from
// b/2 to b the model falls no further than the copies measured between them do, give or take 6 %
// (a fitted line's end is as uncertain as the copies there: GPU a8fb659b's repeat timed pageable
// h2d copies in a stream of 768 B at 1.97 µs, 1 KiB at 1.88 µs).
void expect_physical_over_doublings(const TransferCurve& c, const std::vector<SizeTime>& measured, const std::string& what) {
  double previous = 0;
  for (double b = 4; b <= 1073741824.0; b *= 2) {
    EXPECT_LT(b / c.seconds(b), kLinkLimit) << what << " at " << b;
    if (previous > 0) {
      double measured_step = 1;  // the steepest fall between two measured sizes from b/2 to b
      for (std::size_t i = 0; i + 1 < measured.size(); ++i)
        if (measured[i].bytes >= b / 2 && measured[i + 1].bytes <= b)
          measured_step = std::min(measured_step, measured[i + 1].typical_s / measured[i].typical_s);
      EXPECT_GE(c.seconds(b) / previous, measured_step - 0.06)
          << what << ": steps down at " << b << " B by more than the copies there (" << measured_step << ")";
    }
    previous = c.seconds(b);
  }
}

}  // namespace

TEST(RecordedH100, EveryRefittedCurveIsPhysicalAtMostFourRegimesWithIntervals) {
  for (const std::string& samples : {kSamples, kRepeatSamples, kQuietSamples, kOtherSamples}) {
    const TransferSampleFile file = load_samples(samples);
    const PcieCalibration pcie = fit_pcie(file.samples, "recorded");
    for (const TransferKey& key : calibrated_transfer_keys())
      for (TransferMode mode : {TransferMode::single, TransferMode::stream}) {
        const TransferCurve& c = pcie.curve(key, mode);
        const std::string what = samples + " " + key.name() + " " + to_string(mode);
        // Samples v1: one batched curve; v2: single copies and copies in a stream, each its own.
        EXPECT_EQ(c.timing, file.version == 1 ? "batched" : to_string(mode)) << what;
        EXPECT_LE(c.segments.size(), 4u) << what;
        for (const TransferSegment& s : c.segments) {
          EXPECT_FALSE(s.is_bridge()) << what;
          EXPECT_GE(s.setup_s, 0.0) << what;
          // No regime moves bytes faster than the link (a bidirectional pair moves b each way).
          EXPECT_GE(s.s_per_byte, 1.0 / kLinkLimit) << what << " from " << s.from_bytes;
          EXPECT_TRUE(s.has_interval()) << what;
          EXPECT_LE(s.interval_low, 1.0);
          EXPECT_GE(s.interval_high, 1.0);
        }
        // Time grows with size within a regime (positive time per byte, checked above); it
        // steps down between two only where the measured copies do (a driver's change of copy
        // path: pinned h2d copies on the H100 hosts, 13.6 µs at 24 KiB, 10.5 µs at 28 KB).
        // Samples v2 (single copies and copies in a stream, fewer sizes a curve): the check over
        // doublings of the run of 2026-11-26 below.
        if (file.version != 1) {
          expect_physical_over_doublings(c, typical_times_by_size(file.samples, key, SizeSet::fit, TimerSource::event, mode), what);
          continue;
        }
        const std::vector<SizeTime> measured = typical_times_by_size(file.samples, key, SizeSet::fit);
        for (std::size_t k = 0; k + 1 < c.segments.size(); ++k) {
          const double at = c.segments[k].to_bytes;
          const double left = c.segments[k].seconds(std::nextafter(at, 0.0), false), right = c.segments[k + 1].seconds(at, false);
          // Up to 6 %: a fitted line's end is as uncertain as the pageable copies there (the
          // staging path's 1 MiB step on GPU c2b15968's host: 5.4 %).
          if (right >= left * 0.94) continue;
          bool measured_drop = false;
          for (std::size_t i = 0; i + 1 < measured.size(); ++i)
            if (measured[i].bytes < at && measured[i + 1].bytes >= at && measured[i + 1].typical_s < measured[i].typical_s)
              measured_drop = true;
          EXPECT_TRUE(measured_drop) << what << ": the model steps down at " << at << " B by " << 1 - right / left
                                     << " where the copies do not";
        }
      }
  }
}

// The mechanisms dropped (bridges, more than four regimes) judged where it counts: each curve
// fitted on one run of a pair and compared with the other run's every size (the bundled run and
// its repeat minutes later on the same machine; the two runs of GPU f6238019's and
// c2b15968's machines are one each: pairs across machines, which differ more).
TEST(RecordedH100, FourRegimesDoAsWellAsTwelveWithBridgesOnAnotherRun) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {kSamples, kRepeatSamples}, {kRepeatSamples, kSamples}, {kQuietSamples, kOtherSamples}, {kOtherSamples, kQuietSamples}};
  SegmentedFitOptions old_fit;  // before: up to 12 regimes, bridges across rising gaps
  old_fit.max_segments = 12;
  old_fit.bridge_gaps = true;
  SegmentedFitOptions tail = transfer_fit_options();
  tail.max_penalty = std::numeric_limits<double>::infinity();  // the ragged-tail penalty where it is 4 SE clear
  for (const auto& [from, to] : pairs) {
    const TransferSampleFile a = load_samples(from), b = load_samples(to);
    for (const TransferKey& key : calibrated_transfer_keys()) {
      const std::vector<SizeTime> fit = typical_times_by_size(a.samples, key, SizeSet::fit), other = all_sizes(b, key);
      const TransferCurve now = fit_transfer_curve(fit, {}), before = fit_transfer_curve(fit, {}, old_fit),
                          tailed = fit_transfer_curve(fit, {}, tail);
      const double e_now = median_abs_error(now, other), e_before = median_abs_error(before, other),
                   e_tailed = median_abs_error(tailed, other);
      std::cout << key.name() << " " << from.substr(from.size() - 40) << " -> other: median |error| now " << e_now << " before "
                << e_before << " with tail " << e_tailed << "; coverage " << coverage(now, other) << " segments "
                << now.segments.size() << "/" << before.segments.size() << "\n";
      const std::string what = key.name() + " fitted on " + from;
      EXPECT_LE(e_now, e_before + 0.01) << what;
      EXPECT_LE(e_now, e_tailed + 0.01) << what;
    }
  }
}

// The 2026-11-26 run on GPU 92e6119c's host (samples v2: single copies and copies in a stream)
// and the independent check run a minute after it: refitted and widened to the repeat's copies
// as scripts/device-run.sh does, every curve is physical and the check's result holds.
TEST(RecordedH100, RunOf2026_11_26IsPhysicalAndHoldsTheIndependentCheck) {
  const std::string dir = kDir + "other/2026-11-26-h100-92e6119c/";
  const std::vector<TransferSample> own = load_samples(dir + "nvidia-h100-80gb-hbm3.pcie_samples.csv.gz").samples;
  const std::vector<TransferSample> repeat = load_samples(dir + "nvidia-h100-80gb-hbm3.repeat.pcie_samples.csv.gz").samples;
  Profile p = load_profile(dir + "nvidia-h100-80gb-hbm3.yaml");
  p.pcie = fit_pcie(own, "recorded");
  widen_intervals_across_runs(*p.pcie, repeat);
  for (const TransferKey& key : calibrated_transfer_keys())
    for (TransferMode mode : {TransferMode::single, TransferMode::stream}) {
      const TransferCurve& c = p.pcie->curve(key, mode);
      const std::string what = key.name() + " " + to_string(mode);
      EXPECT_EQ(c.timing, to_string(mode)) << what;
      EXPECT_LE(c.segments.size(), 4u) << what;
      expect_physical_over_doublings(c, typical_times_by_size(own, key, SizeSet::fit, TimerSource::event, mode), what);
      for (const TransferSegment& s : c.segments) EXPECT_TRUE(s.has_interval()) << what;
    }
  // The check (transfer_check.csv) against this profile: pinned copies of 1 MiB and more within
  // 5 % (median) and inside the interval at least 90 % of the time (measured 1.8 %, 0.97).
  const std::string check = std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/other/2026-11-26-h100-92e6119c/transfer-check/transfer_check.csv";
  std::ifstream in(check);
  std::stringstream text;
  text << in.rdbuf();
  const TransferCheckAnalysis a = analyse_transfer_check(parse_transfer_check(text.str(), check), p);
  bool found = false;
  for (const TransferCheckGroup& g : a.groups)
    if (g.name == "pinned >= 1 MiB") {
      found = true;
      ASSERT_TRUE(g.median_abs_rel_error && g.inside_fraction);
      EXPECT_LE(*g.median_abs_rel_error, 0.05);
      EXPECT_GE(*g.inside_fraction, 0.9);
    }
  EXPECT_TRUE(found);
}
