// refit_profile (model/profile_refit.hpp), called directly: what `perfmodel fit` does between its
// option checks and writing the profile.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <stdexcept>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/profile_refit.hpp"

using namespace perfmodel;

namespace {

const std::string kProfiles = std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/";
const std::string kBundled = kProfiles + "nvidia-h100-80gb-hbm3.yaml";

std::string refusal(const ProfileRefitInputs& inputs) {
  try {
    refit_profile(inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

// The bundled profile's transfer samples re-fitted into it: the pcie section is the samples' (its
// wall time kept from the profile, which the samples do not record), the other sections and the
// measurement's provenance are the profile's, and the re-fit is recorded beside it.
TEST(ProfileRefit, PcieSamplesIntoTheirProfileKeepTheCalibrationWallTimeAndTheOtherSections) {
  const Profile bundled = load_profile(kBundled);
  ProfileRefitInputs in;
  in.base_profile = kBundled;
  in.pcie_samples = kProfiles + "nvidia-h100-80gb-hbm3.pcie_samples.csv";
  in.repeat_pcie_samples = {*in.pcie_samples};  // its own copies again: the holdout and mixed sets widen some regimes
  in.command_line = "perfmodel fit (test)";
  in.output_path = "refit.yaml";
  const ProfileRefit r = refit_profile(in);
  ASSERT_TRUE(r.profile.pcie && r.profile.gpu && r.profile.cpu);
  EXPECT_GT(r.profile.pcie->calibration_wall_s, 0);
  EXPECT_EQ(r.profile.pcie->calibration_wall_s, bundled.pcie->calibration_wall_s);
  EXPECT_EQ(r.profile.pcie->host_buffer, bundled.pcie->host_buffer);
  EXPECT_EQ(r.profile.pcie->samples_file, "nvidia-h100-80gb-hbm3.pcie_samples.csv");
  EXPECT_EQ(r.profile.gpu->ceiling("dram_read").median, bundled.gpu->ceiling("dram_read").median);
  EXPECT_EQ(r.profile.provenance.run_id, bundled.provenance.run_id);
  EXPECT_EQ(r.profile.provenance.refit.rfind("perfmodel fit (test) (toolkit ", 0), 0u) << r.profile.provenance.refit;
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(std::regex_match(r.notes[0], std::regex("fit: .*/nvidia-h100-80gb-hbm3\\.pcie_samples\\.csv widened [0-9]+ transfer regimes' intervals")))
      << r.notes[0];
}

// Samples of another calibration run are refused, naming the field that tells the runs apart:
// the run id where both files have one, else the date (files written before run ids existed).
TEST(ProfileRefit, SamplesOfAnotherRunAreRefusedNamingTheField) {
  const Profile bundled = load_profile(kBundled);
  const std::string repeat = kProfiles + "nvidia-h100-80gb-hbm3.repeat.cpu_samples.csv";
  const CpuSampleFile other = load_cpu_samples(repeat);
  ASSERT_FALSE(other.provenance.run_id.empty());
  ProfileRefitInputs in;
  in.base_profile = kBundled;
  in.cpu_samples = repeat;
  in.output_path = "refit.yaml";
  EXPECT_EQ(refusal(in), repeat + ": run_id '" + other.provenance.run_id + "' differs from " + kBundled + "'s '" +
                             bundled.provenance.run_id + "': the samples are from another calibration run than the profile");

  CpuSampleFile without_id = other;
  without_id.provenance.run_id.clear();
  const std::string old = ::testing::TempDir() + "/refit_no_run_id.cpu_samples.csv";
  std::ofstream(old) << to_csv(without_id);
  in.cpu_samples = old;
  EXPECT_EQ(refusal(in), old + ": date_utc '" + other.provenance.date_utc + "' differs from " + kBundled + "'s '" +
                             bundled.provenance.date_utc + "': the samples are from another calibration run");
}

TEST(ProfileRefit, InputsTheContractExcludesAreAProgrammingError) {
  ProfileRefitInputs in;
  EXPECT_THROW(refit_profile(in), std::invalid_argument);  // nothing to fit
  in.cpu_samples = kProfiles + "xeon-2core-vm.cpu_samples.csv";
  in.repeat_pcie_samples = {kProfiles + "nvidia-h100-80gb-hbm3.pcie_samples.csv"};  // no --samples to widen
  EXPECT_THROW(refit_profile(in), std::invalid_argument);
}
