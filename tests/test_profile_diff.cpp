// perfmodel profile diff: two recorded H100 profiles side by side.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "cli.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/report/profile_diff.hpp"

using namespace perfmodel;

namespace {
const std::string kDir = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";
const std::string kBundled = kDir + "nvidia-h100-80gb-hbm3.yaml";
const std::string kRepeat = kDir + "nvidia-h100-80gb-hbm3.repeat.yaml";
const std::string kOther = kDir + "other/2026-11-23-h100-f6238019/nvidia-h100-80gb-hbm3.yaml";

const perfmodel::report::Record* row_of(const perfmodel::report::Report& r, const std::string& key) {
  for (const perfmodel::report::Record& row : r.tables.at(0).rows)
    if (std::get<std::string>(row.at(0).second.value) == key) return &row;
  return nullptr;
}
double number(const perfmodel::report::Record& row, std::size_t column) { return std::get<double>(row.at(column).second.value); }
}  // namespace

TEST(ProfileDiff, AProfileAgainstItselfDiffersNowhere) {
  const Profile p = load_profile(kBundled);
  const perfmodel::report::Report r = perfmodel::report::profile_diff_report(p, p);
  ASSERT_GT(r.tables.at(0).rows.size(), 60u);
  for (const perfmodel::report::Record& row : r.tables.at(0).rows) {
    EXPECT_EQ(number(row, 4), 0.0) << std::get<std::string>(row.at(0).second.value);
    EXPECT_FALSE(std::get<bool>(row.at(6).second.value));
  }
}

TEST(ProfileDiff, TwoMachinesShareTheirCeilingsAndDifferInPageableCopies) {
  const perfmodel::report::Report r = perfmodel::report::profile_diff_report(load_profile(kBundled), load_profile(kOther));
  // Two H100 SXM of one kind: the HBM3 read ceiling within 3 %, FP32 within 3 % (63.5-64.2 Tflop/s
  // over the H100 machines calibrated on 2026-11-23..27: 1.2 % apart).
  const perfmodel::report::Record* dram = row_of(r, "gpu.ceilings.dram_read");
  ASSERT_NE(dram, nullptr);
  EXPECT_LT(std::abs(number(*dram, 4)), 0.03);
  const perfmodel::report::Record* fp32 = row_of(r, "gpu.ceilings.fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_LT(std::abs(number(*fp32, 4)), 0.03);
  // Every PCIe curve is compared at five sizes, each with the spread its fit saw.
  const perfmodel::report::Record* pageable = row_of(r, "pcie.h2d/pageable.seconds_at_1048576_bytes");
  ASSERT_NE(pageable, nullptr);
  EXPECT_GT(std::get<double>(pageable->at(5).second.value), 0.0);
  EXPECT_NE(row_of(r, "cpu.kernels.mv.efficiency"), nullptr);
}

TEST(ProfileDiff, CliFormatsAndBadInput) {
  std::ostringstream out, err;
  ASSERT_EQ(cli::run({"profile", "diff", kBundled, kRepeat, "--format", "json"}, out, err), 0) << err.str();
  const YAML::Node json = YAML::Load(out.str());
  EXPECT_EQ(json["same_gpu"].as<bool>(), true);
  EXPECT_GT(json["quantities"].size(), 60u);
  std::ostringstream out2, err2;
  EXPECT_EQ(cli::run({"profile", "diff", kBundled}, out2, err2), 1);
  EXPECT_NE(err2.str().find("b"), std::string::npos);
  std::ostringstream out3, err3;
  EXPECT_EQ(cli::run({"profile", "diff", kBundled, kDir + "no-such.yaml"}, out3, err3), 1);
  EXPECT_NE(err3.str().find("no-such.yaml"), std::string::npos) << err3.str();
}
