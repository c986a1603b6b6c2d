// The CPU model on synthetic data with known answers: plateau detection, the bandwidth and
// compute interpolation, the kernel efficiency curve, the whole fit_cpu pipeline, and the cpu
// profile section's YAML (round trip and bad keys).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "perfmodel/calibrate/cpu.hpp"
#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"

using namespace perfmodel;

namespace {

// A 2-thread machine: L1 48 KiB, L2 2 MiB per core, L3 32 MiB shared; read plateaus at
// 200 / 120 / 50 / 25 GB/s; write at 0.8× read; FP32 190 Gflop/s per thread.
CpuSampleFile synthetic_machine() {
  CpuSampleFile f;
  f.cpu.logical_cpus = 2;
  f.cpu.l1d_bytes = 48 * 1024, f.cpu.l2_bytes = 2 << 20, f.cpu.l3_bytes = 32 << 20;
  f.cpu.l1d_shared_by = 1, f.cpu.l2_shared_by = 1, f.cpu.l3_shared_by = 2;
  for (double threads : {1.0, 2.0})
    for (double ws = 8192; ws <= 512e6; ws *= 2) {
      const double per_core = ws / threads;
      const double bw = threads * (per_core <= 48e3 ? 100e9 : per_core <= 2e6 ? 60e9 : ws <= 32e6 ? 25e9 : 12.5e9);
      for (const char* kind : {"read", "write", "copy", "triad"}) {
        const double rate = std::string(kind) == "write" ? 0.8 * bw : bw;
        for (int rep = 0; rep < 3; ++rep)
          f.samples.push_back({std::string("bandwidth.") + kind, {{"threads", threads}, {"working_set_bytes", ws}}, rep, 1e-3, rate * 1e-3});
      }
    }
  for (double threads : {1.0, 2.0}) {
    f.samples.push_back({"compute.fp32", {{"threads", threads}}, 0, 1, 190e9 * threads});
    f.samples.push_back({"compute.fp64", {{"threads", threads}}, 0, 1, 95e9 * threads});
    f.samples.push_back({"sync.dispatch", {{"threads", threads}}, 0, 1e-3 * threads, 1000});
  }
  return f;
}

}  // namespace

TEST(CpuPlateaus, FindsStepsAndTheirCount) {
  std::vector<double> bw;
  for (int i = 0; i < 4; ++i) bw.push_back(200e9 * (1 + 0.01 * (i % 2)));
  for (int i = 0; i < 5; ++i) bw.push_back(120e9);
  for (int i = 0; i < 3; ++i) bw.push_back(25e9 * (1 - 0.01 * (i % 2)));
  const auto p = find_plateaus(bw);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_EQ(p[1], (std::pair<std::size_t, std::size_t>{4, 8}));
  EXPECT_EQ(p[2], (std::pair<std::size_t, std::size_t>{9, 11}));
  EXPECT_EQ(find_plateaus(std::vector<double>(6, 1e9)).size(), 1u);  // flat: one plateau, not noise-chasing
  EXPECT_THROW(find_plateaus({1, -1}), std::invalid_argument);
}

// The busy-host check: silent on ordered plateaus (a level split in two counts by its best part,
// a 9 % shortfall is within the tolerance), and one message per broken order, naming the thread
// counts, the levels and both rates.
TEST(CpuCalibrationWarnings, NameLevelsOutOfOrderAndThreadsThatReadSlower) {
  CpuCalibration c;
  auto add = [&](double threads, const char* level, double gbps) {
    CachePlateau p;
    p.threads = threads, p.level = level, p.read_Bps = gbps * 1e9;
    c.plateaus.push_back(p);
  };
  for (double t : {1.0, 2.0}) {
    add(t, "L1", 100 * t), add(t, "L2", 50 * t), add(t, "L2", 30 * t), add(t, "L3", 20 * t), add(t, "memory", 10 * t);
  }
  add(4, "L1", 400), add(4, "L2", 190), add(4, "memory", 18.5);  // memory 7.5 % below 2 threads' 20
  EXPECT_TRUE(cpu_calibration_warnings(c).empty());
  c.plateaus.back().read_Bps = 17e9;  // 15 % below
  std::vector<std::string> w = cpu_calibration_warnings(c);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "4 threads read the memory plateau slower (17 GB/s) than 2 threads (20 GB/s): the host was probably busy; "
                  "calibrate its CPU again on a quiet machine");
  EXPECT_TRUE(cpu_calibration_warnings(c, 0.2).empty());
  c.plateaus.back().read_Bps = 20e9;
  c.plateaus[c.plateaus.size() - 3].read_Bps = 20e9;  // 4 threads: L1 at 20 GB/s, under L2 and under 2 threads
  w = cpu_calibration_warnings(c);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("4 threads read the L2 plateau faster (190 GB/s) than the L1 plateau (20 GB/s)"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("4 threads read the L1 plateau slower (20 GB/s) than 2 threads (200 GB/s)"), std::string::npos) << w[1];
  EXPECT_THROW(cpu_calibration_warnings(c, -0.1), std::invalid_argument);
  EXPECT_TRUE(cpu_calibration_warnings(CpuCalibration{}).empty());
}

TEST(CpuKernelModel, EfficiencyCurveInterpolatesAndIsJudgedOnHeldOutPoints) {
  const CpuKernelModel m = fit_kernel_model({{1e6, 1.0, 2.0}, {4e6, 1.0, 1.25}, {1e6, 1.0, 2.0}}, {{2e6, 2.0, 2.0 / 0.65}});
  ASSERT_EQ(m.efficiency.rows.size(), 2u);  // duplicate working sets collapse
  EXPECT_DOUBLE_EQ(m.efficiency_at(1e6), 0.5);
  EXPECT_DOUBLE_EQ(m.efficiency_at(4e6), 0.8);
  EXPECT_DOUBLE_EQ(m.efficiency_at(2e6), 0.65);  // halfway in log W
  EXPECT_DOUBLE_EQ(m.efficiency_at(1e3), 0.5);   // constant beyond the ends
  EXPECT_DOUBLE_EQ(m.efficiency_at(1e9), 0.8);
  ASSERT_TRUE(m.holdout);
  EXPECT_LT(m.holdout->max_rel_error, 1e-12);
  EXPECT_THROW(fit_kernel_model({}, {}), std::invalid_argument);
}

// The calibration adds fit sizes where a kernel's time per unit of work jumps between two fit
// sizes (a cache cliff), and nowhere else.
TEST(CpuRefinement, AddsAFitSizeInsideEachCliffLargestFirst) {
  const std::vector<double> fit = {192, 288, 384, 576, 768, 1152, 1536, 2304, 3072};
  auto times = [&](double cliff_at, double jump) {  // t = n² · 1 ns, ×jump beyond the cliff
    std::vector<double> t;
    for (double n : fit) t.push_back(n * n * 1e-9 * (n > cliff_at ? jump : 1.0));
    return t;
  };
  auto work = [](const std::vector<double>& sizes, double exponent) {  // n^exponent per size
    std::vector<double> w;
    for (double n : sizes) w.push_back(std::pow(n, exponent));
    return w;
  };
  const std::vector<double> n2 = work(fit, 2);
  // Flat time per n²: nothing to refine.
  EXPECT_TRUE(refinement_sizes(fit, times(1e9, 1), n2, {320, 640, 1280, 2560}, 0.10, 4, 16).empty());
  // A 25 % jump between 2304 and 3072: one size inside, at their geometric mean (2660.4 → 2656).
  const auto one = refinement_sizes(fit, times(2500, 1.25), n2, {320, 640, 1280, 2560}, 0.10, 4, 16);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], 2656);
  // A jump under the threshold is left alone; the measure of work matters (n² work read as n³
  // is a falling time per unit of work everywhere).
  EXPECT_TRUE(refinement_sizes(fit, times(2500, 1.08), n2, {}, 0.10, 4, 16).empty());
  EXPECT_EQ(refinement_sizes(fit, times(1e9, 1), work(fit, 3), {}, 0.10, 3, 16).size(), 3u);
  // Two cliffs, room for one: the larger jump wins.
  std::vector<double> two = times(2500, 1.15);
  for (std::size_t i = 0; i < fit.size(); ++i)
    if (fit[i] > 500) two[i] *= 1.4;
  const auto largest = refinement_sizes(fit, two, n2, {}, 0.10, 1, 16);
  ASSERT_EQ(largest.size(), 1u);
  EXPECT_GT(largest[0], 384);
  EXPECT_LT(largest[0], 576);
  EXPECT_EQ(refinement_sizes(fit, two, n2, {}, 0.10, 4, 16).size(), 2u);
  // The midpoint moves off a held-out size and off a power of two, and stays inside its interval.
  const auto moved = refinement_sizes({96, 192}, {1e-6, 8e-6}, {96.0 * 96, 192.0 * 192}, {128, 144}, 0.10, 1, 16);
  ASSERT_EQ(moved.size(), 1u);  // midpoint 135.8 → 128 (a power of two) → 144 (held out) → 112
  EXPECT_EQ(moved[0], 112);
  // A cache's capacity between two fit sizes' working sets: refined though the pilot saw no jump
  // (CG's 2304 → 3072 across 32 MiB of L2, 4 bytes a matrix element), and before a larger jump.
  std::vector<double> ws;
  for (double n : fit) ws.push_back(4 * n * n);
  const auto across = refinement_sizes(fit, times(1e9, 1), n2, {320, 640, 1280, 2560}, 0.10, 4, 16, ws, {32.0 * 1024 * 1024});
  ASSERT_EQ(across.size(), 1u);
  EXPECT_EQ(across[0], 2656);
  const auto first = refinement_sizes(fit, two, n2, {}, 0.10, 1, 16, ws, {32.0 * 1024 * 1024});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0], 2656);
  // A capacity that is a fit size's own working set counts for the interval below it; none
  // outside the sizes' range, and a zero capacity (an unknown level) does nothing.
  EXPECT_TRUE(refinement_sizes(fit, times(1e9, 1), n2, {}, 0.10, 4, 16, ws, {0, 1e15}).empty());
  EXPECT_THROW(refinement_sizes(fit, times(1e9, 1), n2, {}, 0.10, 4, 16, {1, 2}, {}), std::invalid_argument);
  EXPECT_THROW(refinement_sizes(fit, {1, 2}, n2, {}, 0.10, 4, 16), std::invalid_argument);
  EXPECT_THROW(refinement_sizes(fit, times(1e9, 1), {1, 2}, {}, 0.10, 4, 16), std::invalid_argument);
}

TEST(CpuWorkloads, CountTheSeedsDefinitions) {
  const CpuWorkload mv = cpu_workload("mv", 1000);
  EXPECT_EQ(mv.flops, 2e6);
  EXPECT_EQ(mv.bytes_read, 4.0 * (1e6 + 1000));
  EXPECT_EQ(cpu_workload("mm", 100).flops, 2e6);
  EXPECT_EQ(cpu_workload("conv2d", 10).flops, 2.0 * 25 * 100);
  EXPECT_EQ(cpu_workload("cg", 10).parallel_regions, 51);
  const CpuWorkload chol = cpu_workload("cholesky", 256);
  EXPECT_EQ(chol.parallel_regions, 3);          // 2 blocks: panel + update, then the last diagonal block
  EXPECT_EQ(chol.serial_flops, 256.0 * 128 * 128 / 3);
  EXPECT_THROW(cpu_workload("fft", 8), InputError);
  EXPECT_THROW(cpu_workload("mv", 0), InputError);
}

TEST(FitCpu, DerivesCurvesPlateausCeilingsAndKernelModels) {
  CpuSampleFile f = synthetic_machine();
  // A memory-bound kernel at 80 % of the curve everywhere, timed on 2 threads.
  CpuCalibration curves = fit_cpu(f, "s.csv");
  for (double n : {256.0, 512.0, 1024.0, 2048.0, 4096.0, 384.0, 768.0, 1536.0, 3072.0}) {
    const bool holdout = std::fmod(std::log2(n), 1.0) != 0;
    const CpuWorkload w = cpu_workload("mv", n);
    const double t = (curves.synchronisation_seconds(w, 2) + curves.roofline_seconds(w, 2)) / 0.8;
    f.samples.push_back({"kernel.mv", {{"n", n}, {"threads", 2}, {"holdout", holdout ? 1.0 : 0.0}}, 0, t, 1});
  }
  const CpuCalibration c = fit_cpu(f, "s.csv");
  EXPECT_EQ(c.bandwidth.size(), 4u);
  EXPECT_NEAR(c.bandwidth_Bps("read", 16384, 1), 100e9, 1);
  EXPECT_NEAR(c.bandwidth_Bps("read", 16384, 1.5), 150e9, 1);   // linear in threads
  EXPECT_NEAR(c.bandwidth_Bps("write", 1e9, 2), 0.8 * 25e9, 1);  // clamped beyond the last size
  EXPECT_NEAR(c.fp32_flops(2), 380e9, 1);
  EXPECT_NEAR(c.dispatch_seconds(2), 2e-6, 1e-15);
  // Plateaus of the 2-thread read curve: L1 (2 × 48 KiB), L2 (2 × 2 MiB), L3 (32 MiB), memory.
  std::vector<std::string> levels;
  for (const CachePlateau& p : c.plateaus)
    if (p.threads == 2) levels.push_back(p.level);
  EXPECT_EQ(levels, (std::vector<std::string>{"L1", "L2", "L3", "memory"}));
  for (const CachePlateau& p : c.plateaus)
    if (p.threads == 2 && p.level == "L2") {
      EXPECT_NEAR(p.read_Bps, 120e9, 1);
    }
  ASSERT_EQ(c.kernels.count("mv"), 1u);
  const CpuKernelModel& m = c.kernels.at("mv");
  EXPECT_EQ(m.threads, 2);
  for (const auto& row : m.efficiency.rows) EXPECT_NEAR(row[1], 0.8, 1e-9);
  ASSERT_TRUE(m.holdout);
  EXPECT_LT(m.holdout->max_rel_error, 1e-9);

  Profile p;
  p.cpu = c;
  const CpuPrediction pred = predict_cpu(p, "mv", 3000, 2);
  const CpuWorkload w = cpu_workload("mv", 3000);
  EXPECT_NEAR(pred.seconds, (c.synchronisation_seconds(w, 2) + c.roofline_seconds(w, 2)) / 0.8, 1e-12);
  EXPECT_TRUE(pred.memory_bound);
  EXPECT_FALSE(pred.outside_fitted_sizes);  // 3000 lies between the fitted 2048 and 4096
  EXPECT_FALSE(pred.extrapolated_threads);
  EXPECT_TRUE(predict_cpu(p, "mv", 20000, 2).outside_fitted_sizes);
  EXPECT_TRUE(predict_cpu(p, "mv", 3000, 4).extrapolated_threads);
  EXPECT_THROW(predict_cpu(p, "mm", 100), InputError);  // no model fitted for mm

  CpuSampleFile stray = f;
  stray.samples.push_back({"bandwidth.scatter", {}, 0, 1, 1});
  EXPECT_THROW(fit_cpu(stray, "s.csv"), InputError);
}

// A calibration from 2026-11-26 on also times each size as one call on its own (single = 1) and
// runs two sizes at one thread. The model is fitted on the single calls where they exist (batches
// elsewhere); the one-thread ratio is e(1 thread) / e(model) at those sizes; predict_cpu applies
// it at one thread, linearly in threads up to the fitted count, and not at all there.
TEST(FitCpu, SingleCallsAndOneThreadRatio) {
  CpuSampleFile f = synthetic_machine();
  const CpuCalibration curves = fit_cpu(f, "s.csv");
  const auto model_s = [&](double n, double threads) {
    const CpuWorkload w = cpu_workload("cosine", n);
    return curves.synchronisation_seconds(w, threads) + curves.roofline_seconds(w, threads);
  };
  for (double n : {4096.0, 16384.0, 65536.0}) {
    f.samples.push_back({"kernel.cosine", {{"n", n}, {"threads", 2}, {"holdout", 0}}, 0, 10 * model_s(n, 2) / 0.8, 10});  // batches: 80 %
    if (n < 65536)  // one call alone: 50 %; the largest size has batches only
      f.samples.push_back({"kernel.cosine", {{"n", n}, {"threads", 2}, {"holdout", 0}, {"single", 1}}, 0, model_s(n, 2) / 0.5, 1});
  }
  f.samples.push_back({"kernel.cosine", {{"n", 4096}, {"threads", 1}, {"holdout", 0}}, 0, 4 * model_s(4096, 1) / 0.6, 4});  // 60 % at one thread
  f.samples.push_back({"kernel.cosine", {{"n", 65536}, {"threads", 1}, {"holdout", 0}}, 0, 4 * model_s(65536, 1) / 0.4, 4});
  const CpuCalibration c = fit_cpu(f, "s.csv");
  const CpuKernelModel& m = c.kernels.at("cosine");
  EXPECT_EQ(m.threads, 2);
  ASSERT_EQ(m.efficiency.rows.size(), 3u);
  EXPECT_NEAR(m.efficiency.rows[0][1], 0.5, 1e-9);  // the single calls
  EXPECT_NEAR(m.efficiency.rows[1][1], 0.5, 1e-9);
  EXPECT_NEAR(m.efficiency.rows[2][1], 0.8, 1e-9);  // batches only
  ASSERT_EQ(m.one_thread.rows.size(), 2u);
  EXPECT_NEAR(m.one_thread.rows[0][1], 0.6 / 0.5, 1e-9);
  EXPECT_NEAR(m.one_thread.rows[1][1], 0.4 / 0.8, 1e-9);
  const double w0 = m.one_thread.rows[0][0], w1 = m.one_thread.rows[1][0];
  EXPECT_NEAR(m.thread_factor(w0, 1), 1.2, 1e-9);
  EXPECT_NEAR(m.thread_factor(w0 / 10, 1), 1.2, 1e-9);  // held beyond the measured sizes
  EXPECT_NEAR(m.thread_factor(w1 * 10, 1), 0.5, 1e-9);
  EXPECT_NEAR(m.thread_factor(std::sqrt(w0 * w1), 1), 0.85, 1e-9);  // log-linear in W
  EXPECT_NEAR(m.thread_factor(w0, 1.5), 1.1, 1e-9);  // linear in threads
  EXPECT_EQ(m.thread_factor(w0, 2), 1);
  Profile p;
  p.cpu = c;
  // At one thread the prediction at a measured size is the measured time.
  EXPECT_NEAR(predict_cpu(p, "cosine", 4096, 1).seconds, model_s(4096, 1) / 0.6, 1e-9 * model_s(4096, 1));
  EXPECT_NEAR(predict_cpu(p, "cosine", 16384, 2).seconds, model_s(16384, 2) / 0.5, 1e-9 * model_s(16384, 2));
  // The one-thread efficiency itself: 0.6 and 0.4 where measured, log-linear between, held beyond
  // both ends (not ρ times the all-threads curve: 0.5 · 0.8 = 0.4 happens to agree at the top, so
  // the bottom end tells: 1.2 · 0.5 = 0.6 at w0 and below).
  EXPECT_NEAR(m.one_thread_efficiency(w0), 0.6, 1e-9);
  EXPECT_NEAR(m.one_thread_efficiency(w1), 0.4, 1e-9);
  EXPECT_NEAR(m.one_thread_efficiency(std::sqrt(w0 * w1)), std::sqrt(0.6 * 0.4), 1e-9);
  EXPECT_NEAR(m.one_thread_efficiency(w0 / 100), 0.6, 1e-9);
  EXPECT_NEAR(m.one_thread_efficiency(w1 * 100), 0.4, 1e-9);
  // At one thread below the smallest fitted size: the work at the one-thread efficiency, nothing
  // subtracted (the ratio form divided it by the 2-thread work efficiency left after dispatch).
  EXPECT_NEAR(predict_cpu(p, "cosine", 64, 1).seconds, model_s(64, 1) / 0.6, 1e-9 * model_s(64, 1));
  EXPECT_NEAR(predict_cpu(p, "cosine", 1 << 20, 1).seconds, model_s(1 << 20, 1) / 0.4, 1e-9 * model_s(1 << 20, 1));
}

// Beyond the largest fitted size a memory-bound kernel keeps the time per byte it spent beyond its
// roofline there. dot on the synthetic machine, 2 threads, fitted at 50 % where the working set
// (8n bytes) is in the L3 (read 50 GB/s at 2 threads), predicted in memory (25 GB/s):
//   excess per byte at n1 = 2^21: (S1 + R1)(1/0.5 − 1) / 8n1 = 2 µs / 8n1 + 1 / 50 GB/s
//   T(n = 2^25) = 2 µs + 8n / 25 GB/s + 8n (2 µs / 8n1 + 1 / 50 GB/s) = 2 µs + 32 µs + 8n · 3 / 50 GB/s
// (16.14 ms; the efficiency held gave (2 µs + 8n / 25 GB/s) / 0.5 = 21.5 ms).
TEST(FitCpu, BeyondTheFittedSizesAMemoryBoundKernelKeepsItsExcessPerByte) {
  CpuSampleFile f = synthetic_machine();
  const CpuCalibration curves = fit_cpu(f, "s.csv");
  for (double n : {1 << 20, 1 << 21}) {
    const CpuWorkload w = cpu_workload("dot", n);
    ASSERT_EQ(w.bytes_read, 8 * n);
    ASSERT_EQ(w.bytes_written, 0);
    ASSERT_EQ(w.parallel_regions, 1);
    f.samples.push_back({"kernel.dot", {{"n", n}, {"threads", 2}, {"holdout", 0}}, 0,
                         (curves.synchronisation_seconds(w, 2) + curves.roofline_seconds(w, 2)) / 0.5, 1});
  }
  Profile p;
  p.cpu = fit_cpu(f, "s.csv");
  const double n = 1 << 25;
  EXPECT_NEAR(p.cpu->bandwidth_Bps("read", 8 * n, 2), 25e9, 1);
  EXPECT_NEAR(p.cpu->bandwidth_Bps("read", 8.0 * (1 << 21), 2), 50e9, 1);
  EXPECT_NEAR(predict_cpu(p, "dot", n, 2).seconds, 2e-6 + 32e-6 + 8 * n * 3 / 50e9, 1e-12);
  // Within the fitted sizes the efficiency stands.
  const CpuWorkload w = cpu_workload("dot", 1 << 20);
  EXPECT_NEAR(predict_cpu(p, "dot", 1 << 20, 2).seconds, (2e-6 + w.bytes_read / 50e9) / 0.5, 1e-12);
}

TEST(CpuProfileYaml, RoundTripsAndRejectsBadKeys) {
  CpuSampleFile f = synthetic_machine();
  f.samples.push_back({"kernel.dot", {{"n", 1e6}, {"threads", 2}, {"holdout", 0}}, 0, 1e-3, 1});
  f.samples.push_back({"kernel.dot", {{"n", 4e6}, {"threads", 2}, {"holdout", 0}}, 0, 4e-3, 1});
  Profile p;
  p.cpu = fit_cpu(f, "x.cpu_samples.csv");
  const std::string yaml = profile_to_yaml(p);
  const Profile back = parse_profile(yaml, "p.yaml");
  ASSERT_TRUE(back.cpu);
  EXPECT_EQ(profile_to_yaml(back), yaml);
  EXPECT_EQ(back.cpu->plateaus.size(), p.cpu->plateaus.size());
  EXPECT_EQ(back.cpu->kernels.at("dot").efficiency.rows.size(), 2u);
  EXPECT_TRUE(back.cpu->kernels.at("dot").one_thread.rows.empty());  // none measured: none written
  {  // a one-thread ratio round-trips
    Profile q = p;
    q.cpu->kernels.at("dot").one_thread = NumericTable{{"working_set_bytes", "ratio"}, {{8e6, 1.25}, {32e6, 0.75}}};
    const std::string text = profile_to_yaml(q);
    const Profile again = parse_profile(text, "q.yaml");
    EXPECT_EQ(again.cpu->kernels.at("dot").one_thread.rows, q.cpu->kernels.at("dot").one_thread.rows);
    EXPECT_EQ(profile_to_yaml(again), text);
    try {
      parse_profile(std::regex_replace(text, std::regex(R"(- \[32000000, 0\.75\])"), "- [4000000, 0.75]"), "bad.yaml");
      ADD_FAILURE() << "descending one_thread rows accepted";
    } catch (const InputError& e) {
      EXPECT_TRUE(std::regex_search(std::string(e.what()), std::regex(R"(cpu\.kernels\.dot\.one_thread\.rows\[1\]: working sets must be ascending)")))
          << e.what();
    }
  }

  auto error_of = [&](const std::string& from, const std::string& to) {
    EXPECT_TRUE(std::regex_search(yaml, std::regex(from))) << "test bug: " << from;
    try {
      parse_profile(std::regex_replace(yaml, std::regex(from), to, std::regex_constants::format_first_only), "bad.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const struct {
    std::string from, to, expected;
  } cases[] = {
      {"logical_cpus: 2", "logical_cpus: 0", R"(bad\.yaml:\d+:\d+: cpu\.info\.logical_cpus: must be >= 1)"},
      {"level: L1", "level: L4", R"(cpu\.plateaus\[0\]\.level: must be L1, L2, L3 or memory)"},
      {"    read:", "    gather:", R"(cpu\.bandwidth\.gather: unknown key)"},
      {"  dispatch:", "  dispatcher:", R"(cpu\.dispatcher: unknown key)"},
      {"    dot:", "    fft:", R"(cpu\.kernels\.fft: unknown key)"},
      {R"(columns: \[working_set_bytes, efficiency\])", "columns: [n, efficiency]", R"(cpu\.kernels\.dot\.efficiency\.columns: must be)"},
      {R"(- \[1, 8192, [^\]]+\])", "- [1, 8192, -5]", R"(cpu\.bandwidth\.read\.rows\[0\]\[2\]: must be >= 0)"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.from, c.to);
    EXPECT_TRUE(std::regex_search(message, std::regex(c.expected))) << c.from << " -> " << c.to << "\n  got: " << message;
  }
}

TEST(BandwidthWorkingSets, DenseNearTheCachesSparseOnThePlateausEndingOnTheTop) {
  const double unit = 4096, top = 1 << 30, llc = 300.0 * (1 << 20);
  const std::vector<double> caches = {48 << 10, 2 << 20, llc};
  const auto sets = bandwidth_working_sets(unit, top, 2 * llc, caches, false);
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(sets.front(), 4096u);
  EXPECT_EQ(sets.back(), static_cast<std::size_t>(top));
  EXPECT_TRUE(std::is_sorted(sets.begin(), sets.end()));
  for (std::size_t i = 1; i + 1 < sets.size(); ++i) {
    EXPECT_EQ(sets[i] % 4096, 0u);
    const double ratio = static_cast<double>(sets[i]) / static_cast<double>(sets[i - 1]);
    auto near = [&](std::size_t ws) {
      return std::any_of(caches.begin(), caches.end(), [&](double c) { return static_cast<double>(ws) >= c / 2 && static_cast<double>(ws) <= 2 * c; });
    };
    if (!near(sets[i]) && !near(sets[i - 1]) && sets[i] != static_cast<std::size_t>(top)) {
      EXPECT_GT(ratio, 1.9) << sets[i];  // a plateau: ×2 apart
    }
    EXPECT_LE(static_cast<double>(sets[i]), 2 * llc);  // nothing between the memory plateau's start and the top
  }
  // Near L2 (2 MiB) the √2 points are there: 2 MiB·√2 rounded to 4 KiB.
  EXPECT_TRUE(std::count(sets.begin(), sets.end(), static_cast<std::size_t>(std::round((2 << 20) * std::sqrt(2.0) / 4096) * 4096)) == 1);
  // Fewer cases than √2 everywhere (the old plan), more than ×2 everywhere.
  EXPECT_LT(sets.size(), 35u);
  EXPECT_GT(sets.size(), 18u);
  EXPECT_LT(bandwidth_working_sets(unit, top, 2 * llc, caches, true).size(), sets.size());
  EXPECT_THROW(bandwidth_working_sets(0, top, 2 * llc, caches, false), std::invalid_argument);
}

// The CPU benchmarks' stopping rule: the minimum first, then the relative standard error of the
// median (1.2533 · IQR/1.349 / median / √n) against the target, the maximum in any case.
TEST(CpuSampleStop, MinimumThenPrecisionThenMaximum) {
  const SampleStop stop{0.02, 3, 5};
  EXPECT_FALSE(stop.enough({}));
  EXPECT_FALSE(stop.enough({1.0, 1.0}));             // below the minimum, however tight
  EXPECT_TRUE(stop.enough({1.0, 1.0, 1.0}));         // no spread: done at the minimum
  EXPECT_TRUE(stop.enough({1.00, 1.01, 1.02}));      // rse = 1.2533·(0.01/1.349)/1.01/√3 = 0.53 %
  EXPECT_FALSE(stop.enough({1.0, 1.1, 1.2}));        // 4.9 %: another sample
  EXPECT_FALSE(stop.enough({1.0, 1.1, 1.2, 1.3}));   // 6.1 %: and another
  EXPECT_TRUE(stop.enough({1.0, 1.1, 1.2, 1.3, 1.4}));  // the maximum, imprecise or not
  // The estimate is the median's: one outlier does not keep a case going.
  EXPECT_TRUE(stop.enough({1.0, 1.0, 1.0, 1.0, 9.0}));
  EXPECT_TRUE((SampleStop{0.02, 3, 9}).enough({1.0, 1.0, 9.0, 1.0, 1.0}));
  // A tighter target takes more of the same samples.
  EXPECT_TRUE((SampleStop{0.01, 3, 31}).enough({1.00, 1.01, 1.02}));
  EXPECT_FALSE((SampleStop{0.005, 3, 31}).enough({1.00, 1.01, 1.02}));
  // Non-positive medians never count as precise.
  EXPECT_FALSE((SampleStop{0.02, 3, 31}).enough({0.0, 0.0, 0.0}));
}

// The bandwidth sweep's time budget: once spent, an imprecise case stops at the minimum (never
// below it); the thread counts share what is left equally.
TEST(CpuSampleStop, ASpentBudgetEndsImpreciseCasesAtTheMinimum) {
  const SampleStop stop{0.02, 3, 5};
  EXPECT_FALSE(stop.enough({1.0, 1.1, 1.2}, false));  // 4.9 %: another sample while time is left
  EXPECT_TRUE(stop.enough({1.0, 1.1, 1.2}, true));    // none once it is spent
  EXPECT_FALSE(stop.enough({1.0, 1.1}, true));        // the minimum still holds
  EXPECT_TRUE(stop.enough({1.0, 1.0, 1.0}, false));   // precise cases stop as before
  EXPECT_DOUBLE_EQ(budget_share(12.0, 0.0, 5), 2.4);
  EXPECT_DOUBLE_EQ(budget_share(12.0, 1.0, 4), 2.75);  // the first part ended early: the others gain
  EXPECT_DOUBLE_EQ(budget_share(12.0, 9.0, 2), 1.5);
  EXPECT_DOUBLE_EQ(budget_share(12.0, 13.0, 1), 0.0);  // overrun: the last part takes its minimum only
  EXPECT_THROW(budget_share(12.0, 0.0, 0), std::invalid_argument);
  EXPECT_THROW(budget_share(-1.0, 0.0, 1), std::invalid_argument);
}

// The working-set bisection: flat intervals end, others are split at the size nearest their
// geometric midpoint, and the halves are examined next.
TEST(CpuBracketRefine, SplitsOnlyWhereTheEndsDiffer) {
  std::vector<double> sizes;  // 4 MiB … 1 GiB, ×2 apart: indices 0 … 8
  for (double s = 4.0 * 1024 * 1024; s <= 1024.0 * 1024 * 1024; s *= 2) sizes.push_back(s);
  ASSERT_EQ(sizes.size(), 9u);
  // A curve at 23 GB/s to 16 MiB, 13 GB/s from 64 MiB on (the H100 host's one thread).
  const std::vector<double> curve = {23.5, 22.9, 21.5, 14.7, 13.2, 13.4, 13.1, 12.8, 12.9};
  std::map<std::size_t, double> rates = {{0, curve[0]}, {8, curve[8]}};
  BracketStep step = bracket_refine(sizes, rates, {{0, 8}}, 0.05);
  ASSERT_EQ(step.measure, (std::vector<std::size_t>{4}));  // 64 MiB: the geometric middle of 4 MiB … 1 GiB
  ASSERT_EQ(step.intervals.size(), 2u);
  rates[4] = curve[4];
  step = bracket_refine(sizes, rates, step.intervals, 0.05);
  EXPECT_EQ(step.measure, (std::vector<std::size_t>{2}));  // [4, 64 MiB] differs; [64 MiB, 1 GiB] is flat (2.3 %)
  ASSERT_EQ(step.intervals, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {2, 4}}));
  rates[2] = curve[2];
  step = bracket_refine(sizes, rates, step.intervals, 0.05);
  EXPECT_EQ(step.measure, (std::vector<std::size_t>{1, 3}));  // 23.5 vs 21.5 (9 %), 21.5 vs 13.2
  for (std::size_t i : step.measure) rates[i] = curve[i];
  step = bracket_refine(sizes, rates, step.intervals, 0.05);
  EXPECT_TRUE(step.measure.empty());  // every interval is one step wide now
  EXPECT_TRUE(step.intervals.empty());
  // 128 … 512 MiB were never measured: within 5 % of both ends, as monotonic falling implies.
  EXPECT_EQ(rates.size(), 6u);
  EXPECT_FALSE(rates.count(5) || rates.count(6) || rates.count(7));
  // The tolerance is relative and symmetric; rising or falling alike.
  EXPECT_TRUE(bracket_refine(sizes, {{0, 10.0}, {8, 10.49}}, {{0, 8}}, 0.05).measure.empty());
  EXPECT_EQ(bracket_refine(sizes, {{0, 10.49}, {8, 10.0}}, {{0, 8}}, 0.04).measure.size(), 1u);
  EXPECT_EQ(bracket_refine(sizes, {{0, 10.0}, {8, 10.6}}, {{0, 8}}, 0.05).measure.size(), 1u);
  // Two intervals asking for the same size (not produced by the bisection itself) measure it once.
  EXPECT_EQ(bracket_refine(sizes, {{0, 1.0}, {8, 2.0}}, {{0, 8}, {0, 8}}, 0.05).measure.size(), 1u);
  // Interval ends must be measured and in range.
  EXPECT_THROW(bracket_refine(sizes, {{0, 1.0}}, {{0, 8}}, 0.05), std::invalid_argument);
  EXPECT_THROW(bracket_refine(sizes, {{0, 1.0}, {9, 1.0}}, {{0, 9}}, 0.05), std::invalid_argument);
  EXPECT_THROW(bracket_refine(sizes, {{0, 1.0}, {8, 1.0}}, {{8, 0}}, 0.05), std::invalid_argument);
}
