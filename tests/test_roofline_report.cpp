// The roofline's bounds by hand, the plots drawn from the recorded data, and the shared report
// opened in a real headless browser (Debian's chromium) with every image loaded.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/roofline.hpp"

using namespace perfmodel;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;

int run_cli(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::ostringstream o, e;
  const int code = cli::run(args, o, e);
  if (out) *out = o.str() + e.str();
  return code;
}

bool svg_drawn(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str().find("<svg") != std::string::npos && s.str().size() > 5000;
}

}  // namespace

TEST(Roofline, BoundsComeOutByHand) {
  Roofline r;
  r.memory = {{"dram", 2e12, 0}, {"l2", 8e12, 0}};
  r.compute = {{"fp32", 60e12, 0}, {"fp64", 30e12, 0}};
  // Ridge π/β = 30 flop/byte; below it β·I, above it π.
  const RooflineBound low = roofline_bound(r, 10, "dram", "fp32", 10e12);
  EXPECT_DOUBLE_EQ(low.ridge, 30);
  EXPECT_DOUBLE_EQ(low.attainable, 20e12);
  EXPECT_TRUE(low.memory_bound);
  EXPECT_DOUBLE_EQ(low.headroom, 2);
  const RooflineBound high = roofline_bound(r, 100, "dram", "fp32");
  EXPECT_DOUBLE_EQ(high.attainable, 60e12);
  EXPECT_FALSE(high.memory_bound);
  EXPECT_DOUBLE_EQ(high.headroom, 0);
  // Another pair of roofs: the L2 ridge for FP64 is 30/8 = 3.75.
  const RooflineBound l2 = roofline_bound(r, 3.75, "l2", "fp64");
  EXPECT_DOUBLE_EQ(l2.ridge, 3.75);
  EXPECT_DOUBLE_EQ(l2.attainable, 30e12);
  EXPECT_FALSE(l2.memory_bound);  // exactly at the ridge: compute-bound
  EXPECT_THROW(roofline_bound(r, 0, "dram", "fp32"), InputError);
  EXPECT_THROW(roofline_bound(r, 1, "hbm9", "fp32"), InputError);
  EXPECT_THROW(roofline_bound(r, 1, "dram", "fp8"), InputError);
}

TEST(Roofline, TheBundledProfileGivesMeasuredRoofsUnderTheirDatasheetPeaks) {
  const Roofline r = roofline_of(load_profile(kData + "/profiles/nvidia-h100-80gb-hbm3.yaml"));
  for (const auto* roofs : {&r.memory, &r.compute})
    for (const Roof& roof : *roofs) {
      EXPECT_GT(roof.value, 0) << roof.name;
      if (roof.theoretical > 0) {
        EXPECT_LT(roof.value, 1.02 * roof.theoretical) << roof.name;
      }
    }
  EXPECT_NEAR(r.memory_roof("pcie").value / 55e9, 1.0, 0.05);
  EXPECT_GT(r.memory_roof("shared").value, r.memory_roof("l2").value);
  EXPECT_GT(r.memory_roof("l2").value, r.memory_roof("dram").value);
  EXPECT_NEAR(r.compute_roof("fp32").value / r.memory_roof("dram").value, 20.4, 1.0);  // the H100's DRAM ridge
}

TEST(Roofline, PlotsAreDrawnFromTheRecordedData) {
  const std::string dir = ::testing::TempDir() + "/roofline_plots";
  std::string out;
  ASSERT_EQ(run_cli({"roofline", "--out", dir + "/roof", "--workload", kData + "/workloads/saxpy.yaml", "--format", "csv"}, &out), 0) << out;
  EXPECT_TRUE(svg_drawn(dir + "/roof/roofline.svg"));
  EXPECT_TRUE(std::filesystem::file_size(dir + "/roof/roofline.png") > 5000);
  std::ifstream points(dir + "/roof/points.csv");
  std::string line;
  int rows = -1;
  while (std::getline(points, line)) ++rows;
  EXPECT_EQ(rows, static_cast<int>(gpu_kernel_specs().size()));  // one point per reference kernel
  ASSERT_EQ(run_cli({"plot", "speedup", "--out", dir + "/speedup", "--format", "csv"}, &out), 0) << out;
  EXPECT_TRUE(svg_drawn(dir + "/speedup/speedup.svg"));
  EXPECT_TRUE(svg_drawn(dir + "/speedup/variants.svg"));
  // Measured and predicted speedups agree where both exist (within the CPU model's spread).
  std::ifstream measured(dir + "/speedup/speedup_measured.csv");
  std::getline(measured, line);
  int measured_points = 0;
  while (std::getline(measured, line)) ++measured_points;
  EXPECT_GE(measured_points, 15);
}

TEST(Report, OpensInHeadlessChromiumWithEveryImageLoaded) {
  const std::string chromium = "/usr/bin/chromium";
  ASSERT_TRUE(std::filesystem::exists(chromium)) << "Debian's chromium is needed (scripts/install-deps.sh installs it)";
  const std::string dir = ::testing::TempDir() + "/report";
  std::filesystem::remove_all(dir);
  std::string out;
  ASSERT_EQ(run_cli({"report", dir}, &out), 0) << out;
  ASSERT_TRUE(std::filesystem::exists(dir + "/report.md"));
  const std::string profile_dir = ::testing::TempDir() + "/chromium-profile";
  const std::string command = chromium +
                              " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
                              " --disable-component-update --disable-sync --user-data-dir=" + profile_dir +
                              " --virtual-time-budget=10000 --dump-dom file://" + std::filesystem::absolute(dir + "/report.html").string() +
                              " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  ASSERT_TRUE(pipe);
  std::string dom;
  std::array<char, 65536> buffer{};
  std::size_t got = 0;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) dom.append(buffer.data(), got);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-images-total=\"(\\d+)\" data-images-loaded=\"(\\d+)\"")))
      << "the page's load check did not run: " << dom.substr(0, 300);
  EXPECT_GE(std::stoi(m[1]), 7);  // microbench, transfers, cpu, validation, roofline, speedup, variants
  EXPECT_EQ(m[1], m[2]);           // every image decoded
  EXPECT_NE(dom.find("GPU kernel time: validation"), std::string::npos);
}
