#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "cli_run.hpp"
#include "perfmodel/report/report.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/version.hpp"

using namespace perfmodel;

namespace {

using test::Result;
using test::run;

// A small profile on disk: h2d/pinned = 10 us + b / 50 GB/s, one segment.
std::string write_test_profile() {
  Profile p;
  p.provenance.device_name = "Test GPU";
  p.pcie = PcieCalibration{};
  p.pcie->samples_file = "none.csv";
  TransferCurve c;
  c.min_bytes = 4;
  c.max_bytes = 1 << 30;
  c.segments = {{0, INFINITY, 10e-6, 1.0 / 50e9, 0, 10, 0, 0}};
  p.pcie->curves[{Direction::h2d, HostMemory::pinned}] = c;
  const std::string path = ::testing::TempDir() + "/cli_test_profile.yaml";
  save_profile(p, path);
  return path;
}

}  // namespace

TEST(Cli, PredictTransferInEveryFormat) {
  const std::string profile = write_test_profile();
  const std::vector<std::string> base = {"predict", "transfer", "--bytes", "1GB", "--profile", profile};
  const double expected = 10e-6 + 1e9 / 50e9;

  auto json = base;
  json.insert(json.end(), {"--format", "json"});
  const Result j = run(json);
  ASSERT_EQ(j.code, 0) << j.err;
  const YAML::Node doc = YAML::Load(j.out);  // JSON is YAML: one parser checks both
  EXPECT_NEAR(doc["total_seconds"].as<double>(), expected, 1e-12);
  EXPECT_EQ(doc["profile_source"].as<std::string>(), "user");
  EXPECT_EQ(doc["transfers"][0]["bytes"].as<long long>(), 1000000000LL);
  EXPECT_FALSE(doc["transfers"][0]["extrapolated"].as<bool>());

  auto yaml = base;
  yaml.insert(yaml.end(), {"--format", "yaml"});
  const Result y = run(yaml);
  ASSERT_EQ(y.code, 0) << y.err;
  EXPECT_NEAR(YAML::Load(y.out)["transfers"][0]["seconds"].as<double>(), expected, 1e-12);

  auto csv = base;
  csv.insert(csv.end(), {"--format", "csv"});
  const Result c = run(csv);
  ASSERT_EQ(c.code, 0) << c.err;
  std::istringstream lines(c.out);
  std::string line, header, row;
  while (std::getline(lines, line))
    if (line.rfind("direction,", 0) == 0) {
      header = line;
      std::getline(lines, row);
    }
  ASSERT_FALSE(header.empty()) << c.out;
  EXPECT_EQ(row.substr(0, 17), "h2d,pinned,100000");
  const auto seconds_at = std::string(row).find(',', 18);
  EXPECT_NEAR(std::stod(row.substr(seconds_at + 1)), expected, 1e-12);

  const Result t = run(base);
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("20.01 ms"), std::string::npos) << t.out;
}

// A size in a gap the fit bridged says so, with the bridge's line; a size on a fitted segment does
// not. The test's own d2h pageable curve has the bridge the 2026-11-23 profile of GPU 110d06eb had
// between its fit sizes of 786432 and 1048576 B (fits since allow no bridges: segmented_fit.hpp).
TEST(Cli, PredictTransferSaysWhenASizeLiesOnABridge) {
  TransferCurve c;
  c.min_bytes = 4;
  c.max_bytes = 1 << 30;
  const double gap_from = 786432, gap_to = 1048576;
  TransferSegment below{0, gap_from, 10e-6, 1e-10, 0, 20, 0, 0}, above{gap_to, INFINITY, 20e-6, 0.9e-10, 0, 12, 0, 0};
  // The bridge joins the fitted lines' values at the gap's ends, fitted on no size.
  const double t_from = below.seconds(gap_from, false), t_to = above.seconds(gap_to, false);
  const double slope = (t_to - t_from) / (gap_to - gap_from);
  TransferSegment bridge{gap_from, gap_to, t_from - slope * gap_from, slope, 0, 0, 0, 0};
  c.segments = {below, bridge, above};
  Profile p;
  p.provenance.device_name = "Test GPU";
  p.pcie = PcieCalibration{};
  p.pcie->samples_file = "none.csv";
  p.pcie->curves[{Direction::d2h, HostMemory::pageable}] = c;
  const std::string profile = ::testing::TempDir() + "/cli_bridge_profile.yaml";
  save_profile(p, profile);
  auto predict = [&](const std::string& bytes) {
    const Result r = run({"predict", "transfer", "--bytes", bytes, "--direction", "d2h", "--memory", "pageable", "--profile",
                          profile, "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return YAML::Load(r.out)["transfers"][0];
  };
  const YAML::Node in_gap = predict("900000"), fitted = predict("600000");
  EXPECT_TRUE(in_gap["bridge"].as<bool>());
  EXPECT_FALSE(fitted["bridge"].as<bool>());
  EXPECT_EQ(in_gap["segment_to_bytes"].as<double>(), 1048576.0);
  // Between the fitted lines' values at the gap's ends.
  const double at_start = predict("786432")["seconds"].as<double>(), at_end = predict("1048576")["seconds"].as<double>();
  EXPECT_GT(in_gap["seconds"].as<double>(), at_start);
  EXPECT_LT(in_gap["seconds"].as<double>(), at_end);
}

// Rows of one table may have different columns (a transfer curve without held-out sizes has no
// held-out columns; a profile fitted before the noise figures has none of those): the header is
// their union, and a row shows an empty CSV cell or a '-' where it has no value, never a value
// under another column's name.
TEST(Cli, TablesWhoseRowsDifferInColumnsKeepEveryValueUnderItsOwnName) {
  using namespace perfmodel::report;
  Report r;
  r.tables.push_back({"curves", {{{"curve", Cell("a")}, {"fit", Cell(1.0)}},
                                 {{"curve", Cell("b")}, {"fit", Cell(2.0)}, {"holdout", Cell(3.0)}},
                                 {{"curve", Cell("c")}, {"holdout", Cell(4.0)}}}});
  std::ostringstream csv, table;
  render(r, Format::csv, csv);
  render(r, Format::table, table);
  EXPECT_NE(csv.str().find("curve,fit,holdout\na,1,\nb,2,3\nc,,4\n"), std::string::npos) << csv.str();
  EXPECT_NE(table.str().find("holdout"), std::string::npos) << table.str();
  std::istringstream lines(table.str());
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(^\s*c\s+-\s+4\s*$)"))) << table.str();  // c: no fit, holdout 4
}

TEST(Cli, ListsOfTransfersAdd) {
  const std::string profile = write_test_profile();
  const Result r = run({"predict", "transfer", "--profile", profile, "--bytes", "1MB", "--add", "h2d:pinned:2MB", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NEAR(YAML::Load(r.out)["total_seconds"].as<double>(), 2 * 10e-6 + 3e6 / 50e9, 1e-12);
}

TEST(Cli, BadInputExitsOneWithOneClearLine) {
  const std::string profile = write_test_profile();
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"predict", "transfer", "--bytes", "-5", "--profile", profile}, "--bytes: '-5' is not a byte count (negative)"},
      {{"predict", "transfer", "--bytes", "64", "--direction", "sideways", "--profile", profile}, "direction 'sideways'"},
      {{"predict", "transfer", "--bytes", "64", "--memory", "pageable", "--profile", profile}, "no calibration for h2d/pageable"},
      {{"predict", "transfer", "--bytes", "64", "--profile", "/nonexistent.yaml"}, "/nonexistent.yaml: cannot open"},
      {{"predict", "transfer", "--bogus"}, "unrecognised option '--bogus'"},
      {{"predict", "transfer", "--bytes", "64", "--format", "xml", "--profile", profile}, "--format: 'xml'"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"predict", "transfer", "--profile", profile}, "nothing to predict"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 1) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"calibrate", "--help"}, {"fit", "--help"}, {"predict", "transfer", "--help"},
           {"profile", "show", "--help"}, {"plot", "transfers", "--help"}, {"predict", "kernel", "--help"},
           {"predict", "workload", "--help"}, {"tune", "--help"}, {"validate", "--help"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << args[0];
    EXPECT_NE(r.out.find("usage: perfmodel"), std::string::npos) << r.out;
  }
}

TEST(Cli, ProfileShowValidatesTheFile) {
  const std::string path = ::testing::TempDir() + "/cli_bad_profile.yaml";
  {
    std::ofstream f(path);
    f << "schema_version: 99\n";
  }
  const Result r = run({"profile", "show", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(path + ":1:17: schema_version: unsupported profile schema version 99"), std::string::npos) << r.err;
}

TEST(Cli, CalibrateWithoutAGpuFailsWithOneLineAndWritesNothing) {
  const std::string out_path = ::testing::TempDir() + "/never_written.yaml";
  std::remove(out_path.c_str());
  const Result r = run({"calibrate", "--quick", "--only", "pcie.h2d.pinned", "--out", out_path});
  if (r.code == 0) GTEST_SKIP() << "a GPU is present here";
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("perfmodel: error:"), std::string::npos);
  EXPECT_FALSE(std::ifstream(out_path).good());
}

TEST(Cli, CalibrateChecksTheOutputFolderBeforeMeasuring) {
  const std::string missing = ::testing::TempDir() + "/no_such_folder/sub/p.yaml";
  const Result r = run({"calibrate", "--only", "cpu", "--out", missing});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--out '" + missing + "': the folder"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("run  cpu."), std::string::npos) << "measured before failing: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, CalibrateChecksThePcieOptionsBeforeMeasuring) {
  for (const char* bad : {"0.5", "17", "nan", "lots"}) {
    const Result r = run({"calibrate", "--only", "pcie", "--pcie-effort", bad, "--out", ::testing::TempDir() + "/never.yaml"});
    EXPECT_EQ(r.code, 1) << bad;
    EXPECT_NE(r.err.find("--pcie-effort"), std::string::npos) << r.err;
  }
  const Result quick = run({"calibrate", "--quick", "--only", "pcie", "--pcie-effort", "4"});
  EXPECT_EQ(quick.code, 1);
  EXPECT_NE(quick.err.find("--pcie-effort: not with --quick"), std::string::npos) << quick.err;
  for (const char* bad : {"cold", "Rotating", ""}) {
    const Result r = run({"calibrate", "--only", "pcie", "--pcie-host-buffer", bad, "--out", ::testing::TempDir() + "/never.yaml"});
    EXPECT_EQ(r.code, 1) << bad;
    EXPECT_NE(r.err.find("--pcie-host-buffer: expected fixed or rotating, got '" + std::string(bad) + "'"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// GPU predictions from the bundled profile and the bundled validation run's compiled resources.
TEST(Cli, PredictKernelReportsPartsOccupancyAndTheMeasuredTime) {
  const Result r = run({"predict", "kernel", "--kernel", "mv-opt", "--n", "4096", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node j = YAML::Load(r.out);
  EXPECT_EQ(j["config"].as<std::string>(), "32x4");  // S0's rule (4.24): Y = max(8192/n, 4)
  EXPECT_EQ(j["config_from"].as<std::string>(), "White (2013)'s launch rule");
  const double seconds = j["seconds"].as<double>(), measured = j["measured_s"].as<double>();
  EXPECT_GT(seconds, 0);
  EXPECT_NEAR(j["error"].as<double>(), seconds / measured - 1, 1e-9);
  EXPECT_EQ(j["bound"].as<std::string>(), "dram");
  EXPECT_GT(j["with_transfers_s"].as<double>(), seconds);
  EXPECT_EQ(j["roofline_bound"].as<std::string>(), "memory");  // Mv: 2 flop per 4 bytes, far below the ridge
  EXPECT_NEAR(j["flop_per_dram_byte"].as<double>(), 0.5, 0.01);
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["registers"].as<double>(), 32);  // from the recorded resources
  EXPECT_EQ(j["phases"][0]["blocks_per_sm"].as<double>(), 16);
  // Bad input: a configuration the kernel is not compiled for, a size it cannot run.
  const Result bad = run({"predict", "kernel", "--kernel", "mv-opt", "--n", "4096", "--config", "48x4"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("not compiled for 48x4"), std::string::npos) << bad.err;
  const Result odd = run({"predict", "kernel", "--kernel", "mm-opt", "--n", "1000"});
  EXPECT_EQ(odd.code, 1);
  EXPECT_NE(odd.err.find("multiple of"), std::string::npos) << odd.err;
}

// The L2's state at the start: dirty by default (the bundled profile measured what it costs, and
// the validation runs start so); a clean L2 saves a streaming dot product the write-back.
TEST(Cli, PredictKernelTakesTheL2StateAtTheStart) {
  const auto seconds = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"predict", "kernel", "--kernel", "dot", "--n", "16777216", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? YAML::Load(r.out)["seconds"].as<double>() : 0.0;
  };
  const double by_default = seconds({}), dirty = seconds({"--l2", "dirty"}), clean = seconds({"--l2", "clean"});
  EXPECT_EQ(by_default, dirty);
  EXPECT_GT(dirty, clean * 1.05);
  const Result bad = run({"predict", "kernel", "--kernel", "dot", "--n", "16777216", "--l2", "warm"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--l2: expected dirty or clean, got 'warm'"), std::string::npos) << bad.err;
}

TEST(Cli, TuneRanksConfigurationsBesideTheMeasuredSweep) {
  const Result r = run({"tune", "--kernel", "mm", "--n", "4096", "--top", "5", "--format", "json"});  // mm: S0's optimised MM
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node j = YAML::Load(r.out);
  EXPECT_EQ(j["kernel"].as<std::string>(), "mm-opt");
  EXPECT_EQ(j["configurations"].as<int>(), 33);
  ASSERT_EQ(j["ranking"].size(), 5u);
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_LE(j["ranking"][i - 1]["predicted_s"].as<double>(), j["ranking"][i]["predicted_s"].as<double>());
  EXPECT_EQ(j["predicted_best"].as<std::string>(), j["ranking"][0]["config"].as<std::string>());
  EXPECT_GE(j["loss_vs_measured_optimum"].as<double>(), 0);
  EXPECT_LE(j["predicted_best_measured_s"].as<double>() / j["measured_best_s"].as<double>(),
            1 + j["loss_vs_measured_optimum"].as<double>() + 1e-9);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_GT(j["ranking"][i]["measured_s"].as<double>(), 0);
  // Where no sweep was recorded the ranking is the prediction alone: no measured column, no loss.
  const Result alone = run({"tune", "--kernel", "mv-opt", "--n", "5120", "--format", "json"});
  ASSERT_EQ(alone.code, 0) << alone.err;
  const YAML::Node a = YAML::Load(alone.out);
  EXPECT_FALSE(a["loss_vs_measured_optimum"]);
  ASSERT_GT(a["ranking"].size(), 0u);
  for (const YAML::Node& row : a["ranking"]) EXPECT_FALSE(row["measured_s"]);
}

TEST(Cli, PredictWorkloadReadsTheBundledExamples) {
  for (const char* name : {"saxpy", "stencil-2d", "gather-strided", "mv-tiled-one-warp"}) {
    const Result r = run({"predict", "workload", std::string(PERFMODEL_TEST_DATA_DIR) + "/workloads/" + name + ".yaml", "--format", "json"});
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_GT(YAML::Load(r.out)["seconds"].as<double>(), 0) << name;
  }
  // The tiled matrix-vector product described before coding, with its latency chain, predicts
  // what the built-in mv-opt 32x1 descriptor does (both latency-bound), asked with the issue's --block.
  const YAML::Node described = YAML::Load(
      run({"predict", "workload", std::string(PERFMODEL_TEST_DATA_DIR) + "/workloads/mv-tiled-one-warp.yaml", "--format", "json"}).out);
  const Result builtin = run({"predict", "kernel", "--kernel", "mv-opt", "--n", "4096", "--block", "32x1", "--format", "json"});
  ASSERT_EQ(builtin.code, 0) << builtin.err;
  const YAML::Node b = YAML::Load(builtin.out);
  EXPECT_EQ(b["config_from"].as<std::string>(), "--block");
  EXPECT_EQ(described["bound"].as<std::string>(), "latency");
  EXPECT_NEAR(described["seconds"].as<double>() / b["seconds"].as<double>(), 1.0, 0.05);
  EXPECT_EQ(run({"predict", "kernel", "--kernel", "mv-opt", "--n", "4096", "--block", "32x1", "--config", "32x2"}).code, 1);
  // saxpy moves 805 MB at no more than the DRAM peak, and its copies take longer than the kernel.
  const YAML::Node s = YAML::Load(run({"predict", "workload", std::string(PERFMODEL_TEST_DATA_DIR) + "/workloads/saxpy.yaml",
                                       "--format", "json"}).out);
  EXPECT_GT(s["seconds"].as<double>(), 805306368.0 / 3.2e12);
  EXPECT_GT(s["transfers_s"].as<double>(), s["seconds"].as<double>());
  const std::string bad = ::testing::TempDir() + "/bad_workload.yaml";
  std::ofstream(bad) << "perfmodel_workload: 1\nkernels:\n  - grid: [1]\n    block: [32]\n    flops: 5\n";
  const Result r = run({"predict", "workload", bad});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad_workload.yaml:5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("flops"), std::string::npos) << r.err;
}

TEST(Cli, ValidateFromARecordedRunWritesTheReport) {
  const std::string out = ::testing::TempDir() + "/validate_from";
  const Result r = run({"validate", "--from", std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3", "--out", out,
                        "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node j = YAML::Load(r.out);
  EXPECT_GE(j["points"].as<int>(), 400);
  std::ifstream report(out + "/report.md");
  std::stringstream text;
  text << report.rdbuf();
  EXPECT_NE(text.str().find("## Error per kernel"), std::string::npos);
  EXPECT_NE(text.str().find("predicted best vs measured optimum"), std::string::npos);
  std::ifstream predictions(out + "/predictions.csv");
  std::string header;
  std::getline(predictions, header);
  EXPECT_EQ(header.rfind("kernel,family,n,config,default_config,measured_s", 0), 0u) << header;
  // Measuring needs a GPU (or CUDA): a clear runtime failure here, exit 2.
  const Result gpu = run({"validate", "--quick", "--out", out + "/fresh"});
  if (gpu.code != 0) {
    EXPECT_EQ(gpu.code, 2);
    EXPECT_NE(gpu.err.find("cannot validate on a GPU"), std::string::npos) << gpu.err;
  }
  EXPECT_EQ(run({"validate", "--only", "nope", "--out", out}).code, 1);
}

// `fit --profile` re-fits the sections whose samples are given and keeps the rest of the profile
// (including the PCIe calibration's wall time, which the transfer samples do not record); samples
// from another calibration run are refused with one line naming the differing field.
TEST(Cli, FitIntoAProfileKeepsTheOtherSectionsAndRefusesSamplesOfAnotherRun) {
  const std::string dir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";
  const std::string out = ::testing::TempDir() + "/refit_profile.yaml";
  std::remove(out.c_str());
  const Result r = run({"fit", "--profile", dir + "nvidia-h100-80gb-hbm3.yaml", "--samples", dir + "nvidia-h100-80gb-hbm3.pcie_samples.csv",
                        "--out", out, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Profile bundled = load_profile(dir + "nvidia-h100-80gb-hbm3.yaml");
  const Profile refit = load_profile(out);
  ASSERT_TRUE(refit.gpu && refit.cpu && refit.pcie);
  EXPECT_EQ(refit.provenance.date_utc, bundled.provenance.date_utc);
  EXPECT_EQ(refit.provenance.command, bundled.provenance.command);
  // The re-fit is recorded beside the measurement's provenance: the command and this toolkit (it
  // replaces the record of an earlier re-fit: the bundled profile's own was brought up to the
  // ragged-tail rule that way).
  EXPECT_NE(refit.provenance.refit, bundled.provenance.refit);
  EXPECT_EQ(refit.provenance.refit.rfind("perfmodel fit --profile ", 0), 0u) << refit.provenance.refit;
  EXPECT_NE(refit.provenance.refit.find(std::string("commit ") + toolkit_commit()), std::string::npos) << refit.provenance.refit;
  EXPECT_EQ(refit.pcie->calibration_wall_s, bundled.pcie->calibration_wall_s);
  EXPECT_GT(refit.pcie->calibration_wall_s, 0);
  EXPECT_EQ(refit.gpu->ceiling("dram_read").median, bundled.gpu->ceiling("dram_read").median);
  EXPECT_EQ(refit.cpu->kernels.size(), bundled.cpu->kernels.size());
  const TransferKey h2d{Direction::h2d, HostMemory::pinned};
  EXPECT_NEAR(refit.pcie->curve(h2d).seconds(1 << 20) / bundled.pcie->curve(h2d).seconds(1 << 20), 1.0, 1e-6);

  const std::string other = ::testing::TempDir() + "/refit_other.yaml";
  std::remove(other.c_str());
  const Result wrong = run({"fit", "--profile", dir + "nvidia-h100-80gb-hbm3.yaml", "--cpu-samples",
                            dir + "nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv", "--out", other});
  EXPECT_EQ(wrong.code, 1);
  // The first provenance field that tells two runs apart: the run id where the profile has one
  // (schema 4), else the date.
  EXPECT_NE(wrong.err.find(bundled.provenance.run_id.empty() ? "date_utc" : "run_id"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("another calibration run"), std::string::npos) << wrong.err;
  EXPECT_FALSE(std::ifstream(other).good());
}
