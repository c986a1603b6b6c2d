// The GPU fitting routines on synthetic data with known answers, the raw-sample CSV, and the
// whole fit_gpu pipeline on a small synthetic sample set.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <regex>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_fit.hpp"

using namespace perfmodel;

namespace {

SaturationCurve curve(double peak, double latency, double sharpness, double limit = 0) {
  SaturationCurve c;
  c.peak_Bps = peak, c.latency_s = latency, c.sharpness = sharpness, c.max_requests_per_warp = limit;
  return c;
}

std::string error_of(const std::string& csv) {
  try {
    parse_gpu_samples(csv, "s.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

BenchmarkSample sample(const std::string& series, std::map<std::string, double> params, double seconds, double amount, int rep = 0) {
  return {series, std::move(params), rep, seconds, amount};
}

}  // namespace

TEST(SaturationCurve, LimitsAreLittlesLawAndThePeak) {
  const SaturationCurve c = curve(3e12, 400e-9, 3);
  EXPECT_NEAR(c.bandwidth_Bps(1e3) / (1e3 / 400e-9), 1.0, 1e-6);  // far below the knee: q / latency
  EXPECT_NEAR(c.bandwidth_Bps(1e12) / 3e12, 1.0, 1e-9);          // far above: the peak
  EXPECT_LT(c.bandwidth_Bps(3e12 * 400e-9), 3e12);                // at the knee: below both asymptotes
  for (double f : {0.5, 0.9, 0.99}) EXPECT_NEAR(c.bandwidth_Bps(c.bytes_in_flight_for(f)) / (f * 3e12), 1.0, 1e-9) << f;
  EXPECT_THROW(c.bytes_in_flight_for(1.0), std::invalid_argument);
  // The per-warp request limit caps the loads that count.
  const SaturationCurve limited = curve(3e12, 400e-9, 3, 4);
  EXPECT_EQ(limited.bytes_in_flight(132, 8, 16, 256), 132.0 * 8 * 4 * 256);
  EXPECT_EQ(limited.bytes_in_flight(132, 8, 2, 256), 132.0 * 8 * 2 * 256);
}

TEST(SaturationFit, RecoversKnownParametersAndReportsHeldOutError) {
  const SaturationCurve truth = curve(3.1e12, 410e-9, 2.6);
  std::vector<XY> fit, holdout;
  for (double e = 14; e <= 26; e += 0.5) fit.push_back({std::exp2(e), truth.bandwidth_Bps(std::exp2(e))});
  for (double e = 14.25; e <= 26; e += 1) holdout.push_back({std::exp2(e), truth.bandwidth_Bps(std::exp2(e))});
  const SaturationCurve c = fit_saturation(fit, holdout);
  EXPECT_NEAR(c.peak_Bps / truth.peak_Bps, 1, 1e-3);
  EXPECT_NEAR(c.latency_s / truth.latency_s, 1, 1e-3);
  EXPECT_NEAR(c.sharpness / truth.sharpness, 1, 1e-2);
  EXPECT_LT(c.fit.max_rel_error, 1e-4);
  ASSERT_TRUE(c.holdout);
  EXPECT_EQ(c.holdout->sizes, holdout.size());
  EXPECT_LT(c.holdout->max_rel_error, 1e-4);
  EXPECT_THROW(fit_saturation({{1, 1}, {2, 2}}, {}), std::invalid_argument);
  EXPECT_THROW(fit_saturation({{1, 1}, {2, -2}, {3, 3}}, {}), std::invalid_argument);
}

TEST(SaturationFit, FindsThePerWarpRequestLimit) {
  const SaturationCurve truth = curve(3e12, 400e-9, 2.5, 4.5);
  std::vector<ConcurrencyPoint> fit, holdout;
  for (double warps : {1, 2, 4, 8, 16, 32, 64})
    for (double ilp : {1, 2, 4, 8, 16}) {
      ConcurrencyPoint p{132, warps, ilp, 256, 0};
      p.bandwidth_Bps = truth.bandwidth_Bps(truth.bytes_in_flight(132, warps, ilp, 256));
      fit.push_back(p);
      p.warps_per_sm = warps * 1.5;  // "non-power-of-two block sizes"
      p.bandwidth_Bps = truth.bandwidth_Bps(truth.bytes_in_flight(132, p.warps_per_sm, ilp, 256));
      holdout.push_back(p);
    }
  const SaturationCurve c = fit_concurrency(fit, holdout);
  EXPECT_EQ(c.max_requests_per_warp, 4.5);
  EXPECT_NEAR(c.peak_Bps / 3e12, 1, 1e-3);
  EXPECT_NEAR(c.latency_s / 400e-9, 1, 1e-3);
  ASSERT_TRUE(c.holdout);
  EXPECT_LT(c.holdout->max_rel_error, 1e-3);
}

TEST(LineFit, IsExactOnALineAndRelative) {
  const LineFit f = fit_line({{1, 0.51e-9}, {2, 1.02e-9}, {3, 1.53e-9}, {32, 16.32e-9}});
  EXPECT_NEAR(f.slope, 0.51e-9, 1e-15);
  EXPECT_NEAR(f.intercept, 0, 1e-15);
  EXPECT_LT(f.quality.max_rel_error, 1e-9);
  EXPECT_THROW(fit_line({{1, 1}}), std::invalid_argument);
  EXPECT_THROW(fit_line({{1, 1}, {2, 0}}), std::invalid_argument);
}

TEST(ConflictCurve, PenaltyInterpolatesAndExtrapolatesAlongTheLine) {
  ConflictCurve c;
  c.seconds_per_access = {1e-9, 2e-9, 4e-9};
  c.intercept_s = 0, c.slope_s = 1.3e-9;
  EXPECT_EQ(c.penalty(1), 1.0);
  EXPECT_EQ(c.penalty(0.5), 1.0);
  EXPECT_DOUBLE_EQ(c.penalty(2), 2.0);
  EXPECT_DOUBLE_EQ(c.penalty(2.5), 3.0);
  EXPECT_DOUBLE_EQ(c.penalty(6), 4.0 * (1.3 * 6) / (1.3 * 3));  // line beyond the measured degrees
}

TEST(GpuSamplesCsv, RoundTripsAndNamesBadLines) {
  GpuSampleFile f;
  f.provenance.device_name = "GPU";
  f.device.multiprocessors = 132;
  f.calibration_wall_s = 7.25;
  f.samples.push_back(sample("ceiling.fp32", {{"threads", 256}, {"blocks_per_sm", 8}}, 1e-3, 6.3e10, 0));
  f.samples.push_back(sample("launch.empty", {}, 3.5e-3, 1000, 1));
  const GpuSampleFile back = parse_gpu_samples(to_csv(f), "s.csv");
  ASSERT_EQ(back.samples.size(), 2u);
  EXPECT_EQ(back.samples[0].param("threads"), 256);
  EXPECT_EQ(back.samples[0].params_text(), "blocks_per_sm=8;threads=256");
  EXPECT_TRUE(back.samples[1].params.empty());
  EXPECT_EQ(back.samples[1].rep, 1);
  EXPECT_EQ(back.device.multiprocessors, 132);
  EXPECT_EQ(back.calibration_wall_s, 7.25);
  EXPECT_EQ(back.provenance.device_name, "GPU");
  EXPECT_THROW(back.samples[0].param("nope"), std::out_of_range);

  const std::string head = "# perfmodel gpu samples v1\nseries,params,rep,seconds,amount\n";
  const struct {
    std::string csv, expected;
  } cases[] = {
      {"series,params\n", R"(s\.csv:1: not a perfmodel gpu samples v1 file)"},
      {"# perfmodel gpu samples v1\nseries,params\n", R"(s\.csv:2: header: expected)"},
      {head + "a,,0,1\n", R"(s\.csv:3:1: row: expected 5 columns, found 4)"},
      {head + "a b,,0,1,1\n", R"(s\.csv:3:1: series: 'a b' is not a series name)"},
      {head + "a,x,0,1,1\n", R"(s\.csv:3:3: params: 'x' is not name=value)"},
      {head + "a,x=1;x=2,0,1,1\n", R"(s\.csv:3:3: params: parameter 'x' given twice)"},
      {head + "a,x=one,0,1,1\n", R"(s\.csv:3:3: params\.x: 'one' is not a number)"},
      {head + "a,,0,-1,1\n", R"(s\.csv:3:6: seconds: must be a positive time)"},
      {head + "a,,0,1,nan\n", R"(s\.csv:3:8: amount: 'nan' is not a number)"},
      {head + "a,,1.5,1,1\n", R"(s\.csv:3:4: rep: '1\.5' is not a whole number)"},
      {"# perfmodel gpu samples v1\n# gpu.bogus: 3\n" + head.substr(27), R"(s\.csv:2: gpu\.bogus: unknown gpu property)"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.csv);
    EXPECT_TRUE(std::regex_search(message, std::regex(c.expected))) << c.csv << "\n  got: " << message;
  }
}

TEST(FitGpu, DerivesEveryConstantFromSyntheticSamples) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  f.device.warp_size = 32;
  f.device.sector_bytes = 32;
  f.device.l2_cache_bytes = 50e6;
  f.device.async_engines = 3;
  auto& s = f.samples;
  // Ceilings: the better of two configurations wins, with its own spread.
  for (int rep = 0; rep < 3; ++rep) {
    s.push_back(sample("ceiling.dram_read", {{"threads", 256}}, 1e-3, 2.9e9 + rep * 1e7, rep));
    s.push_back(sample("ceiling.dram_read", {{"threads", 1024}}, 1e-3, 3.1e9 + rep * 1e7, rep));
  }
  // Latency: 1000 and 3000 steps; per-load latency = slope (launch overhead of 5 µs cancels).
  for (double footprint : {4096.0, 8388608.0, 536870912.0}) {
    const double latency = footprint < 1e5 ? 20e-9 : footprint < 1e8 ? 170e-9 : 350e-9;
    for (double steps : {1000.0, 3000.0}) s.push_back(sample("latency.chase", {{"footprint_bytes", footprint}, {"steps", steps}}, 5e-6 + steps * latency, steps));
  }
  // Operation latency: one warp, 4096 and 16384 dependent steps; FMA 3.5 ns, cosf 53 ns per step.
  for (double steps : {4096.0, 16384.0}) {
    s.push_back(sample("latency.op", {{"op", 0}, {"steps", steps}}, 4e-6 + steps * 3.5e-9, steps));
    s.push_back(sample("latency.op", {{"op", 1}, {"steps", steps}}, 4e-6 + steps * 53e-9, steps));
  }
  // Conflicts: t(d) = 0.5 ns · d, amount = accesses per SM.
  for (int d = 1; d <= 4; ++d) s.push_back(sample("shared.conflict", {{"word_bytes", 4}, {"degree", d}}, 0.5e-9 * d * 1e6, 1e6));
  // Partition: camping costs 2× in one case, nothing in the other.
  s.push_back(sample("dram.partition", {{"granule_bytes", 256}, {"stride_bytes", 4096}, {"slots_used", 1}}, 1, 1e12));
  s.push_back(sample("dram.partition", {{"granule_bytes", 256}, {"stride_bytes", 4096}, {"slots_used", 16}}, 1, 2e12));
  s.push_back(sample("dram.partition", {{"granule_bytes", 4096}, {"stride_bytes", 65536}, {"slots_used", 1}}, 1, 3e12));
  s.push_back(sample("dram.partition", {{"granule_bytes", 4096}, {"stride_bytes", 65536}, {"slots_used", 16}}, 1, 3e12));
  for (double stride : {1.0, 2.0, 8.0, 16.0})
    s.push_back(sample("dram.stride", {{"stride_elements", stride}, {"element_bytes", 4}}, 1, 3e12 / stride));
  // Launch: t(waves) = 2 µs + 0.6 µs · waves, per kernel.
  s.push_back(sample("launch.empty", {}, 3.5e-3, 1000));
  s.push_back(sample("launch.sync", {}, 9e-6 * 50, 50));
  s.push_back(sample("launch.graph", {}, 1e-3, 1000));
  for (double waves : {1.0, 2.0, 4.0, 8.0})
    s.push_back(sample("launch.waves", {{"waves", waves}, {"blocks", waves * 1056}}, 20 * (2e-6 + 0.6e-6 * waves), 20));
  // Queued behind work: 1.3 µs + 2 µs per kernel, +1 µs per memset, while the host (3.5 µs per
  // launch) stays ahead; at 64 the host's rate shows, a memset adding 1.6 µs of host time.
  for (double k : {1.0, 2.0, 4.0, 8.0, 64.0}) {
    const bool host_bound = k > 8;
    s.push_back(sample("launch.queued", {{"launches", k}, {"memset", 0}}, host_bound ? k * 3.5e-6 - 30e-6 : 1.3e-6 + 2e-6 * k, k));
    s.push_back(sample("launch.queued", {{"launches", k}, {"memset", 1}}, host_bound ? k * 5.1e-6 - 30e-6 : 1.3e-6 + 3e-6 * k, k));
  }
  for (const auto& [name, t] : std::vector<std::pair<std::string, double>>{
           {"h2d", 5e-3}, {"d2h", 5e-3}, {"kernel", 5e-3}, {"h2d+d2h", 5.1e-3}, {"h2d+kernel", 5.2e-3}, {"d2h+kernel", 5.2e-3}, {"all", 5.5e-3}})
    s.push_back(sample("overlap." + name, {{"bytes", 268435456}}, t, 1));
  for (double streams : {1.0, 8.0, 128.0})
    s.push_back(sample("overlap.kernels", {{"streams", streams}}, streams <= 8 ? 1e-3 : 2e-3, streams));

  const GpuCalibration g = fit_gpu(f, "s.csv");
  EXPECT_NEAR(g.ceiling("dram_read").median, 3.11e12, 1);
  EXPECT_EQ(g.ceiling("dram_read").config, "threads=1024");
  EXPECT_EQ(g.ceiling("dram_read").samples, 3u);
  ASSERT_TRUE(g.latency);
  EXPECT_NEAR(g.latency->l1_s, 20e-9, 1e-15);
  EXPECT_NEAR(g.latency->l2_s, 170e-9, 1e-15);
  EXPECT_NEAR(g.latency->dram_s, 350e-9, 1e-15);
  ASSERT_TRUE(g.operation_latency);
  EXPECT_NEAR(g.operation_latency->fp32_fma_s, 3.5e-9, 1e-15);
  EXPECT_NEAR(g.operation_latency->cosf_s, 53e-9, 1e-14);
  ASSERT_EQ(g.bank_conflicts.count(4), 1u);
  EXPECT_NEAR(g.bank_conflicts.at(4).slope_s, 0.5e-9, 1e-15);
  EXPECT_DOUBLE_EQ(g.bank_conflicts.at(4).penalty(4), 4.0);
  ASSERT_TRUE(g.partition);
  EXPECT_DOUBLE_EQ(g.partition->penalty, 2.0);
  EXPECT_EQ(g.partition->worst_granule_bytes, 256);
  EXPECT_EQ(g.partition->sweep.rows.size(), 4u);
  const NumericTable& strided = g.partition->strided;
  ASSERT_EQ(strided.rows.size(), 4u);
  // 4-byte elements: stride 1 → 4 sectors per warp, 2 → 8, ≥ 8 → 32 (one per lane).
  EXPECT_EQ(strided.rows[0][strided.column("sectors_per_request")], 4);
  EXPECT_EQ(strided.rows[1][strided.column("sectors_per_request")], 8);
  EXPECT_EQ(strided.rows[2][strided.column("sectors_per_request")], 32);
  EXPECT_DOUBLE_EQ(strided.rows[3][strided.column("efficiency")], 1.0 / 16);
  ASSERT_TRUE(g.launch);
  EXPECT_NEAR(g.launch->empty_kernel_s, 3.5e-6, 1e-15);
  EXPECT_NEAR(g.launch->per_wave_s, 0.6e-6, 1e-12);
  EXPECT_NEAR(g.launch->wave_base_s, 2e-6, 1e-12);
  EXPECT_EQ(g.launch->blocks_per_wave, 1056);
  ASSERT_TRUE(g.launch && g.launch->queued);
  EXPECT_NEAR(g.launch->queued->base_s, 1.3e-6, 1e-12);
  EXPECT_NEAR(g.launch->queued->kernel_s, 2e-6, 1e-12);
  EXPECT_NEAR(g.launch->queued->memset_s, 1e-6, 1e-12);
  EXPECT_NEAR(g.launch->queued->host_memset_s, 1.6e-6, 1e-12);
  EXPECT_LT(g.launch->queued->fit.max_rel_error, 1e-9);
  ASSERT_TRUE(g.overlap);
  EXPECT_EQ(g.overlap->copy_engines, 3);
  EXPECT_EQ(g.overlap->all_s, 5.5e-3);
  EXPECT_DOUBLE_EQ(g.overlap->max_concurrent_kernels, 64.0);  // 128 one-ms kernels in 2 ms
  EXPECT_FALSE(g.dram_concurrency);

  GpuSampleFile unknown = f;
  unknown.samples.push_back(sample("ceiling.fp128", {}, 1, 1));
  EXPECT_THROW(fit_gpu(unknown, "s.csv"), InputError);
  GpuSampleFile stray = f;
  stray.samples.push_back(sample("warp.drive", {}, 1, 1));
  EXPECT_THROW(fit_gpu(stray, "s.csv"), InputError);
  GpuSampleFile gap = f;
  gap.samples.push_back(sample("shared.conflict", {{"word_bytes", 4}, {"degree", 7}}, 1, 1));
  EXPECT_THROW(fit_gpu(gap, "s.csv"), InputError);
}

TEST(GpuFit, L2WriteBackRecoversReachAndSurchargeAndHoldsOutEveryOtherSize) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  f.device.l2_cache_bytes = 50e6;
  auto& s = f.samples;
  // Clean reads: 4 µs of launch and ramp, then 3.1 TB/s; dirty ones pay 0.14 ns per byte of their
  // first 70 MB.
  L2WriteBack truth;
  truth.bytes = 70e6, truth.seconds_per_byte = 0.14e-12;
  const double sizes[] = {6.25e6, 9.4e6, 12.5e6, 18.75e6, 25e6, 37.5e6, 50e6, 75e6, 100e6, 150e6, 200e6};
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    const double n = sizes[i], clean = 4e-6 + n / 3.1e12, dirty = clean + truth.extra_s(n, 1);
    for (int rep = 0; rep < 3; ++rep) {
      s.push_back(sample("l2.writeback", {{"read_bytes", n}, {"dirty", 0}, {"holdout", double(i % 2)}}, clean, n, rep));
      s.push_back(sample("l2.writeback", {{"read_bytes", n}, {"dirty", 1}, {"holdout", double(i % 2)}}, dirty, n, rep));
    }
  }
  const GpuCalibration g = fit_gpu(f, "s.csv");
  ASSERT_TRUE(g.l2_write_back);
  const L2WriteBack& w = *g.l2_write_back;
  EXPECT_NEAR(w.bytes, truth.bytes, 200e6 / 4096);  // the search's step
  EXPECT_NEAR(w.seconds_per_byte, truth.seconds_per_byte, 0.01 * truth.seconds_per_byte);
  EXPECT_EQ(w.fit.sizes, 6u);
  ASSERT_TRUE(w.holdout);
  EXPECT_EQ(w.holdout->sizes, 5u);
  EXPECT_LT(w.holdout->max_rel_error, 0.005);
  EXPECT_EQ(w.runs.rows.size(), std::size(sizes));

  // Beyond the reach nothing more is paid; below the ceiling, in proportion to the DRAM share.
  EXPECT_DOUBLE_EQ(truth.extra_s(300e6, 1), truth.extra_s(70e6, 1));
  EXPECT_DOUBLE_EQ(truth.extra_s(10e6, 0.5), 0.5 * truth.extra_s(10e6, 1));

  // Every size needs both runs.
  GpuSampleFile half = f;
  half.samples.push_back(sample("l2.writeback", {{"read_bytes", 1e9}, {"dirty", 1}, {"holdout", 0}}, 1e-3, 1e9));
  EXPECT_THROW(fit_gpu(half, "s.csv"), InputError);
}

TEST(GpuFit, RowReadSeriesFitsItsOwnCurveAndRequestLimit) {
  // Synthetic row-read samples from a known curve: 128-byte requests, at most 8 per warp in flight.
  SaturationCurve truth;
  truth.peak_Bps = 2.7e12, truth.latency_s = 420e-9, truth.sharpness = 3, truth.max_requests_per_warp = 8;
  GpuSampleFile f;
  for (int threads : {32, 128, 512, 96})
    for (int per_sm : {1, 2, 4})
      for (int ilp : {1, 2, 4, 8, 16, 32}) {
        const double bw = truth.bandwidth_Bps(truth.bytes_in_flight(132, per_sm * threads / 32.0, ilp, 128));
        f.samples.push_back(sample("dram.concurrency_rows",
                                   {{"blocks_per_sm", per_sm}, {"threads", threads}, {"ilp", ilp}, {"element_bytes", 4},
                                    {"sms", 132}, {"holdout", threads == 96 ? 1 : 0}},
                                   1e9 / bw, 1e9));
      }
  const GpuCalibration g = fit_gpu(f, "s.csv");
  EXPECT_FALSE(g.dram_concurrency);
  ASSERT_TRUE(g.dram_concurrency_rows);
  EXPECT_EQ(g.dram_concurrency_rows->max_requests_per_warp, 8);
  EXPECT_NEAR(g.dram_concurrency_rows->peak_Bps / 2.7e12, 1, 0.01);
  ASSERT_TRUE(g.dram_concurrency_rows->holdout);
  EXPECT_LT(g.dram_concurrency_rows->holdout->max_rel_error, 0.01);
}

// Queued launches whose time does not grow with their number cannot be fitted: one error naming
// the series, not a profile with a negative per-launch cost that no reader accepts.
// gpu.atomics: seconds per update per (type, addresses), the one-address time the serial rate.
// dram.random, samples of one read count a table (calibrations before the slope form): each
// table's DRAM sectors (the derivation's reuse rule) over its median time.
TEST(GpuFit, RandomReadsGiveDramSectorsPerSecond) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  f.device.l2_cache_bytes = 50 * 1048576.0;
  const double reads = 4325376, mib = 1048576.0;
  for (int rep = 0; rep < 3; ++rep) {
    const double scale = rep == 0 ? 1.0 : rep == 1 ? 1.2 : 0.9;  // the median is the first
    f.samples.push_back(sample("dram.random", {{"footprint_bytes", 1024 * mib}, {"reads", reads}, {"element_bytes", 4}}, 2e-4 * scale, reads, rep));
    f.samples.push_back(sample("dram.random", {{"footprint_bytes", 256 * mib}, {"reads", reads}, {"element_bytes", 4}}, 1e-4 * scale, reads, rep));
  }
  const GpuCalibration g = fit_gpu(f, "s.csv");
  ASSERT_TRUE(g.dram_random);
  const RandomReadCalibration& r = *g.dram_random;
  EXPECT_EQ(r.footprint_bytes, (std::vector<double>{256 * mib, 1024 * mib}));
  EXPECT_EQ(r.reads, (std::vector<double>{reads, reads}));
  EXPECT_NEAR(r.seconds[1], 2e-4, 1e-16);
  EXPECT_TRUE(r.fixed_s.empty());  // one read count per table (samples before the slope form): no intercept
  // By hand: T = 32 · reads bytes, D = F (1 − e^(−T/F)), the re-touches beyond C/D of them miss.
  for (std::size_t i = 0; i < 2; ++i) {
    const double F = r.footprint_bytes[i], T = 32 * reads, D = F * -std::expm1(-T / F), C = 50 * mib;
    EXPECT_NEAR(r.sectors_per_s[i], (D + (T - D) * std::max(0.0, 1 - C / D)) / 32 / r.seconds[i], 1e-6 * r.sectors_per_s[i]);
  }
  EXPECT_NEAR(r.sectors_per_s_at(512 * mib), (r.sectors_per_s[0] + r.sectors_per_s[1]) / 2, 1e-6 * r.sectors_per_s[0]);
  EXPECT_EQ(r.sectors_per_s_at(64 * mib), r.sectors_per_s[0]);
  EXPECT_EQ(r.sectors_per_s_at(8192 * mib), r.sectors_per_s[1]);
  // A table within the L2 measures no DRAM sector rate: refused, naming the series.
  GpuSampleFile small = f;
  small.samples.push_back(sample("dram.random", {{"footprint_bytes", 16 * mib}, {"reads", reads}, {"element_bytes", 4}}, 1e-5, reads, 0));
  try {
    fit_gpu(small, "s.csv");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dram.random: footprint_bytes must exceed the L2"), std::string::npos) << e.what();
  }
}

// The shift/xor/add chain (gpu.compute's int32_logic): operations as written per second, the
// median of the best configuration; the multiply-add ceiling beside it stays its own.
TEST(GpuFit, IntegerShiftXorAddChainGivesOperationsPerSecond) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  // 16 chains of 9 operations a step, 1000 steps, 132 · 2048 threads: 3.89e12 operations a launch.
  const double ops = 132 * 2048 * 16 * 9 * 1000.0;
  const std::map<std::string, double> best{{"blocks_per_sm", 8}, {"chains", 16}, {"threads", 256}};
  const std::map<std::string, double> other{{"blocks_per_sm", 2}, {"chains", 16}, {"threads", 1024}};
  for (int rep = 0; rep < 5; ++rep) {
    // 25 Top/s at the median (rep 2); reps 0 and 4 at 5 % above and below.
    const double scale = rep == 0 ? 1.05 : rep == 4 ? 0.95 : rep == 1 ? 1.01 : rep == 3 ? 0.99 : 1.0;
    f.samples.push_back(sample("ceiling.int32_logic", best, ops / 25e12 / scale, ops, rep));
    f.samples.push_back(sample("ceiling.int32_logic", other, ops / 20e12, ops, rep));
    f.samples.push_back(sample("ceiling.int32", best, ops / 33e12, ops, rep));
  }
  const GpuCalibration g = fit_gpu(f, "s.csv");
  const MeasuredRate& r = g.ceiling("int32_logic");
  EXPECT_NEAR(r.median, 25e12, 1);
  // By hand: the rates 23.75, 24.75, 25, 25.25, 26.25 Top/s; p10 and p90 interpolate the
  // sorted five at 0.4 and 3.6: 23.75 + 0.4 · 1 = 24.15, 25.25 + 0.6 · 1 = 25.85.
  EXPECT_NEAR(r.p10, 24.15e12, 1e3);
  EXPECT_NEAR(r.p90, 25.85e12, 1e3);
  EXPECT_EQ(r.samples, 5u);
  EXPECT_EQ(r.config, "blocks_per_sm=8;chains=16;threads=256");
  EXPECT_NEAR(g.ceiling("int32").median, 33e12, 1);
  const CeilingKind* kind = find_ceiling_kind("int32_logic");
  ASSERT_NE(kind, nullptr);
  EXPECT_STREQ(kind->unit, "op/s");
}

// dram.random and dram.random_rmw in the slope form: each table at several read counts, every
// run's time a fixed part plus its DRAM sectors (the reuse rule, written out here) over the
// rate. The fit gives back the rate and the fixed part exactly; the fixed part is not charged per
// sector. The runs of four reads a thread (another rate) stay out of the fit.
TEST(GpuFit, RandomRatesComeFromTheSlopeOverReadCounts) {
  const double mib = 1048576.0, C = 50 * mib;
  const auto sectors = [&](double reads, double F) {
    const double T = 32 * reads, D = F * -std::expm1(-T / F);
    return (D + (T - D) * std::max(0.0, 1 - C / D)) / 32;
  };
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  f.device.l2_cache_bytes = C;
  const std::map<double, double> read_rate = {{256 * mib, 2.9e10}, {1024 * mib, 2.8e10}}, rmw_rate = {{256 * mib, 1.0e10}, {1024 * mib, 0.9e10}};
  const double fixed = 2e-5;
  for (const auto& [F, rate] : read_rate)
    for (const double reads : {8 * mib, 24 * mib, 64 * mib})
      for (int rep = 0; rep < 3; ++rep) {
        const double scale = rep == 0 ? 1.0 : rep == 1 ? 1.3 : 0.8;  // the median is the first
        f.samples.push_back(sample("dram.random", {{"footprint_bytes", F}, {"reads", reads}, {"element_bytes", 4}, {"reads_per_thread", 1}},
                                   (fixed + sectors(reads, F) / rate) * scale, reads, rep));
        f.samples.push_back(sample("dram.random", {{"footprint_bytes", F}, {"reads", reads}, {"element_bytes", 4}, {"reads_per_thread", 4}},
                                   (fixed + sectors(reads, F) / 1.5e10) * scale, reads, rep));
      }
  for (const auto& [F, rate] : rmw_rate)
    for (const double reads : {4 * mib, 12 * mib, 32 * mib})
      f.samples.push_back(sample("dram.random_rmw", {{"footprint_bytes", F}, {"reads", reads}, {"element_bytes", 4}},
                                 fixed / 2 + sectors(reads, F) / rate, reads, 0));
  // dram.random_write: the same reuse-rule sectors, times a fixed part plus sectors over the rate
  // (the benchmark's 2, 4 and 8 Mi writes a launch); the slope gives the rate back.
  const std::map<double, double> write_rate = {{256 * mib, 1.2e10}, {1024 * mib, 1.3e10}};
  for (const auto& [F, rate] : write_rate)
    for (const double writes : {2 * mib, 4 * mib, 8 * mib})
      f.samples.push_back(sample("dram.random_write", {{"footprint_bytes", F}, {"reads", writes}, {"element_bytes", 4}},
                                 3 * fixed + sectors(writes, F) / rate, writes, 0));
  const GpuCalibration g = fit_gpu(f, "s.csv");
  ASSERT_TRUE(g.dram_random);
  ASSERT_TRUE(g.dram_random_rmw);
  const RandomReadCalibration& r = *g.dram_random;
  EXPECT_EQ(r.footprint_bytes, (std::vector<double>{256 * mib, 1024 * mib}));
  EXPECT_EQ(r.reads, (std::vector<double>{64 * mib, 64 * mib}));  // the largest run
  ASSERT_EQ(r.fixed_s.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const double F = r.footprint_bytes[i];
    EXPECT_NEAR(r.sectors_per_s[i], read_rate.at(F), 1e-9 * read_rate.at(F));
    EXPECT_NEAR(r.fixed_s[i], fixed, 1e-12);
    EXPECT_NEAR(r.seconds[i], fixed + sectors(64 * mib, F) / read_rate.at(F), 1e-15);
    // What a single launch's time over its sectors (the first form) would have said: slower.
    EXPECT_LT(sectors(64 * mib, F) / r.seconds[i], r.sectors_per_s[i]);
    EXPECT_NEAR(g.dram_random_rmw->sectors_per_s[i], rmw_rate.at(F), 1e-9 * rmw_rate.at(F));
    EXPECT_NEAR(g.dram_random_rmw->fixed_s[i], fixed / 2, 1e-12);
  }
  EXPECT_EQ(g.dram_random_rmw->reads, (std::vector<double>{32 * mib, 32 * mib}));
  ASSERT_TRUE(g.dram_random_write);
  EXPECT_EQ(g.dram_random_write->footprint_bytes, (std::vector<double>{256 * mib, 1024 * mib}));
  EXPECT_EQ(g.dram_random_write->reads, (std::vector<double>{8 * mib, 8 * mib}));
  for (std::size_t i = 0; i < 2; ++i) {
    const double F = g.dram_random_write->footprint_bytes[i];
    EXPECT_NEAR(g.dram_random_write->sectors_per_s[i], write_rate.at(F), 1e-9 * write_rate.at(F));
    EXPECT_NEAR(g.dram_random_write->fixed_s[i], 3 * fixed, 1e-12);
  }
  // The 256 MiB table's 8 Mi writes, the reuse rule by hand: D = 256 MiB (1 - e^-1) = 161.82 MiB,
  // T - D = 94.18 MiB, 1 - 50/161.82 = 0.69102: 161.82 + 65.08 = 226.90 MiB = 7.4351e6 sectors.
  EXPECT_NEAR(g.dram_random_write->seconds[0], 3 * fixed + 7.4351e6 / 1.2e10, 1e-3 * 7.4351e6 / 1.2e10);
  // A profile whose tables mix one read count and several is refused, naming the series.
  GpuSampleFile mixed = f;
  mixed.samples.push_back(sample("dram.random", {{"footprint_bytes", 4096 * mib}, {"reads", 8 * mib}, {"element_bytes", 4}, {"reads_per_thread", 1}},
                                 1e-3, 8 * mib, 0));
  try {
    fit_gpu(mixed, "s.csv");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dram.random: every table needs two or more read counts"), std::string::npos) << e.what();
  }
  // A time that does not grow with the reads has no rate: refused, naming the series and table.
  GpuSampleFile flat;
  flat.device = f.device;
  for (const double reads : {4 * mib, 32 * mib})
    flat.samples.push_back(sample("dram.random_rmw", {{"footprint_bytes", 256 * mib}, {"reads", reads}, {"element_bytes", 4}}, 1e-3, reads, 0));
  try {
    fit_gpu(flat, "s.csv");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dram.random_rmw: the time does not grow with the reads over the 256 MiB table"), std::string::npos)
        << e.what();
  }
}

TEST(GpuFit, AtomicsGiveSecondsPerUpdateAgainstDistinctAddresses) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  const double threads = 4096, updates = threads * 32;
  const std::map<double, double> int32 = {{1, 2e-11}, {16, 1e-11}, {4096, 1e-12}}, fp64 = {{1, 3e-10}, {4096, 3e-12}};
  for (int rep = 0; rep < 3; ++rep) {
    // The repetitions scatter around the per-update time; their median is the middle one.
    const double scale = rep == 0 ? 1.0 : rep == 1 ? 1.1 : 0.95;
    for (const auto& [k, t] : int32)
      f.samples.push_back(sample("atomic.add", {{"type", 0}, {"addresses", k}, {"threads", threads}}, t * updates * scale, updates, rep));
    for (const auto& [k, t] : fp64)
      f.samples.push_back(sample("atomic.add", {{"type", 2}, {"addresses", k}, {"threads", threads}}, t * updates * scale, updates, rep));
  }
  // int32 on one address with one lane a warp: seconds per (one-lane) warp update.
  for (int rep = 0; rep < 3; ++rep)
    f.samples.push_back(sample("atomic.add", {{"type", 0}, {"addresses", 1}, {"threads", threads}, {"lanes", 1}}, 4e-10 * 128, 128, rep));
  const GpuCalibration g = fit_gpu(f, "s.csv");
  ASSERT_EQ(g.atomics.size(), 2u);
  const AtomicCurve& i = g.atomics.at("int32");
  EXPECT_EQ(i.addresses, (std::vector<double>{1, 16, 4096}));
  EXPECT_NEAR(i.seconds_per_update[1], 1e-11, 1e-24);
  EXPECT_NEAR(i.sector_update_s(), 32 * 2e-11, 1e-22);
  EXPECT_EQ(i.threads, threads);
  // Log-log between the measured K (256 is halfway from 16 to 4096), the end values beyond them.
  EXPECT_NEAR(i.seconds_per_update_at(256), std::sqrt(1e-11 * 1e-12), 1e-24);
  EXPECT_NEAR(i.seconds_per_update_at(1e6), 1e-12, 1e-25);
  EXPECT_NEAR(i.seconds_per_update_at(0.5), 2e-11, 1e-24);
  EXPECT_NEAR(g.atomics.at("fp64").sector_update_s(), 32 * 3e-10, 1e-21);
  EXPECT_NEAR(i.one_lane_update_s, 4e-10, 1e-22);
  // The predictor's two rates: one word's updates one after another (K = 1), and a step spread
  // over W bytes (K = W/32 sectors, at least 8: 8 is log-log between 1 and 16, 2^-3/4 of the way).
  EXPECT_NEAR(i.same_word_update_s(), 2e-11, 1e-24);
  EXPECT_NEAR(i.step_s(32), 2e-11 * std::pow(0.5, 0.75), 1e-24);
  EXPECT_NEAR(i.step_s(1024), 1e-11 * std::pow(0.1, 0.125), 1e-24);  // K = 32
  EXPECT_NEAR(i.step_s(32.0 * 256), std::sqrt(1e-11 * 1e-12), 1e-24);
  EXPECT_EQ(g.atomics.at("fp64").one_lane_update_s, 0);
  EXPECT_FALSE(g.atomics.count("fp32"));
  // A type without its one-address measurement has no serial rate: refused, naming the series.
  GpuSampleFile no_one = f;
  no_one.samples.erase(std::remove_if(no_one.samples.begin(), no_one.samples.end(),
                                      [](const BenchmarkSample& x) { return x.params.at("type") == 2 && x.params.at("addresses") == 1; }),
                       no_one.samples.end());
  try {
    fit_gpu(no_one, "s.csv");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("atomic.add: fp64 has no measurement on one address"), std::string::npos) << e.what();
  }
  GpuSampleFile one_lane_spread = f;
  one_lane_spread.samples.back().params["addresses"] = 8;
  EXPECT_THROW(fit_gpu(one_lane_spread, "s.csv"), InputError);
  GpuSampleFile bad_type = f;
  bad_type.samples[0].params["type"] = 7;
  EXPECT_THROW(fit_gpu(bad_type, "s.csv"), InputError);
}

// The launch series with queued sequences of k = 1, 2, 4, 8 kernels (memset 0) and memset+kernel
// pairs (memset 1) taking kernels(k) and pairs(k) seconds.
template <typename Kernels, typename Pairs>
GpuSampleFile queued_launch_file(Kernels kernels, Pairs pairs) {
  GpuSampleFile f;
  f.device.multiprocessors = 132;
  auto& s = f.samples;
  s.push_back(sample("launch.empty", {}, 3.5e-3, 1000));
  s.push_back(sample("launch.sync", {}, 9e-6 * 50, 50));
  s.push_back(sample("launch.graph", {}, 1e-3, 1000));
  for (double waves : {1.0, 2.0})
    s.push_back(sample("launch.waves", {{"waves", waves}, {"blocks", waves * 1056}}, 20 * (2e-6 + 0.6e-6 * waves), 20));
  for (double k : {1.0, 2.0, 4.0, 8.0}) {
    s.push_back(sample("launch.queued", {{"launches", k}, {"memset", 0}}, kernels(k), k));
    s.push_back(sample("launch.queued", {{"launches", k}, {"memset", 1}}, pairs(k), k));
  }
  return f;
}

// A host-bound sequence (each queued launch 25 us of host time, so the short sequences' line has a
// negative intercept) is fitted through the origin rather than refused: by hand, times 25k - 6 us
// at k = 1, 2, 4, 8 give sum(xy) / sum(x^2) = (25 * 85 - 6 * 15) / 85 = 23.941 us a launch.
TEST(GpuFit, HostBoundQueuedLaunchesGoThroughTheOrigin) {
  const GpuSampleFile f = queued_launch_file([](double k) { return 25e-6 * k - 6e-6; }, [](double k) { return 27e-6 * k - 6e-6; });
  const GpuCalibration g = fit_gpu(f, "s.csv");
  ASSERT_TRUE(g.launch && g.launch->queued);
  EXPECT_EQ(g.launch->queued->base_s, 0.0);
  EXPECT_NEAR(g.launch->queued->kernel_s, (25e-6 * 85 - 6e-6 * 15) / 85, 1e-12);
}

TEST(GpuFit, QueuedLaunchesThatDoNotGrowAreRefused) {
  const GpuSampleFile f = queued_launch_file([](double k) { return 10e-6 - 0.5e-6 * k; }, [](double) { return 11e-6; });
  try {
    fit_gpu(f, "s.csv");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("launch.queued"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not grow"), std::string::npos) << e.what();
  }
}
