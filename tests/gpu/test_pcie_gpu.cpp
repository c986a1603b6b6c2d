// GPU tests (CTest label `gpu`): run on the device machine, never in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/calibration.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/pcie_sizes.hpp"
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/validate/transfer_check.hpp"

using namespace perfmodel;

TEST(GpuDevice, ProvenanceNamesTheDevice) {
  ASSERT_FALSE(gpu_unavailable_reason().has_value()) << *gpu_unavailable_reason();
  Provenance p;
  fill_device_provenance(p);
  EXPECT_FALSE(p.device_name.empty());
  EXPECT_TRUE(std::regex_match(p.device_uuid, std::regex("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << p.device_uuid;
  EXPECT_TRUE(std::regex_match(p.pci_bus_id, std::regex("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.0"))) << p.pci_bus_id;
  EXPECT_NE(p.driver_version.find("CUDA "), std::string::npos);
}

// The three pinned curves in one registry share its pinned host buffers (the second and third
// find them allocated); each verifies its copied bytes at three sizes.
TEST(GpuPcie, QuickPinnedCalibrationIsPhysicallyPlausibleAndFits) {
  const BenchmarkRegistry registry = make_default_registry();
  const auto selected = registry.select({"pcie.h2d.pinned", "pcie.d2h.pinned", "pcie.bidir.pinned"});
  ASSERT_EQ(selected.size(), 3u);
  CalibrationOptions options;
  options.quick = true;
  CalibrationData data;
  for (Benchmark* b : selected) b->run(options, data);  // also verifies copied bytes
  const PcieCalibration pcie = fit_pcie(data.transfer_samples, "mem");
  for (const auto& [key, curve] : pcie.curves) {
    const double gib = 1073741824.0;
    const double rate = gib / curve.seconds(gib);
    EXPECT_GT(rate, 5e9) << key.name();    // far slower than any x16 link: something is wrong
    EXPECT_LT(rate, 130e9) << key.name();  // faster than PCIe Gen6 x16 per direction: impossible
    EXPECT_GT(curve.seconds(4), 1e-6) << key.name();  // a copy costs at least a driver round trip
    EXPECT_EQ(curve.timing, "single") << key.name();
    EXPECT_LT(curve.fit.mean_rel_error, 0.05) << key.name();
    for (const TransferSegment& s : curve.segments) EXPECT_TRUE(s.has_interval()) << key.name();
    // A queued copy costs less than one synchronous copy timed on its own (no round trip).
    const TransferCurve& stream = pcie.curve(key, TransferMode::stream);
    EXPECT_EQ(stream.timing, "stream") << key.name();
    EXPECT_LT(stream.seconds(4), curve.seconds(4)) << key.name();
  }
}

// pcie.mixed times copies of the four one-way kinds among each other; the fit moves the single
// curves' fixed cost by what they cost beyond the back-to-back copies (a few µs, either way).
TEST(GpuPcie, MixedCopiesSetTheSingleCurvesFixedCost) {
  const BenchmarkRegistry registry = make_default_registry();
  const auto selected = registry.select({"pcie.h2d.pinned", "pcie.mixed"});
  ASSERT_EQ(selected.size(), 2u);
  CalibrationOptions options;
  options.quick = true;
  CalibrationData data;
  for (Benchmark* b : selected) b->run(options, data);
  std::size_t mixed = 0;
  for (const TransferSample& s : data.transfer_samples)
    if (s.set == SizeSet::mixed) {
      ++mixed;
      EXPECT_EQ(s.mode, TransferMode::single);
      EXPECT_GT(s.event_s, 1e-6);
      EXPECT_GE(s.wall_s, s.event_s * 0.5);
    }
  EXPECT_EQ(mixed, pcie_mixed_plan(true, 1).size());
  const PcieCalibration pcie = fit_pcie(data.transfer_samples, "mem");
  const TransferCurve& h2d = pcie.curve({Direction::h2d, HostMemory::pinned}, TransferMode::single);
  EXPECT_NE(h2d.mixed_setup_s, 0.0);
  EXPECT_LT(std::abs(h2d.mixed_setup_s), 20e-6);
  EXPECT_GT(h2d.seconds(4), 1e-6);
}

// The independent check's own loop times copies of every kind.
TEST(GpuPcie, TransferCheckTimesEveryCopy) {
  TransferCheckPlanOptions o;
  o.sizes_per_key = 3;
  o.reps = 2;
  o.max_bytes = 1 << 20;
  std::vector<TransferCheckCopy> copies = transfer_check_plan(o);
  time_transfer_check(copies, nullptr);
  for (const TransferCheckCopy& c : copies) {
    EXPECT_GT(c.event_s, 1e-7) << c.key.name() << " " << c.bytes;
    EXPECT_LT(c.event_s, 0.1) << c.key.name() << " " << c.bytes;
  }
}
