#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/model/profile_io.hpp"

using namespace perfmodel;

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

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
           {"profile", "show", "--help"}, {"plot", "transfers", "--help"}}) {
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
