// The transfer model's two modes, its intervals, and the independent check's plan, record and
// analysis (validate/transfer_check.hpp), on hand-made data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/validate/transfer_check.hpp"

using namespace perfmodel;

namespace {

// One regime: T(b) = setup + b / rate, with the interval [low, high] × T.
TransferCurve flat_curve(double setup, double rate, double low, double high, const char* timing) {
  TransferCurve c;
  TransferSegment s;
  s.from_bytes = 0;
  s.to_bytes = INFINITY;
  s.setup_s = setup;
  s.s_per_byte = 1.0 / rate;
  s.sizes = 10;
  s.interval_low = low;
  s.interval_high = high;
  c.segments = {s};
  c.min_bytes = 4;
  c.max_bytes = 1 << 30;
  c.timing = timing;
  return c;
}

Profile two_mode_profile() {
  Profile p;
  p.provenance.device_name = "Test GPU";
  p.pcie = PcieCalibration{};
  p.pcie->samples_file = "t.pcie_samples.csv";
  for (Direction d : {Direction::h2d, Direction::d2h})
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable}) {
      const double rate = m == HostMemory::pinned ? 50e9 : 10e9;
      p.pcie->curves[{d, m}] = flat_curve(10e-6, rate, 0.9, 1.2, "single");
      p.pcie->stream_curves[{d, m}] = flat_curve(3e-6, rate, 0.95, 1.1, "stream");
    }
  return p;
}

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/perfmodel_check_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

// ------------------------------------------------------------------ intervals
TEST(TransferInterval, FiveToNinetyFivePercentOfSampleOverModelByHand) {
  TransferCurve c = flat_curve(1.0, 1e30, 0, 0, "single");  // T(b) = 1 s at every size
  // One size, 20 samples 0.90, 0.91, …, 1.09 (in this order: no drift between the halves beyond
  // their medians' 0.10 apart, see below). Weighted quantiles: 5 % of 20 equal weights is the
  // first sample, 95 % the 19th.
  SizeTime m;
  m.bytes = 1000;
  for (int i = 0; i < 20; ++i) m.samples_s.push_back(0.90 + 0.01 * i);
  // Halves: 0.90-0.99 (median 0.945) and 1.00-1.09 (median 1.045): drift |ln(1.045/0.945)|.
  const double drift = std::log(1.045 / 0.945);
  const auto [low, high] = observed_interval({m}, c, 0, INFINITY);
  EXPECT_NEAR(low, std::exp(std::log(0.90) - drift), 1e-12);
  EXPECT_NEAR(high, std::exp(std::log(1.08) + drift), 1e-12);
  // Shuffled so that both halves have the same median: no drift term.
  SizeTime even = m;
  even.samples_s.clear();
  for (int i = 0; i < 10; ++i) even.samples_s.push_back(0.90 + 0.02 * i);  // 0.90, 0.92, …, 1.08
  for (int i = 0; i < 10; ++i) even.samples_s.push_back(0.91 + 0.02 * i);  // 0.91, 0.93, …, 1.09
  const auto [low2, high2] = observed_interval({even}, c, 0, INFINITY);
  EXPECT_NEAR(low2, 0.90 * std::exp(-std::log(1.00 / 0.99)), 1e-12);  // medians 0.99 and 1.00
  EXPECT_NEAR(high2, 1.08 * std::exp(std::log(1.00 / 0.99)), 1e-12);
  // Sizes outside the range, or without samples, give nothing; the interval always holds T.
  EXPECT_EQ(observed_interval({m}, c, 2000, INFINITY), std::make_pair(0.0, 0.0));
  SizeTime slow = m;
  for (double& t : slow.samples_s) t = 2.0;  // every sample above the model
  EXPECT_NEAR(observed_interval({slow}, c, 0, INFINITY).first, 1.0, 1e-12);
}

TEST(TransferInterval, EverySizeWeighsTheSameWhateverItsSampleCount) {
  TransferCurve c = flat_curve(1.0, 1e30, 0, 0, "single");
  SizeTime many, few;
  many.bytes = 10, few.bytes = 20;
  many.samples_s.assign(99, 1.0);  // 99 samples exactly on the model
  few.samples_s.assign(2, 1.5);    // 2 samples 50 % above
  // Half the weight sits at ratio 1.5: the 95 % quantile is 1.5 (pooled unweighted it would be 1.0).
  EXPECT_NEAR(observed_interval({many, few}, c, 0, INFINITY).second, 1.5, 1e-12);
}

TEST(TransferInterval, FittedCurvesCarryTheirRegimesIntervals) {
  std::vector<SizeTime> set;
  for (int k = 2; k <= 30; ++k) {
    SizeTime m;
    m.bytes = std::exp2(k);
    const double t = 8e-6 + m.bytes / 40e9;
    for (int i = 0; i < 8; ++i) m.samples_s.push_back(t * (i % 2 ? 1.03 : 0.97));  // halves' medians equal: no drift
    m.typical_s = t;
    m.samples = 8;
    set.push_back(m);
  }
  const TransferCurve c = fit_transfer_curve(set, {});
  for (const TransferSegment& s : c.segments) {
    ASSERT_TRUE(s.has_interval());
    EXPECT_NEAR(s.interval_low, 0.97, 0.005);
    EXPECT_NEAR(s.interval_high, 1.03, 0.005);
  }
  const auto [lo, hi] = c.interval_s(1e6);
  EXPECT_LT(lo, c.seconds(1e6));
  EXPECT_GT(hi, c.seconds(1e6));
}

TEST(TransferFit, NoRegimeIsFasterThanTheLinkAndAtMostFour) {
  // Measured times whose mid regime implies 80 GB/s: the fit may not go below 1/63 GB/s there.
  std::vector<SizeTime> set;
  for (double b = 1e4; b < 1e9; b *= 1.5) {
    SizeTime m;
    m.bytes = std::round(b);
    m.typical_s = b < 1e6 ? 20e-6 + b / 80e9 : 8e-6 + b / 50e9;
    m.samples = 5;
    set.push_back(m);
  }
  const TransferCurve c = fit_transfer_curve(set, {});
  EXPECT_LE(c.segments.size(), 4u);
  for (const TransferSegment& s : c.segments) {
    EXPECT_GE(s.s_per_byte, 1.0 / kPcieGen5x16BytesPerS * (1 - 1e-12));
    EXPECT_FALSE(s.is_bridge());
  }
}

// ------------------------------------------------------------------ modes
TEST(TransferModes, DefaultIsSingleStreamOnRequestAndListsSumTheirIntervals) {
  const Profile p = two_mode_profile();
  const CommunicationPredictor predictor(p);
  const Transfer t{{Direction::h2d, HostMemory::pinned}, 1000000};
  const TransferPrediction single = predictor.predict(t), stream = predictor.predict(t, TransferMode::stream);
  EXPECT_EQ(single.mode, TransferMode::single);
  EXPECT_DOUBLE_EQ(single.seconds, 10e-6 + 1e6 / 50e9);
  EXPECT_DOUBLE_EQ(stream.seconds, 3e-6 + 1e6 / 50e9);
  EXPECT_EQ(stream.timing, "stream");
  ASSERT_TRUE(single.has_interval);
  EXPECT_DOUBLE_EQ(single.interval_low_s, 0.9 * single.seconds);
  EXPECT_DOUBLE_EQ(single.interval_high_s, 1.2 * single.seconds);
  const TransferListPrediction list = predictor.predict({t, t}, TransferMode::stream);
  EXPECT_TRUE(list.has_interval);
  EXPECT_DOUBLE_EQ(list.interval_low_s, 2 * 0.95 * stream.seconds);
  EXPECT_DOUBLE_EQ(list.interval_high_s, 2 * 1.1 * stream.seconds);
  // A profile without the mode's curve says so.
  Profile only_single = p;
  only_single.pcie->stream_curves.clear();
  try {
    CommunicationPredictor(only_single).predict(t, TransferMode::stream);
    ADD_FAILURE() << "a missing stream curve was not reported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("h2d/pinned transfers (stream copies)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_transfer_mode("stream"), TransferMode::stream);
  EXPECT_FALSE(parse_transfer_mode("async").has_value());
}

TEST(TransferModes, ProfileSchemaFourKeepsBothModesAndIntervalsAndReadsThree) {
  const Profile p = two_mode_profile();
  const std::string yaml = profile_to_yaml(p);
  EXPECT_NE(yaml.find("schema_version: 4"), std::string::npos);
  const Profile back = parse_profile(yaml, "p.yaml");
  const TransferCurve& s = back.pcie->curve({Direction::d2h, HostMemory::pageable}, TransferMode::stream);
  EXPECT_EQ(s.timing, "stream");
  EXPECT_DOUBLE_EQ(s.segments[0].interval_low, 0.95);
  EXPECT_DOUBLE_EQ(s.segments[0].interval_high, 1.1);
  // Bad intervals name the key.
  auto error = [&](const std::string& from, const std::string& to) {
    std::string text = yaml;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    try {
      parse_profile(text, "bad.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(error("interval_low: 0.9", "interval_low: 1.5").find("interval_low: must lie in (0, 1]"), std::string::npos);
  EXPECT_NE(error("interval_high: 1.2", "interval_high: 0.5").find("interval_high: must be a finite ratio >= 1"), std::string::npos);
  EXPECT_NE(error("timing: single", "timing: burst").find("timing: must be single, stream or batched"), std::string::npos);
  // Schema 3 (no timing, no intervals, no stream curves): one batched curve serves both modes.
  Profile old = p;
  old.pcie->stream_curves.clear();
  for (auto& [key, c] : old.pcie->curves)
    for (TransferSegment& seg : c.segments) seg.interval_low = seg.interval_high = 0;
  std::string v3 = profile_to_yaml(old);
  v3.replace(v3.find("schema_version: 4"), 17, "schema_version: 3");
  for (std::size_t at; (at = v3.find("timing: single\n")) != std::string::npos;) {
    const std::size_t line = v3.rfind('\n', at);
    v3.erase(line, at + 14 - line);
  }
  const Profile three = parse_profile(v3, "v3.yaml");
  const TransferCurve& batched = three.pcie->curve({Direction::h2d, HostMemory::pinned}, TransferMode::stream);
  EXPECT_EQ(batched.timing, "batched");
  EXPECT_FALSE(CommunicationPredictor(three).predict({{Direction::h2d, HostMemory::pinned}, 64}).has_interval);
}

// ------------------------------------------------------------------ the check
TEST(TransferCheckPlan, RandomSizesNoCalibrationTimesEachCopiedRepsTimes) {
  TransferCheckPlanOptions o;
  o.seed = 42;
  o.sizes_per_key = 10;
  o.reps = 3;
  const auto copies = transfer_check_plan(o);
  EXPECT_EQ(copies.size(), 4u * 10 * 3);
  std::map<std::pair<TransferKey, std::uint64_t>, int> count;
  for (const TransferCheckCopy& c : copies) {
    EXPECT_FALSE(is_calibration_size(c.bytes)) << c.bytes;
    EXPECT_GE(c.bytes, o.min_bytes);
    EXPECT_LE(c.bytes, o.max_bytes);
    EXPECT_NE(c.key.direction, Direction::bidir);
    ++count[{c.key, c.bytes}];
  }
  EXPECT_EQ(count.size(), 40u);
  for (const auto& [k, n] : count) EXPECT_EQ(n, 3);
  // Deterministic by seed, different across seeds.
  const auto again = transfer_check_plan(o);
  EXPECT_TRUE(std::equal(copies.begin(), copies.end(), again.begin(),
                         [](const TransferCheckCopy& a, const TransferCheckCopy& b) { return a.bytes == b.bytes && a.key == b.key; }));
  o.seed = 43;
  EXPECT_NE(transfer_check_plan(o).front().bytes + transfer_check_plan(o)[1].bytes, copies.front().bytes + copies[1].bytes);
  EXPECT_TRUE(is_calibration_size(4096));
  EXPECT_TRUE(is_calibration_size(3 * 4096 / 2));
  EXPECT_FALSE(is_calibration_size(4097));
  o.reps = 0;
  EXPECT_THROW(transfer_check_plan(o), std::invalid_argument);
}

TEST(TransferCheckAnalysis, CoverageAndMedianErrorsByHandOnASyntheticRecord) {
  const Profile p = two_mode_profile();
  TransferCheckRecord r;
  r.seed = 7;
  // h2d pinned 2 MiB + 1: predicted T = 10 µs + b/50e9; copies at 1.0, 1.1, 1.3 T (1.3 outside [0.9, 1.2]).
  const std::uint64_t big = (2u << 20) + 1, small = 1001;
  const double t_big = 10e-6 + static_cast<double>(big) / 50e9, t_small = 10e-6 + static_cast<double>(small) / 50e9;
  int rep = 0;
  for (double f : {1.0, 1.1, 1.3}) r.copies.push_back({{Direction::h2d, HostMemory::pinned}, big, rep++, f * t_big});
  // h2d pinned 1001 B: copies at 0.8, 0.95, 1.0 T (0.8 outside).
  for (double f : {0.8, 0.95, 1.0}) r.copies.push_back({{Direction::h2d, HostMemory::pinned}, small, rep++, f * t_small});
  const TransferCheckAnalysis a = analyse_transfer_check(r, p);
  ASSERT_EQ(a.sizes.size(), 2u);
  const TransferCheckSize& s_small = a.sizes[0].bytes == small ? a.sizes[0] : a.sizes[1];
  const TransferCheckSize& s_big = a.sizes[0].bytes == big ? a.sizes[0] : a.sizes[1];
  EXPECT_NEAR(s_big.measured_s, 1.1 * t_big, 1e-15);  // median copy
  EXPECT_NEAR(s_big.relative_error, 1 / 1.1 - 1, 1e-12);
  EXPECT_NEAR(s_small.measured_s, 0.95 * t_small, 1e-15);
  EXPECT_EQ(s_big.inside, 2u);
  EXPECT_EQ(s_small.inside, 2u);
  auto group = [&](const std::string& name) {
    for (const TransferCheckGroup& g : a.groups)
      if (g.name == name) return g;
    ADD_FAILURE() << "no group " << name;
    return TransferCheckGroup{};
  };
  const TransferCheckGroup all = group("all");
  EXPECT_EQ(all.copies, 6u);
  EXPECT_NEAR(*all.inside_fraction, 4.0 / 6.0, 1e-12);
  const TransferCheckGroup large = group("pinned >= 1 MiB");
  EXPECT_NEAR(*large.median_abs_rel_error, 1 - 1 / 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(*large.target_median_abs_rel_error, 0.05);
  EXPECT_NEAR(*group("pinned < 1 MiB").median_abs_rel_error, 1 / 0.95 - 1, 1e-12);
  EXPECT_DOUBLE_EQ(*group("pinned < 1 MiB").target_median_abs_rel_error, 0.10);
  // Against stream predictions (3 µs setup) the small copy is farther off.
  EXPECT_GT(std::fabs(analyse_transfer_check(r, p, TransferMode::stream).sizes[0].relative_error),
            std::fabs(s_small.relative_error));
}

TEST(TransferCheckRecord, RoundTripsAndNamesFileLineAndColumnOfBadRows) {
  TransferCheckRecord r;
  r.seed = 123456789012345ull;
  r.profile = "p.yaml";
  r.provenance.device_name = "Test GPU";
  r.copies = {{{Direction::d2h, HostMemory::pageable}, 777, 2, 1.25e-5}};
  const TransferCheckRecord back = parse_transfer_check(to_csv(r), "c.csv");
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.profile, "p.yaml");
  EXPECT_EQ(back.provenance.device_name, "Test GPU");
  ASSERT_EQ(back.copies.size(), 1u);
  EXPECT_EQ(back.copies[0].key, (TransferKey{Direction::d2h, HostMemory::pageable}));
  EXPECT_EQ(back.copies[0].bytes, 777u);
  EXPECT_DOUBLE_EQ(back.copies[0].event_s, 1.25e-5);
  const std::string head = "# perfmodel transfer check v1\n# seed: 1\ndirection,memory,bytes,rep,event_s\n";
  const struct {
    std::string text, message;
  } cases[] = {{head + "bidir,pinned,4,0,1e-5\n", "c.csv:4: direction: 'bidir' is not h2d or d2h"},
               {head + "h2d,shared,4,0,1e-5\n", "c.csv:4: memory"},
               {head + "h2d,pinned,0,0,1e-5\n", "c.csv:4: bytes"},
               {head + "h2d,pinned,4,0,-1e-5\n", "c.csv:4: event_s"},
               {head + "h2d,pinned,4,0\n", "c.csv:4: row: expected 5 columns"},
               {"# perfmodel transfer samples v2\n", "c.csv:1: header"},
               {head, "c.csv: no copies recorded"}};
  for (const auto& c : cases) {
    try {
      parse_transfer_check(c.text, "c.csv");
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

// ------------------------------------------------------------------ command line
TEST(TransferCheckCli, FromARecordWritesTheAnalysisAndRejectsBadInput) {
  const std::string dir = temp_dir("from");
  save_profile(two_mode_profile(), dir + "/p.yaml");
  TransferCheckRecord r;
  r.seed = 1;
  for (int i = 0; i < 3; ++i) r.copies.push_back({{Direction::h2d, HostMemory::pinned}, 5000, i, 10.1e-6 + 0.1e-6 * i});
  std::ofstream(dir + "/transfer_check.csv") << to_csv(r);
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"check", "transfers", "--from", dir, "--profile", dir + "/p.yaml", "--format", "json"}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("\"prediction_of\": \"one synchronous cudaMemcpy"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"inside_fraction\": 1"), std::string::npos) << out.str();
  for (const char* f : {"transfer_check_sizes.csv", "transfer_check_summary.csv"}) EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  std::ifstream sizes(dir + "/transfer_check_sizes.csv");
  const std::string text((std::istreambuf_iterator<char>(sizes)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("measured_s,predicted_s,relative_error,interval_low_s,interval_high_s"), std::string::npos) << text;
  // Bad input: exit 1, naming the flag or the file.
  const struct {
    std::vector<std::string> args;
    std::string message;
  } bad[] = {{{"check", "transfers", "--from", dir, "--profile", dir + "/p.yaml", "--mode", "async"}, "--mode"},
             {{"check", "transfers", "--from", dir, "--profile", dir + "/p.yaml", "--reps", "3"}, "--reps: not with --from"},
             {{"check", "transfers", "--from", dir + "/none", "--profile", dir + "/p.yaml"}, "transfer_check.csv"},
             {{"check", "transfers", "--profile", dir + "/p.yaml"}, "give --out DIR"},
             {{"check", "transfers", "--out", dir, "--profile", dir + "/p.yaml", "--sizes", "0"}, "--sizes"},
             {{"check", "bandwidth"}, "unknown target 'bandwidth'"}};
  for (const auto& b : bad) {
    std::ostringstream o, e;
    EXPECT_EQ(cli::run(b.args, o, e), 1) << b.message;
    EXPECT_NE(e.str().find(b.message), std::string::npos) << e.str();
  }
}

TEST(TransferCheckCli, PredictTransferStatesItsModeAndInterval) {
  const std::string dir = temp_dir("predict");
  save_profile(two_mode_profile(), dir + "/p.yaml");
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"predict", "transfer", "--bytes", "1MB", "--mode", "stream", "--profile", dir + "/p.yaml", "--format", "csv"}, out,
                     err),
            0)
      << err.str();
  EXPECT_NE(out.str().find("queued back to back in a stream"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("interval_low_s"), std::string::npos);
  std::ostringstream yaml;
  ASSERT_EQ(cli::run({"predict", "transfer", "--bytes", "1MB", "--profile", dir + "/p.yaml", "--format", "yaml"}, yaml, err), 0);
  EXPECT_NE(yaml.str().find("mode: \"single\""), std::string::npos) << yaml.str();
  EXPECT_NE(yaml.str().find("interval_high_s: " ), std::string::npos);
  std::ostringstream o, e;
  EXPECT_EQ(cli::run({"predict", "transfer", "--bytes", "1MB", "--mode", "pipelined", "--profile", dir + "/p.yaml"}, o, e), 1);
  EXPECT_NE(e.str().find("--mode: expected single or stream"), std::string::npos) << e.str();
}

// The fit the calibration runs on its samples (v2: single copies everywhere, queued copies up to
// a few milliseconds): two curves, the stream one taking the single copies above its largest size.
TEST(TransferModes, FitPcieFitsBothModesFromVersionTwoSamples) {
  std::vector<TransferSample> samples;
  const TransferKey key{Direction::h2d, HostMemory::pinned};
  int round = 0;
  for (std::uint64_t b = 4; b <= (std::uint64_t{1} << 30); b *= 2)
    for (int r = 0; r < 8; ++r, ++round) {  // halves of 4: equal medians, no drift
      const double single = 10e-6 + static_cast<double>(b) / 50e9, stream = 3e-6 + static_cast<double>(b) / 50e9;
      const double wobble = r % 2 ? 1.01 : 0.99;
      samples.push_back({key, b, SizeSet::fit, r, 1, single * wobble, single * wobble, TransferMode::single});
      if (b <= (std::uint64_t{64} << 20))
        samples.push_back({key, b, SizeSet::fit, r, 16, stream * wobble, stream * wobble, TransferMode::stream});
    }
  const PcieCalibration p = fit_pcie(samples, "s.csv");
  const TransferCurve& single = p.curve(key), &stream = p.curve(key, TransferMode::stream);
  EXPECT_EQ(single.timing, "single");
  EXPECT_EQ(stream.timing, "stream");
  EXPECT_EQ(stream.max_bytes, std::exp2(30));  // the single copies above 64 MiB joined it
  EXPECT_NEAR(single.seconds(4), 10e-6, 0.3e-6);
  EXPECT_NEAR(stream.seconds(4), 3e-6, 0.1e-6);
  EXPECT_NEAR(stream.seconds(std::exp2(30)) / single.seconds(std::exp2(30)), 1.0, 0.01);
  for (const TransferSegment& s : single.segments) {
    EXPECT_NEAR(s.interval_low, 0.99, 0.003);
    EXPECT_NEAR(s.interval_high, 1.01, 0.003);
  }
  // Another run 10 % slower widens the intervals to hold it.
  std::vector<TransferSample> slower = samples;
  for (TransferSample& s : slower) s.event_s *= 1.10;
  PcieCalibration widened = p;
  EXPECT_GT(widen_intervals_across_runs(widened, slower), 0u);
  EXPECT_GE(widened.curve(key).segments.back().interval_high, 1.10);
  EXPECT_NEAR(widened.curve(key).segments.back().interval_low, 0.99, 0.003);
}
