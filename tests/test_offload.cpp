// The offload advisor: decisions, crossovers, break-even, overlap and split on synthetic profiles
// computed by hand; bad input; the offload validation's files and analysis on a synthetic run.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/offload.hpp"
#include "perfmodel/validate/offload_validation.hpp"

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

std::string bundled() { return std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/nvidia-h100-80gb-hbm3.yaml"; }
// The recorded offload runs were predicted from the then bundled profile (GPU 110d06eb, 2026-11-23;
// each report.md names it by date), kept under profiles/other/: a later bundled profile leaves
// these records alone.
std::string recorded_run_profile() {
  return std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/other/2026-11-23-h100-110d06eb/nvidia-h100-80gb-hbm3.yaml";
}
Profile load_recorded_run_profile(const std::string& run_dir) {
  Profile p = load_profile(recorded_run_profile());
  EXPECT_NE(read_file(run_dir + "/report.md").find("measured " + p.provenance.date_utc), std::string::npos)
      << run_dir << " names another profile than " << recorded_run_profile();
  return p;
}

// A synthetic machine: CPU reads at 10 GB/s, writes at 5 GB/s (any working set, any threads),
// 100 GFLOP/s FP32 and 50 FP64 per thread count row, no dispatch cost; copies take
// 10 µs + bytes / 25 GB/s (h2d) and 10 µs + bytes / 20 GB/s (d2h), pinned.
Profile synthetic() {
  Profile p;
  p.provenance.device_name = "Synthetic GPU";
  p.provenance.host_name = "synthetic";
  p.provenance.host_cpu = "Synthetic CPU";
  p.pcie = PcieCalibration{};
  for (auto [dir, rate] : {std::pair{Direction::h2d, 25e9}, std::pair{Direction::d2h, 20e9}}) {
    TransferCurve c;
    c.min_bytes = 4, c.max_bytes = 1e9;
    c.segments = {{0, INFINITY, 10e-6, 1.0 / rate, 0, 10, 0.01, 0.02}};
    c.fit.sizes = 10, c.fit.mean_rel_error = 0.01, c.fit.max_rel_error = 0.02;
    p.pcie->curves[{dir, HostMemory::pinned}] = c;
  }
  CpuCalibration cpu;
  cpu.bandwidth["read"].columns = {"threads", "working_set_bytes", "Bps"};
  cpu.bandwidth["write"].columns = cpu.bandwidth["read"].columns;
  for (double t : {1.0, 16.0})
    for (double ws : {1e3, 1e12}) cpu.bandwidth["read"].rows.push_back({t, ws, 10e9}), cpu.bandwidth["write"].rows.push_back({t, ws, 5e9});
  cpu.compute.columns = {"threads", "fp32_flops", "fp64_flops"};
  cpu.compute.rows = {{1, 100e9, 50e9}, {16, 100e9, 50e9}};
  p.cpu = cpu;
  return p;
}

CpuSide signature_of(double read, double written, double flops32) {
  CpuSide s;
  s.kind = CpuSide::Kind::signature;
  s.signature.bytes_read = read, s.signature.bytes_written = written, s.signature.flops_fp32 = flops32;
  s.signature.working_set_bytes = read + written;
  s.signature.threads = 16;
  return s;
}

std::string temp(const std::string& name) { return ::testing::TempDir() + "/offload_" + name; }

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

// ----------------------------------------------------------------------------- by hand

TEST(Offload, SignatureTimeIsTheRooflineByHand) {
  const Profile p = synthetic();
  // 1 GB read at 10 GB/s + 0.5 GB written at 5 GB/s = 0.2 s; 1e9 flops at 100 GFLOP/s = 0.01 s.
  const CpuSideTime t = cpu_side_time(p, signature_of(1e9, 0.5e9, 1e9));
  EXPECT_NEAR(t.seconds, 0.2, 1e-12);
  EXPECT_EQ(t.bound, "memory");
  EXPECT_TRUE(t.lower_bound);
  CpuSide fp64 = signature_of(0, 0, 0);
  fp64.signature.flops_fp64 = 5e9;  // at 50 GFLOP/s: 0.1 s
  fp64.signature.efficiency = 0.5;  // → 0.2 s
  const CpuSideTime t64 = cpu_side_time(p, fp64);
  EXPECT_NEAR(t64.seconds, 0.2, 1e-12);
  EXPECT_FALSE(t64.lower_bound);
}

TEST(Offload, DecisionAndIntervalByHand) {
  OffloadTerms t;
  t.cpu_s = 3e-3, t.kernels_s = 1e-3, t.h2d_s = 0.5e-3, t.d2h_s = 0.5e-3;  // GPU 2 ms: speedup 1.5
  OffloadErrorLevels e;
  e.cpu = 0.1, e.gpu = 0.2, e.copies = 0.05;
  const OffloadDecision d = decide_offload(t, e);
  EXPECT_EQ(d.decision, "gpu");
  EXPECT_NEAR(d.speedup, 1.5, 1e-12);
  EXPECT_NEAR(d.speedup_low, 3e-3 / 1.1 / (1e-3 * 1.2 + 1e-3 * 1.05), 1e-12);  // 1.21: each term by a factor (1 + e)
  ASSERT_TRUE(d.speedup_high);
  EXPECT_NEAR(*d.speedup_high, 3e-3 * 1.1 / (1e-3 / 1.2 + 1e-3 / 1.05), 1e-12);
  EXPECT_TRUE(d.firm);
  EXPECT_EQ(d.dominant, "GPU kernels");
  // Copies alone over the CPU time: the CPU, and the copies are the reason.
  t.cpu_s = 0.8e-3;
  const OffloadDecision c = decide_offload(t, e);
  EXPECT_EQ(c.decision, "cpu");
  EXPECT_EQ(c.dominant, "copies");
  EXPECT_NE(c.reason.find("copies alone"), std::string::npos);
  // A tie goes to the CPU (Listing 4.18's <=); a roofline CPU time has no upper end.
  t.cpu_s = 2e-3;
  t.cpu_lower_bound = true;
  const OffloadDecision tie = decide_offload(t, e);
  EXPECT_EQ(tie.decision, "cpu");
  EXPECT_FALSE(tie.speedup_high);
  EXPECT_FALSE(tie.firm);
}

TEST(Offload, CrossoverOfSyntheticProfileByHand) {
  // CPU: 4n² bytes at 10 GB/s; GPU: the same bytes up at 25 GB/s + 10 µs, no kernel time.
  // 4n²(1/10e9 − 1/25e9) = 10e-6  →  n = sqrt(10e-6 / (4 · 6e-11)) = 204.12.
  const Profile p = synthetic();
  const CommunicationPredictor comm(p);
  const auto speedup = [&](double n) {
    const double cpu = cpu_side_time(p, signature_of(4 * n * n, 0, 0)).seconds;
    return cpu / comm.predict(Transfer{{Direction::h2d, HostMemory::pinned}, static_cast<std::uint64_t>(4 * n * n)}).seconds;
  };
  const CrossoverResult r = find_crossover(speedup, 8, 4096, 1);
  ASSERT_EQ(r.crossings.size(), 1u);
  EXPECT_NEAR(r.crossings[0].n, std::sqrt(10e-6 / (4 * 6e-11)), 0.5);
  EXPECT_EQ(r.crossings[0].wins_above, "gpu");
  EXPECT_EQ(r.crossings[0].n_below, 204);
  EXPECT_EQ(r.crossings[0].n_above, 205);
  ASSERT_TRUE(r.gpu_from_n());
  // In multiples of 64 the bracketing sizes are 192 and 256.
  const CrossoverResult m = find_crossover(speedup, 64, 4096, 64);
  ASSERT_EQ(m.crossings.size(), 1u);
  EXPECT_EQ(m.crossings[0].n_below, 192);
  EXPECT_EQ(m.crossings[0].n_above, 256);
  // No crossing in range: said in words, and no number.
  const CrossoverResult never = find_crossover(speedup, 8, 128, 1);
  EXPECT_TRUE(never.crossings.empty());
  EXPECT_EQ(never.verdict, "GPU never wins in [8, 128]");
  EXPECT_FALSE(never.gpu_from_n());
  const CrossoverResult always = find_crossover(speedup, 256, 4096, 1);
  EXPECT_EQ(always.verdict, "GPU always wins in [256, 4096]");
  ASSERT_TRUE(always.gpu_from_n());
  EXPECT_EQ(*always.gpu_from_n(), 256);
}

TEST(Offload, BreakEvenIterationsByHand) {
  // CPU: 1 ms per iteration; GPU: 10 ms of copies + 0.2 ms per iteration → wins from 10/0.8 = 12.5, i.e. 13.
  const auto terms = [](int i) {
    OffloadTerms t;
    t.cpu_s = 1e-3 * i;
    t.h2d_s = 10e-3;
    t.kernels_s = 0.2e-3 * i;
    return t;
  };
  const ReuseResult r = reuse_break_even(terms);
  ASSERT_TRUE(r.break_even_iterations);
  EXPECT_EQ(*r.break_even_iterations, 13);
  EXPECT_NEAR(r.cpu_per_iteration_s, 1e-3, 1e-15);
  EXPECT_NEAR(r.gpu_fixed_s, 10e-3, 1e-15);
  // A GPU iteration slower than the CPU's: never, and no number.
  const ReuseResult never = reuse_break_even([](int i) {
    OffloadTerms t;
    t.cpu_s = 1e-3 * i;
    t.h2d_s = 10e-3;
    t.kernels_s = 2e-3 * i;
    return t;
  });
  EXPECT_FALSE(never.break_even_iterations);
  EXPECT_NE(never.verdict.find("never"), std::string::npos);
}

TEST(Offload, SplitBalancesTheTwoSidesByHand) {
  // T_cpu(f) = 4 f, T_gpu(g) = 1 g (no fixed costs): balance at 4f = 1 − f → f = 0.2, 0.8 s; alone: 1 s.
  const SplitResult s = split_work([](double f) { return 4 * f; }, [](double g) { return g; });
  EXPECT_NEAR(s.cpu_fraction, 0.2, 1e-9);
  EXPECT_NEAR(s.split_s, 0.8, 1e-9);
  EXPECT_NEAR(s.best_alone_s, 1.0, 1e-12);
  EXPECT_NEAR(s.saved_fraction, 0.2, 1e-9);
  // A GPU fixed cost larger than the CPU's whole time: no split, the CPU alone.
  const SplitResult none = split_work([](double f) { return 4 * f; }, [](double g) { return g > 0 ? 5 + g : 0.0; });
  EXPECT_EQ(none.cpu_fraction, 1);
  EXPECT_EQ(none.saved_s, 0);
}

TEST(Offload, ChunkedOverlapByHand) {
  Profile p = synthetic();
  p.gpu = GpuCalibration{};
  OverlapCalibration o;
  o.copy_engines = 2;
  p.gpu->overlap = o;
  // 25 MB up (10 µs + 1 ms), a 1 ms kernel, 20 MB down (10 µs + 1 ms): serial 3.02 ms. In k
  // chunks: fixed 0 + (h + kc + d) + (k − 1)·max(h, kc, d), h = 10 µs + 1 ms/k, kc = 1 ms/k.
  const std::vector<Transfer> in = {{{Direction::h2d, HostMemory::pinned}, 25000000}};
  const std::vector<Transfer> out = {{{Direction::d2h, HostMemory::pinned}, 20000000}};
  const OverlapResult r = chunked_overlap(p, {}, in, out, 1e-3, HostMemory::pinned);
  ASSERT_TRUE(r.possible);
  EXPECT_NEAR(r.serial_s, 3.02e-3, 1e-9);
  double best = r.serial_s;
  for (int k = 2; k <= 64; k *= 2) {
    const double h = 10e-6 + 1e-3 / k, kc = 1e-3 / k, d = 10e-6 + 1e-3 / k;
    best = std::min(best, h + kc + d + (k - 1) * std::max({h, kc, d}));
  }
  EXPECT_NEAR(r.overlapped_s, best, 1e-9);
  EXPECT_LT(r.overlapped_s, 1.5e-3);
  // Pageable copies do not overlap.
  const OverlapResult pageable = chunked_overlap(p, {}, in, out, 1e-3, HostMemory::pageable);
  EXPECT_FALSE(pageable.possible);
  EXPECT_NE(pageable.why_not.find("pin"), std::string::npos);
}

// An offloaded operation copies the same buffers every time: a curve's shift for copies issued
// among other kinds at a random host page (mixed_setup_s, part of its set-up) is taken off.
TEST(Offload, RepeatedCopiesPayNoMixedIssueShiftByHand) {
  Profile p = synthetic();
  TransferCurve& up = p.pcie->curves[{Direction::h2d, HostMemory::pinned}];
  up.mixed_setup_s = 2e-6;
  up.segments[0].setup_s += 2e-6;  // as apply_mixed_copies leaves it: 12 µs + b / 25 GB/s
  const Transfer t{{Direction::h2d, HostMemory::pinned}, 1000000};
  EXPECT_NEAR(CommunicationPredictor(p).predict(t).seconds, 12e-6 + 40e-6, 1e-12);  // a copy on its own
  EXPECT_NEAR(OffloadCopies(p).seconds(t, 1e6), 10e-6 + 40e-6, 1e-12);             // within the operation
  const Transfer down{{Direction::d2h, HostMemory::pinned}, 1000000};
  EXPECT_NEAR(OffloadCopies(p).seconds(down, 1e6), 10e-6 + 50e-6, 1e-12);  // no shift: the curve as it stands
}

// ----------------------------------------------------------------------------- built-in kernels
// Pageable copies with the host side warm: of a rotating curve's cost per byte (here 100 ps/B
// up, pinned 40 ps/B), the part beyond the pinned one scales by r = BW_copy(1, cold) /
// BW_copy(1, W). One-thread copy bandwidth: 40 GB/s up to 8 MB, 10 GB/s from 64 MB (log-log
// between); cold = 2 × 1 GB; W = max(2 × host bytes, 2 × L2 = 4 MB).
TEST(Offload, PageableCopiesWithAWarmHostByHand) {
  Profile p = synthetic();
  p.cpu->cpu.l2_bytes = 2e6, p.cpu->cpu.l3_bytes = 64e6;
  p.cpu->bandwidth["copy"].columns = {"threads", "working_set_bytes", "Bps"};
  p.cpu->bandwidth["copy"].rows = {{1, 1e3, 40e9}, {1, 8e6, 40e9}, {1, 64e6, 10e9}, {1, 1e12, 10e9}};
  TransferCurve pageable;
  pageable.min_bytes = 4, pageable.max_bytes = 1e9;
  pageable.segments = {{0, INFINITY, 20e-6, 100e-12, 0, 10, 0.01, 0.02}};
  p.pcie->curves[{Direction::h2d, HostMemory::pageable}] = pageable;
  p.pcie->curves[{Direction::h2d, HostMemory::pinned}].segments[0].s_per_byte = 40e-12;
  p.pcie->host_buffer = "rotating";
  const OffloadCopies copies(p);
  const Transfer up{{Direction::h2d, HostMemory::pageable}, 2000000};  // 2 MB: W = 4 MB, r = 10/40
  EXPECT_NEAR(copies.pageable_factor(2e6), 0.25, 1e-12);
  EXPECT_NEAR(copies.seconds(up, 2e6), 20e-6 + 2e6 * (40e-12 + 60e-12 * 0.25), 1e-12);
  EXPECT_NEAR(copies.pageable_factor(1e3), 0.25, 1e-12);  // never below one core's L2: W = 4 MB
  EXPECT_NEAR(copies.pageable_factor(8e6), 0.25 * std::cbrt(4.0), 1e-12);  // W = 16 MB: 40 GB/s · 4^(−1/3) (log-log)
  EXPECT_EQ(copies.pageable_factor(100e6), 1);  // beyond the caches: the curve as it stands
  // A list: its own bytes are the operation's (4 MB: W = 8 MB, r = 0.25).
  EXPECT_NEAR(copies.seconds(std::vector<Transfer>{up, up}), 2 * (20e-6 + 2e6 * (40e-12 + 60e-12 * 0.25)), 1e-12);
  EXPECT_NEAR(copies.seconds(std::vector<Transfer>{up, up}, 8e6), 2 * (20e-6 + 2e6 * (40e-12 + 60e-12 * 0.25 * std::cbrt(4.0))), 1e-12);
  const Transfer pinned{{Direction::h2d, HostMemory::pinned}, 2000000};
  EXPECT_NEAR(copies.seconds(pinned, 2e6), 10e-6 + 2e6 * 40e-12, 1e-12);  // pinned: as the curve says
  p.pcie->host_buffer = "fixed";  // timed on a warm buffer already
  EXPECT_NEAR(OffloadCopies(p).seconds(up, 2e6), 20e-6 + 2e6 * 100e-12, 1e-12);
  p.pcie->host_buffer = "rotating";
  p.cpu->bandwidth.erase("copy");  // no copy curve: no correction
  EXPECT_EQ(OffloadCopies(p).pageable_factor(2e6), 1);
}


TEST(Offload, BuiltinTermsAreThePredictorsOwn) {
  const Profile p = load_profile(bundled());
  OffloadOptions o;
  const BuiltinOffload mv = predict_builtin_offload(p, p, "mv", 4096, o);
  const CommunicationPredictor comm(p);
  // The transfer predictor's copies, less the curve's shift for copies among other kinds at a
  // random host page (mixed_setup_s): the operation re-copies the same buffers.
  const auto copies = mv_transfers(4096, HostMemory::pinned);
  const double shift = p.pcie->curves.at(copies[0].key).mixed_setup_s;
  EXPECT_NEAR(mv.terms.h2d_s, comm.predict(copies).transfers[0].seconds + comm.predict(copies).transfers[1].seconds - 2 * shift, 1e-12);
  EXPECT_GT(mv.terms.kernels_s, 0);
  EXPECT_GT(mv.terms.cpu_s, 0);
  // CG: more iterations cost more on both sides; A is uploaded once whatever the count.
  o.iterations = 1;
  const BuiltinOffload cg1 = predict_builtin_offload(p, p, "cg", 2048, o);
  o.iterations = 64;
  const BuiltinOffload cg64 = predict_builtin_offload(p, p, "cg", 2048, o);
  EXPECT_EQ(cg1.terms.h2d_s, cg64.terms.h2d_s);
  EXPECT_GT(cg64.terms.kernels_s, 10 * cg1.terms.kernels_s);
  EXPECT_GT(cg64.terms.cpu_s, 30 * cg1.terms.cpu_s);
  o.iterations = 0;
  EXPECT_THROW(predict_builtin_offload(p, p, "cg", 2048, o), InputError);
}

TEST(Offload, PlanBracketsThePredictedCrossover) {
  const Profile p = load_profile(bundled());
  const OffloadPlanLimits limits;
  const ResourceTable resources = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3").resource_table();
  const std::vector<OffloadPlanRow> plan = offload_plan(p, limits, resources);  // as the GPU run plans it
  write_offload_plan(temp("plan"), plan, p.provenance);  // readable: the order a run measures in
  std::map<std::string, std::vector<const OffloadPlanRow*>> by;
  for (const OffloadPlanRow& r : plan) by[r.c.label()].push_back(&r);
  EXPECT_EQ(by.size(), offload_cases().size());
  for (const auto& [label, rows] : by) {
    EXPECT_GE(rows.size(), 8u) << label;
    for (const auto* r : rows) EXPECT_LE(r->predicted_cpu_s, limits.cpu_cap_s) << label << " n=" << r->n;
    if (rows.front()->predicted_crossover_n) {  // some sizes on each side
      const double x = *rows.front()->predicted_crossover_n;
      EXPECT_LT(rows.front()->n, x) << label;
      EXPECT_GT(rows.back()->n, x) << label;
    }
  }
}

// ----------------------------------------------------------------------------- bad input

TEST(Offload, CpuOnlyProfileAsTheGpuOneIsAClearError) {
  Profile cpu_only = load_profile(bundled());
  cpu_only.gpu.reset();
  cpu_only.pcie.reset();
  cpu_only.provenance.device_name = "none";
  const std::string path = temp("cpu_only.yaml");
  save_profile(cpu_only, path);
  const Result r = run({"offload", "--kernel", "mv", "--n", "4096", "--gpu-profile", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--gpu-profile " + path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CPU-only profile"), std::string::npos) << r.err;
  // plot speedup too: the CPU-only profile as --profile is refused, naming it.
  const Result plot = run({"plot", "speedup", "--out", temp("plot"), "--profile", path});
  EXPECT_EQ(plot.code, 1);
  EXPECT_NE(plot.err.find("CPU-only profile"), std::string::npos) << plot.err;
  // As the CPU one it is fine, paired with the bundled GPU profile; the output names both.
  const Result ok = run({"offload", "--kernel", "mv", "--n", "4096", "--cpu-profile", path, "--format", "json"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  const YAML::Node doc = YAML::Load(ok.out);
  EXPECT_EQ(doc["cpu_profile"].as<std::string>(), path);
  EXPECT_NE(doc["gpu_profile"].as<std::string>(), path);
}

TEST(Offload, DifferentHostsAreWarned) {
  Profile other = load_profile(bundled());
  other.provenance.host_name = "laptop";
  other.provenance.host_cpu = "Other CPU";
  const std::string path = temp("other_host.yaml");
  save_profile(other, path);
  const Result r = run({"offload", "--kernel", "dot", "--n", "1000000", "--cpu-profile", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("come from different hosts"), std::string::npos);
}

TEST(Offload, NegativeIterationsAndUnknownKernelsExitOne) {
  const Result neg = run({"offload", "--kernel", "cg", "--n", "1024", "--iterations", "-3"});
  EXPECT_EQ(neg.code, 1);
  EXPECT_NE(neg.err.find("--iterations must be >= 1"), std::string::npos) << neg.err;
  const Result unknown = run({"offload", "--kernel", "fft", "--n", "1024"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("unknown kernel 'fft'"), std::string::npos) << unknown.err;
  const Result both = run({"offload"});
  EXPECT_EQ(both.code, 1);
}

TEST(Offload, WorkloadWithoutCpuSideIsAClearError) {
  const std::string path = temp("no_cpu.yaml");
  write(path, "perfmodel_workload: 1\nname: saxpy\nkernels:\n  - name: saxpy\n    grid: [4096]\n    block: [256]\n    flops_fp32: 2097152\n"
              "    read_bytes: 8388608\n    write_bytes: 4194304\ntransfers:\n  - {direction: h2d, bytes: 8388608}\n");
  const Result r = run({"offload", "--workload", path});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no `cpu:` section"), std::string::npos) << r.err;
}

TEST(Offload, WorkloadCpuSectionFormsAndErrors) {
  const std::string gpu_part =
      "kernels:\n  - name: saxpy\n    grid: [4096]\n    block: [256]\n    flops_fp32: 2097152\n    read_bytes: 8388608\n"
      "    write_bytes: 4194304\ntransfers:\n  - {direction: h2d, bytes: 8388608}\n  - {direction: d2h, bytes: 4194304}\n";
  const std::string path = temp("with_cpu.yaml");
  write(path, "perfmodel_workload: 1\nname: saxpy\ncpu:\n  measured_s: 0.01\n" + gpu_part);
  const Result m = run({"offload", "--workload", path, "--format", "json"});
  ASSERT_EQ(m.code, 0) << m.err;
  const YAML::Node doc = YAML::Load(m.out);
  EXPECT_DOUBLE_EQ(doc["offload"][0]["cpu_s"].as<double>(), 0.01);
  EXPECT_EQ(doc["offload"][0]["decision"].as<std::string>(), "gpu");
  // A signature without efficiency: a lower bound, no upper end of the speedup (null).
  write(path, "perfmodel_workload: 1\nname: saxpy\ncpu:\n  bytes_read: 8388608\n  bytes_written: 4194304\n  flops_fp32: 2097152\n"
              "  splittable: true\n" + gpu_part);
  const Result s = run({"offload", "--workload", path, "--format", "json"});
  ASSERT_EQ(s.code, 0) << s.err;
  const YAML::Node sd = YAML::Load(s.out);
  EXPECT_TRUE(sd["offload"][0]["speedup_high"].IsNull());
  EXPECT_TRUE(sd["split"][0]["possible"].as<bool>());
  // Two forms at once, and a typo: file, line and key.
  write(path, "perfmodel_workload: 1\nname: saxpy\ncpu:\n  measured_s: 0.01\n  kernel: mv\n  n: 1024\n" + gpu_part);
  const Result two = run({"offload", "--workload", path});
  EXPECT_EQ(two.code, 1);
  EXPECT_NE(two.err.find("exactly one CPU side"), std::string::npos) << two.err;
  write(path, "perfmodel_workload: 1\nname: saxpy\ncpu:\n  mesured_s: 0.01\n" + gpu_part);
  const Result typo = run({"offload", "--workload", path});
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.err.find(path + ":4"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("mesured_s"), std::string::npos) << typo.err;
  // An error in the GPU part keeps its line number although the cpu: lines were removed.
  write(path, "perfmodel_workload: 1\nname: saxpy\ncpu:\n  measured_s: 0.01\nkernels:\n  - name: saxpy\n    grid: [4096]\n    blok: [256]\n");
  const Result gpu_typo = run({"offload", "--workload", path});
  EXPECT_EQ(gpu_typo.code, 1);
  EXPECT_NE(gpu_typo.err.find(path + ":8"), std::string::npos) << gpu_typo.err;
}

TEST(Offload, NoCrossoverIsNullNeverZero) {
  const Result r = run({"offload", "--kernel", "dot", "--n", "1000000", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node doc = YAML::Load(r.out);
  ASSERT_TRUE(doc["crossover"][0]["crossover_n"]);
  EXPECT_TRUE(doc["crossover"][0]["crossover_n"].IsNull());
  EXPECT_NE(doc["crossover"][0]["verdict"].as<std::string>().find("GPU never wins in ["), std::string::npos);
}

// ----------------------------------------------------------------------------- the validation's files

// A recorded run made up from the model itself: the GPU measured 10 % slower than predicted,
// the CPU as predicted; re-read and re-analysed, the speedup error is 10 % everywhere, and the
// decision is wrong only where the 10 % moves a point across 1.
TEST(OffloadValidation, SyntheticRunRoundTripsAndReanalyses) {
  const Profile p = load_profile(bundled());
  OffloadRun rec;
  rec.provenance.device_name = "Synthetic GPU";
  rec.provenance.date_utc = "2026-11-26T00:00:00Z";
  rec.provenance.command = "synthetic";
  rec.cpu_threads = 16;
  rec.wall_s = 1;
  rec.notes.push_back("synthetic, from the model");
  const OffloadCase conv{"conv2d", 0};
  for (int n : {128, 192, 256, 320, 384, 448, 512, 640}) {
    OffloadPlanRow row;
    row.c = conv, row.n = n;
    rec.plan.push_back(row);
    OffloadOptions o;
    const BuiltinOffload b = predict_builtin_offload(p, p, "conv2d", n, o);
    rec.measurements.push_back({conv, n, "cpu", "", 16, 0, 0, {b.terms.cpu_s, b.terms.cpu_s}, ""});
    rec.measurements.push_back({conv, n, "gpu", "pinned", 0, 1e-7, 1e-6, {1.1 * b.terms.gpu_s()}, ""});
  }
  rec.measurements.push_back({conv, 999, "gpu", "pinned", 0, 1, 0, {}, "check failed"});  // no times: left out
  const std::string dir = temp("run");
  std::filesystem::remove_all(dir);
  write_offload_run(dir, rec);
  ASSERT_TRUE(is_offload_run(dir));
  const OffloadRun back = read_offload_run(dir);
  EXPECT_EQ(back.measurements.size(), rec.measurements.size());
  EXPECT_EQ(back.plan.size(), rec.plan.size());
  EXPECT_EQ(back.cpu_threads, 16);
  EXPECT_EQ(back.provenance.device_name, "Synthetic GPU");
  const OffloadAnalysis a = analyse_offload(back, p, p);
  ASSERT_EQ(a.points.size(), 8u);
  for (const OffloadPointAnalysis& pt : a.points) EXPECT_NEAR(pt.speedup_error, 0.1, 1e-6) << pt.n;
  EXPECT_NEAR(a.all_threads.speedup_median, 0.1, 1e-6);
  EXPECT_EQ(a.all_threads.cases, 8u);
  ASSERT_EQ(a.crossovers.size(), 1u);
  ASSERT_TRUE(a.crossovers[0].measured_n);
  ASSERT_TRUE(a.crossovers[0].predicted_n);
  EXPECT_LT(*a.crossovers[0].predicted_n, *a.crossovers[0].measured_n);  // a slower GPU crosses later
  // With the recorded GPU validation run for the levels, each point carries the advisor's interval
  // around its predicted speedup.
  const ValidationRun gpu_run = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3");
  const OffloadAnalysis ai = analyse_offload(back, p, p, &gpu_run);
  for (const OffloadPointAnalysis& pt : ai.points) {
    ASSERT_TRUE(pt.speedup_low && pt.speedup_high) << pt.n;
    EXPECT_LT(*pt.speedup_low, pt.predicted_speedup);
    EXPECT_GT(*pt.speedup_high, pt.predicted_speedup);
  }
  EXPECT_EQ(ai.all_threads.with_interval, 8u);
  write_offload_analysis(dir, back, a, "profile: bundled");
  EXPECT_TRUE(std::filesystem::exists(dir + "/report.md"));
  // The same through the CLI, re-analysing the recorded folder.
  const Result r = run({"validate", "--from", dir, "--out", dir, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NEAR(YAML::Load(r.out)["offload_validation"][0]["speedup_error_median"].as<double>(), 0.1, 1e-6);
}

TEST(OffloadValidation, MalformedRecordedRunNamesFileAndLine) {
  const std::string dir = temp("bad_run");
  std::filesystem::create_directories(dir);
  write(dir + "/offload_measurements.csv",
        "# perfmodel offload measurements v1\n# cpu_threads: 16\nkernel,iterations,n,path,memory,threads,check_error,check_bound,seconds,note\n"
        "mv,0,1024,gpu,pinnd,0,0,1,0.001,\n");
  try {
    read_offload_run(dir);
    FAIL() << "accepted a bad memory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("offload_measurements.csv:4: memory"), std::string::npos) << e.what();
  }
  const Result r = run({"validate", "--only", "offload", "--only", "mv", "--out", dir});
  EXPECT_EQ(r.code, 1);
}

// The held-out plan measures none of the default plan's sizes, between them, at most as many.
TEST(Offload, HoldoutPlanAvoidsTheDefaultSizes) {
  const Profile p = load_profile(bundled());
  const ResourceTable resources = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3").resource_table();
  OffloadPlanLimits held;
  held.holdout = true;
  const std::vector<OffloadPlanRow> plan = offload_plan(p, {}, resources), other = offload_plan(p, held, resources);
  std::map<std::string, std::set<int>> sizes;
  for (const OffloadPlanRow& r : plan) sizes[r.c.label()].insert(r.n);
  std::map<std::string, int> count;
  for (const OffloadPlanRow& r : other) {
    EXPECT_EQ(sizes[r.c.label()].count(r.n), 0u) << r.c.label() << " n " << r.n;
    EXPECT_GT(r.n, *sizes[r.c.label()].begin()) << r.c.label();
    EXPECT_LT(r.n, *sizes[r.c.label()].rbegin()) << r.c.label();
    ++count[r.c.label()];
  }
  for (const auto& [label, n] : count) EXPECT_LT(static_cast<std::size_t>(n), sizes[label].size()) << label;
  EXPECT_EQ(count.size(), sizes.size());
}

// The recorded H100 run (2026-11-26), re-analysed with the profile it was predicted from and the GPU validation run:
// its errors held with a margin (2 points of accuracy, 2 points of median, 5 of p90, 3 points of
// interval coverage), so a change to the CPU, GPU or copy models that makes it worse fails here.
// The interval's CPU level is this run's own spread: the coverage is in-sample.
// The recorded H100 runs (GPU 3910abed, 2026-11-26; and the holdout plan's run, GPU 92e6119c)
// re-analysed with this build hold the accuracy reached: pageable copies with a warm host side
// (OffloadCopies) took the first run's speedup |error| median from 17.8 % to 17.4 % and its p90
// from 57 % to 55.9 %, the holdout run's from 25.2 % / 95.9 % to 23 % / 96.7 %.
TEST(OffloadValidation, RecordedH100RunHoldsItsErrors) {
  const std::string dir = std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3-offload";
  const Profile p = load_recorded_run_profile(dir);
  const ValidationRun gpu_run = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3");
  const OffloadRun run = read_offload_run(dir);
  const OffloadAnalysis a = analyse_offload(run, p, p, &gpu_run);
  EXPECT_EQ(a.all_threads.cases, 144u);  // cg at 64 iterations failed its check in this run: not compared
  EXPECT_GE(a.all_threads.accuracy, 132.0 / 138 - 0.015);
  EXPECT_LE(a.all_threads.speedup_median, 0.174 + 0.01);
  EXPECT_LE(a.all_threads.speedup_p90, 0.559 + 0.03);
  ASSERT_EQ(a.all_threads.with_interval, 144u);
  EXPECT_GE(static_cast<double>(a.all_threads.inside_interval) / 144, 136.0 / 144 - 0.02);
  ASSERT_GT(a.one_thread.with_interval, 0u);
  EXPECT_GE(static_cast<double>(a.one_thread.inside_interval) / a.one_thread.with_interval, 130.0 / 134 - 0.02);
  EXPECT_GE(a.all_threads.crossovers_within_25, 5u);
}

TEST(OffloadValidation, RecordedH100HoldoutRunHoldsItsErrors) {
  const std::string dir = std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3-offload-holdout";
  const Profile p = load_recorded_run_profile(dir);
  const ValidationRun gpu_run = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3");
  const OffloadAnalysis a = analyse_offload(read_offload_run(dir), p, p, &gpu_run);
  EXPECT_EQ(a.all_threads.cases, 140u);
  EXPECT_GE(a.all_threads.accuracy, 119.0 / 138 - 0.015);
  EXPECT_LE(a.all_threads.speedup_median, 0.23 + 0.01);
  EXPECT_LE(a.all_threads.speedup_p90, 0.967 + 0.05);
  ASSERT_EQ(a.all_threads.with_interval, 140u);
  EXPECT_GE(static_cast<double>(a.all_threads.inside_interval) / 140, 128.0 / 140 - 0.02);
  // 3 with the first crossing compared; 4 with the final one (cg at 8 iterations, pinned).
  EXPECT_GE(a.all_threads.crossovers_within_25, 4u);
}

// The runs of 2026-11-26 on GPU 5355697b (the default plan and the holdout plan, minutes apart on
// one host), predicted from the profile calibrated minutes before on another host (GPU a8fb659b),
// the interval's CPU level from the bundled recorded run as `validate --from` takes it. The
// mechanisms of this build were chosen on the default plan's run: the one-thread efficiency held
// beyond its measured sizes (one-thread median 42.4 % -> 30.3 %, p90 242 % -> 107 %), the excess
// time per byte held beyond the fitted sizes, and no mixed-issue shift on the operation's
// repeated copies (GPU side, pinned: median 9.7 % -> 5.2 %); the holdout plan's run saw none of
// its sizes (all threads 94.9 % / 14.5 % / 62.3 % -> 95.7 % / 12.5 % / 55.8 %).
TEST(OffloadValidation, RecordedA8fb659bProfileRunsHoldTheirErrors) {
  const std::string dir = std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/2026-11-26-h100-a8fb659b/";
  const Profile p = load_profile(std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/other/2026-11-26-h100-a8fb659b/nvidia-h100-80gb-hbm3.yaml");
  const ValidationRun gpu_run = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3");
  const OffloadRun reference = read_offload_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3-offload");
  const OffloadAnalysis a = analyse_offload(read_offload_run(dir + "offload"), p, p, &gpu_run, &reference);
  EXPECT_EQ(a.all_threads.cases, 160u);
  EXPECT_EQ(a.all_threads.decided, 156u);
  EXPECT_GE(a.all_threads.accuracy, 146.0 / 156 - 0.015);
  // 22.0 % before the reference kernels went through format 2's derivation (2026-11-27): their
  // cholesky-opt at n = 4096 is now predicted +4 % on the GPU where it was +19 %, and the CPU
  // prediction's own error, which the old GPU error offset, shows in the speedup (+13 → +29 %);
  // the holdout plan's median went 12.5 → 11.9 %.
  EXPECT_LE(a.all_threads.speedup_median, 0.231 + 0.01);
  EXPECT_LE(a.all_threads.speedup_p90, 0.693 + 0.03);
  EXPECT_GE(a.all_threads.crossovers_within_25, 5u);
  EXPECT_GE(a.one_thread.accuracy, 136.0 / 141 - 0.015);
  EXPECT_LE(a.one_thread.speedup_median, 0.303 + 0.02);
  EXPECT_LE(a.one_thread.speedup_p90, 1.073 + 0.05);
  const OffloadAnalysis h = analyse_offload(read_offload_run(dir + "offload-holdout"), p, p, &gpu_run, &reference);
  EXPECT_EQ(h.all_threads.cases, 140u);
  EXPECT_GE(h.all_threads.accuracy, 132.0 / 138 - 0.015);
  EXPECT_LE(h.all_threads.speedup_median, 0.125 + 0.01);
  EXPECT_LE(h.all_threads.speedup_p90, 0.558 + 0.03);
  EXPECT_GE(h.all_threads.crossovers_within_25, 6u);  // 5 with the first crossing compared
  EXPECT_LE(h.one_thread.speedup_median, 0.273 + 0.02);
  EXPECT_LE(h.one_thread.speedup_p90, 1.024 + 0.05);
}

// The measured crossover is the final crossing, log speedup linear in log n between the
// bracketing sizes; its interval the final crossing with every speedup 5 % higher and 5 % lower.
TEST(OffloadValidation, MeasuredCrossingAndItsIntervalByHand) {
  // 0.5 at n = 100, 2 at 200: log s crosses 0 half way in log n, at 100·√2.
  MeasuredCrossing m = measured_crossing({{100, 0.5}, {200, 2.0}});
  ASSERT_TRUE(m.n);
  EXPECT_NEAR(*m.n, 100 * std::sqrt(2.0), 1e-9);
  EXPECT_EQ(m.wins_above, "gpu");
  EXPECT_EQ(m.side, "gpu");
  // 5 % higher: 0.525 → 2.1, u = ln 0.525 / (ln 0.525 − ln 2.1); 5 % lower: 0.5/1.05 → 2/1.05.
  const double u_up = std::log(0.525) / (std::log(0.525) - std::log(2.1));
  const double u_down = std::log(0.5 / 1.05) / (std::log(0.5 / 1.05) - std::log(2 / 1.05));
  EXPECT_NEAR(m.low_n, 100 * std::pow(2.0, u_up), 1e-9);    // 138.0
  EXPECT_NEAR(m.high_n, 100 * std::pow(2.0, u_down), 1e-9);  // 144.9
  // A speedup that touches 1 and turns back is not the crossover: the final crossing is.
  m = measured_crossing({{512, 1.2}, {768, 0.8}, {1152, 0.8}, {1728, 1.25}});
  ASSERT_TRUE(m.n);
  EXPECT_NEAR(*m.n, std::exp(std::log(1152.0) + std::log(0.8) / (std::log(0.8) - std::log(1.25)) * std::log(1.5)), 1e-6);
  EXPECT_EQ(m.wins_above, "gpu");
  // No measured crossing, but one 5 % lower: the interval runs from the first size (5 % higher,
  // the GPU wins at every size) to that crossing.
  m = measured_crossing({{52, 1.02}, {114, 1.28}, {253, 2.0}});
  EXPECT_FALSE(m.n);
  EXPECT_EQ(m.side, "gpu");
  EXPECT_DOUBLE_EQ(m.low_n, 52);
  const double u = std::log(1.02 / 1.05) / (std::log(1.02 / 1.05) - std::log(1.28 / 1.05));
  EXPECT_NEAR(m.high_n, std::exp(std::log(52.0) + u * std::log(114.0 / 52)), 1e-9);
  // The CPU winning above: 5 % higher moves the crossing up, 5 % lower down (the mirror image).
  m = measured_crossing({{10, 2.0}, {20, 0.5}});
  EXPECT_EQ(m.wins_above, "cpu");
  EXPECT_NEAR(m.low_n, 10 * std::pow(2.0, 1 - u_down), 1e-9);
  EXPECT_NEAR(m.high_n, 10 * std::pow(2.0, 1 - u_up), 1e-9);
  // Far from 1 everywhere: no crossing and no interval.
  m = measured_crossing({{10, 2.0}, {20, 3.0}});
  EXPECT_FALSE(m.n);
  EXPECT_EQ(m.high_n, 0);
}

// The runs of 2026-11-27 on GPU a07c6e1d (default and holdout plans), predicted from the profile
// calibrated minutes before on the same host (the bundled one since that day).
TEST(OffloadValidation, Recorded2026_11_27RunsHoldTheirErrors) {
  const std::string dir = std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/2026-11-27-h100-a07c6e1d/";
  const Profile p = load_profile(std::string(PERFMODEL_TEST_DATA_DIR) + "/profiles/other/2026-11-27-h100-a07c6e1d/nvidia-h100-80gb-hbm3.yaml");
  const ValidationRun gpu_run = read_validation_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3");
  const OffloadRun reference = read_offload_run(std::string(PERFMODEL_TEST_DATA_DIR) + "/validation/nvidia-h100-80gb-hbm3-offload");
  const OffloadAnalysis a = analyse_offload(read_offload_run(dir + "offload"), p, p, &gpu_run, &reference);
  EXPECT_EQ(a.all_threads.cases, 160u);
  EXPECT_EQ(a.all_threads.decided, 156u);
  EXPECT_GE(a.all_threads.accuracy, 152.0 / 156 - 0.015);
  EXPECT_LE(a.all_threads.speedup_median, 0.098 + 0.01);
  EXPECT_LE(a.all_threads.speedup_p90, 0.298 + 0.03);
  EXPECT_GE(a.all_threads.crossovers_within_25, 6u);
  const OffloadAnalysis h = analyse_offload(read_offload_run(dir + "offload-holdout"), p, p, &gpu_run, &reference);
  EXPECT_EQ(h.all_threads.decided, 135u);
  EXPECT_GE(h.all_threads.accuracy, 134.0 / 135 - 0.015);
  EXPECT_LE(h.all_threads.speedup_median, 0.101 + 0.01);
  EXPECT_LE(h.all_threads.speedup_p90, 0.375 + 0.03);
  EXPECT_GE(h.all_threads.crossovers_within_25, 5u);
  EXPECT_GE(h.all_threads.crossovers_within_25_or_noise, 6u);
}

// --cpu-profile pairs a CPU calibration with the GPU profile when an offload run is re-analysed:
// the recorded 2026-11-27 run on GPU d9cf5268 with the 2-core VM's CPU section predicts its
// 16-thread CPU side from 2 threads' rates (slower), names the CPU profile, and leaves the GPU side
// as it was; a profile without a CPU section, a measuring run, or the flag outside the offload
// validation, is bad input naming the flag.
TEST(OffloadValidation, ACpuProfileReplacesOnlyTheCpuSide) {
  const std::string data = PERFMODEL_TEST_DATA_DIR;
  const std::string run_dir = data + "/validation/2026-11-27-h100-d9cf5268/offload", vm = data + "/profiles/xeon-2core-vm.yaml";
  const std::string out = temp("cpu_profile");
  const Result own = run({"validate", "--from", run_dir, "--out", out + "/own", "--format", "json"});
  ASSERT_EQ(own.code, 0) << own.err;
  const Result paired = run({"validate", "--from", run_dir, "--out", out + "/paired", "--cpu-profile", vm, "--format", "json"});
  ASSERT_EQ(paired.code, 0) << paired.err;
  const YAML::Node a = YAML::Load(own.out), b = YAML::Load(paired.out);
  EXPECT_FALSE(a["cpu_profile"]);
  EXPECT_EQ(b["cpu_profile"].as<std::string>(), vm);
  EXPECT_GT(b["offload_validation"][0]["speedup_error_median"].as<double>(), a["offload_validation"][0]["speedup_error_median"].as<double>() + 0.5);
  // offload_predictions.csv by point (case,n,memory,threads): its fields.
  const auto points = [](const std::string& file) {
    std::ifstream in(file);
    std::map<std::string, std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line.rfind("case,", 0) == 0) continue;
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      if (f.size() > 13) rows[f[0] + "," + f[1] + "," + f[2] + "," + f[3]] = f;
    }
    return rows;
  };
  constexpr int kCpu = 5, kGpu = 7, kLow = 13;  // predicted_cpu_s, predicted_gpu_s, speedup_low
  // Per point: the GPU side unchanged, the CPU side predicted slower at 16 threads.
  const auto pa = points(out + "/own/offload_predictions.csv"), pb = points(out + "/paired/offload_predictions.csv");
  ASSERT_EQ(pa.size(), pb.size());
  ASSERT_GT(pa.size(), 100u);
  std::size_t slower = 0, sixteen = 0;
  for (const auto& [key, f] : pa) {
    EXPECT_EQ(pb.at(key)[kGpu], f[kGpu]) << key;
    if (f[3] != "16") continue;
    ++sixteen;
    slower += std::stod(pb.at(key)[kCpu]) > std::stod(f[kCpu]) ? 1 : 0;
  }
  ASSERT_GT(sixteen, 100u);
  EXPECT_GT(slower, sixteen * 3 / 4);  // 130 of 160: 2 threads' rates behind a 16-thread CPU side
  // The bundled profile given as --cpu-profile: the same predictions, but the interval's CPU level
  // is its own held-out error, not the bundled offload run's record of that CPU section.
  const Result same = run({"validate", "--from", run_dir, "--out", out + "/same", "--cpu-profile", bundled(), "--format", "json"});
  ASSERT_EQ(same.code, 0) << same.err;
  const YAML::Node c = YAML::Load(same.out);
  EXPECT_EQ(c["offload_validation"][0]["speedup_error_median"].as<double>(), a["offload_validation"][0]["speedup_error_median"].as<double>());
  const auto pc = points(out + "/same/offload_predictions.csv");
  ASSERT_EQ(pa.size(), pc.size());
  std::size_t moved = 0;
  for (const auto& [key, f] : pa) moved += pc.at(key)[kLow] != f[kLow] ? 1 : 0;
  EXPECT_GT(moved, pa.size() / 4);
  const auto bad = [&](const std::vector<std::string>& args) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 1) << args.back();
    EXPECT_NE(r.err.find("--cpu-profile"), std::string::npos) << r.err;
  };
  bad({"validate", "--from", run_dir, "--out", out + "/x", "--cpu-profile", data + "/profiles/nvidia-h100-80gb-hbm3.streams.yaml"});
  bad({"validate", "--only", "offload", "--out", out + "/w", "--cpu-profile", vm});  // a run measures with --profile
  bad({"validate", "--only", "farm", "--out", out + "/y", "--cpu-profile", vm});
  bad({"validate", "--suite", "generalisation", "--out", out + "/z", "--cpu-profile", vm});
}
