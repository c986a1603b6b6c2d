// The report layer called directly (report/): its functions build what the CLI prints, so a
// command is its options, its inputs, a predictor call and one report call. Here the same table
// comes out of the function for a hand-built input as out of the command, and the rules the
// functions carry (null where no value exists, the notes, the measured optimum) hold.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/report/predict_tables.hpp"
#include "perfmodel/report/profile_report.hpp"
#include "perfmodel/report/report.hpp"

namespace {

using namespace perfmodel;          // NOLINT(google-build-using-namespace)
using namespace perfmodel::report;  // NOLINT(google-build-using-namespace)

const std::string kProfile = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/nvidia-h100-80gb-hbm3.yaml";

std::string rendered(const Report& report, Format format) {
  std::ostringstream out;
  render(report, format, out);
  return out.str();
}

TEST(ReportLayer, TransferTableIsWhatPredictTransferPrints) {
  const Profile profile = load_profile(kProfile);
  const std::vector<Transfer> copies = {{{Direction::h2d, HostMemory::pinned}, 64ull << 20}, {{Direction::d2h, HostMemory::pageable}, 4096}};
  for (const TransferMode mode : {TransferMode::single, TransferMode::stream}) {
    Report report;
    add_profile_header(report, kProfile, false, profile.provenance, "profile: " + kProfile);
    add_transfer_prediction(report, CommunicationPredictor(profile).predict(copies, mode), mode, profile.schema_version);
    for (const Format format : {Format::json, Format::table}) {
      std::ostringstream out, err;
      const int code = cli::run({"predict", "transfer", "--bytes", "64MiB", "--add", "d2h:pageable:4096", "--mode", to_string(mode), "--profile",
                                 kProfile, "--format", format == Format::json ? "json" : "table"},
                                out, err);
      ASSERT_EQ(code, 0) << err.str();
      EXPECT_EQ(out.str(), rendered(report, format)) << to_string(mode);
    }
  }
}

TEST(ReportLayer, TransferWithoutIntervalIsNullAndItsCurveNamed) {
  TransferPrediction p;
  p.transfer = {{Direction::h2d, HostMemory::pinned}, 1ull << 40};
  p.seconds = 20;
  p.effective_bytes_per_s = static_cast<double>(p.transfer.bytes) / p.seconds;
  p.timing = "batched";  // a profile of one curve per transfer (schema 2)
  p.extrapolated = true;
  TransferListPrediction list;
  list.transfers = {p};
  list.total_seconds = p.seconds;
  Report report;
  add_transfer_prediction(report, list, TransferMode::single, 2);
  const nlohmann::json doc = nlohmann::json::parse(rendered(report, Format::json));
  EXPECT_TRUE(doc["interval_low_s"].is_null());
  EXPECT_TRUE(doc["interval_high_s"].is_null());
  ASSERT_EQ(doc["transfers"].size(), 1u);
  EXPECT_TRUE(doc["transfers"][0]["interval_low_s"].is_null());
  EXPECT_EQ(doc["transfers"][0]["bytes"].get<std::int64_t>(), std::int64_t{1} << 40);
  EXPECT_TRUE(doc["transfers"][0]["extrapolated"].get<bool>());
  const std::string notes = doc["notes"].dump();
  EXPECT_NE(notes.find("extrapolated"), std::string::npos) << notes;
  EXPECT_NE(notes.find("schema 2"), std::string::npos) << notes;
}

GpuPrediction predicted(double seconds) {
  GpuPrediction p;
  p.seconds = seconds;
  p.bound = "dram";
  return p;
}

TEST(ReportLayer, TuneRankingComparesWithTheMeasuredOptimum) {
  TuneView view{"mm", 1024, {}, {}, "16x16", 3, "a recorded run"};
  view.ranked = {{"32x8", predicted(1.0), 2.0}, {"16x16", predicted(1.5), 1.5}, {"8x8", predicted(2.0), std::nullopt}, {"4x4", predicted(2.5), 3.0}};
  Report report;
  add_tune_ranking(report, view);
  const nlohmann::json doc = nlohmann::json::parse(rendered(report, Format::json));
  EXPECT_EQ(doc["configurations"].get<std::int64_t>(), 4);  // every configuration ranked, three listed
  EXPECT_EQ(doc["predicted_best"], "32x8");
  EXPECT_EQ(doc["measured_best"], "16x16");
  EXPECT_DOUBLE_EQ(doc["loss_vs_measured_optimum"].get<double>(), 2.0 / 1.5 - 1);
  ASSERT_EQ(doc["ranking"].size(), 3u);
  EXPECT_EQ(doc["ranking"][2]["config"], "8x8");
  EXPECT_EQ(doc["ranking"][2]["measured_s"], "not measured");
  EXPECT_NE(doc["notes"].dump().find("a recorded run (3 configurations)"), std::string::npos) << doc["notes"].dump();

  // Fewer than three measured configurations: no optimum is claimed.
  view.ranked[3].measured_s.reset();
  Report fewer;
  add_tune_ranking(fewer, view);
  const nlohmann::json few = nlohmann::json::parse(rendered(fewer, Format::json));
  EXPECT_FALSE(few.contains("measured_best"));
  EXPECT_NE(few["notes"].dump().find("no recorded sweep of mm at n = 1024"), std::string::npos) << few["notes"].dump();
  EXPECT_DOUBLE_EQ(few["ranking"][0]["measured_s"].get<double>(), 2.0);  // still beside each ranked configuration
}

}  // namespace
