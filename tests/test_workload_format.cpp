// Workload format 2 (docs/workload-format.md): the expression evaluator, the reader's errors
// (each naming file:line:key), the derivation from accesses to the descriptor on hand-computed
// cases, --set sweeps and --timing, format-1 compatibility (the format-2 twins predict what
// their format-1 originals do), and every example of the reference page parsing and predicting.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include "cli.hpp"
#include "cli_run.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/model/kernel_description.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/workload_expression.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/validate/analysis.hpp"

using namespace perfmodel;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;
constexpr double kMiB = 1048576.0;

std::string bundled_profile() { return kData + "/profiles/nvidia-h100-80gb-hbm3.yaml"; }

// The derivation needs only the L2 capacity, the strided table and the ceilings that convert work.
GpuCalibration small_gpu() {
  GpuCalibration g;
  g.device.l2_cache_bytes = 50 * kMiB;
  auto rate = [](double v) {
    MeasuredRate r;
    r.median = r.p10 = r.p90 = v;
    return r;
  };
  g.ceilings["fp32"] = rate(64e12);
  g.ceilings["fp16"] = rate(64e12);   // half2: half the FP32 instruction rate
  g.ceilings["int32"] = rate(32e12);        // IMAD: half the FP32 instruction rate (not what `int` work uses)
  g.ceilings["int32_logic"] = rate(16e12);  // integer operations as written: two FP32 issue slots each
  g.ceilings["cosf"] = rate(1e12);
  g.ceilings["fast_cosf"] = rate(4e12);
  return g;
}

GpuWorkloadFile parse(const std::string& text, const GpuCalibration& g = small_gpu(), const WorkloadParams& set = {}) {
  return parse_gpu_workload(text, "w.yaml", g, set);
}

std::string error_of(const std::string& text, const WorkloadParams& set = {}) {
  try {
    parse(text, small_gpu(), set);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

using test::Result;
using test::run;

const std::string kKernelHead = "format: 2\nparams: {n: 1Mi}\nkernels:\n  - name: k\n    grid: [n/256]\n    block: [256]\n";

}  // namespace

TEST(WorkloadExpression, ArithmeticUnitsAndFunctions) {
  const std::map<std::string, double> n{{"n", 8192}, {"b", 256}};
  EXPECT_EQ(evaluate_expression("4*n*n", n), 4.0 * 8192 * 8192);
  EXPECT_EQ(evaluate_expression("ceil(n/3)", n), 2731);
  EXPECT_EQ(evaluate_expression("floor(n/3)", n), 2730);
  EXPECT_EQ(evaluate_expression("min(n, b, 7)", n), 7);
  EXPECT_EQ(evaluate_expression("max(1, n/b)", n), 32);
  EXPECT_EQ(evaluate_expression("256MiB"), 268435456);
  EXPECT_EQ(evaluate_expression("64KiB"), 65536);
  EXPECT_EQ(evaluate_expression("64Ki"), 65536);
  EXPECT_EQ(evaluate_expression("1.5e9"), 1.5e9);
  EXPECT_EQ(evaluate_expression("2.5E-3"), 2.5e-3);
  EXPECT_EQ(evaluate_expression("2GB"), 2e9);
  EXPECT_EQ(evaluate_expression("3M"), 3e6);
  EXPECT_EQ(evaluate_expression("4B"), 4);
  EXPECT_EQ(evaluate_expression("1Ti"), 1099511627776.0);
  EXPECT_EQ(evaluate_expression("(1 + 2) * 3 - 4 / 2"), 7);
  EXPECT_EQ(evaluate_expression("-2^2"), -4);
  EXPECT_EQ(evaluate_expression("2^3^2"), 512);
  EXPECT_EQ(evaluate_expression("2**10"), 1024);
  EXPECT_EQ(evaluate_expression("2^-1"), 0.5);
  EXPECT_EQ(evaluate_expression("7 % 4"), 3);
  EXPECT_EQ(evaluate_expression("log2(1024) + sqrt(16) + abs(-1) + round(2.4)"), 17);
  EXPECT_EQ(evaluate_expression(" n ", n), 8192);
  EXPECT_TRUE(valid_parameter_name("n_rows2"));
  EXPECT_FALSE(valid_parameter_name("2n"));
  EXPECT_FALSE(valid_parameter_name("ceil"));
}

TEST(WorkloadExpression, RejectsWhatIsNotAnExpression) {
  auto message = [](const std::string& text) {
    try {
      evaluate_expression(text, {{"n", 4}});
    } catch (const ExpressionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("2n").find("unknown unit 'n'"), std::string::npos);
  EXPECT_NE(message("m + 1").find("undefined parameter 'm'"), std::string::npos);
  EXPECT_NE(message("system(1)").find("unknown function"), std::string::npos);
  EXPECT_NE(message("n +").find("ends too early"), std::string::npos);
  EXPECT_NE(message("1/0").find("division by zero"), std::string::npos);
  EXPECT_NE(message("10^400").find("not finite"), std::string::npos);
  EXPECT_NE(message("1e999").find("out of range"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("2 3").find("unexpected '3'"), std::string::npos);
  EXPECT_NE(message("(2").find("missing ')'"), std::string::npos);
  EXPECT_NE(message("min(1)").find("two or more"), std::string::npos);
  EXPECT_NE(message("ceil(1, 2)").find("one argument"), std::string::npos);
  EXPECT_NE(message("sqrt(-1)").find("negative"), std::string::npos);
  EXPECT_NE(message("n; rm").find("unexpected ';'"), std::string::npos);
}

// Every error names the file, the line and the key path.
TEST(WorkloadFormat2, EveryErrorNamesFileLineAndKey) {
  struct Case {
    std::string text;
    std::string where;  // "w.yaml:LINE"
    std::string key;    // in the message
  };
  const std::string h = kKernelHead;  // kernel keys start on line 7
  const std::vector<Case> cases = {
      {"format: 2\nkernel: []\n", "w.yaml:2", "kernel"},                                           // unknown top-level key
      {"format: 3\nkernels: []\n", "w.yaml:1", "format"},                                          // unsupported format
      {"format: 2\nparams: {n: 2x}\nkernels: []\n", "w.yaml:2", "params.n"},                       // bad expression
      {"format: 2\nparams: {ceil: 2}\nkernels: []\n", "w.yaml:2", "params.ceil"},                  // a function's name
      {"format: 2\nparams: {n: m}\nkernels: []\n", "w.yaml:2", "params.n"},                        // undefined param
      {"format: 2\ntiming: warm\nkernels: []\n", "w.yaml:2", "timing"},
      {"format: 2\ncpu: {flops: 1}\nkernels: []\n", "w.yaml:2", "cpu"},                            // reserved
      {"format: 2\nkernels: []\n", "w.yaml:2", "kernels"},                                         // empty
      {h + "    launch: 2\n", "w.yaml:7", "kernels[0].launch"},                                     // unknown kernel key
      {h + "    launches: 0\n", "w.yaml:7", "kernels[0].launches"},
      {h + "    launches: 1.5\n", "w.yaml:7", "kernels[0].launches"},
      {h + "    registers: 300\n", "w.yaml:7", "kernels[0].registers"},
      {"format: 2\nkernels:\n  - grid: [1]\n    block: [64, 32]\n", "w.yaml:4", "kernels[0].block"},  // > 1024 threads
      {"format: 2\nkernels:\n  - grid: [0]\n    block: [32]\n", "w.yaml:3", "kernels[0].grid[0]"},
      {"format: 2\nkernels:\n  - grid: [1, 1, 1, 1]\n    block: [32]\n", "w.yaml:3", "kernels[0].grid"},
      {h + "    accesses:\n      - {count: n, size: 4}\n", "w.yaml:8", "kernels[0].accesses[0].size"},  // unknown access key
      {h + "    accesses:\n      - {pattern: strided, stride: 4}\n", "w.yaml:8", "kernels[0].accesses[0].count"},  // missing
      {h + "    accesses:\n      - {count: -n}\n", "w.yaml:8", "kernels[0].accesses[0].count"},
      {h + "    accesses:\n      - {count: 10^400}\n", "w.yaml:8", "kernels[0].accesses[0].count"},  // not finite
      {h + "    accesses:\n      - {count: 2^70}\n", "w.yaml:8", "kernels[0].accesses[0].count"},    // absurd
      {h + "    accesses:\n      - {count: n*q}\n", "w.yaml:8", "kernels[0].accesses[0].count"},     // undefined param
      {h + "    accesses:\n      - {count: n, element_bytes: 3}\n", "w.yaml:8", "kernels[0].accesses[0].element_bytes"},
      {h + "    accesses:\n      - {count: n, pattern: diagonal}\n", "w.yaml:8", "kernels[0].accesses[0].pattern"},
      {h + "    accesses:\n      - {count: n, space: texture}\n", "w.yaml:8", "kernels[0].accesses[0].space"},
      {h + "    accesses:\n      - {count: n, kind: prefetch}\n", "w.yaml:8", "kernels[0].accesses[0].kind"},
      {h + "    accesses:\n      - {count: n, stride: 4}\n", "w.yaml:8", "kernels[0].accesses[0].stride"},
      {h + "    accesses:\n      - {count: n, pattern: strided}\n", "w.yaml:8", "kernels[0].accesses[0].stride"},
      {h + "    accesses:\n      - {count: n, pattern: gather}\n", "w.yaml:8", "kernels[0].accesses[0].index"},
      {h + "    accesses:\n      - {count: n, pattern: gather, index: idx}\n", "w.yaml:8", "kernels[0].accesses[0].index"},
      {h + "    accesses:\n      - {name: a, count: n, after: b}\n      - {name: b, count: n, after: a}\n", "w.yaml:8",
       "kernels[0].accesses[0]"},  // a cycle
      {h + "    accesses:\n      - {name: a, count: n}\n      - {name: a, count: n}\n", "w.yaml:9", "kernels[0].accesses[1]"},
      {h + "    accesses:\n      - {count: n, conflict_degree: 2}\n", "w.yaml:8", "kernels[0].accesses[0].conflict_degree"},
      {h + "    accesses:\n      - {count: n, space: shared, conflict_degree: 33}\n", "w.yaml:8",
       "kernels[0].accesses[0].conflict_degree"},
      {h + "    accesses:\n      - {count: n, l1_hit: 1.5}\n", "w.yaml:8", "kernels[0].accesses[0].l1_hit"},
      {h + "    accesses:\n      - {count: n, kind: write, independent: 2}\n", "w.yaml:8", "kernels[0].accesses[0].independent"},
      {h + "    accesses:\n      - {count: n, addresses_per_warp: 4}\n", "w.yaml:8", "kernels[0].accesses[0].addresses_per_warp"},
      {h + "    accesses:\n      - {count: n, footprint: 0}\n", "w.yaml:8", "kernels[0].accesses[0].footprint"},
      {h + "    accesses:\n      - {count: n, space: constant, kind: write}\n", "w.yaml:8", "kernels[0].accesses[0].kind"},
      {h + "    accesses:\n      - {count: n, space: shared, pattern: random}\n", "w.yaml:8", "kernels[0].accesses[0].pattern"},
      {h + "    work: {fp32: n, fp128: n}\n", "w.yaml:7", "kernels[0].work.fp128"},
      {h + "    work: {fp32: -1}\n", "w.yaml:7", "kernels[0].work.fp32"},
      {h + "    work:\n      mma: [{shape: 16x8x16, precision: fp16, flops: n}]\n", "w.yaml:8", "kernels[0].work.mma[0].shape"},
      {h + "    work:\n      mma: [{shape: m16n8k16, precision: fp4, flops: n}]\n", "w.yaml:8", "kernels[0].work.mma[0].precision"},
      {h + "    chain: {l3_loads: 2}\n", "w.yaml:7", "kernels[0].chain.l3_loads"},
      {h + "    loads_issued_together: maybe\n", "w.yaml:7", "kernels[0].loads_issued_together"},
      {h + "    integer_share: 0.5\n", "w.yaml:7", "kernels[0].integer_share"},  // without warp_instructions
      {h + "    warp_instructions: n\n    integer_share: 1.5\n", "w.yaml:8", "kernels[0].integer_share"},
      {h + "    copies: [{direction: sideways, bytes: n}]\n", "w.yaml:7", "kernels[0].copies[0].direction"},
      {kKernelHead + "copies: [{direction: h2d, bytes: 0}]\n", "w.yaml:7", "copies[0].bytes"},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.where), std::string::npos) << c.text << "\n→ " << e;
    EXPECT_NE(e.find(c.key), std::string::npos) << c.text << "\n→ " << e;
  }
  EXPECT_NE(error_of("format: 2\ncpu: {}\nkernels: []\n").find("not supported yet"), std::string::npos);
  // --set names a parameter the file does not have; a format 1 file has none.
  const std::string e = error_of(kKernelHead, {{"m", 2}});
  EXPECT_NE(e.find("--set m"), std::string::npos) << e;
  EXPECT_NE(e.find("its params: n"), std::string::npos) << e;
  EXPECT_NE(error_of("perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32]}\n", {{"n", 2}}).find("--set n"), std::string::npos);
  EXPECT_NE(error_of("name: x\nkernels: []\n").find("format: 2"), std::string::npos);
}

// A coalesced copy of n floats: everything follows from the count.
TEST(WorkloadFormat2, DerivesACoalescedCopy) {
  const GpuWorkloadFile f = parse(kKernelHead + "    accesses:\n      - {name: in, count: n}\n      - {name: out, kind: write, count: n}\n");
  const double n = kMiB;
  ASSERT_EQ(f.workload.phases.size(), 1u);
  const GpuPhase& p = f.workload.phases[0];
  EXPECT_EQ(p.grid_x * p.block_x, n);
  EXPECT_EQ(p.dram_bytes, 8 * n);                // each array once
  EXPECT_EQ(p.dram_write_bytes, 4 * n);          // the stores' share
  EXPECT_EQ(p.l2_bytes, 4 * n + n / 32 * 148);   // 4 sectors per warp access; a store's line request takes 148 B of L2
  EXPECT_EQ(p.l1_wavefronts, 2 * n / 32);        // one 128-byte line per warp access
  EXPECT_EQ(p.l1_data_bytes, 8 * n);
  EXPECT_EQ(p.request_bytes, 128);
  EXPECT_EQ(p.loads_in_flight, 1);
  EXPECT_EQ(p.chain_l2_loads, 2);                // two accesses per thread, one at a time
  EXPECT_EQ(p.warp_instructions, 3 * 2 * n / 32);
  EXPECT_EQ(f.format, 2);
  EXPECT_EQ(f.timing, "single");
  ASSERT_EQ(f.params.size(), 1u);
  EXPECT_EQ(f.params[0].second, n);
}

// Every 16th float: each lane its own sector; a profile's measured strided efficiency scales DRAM.
TEST(WorkloadFormat2, DerivesAStridedRead) {
  const std::string text = kKernelHead + "    accesses:\n      - {name: x, count: n, pattern: strided, stride: 16, independent: 4}\n";
  const double n = kMiB;
  const GpuWorkloadFile f = parse(text);
  const GpuPhase& p = f.workload.phases[0];
  EXPECT_EQ(p.l2_bytes, 32 * n);           // a sector per element
  EXPECT_EQ(p.dram_bytes, 32 * n);         // sparse: the sectors are the distinct bytes (footprint 64 n)
  EXPECT_EQ(p.l1_wavefronts, n / 32 * 16); // 32 lanes × 64 bytes span 16 lines
  EXPECT_EQ(p.request_bytes, 1024);
  EXPECT_EQ(p.loads_in_flight, 4);
  EXPECT_EQ(p.chain_l2_loads, 1);
  // The measured efficiency at stride 16: 1/16 of the peak where the sector model says 1/8 → twice the bytes.
  GpuCalibration g = small_gpu();
  g.partition = PartitionCalibration{};
  g.partition->strided.columns = {"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"};
  g.partition->strided.rows = {{1, 4, 3e12, 1, 4}, {16, 4, 0.1875e12, 0.0625, 32}};
  EXPECT_NEAR(parse(text, g).workload.phases[0].dram_bytes, 64 * n, 1e-6 * n);
  // Dense: a naive transpose's strided write covers its whole region, so DRAM sees each byte once.
  const GpuWorkloadFile t = parse(kKernelHead + "    accesses:\n      - {count: n, kind: write, pattern: strided, stride: 1024, footprint: 4*n}\n");
  EXPECT_EQ(t.workload.phases[0].l2_bytes, 148 * n);  // 32 line requests of 148 B per warp access
  EXPECT_EQ(t.workload.phases[0].dram_bytes, 4 * n);  // its sectors complete in L2: no read before the write
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("strided-write"), std::string::npos);
}

// y = table[idx]: the index stream, then a dependent random read over the table.
TEST(WorkloadFormat2, DerivesAGather) {
  const double n = 16 * kMiB, C = 50 * kMiB;
  const std::string head = "format: 2\nparams: {n: 16Mi, table: 1GiB}\nkernels:\n  - grid: [n/256]\n    block: [256]\n";
  const std::string body = "    accesses:\n      - {name: idx, count: n}\n      - {name: data, count: n, pattern: gather, index: idx, footprint: table}\n";
  const GpuPhase p = parse(head + body).workload.phases[0];
  // 512 MiB of sectors moved over a 1 GiB table: the expected distinct share, and re-touches
  // that hit L2 with probability C/D.
  const double F = 1024 * kMiB, T = 32 * n, D = F * (1 - std::exp(-T / F));
  ASSERT_GT(D, C);
  EXPECT_EQ(p.l2_bytes, 4 * n + 2 * T);  // a one-sector line request takes 64 B of L2
  EXPECT_NEAR(p.dram_bytes, 4 * n + D + (T - D) * (1 - C / D), 1e-6 * n);
  EXPECT_EQ(p.loads_in_flight, 1);   // the data read waits for its index
  EXPECT_EQ(p.chain_l2_loads, 2);    // two levels
  EXPECT_EQ(p.request_bytes, (128 + 1024) / 2.0);
  // A table that fits in L2 is read from DRAM once, however often it is gathered from.
  const GpuPhase small = parse(head + body, small_gpu(), {{"table", 64 * 1024}}).workload.phases[0];
  EXPECT_NEAR(small.dram_bytes, 4 * n + 64 * 1024, 1);
  // A partly local gather: 4 sectors per warp access.
  const GpuPhase local = parse(head + "    accesses:\n      - {name: idx, count: n}\n"
                                      "      - {name: data, count: n, pattern: gather, index: idx, sectors_per_warp: 4}\n")
                             .workload.phases[0];
  EXPECT_EQ(local.l2_bytes, 4 * n + n / 32 * 4 * 64);
}

// gpu.dram_random: a random read whose window exceeds the L2 pays every DRAM sector at the
// measured random-sector rate (peak / (32 · sectors_per_s) bytes a sector); a gather with
// locality, the random write-back and a profile without the entry keep today's rules.
TEST(WorkloadFormat2, RandomGatherBeyondL2UsesTheMeasuredRandomRate) {
  const double n = 16 * kMiB, C = 50 * kMiB, peak = 3e12;
  const std::string head = "format: 2\nparams: {n: 16Mi, table: 1GiB}\nkernels:\n  - grid: [n/256]\n    block: [256]\n";
  const std::string body = "    accesses:\n      - {name: idx, count: n}\n      - {name: data, count: n, pattern: gather, index: idx, footprint: table}\n";
  GpuCalibration g = small_gpu();
  g.partition = PartitionCalibration{};
  g.partition->strided.columns = {"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"};
  g.partition->strided.rows = {{1, 4, 3e12, 1, 4}, {32, 4, 0.18e12, 0.06, 32}};
  SaturationCurve dram;
  dram.peak_Bps = peak, dram.latency_s = 6e-7, dram.sharpness = 4;
  g.dram_concurrency = dram;
  const GpuWorkloadFile before = parse(head + body, g);
  RandomReadCalibration r;
  r.footprint_bytes = {256 * kMiB, 1024 * kMiB}, r.reads = {4.3e6, 4.3e6}, r.seconds = {1e-4, 1.2e-4}, r.sectors_per_s = {5e10, 4e10};
  GpuCalibration measured = g;
  measured.dram_random = r;
  const GpuWorkloadFile f = parse(head + body, measured);
  // 512 MiB of sectors moved over a 1 GiB table (DerivesAGather): the same sectors, each at
  // 3e12 / (32 · 4e10) = 2.34375 sectors' worth of DRAM time; the index stream stays dense.
  const double F = 1024 * kMiB, T = 32 * n, D = F * (1 - std::exp(-T / F)), sectors = D + (T - D) * (1 - C / D);
  EXPECT_NEAR(f.workload.phases[0].dram_bytes, 4 * n + sectors * 2.34375, 1e-6 * n);
  EXPECT_NE(std::find_if(f.notes.begin(), f.notes.end(), [](const std::string& s) { return s.find("gpu.dram_random)") != std::string::npos; }),
            f.notes.end());
  // The DRAM term moves those bytes at the same bandwidth (the bundled H100 profile): the time
  // scales with the bytes.
  GpuCalibration h100 = load_profile(bundled_profile()).require_gpu();
  h100.dram_random.reset();
  const GpuWorkloadFile h100_before = parse_gpu_workload(head + body, "w.yaml", h100);
  RandomReadCalibration h100_rate = r;
  h100_rate.sectors_per_s = {2e10, 2e10};
  h100.dram_random = h100_rate;
  const GpuWorkloadFile h100_after = parse_gpu_workload(head + body, "w.yaml", h100);
  const double bytes_ratio = h100_after.workload.phases[0].dram_bytes / h100_before.workload.phases[0].dram_bytes;
  EXPECT_GT(bytes_ratio, 1);
  EXPECT_NEAR(predict_gpu(h100, h100_after.workload).phases[0].dram_s / predict_gpu(h100, h100_before.workload).phases[0].dram_s, bytes_ratio,
              1e-9 * bytes_ratio);
  // Without the entry: today's rule, the strided table's largest stride blended by 1 − D/F.
  const double old_phi = 1 + ((4.0 / 32) / 0.06 - 1) * (1 - D / F);
  EXPECT_NEAR(before.workload.phases[0].dram_bytes, 4 * n + sectors * old_phi, 1e-6 * n);
  EXPECT_NE(std::find_if(before.notes.begin(), before.notes.end(),
                         [](const std::string& s) { return s.find("no gpu.dram_random measurement") != std::string::npos; }),
            before.notes.end());
  // Between the measured tables, linear in log F: 512 MiB is halfway, 4.5e10 sectors/s.
  const GpuPhase mid = parse(head + body, measured, {{"table", 512 * kMiB}}).workload.phases[0];
  const double F2 = 512 * kMiB, D2 = F2 * (1 - std::exp(-T / F2));
  EXPECT_NEAR(mid.dram_bytes, 4 * n + (D2 + (T - D2) * (1 - C / D2)) * peak / (32 * 4.5e10), 1e-6 * n);
  // A gather with locality (a window of 16 MiB, within the L2) and a table within the L2 keep today's rule.
  const std::string local = "    accesses:\n      - {name: idx, count: n}\n"
                            "      - {name: data, count: n, pattern: gather, index: idx, footprint: table, window: 16MiB}\n";
  EXPECT_EQ(parse(head + local, measured).workload.phases[0].dram_bytes, parse(head + local, g).workload.phases[0].dram_bytes);
  EXPECT_EQ(parse(head + body, measured, {{"table", 32 * kMiB}}).workload.phases[0].dram_bytes,
            parse(head + body, g, {{"table", 32 * kMiB}}).workload.phases[0].dram_bytes);
  // The random write-back keeps the strided table's price (kRandomWriteBackReads was fitted with it).
  const std::string scatter = "format: 2\nparams: {n: 64Mi}\nkernels:\n  - grid: [n/256]\n    block: [256]\n    accesses:\n"
                              "      - {name: idx, count: n}\n"
                              "      - {name: out, kind: write, count: n, pattern: gather, index: idx, footprint: 4*n}\n";
  EXPECT_EQ(parse(scatter, measured).workload.phases[0].dram_write_bytes, parse(scatter, g).workload.phases[0].dram_write_bytes);
  // Without a DRAM curve there is no peak to price the sector against: today's rule.
  GpuCalibration no_curve = measured;
  no_curve.dram_concurrency.reset();
  GpuCalibration no_curve_before = g;
  no_curve_before.dram_concurrency.reset();
  EXPECT_EQ(parse(head + body, no_curve).workload.phases[0].dram_bytes, parse(head + body, no_curve_before).workload.phases[0].dram_bytes);
}

// A small GPU with a strided-read table (stride 32: 6 % efficiency), a DRAM curve of the given
// peak and a random-read rate over 256 MiB and 4 GiB tables.
GpuCalibration random_access_gpu(double peak, double read_rate) {
  GpuCalibration g = small_gpu();
  g.partition = PartitionCalibration{};
  g.partition->strided.columns = {"stride_elements", "element_bytes", "Bps", "efficiency", "sectors_per_request"};
  g.partition->strided.rows = {{1, 4, 3e12, 1, 4}, {32, 4, 0.18e12, 0.06, 32}};
  SaturationCurve dram;
  dram.peak_Bps = peak, dram.latency_s = 6e-7, dram.sharpness = 4;
  g.dram_concurrency = dram;
  RandomReadCalibration r;
  r.footprint_bytes = {256 * kMiB, 4096 * kMiB}, r.reads = {6.7e7, 6.7e7}, r.seconds = {2e-3, 2e-3}, r.sectors_per_s = {read_rate, read_rate};
  g.dram_random = r;
  return g;
}

// gpu.dram_random_rmw: a random read-modify-write beyond the L2 (y[idx[i]] += x[i], as two
// accesses at one index or as one read-modify-write access) reads each sector whole, so its
// write-back is a whole sector, priced at what the measured read-modify-write adds to the
// measured read: peak · (1/rmw − 1/read) bytes a sector. Without the entry, and for a scatter
// (no read of the sectors first), today's rule: the partly written sector at the strided price.
TEST(WorkloadFormat2, RandomReadModifyWriteBeyondL2UsesTheMeasuredRate) {
  const double n = 16 * kMiB, C = 50 * kMiB, peak = 3e12, read_rate = 4e10, rmw_rate = 1e10;
  const std::string head = "format: 2\nparams: {n: 16Mi, table: 1GiB}\nkernels:\n  - grid: [n/256]\n    block: [256]\n    accesses:\n"
                           "      - {name: x, count: n}\n      - {name: idx, count: n}\n";
  const std::string two = "      - {name: y_in, array: y, count: n, pattern: gather, index: idx, footprint: table}\n"
                          "      - {name: y_out, array: y, kind: write, count: n, pattern: gather, index: idx, footprint: table}\n";
  const std::string one = "      - {name: y, kind: read-modify-write, count: n, pattern: gather, index: idx, footprint: table}\n";
  GpuCalibration g = random_access_gpu(peak, read_rate);
  RandomReadCalibration r = *g.dram_random;
  GpuCalibration measured = g;
  r.sectors_per_s = {rmw_rate, rmw_rate}, r.fixed_s = {2e-5, 2e-5};
  measured.dram_random_rmw = r;
  // The sectors of the reuse rule (bytes), read at the random-read price, written back at
  // peak · (1/1e10 − 1/4e10) / 32 = 7.03125 sectors' worth; x and idx stream.
  const double F = 1024 * kMiB, T = 32 * n, D = F * (1 - std::exp(-T / F)), sectors = D + (T - D) * (1 - C / D);
  const double read_phi = peak / (32 * read_rate), write_phi = peak * (1 / rmw_rate - 1 / read_rate) / 32;
  const GpuWorkloadFile f = parse(head + two, measured);
  EXPECT_NEAR(f.workload.phases[0].dram_bytes, 8 * n + sectors * (read_phi + write_phi), 1e-6 * n);
  EXPECT_NEAR(f.workload.phases[0].dram_write_bytes, sectors * write_phi, 1e-6 * n);
  EXPECT_NE(std::find_if(f.notes.begin(), f.notes.end(), [](const std::string& s) { return s.find("gpu.dram_random_rmw)") != std::string::npos; }),
            f.notes.end());
  // One read-modify-write access is the same work.
  EXPECT_NEAR(parse(head + one, measured).workload.phases[0].dram_bytes, f.workload.phases[0].dram_bytes, 1e-6 * n);
  // Without the entry: every sector leaves L2 partly written and costs kRandomWriteBackReads (5)
  // random reads at the strided table's largest stride, (4/32)/0.06 sectors each.
  const GpuWorkloadFile before = parse(head + two, g);
  EXPECT_NEAR(before.workload.phases[0].dram_bytes, 8 * n + sectors * read_phi + sectors * (4.0 / 32) / 0.06 * 5, 1e-6 * n);
  EXPECT_EQ(std::find_if(before.notes.begin(), before.notes.end(), [](const std::string& s) { return s.find("gpu.dram_random_rmw") != std::string::npos; }),
            before.notes.end());
  // A scatter (no read of its sectors first) and a write at another index keep today's rule.
  const std::string scatter = "      - {name: y, kind: write, count: n, pattern: gather, index: idx, footprint: table}\n";
  EXPECT_EQ(parse(head + scatter, measured).workload.phases[0].dram_bytes, parse(head + scatter, g).workload.phases[0].dram_bytes);
  const std::string elsewhere = "      - {name: y_in, array: y, count: n, pattern: gather, index: idx, footprint: table}\n"
                                "      - {name: y_out, array: y, kind: write, count: n, pattern: gather, index: x, footprint: table}\n";
  EXPECT_EQ(parse(head + elsewhere, measured).workload.phases[0].dram_bytes, parse(head + elsewhere, g).workload.phases[0].dram_bytes);
  // A measured read-modify-write no slower than the read itself: the write-back at least a streamed sector.
  GpuCalibration fast = measured;
  fast.dram_random_rmw->sectors_per_s = {5e10, 5e10};
  EXPECT_NEAR(parse(head + two, fast).workload.phases[0].dram_write_bytes, sectors, 1e-6 * n);
}

// gpu.dram_random_write: a scatter beyond the L2 (out[idx[i]] = x[i], no read of the sectors
// first) leaves every sector it writes partly written (16 Mi words over a 1 GiB table); each
// write-back at the measured random-write rate, peak / (32 · 1.25e10) = 7.5 sectors' worth.
// Without the entry, kRandomWriteBackReads (5) reads at the strided table's largest stride; a
// scatter within a window inside the L2 and a read-modify-write keep their rules.
TEST(WorkloadFormat2, RandomScatterBeyondL2UsesTheMeasuredWriteRate) {
  const double n = 16 * kMiB, peak = 3e12, read_rate = 4e10, write_rate = 1.25e10;
  const std::string head = "format: 2\nparams: {n: 16Mi, table: 1GiB}\nkernels:\n  - grid: [n/256]\n    block: [256]\n    accesses:\n"
                           "      - {name: x, count: n}\n      - {name: idx, count: n}\n";
  const std::string scatter = "      - {name: y, kind: write, count: n, pattern: gather, index: idx, footprint: table}\n";
  GpuCalibration g = random_access_gpu(peak, read_rate);
  RandomReadCalibration r = *g.dram_random;
  GpuCalibration measured = g;
  r.reads = {8 * kMiB, 8 * kMiB}, r.sectors_per_s = {write_rate, write_rate}, r.fixed_s = {1e-5, 1e-5};
  measured.dram_random_write = r;
  // By hand: T = 512 MiB, D = 1 GiB (1 - e^-0.5) = 402.93 MiB, the re-touches (109.07 MiB) miss
  // 1 - 50/402.93 = 0.87591 of the time: 498.47 MiB leave L2, all of them partly written.
  const double sectors = 498.47 * kMiB;
  const GpuWorkloadFile f = parse(head + scatter, measured);
  EXPECT_NEAR(f.workload.phases[0].dram_write_bytes, sectors * 7.5, 1e-4 * sectors * 7.5);
  EXPECT_NEAR(f.workload.phases[0].dram_bytes, 8 * n + sectors * 7.5, 1e-4 * sectors * 7.5);
  const auto has_note = [](const GpuWorkloadFile& w) {
    return std::find_if(w.notes.begin(), w.notes.end(), [](const std::string& s) { return s.find("gpu.dram_random_write)") != std::string::npos; }) !=
           w.notes.end();
  };
  EXPECT_TRUE(has_note(f));
  // Without the entry: (4/32)/0.06 · 5 = 10.417 sectors' worth each, as before.
  const GpuWorkloadFile before = parse(head + scatter, g);
  EXPECT_NEAR(before.workload.phases[0].dram_write_bytes, sectors * (4.0 / 32) / 0.06 * 5, 1e-4 * sectors * 10.417);
  EXPECT_FALSE(has_note(before));
  // A write rate faster than streaming: at least a streamed sector.
  GpuCalibration fast = measured;
  fast.dram_random_write->sectors_per_s = {1e12, 1e12};
  EXPECT_NEAR(parse(head + scatter, fast).workload.phases[0].dram_write_bytes, sectors, 1e-4 * sectors);
  // A scatter inside 16 KiB windows (sectors completed in L2) and a read-modify-write are unchanged.
  const std::string local = "      - {name: y, kind: write, count: n, pattern: gather, index: idx, footprint: table, window: 16KiB, sectors_per_warp: 31}\n";
  EXPECT_EQ(parse(head + local, measured).workload.phases[0].dram_bytes, parse(head + local, g).workload.phases[0].dram_bytes);
  const std::string rmw = "      - {name: y, kind: read-modify-write, count: n, pattern: gather, index: idx, footprint: table}\n";
  EXPECT_EQ(parse(head + rmw, measured).workload.phases[0].dram_bytes, parse(head + rmw, g).workload.phases[0].dram_bytes);
}

// A 5-point stencil reading its neighbours from global memory over a grid larger than L2.
TEST(WorkloadFormat2, DerivesAStencilWithReuse) {
  const std::string text =
      "format: 2\nparams: {n: 4096}\nkernels:\n  - grid: [n/32, n/8]\n    block: [32, 8]\n    accesses:\n"
      "      - {name: c, array: u, count: n*n}\n      - {name: w, array: u, count: n*n, l1_hit: 1}\n"
      "      - {name: e, array: u, count: n*n, l1_hit: 1}\n      - {name: s, array: u, count: n*n, l1_hit: 7/8}\n"
      "      - {name: nn, array: u, count: n*n, l1_hit: 7/8}\n      - {name: out, kind: write, count: n*n}\n";
  const GpuPhase p = parse(text).workload.phases[0];
  const double bytes = 4.0 * 4096 * 4096;  // 64 MiB: more than the L2, yet its rows are re-read by neighbouring blocks
  EXPECT_EQ(p.dram_bytes, 2 * bytes);
  EXPECT_EQ(p.l2_bytes, bytes * (1 + 0.125 + 0.125) + bytes * 148 / 128);
  EXPECT_EQ(p.l1_wavefronts, 6 * 4096.0 * 4096 / 32);
  EXPECT_EQ(p.loads_in_flight, 5);  // five independent reads
  // Of them, the DRAM slots: the centre (1), the two rows' misses (2 × 1/8); w and e hit L1 on
  // the lines the centre brings (a coalesced load uses every byte it brings: no own reuse).
  EXPECT_DOUBLE_EQ(p.dram_loads_in_flight, 1.25);
  EXPECT_EQ(p.chain_l2_loads, 2);   // six accesses per thread, five at a time
}

// mv-global's access: lane i walks row i (a strided read, 32 sectors a warp access, 4 of each
// sector's 32 bytes used), its next 7 loads hitting the sector its own miss brought; b a
// broadcast that the block's other warps (64 threads: 2) find in L1 but for each sector's first
// touch. Hits on the access's own sectors keep its DRAM slot: the slot holds the sector while
// the hits follow it.
TEST(WorkloadFormat2, OwnSectorReuseKeepsTheDramSlot) {
  const std::string text =
      "format: 2\nparams: {n: 4096}\nkernels:\n  - grid: [n/64]\n    block: [64]\n    accesses:\n"
      "      - {name: a, count: n*n, pattern: strided, stride: n, footprint: 4*n*n, l1_hit: 7/8}\n"
      "      - {name: b, count: n*n, pattern: broadcast, footprint: 4*n, l1_hit: 1-4/64}\n"
      "      - {name: c, kind: write, count: n}\n";
  const GpuPhase p = parse(text).workload.phases[0];
  EXPECT_EQ(p.loads_in_flight, 2);
  // a: 1 − 4/(32·32) of each request unused: all 7/8 of its hits are its own, the load keeps its
  // slot (1). b: 1 − 4/32 = 7/8 own, the other 1/16 of its hits the other warp's: 15/16.
  EXPECT_DOUBLE_EQ(p.dram_loads_in_flight, 1 + 15.0 / 16);
  // A halo that one warp in eight loads (the block's top row) beside every warp's centre: in
  // flight beside the centre in one warp in eight.
  const GpuPhase halo = parse(kKernelHead + "    accesses:\n      - {name: centre, count: n}\n"
                                            "      - {name: up, count: n/8}\n").workload.phases[0];
  EXPECT_EQ(halo.loads_in_flight, 2);
  EXPECT_DOUBLE_EQ(halo.dram_loads_in_flight, 1.125);
  // Two arrays streamed side by side: both loads take a slot.
  const GpuPhase two = parse(kKernelHead + "    accesses:\n      - {name: a, count: n}\n      - {name: b, count: n}\n").workload.phases[0];
  EXPECT_EQ(two.dram_loads_in_flight, 2);
}

// A 256-bin histogram with global atomics: L2 write path, the bins read and written once.
TEST(WorkloadFormat2, DerivesAnAtomicHistogram) {
  const GpuWorkloadFile f = parse(kKernelHead +
                                  "    accesses:\n      - {name: data, count: n}\n"
                                  "      - {name: bins, kind: atomic, count: n, footprint: 256*4, addresses_per_warp: 16}\n"
                                  "    work: {int: 4*n}\n");
  const double n = kMiB;
  const GpuPhase& p = f.workload.phases[0];
  EXPECT_EQ(p.l2_bytes, 4 * n + n / 32 * 16 * 32);
  EXPECT_EQ(p.dram_bytes, 4 * n + 2 * 1024);
  // 16 updates per warp access spread over the 32 sectors of the bins.
  EXPECT_EQ(p.atomic_sector_updates, n / 32 * 16 / 32);
  EXPECT_EQ(p.l1_wavefronts, n / 32 + n / 32 * 16);
  // Integer operations at the int32_logic rate, half the FP32 instruction rate: 4n / 32 warps of
  // them, two slots each.
  EXPECT_EQ(p.warp_instructions, 4 * n / 32 * 2 + 3 * 2 * n / 32);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("atomic"), std::string::npos);
}

// Writes that leave sectors partly written: the sector is read before it is written.
TEST(WorkloadFormat2, PartlyWrittenSectorsAreReadBeforeTheyAreWritten) {
  const double n = kMiB;
  // b[i*8] = a[i]: 4 of each sector's 32 bytes, and no other access writes the rest.
  const GpuPhase sparse = parse(kKernelHead + "    accesses:\n      - {name: a, count: n}\n"
                                              "      - {name: b, kind: write, count: n, pattern: strided, stride: 8}\n")
                              .workload.phases[0];
  EXPECT_EQ(sparse.dram_bytes, 4 * n + 2 * 32 * n);  // a, then each of b's sectors read and written
  EXPECT_EQ(sparse.dram_write_bytes, 2 * 32 * n);
  // A random permutation over a region larger than L2: a re-touch usually finds its sector
  // evicted, partly written; those write-backs go to random sectors, at 5 random sector reads each.
  const std::string scatter = "format: 2\nparams: {n: 64Mi}\nkernels:\n  - grid: [n/256]\n    block: [256]\n    accesses:\n"
                              "      - {name: idx, count: n}\n"
                              "      - {name: out, kind: write, count: n, pattern: gather, index: idx, footprint: 4*n}\n";
  const GpuPhase random = parse(scatter).workload.phases[0];
  const double N = 64 * kMiB, F = 4 * N, T = 32 * N, D = F * (1 - std::exp(-T / F)), C = 50 * kMiB;
  const double written = D + (T - D) * (1 - C / D), partial = written * (1 - C / D);
  // small_gpu() has no strided-read table: a random sector costs its 32 bytes.
  EXPECT_NEAR(random.dram_write_bytes, (written - partial) + partial * 5, 1e-6 * written);
  EXPECT_NEAR(random.dram_bytes, 4 * N + random.dram_write_bytes, 1e-6 * written);
  // The same scatter inside windows of 16 KiB (L2-resident at any time): each sector completes
  // in L2 and is written once.
  const GpuPhase local =
      parse("format: 2\nparams: {n: 64Mi}\nkernels:\n  - grid: [n/256]\n    block: [256]\n    accesses:\n"
            "      - {name: idx, count: n}\n"
            "      - {name: out, kind: write, count: n, pattern: gather, index: idx, footprint: 4*n, window: 16KiB}\n")
          .workload.phases[0];
  EXPECT_NEAR(local.dram_write_bytes, D, 1e-6 * D);
  EXPECT_NE(error_of("format: 2\nkernels:\n  - grid: [1]\n    block: [32]\n    accesses:\n      - {count: 32, window: 1KiB}\n")
                .find("window"),
            std::string::npos);
}

// The reference kernels' special forms are kernel keys of format 2 too.
TEST(WorkloadFormat2, StagedTilesAndFetchRoundsAreKernelKeys) {
  const GpuPhase p = parse(kKernelHead + "    staged_tiles: true\n    fetch_rounds_in_chain: true\n").workload.phases[0];
  EXPECT_TRUE(p.staged_tiles);
  EXPECT_TRUE(p.fetch_rounds_in_chain);
  EXPECT_FALSE(parse(kKernelHead).workload.phases[0].staged_tiles);
  EXPECT_NE(error_of(kKernelHead + "    fetch_rounds_in_chain: true\n").find("staged_tiles"), std::string::npos);
  EXPECT_NE(error_of(kKernelHead + "    staged_tiles: yes\n").find("true or false"), std::string::npos);
}

// A block-wide tree after one load per thread: log2(256) + 1 = 9 barriers by default, where the
// shared accesses have a tree's shape (shared reads narrower than the widest shared write and than
// a warp: the last rounds within one warp), whether or not a chain is given; `barriers` states
// them; the load rounds are the reads over the loads in flight.
TEST(WorkloadFormat2, ASharedTreeDerivesItsBarriers) {
  const std::string tree = kKernelHead +
                           "    accesses:\n"
                           "      - {name: x, count: n}\n"
                           "      - {name: s_init, space: shared, kind: write, count: n}\n"
                           "      - {name: s_full, space: shared, count: 2*224*n/256}\n"
                           "      - {name: s_partial, space: shared, count: 2*31*n/256, active_lanes: 6}\n";
  const GpuPhase p = parse(tree).workload.phases[0];
  EXPECT_EQ(p.barriers, 9);
  EXPECT_EQ(p.load_rounds, 1);
  EXPECT_EQ(parse(tree + "    barriers: 3\n").workload.phases[0].barriers, 3);
  // A chain is one thread's latency term, a separate bound: the tree's phase still holds the slot.
  EXPECT_EQ(parse(tree + "    chain: {l2_loads: 1, shared_loads: 8}\n").workload.phases[0].barriers, 9);
  // 512 threads: log2(512) + 1 = 10.
  std::string wide = tree;
  wide.replace(wide.find("block: [256]"), 12, "block: [512]");
  EXPECT_EQ(parse(wide).workload.phases[0].barriers, 10);
  // A staged tile of a 16-thread block (mv-shared<16>): writes and reads by the same 16 lanes, a
  // chain given; its reads are no narrower than its writes: no tree.
  EXPECT_EQ(parse(kKernelHead + "    accesses:\n      - {name: x, count: n}\n"
                                "      - {name: s, space: shared, kind: write, count: n, active_lanes: 16}\n"
                                "      - {name: t, space: shared, count: n, active_lanes: 16}\n"
                                "    chain: {l2_loads: 4, fp32: 64}\n")
                .workload.phases[0]
                .barriers,
            0);
  // Without the partial-warp reads (a staged tile, a stencil's halo) no tree is assumed.
  EXPECT_EQ(parse(kKernelHead + "    accesses:\n      - {name: x, count: n}\n      - {name: s, space: shared, kind: write, count: n}\n"
                                "      - {name: t, space: shared, count: n}\n")
                .workload.phases[0]
                .barriers,
            0);
  // A grid-stride loop of 16 reads a thread, 4 in flight: the phase comes once per 4 rounds.
  const GpuPhase strided = parse("format: 2\nparams: {n: 1Mi}\nkernels:\n  - name: k\n    grid: [n/256/16]\n    block: [256]\n"
                                 "    accesses:\n      - {name: x, count: n, independent: 4}\n"
                                 "      - {name: s_init, space: shared, kind: write, count: n/16}\n"
                                 "      - {name: s_partial, space: shared, count: 62*n/256/16, active_lanes: 6}\n")
                               .workload.phases[0];
  EXPECT_EQ(strided.barriers, 9);
  EXPECT_EQ(strided.load_rounds, 4);
  EXPECT_NE(error_of(kKernelHead + "    barriers: -1\n").find("barriers"), std::string::npos);
}

// Every thread adds to one int: one update per warp access, all on one sector.
TEST(WorkloadFormat2, AtomicsOnOneAddressSerialise) {
  const GpuPhase p = parse(kKernelHead + "    accesses:\n      - {name: x, count: n}\n"
                                         "      - {name: total, kind: atomic, count: n, footprint: 4, addresses_per_warp: 1}\n")
                         .workload.phases[0];
  EXPECT_EQ(p.atomic_sector_updates, kMiB / 32);
  // A profile without gpu.atomics (the bundled one, with its section taken out): the fitted constant.
  GpuCalibration gpu = load_profile(bundled_profile()).require_gpu();
  gpu.atomics.clear();
  GpuWorkload w;
  w.phases.push_back(p);
  const GpuPrediction one = predict_gpu(gpu, w);
  EXPECT_EQ(one.bound, "atomic");
  EXPECT_NEAR(one.atomic_s, kMiB / 32 * 0.70e-9, 1e-12);
  w.phases[0].atomic_sector_updates /= 256;  // the same updates over 256 sectors
  EXPECT_LT(predict_gpu(gpu, w).seconds, one.seconds / 2);
}

// Balls in bins, exactly: 4 balls in 8 bins have a largest bin of 1 with probability 8·7·6·5/8^4,
// of 3 or 4 rarely; one bin holds every ball; fractional bins are linear between.
TEST(WorkloadFormat2, ExpectedMaxLoadAndRandomAtomicSteps) {
  const double p1 = 8.0 * 7 * 6 * 5 / 4096, p4 = 8.0 / 4096, p3 = 8.0 * 7 * 4 / 4096;
  EXPECT_NEAR(expected_max_load(4, 8), p1 * 1 + (1 - p1 - p3 - p4) * 2 + p3 * 3 + p4 * 4, 1e-12);
  EXPECT_EQ(expected_max_load(32, 1), 32);
  EXPECT_EQ(expected_max_load(0, 8), 0);
  EXPECT_NEAR(expected_max_load(32, 8.5), 0.5 * (expected_max_load(32, 8) + expected_max_load(32, 9)), 1e-12);
  EXPECT_GT(expected_max_load(32, 8), 6.9);  // far above the mean of 4
  EXPECT_LT(expected_max_load(32, 8), 7.2);
  // One sector of 8 words: its busiest word's lanes.
  EXPECT_NEAR(random_atomic_steps(32, 8, 32, 4), expected_max_load(32, 8), 1e-12);
  // One address: all 32 lanes one after another.
  EXPECT_NEAR(random_atomic_steps(32, 1, 4096, 4), 32, 1e-12);
  // 32 lanes on a large footprint: almost every lane in a sector of its own.
  const double spread = random_atomic_steps(32, 32, 64.0 * 1024 * 1024, 4);
  EXPECT_GT(spread, 31.9);
  EXPECT_LE(spread, 32.0 + 1e-9);
}

// With gpu.atomics in the profile, each atomic takes its own type's measured rates:
//   T_atomic = max(Σ warp accesses · steps per warp · step_s(window), updates / words · same_word_update_s).
TEST(WorkloadFormat2, AtomicsUseTheProfilesMeasuredRates) {
  const double n = kMiB;
  const std::string hist = kKernelHead + "    accesses:\n      - {name: data, count: n}\n"
                                         "      - {name: bins, kind: atomic, count: n, footprint: 256*4, addresses_per_warp: 16}\n";
  GpuCalibration gpu = load_profile(bundled_profile()).require_gpu();
  gpu.atomics.clear();  // a profile before gpu.atomics: the fitted constant on the busiest sector
  const GpuWorkloadFile unmeasured = parse_gpu_workload(hist, "w.yaml", gpu);
  ASSERT_EQ(unmeasured.workload.phases[0].atomics.size(), 1u);
  EXPECT_NEAR(predict_gpu(gpu, unmeasured.workload).atomic_s, n / 64 * 0.70e-9, 1e-12);
  AtomicCurve int32;
  int32.threads = 1e6, int32.addresses = {1, 16, 4096}, int32.seconds_per_update = {2e-11, 1e-11, 1e-12};
  gpu.atomics["int32"] = int32;
  AtomicCurve fp64 = int32;
  fp64.seconds_per_update = {3e-10, 1e-10, 1e-11};
  gpu.atomics["fp64"] = fp64;
  const GpuWorkloadFile f = parse_gpu_workload(hist, "w.yaml", gpu);
  const GpuPhase& p = f.workload.phases[0];
  ASSERT_EQ(p.atomics.size(), 1u);
  EXPECT_EQ(p.atomics[0].type, "int32");
  EXPECT_EQ(p.atomics[0].words, 256);
  EXPECT_EQ(p.atomics[0].updates, n);
  EXPECT_EQ(p.atomics[0].warp_accesses, n / 32);
  // 32 lanes on 16 distinct words of 256 (32 sectors): the lanes choose among fewer than 32 words,
  // each in a sector of its own, so every lane is a step of its own.
  EXPECT_NEAR(p.atomics[0].steps_per_warp, 32, 1e-9);
  // Steps over 1 KiB: K = 32 sectors, log-log between 16 and 4096; the same-word bound n/256 · 2e-11 is shorter.
  EXPECT_NEAR(predict_gpu(gpu, f.workload).atomic_s, n * 1e-11 * std::pow(0.1, 0.125), 1e-12);
  EXPECT_NE(f.notes.back().find("measured atomicAdd"), std::string::npos) << f.notes.back();
  // Eight bins in one sector (a histogram of 8 int32 bins): the busiest word's lanes, E[max load of
  // 32 lanes on 8 words], are the sector's steps.
  const GpuWorkloadFile eight = parse_gpu_workload(
      kKernelHead + "    accesses:\n      - {name: bins, kind: atomic, count: n, footprint: 32, addresses_per_warp: 8}\n", "w.yaml", gpu);
  EXPECT_NEAR(eight.workload.phases[0].atomics[0].steps_per_warp, expected_max_load(32, 8), 1e-9);
  EXPECT_NEAR(predict_gpu(gpu, eight.workload).atomic_s,
              std::max(n / 32 * expected_max_load(32, 8) * gpu.atomics["int32"].step_s(32), n / 8 * 2e-11), 1e-12);
  // The same lanes on consecutive words (pattern: coalesced, 4 lanes a word): 1 sector of 4 steps.
  const GpuWorkloadFile packed = parse_gpu_workload(
      kKernelHead + "    accesses:\n      - {name: bins, kind: atomic, pattern: coalesced, count: n, footprint: 32, addresses_per_warp: 8}\n",
      "w.yaml", gpu);
  EXPECT_NEAR(packed.workload.phases[0].atomics[0].steps_per_warp, 4, 1e-12);
  // An int32 sum into one address is warp-aggregated: one update a warp, one after another.
  const std::string sum = kKernelHead + "    accesses:\n      - {name: total, kind: atomic, count: n, footprint: 4, addresses_per_warp: 1";
  const GpuWorkloadFile aggregated = parse_gpu_workload(sum + "}\n", "w.yaml", gpu);
  EXPECT_EQ(aggregated.workload.phases[0].atomics[0].updates, n / 32);
  EXPECT_NEAR(predict_gpu(gpu, aggregated.workload).atomic_s, n / 32 * 2e-11, 1e-15);
  // warp_aggregated: false: 32 lanes, 32 steps of one word, the same-word bound n · 2e-11.
  const GpuWorkloadFile lanes = parse_gpu_workload(sum + ", warp_aggregated: false}\n", "w.yaml", gpu);
  EXPECT_EQ(lanes.workload.phases[0].atomics[0].steps_per_warp, 32);
  EXPECT_NEAR(predict_gpu(gpu, lanes.workload).atomic_s, n * 2e-11, 1e-15);
  EXPECT_NE(error_of(kKernelHead + "    accesses:\n      - {kind: atomic, count: n, warp_aggregated: true}\n").find("addresses_per_warp: 1"),
            std::string::npos);
  // FP64 per-block slots (every lane of a warp on its block's word, not aggregated): the warps
  // resident at one time update their share of the footprint, so the steps spread over fewer
  // bytes than a window of the whole footprint allows.
  const std::string slots = kKernelHead + "    accesses:\n      - {name: sums, kind: atomic, element_bytes: 8, count: n, footprint: 8*n/256, addresses_per_warp: 1";
  const GpuWorkloadFile resident = parse_gpu_workload(slots + "}\n", "w.yaml", gpu);
  const GpuWorkloadFile whole = parse_gpu_workload(slots + ", window: 8*n/256}\n", "w.yaml", gpu);
  EXPECT_EQ(resident.workload.phases[0].atomics[0].steps_per_warp, 32);
  EXPECT_GT(predict_gpu(gpu, resident.workload).atomic_s, 1.2 * predict_gpu(gpu, whole.workload).atomic_s);
  EXPECT_NEAR(predict_gpu(gpu, whole.workload).atomic_s, n * gpu.atomics["fp64"].step_s(8 * n / 256), 1e-15);
  // fp32, which this profile did not measure: the fitted constant on the busiest sector.
  const GpuWorkloadFile f32 = parse_gpu_workload(
      kKernelHead + "    accesses:\n      - {name: bins, kind: atomic, atomic_type: fp32, count: n, footprint: 256*4, addresses_per_warp: 16}\n",
      "w.yaml", gpu);
  EXPECT_NEAR(predict_gpu(gpu, f32.workload).atomic_s, n / 64 * 0.70e-9, 1e-12);
  EXPECT_NE(f32.notes.back().find("no gpu.atomics measurement"), std::string::npos) << f32.notes.back();
  EXPECT_NE(error_of(kKernelHead + "    accesses:\n      - {kind: atomic, atomic_type: fp64, count: n}\n").find("element_bytes: 8"),
            std::string::npos);
  EXPECT_NE(error_of(kKernelHead + "    accesses:\n      - {count: n, atomic_type: int32}\n").find("only meaningful for kind: atomic"),
            std::string::npos);
}

TEST(WorkloadFormat2, SharedConflictsWorkLaunchAndCopies) {
  const double n = kMiB;
  const GpuWorkloadFile f = parse(
      "format: 2\nparams: {n: 1Mi}\ncopies: [{direction: h2d, bytes: 4*n}]\nkernels:\n  - grid: [4, 2, 3]\n    block: [8, 4, 2]\n"
      "    launches: 10\n    copies: [{direction: d2h, memory: pageable, bytes: 64KiB}]\n    accesses:\n"
      "      - {count: n, space: shared}\n      - {count: n, space: shared, conflict_degree: 32}\n"
      "      - {count: n, space: shared, element_bytes: 8}\n      - {count: n, space: shared, kind: atomic, addresses_per_warp: 4}\n"
      "      - {count: n, space: shared, kind: read-modify-write, conflict_degree: 2}\n"
      "    work:\n      fp16x2: 128*n\n      special_fast: n\n      shuffles: 32*n\n"
      "      mma: [{shape: m16n8k16, precision: bf16, flops: 4096*n}]\n    chain: {fp32: 3, fp64: 1, special: 2, shared_loads: 4, dram_loads: 1}\n");
  const GpuPhase& p = f.workload.phases[0];
  EXPECT_EQ(p.grid_x, 4);
  EXPECT_EQ(p.grid_y, 6);
  EXPECT_EQ(p.block_x, 8);
  EXPECT_EQ(p.block_y, 8);
  EXPECT_EQ(p.launches, 10);
  const double w = n / 32;
  EXPECT_EQ(p.shared_accesses.at(1), w + 2 * w + n);  // conflict-free, 64-bit (2 passes), the shuffles
  EXPECT_EQ(p.shared_accesses.at(32), w);
  EXPECT_EQ(p.shared_accesses.at(8), w);               // 32 lanes on 4 addresses
  EXPECT_EQ(p.shared_accesses.at(2), 2 * w);           // a read and a write
  EXPECT_EQ(p.special_calls, 0);
  EXPECT_EQ(p.sfu_calls, n);                           // fast calls on the SFU pipe
  // half2: n instructions at two slots; shuffles: n; mma: 4096 n / 4096 = n; shared: 6 warp
  // accesses; a MUFU instruction per warp and fast call.
  EXPECT_EQ(p.warp_instructions, 2 * n + n + n + 6 * w + w);
  EXPECT_EQ(p.chain_fma, 4);
  EXPECT_EQ(p.chain_cosf, 2);
  EXPECT_EQ(p.chain_l1_loads, 4);
  EXPECT_EQ(p.chain_dram_loads, 1);
  EXPECT_EQ(p.chain_l2_loads, 0);
  ASSERT_EQ(f.transfers.size(), 2u);
  EXPECT_EQ(f.transfers[0].repeats, 10);  // per launch
  EXPECT_EQ(f.transfers[1].repeats, 1);   // per task
  EXPECT_EQ(f.workload.h2d_bytes, 4 * n);
  EXPECT_EQ(f.workload.d2h_bytes, 10 * 65536.0);
  EXPECT_EQ(f.launches(), 10);
  bool mma_note = false;
  for (const std::string& note : f.notes) mma_note = mma_note || note.find("tensor-core") != std::string::npos;
  EXPECT_TRUE(mma_note);
  // Without an fp16 ceiling the pairs run at the FP32 rate, and the output says so.
  GpuCalibration g = small_gpu();
  g.ceilings.erase("fp16");
  const GpuWorkloadFile nf = parse(kKernelHead + "    work: {fp16x2: 128*n}\n", g);
  EXPECT_EQ(nf.workload.phases[0].warp_instructions, n);
  ASSERT_EQ(nf.notes.size(), 1u);
  EXPECT_NE(nf.notes[0].find("no fp16 ceiling"), std::string::npos);
}

// The format-2 twins in data/workloads/v2 predict what their format-1 originals do.
TEST(WorkloadFormat2, TwinsPredictTheirFormat1Originals) {
  const Profile profile = load_profile(bundled_profile());
  const GpuCalibration& gpu = profile.require_gpu();
  for (const char* name : {"saxpy", "stencil-2d", "gather-strided", "mv-tiled-one-warp"}) {
    const GpuWorkloadFile one = read_gpu_workload(kData + "/workloads/" + name + ".yaml", gpu);
    const GpuWorkloadFile two = read_gpu_workload(kData + "/workloads/v2/" + name + ".yaml", gpu);
    EXPECT_EQ(one.format, 1);
    EXPECT_EQ(two.format, 2);
    const double t1 = predict_gpu(gpu, one.workload).seconds, t2 = predict_gpu(gpu, two.workload).seconds;
    EXPECT_NEAR(t2 / t1, 1.0, 0.01) << name;
    EXPECT_NEAR(two.workload.dram_bytes() / one.workload.dram_bytes(), 1.0, 1e-9) << name;
    EXPECT_EQ(two.workload.h2d_bytes, one.workload.h2d_bytes) << name;
    EXPECT_EQ(two.workload.d2h_bytes, one.workload.d2h_bytes) << name;
  }
}

// A reference kernel written in format 2 (data/workloads/reference/) is the description its C++
// descriptor gives (kernels/descriptors/reference_descriptors.cpp): both go through the one
// derivation (derive_gpu_phase), so every descriptor field agrees, special form included.
void expect_same_phase(const GpuPhase& f, const GpuPhase& d, const std::string& label) {
  EXPECT_EQ(f.launches, d.launches) << label;
  EXPECT_EQ(f.blocks(), d.blocks()) << label;
  EXPECT_EQ(f.threads_per_block(), d.threads_per_block()) << label;
  EXPECT_EQ(f.registers_per_thread, d.registers_per_thread) << label;
  EXPECT_EQ(f.shared_bytes_per_block, d.shared_bytes_per_block) << label;
  for (const auto& [name, x, y] : std::vector<std::tuple<const char*, double, double>>{
           {"flops_fp32", f.flops_fp32, d.flops_fp32},
           {"special_calls", f.special_calls, d.special_calls},
           {"warp_instructions", f.warp_instructions, d.warp_instructions},
           {"integer_warp_instructions", f.integer_warp_instructions, d.integer_warp_instructions},
           {"sfu_calls", f.sfu_calls, d.sfu_calls},
           {"dram_bytes", f.dram_bytes, d.dram_bytes},
           {"dram_write_bytes", f.dram_write_bytes, d.dram_write_bytes},
           {"l2_bytes", f.l2_bytes, d.l2_bytes},
           {"l1_wavefronts", f.l1_wavefronts, d.l1_wavefronts},
           {"l1_data_bytes", f.l1_data_bytes, d.l1_data_bytes},
           {"loads_in_flight", f.loads_in_flight, d.loads_in_flight},
           {"dram_loads_in_flight", f.dram_loads_in_flight, d.dram_loads_in_flight},
           {"request_bytes", f.request_bytes, d.request_bytes},
           {"chain_fma", f.chain_fma, d.chain_fma},
           {"chain_cosf", f.chain_cosf, d.chain_cosf},
           {"chain_l1_loads", f.chain_l1_loads, d.chain_l1_loads},
           {"chain_l2_loads", f.chain_l2_loads, d.chain_l2_loads},
           {"chain_dram_loads", f.chain_dram_loads, d.chain_dram_loads}})
    EXPECT_DOUBLE_EQ(x, y) << label << " " << name;
  EXPECT_EQ(f.shared_accesses, d.shared_accesses) << label;
  EXPECT_EQ(f.staged_tiles, d.staged_tiles) << label;
  EXPECT_EQ(f.fetch_rounds_in_chain, d.fetch_rounds_in_chain) << label;
  EXPECT_EQ(f.loads_issued_together, d.loads_issued_together) << label;
}

TEST(WorkloadFormat2, ReferenceDescriptorsGoThroughTheSharedDerivation) {
  const Profile profile = load_profile(bundled_profile());
  const GpuCalibration& gpu = profile.require_gpu();
  // mm-shared 32x32: at n = 4096 A and B exceed L2, and B's re-reads miss (`sweep`) in both.
  for (const double n : {1024.0, 2048.0, 4096.0}) {
    const GpuWorkloadFile f = read_gpu_workload(kData + "/workloads/reference/mm-shared-32x32.yaml", gpu, {{"n", n}});
    const GpuWorkload d = describe_gpu_kernel("mm-shared", n, {32, 32, 0}, {}, gpu.device.l2_cache_bytes);
    ASSERT_EQ(f.workload.phases.size(), 1u);
    ASSERT_EQ(d.phases.size(), 1u);
    EXPECT_TRUE(f.workload.phases[0].staged_tiles);
    expect_same_phase(f.workload.phases[0], d.phases[0], "mm-shared n=" + std::to_string(n));
    EXPECT_EQ(predict_gpu(gpu, f.workload).seconds, predict_gpu(gpu, d).seconds) << n;
  }
  EXPECT_GT(describe_gpu_kernel("mm-shared", 4096, {32, 32, 0}, {}, gpu.device.l2_cache_bytes).dram_bytes(),
            describe_gpu_kernel("mm-shared", 2048, {32, 32, 0}, {}, gpu.device.l2_cache_bytes).dram_bytes() * 4 * 2);
  for (const double n : {1024.0, 65536.0, 1048576.0, 16777216.0})
    for (const int block : {128, 1024}) {
      const GpuWorkloadFile f =
          read_gpu_workload(kData + "/workloads/reference/cosine.yaml", gpu, {{"n", n}, {"block", static_cast<double>(block)}});
      const GpuWorkload d = describe_gpu_kernel("cosine", n, {block, 1, 0}, {}, gpu.device.l2_cache_bytes);
      ASSERT_EQ(d.phases.size(), 1u);
      expect_same_phase(f.workload.phases[0], d.phases[0], "cosine n=" + std::to_string(n) + " block=" + std::to_string(block));
    }
}

// A kernel description written as a format-2 kernel (the keys of docs/workload-format.md), every
// number at full precision.
std::string format2_kernel(const KernelDescription& k) {
  std::ostringstream o;
  o.precision(17);
  const auto space = [](AccessSpace x) { return x == AccessSpace::global ? "global" : x == AccessSpace::shared ? "shared" : x == AccessSpace::constant ? "constant" : "local"; };
  const auto kind = [](AccessKind x) { return x == AccessKind::read ? "read" : x == AccessKind::write ? "write" : x == AccessKind::atomic ? "atomic" : "read-modify-write"; };
  const auto pattern = [](AccessPattern x) {
    return x == AccessPattern::coalesced ? "coalesced" : x == AccessPattern::strided ? "strided" : x == AccessPattern::random ? "random"
           : x == AccessPattern::broadcast ? "broadcast" : "gather";
  };
  o << "  - name: '" << k.name << "'\n    launches: " << k.launches << "\n    grid: [" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2]
    << "]\n    block: [" << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << "]\n    registers: " << k.registers
    << "\n    shared_bytes: " << k.shared_bytes << "\n    staged_tiles: " << (k.staged_tiles ? "true" : "false")
    << "\n    fetch_rounds_in_chain: " << (k.fetch_rounds_in_chain ? "true" : "false")
    << "\n    loads_issued_together: " << (k.loads_issued_together ? "true" : "false") << "\n";
  if (k.warp_instructions) o << "    warp_instructions: " << *k.warp_instructions << "\n";
  if (k.integer_share) o << "    integer_share: " << *k.integer_share << "\n";
  if (k.request_bytes) o << "    request_bytes: " << *k.request_bytes << "\n";
  o << "    accesses:\n";
  for (const AccessDescription& a : k.accesses) {
    o << "      - {name: " << a.name << ", space: " << space(a.space) << ", kind: " << kind(a.kind) << ", element_bytes: " << a.element_bytes
      << ", count: " << a.count << ", active_lanes: " << a.active_lanes;
    if (!a.array.empty()) o << ", array: " << a.array;
    if (a.pattern_given || a.pattern != AccessPattern::coalesced) o << ", pattern: " << pattern(a.pattern);
    if (a.pattern == AccessPattern::strided) o << ", stride: " << a.stride;
    if (a.footprint > 0) o << ", footprint: " << a.footprint;
    if (a.independent != 1) o << ", independent: " << a.independent;
    if (!a.after.empty()) o << ", after: " << a.after;
    if (a.l1_hit > 0) o << ", l1_hit: " << a.l1_hit;
    if (a.space == AccessSpace::shared) o << ", conflict_degree: " << a.conflict_degree;
    if (a.kind == AccessKind::atomic) o << ", addresses_per_warp: " << a.addresses_per_warp << ", atomic_type: " << a.atomic_type;
    if (a.contiguous_lanes > 0) o << ", contiguous_lanes: " << a.contiguous_lanes;
    if (a.offset != 0) o << ", offset: " << a.offset;
    if (a.sweep > 0) o << ", sweep: " << a.sweep;
    if (a.l2_resident) o << ", l2_resident: true";
    o << "}\n";
  }
  const WorkDescription& w = k.work;
  o << "    work: {fp32: " << w.fp32 << ", special: " << w.special << "}\n";
  if (k.chain)
    o << "    chain: {fp32: " << k.chain->fp32 << ", special: " << k.chain->special << ", shared_loads: " << k.chain->shared_loads
      << ", l1_loads: " << k.chain->l1_loads << ", l2_loads: " << k.chain->l2_loads << ", dram_loads: " << k.chain->dram_loads << "}\n";
  return o.str();
}

// Every reference kernel's descriptor is expressible in format 2: its kernel descriptions, written
// as a workload file and read back by the format-2 reader, give the descriptor describe_gpu_kernel
// gives, field for field (cudaMemsetAsync is no kernel; cholesky-single's count is given by hand).
TEST(WorkloadFormat2, EveryReferenceDescriptorIsAFormat2Workload) {
  const Profile profile = load_profile(bundled_profile());
  const GpuCalibration& gpu = profile.require_gpu();
  const ResourceTable resources = read_validation_run(kData + "/validation/2026-11-27-h100-a07c6e1d/reference").resource_table();
  int kernels = 0;
  for (const GpuKernelSpec& spec : gpu_kernel_specs()) {
    if (spec.name == "cholesky-single") continue;
    for (const double n : {static_cast<double>(spec.min_n), 4096.0}) {
      if (!config_problem(spec, n, default_config(spec, n)).empty()) continue;
      const KernelConfig c = default_config(spec, n);
      const std::string label = spec.name + " n=" + std::to_string(static_cast<int>(n));
      const std::vector<KernelDescription> descriptions = reference_kernel_descriptions(spec.name, n, c, resources, gpu.device.l2_cache_bytes);
      std::string text = "format: 2\nname: " + spec.name + "\nkernels:\n";
      for (const KernelDescription& k : descriptions) text += format2_kernel(k);
      GpuWorkloadFile f;
      try {
        f = parse_gpu_workload(text, label, gpu);
      } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": " << e.what() << "\n" << text;
        continue;
      }
      const GpuWorkload d = describe_gpu_kernel(spec.name, n, c, resources, gpu.device.l2_cache_bytes);
      std::vector<const GpuPhase*> kernel_phases;
      for (const GpuPhase& p : d.phases)
        if (p.name != "memset") kernel_phases.push_back(&p);
      ASSERT_EQ(f.workload.phases.size(), kernel_phases.size()) << label;
      for (std::size_t i = 0; i < kernel_phases.size(); ++i) {
        expect_same_phase(f.workload.phases[i], *kernel_phases[i], label + " phase " + std::to_string(i));
        EXPECT_EQ(f.workload.phases[i].atomics.size(), kernel_phases[i]->atomics.size()) << label;
      }
      ++kernels;
    }
  }
  EXPECT_GE(kernels, 30);
}

// The C++ description API and the file reader agree key for key on the keys the reference
// descriptors added: contiguous_lanes (2-D blocks narrower than a warp), sweep (an operand
// re-read whole), l2_resident (left in L2 by an earlier kernel), request_bytes.
TEST(WorkloadFormat2, ReferenceKeysDeriveAsStated) {
  const GpuCalibration gpu = small_gpu();
  const double n = 4096, C = gpu.device.l2_cache_bytes;
  const GpuWorkloadFile f = parse(
      "format: 2\nparams: {n: 4096}\nkernels:\n  - name: k\n    grid: [n/16, n/16]\n    block: [16, 16]\n    request_bytes: 256\n"
      "    accesses:\n"
      "      - {name: a, count: n*n, contiguous_lanes: 16}\n"
      "      - {name: b, count: 64*n*n, footprint: 64*n*n/16, sweep: 64*n*n/16}\n"
      "      - {name: r, count: n*n, l2_resident: true}\n",
      gpu);
  const GpuPhase& p = f.workload.phases[0];
  const double w = n * n / 32;
  // a: two runs of 16 floats a warp access, each its own line and 2 sectors.
  // b: 16 sweeps over 4 MiB·16; r: no first touch from DRAM.
  EXPECT_DOUBLE_EQ(p.l1_wavefronts, w * 2 + 64 * w + w);
  const double F = 64 * n * n / 16, T = 64 * n * n * 4;
  const double m = F <= 0.75 * C ? 0.0 : 1 - 0.75 * C / F;
  EXPECT_DOUBLE_EQ(p.dram_bytes, 4 * n * n + F + (T - F) * m);
  EXPECT_EQ(p.request_bytes, 256);
  // The same description in C++.
  KernelDescription k;
  k.name = "k";
  k.grid[0] = k.grid[1] = n / 16, k.block[0] = k.block[1] = 16;
  k.request_bytes = 256;
  AccessDescription a, b, r;
  a.name = "a", a.count = n * n, a.contiguous_lanes = 16;
  b.name = "b", b.count = 64 * n * n, b.footprint = F, b.sweep = F;
  r.name = "r", r.count = n * n, r.l2_resident = true;
  k.accesses = {a, b, r};
  const GpuPhase q = derive_gpu_phase(k, DerivationContext{C, &gpu});
  expect_same_phase(p, q, "keys");
  // Errors name the file's line: sweep on a random read, contiguous_lanes on a strided one.
  EXPECT_THROW(parse(kKernelHead + "    accesses:\n      - {count: n, pattern: random, sweep: 4*n}\n", gpu), InputError);
  EXPECT_THROW(parse(kKernelHead + "    accesses:\n      - {count: n, pattern: strided, stride: 2, contiguous_lanes: 8}\n", gpu), InputError);
  EXPECT_THROW(parse(kKernelHead + "    accesses:\n      - {count: n, space: shared, l2_resident: true}\n", gpu), InputError);
}

// Every `format: 2` example of docs/workload-format.md, and every workload file under
// data/workloads, parses and predicts a finite, positive time with the bundled profile.
TEST(WorkloadFormatDoc, EveryExampleParsesAndPredicts) {
  const Profile profile = load_profile(bundled_profile());
  const GpuCalibration& gpu = profile.require_gpu();
  std::ifstream in(kData + "/../docs/workload-format.md");
  ASSERT_TRUE(in) << "docs/workload-format.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::regex block("```yaml\n([^`]*)```");
  int examples = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block); it != std::sregex_iterator(); ++it) {
    const std::string yaml = (*it)[1];
    if (yaml.rfind("format: 2", 0) != 0) continue;
    ++examples;
    const std::string label = "docs example " + std::to_string(examples);
    try {
      const GpuWorkloadFile f = parse_gpu_workload(yaml, label, gpu);
      const double s = predict_gpu(gpu, f.workload).seconds;
      EXPECT_TRUE(std::isfinite(s) && s > 0) << label;
    } catch (const std::exception& e) {
      ADD_FAILURE() << label << ": " << e.what() << "\n" << yaml;
    }
  }
  EXPECT_GE(examples, 15);  // one per kernel class, at least
  // Every workload file shipped under data/workloads, in either format.
  int files = 0, format2 = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kData + "/workloads")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    try {
      const GpuWorkloadFile f = read_gpu_workload(entry.path().string(), gpu);
      format2 += f.format == 2;
      const double s = predict_gpu(gpu, f.workload).seconds;
      EXPECT_TRUE(std::isfinite(s) && s > 0) << entry.path();
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(files, 7);
  EXPECT_GE(format2, 3);
}

// Every example states, in a comment, what the bundled profile predicts it is bound by (the docs'
// examples on their last line, data/workloads/*.yaml, v2/ and reference/ on theirs), and predicts it.
TEST(WorkloadFormatDoc, EveryExamplePredictsTheBoundItsCommentStates) {
  const Profile profile = load_profile(bundled_profile());
  const GpuCalibration& gpu = profile.require_gpu();
  const std::regex claim("# predicted bound \\(bundled H100 profile\\): ([a-z0-9/]+)");
  const auto check = [&](const std::string& text, const std::string& label, const GpuWorkloadFile& f) {
    std::smatch m;
    if (!std::regex_search(text, m, claim)) {
      ADD_FAILURE() << label << ": no '# predicted bound (bundled H100 profile): …' comment";
      return;
    }
    EXPECT_EQ(predict_gpu(gpu, f.workload, dirty_l2_where_measured(gpu)).bound, m[1].str()) << label;
  };
  std::ifstream in(kData + "/../docs/workload-format.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::regex block("```yaml\n([^`]*)```");
  int examples = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block); it != std::sregex_iterator(); ++it) {
    const std::string yaml = (*it)[1];
    if (yaml.rfind("format: 2", 0) != 0) continue;
    const std::string label = "docs example " + std::to_string(++examples);
    check(yaml, label, parse_gpu_workload(yaml, label, gpu));
  }
  EXPECT_GE(examples, 15);
  int files = 0;
  for (const std::string& dir : {kData + "/workloads", kData + "/workloads/v2", kData + "/workloads/reference"})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      std::ifstream f(entry.path());
      std::stringstream t;
      t << f.rdbuf();
      check(t.str(), entry.path().string(), read_gpu_workload(entry.path().string(), gpu));
    }
  EXPECT_EQ(files, 10);
}

TEST(WorkloadFormatCli, SetSweepsTheParameters) {
  const std::string saxpy = kData + "/workloads/v2/saxpy.yaml";
  const Result r = run({"predict", "workload", saxpy, "--set", "n=1Mi,16Mi,64Mi", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node j = YAML::Load(r.out);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_EQ(j["points"][0]["n"].as<double>(), kMiB);
  EXPECT_EQ(j["points"][2]["n"].as<double>(), 64 * kMiB);
  EXPECT_LT(j["points"][0]["predicted_s"].as<double>(), j["points"][1]["predicted_s"].as<double>());
  EXPECT_LT(j["points"][1]["predicted_s"].as<double>(), j["points"][2]["predicted_s"].as<double>());
  EXPECT_EQ(j["points"][2]["dram_bytes"].as<double>(), 12 * 64 * kMiB);
  EXPECT_GT(j["points"][0]["transfers_s"].as<double>(), 0);
  EXPECT_EQ(j["timing"].as<std::string>(), "single");
  EXPECT_NE(j["prediction_of"].as<std::string>().find("timed with CUDA events"), std::string::npos);
  // The last point is the file as written: the same time as the single prediction.
  const YAML::Node one = YAML::Load(run({"predict", "workload", saxpy, "--format", "json"}).out);
  EXPECT_EQ(one["predicted_s"].as<double>(), j["points"][2]["predicted_s"].as<double>());
  EXPECT_EQ(one["seconds"].as<double>(), one["predicted_s"].as<double>());
  ASSERT_EQ(one["descriptor"].size(), 1u);  // what the reader derived, beside the prediction
  EXPECT_EQ(one["descriptor"][0]["dram_bytes"].as<double>(), 12 * 64 * kMiB);
  EXPECT_EQ(one["descriptor"][0]["loads_in_flight"].as<double>(), 2);
  // Two --set flags: every combination, the first flag varying slowest.
  const std::string gather = ::testing::TempDir() + "/gather.yaml";
  std::ofstream(gather) << "format: 2\nparams: {n: 1Mi, table: 64MiB}\nkernels:\n  - grid: [n/256]\n    block: [256]\n"
                           "    accesses:\n      - {name: idx, count: n}\n"
                           "      - {name: data, count: n, pattern: gather, index: idx, footprint: table}\n";
  const YAML::Node g = YAML::Load(run({"predict", "workload", gather, "--set", "n=1Mi,4Mi", "--set", "table=1MiB,1GiB", "--format", "json"}).out);
  ASSERT_EQ(g["points"].size(), 4u);
  EXPECT_EQ(g["points"][1]["n"].as<double>(), kMiB);
  EXPECT_EQ(g["points"][1]["table"].as<double>(), 1024 * kMiB);
  EXPECT_LT(g["points"][0]["dram_bytes"].as<double>(), g["points"][1]["dram_bytes"].as<double>());  // the table misses L2
  // Bad --set and --timing values are errors naming the flag.
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--set", "m=2"}, {"--set", "n"}, {"--set", "n=2x"}, {"--set", "n=1", "--set", "n=2"}, {"--timing", "warm"}}) {
    std::vector<std::string> args{"predict", "workload", saxpy};
    args.insert(args.end(), bad.begin(), bad.end());
    const Result e = run(args);
    EXPECT_EQ(e.code, 1) << bad[1];
    EXPECT_NE(e.err.find(bad[0]), std::string::npos) << e.err;
  }
  EXPECT_EQ(run({"predict", "workload", kData + "/workloads/saxpy.yaml", "--set", "n=1"}).code, 1);
  // A parameter named like an output field is refused rather than printed twice.
  const std::string clash = ::testing::TempDir() + "/clash.yaml";
  std::ofstream(clash) << "format: 2\nparams: {bound: 1024}\nkernels:\n  - grid: [bound/256]\n    block: [256]\n";
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{{}, {"--set", "bound=2048"}}) {
    std::vector<std::string> args{"predict", "workload", clash};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result c = run(args);
    EXPECT_EQ(c.code, 1);
    EXPECT_NE(c.err.find("params.bound"), std::string::npos) << c.err;
  }
}

TEST(WorkloadFormatCli, TimingSingleAndSteady) {
  const std::string tiny = ::testing::TempDir() + "/tiny.yaml";
  std::ofstream(tiny) << "format: 2\nparams: {n: 1024, launches: 100}\nkernels:\n  - launches: launches\n    grid: [n/256]\n"
                         "    block: [256]\n    accesses:\n      - {name: x, count: n}\n";
  auto predicted = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"predict", "workload", tiny, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return YAML::Load(r.out);
  };
  const YAML::Node single = predicted({}), steady = predicted({"--timing", "steady"});
  EXPECT_EQ(single["timing"].as<std::string>(), "single");
  EXPECT_EQ(steady["timing"].as<std::string>(), "steady");
  EXPECT_NE(steady["prediction_of"].as<std::string>().find("back to back"), std::string::npos);
  EXPECT_NEAR(steady["per_launch_s"].as<double>() * 100, steady["predicted_s"].as<double>(), 1e-12);
  // Back to back, a tiny kernel costs at least the host's launch rate per launch, and twice the
  // launches cost twice as much.
  const Profile profile = load_profile(bundled_profile());
  EXPECT_GE(steady["per_launch_s"].as<double>(), profile.require_gpu().launch->empty_kernel_s * 0.999);
  const YAML::Node twice = predicted({"--timing", "steady", "--set", "launches=200"});
  EXPECT_NEAR(twice["points"][0]["predicted_s"].as<double>() / steady["predicted_s"].as<double>(), 2.0, 0.01);
  // The file's timing key is the default; the flag overrides it.
  std::ofstream(tiny, std::ios::app) << "timing: steady\n";
  EXPECT_EQ(predicted({})["timing"].as<std::string>(), "steady");
  EXPECT_EQ(predicted({"--timing", "single"})["timing"].as<std::string>(), "single");
  // Format 1 files take --timing too.
  const Result f1 = run({"predict", "workload", kData + "/workloads/saxpy.yaml", "--timing", "steady", "--format", "json"});
  ASSERT_EQ(f1.code, 0) << f1.err;
  EXPECT_EQ(YAML::Load(f1.out)["timing"].as<std::string>(), "steady");
}
