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
  p.pcie->host_buffer = "rotating";
  TransferCurve c;
  c.samples = 513;
  c.min_bytes = 4;
  c.max_bytes = 1073741824;
  c.fit = {57, 0.0031, 0.012, {}};
  c.holdout = FitQuality{56, 0.0042, 0.019, FitQuality::Noise{0.009, 0.064, 20}};
  c.segments = {{0, 65537, 9.123456789e-6, 1.0 / 3.3e9, 0, 20, 0.002, 0.01},
                {65537, INFINITY, 2.5e-5, 1.0 / 5.53e10, 2e-7, 37, 0.003, 0.012}};
  p.pcie->curves[{Direction::h2d, HostMemory::pinned}] = c;
  c.holdout.reset();
  p.pcie->curves[{Direction::bidir, HostMemory::pinned}] = c;

  GpuCalibration g;
  g.samples_file = "x.gpu_samples.csv";
  g.calibration_wall_s = 7.5;
  for (auto& [name, value] : g.device.fields()) *value = 1;
  g.device.multiprocessors = 132;
  g.device.l2_cache_bytes = 52428800;
  g.ceilings["dram_read"] = {3.1e12, 3.0e12, 3.2e12, 20, "threads=256"};
  g.ceilings["fp32"] = {6.3e13, 6.2e13, 6.4e13, 7, "threads=128"};
  g.ceilings["int32_logic"] = {2.5e13, 2.49e13, 2.51e13, 7, "blocks_per_sm=8;chains=16;threads=256"};
  SaturationCurve sat;
  sat.peak_Bps = 3.08e12, sat.latency_s = 4.09e-7, sat.sharpness = 2.6, sat.max_requests_per_warp = 4.5, sat.points = 130;
  sat.fit = {130, 0.025, 0.14, {}};
  sat.holdout = FitQuality{70, 0.02, 0.11, {}};
  g.dram_concurrency = sat;
  sat.peak_Bps = 2.7e12, sat.max_requests_per_warp = 7.5, sat.holdout.reset();
  g.dram_concurrency_rows = sat;
  g.latency = LatencyLevels{2e-8, 1.7e-7, 3.4e-7, 4096, 8388608, 536870912};
  g.operation_latency = OperationLatency{3.5e-9, 5.3e-8};
  ConflictCurve conflicts;
  conflicts.seconds_per_access = {5.1e-10, 1.02e-9, 1.53e-9};
  conflicts.intercept_s = 0;
  conflicts.slope_s = 5.1e-10;
  conflicts.fit = {3, 0.001, 0.002, {}};
  g.bank_conflicts[4] = conflicts;
  PartitionCalibration part;
  part.penalty = 1.01, part.worst_granule_bytes = 256, part.worst_stride_bytes = 32768;
  part.sweep = {{"granule_bytes", "stride_bytes", "slots_used", "Bps"}, {{256, 4096, 1, 2.8e12}, {256, 4096, 16, 2.83e12}}};
  part.strided = {{"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"}, {{1, 4, 2.7e12, 1, 4}}};
  g.partition = part;
  L2WriteBack wb;
  wb.bytes = 7.2e7, wb.seconds_per_byte = 1.4e-13, wb.points = 3, wb.fit = {2, 0.01, 0.02, {}}, wb.holdout = FitQuality{1, 0.03, 0.03, {}};
  wb.runs = {{"read_bytes", "clean_s", "dirty_s", "holdout"}, {{6.25e6, 6e-6, 7e-6, 0}, {5e7, 2e-5, 3e-5, 1}, {2e8, 7e-5, 8e-5, 0}}};
  g.l2_write_back = wb;
  g.launch = LaunchCalibration{3.5e-6, 9.4e-6, 9.6e-7, 2.4e-6, 6.2e-7, 1056, {12, 0.026, 0.093, {}}, QueuedLaunch{1.3e-6, 2.0e-6, 0.9e-6, 1.6e-6, {8, 0.02, 0.045, {}}}};
  OverlapCalibration overlap;
  overlap.copy_engines = 3, overlap.copy_bytes = 268435456, overlap.h2d_s = 4.8e-3, overlap.d2h_s = 4.9e-3;
  overlap.kernel_s = 5.2e-3, overlap.h2d_d2h_s = 5e-3, overlap.h2d_kernel_s = 5.3e-3, overlap.d2h_kernel_s = 5.3e-3;
  overlap.all_s = 5.7e-3, overlap.max_concurrent_kernels = 76;
  overlap.kernel_concurrency = {{"streams", "seconds", "concurrency"}, {{1, 1e-3, 1}, {128, 1.7e-3, 75}}};
  g.overlap = overlap;
  AtomicCurve atomics;
  atomics.threads = 270336, atomics.addresses = {1, 8, 270336}, atomics.seconds_per_update = {2.4e-11, 1.1e-11, 3.0e-12};
  atomics.one_lane_update_s = 5.5e-10;
  g.atomics["int32"] = atomics;
  atomics.one_lane_update_s = 0;
  atomics.seconds_per_update = {2.9e-10, 4.1e-11, 3.3e-12};
  g.atomics["fp64"] = atomics;
  RandomReadCalibration random;
  random.footprint_bytes = {268435456, 1073741824, 4294967296}, random.reads = {4325376, 4325376, 4325376};
  random.seconds = {9.1e-5, 1.2e-4, 1.4e-4}, random.sectors_per_s = {3.1e10, 3.4e10, 3.0e10};
  g.dram_random = random;
  RandomReadCalibration rmw;  // the slope form: with the fit's intercepts
  rmw.footprint_bytes = {268435456, 1073741824}, rmw.reads = {33554432, 33554432};
  rmw.seconds = {3.3e-3, 3.5e-3}, rmw.fixed_s = {1.5e-5, -2e-6}, rmw.sectors_per_s = {10200000000, 9900000000};
  g.dram_random_rmw = rmw;
  RandomReadCalibration write;  // random writes, the same shape
  write.footprint_bytes = {268435456, 1073741824}, write.reads = {8388608, 8388608};
  write.seconds = {2.7e-3, 2.6e-3}, write.fixed_s = {3.5e-05, 1e-06}, write.sectors_per_s = {12300000000, 13400000000};
  g.dram_random_write = write;
  p.gpu = g;
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
  EXPECT_EQ(back.pcie->host_buffer, "rotating");
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
  ASSERT_TRUE(c.holdout->noise);  // the measurement noise of the held-out sizes survives the trip
  EXPECT_EQ(c.holdout->noise->median_rel_se, 0.009);
  EXPECT_EQ(c.holdout->noise->max_rel_se, 0.064);
  EXPECT_EQ(c.holdout->noise->sizes_beyond_3se, 20u);
  EXPECT_FALSE(back.gpu->dram_concurrency->fit.noise);  // written only where it was measured
  EXPECT_FALSE(back.pcie->curve({Direction::bidir, HostMemory::pinned}).holdout.has_value());
  ASSERT_TRUE(back.gpu);
  EXPECT_EQ(back.gpu->device.multiprocessors, 132);
  EXPECT_EQ(back.gpu->ceiling("fp32").median, 6.3e13);
  EXPECT_EQ(back.gpu->ceiling("dram_read").config, "threads=256");
  EXPECT_THROW(back.gpu->ceiling("fp64"), InputError);
  EXPECT_EQ(back.gpu->ceiling("int32_logic").median, 2.5e13);
  EXPECT_EQ(back.gpu->ceiling("int32_logic").p90, 2.51e13);
  EXPECT_EQ(back.gpu->ceiling("int32_logic").config, "blocks_per_sm=8;chains=16;threads=256");
  ASSERT_TRUE(back.gpu->dram_concurrency);
  EXPECT_EQ(back.gpu->dram_concurrency->max_requests_per_warp, 4.5);
  ASSERT_TRUE(back.gpu->dram_concurrency_rows);
  EXPECT_EQ(back.gpu->dram_concurrency_rows->max_requests_per_warp, 7.5);
  EXPECT_EQ(back.gpu->dram_concurrency_rows->peak_Bps, 2.7e12);
  EXPECT_FALSE(back.gpu->dram_concurrency_rows->holdout);
  ASSERT_TRUE(back.gpu->operation_latency);
  EXPECT_EQ(back.gpu->operation_latency->cosf_s, 5.3e-8);
  EXPECT_EQ(back.gpu->bank_conflicts.at(4).seconds_per_access.size(), 3u);
  EXPECT_EQ(back.gpu->partition->sweep.rows.size(), 2u);
  EXPECT_EQ(back.gpu->overlap->kernel_concurrency.rows.back()[2], 75);
  ASSERT_TRUE(back.gpu->l2_write_back);
  EXPECT_EQ(back.gpu->l2_write_back->bytes, 7.2e7);
  EXPECT_EQ(back.gpu->l2_write_back->seconds_per_byte, 1.4e-13);
  EXPECT_EQ(back.gpu->l2_write_back->runs.rows.size(), 3u);
  ASSERT_TRUE(back.gpu->launch && back.gpu->launch->queued);
  EXPECT_EQ(back.gpu->launch->queued->host_memset_s, 1.6e-6);
  EXPECT_EQ(back.gpu->launch->queued->fit.max_rel_error, 0.045);
  EXPECT_EQ(back.gpu->l2_write_back->holdout->mean_rel_error, 0.03);
  ASSERT_EQ(back.gpu->atomics.size(), 2u);
  EXPECT_EQ(back.gpu->atomics.at("fp64").seconds_per_update, p.gpu->atomics.at("fp64").seconds_per_update);
  EXPECT_EQ(back.gpu->atomics.at("int32").addresses, (std::vector<double>{1, 8, 270336}));
  EXPECT_EQ(back.gpu->atomics.at("int32").threads, 270336);
  EXPECT_EQ(back.gpu->atomics.at("int32").one_lane_update_s, 5.5e-10);
  EXPECT_EQ(back.gpu->atomics.at("fp64").one_lane_update_s, 0);  // not measured: not written, read back as 0
  ASSERT_TRUE(back.gpu->dram_random);
  EXPECT_EQ(back.gpu->dram_random->footprint_bytes, p.gpu->dram_random->footprint_bytes);
  EXPECT_EQ(back.gpu->dram_random->reads, p.gpu->dram_random->reads);
  EXPECT_EQ(back.gpu->dram_random->seconds, p.gpu->dram_random->seconds);
  EXPECT_EQ(back.gpu->dram_random->sectors_per_s, p.gpu->dram_random->sectors_per_s);
  EXPECT_EQ(back.gpu->dram_random->element_bytes, 4);
  EXPECT_TRUE(back.gpu->dram_random->fixed_s.empty());  // a profile before the slope form: no fixed_s
  ASSERT_TRUE(back.gpu->dram_random_rmw);
  EXPECT_EQ(back.gpu->dram_random_rmw->fixed_s, p.gpu->dram_random_rmw->fixed_s);
  EXPECT_EQ(back.gpu->dram_random_rmw->sectors_per_s, p.gpu->dram_random_rmw->sectors_per_s);
  EXPECT_EQ(back.gpu->dram_random_rmw->seconds, p.gpu->dram_random_rmw->seconds);
  EXPECT_EQ(back.gpu->dram_random_rmw->reads, p.gpu->dram_random_rmw->reads);
  ASSERT_TRUE(back.gpu->dram_random_write);
  EXPECT_EQ(back.gpu->dram_random_write->footprint_bytes, p.gpu->dram_random_write->footprint_bytes);
  EXPECT_EQ(back.gpu->dram_random_write->fixed_s, (std::vector<double>{3.5e-05, 1e-06}));
  EXPECT_EQ(back.gpu->dram_random_write->sectors_per_s, (std::vector<double>{12300000000, 13400000000}));
  EXPECT_EQ(back.gpu->dram_random_write->seconds, p.gpu->dram_random_write->seconds);
  EXPECT_EQ(back.gpu->dram_random_write->reads, p.gpu->dram_random_write->reads);
  // What `calibrate --only gpu.dram.random` writes: the rate alone reads back; no section at all
  // of a GPU without ceilings does not.
  Profile alone = p;
  alone.gpu->ceilings.clear();
  alone.gpu->streams.reset();
  ASSERT_TRUE(parse_profile(profile_to_yaml(alone), "alone.yaml").gpu->dram_random);
  alone.gpu->dram_random.reset();
  ASSERT_TRUE(parse_profile(profile_to_yaml(alone), "alone.yaml").gpu->dram_random_rmw);
  alone.gpu->dram_random_rmw.reset();
  ASSERT_TRUE(parse_profile(profile_to_yaml(alone), "alone.yaml").gpu->dram_random_write);
  alone.gpu->dram_random_write.reset();
  EXPECT_THROW(parse_profile(profile_to_yaml(alone), "alone.yaml"), InputError);
  EXPECT_EQ(profile_to_yaml(back), profile_to_yaml(p));
  // The section is optional: a profile written before gpu.atomics reads with none.
  Profile older = p;
  older.gpu->atomics.clear();
  const std::string older_yaml = profile_to_yaml(older);
  EXPECT_EQ(older_yaml.find("atomics"), std::string::npos);
  EXPECT_TRUE(parse_profile(older_yaml, "p.yaml").gpu->atomics.empty());
  // … one written before the int32_logic ceiling without it (its other ceilings as they were) …
  Profile no_logic = p;
  no_logic.gpu->ceilings.erase("int32_logic");
  const std::string no_logic_yaml = profile_to_yaml(no_logic);
  EXPECT_EQ(no_logic_yaml.find("int32_logic"), std::string::npos);
  EXPECT_EQ(parse_profile(no_logic_yaml, "p.yaml").gpu->ceilings.count("int32_logic"), 0u);
  EXPECT_EQ(parse_profile(no_logic_yaml, "p.yaml").gpu->ceiling("fp32").median, 6.3e13);
  // … one written before gpu.dram_random_write with none …
  older.gpu->dram_random_write.reset();
  const std::string no_write = profile_to_yaml(older);
  EXPECT_EQ(no_write.find("dram_random_write"), std::string::npos);
  EXPECT_FALSE(parse_profile(no_write, "p.yaml").gpu->dram_random_write);
  EXPECT_TRUE(parse_profile(no_write, "p.yaml").gpu->dram_random_rmw);
  // … one written before gpu.dram_random_rmw with none …
  older.gpu->dram_random_rmw.reset();
  const std::string no_rmw = profile_to_yaml(older);
  EXPECT_EQ(no_rmw.find("dram_random_rmw"), std::string::npos);
  EXPECT_FALSE(parse_profile(no_rmw, "p.yaml").gpu->dram_random_rmw);
  // … and one written before gpu.dram_random with none.
  older.gpu->dram_random.reset();
  const std::string no_random = profile_to_yaml(older);
  EXPECT_EQ(no_random.find("dram_random"), std::string::npos);
  EXPECT_FALSE(parse_profile(no_random, "p.yaml").gpu->dram_random);
}

TEST(ProfileYaml, EachKindOfBadProfileGetsItsOwnError) {
  const struct {
    std::string from, to, expected;  // expected: a regex the message must match
  } cases[] = {
      {"schema_version: 4", "schema_version: 1", R"(bad\.yaml:2:\d+: schema_version: unsupported profile schema version 1; this perfmodel reads versions 2-4)"},
      {"schema_version: 4", "schema_version: 5", R"(bad\.yaml:2:\d+: schema_version: unsupported profile schema version 5; this perfmodel reads versions 2-4)"},
      {"schema_version: 4", "schema_version: one", R"(bad\.yaml:2:\d+: schema_version: expected an integer)"},
      // a segment fitted on no sizes is a bridge, which may not open or close a curve
      {"sizes: 20", "sizes: 0", R"(segments\[0\]\.sizes: a bridge \(a segment fitted on no sizes\) must lie between two fitted segments)"},
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
      {"host_buffer: rotating", "host_buffer: warm", R"(bad\.yaml:\d+:\d+: pcie\.host_buffer: must be rotating or fixed, got 'warm')"},
      {"provenance:\n(  .*\n)+", "provenance: 7\n", R"(bad\.yaml:3:\d+: provenance: expected a mapping)"},
      {"curves:\n(    .*\n)+", "curves: [1, 2]\n", R"(pcie\.curves: expected a mapping)"},
      {"segments:\n(          .*\n)+", "segments: {}\n", R"(segments: expected a list)"},
      {"  h2d:", "  h3d:", R"(pcie\.curves\.h3d: unknown key \(expected one of: h2d, d2h, bidir\))"},
      // gpu section
      {"    fp32:", "    fp33:", R"(bad\.yaml:\d+:\d+: gpu\.ceilings\.fp33: unknown key)"},
      {"unit: B/s", "unit: GB/s", R"(gpu\.ceilings\.dram_read\.unit: must be B/s for dram_read)"},
      {"int32_logic: \\{median: [^,]+, unit: op/s", "int32_logic: {median: 25000000000000, unit: flop/s",
       R"(gpu\.ceilings\.int32_logic\.unit: must be op/s for int32_logic)"},
      {"int32_logic: \\{median: [^,]+", "int32_logic: {median: -25000000000000", R"(bad\.yaml:\d+:\d+: gpu\.ceilings\.int32_logic\.median: must be >= )"},
      {"int32_logic: \\{median: [^,]+", "int32_logic: {median: 26000000000000", R"(gpu\.ceilings\.int32_logic: needs p10 <= median <= p90)"},
      {"int32_logic:", "int32_logical:", R"(gpu\.ceilings\.int32_logical: unknown key)"},
      {"p10: 3000000000000", "p10: 3300000000000", R"(gpu\.ceilings\.dram_read: needs p10 <= median <= p90)"},
      {"    multiprocessors: 132\n", "", R"(gpu\.device\.multiprocessors: missing key)"},
      {"multiprocessors: 132", "multiprocessors: 0", R"(gpu\.device\.multiprocessors: must be >= 1)"},
      {"l1_s: [^\n]+", "l1_s: -2e-08", R"(gpu\.latency\.l1_s: must be >= 0)"},
      {"peak_Bps: [^\n]+", "peak_Bps: 0", R"(gpu\.dram_concurrency\.peak_Bps: must be > 0)"},
      {"cosf_s: [^\n]+", "cosf_s: 0", R"(gpu\.operation_latency\.cosf_s: must be > 0)"},
      {"max_requests_per_warp: 7.5", "max_requests_per_warp: -1",
       R"(gpu\.dram_concurrency_rows\.max_requests_per_warp: must be >= 0)"},
      {"fp32_fma_s:", "fma_s:", R"(gpu\.operation_latency\.fma_s: unknown key)"},
      {R"(seconds_per_access: \[[^\]]*\])", "seconds_per_access: []", R"(gpu\.bank_conflicts\.word_4B\.seconds_per_access: needs)"},
      {"word_4B", "word_5B", R"(gpu\.bank_conflicts\.word_5B: unknown key)"},
      {"  fp64:\n      sector_update_s", "  fp16:\n      sector_update_s", R"(gpu\.atomics\.fp16: unknown key)"},
      {"addresses: \\[1, 8", "addresses: [2, 8", R"(gpu\.atomics\.fp64\.addresses\[0\]: the first entry must be 1)"},
      {"addresses: \\[1, 8, 270336\\]", "addresses: [1, 8]", R"(gpu\.atomics\.fp64\.seconds_per_update: needs one time per entry)"},
      {"sectors_per_s: \\[31000000000", "sectors_per_s: [-3", R"(bad\.yaml:\d+:\d+: gpu\.dram_random\.sectors_per_s\[0\]: must be >= 1000)"},
      {"sectors_per_s: \\[31000000000", "sectors_per_s: [.nan", R"(gpu\.dram_random\.sectors_per_s\[0\]: must be finite)"},
      {"footprint_bytes: \\[268435456, 1073741824", "footprint_bytes: [268435456, 268435456", R"(gpu\.dram_random\.footprint_bytes\[1\]: must be larger than the entry before it)"},
      {"reads: \\[4325376, 4325376, 4325376\\]", "reads: [4325376, 4325376]", R"(gpu\.dram_random\.reads: needs one value per entry of footprint_bytes)"},
      {"seconds: \\[[^,]+", "seconds: [0", R"(gpu\.dram_random\.seconds\[0\]: must be > 0)"},
      {"element_bytes: 4\n    footprint", "element_bytes: 64\n    footprint", R"(gpu\.dram_random\.element_bytes: must be <= 32)"},
      {"  dram_random:", "  dram_randoms:", R"(gpu\.dram_randoms: unknown key)"},
      {"  dram_random_rmw:", "  dram_random_rmws:", R"(gpu\.dram_random_rmws: unknown key)"},
      {"sectors_per_s: \\[10200000000", "sectors_per_s: [0", R"(gpu\.dram_random_rmw\.sectors_per_s\[0\]: must be >= 1000)"},
      {"fixed_s: \\[[^,]+", "fixed_s: [0.004", R"(gpu\.dram_random_rmw\.fixed_s\[0\]: must be <= 0\.0033)"},
      {"fixed_s: \\[[^\\]]+\\]", "fixed_s: [1e-05]", R"(gpu\.dram_random_rmw\.fixed_s: needs one value per entry of footprint_bytes)"},
      {"fixed_s: \\[[^,]+", "fixed_s: [.nan", R"(gpu\.dram_random_rmw\.fixed_s\[0\]: must be finite)"},
      {"  dram_random_write:", "  dram_random_writes:", R"(gpu\.dram_random_writes: unknown key)"},
      {"sectors_per_s: \\[12300000000", "sectors_per_s: [-1", R"(gpu\.dram_random_write\.sectors_per_s\[0\]: must be >= 1000)"},
      {"fixed_s: \\[3.4999999999999997e-05", "fixed_s: [0.01", R"(gpu\.dram_random_write\.fixed_s\[0\]: must be <= 0\.0027)"},
      {"sectors_per_s: \\[12300000000, 13400000000\\]", "sectors_per_s: [12300000000]", R"(gpu\.dram_random_write\.sectors_per_s: needs one value per entry of footprint_bytes)"},
      {R"(columns: \[granule_bytes)", "columns: [granularity", R"(gpu\.partition\.sweep\.columns: must be \[granule_bytes, stride_bytes, slots_used, Bps\])"},
      {R"(- \[256, 4096, 1, [^\]]+\])", "- [256, 4096, 1]", R"(gpu\.partition\.sweep\.rows\[0\]: has 3 values for 4 columns)"},
      {"seconds_per_byte: 1.4", "seconds_per_byte: -1.4", R"(gpu\.l2_write_back\.seconds_per_byte)"},
      {"empty_kernel_s: [^\n]+", "empty_kernel_s: soon", R"(gpu\.launch\.empty_kernel_s: expected a number)"},
      {"  toolkit_commit:", "  refit: [1, 2]\n  toolkit_commit:", R"(provenance\.refit: expected a scalar)"},
      {"host_memset_s: [^\n]+", "host_memset_s: -1e-6", R"(gpu\.launch\.queued\.host_memset_s: must be >= 0)"},
      {"host_memset_s:", "memset_host_s:", R"(gpu\.launch\.queued\.memset_host_s: unknown key)"},
      {"  overlap:", "  overlaps:", R"(gpu\.overlaps: unknown key)"},
      // the held-out sizes' measurement noise: its three keys together, consistent
      {"max_rel_se: [^,}]+, ", "", R"(pcie\.curves\.h2d\.pinned\.holdout: median_rel_se, max_rel_se and sizes_beyond_3se come together)"},
      {"max_rel_se: [^,}]+", "max_rel_se: 0.001", R"(holdout: max_rel_se is smaller than median_rel_se)"},
      {"sizes_beyond_3se: 20", "sizes_beyond_3se: 57", R"(holdout: sizes_beyond_3se exceeds sizes)"},
      {"median_rel_se: [^,}]+", "median_rel_se: -0.01", R"(holdout\.median_rel_se: must be >= 0)"},
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

// Schema 3: a segment fitted on no sizes bridges a gap between two fitted ones, and its line's
// intercept may be negative as long as its time is positive over its range; version 2 profiles
// (no bridges) still read, and in them, as in any fitted segment, a negative setup time is an error.
TEST(ProfileYaml, ABridgeMayHaveANegativeInterceptOnlyBetweenFittedSegments) {
  Profile p = sample_profile();
  TransferCurve& c = p.pcie->curves.at({Direction::h2d, HostMemory::pinned});
  // 65537 B: 9.12 µs + 19.86 µs on the left line; the bridge to 131072 B, the right segment's start.
  c.segments = {{0, 65537, 9.123456789e-6, 1.0 / 3.3e9, 0, 20, 0.002, 0.01},
                {65537, 131072, -2.0e-5, 6.0e-10, 0, 0, 0, 0},
                {131072, INFINITY, 2.5e-5, 1.0 / 5.53e10, 2e-7, 37, 0.003, 0.012}};
  const std::string yaml = profile_to_yaml(p);
  const Profile back = parse_profile(yaml, "p.yaml");
  const TransferCurve& b = back.pcie->curves.at({Direction::h2d, HostMemory::pinned});
  ASSERT_EQ(b.segments.size(), 3u);
  EXPECT_TRUE(b.segments[1].is_bridge());
  EXPECT_FALSE(b.segments[0].is_bridge());
  EXPECT_EQ(b.segments[1].setup_s, -2.0e-5);
  EXPECT_NEAR(b.seconds(100000), -2.0e-5 + 6.0e-10 * 100000, 1e-18);
  auto error = [&](const std::string& from, const std::string& to) {
    try {
      parse_profile(std::regex_replace(yaml, std::regex(from), to, std::regex_constants::format_first_only), "bad.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  // Read as version 2, the bridge's negative intercept is the error it always was.
  // (A version-2 profile has no `timing` lines.)
  const std::string v4 = yaml;
  const std::string v2 = std::regex_replace(std::regex_replace(yaml, std::regex("\\n *timing: \\w+"), ""), std::regex("schema_version: 4"),
                                            "schema_version: 2");
  try {
    parse_profile(v2, "bad.yaml");
    ADD_FAILURE() << "a bridge's negative intercept read as version 2 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("segments[1].setup_s: must be >= 0"), std::string::npos) << e.what();
  }
  // Read as version 3 (bridges, no timing), it is the bridge it was.
  EXPECT_EQ(parse_profile(std::regex_replace(v2, std::regex("schema_version: 2"), "schema_version: 3"), "p3.yaml")
                .pcie->curves.at({Direction::h2d, HostMemory::pinned})
                .segments[1]
                .setup_s,
            -2.0e-5);
  (void)v4;
  // A bridge whose line is not positive where it starts.
  EXPECT_NE(error("setup_s: -2", "setup_s: -9").find("segments[1].setup_s: a bridge's time must be positive"), std::string::npos);
  // A fitted segment's setup time stays non-negative.
  EXPECT_NE(error("misaligned_s: 0, sizes: 0,", "misaligned_s: 0, sizes: 3,").find("segments[1].setup_s: must be >= 0"),
            std::string::npos);
}
