#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"

using namespace perfmodel;

namespace {

Profile sample_profile() {
  Profile p;
  p.provenance.device_name = "NVIDIA Test: \"quoted\" GPU";
  p.provenance.driver_version = "CUDA 13.0";
  p.provenance.date_utc = "2026-11-22T00:00:00Z";
  p.provenance.command = "perfmodel calibrate --out x.yaml";
  p.pcie = PcieCalibration{};
  p.pcie->samples_file = "x.pcie_samples.csv";
  p.pcie->calibration_wall_s = 12.25;
  TransferCurve c;
  c.samples = 513;
  c.min_bytes = 4;
  c.max_bytes = 1073741824;
  c.fit = {57, 0.0031, 0.012};
  c.holdout = FitQuality{56, 0.0042, 0.019};
  c.segments = {{0, 65537, 9.123456789e-6, 1.0 / 3.3e9, 0, 20, 0.002, 0.01},
                {65537, INFINITY, 2.5e-5, 1.0 / 5.53e10, 2e-7, 37, 0.003, 0.012}};
  p.pcie->curves[{Direction::h2d, HostMemory::pinned}] = c;
  c.holdout.reset();
  p.pcie->curves[{Direction::bidir, HostMemory::pinned}] = c;
  return p;
}

// Replaces the first match of the regex `from` in the sample profile's YAML.
std::string mutated(const std::string& from, const std::string& to) {
  const std::string yaml = profile_to_yaml(sample_profile());
  EXPECT_TRUE(std::regex_search(yaml, std::regex(from))) << "test bug: '" << from << "' not in\n" << yaml;
  return std::regex_replace(yaml, std::regex(from), to, std::regex_constants::format_first_only);
}

std::string error_of(const std::string& yaml) {
  try {
    parse_profile(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(ProfileYaml, RoundTripIsExact) {
  const Profile p = sample_profile();
  const Profile back = parse_profile(profile_to_yaml(p), "p.yaml");
  EXPECT_EQ(back.provenance.device_name, p.provenance.device_name);
  EXPECT_EQ(back.provenance.command, p.provenance.command);
  ASSERT_TRUE(back.pcie);
  EXPECT_EQ(back.pcie->calibration_wall_s, 12.25);
  const TransferCurve& c = back.pcie->curve({Direction::h2d, HostMemory::pinned});
  const TransferCurve& o = p.pcie->curve({Direction::h2d, HostMemory::pinned});
  ASSERT_EQ(c.segments.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(c.segments[i].setup_s, o.segments[i].setup_s);  // bit-exact: 17 significant digits
    EXPECT_EQ(c.segments[i].s_per_byte, o.segments[i].s_per_byte);
    EXPECT_EQ(c.segments[i].from_bytes, o.segments[i].from_bytes);
  }
  EXPECT_TRUE(std::isinf(c.segments[1].to_bytes));
  ASSERT_TRUE(c.holdout);
  EXPECT_EQ(c.holdout->max_rel_error, 0.019);
  EXPECT_FALSE(back.pcie->curve({Direction::bidir, HostMemory::pinned}).holdout.has_value());
  EXPECT_EQ(profile_to_yaml(back), profile_to_yaml(p));
}

TEST(ProfileYaml, EachKindOfBadProfileGetsItsOwnError) {
  const struct {
    std::string from, to, expected;  // expected: a regex the message must match
  } cases[] = {
      {"schema_version: 1", "schema_version: 2", R"(bad\.yaml:2:\d+: schema_version: unsupported profile schema version 2)"},
      {"schema_version: 1", "schema_version: one", R"(bad\.yaml:2:\d+: schema_version: expected an integer)"},
      {"  samples_file: x.pcie_samples.csv\n", "", R"(bad\.yaml:\d+:\d+: pcie\.samples_file: missing key)"},
      {"samples_file:", "sample_file:", R"(pcie\.sample_file: unknown key)"},
      {"setup_s: 9.1", "setup_s: -9.1", R"(bad\.yaml:\d+:\d+: pcie\.curves\.h2d\.pinned\.segments\[0\]\.setup_s: must be >= 0)"},
      {"setup_s: [^,]+", "setup_s: .nan", R"(segments\[0\]\.setup_s: must be finite)"},
      {"setup_s: [^,]+", "setup_s: fast", R"(segments\[0\]\.setup_s: expected a number, got 'fast')"},
      {"from_bytes: 65537", "from_bytes: 60000", R"(segments\[1\]\.from_bytes: overlaps the previous segment)"},
      {"from_bytes: 65537", "from_bytes: 70000", R"(segments\[1\]\.from_bytes: leaves a gap)"},
      {"to_bytes: 65537", "to_bytes: 0", R"(segments\[0\]\.to_bytes: must be greater than from_bytes)"},
      {"to_bytes: .inf", "to_bytes: 2000000", R"(segments\[1\]\.to_bytes: the last segment must extend to \.inf)"},
      {"from_bytes: 0,", "from_bytes: 4,", R"(segments\[0\]\.from_bytes: the first segment must start at 0)"},
      {"timer: cuda_events", "timer: sundial", R"(pcie\.timer: must be cuda_events or host_clock)"},
      {"provenance:\n(  .*\n)+", "provenance: 7\n", R"(bad\.yaml:3:\d+: provenance: expected a mapping)"},
      {"curves:\n(    .*\n)+", "curves: [1, 2]\n", R"(pcie\.curves: expected a mapping)"},
      {"segments:\n(          .*\n)+", "segments: {}\n", R"(segments: expected a list)"},
      {"  h2d:", "  h3d:", R"(pcie\.curves\.h3d: unknown key \(expected one of: h2d, d2h, bidir\))"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(mutated(c.from, c.to));
    EXPECT_TRUE(std::regex_search(message, std::regex(c.expected))) << c.from << " -> " << c.to << "\n  got: " << message;
  }
}

TEST(ProfileYaml, MalformedYamlNamesLineAndColumn) {
  const std::string message = error_of("schema_version: 1\nprovenance: {device_name: [unclosed\n");
  EXPECT_TRUE(std::regex_search(message, std::regex(R"(bad\.yaml:\d+:\d+: malformed YAML)"))) << message;
}

TEST(ProfileYaml, NothingCrashesOnGarbage) {
  for (const char* garbage : {"", "[]", "42", "- a\n- b", "schema_version:\n", "{schema_version: 1}", "\t\t:\n  - ]"}) {
    EXPECT_THROW(parse_profile(garbage, "g.yaml"), InputError) << garbage;
  }
}

TEST(ProfileYaml, SaveIsAtomicAndLoadNamesTheFile) {
  const std::string path = ::testing::TempDir() + "/perfmodel_profile_test.yaml";
  save_profile(sample_profile(), path);
  EXPECT_EQ(load_profile(path).pcie->curves.size(), 2u);
  // A write into a folder that does not exist fails and leaves nothing behind.
  EXPECT_THROW(save_profile(sample_profile(), ::testing::TempDir() + "/no/such/dir/p.yaml"), RuntimeFailure);
  try {
    load_profile(::testing::TempDir() + "/missing.yaml");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.yaml"), std::string::npos);
  }
}
