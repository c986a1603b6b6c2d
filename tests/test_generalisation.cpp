// The generalisation suite without a GPU: its catalogue and plan, the CPU references against
// naive implementations on small inputs, the recorded-run files, the analysis, and the
// pre-registered signatures (data/workloads/generalisation/): every one parses as YAML with the
// catalogue's parameters, and, where this build has the workload format 2 reader, reads and
// predicts at every size of the suite.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include "perfmodel/kernels/generalisation.hpp"
#include "perfmodel/kernels/generalisation_inputs.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/validate/generalisation.hpp"

#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {
namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;
const std::string kSignatures = kData + "/workloads/generalisation";

double v(std::uint32_t seed, std::uint64_t i) { return gen::value(seed, i); }

// The check's outputs (all of them at these sizes) against a naive implementation's.
void expect_reference(const std::string& kernel, const gen::Params& p, const std::map<std::size_t, double>& naive) {
  const gen::ReferenceCheck c = gen::reference_check(kernel, p);
  ASSERT_EQ(c.count, naive.size()) << kernel;
  for (std::size_t k : gen::checked_outputs(c)) {
    const auto it = naive.find(c.where(k));
    ASSERT_NE(it, naive.end()) << kernel << ": output " << k << " at " << c.where(k) << " is no output of the kernel";
    EXPECT_NEAR(c.expected(k), it->second, 1e-9 * std::max(1.0, std::abs(it->second))) << kernel << " output " << k;
  }
}

TEST(Generalisation, CatalogueCoversTheIssuesClassesWithThirtyOrMoreKernels) {
  const auto& cat = gen::kernel_catalog();
  EXPECT_GE(cat.size(), 30u);
  std::set<std::string> names, classes;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    EXPECT_TRUE(names.insert(cat[i].name).second) << cat[i].name << " twice";
    classes.insert(cat[i].klass);
    EXPECT_EQ(cat[i].half, i >= 93 ? 'H' : i >= 81 ? 'G' : i >= 75 ? 'F' : i >= 65 ? 'E' : i >= 59 ? 'D' : i >= 47 ? 'C' : i % 2 == 0 ? 'A' : 'B') << cat[i].name;
    EXPECT_FALSE(cat[i].sizes.empty()) << cat[i].name;
    EXPECT_FALSE(cat[i].summary.empty()) << cat[i].name;
  }
  for (const char* c : {"streaming", "strided", "gather-scatter", "transpose", "stencil", "reduction", "histogram", "scan",
                        "batched-matmul", "compute", "launch-bound", "occupancy-starved", "register-heavy"})
    EXPECT_TRUE(classes.count(c)) << c;
  EXPECT_EQ(classes.size(), 13u);
  // Every class of two or more kernels is on both sides of the A/B split (halves C to H stand apart).
  for (const std::string& c : classes) {
    int a = 0, b = 0;
    for (const auto& e : cat)
      if (e.klass == c && (e.half == 'A' || e.half == 'B')) (e.half == 'A' ? a : b)++;
    if (a + b >= 2) {
      EXPECT_TRUE(a > 0 && b > 0) << c;
    }
  }
  EXPECT_THROW(gen::kernel_entry("no_such_kernel"), InputError);
}

TEST(Generalisation, EverySizeHasAReference) {
  for (const auto& e : gen::kernel_catalog()) {
    for (const gen::Params& p : e.sizes) EXPECT_NO_THROW(gen::reference_check(e.name, p)) << e.name;
    EXPECT_NO_THROW(gen::reference_check(e.name, e.test_size)) << e.name;
  }
  EXPECT_THROW(gen::reference_check("copy_f32", {{"m", 4}}), InputError);  // n missing
}

TEST(Generalisation, PlanIsDeterministicAndFilters) {
  const std::vector<GenPoint> a = generalisation_plan({}), b = generalisation_plan({});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kernel, b[i].kernel);
    EXPECT_EQ(a[i].params, b[i].params);
  }
  std::size_t sizes = 0;
  for (const auto& e : gen::kernel_catalog()) sizes += e.sizes.size();
  EXPECT_EQ(a.size(), sizes);
  EXPECT_EQ(a.front().kernel, gen::kernel_catalog().front().name);
  EXPECT_EQ(generalisation_plan({}, true).size(), gen::kernel_catalog().size());
  const std::vector<GenPoint> transposes = generalisation_plan({"transpose", "copy_f32"});
  ASSERT_EQ(transposes.size(), 5u);  // copy_f32 at two sizes, three transposes
  EXPECT_EQ(transposes[0].kernel, "copy_f32");
  EXPECT_EQ(transposes[4].kernel, "transpose_tiled_padded");
  EXPECT_THROW(generalisation_plan({"transposes"}), InputError);
}

TEST(Generalisation, ParamsRoundTrip) {
  const gen::Params p{{"n", 1LL << 27}, {"s", 8}};
  EXPECT_EQ(gen::params_string(p), "n=134217728 s=8");
  EXPECT_EQ(gen::parse_params(gen::params_string(p)), p);
  EXPECT_THROW(gen::parse_params("n=12x"), InputError);
  EXPECT_THROW(gen::parse_params("n"), InputError);
  EXPECT_THROW(gen::parse_params("n=1 n=2"), InputError);
  EXPECT_THROW(gen::parse_params(""), InputError);
}

TEST(Generalisation, InputsAreExactInHalfAndPermutationsAreBijections) {
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const double x = v(1, i);
    EXPECT_EQ(gen::round_to_half(x), x);
    EXPECT_GE(x, -2.0);
    EXPECT_LT(x, 2.0);
    EXPECT_EQ(x * 256, std::floor(x * 256));
  }
  for (int bits : {1, 5, 12, 16}) {
    std::vector<char> hit(std::size_t{1} << bits, 0);
    for (std::uint32_t i = 0; i < hit.size(); ++i) {
      const std::uint32_t p = gen::permute(i, bits, 7);
      ASSERT_LT(p, hit.size());
      EXPECT_FALSE(hit[p]) << "bits " << bits << ": " << p << " twice";
      hit[p] = 1;
    }
  }
  std::vector<char> hit(3 * 4096, 0);
  for (std::uint32_t i = 0; i < hit.size(); ++i) {
    const std::uint32_t p = gen::local_permute(i, 12, 8);
    ASSERT_EQ(p / 4096, i / 4096);
    EXPECT_FALSE(hit[p]);
    hit[p] = 1;
    EXPECT_EQ(gen::local_index(i, 12, 6) / 4096, i / 4096);
  }
}

TEST(Generalisation, RoundToHalf) {
  EXPECT_EQ(gen::round_to_half(1.0 + std::ldexp(1.0, -11)), 1.0);                            // tie to even
  EXPECT_EQ(gen::round_to_half(1.0 + 3 * std::ldexp(1.0, -11)), 1.0 + std::ldexp(1.0, -9));  // tie to even, up
  EXPECT_EQ(gen::round_to_half(65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(gen::round_to_half(65520.0)));
  EXPECT_EQ(gen::round_to_half(std::ldexp(1.0, -24)), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(gen::round_to_half(std::ldexp(1.0, -26)), 0.0);
  EXPECT_EQ(gen::round_to_half(0.1), 0.0999755859375);
}

TEST(Generalisation, StreamingAndStridedReferences) {
  const std::size_t n = 64;
  std::map<std::size_t, double> copy, triad, axpy, strided_read, strided_write;
  for (std::size_t i = 0; i < n; ++i) {
    copy[i] = v(1, i);
    triad[i] = v(2, i) + 1.5 * v(3, i);
    axpy[i] = 1.5 * v(1, i) + v(2, i);
    strided_read[i] = v(1, i * 8);
    strided_write[i * 8] = v(1, i);
  }
  expect_reference("copy_f32", {{"n", 64}}, copy);
  expect_reference("starved_copy_132x128", {{"n", 64}}, copy);
  expect_reference("triad_f64", {{"n", 64}}, triad);
  expect_reference("axpy_f32x4", {{"n", 64}}, axpy);
  expect_reference("strided_read_f32", {{"n", 64}, {"s", 8}}, strided_read);
  expect_reference("strided_write_f32", {{"n", 64}, {"s", 8}}, strided_write);
  // FP16: the reference is the exact result rounded once to binary16.
  const gen::ReferenceCheck h = gen::reference_check("axpy_f16x2", {{"n", 64}});
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(h.expected(i), gen::round_to_half(axpy[i]));
  EXPECT_GT(h.bound, 0);
}

TEST(Generalisation, GatherAndScatterReferences) {
  const std::size_t n = 8192;
  std::map<std::size_t, double> gather, local, scatter, scatter_local;
  for (std::size_t i = 0; i < n; ++i) {
    gather[i] = v(1, gen::key(5, i) & 1023);
    local[i] = v(1, gen::local_index(static_cast<std::uint32_t>(i), 12, 6));
    scatter[gen::permute(static_cast<std::uint32_t>(i), 13, 7)] = v(1, i);
    scatter_local[gen::local_permute(static_cast<std::uint32_t>(i), 12, 8)] = v(1, i);
  }
  ASSERT_EQ(scatter.size(), n);  // a permutation: every position written once
  expect_reference("gather_random", {{"n", 8192}, {"m", 1024}}, gather);
  expect_reference("gather_local", {{"n", 8192}}, local);
  expect_reference("scatter_random", {{"n", 8192}}, scatter);
  expect_reference("scatter_local", {{"n", 8192}}, scatter_local);
}

TEST(Generalisation, TransposeAndStencilReferences) {
  const std::size_t n = 32;
  std::vector<double> in(n * n), in3(n * n * n);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = v(1, i);
  for (std::size_t i = 0; i < in3.size(); ++i) in3[i] = v(1, i);
  std::map<std::size_t, double> t, s2, s3;
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      t[c * n + r] = in[r * n + c];
      if (r > 0 && r < n - 1 && c > 0 && c < n - 1)
        s2[r * n + c] = 0.5 * in[r * n + c] + 0.125 * (in[(r - 1) * n + c] + in[(r + 1) * n + c] + in[r * n + c - 1] + in[r * n + c + 1]);
    }
  for (std::size_t z = 1; z < n - 1; ++z)
    for (std::size_t y = 1; y < n - 1; ++y)
      for (std::size_t x = 1; x < n - 1; ++x) {
        const std::size_t i = (z * n + y) * n + x;
        s3[i] = 0.25 * in3[i] + 0.125 * (in3[i - 1] + in3[i + 1] + in3[i - n] + in3[i + n] + in3[i - n * n] + in3[i + n * n]);
      }
  expect_reference("transpose_tiled", {{"n", 32}}, t);
  expect_reference("stencil2d_5pt_shared", {{"n", 32}}, s2);
  expect_reference("stencil3d_7pt", {{"n", 32}}, s3);
}

TEST(Generalisation, ReductionHistogramScanReferences) {
  const std::size_t n = 5000;
  double sum = 0, isum = 0;
  std::map<std::size_t, double> h256, h8, scan;
  for (std::size_t b = 0; b < 256; ++b) h256[b] = 0;
  for (std::size_t b = 0; b < 8; ++b) h8[b] = 0;
  long long run = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += v(1, i);
    isum += gen::key(4, i) & 15u;
    h256[gen::key(9, i) % 256] += 1;
    h8[gen::key(9, i) % 8] += 1;
    scan[i] = static_cast<double>(run += gen::key(10, i) & 7u);
  }
  expect_reference("reduce_shared_tree", {{"n", 5000}}, {{0, sum}});
  expect_reference("tiny_reduce_1block", {{"n", 5000}}, {{0, sum}});
  expect_reference("reduce_atomic_i32", {{"n", 5000}}, {{0, isum}});
  expect_reference("hist_global_256", {{"n", 5000}}, h256);
  expect_reference("hist_global_8", {{"n", 5000}}, h8);
  expect_reference("scan_i32", {{"n", 5000}}, scan);
}

TEST(Generalisation, BatchedProductReferences) {
  for (std::size_t d : {4, 16}) {
    const std::size_t batch = 3;
    std::map<std::size_t, double> c;
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t r = 0; r < d; ++r)
        for (std::size_t col = 0; col < d; ++col) {
          double s = 0;
          for (std::size_t j = 0; j < d; ++j) s += v(1, b * d * d + r * d + j) * v(2, b * d * d + j * d + col);
          c[b * d * d + r * d + col] = s;
        }
    expect_reference(d == 4 ? "bgemm4_regs" : "bgemm16_shared", {{"batch", 3}}, c);
  }
}

TEST(Generalisation, ComputeChainReferences) {
  // y = fma(y, 0.75, c) from y = c converges to the fixed point 4c.
  for (const char* k : {"fma_chain_f32", "fma_chain_f64"}) {
    const gen::ReferenceCheck r = gen::reference_check(k, {{"n", 16}, {"k", 1024}});
    for (std::size_t i = 0; i < 16; ++i) EXPECT_NEAR(r.expected(i), 4 * v(1, i), 1e-5) << k;
  }
  const gen::ReferenceCheck ilp = gen::reference_check("fma_ilp4_f32", {{"n", 16}, {"k", 1024}});
  for (std::size_t i = 0; i < 16; ++i) EXPECT_NEAR(ilp.expected(i), 16 * v(1, i), 1e-4);
  const gen::ReferenceCheck f16 = gen::reference_check("fma_chain_f16x2", {{"n", 16}, {"k", 1024}});
  EXPECT_EQ(f16.count, 32u);  // n pairs
  for (std::size_t e = 0; e < 32; ++e) {
    EXPECT_EQ(gen::round_to_half(f16.expected(e)), f16.expected(e));
    EXPECT_NEAR(f16.expected(e), 4 * v(1, e), 0.02);
  }
  // y = sin(y) + c: the result satisfies its fixed-point equation when the chain has converged.
  const gen::ReferenceCheck s = gen::reference_check("sinf_chain", {{"n", 16}, {"k", 64}});
  const gen::ReferenceCheck s_longer = gen::reference_check("sinf_chain", {{"n", 16}, {"k", 65}});
  for (std::size_t i = 0; i < 16; ++i) EXPECT_NEAR(std::sin(s.expected(i)) + v(1, i), s_longer.expected(i), 1e-12);
  const gen::ReferenceCheck m = gen::reference_check("int_mix_chain", {{"n", 4}, {"k", 2}});
  std::uint32_t y = gen::key(11, 3);
  y = (y ^ (y >> 15)) * 0x2c1b3c6du + 0x9e3779b9u;
  y = (y ^ (y >> 15)) * 0x2c1b3c6du + 0x9e3779b9u;
  EXPECT_EQ(m.expected(3), static_cast<double>(y));
  // 64 accumulators: acc_j → 4c + (j/64 − 4c)·0.75^k; k = 0 leaves the sum of j/64.
  const gen::ReferenceCheck rh = gen::reference_check("regheavy_fma64", {{"n", 4}, {"k", 0}});
  EXPECT_DOUBLE_EQ(rh.expected(2), 63.0 * 64 / 2 / 64);
  std::map<std::size_t, double> reversed;
  const std::size_t n = 256, t = n / 64;
  for (std::size_t j = 0; j < 16; ++j)
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t q = 0; q < 4; ++q) reversed[4 * (i + j * t) + q] = v(1, 4 * (i + (15 - j) * t) + q);
  expect_reference("regheavy_stream16", {{"n", 256}}, reversed);
  expect_reference("tiny_fill_1block", {{"n", 4}}, {{0, 0.0}, {1, 0.5}, {2, 1.0}, {3, 1.5}});
}

// Half C (pre-registered after halves A and B had been looked at): ten or more kernels, in the
// classes the model's rules claim to cover, each with a reference checked here on a small size.
TEST(Generalisation, HalfCIsFreshAndHeldOut) {
  std::vector<std::string> c_names;
  std::set<std::string> c_classes;
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'C') c_names.push_back(e.name), c_classes.insert(e.klass);
  EXPECT_GE(c_names.size(), 10u);
  EXPECT_LE(c_names.size(), 12u);
  EXPECT_GE(c_classes.size(), 8u);
}

TEST(Generalisation, HalfCReferences) {
  const std::size_t n = 600;
  std::map<std::size_t, double> stream, copy, scale, strided_read, strided_write, gather, blocks, hist, maxima;
  for (std::size_t b = 0; b < 64; ++b) hist[b] = 0;
  for (std::size_t a = 0; a < 1024; ++a) maxima[a] = 0;
  for (std::size_t i = 0; i < n; ++i) {
    stream[i] = v(1, i) + v(2, i) + v(3, i);
    copy[i] = v(1, i);
    scale[i] = 1.5 * v(1, i);
    strided_read[i] = v(1, i * 4);
    strided_write[i * 2] = v(1, i);
    gather[i] = v(1, gen::key(5, i) & 255);
    blocks[i / 256] += v(1, i);
    hist[gen::key(9, i) % 64] += 1;
    const std::uint32_t kk = gen::key(12, i);
    maxima[kk & 1023u] = std::max(maxima[kk & 1023u], static_cast<double>(kk >> 10));
  }
  ASSERT_EQ(blocks.size(), 3u);  // 600 elements: two full blocks and a partial one
  expect_reference("stream_3r2w_f32", {{"n", 600}}, stream);
  expect_reference("gridstride_copy_132x256", {{"n", 600}}, copy);
  expect_reference("tiny_scale_64", {{"n", 600}}, scale);
  expect_reference("strided_read_f64", {{"n", 600}, {"s", 4}}, strided_read);
  expect_reference("strided_write_s2_f32", {{"n", 600}, {"s", 2}}, strided_write);
  expect_reference("gather_random_32m", {{"n", 600}, {"m", 256}}, gather);
  expect_reference("reduce_block_atomic_f64", {{"n", 600}}, blocks);
  expect_reference("hist_f32_64", {{"n", 600}}, hist);
  expect_reference("atomic_max_i32_1024", {{"n", 600}}, maxima);

  const std::size_t m = 16;
  std::vector<double> in(m * m);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = v(1, i);
  std::map<std::size_t, double> s9;
  for (std::size_t r = 1; r < m - 1; ++r)
    for (std::size_t c = 1; c < m - 1; ++c) {
      double around = 0;
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          if (dr != 0 || dc != 0) around += in[(r + dr) * m + c + dc];
      s9[r * m + c] = 0.5 * in[r * m + c] + 0.0625 * around;
    }
  expect_reference("stencil2d_9pt", {{"n", 16}}, s9);

  // y = 0.25·exp(sin y) + c: one more step of the chain maps its result onto the longer chain's.
  const gen::ReferenceCheck se = gen::reference_check("sfu_sinexp_chain", {{"n", 16}, {"k", 128}});
  const gen::ReferenceCheck se_longer = gen::reference_check("sfu_sinexp_chain", {{"n", 16}, {"k", 129}});
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_NEAR(0.25 * std::exp(std::sin(se.expected(i))) + v(1, i), se_longer.expected(i), 1e-12);
  const gen::ReferenceCheck x = gen::reference_check("int_xorshift_chain", {{"n", 4}, {"k", 2}});
  std::uint32_t y = gen::key(11, 3);
  for (int s = 0; s < 2; ++s) {
    y ^= y << 13;
    y ^= y >> 17;
    y = y * 0x9e3779b1u + 7u;
  }
  EXPECT_EQ(x.expected(3), static_cast<double>(y));
}

// Half D (pre-registered after the atomics model was changed on half C): six atomic kernels, each
// with a reference checked here on a small size.
TEST(Generalisation, HalfDIsFreshAndHeldOut) {
  std::vector<std::string> d_names;
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'D') d_names.push_back(e.name);
  EXPECT_EQ(d_names, (std::vector<std::string>{"reduce_block_atomic_f32", "reduce_warp_slot_f64", "hist_global_32", "hist_f64_16",
                                                "scatter_add_f32_4m", "counter_i32_runtime_uniform"}));
}

TEST(Generalisation, HalfDReferences) {
  const std::size_t n = 600;
  std::map<std::size_t, double> blocks, warps, hist32, hist16, scatter, counters;
  for (std::size_t b = 0; b < 32; ++b) hist32[b] = 0;
  for (std::size_t b = 0; b < 16; ++b) hist16[b] = 0;
  for (std::size_t y = 0; y < (std::size_t{1} << 20); ++y) scatter[y] = 0;
  for (std::size_t c = 0; c < 4; ++c) counters[c] = 0;
  for (std::size_t i = 0; i < n; ++i) {
    blocks[i / 256] += v(1, i);
    warps[i / 32] += v(1, i);
    hist32[gen::key(13, i) % 32] += 1;
    hist16[gen::key(14, i) % 16] += 1;
    scatter[gen::key(15, i) & 0xfffffu] += v(1, i);
    counters[(i / 256) % 4] += 1;
  }
  ASSERT_EQ(blocks.size(), 3u);  // two full blocks and a partial one
  ASSERT_EQ(warps.size(), 19u);  // 18 full warps and a partial one
  expect_reference("reduce_block_atomic_f32", {{"n", 600}}, blocks);
  expect_reference("reduce_warp_slot_f64", {{"n", 600}}, warps);
  expect_reference("hist_global_32", {{"n", 600}}, hist32);
  expect_reference("hist_f64_16", {{"n", 600}}, hist16);
  expect_reference("scatter_add_f32_4m", {{"n", 600}}, scatter);
  // Blocks 0, 1, 2 on counters 0, 1, 2 (256, 256 and 88 threads); counter 3 untouched.
  EXPECT_EQ(counters, (std::map<std::size_t, double>{{0, 256}, {1, 256}, {2, 88}, {3, 0}}));
  expect_reference("counter_i32_runtime_uniform", {{"n", 600}}, counters);
  // Five blocks: block 4 wraps to counter 0.
  const gen::ReferenceCheck c = gen::reference_check("counter_i32_runtime_uniform", {{"n", 4 * 256 + 10}});
  EXPECT_EQ(c.expected(0), 266);
  EXPECT_EQ(c.expected(3), 256);
}

// Half E (pre-registered after half D): stencils with neighbour reuse, gathers with locality, an
// integer chain and two reductions, each with a reference checked here on a small size.
TEST(Generalisation, HalfEIsFreshAndHeldOut) {
  std::vector<std::string> e_names;
  std::set<std::string> e_classes;
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'E') e_names.push_back(e.name), e_classes.insert(e.klass);
  EXPECT_EQ(e_names, (std::vector<std::string>{"stencil1d_3pt_f32", "stencil2d_5pt_f64_16x16", "stencil2d_box9_64x4",
                                                "stencil3d_7pt_zmarch", "gather_near_512", "gather4_l2_16m", "gather_random_1g",
                                                "xorshift32_chain_64", "reduce_tree512_atomic_f32", "reduce_two_pass"}));
  EXPECT_EQ(e_classes, (std::set<std::string>{"stencil", "gather-scatter", "compute", "reduction"}));
  // Every test size fits its launch shape (the runs reject the others).
  EXPECT_EQ(gen::kernel_entry("stencil2d_5pt_f64_16x16").test_size.at("n") % 16, 0);
  EXPECT_EQ(gen::kernel_entry("stencil2d_box9_64x4").test_size.at("n") % 64, 0);
  EXPECT_EQ(gen::kernel_entry("stencil3d_7pt_zmarch").test_size.at("n") % 32, 0);
  EXPECT_EQ(gen::kernel_entry("gather4_l2_16m").test_size.at("n") % 4, 0);
}

TEST(Generalisation, HalfEInputs) {
  // The near index stays within 512 of i (clamped at the ends) and uses the whole offset range.
  const std::uint32_t n = 1u << 16;
  long long lowest = 0, highest = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const long long off = static_cast<long long>(gen::near_index(i, n, 16)) - i;
    ASSERT_LT(gen::near_index(i, n, 16), n);
    ASSERT_GE(off, -512);
    ASSERT_LE(off, 511);
    if (i >= 512 && i + 512 < n) lowest = std::min(lowest, off), highest = std::max(highest, off);
  }
  EXPECT_EQ(lowest, -512);
  EXPECT_EQ(highest, 511);
  const std::uint32_t off0 = gen::key(16, 0) & 1023u;  // element 0: the offset above 512, clamped to 0 below
  EXPECT_EQ(gen::near_index(0, n, 16), off0 >= 512 ? off0 - 512 : 0u);
  // xorshift32 from the state 1 (thread 0): 270369 after one round (Marsaglia's example output).
  EXPECT_EQ(gen::xorshift32(0, 1), 270369u);
  EXPECT_EQ(gen::xorshift32(0, 0), 1u);
}

TEST(Generalisation, HalfEReferences) {
  const std::size_t n = 600;
  std::map<std::size_t, double> s1, near, g4, g1, xs;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && i < n - 1) s1[i] = 0.5 * v(1, i) + 0.25 * (v(1, i - 1) + v(1, i + 1));
    long long j = static_cast<long long>(i) + static_cast<long long>(gen::key(16, i) % 1024) - 512;
    j = std::clamp(j, 0LL, static_cast<long long>(n) - 1);
    near[i] = v(1, static_cast<std::size_t>(j));
    g4[i] = v(1, gen::key(17, i) % 4096);
    g1[i] = v(1, gen::key(18, i) % 4096);
    std::uint32_t y = static_cast<std::uint32_t>(i) + 1;
    for (int r = 0; r < 64; ++r) y ^= y << 13, y ^= y >> 17, y ^= y << 5;
    xs[i] = y;
    sum += v(1, i);
  }
  expect_reference("stencil1d_3pt_f32", {{"n", 600}}, s1);
  expect_reference("gather_near_512", {{"n", 600}}, near);
  expect_reference("gather4_l2_16m", {{"n", 600}, {"m", 4096}}, g4);
  expect_reference("gather_random_1g", {{"n", 600}, {"m", 4096}}, g1);
  expect_reference("xorshift32_chain_64", {{"n", 600}, {"k", 64}}, xs);
  expect_reference("reduce_tree512_atomic_f32", {{"n", 600}}, {{0, sum}});
  expect_reference("reduce_two_pass", {{"n", 600}}, {{0, sum}});
  EXPECT_EQ(gen::reference_check("reduce_two_pass", {{"n", 600}}).bound, 0);
  EXPECT_GT(gen::reference_check("reduce_tree512_atomic_f32", {{"n", 600}}).bound, 0);  // the FP32 total rounds
  // The 2-D and 3-D stencils: interior points only.
  const std::size_t m = 20;
  std::map<std::size_t, double> s5, box, s7;
  for (std::size_t r = 1; r < m - 1; ++r)
    for (std::size_t c = 1; c < m - 1; ++c) {
      const std::size_t i = r * m + c;
      s5[i] = 0.5 * v(1, i) + 0.125 * (v(1, i - m) + v(1, i + m) + v(1, i - 1) + v(1, i + 1));
      double b = 0;
      for (std::size_t rr = r - 1; rr <= r + 1; ++rr)
        for (std::size_t cc = c - 1; cc <= c + 1; ++cc) b += v(1, rr * m + cc);
      box[i] = b / 8;
    }
  for (std::size_t z = 1; z < m - 1; ++z)
    for (std::size_t y = 1; y < m - 1; ++y)
      for (std::size_t x = 1; x < m - 1; ++x) {
        const std::size_t i = (z * m + y) * m + x;
        s7[i] = 0.25 * v(1, i) + 0.125 * (v(1, i - 1) + v(1, i + 1) + v(1, i - m) + v(1, i + m) + v(1, i - m * m) + v(1, i + m * m));
      }
  expect_reference("stencil2d_5pt_f64_16x16", {{"n", 20}}, s5);
  expect_reference("stencil2d_box9_64x4", {{"n", 20}}, box);
  expect_reference("stencil3d_7pt_zmarch", {{"n", 20}}, s7);
}

// Half F (pre-registered after half E): random DRAM accesses, each with a reference checked
// here on a small size.
TEST(Generalisation, HalfFIsFreshAndHeldOut) {
  std::vector<std::string> f_names;
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'F') {
      f_names.push_back(e.name);
      SCOPED_TRACE(e.name);
      EXPECT_EQ(e.klass, "gather-scatter");
      // Every table is a power of two (the masks and the permutation need it) and far beyond the
      // H100's 50 MiB L2: at least 256 MiB.
      for (const gen::Params& p : {e.sizes.at(0), e.test_size}) {
        const long long m = gen::param(p, "m");
        EXPECT_EQ(m & (m - 1), 0);
        EXPECT_LE(gen::param(p, "n"), m);
      }
      const long long element = e.name == "gather_random_f64_1g" ? 8 : 4;
      EXPECT_GE(element * gen::param(e.sizes.at(0), "m"), 256LL << 20);
      EXPECT_EQ(e.sizes.size(), 1u);
    }
  EXPECT_EQ(f_names, (std::vector<std::string>{"gather_random_256m", "gather_random_4g", "gather_random_f64_1g", "gather2_random_1g",
                                                "hash_gather_1g", "random_rmw_256m"}));
  // The largest: a 4 GiB table with a 128 MiB index and a 128 MiB output (fits an 80 GB H100).
  EXPECT_EQ(4 * gen::param(gen::kernel_entry("gather_random_4g").sizes.at(0), "m"), 4LL << 30);
  // Tables or update counts the runs cannot take are rejected before anything runs.
  EXPECT_THROW(gen::reference_check("random_rmw_256m", {{"n", 1 << 10}, {"m", 3 << 8}}), InputError);
  EXPECT_THROW(gen::reference_check("random_rmw_256m", {{"n", 1 << 12}, {"m", 1 << 10}}), InputError);
  EXPECT_THROW(gen::reference_check("hash_gather_1g", {{"n", 1 << 10}, {"m", 1000}}), InputError);
}

TEST(Generalisation, HalfFInputs) {
  // hash32 is a bijection of the 32-bit words (0 stays 0) and spreads consecutive indices over a
  // masked table as uniform draws do: 2^16 indices into 2^16 slots fill 1 − 1/e of them (63.2 %).
  EXPECT_EQ(gen::hash32(0), 0u);
  std::set<std::uint32_t> hashes, slots;
  for (std::uint32_t i = 0; i < (1u << 16); ++i) hashes.insert(gen::hash32(i)), slots.insert(gen::hash32(i) & 0xffffu);
  EXPECT_EQ(hashes.size(), 1u << 16);
  EXPECT_NEAR(static_cast<double>(slots.size()) / (1u << 16), 1 - std::exp(-1.0), 0.01);
  // Neighbouring indices land far apart: no two of a warp's 32 addresses share a 32-byte sector
  // (8 floats) in the first 2^16 warps at the 1 GiB table's mask.
  int shared_sector = 0;
  for (std::uint32_t w = 0; w < (1u << 16); ++w) {
    std::set<std::uint32_t> sectors;
    for (std::uint32_t l = 0; l < 32; ++l) sectors.insert((gen::hash32(w * 32 + l) & ((1u << 28) - 1)) / 8);
    shared_sector += 32 - static_cast<int>(sectors.size());
  }
  EXPECT_LE(shared_sector, 64);  // 2^16 warps × 496 pairs / 2^25 sectors ≈ 1 expected
  // random_rmw's index: the first n values of a permutation of [0, m), so no two updates meet.
  std::set<std::uint32_t> words;
  for (std::uint32_t i = 0; i < (1u << 14); ++i) words.insert(gen::permute(i, 16, 24));
  EXPECT_EQ(words.size(), 1u << 14);
  EXPECT_LT(*words.rbegin(), 1u << 16);
}

TEST(Generalisation, HalfFReferences) {
  const std::size_t n = 600;
  const std::uint32_t mask = 4095;
  std::map<std::size_t, double> g256, g4, g64, g2, hash, rmw;
  for (std::size_t i = 0; i < n; ++i) {
    g256[i] = v(1, gen::key(19, i) % 4096);
    g4[i] = v(1, gen::key(20, i) % 4096);
    g64[i] = v(1, gen::key(21, i) % 4096);
    g2[i] = v(1, gen::key(22, i) % 4096) + v(1, gen::key(23, i) % 4096);
    hash[i] = v(1, gen::hash32(static_cast<std::uint32_t>(i)) & mask);
    const std::uint32_t word = gen::permute(static_cast<std::uint32_t>(i), 12, 24);
    rmw[word] = v(2, word) + v(1, i);
  }
  ASSERT_EQ(rmw.size(), n);  // every update at its own word
  const gen::Params p{{"n", 600}, {"m", 4096}};
  expect_reference("gather_random_256m", p, g256);
  expect_reference("gather_random_4g", p, g4);
  expect_reference("gather_random_f64_1g", p, g64);
  expect_reference("gather2_random_1g", p, g2);
  expect_reference("hash_gather_1g", p, hash);
  expect_reference("random_rmw_256m", p, rmw);
  for (const char* k : {"gather_random_256m", "gather_random_4g", "gather_random_f64_1g", "gather2_random_1g", "hash_gather_1g",
                        "random_rmw_256m"})
    EXPECT_EQ(gen::reference_check(k, p).bound, 0) << k;  // every half F check is exact
}

// Half G (pre-registered after half F): random reads and writes beyond the L2, two integer chains,
// three stencils and two reductions, each with a reference checked here on a small size.
TEST(Generalisation, HalfGIsFreshAndHeldOut) {
  std::vector<std::string> g_names;
  std::set<std::string> g_classes;
  std::set<std::string> earlier;
  for (const auto& e : gen::kernel_catalog()) {
    if (e.half == 'G')
      g_names.push_back(e.name), g_classes.insert(e.klass);
    else
      earlier.insert(e.name);
  }
  EXPECT_EQ(g_names, (std::vector<std::string>{"gather_random_2g", "gather_random_96m_f64", "hash_gather2_512m", "scatter_random_1g",
                                                "rmw_random_1g", "int_rotl_add_chain", "int_lcg_and_chain", "stencil1d_5pt_f32",
                                                "stencil2d_5pt_f32_64x4", "stencil3d_7pt_f64", "reduce_shared_tree_256_f64",
                                                "reduce_shuffle_block1024_f32"}));
  EXPECT_EQ(g_classes, (std::set<std::string>{"gather-scatter", "compute", "stencil", "reduction"}));
  for (const std::string& name : g_names) EXPECT_FALSE(earlier.count(name)) << name;
  // The random tables lie beyond the H100's 50 MiB L2: 96 MiB to 2 GiB.
  const auto bytes = [](const char* k, long long element) { return element * gen::param(gen::kernel_entry(k).sizes.at(0), "m"); };
  EXPECT_EQ(bytes("gather_random_2g", 4), 2LL << 30);
  EXPECT_EQ(bytes("gather_random_96m_f64", 8), 96LL << 20);
  EXPECT_EQ(bytes("hash_gather2_512m", 4), 512LL << 20);
  EXPECT_EQ(bytes("scatter_random_1g", 4), 1LL << 30);
  EXPECT_EQ(bytes("rmw_random_1g", 4), 1LL << 30);
  for (const char* k : {"scatter_random_1g", "rmw_random_1g"})
    for (const gen::Params& p : {gen::kernel_entry(k).sizes.at(0), gen::kernel_entry(k).test_size}) EXPECT_LE(gen::param(p, "n"), gen::param(p, "m")) << k;
  // The 96 MiB table is not a power of two (its index is scaled, not masked), at the test size too.
  EXPECT_NE(gen::param(gen::kernel_entry("gather_random_96m_f64").test_size, "m") & (gen::param(gen::kernel_entry("gather_random_96m_f64").test_size, "m") - 1), 0);
  // Every test size fits its launch shape (the runs reject the others).
  EXPECT_EQ(gen::kernel_entry("stencil2d_5pt_f32_64x4").test_size.at("n") % 64, 0);
  EXPECT_EQ(gen::kernel_entry("stencil3d_7pt_f64").test_size.at("n") % 32, 0);
  EXPECT_EQ(gen::kernel_entry("stencil3d_7pt_f64").sizes.at(0).at("n") % 32, 0);
  // Tables or write counts the runs cannot take are rejected before anything runs.
  EXPECT_THROW(gen::reference_check("scatter_random_1g", {{"n", 1 << 10}, {"m", 3 << 8}}), InputError);
  EXPECT_THROW(gen::reference_check("rmw_random_1g", {{"n", 1 << 12}, {"m", 1 << 10}}), InputError);
  EXPECT_THROW(gen::reference_check("hash_gather2_512m", {{"n", 1 << 10}, {"m", 1000}}), InputError);
  EXPECT_THROW(gen::reference_check("gather_random_2g", {{"n", 1 << 10}, {"m", 1000}}), InputError);
  EXPECT_THROW(gen::reference_check("stencil1d_5pt_f32", {{"n", 4}}), InputError);
}

TEST(Generalisation, HalfGInputs) {
  // key_below is uniform over [0, m) for an m that is no power of two: every slot of 12 Ki is hit,
  // none beyond, and each about 16 times in 12·2^14 draws.
  const std::uint32_t m = 12u << 10;
  std::vector<int> hits(m, 0);
  for (std::uint64_t i = 0; i < 16ull * m; ++i) {
    const std::uint32_t j = gen::key_below(26, i, m);
    ASSERT_LT(j, m);
    ++hits[j];
  }
  EXPECT_GT(*std::min_element(hits.begin(), hits.end()), 0);
  EXPECT_LT(*std::max_element(hits.begin(), hits.end()), 48);
  EXPECT_EQ(gen::key_below(26, 5, 1u << 16), gen::key(26, 5) >> 16);  // at a power of two: the key's high bits
  // hash_gather2's two words per thread: 2i and 2i + 1 hash to distinct words, so the 2^17 reads of
  // 2^16 threads take 2^17 distinct hashes (hash32 is a bijection).
  std::set<std::uint32_t> h;
  for (std::uint32_t i = 0; i < (1u << 16); ++i) h.insert(gen::hash32(2 * i)), h.insert(gen::hash32(2 * i + 1));
  EXPECT_EQ(h.size(), 1u << 17);
  // The 1 GiB permutations' first 2^14 values: distinct and inside the table.
  for (std::uint32_t seed : {27u, 28u}) {
    std::set<std::uint32_t> words;
    for (std::uint32_t i = 0; i < (1u << 14); ++i) words.insert(gen::permute(i, 28, seed));
    EXPECT_EQ(words.size(), 1u << 14);
    EXPECT_LT(*words.rbegin(), 1u << 28);
  }
}

TEST(Generalisation, HalfGReferences) {
  const std::size_t n = 600;
  const std::uint32_t mask = 4095;
  std::map<std::size_t, double> g2, g96, h2, sc, rmw, s1, rotl, lcg, partials;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    g2[i] = v(1, gen::key(25, i) % 4096);
    g96[i] = v(1, (static_cast<std::uint64_t>(gen::key(26, i)) * 3000) >> 32);
    h2[i] = v(1, gen::hash32(static_cast<std::uint32_t>(2 * i)) & mask) + v(1, gen::hash32(static_cast<std::uint32_t>(2 * i + 1)) & mask);
    sc[gen::permute(static_cast<std::uint32_t>(i), 12, 27)] = v(1, i);
    const std::uint32_t word = gen::permute(static_cast<std::uint32_t>(i), 12, 28);
    rmw[word] = v(2, word) + v(1, i);
    if (i >= 2 && i < n - 2) s1[i] = 0.5 * v(1, i) + 0.125 * (v(1, i - 1) + v(1, i + 1)) + 0.0625 * (v(1, i - 2) + v(1, i + 2));
    std::uint32_t y = gen::key(29, i);
    for (int r = 0; r < 256; ++r) y = ((y << 7) | (y >> 25)) + (y ^ 0x9e3779b9u);
    rotl[i] = y;
    y = gen::key(30, i);
    for (int r = 0; r < 512; ++r) y = (y * 1664525u + 1013904223u) % 0x80000000u;
    lcg[i] = y;
    partials[i / 256] += v(1, i);
    sum += v(1, i);
  }
  ASSERT_EQ(sc.size(), n);  // every write at its own word
  ASSERT_EQ(rmw.size(), n);
  const gen::Params p{{"n", 600}, {"m", 4096}};
  expect_reference("gather_random_2g", p, g2);
  expect_reference("gather_random_96m_f64", {{"n", 600}, {"m", 3000}}, g96);
  expect_reference("hash_gather2_512m", p, h2);
  expect_reference("scatter_random_1g", p, sc);
  expect_reference("rmw_random_1g", p, rmw);
  expect_reference("stencil1d_5pt_f32", {{"n", 600}}, s1);
  expect_reference("int_rotl_add_chain", {{"n", 600}, {"k", 256}}, rotl);
  expect_reference("int_lcg_and_chain", {{"n", 600}, {"k", 512}}, lcg);
  expect_reference("reduce_shared_tree_256_f64", {{"n", 600}}, partials);
  expect_reference("reduce_shuffle_block1024_f32", {{"n", 600}}, {{0, sum}});
  // Every LCG state keeps to 31 bits.
  for (const auto& [i, y] : lcg) EXPECT_LT(y, 2147483648.0) << i;
  // The 2-D and 3-D stencils: interior points only.
  const std::size_t m = 20;
  std::map<std::size_t, double> s5, s7;
  for (std::size_t r = 1; r < m - 1; ++r)
    for (std::size_t c = 1; c < m - 1; ++c) {
      const std::size_t i = r * m + c;
      s5[i] = 0.5 * v(1, i) + 0.125 * (v(1, i - m) + v(1, i + m) + v(1, i - 1) + v(1, i + 1));
    }
  for (std::size_t z = 1; z < m - 1; ++z)
    for (std::size_t y = 1; y < m - 1; ++y)
      for (std::size_t x = 1; x < m - 1; ++x) {
        const std::size_t i = (z * m + y) * m + x;
        s7[i] = 0.25 * v(1, i) + 0.125 * (v(1, i - 1) + v(1, i + 1) + v(1, i - m) + v(1, i + m) + v(1, i - m * m) + v(1, i + m * m));
      }
  expect_reference("stencil2d_5pt_f32_64x4", {{"n", 20}}, s5);
  expect_reference("stencil3d_7pt_f64", {{"n", 20}}, s7);
  // Every check but the FP32 atomic total is exact.
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'G') {
      EXPECT_EQ(gen::reference_check(e.name, e.test_size).bound > 0, e.name == "reduce_shuffle_block1024_f32") << e.name;
    }
}

// Half H (pre-registered after half G): random scatters, shared-memory trees, a random gather, an
// integer chain, a 3×3 stencil and an FP64 pair stream, each with a reference checked here on a
// small size.
TEST(Generalisation, HalfHIsFreshAndHeldOut) {
  std::vector<std::string> h_names;
  std::set<std::string> h_classes;
  std::set<std::string> earlier;
  for (const auto& e : gen::kernel_catalog()) {
    if (e.half == 'H')
      h_names.push_back(e.name), h_classes.insert(e.klass);
    else
      earlier.insert(e.name);
  }
  EXPECT_EQ(h_names, (std::vector<std::string>{"scatter_random_256m", "scatter_random_2g", "scatter_random_f64_1g",
                                                "scatter_dense_perm_512m", "hash_scatter_1g", "reduce_tree512_partials_f32",
                                                "reduce_tree128_atomic_f64", "reduce_tree256_x4_f32", "gather_random_512m",
                                                "int_xor_mul_chain", "stencil2d_9pt_f32_32x8", "scale_f64x2"}));
  EXPECT_EQ(h_classes, (std::set<std::string>{"gather-scatter", "reduction", "compute", "stencil", "streaming"}));
  for (const std::string& name : h_names) EXPECT_FALSE(earlier.count(name)) << name;
  // The random targets lie beyond the H100's 50 MiB L2: 256 MiB to 2 GiB.
  const auto bytes = [](const char* k, long long element) { return element * gen::param(gen::kernel_entry(k).sizes.at(0), "m"); };
  EXPECT_EQ(bytes("scatter_random_256m", 4), 256LL << 20);
  EXPECT_EQ(bytes("scatter_random_2g", 4), 2LL << 30);
  EXPECT_EQ(bytes("scatter_random_f64_1g", 8), 1LL << 30);
  EXPECT_EQ(bytes("hash_scatter_1g", 4), 1LL << 30);
  EXPECT_EQ(bytes("gather_random_512m", 4), 512LL << 20);
  EXPECT_EQ(4 * gen::param(gen::kernel_entry("scatter_dense_perm_512m").sizes.at(0), "n"), 512LL << 20);
  for (const char* k : {"scatter_random_256m", "scatter_random_2g", "scatter_random_f64_1g", "hash_scatter_1g", "gather_random_512m"})
    for (const gen::Params& p : {gen::kernel_entry(k).sizes.at(0), gen::kernel_entry(k).test_size}) EXPECT_LE(gen::param(p, "n"), gen::param(p, "m")) << k;
  EXPECT_EQ(gen::param(gen::kernel_entry("scatter_random_2g").sizes.at(0), "n"), 1LL << 25);
  EXPECT_EQ(gen::param(gen::kernel_entry("scatter_random_f64_1g").sizes.at(0), "n"), 1LL << 24);
  // Every test size fits its launch shape (the runs reject the others).
  EXPECT_EQ(gen::kernel_entry("stencil2d_9pt_f32_32x8").test_size.at("n") % 32, 0);
  EXPECT_EQ(gen::kernel_entry("stencil2d_9pt_f32_32x8").sizes.at(0).at("n") % 32, 0);
  EXPECT_EQ(gen::kernel_entry("reduce_tree256_x4_f32").test_size.at("n") % 4, 0);
  // Tables, write counts and sizes the runs cannot take are rejected before anything runs.
  EXPECT_THROW(gen::reference_check("scatter_random_256m", {{"n", 1 << 10}, {"m", 3 << 8}}), InputError);
  EXPECT_THROW(gen::reference_check("scatter_random_f64_1g", {{"n", 1 << 12}, {"m", 1 << 10}}), InputError);
  EXPECT_THROW(gen::reference_check("scatter_dense_perm_512m", {{"n", 3000}}), InputError);
  EXPECT_THROW(gen::reference_check("hash_scatter_1g", {{"n", 1 << 10}, {"m", 1000}}), InputError);
  EXPECT_THROW(gen::reference_check("gather_random_512m", {{"n", 1 << 10}, {"m", 1000}}), InputError);
  EXPECT_THROW(gen::reference_check("reduce_tree256_x4_f32", {{"n", 1022}}), InputError);
  EXPECT_THROW(gen::reference_check("stencil2d_9pt_f32_32x8", {{"n", 2}}), InputError);
}

TEST(Generalisation, HalfHInputs) {
  // The four scatters' permutations: the first 2^14 values of each distinct and inside its target.
  for (const auto& [seed, bits] : std::vector<std::pair<std::uint32_t, int>>{
           {gen::kScatter256mSeed, 26}, {gen::kScatter2gSeed, 29}, {gen::kScatterF64Seed, 27}, {gen::kDensePermSeed, 27}}) {
    std::set<std::uint32_t> words;
    for (std::uint32_t i = 0; i < (1u << 14); ++i) words.insert(gen::permute(i, bits, seed));
    EXPECT_EQ(words.size(), 1u << 14) << seed;
    EXPECT_LT(*words.rbegin(), 1u << bits) << seed;
  }
  // The dense scatter's full permutation at a small size: every word once.
  std::set<std::uint32_t> all;
  for (std::uint32_t i = 0; i < (1u << 16); ++i) all.insert(gen::permute(i, 16, gen::kDensePermSeed));
  EXPECT_EQ(all.size(), 1u << 16);
  // hash_scatter's 2^14 hashed words over 2^16: some threads collide (about 2^14·(2^14 − 1)/2^17 ≈
  // 2^11 pairs), so the check must not depend on which of them writes last.
  std::set<std::uint32_t> hashed;
  for (std::uint32_t i = 0; i < (1u << 14); ++i) hashed.insert(gen::hash32(i) & 0xffffu);
  EXPECT_LT(hashed.size(), 1u << 14);
  EXPECT_GT(hashed.size(), (1u << 14) - (1u << 12));
  // The xor-multiply round is a bijection (xorshift and an odd multiplier): 2^16 inputs, 2^16 outputs.
  EXPECT_EQ(gen::kXorMulMultiplier % 2, 1u);
  std::set<std::uint32_t> rounds;
  for (std::uint32_t y = 0; y < (1u << 16); ++y) rounds.insert((y ^ (y >> 15)) * gen::kXorMulMultiplier);
  EXPECT_EQ(rounds.size(), 1u << 16);
}

TEST(Generalisation, HalfHReferences) {
  const std::size_t n = 1000;
  std::map<std::size_t, double> s256, s2g, sf64, dense, hs, p512, p4, gth, xm, scale;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s256[gen::permute(static_cast<std::uint32_t>(i), 12, gen::kScatter256mSeed)] = v(1, i);
    s2g[gen::permute(static_cast<std::uint32_t>(i), 12, gen::kScatter2gSeed)] = v(1, i);
    sf64[gen::permute(static_cast<std::uint32_t>(i), 12, gen::kScatterF64Seed)] = v(1, i);
    const std::uint32_t word = gen::hash32(static_cast<std::uint32_t>(i)) & 4095u;
    hs[word] = word;
    p512[i / 512] += v(1, i);
    p4[i / 1024] += v(1, i);
    sum += v(1, i);
    gth[i] = v(1, gen::key(gen::kHalfHGatherSeed, i) % 4096);
    std::uint32_t y = gen::key(gen::kHalfHChainSeed, i);
    for (int r = 0; r < 256; ++r) {
      y ^= y >> 15;
      y *= 0x2c1b3c6du;
    }
    xm[i] = y;
  }
  for (std::size_t i = 0; i < 1024; ++i) dense[gen::permute(static_cast<std::uint32_t>(i), 10, gen::kDensePermSeed)] = v(1, i);
  for (std::size_t i = 0; i < 2 * n; ++i) scale[i] = 1.5 * v(1, i);
  ASSERT_EQ(s256.size(), n);  // every write at its own word
  ASSERT_EQ(dense.size(), 1024u);  // every word written once
  ASSERT_LT(hs.size(), n);  // some hashed writes collide at this size
  const gen::Params p{{"n", 1000}, {"m", 4096}};
  expect_reference("scatter_random_256m", p, s256);
  expect_reference("scatter_random_2g", p, s2g);
  expect_reference("scatter_random_f64_1g", p, sf64);
  expect_reference("scatter_dense_perm_512m", {{"n", 1024}}, dense);
  // hash_scatter checks one output per thread, colliding threads at the same word: n checks over
  // fewer words, each the word's own index.
  const gen::ReferenceCheck hc = gen::reference_check("hash_scatter_1g", p);
  ASSERT_EQ(hc.count, n);
  for (std::size_t k : gen::checked_outputs(hc)) {
    const auto it = hs.find(hc.where(k));
    ASSERT_NE(it, hs.end()) << "output " << k << " at " << hc.where(k) << " is no output of the kernel";
    EXPECT_EQ(hc.expected(k), it->second) << k;
  }
  expect_reference("reduce_tree512_partials_f32", {{"n", 1000}}, p512);
  expect_reference("reduce_tree256_x4_f32", {{"n", 1000}}, p4);
  expect_reference("reduce_tree128_atomic_f64", {{"n", 1000}}, {{0, sum}});
  expect_reference("gather_random_512m", p, gth);
  expect_reference("int_xor_mul_chain", {{"n", 1000}, {"k", 256}}, xm);
  expect_reference("scale_f64x2", {{"n", 1000}}, scale);
  // The 3×3 box mean on 20×20: interior points, the nine-point sum rounded once to FP32 times the
  // FP32 1/9 (not the exact ninth).
  const std::size_t m = 20;
  std::map<std::size_t, double> box;
  for (std::size_t r = 1; r < m - 1; ++r)
    for (std::size_t c = 1; c < m - 1; ++c) {
      const std::size_t i = r * m + c;
      float s = 0.0f;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) s += static_cast<float>(v(1, static_cast<std::size_t>(static_cast<long long>(i) + dy * 20 + dx)));
      box[i] = static_cast<double>(s * (1.0f / 9.0f));
    }
  expect_reference("stencil2d_9pt_f32_32x8", {{"n", 20}}, box);
  // Every half H check is exact.
  for (const auto& e : gen::kernel_catalog())
    if (e.half == 'H') {
      EXPECT_EQ(gen::reference_check(e.name, e.test_size).bound, 0) << e.name;
    }
}

TEST(Generalisation, CheckedOutputsSpreadOverLargeOutputs) {
  gen::ReferenceCheck c = gen::reference_check("copy_f32", {{"n", 1LL << 24}});
  const std::vector<std::size_t> k = gen::checked_outputs(c);
  EXPECT_GE(k.size(), c.samples);
  EXPECT_EQ(k.back(), c.count - 1);
  EXPECT_TRUE(std::is_sorted(k.begin(), k.end()));
  EXPECT_LT(k.front(), c.count / c.samples);
  EXPECT_EQ(k, gen::checked_outputs(c));
  c.count = 10;
  EXPECT_EQ(gen::checked_outputs(c).size(), 10u);
}

GenRunRecord sample_run() {
  GenRunRecord run;
  run.provenance.device_name = "NVIDIA H100 80GB HBM3";
  run.provenance.date_utc = "2026-11-26T20:00:00Z";
  run.provenance.command = "perfmodel validate --suite generalisation --out x";
  run.device.multiprocessors = 132;
  run.wall_s = 61.5;
  for (const char* k : {"copy_f32", "copy_f32x4"}) {
    GenMeasurement m;
    m.kernel = k;
    m.klass = "streaming";
    m.half = gen::kernel_entry(k).half;
    m.params = {{"n", 1LL << 27}};
    m.check_error = 0;
    m.check_bound = 0;
    m.checked_outputs = 1048577;
    m.steady_runs = 20;
    m.single_s = {4e-4, 4.2e-4, 4.1e-4};
    m.steady_s = {3.9e-4, 3.95e-4, 4e-4};
    m.phases.push_back({k, 524288, 256, {10, 0, 1024}, 8});
    run.measurements.push_back(m);
  }
  return run;
}

TEST(Generalisation, RecordedRunRoundTripsAndRejectsBadFiles) {
  const std::string dir = (std::filesystem::temp_directory_path() / "perfmodel-gen-record").string();
  std::filesystem::remove_all(dir);
  const GenRunRecord run = sample_run();
  write_generalisation_run(dir, run);
  const GenRunRecord back = read_generalisation_run(dir);
  ASSERT_EQ(back.measurements.size(), 2u);
  EXPECT_EQ(back.provenance.device_name, run.provenance.device_name);
  EXPECT_EQ(back.device.multiprocessors, 132.0);
  EXPECT_DOUBLE_EQ(back.wall_s, 61.5);
  EXPECT_EQ(back.measurements[1].kernel, "copy_f32x4");
  EXPECT_EQ(back.measurements[1].half, 'B');
  EXPECT_EQ(back.measurements[1].single_s, run.measurements[1].single_s);
  EXPECT_EQ(back.measurements[1].steady_s, run.measurements[1].steady_s);
  ASSERT_EQ(back.measurements[0].phases.size(), 1u);
  EXPECT_EQ(back.measurements[0].phases[0].blocks, 524288);
  EXPECT_EQ(back.measurements[0].phases[0].occupancy_blocks_per_sm, 8);
  // A failed check may not carry times; the error names the file and line.
  std::string text = read_file(dir + "/measurements.csv");
  const auto pos = text.find("copy_f32x4,streaming,B,n=134217728,0,0");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, std::string("copy_f32x4,streaming,B,n=134217728,0,0").size(), "copy_f32x4,streaming,B,n=134217728,1,0");
  write_file_atomically(dir + "/measurements.csv", text);
  try {
    read_generalisation_run(dir);
    FAIL() << "a failed check was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("measurements.csv:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("check_error"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Generalisation, AnalysisSplitsTheErrorsByHalf) {
  const GenRunRecord run = sample_run();
  const GenPredictor predict = [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "copy_f32" ? 4.4e-4 : 3.69e-4;  // +7.3 %, −10 %
    p.bound = "dram";
    return p;
  };
  const GenAnalysis a = analyse_generalisation(run, predict);
  ASSERT_TRUE(a.predicted);
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_NEAR(*a.rows[0].error_single, 4.4e-4 / 4.1e-4 - 1, 1e-12);
  EXPECT_FALSE(a.rows[0].error_steady.has_value());  // no steady prediction: null, not 0
  EXPECT_EQ(a.single_a.count, 1u);
  EXPECT_EQ(a.single_b.count, 1u);
  EXPECT_NEAR(a.single_b.median, 0.1, 1e-12);
  EXPECT_EQ(a.single_c.count, 0u);  // no half C kernel in this run: its row says 0, not a zero error
  EXPECT_EQ(a.single_d.count, 0u);
  EXPECT_EQ(a.single_e.count, 0u);
  EXPECT_EQ(a.single_f.count, 0u);
  EXPECT_EQ(a.single_g.count, 0u);
  EXPECT_EQ(a.single_h.count, 0u);
  EXPECT_EQ(a.steady_all.count, 0u);
  const std::string dir = (std::filesystem::temp_directory_path() / "perfmodel-gen-report").string();
  std::filesystem::remove_all(dir);
  const auto files = write_generalisation_report(dir, run, a, "profile: test", "perfmodel validate --suite generalisation --from x --out y");
  EXPECT_EQ(files.size(), 2u);
  const std::string md = read_file(dir + "/report.md");
  EXPECT_NE(md.find("| copy_f32x4 | streaming | B |"), std::string::npos);
  EXPECT_NE(md.find("half B (held out)"), std::string::npos);
  EXPECT_NE(md.find("| single | half C (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| single | half D (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| single | half E (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| steady | half E (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| single | half F (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| steady | half F (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| single | half G (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| steady | half G (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| single | half H (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  EXPECT_NE(md.find("| steady | half H (fresh, held out) | 0 | - | - | - |"), std::string::npos);
  const std::string csv = read_file(dir + "/predictions.csv");
  EXPECT_NE(csv.find("copy_f32,streaming,A,n=134217728,"), std::string::npos);
  // A half D kernel's error lands in half D's statistics alone.
  GenRunRecord with_d = run;
  GenMeasurement d = run.measurements[0];
  d.kernel = "hist_global_32";
  d.klass = "histogram";
  d.half = gen::kernel_entry(d.kernel).half;
  ASSERT_EQ(d.half, 'D');
  with_d.measurements.push_back(d);
  const GenAnalysis ad = analyse_generalisation(with_d, [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "hist_global_32" ? 2.05e-4 : 4.1e-4;  // −50 % for the half D kernel
    return p;
  });
  EXPECT_EQ(ad.single_d.count, 1u);
  EXPECT_NEAR(ad.single_d.median, 0.5, 1e-12);
  EXPECT_EQ(ad.single_c.count, 0u);
  EXPECT_EQ(ad.single_a.count + ad.single_b.count, 2u);
  EXPECT_EQ(ad.single_e.count, 0u);
  // And a half E kernel's in half E's alone.
  GenRunRecord with_e = run;
  GenMeasurement e = run.measurements[0];
  e.kernel = "stencil3d_7pt_zmarch";
  e.klass = "stencil";
  e.params = {{"n", 512}};
  e.half = gen::kernel_entry(e.kernel).half;
  ASSERT_EQ(e.half, 'E');
  with_e.measurements.push_back(e);
  const GenAnalysis ae = analyse_generalisation(with_e, [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "stencil3d_7pt_zmarch" ? 6.15e-4 : 4.1e-4;  // +50 % for the half E kernel
    p.steady_s = m.kernel == "stencil3d_7pt_zmarch" ? 3.95e-4 * 1.25 : 3.95e-4;
    return p;
  });
  EXPECT_EQ(ae.single_e.count, 1u);
  EXPECT_NEAR(ae.single_e.median, 0.5, 1e-12);
  EXPECT_EQ(ae.steady_e.count, 1u);
  EXPECT_NEAR(ae.steady_e.median, 0.25, 1e-12);
  EXPECT_EQ(ae.single_d.count + ae.single_c.count + ae.single_f.count, 0u);
  EXPECT_EQ(ae.single_a.count + ae.single_b.count, 2u);
  // And a half F kernel's in half F's alone.
  GenRunRecord with_f = run;
  GenMeasurement f = run.measurements[0];
  f.kernel = "random_rmw_256m";
  f.klass = "gather-scatter";
  f.params = {{"n", 1LL << 24}, {"m", 1LL << 26}};
  f.half = gen::kernel_entry(f.kernel).half;
  ASSERT_EQ(f.half, 'F');
  with_f.measurements.push_back(f);
  const GenAnalysis af = analyse_generalisation(with_f, [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "random_rmw_256m" ? 4.1e-4 * 0.7 : 4.1e-4;  // −30 % for the half F kernel
    p.steady_s = m.kernel == "random_rmw_256m" ? 3.95e-4 * 0.9 : 3.95e-4;
    return p;
  });
  EXPECT_EQ(af.single_f.count, 1u);
  EXPECT_NEAR(af.single_f.median, 0.3, 1e-12);
  EXPECT_EQ(af.steady_f.count, 1u);
  EXPECT_NEAR(af.steady_f.median, 0.1, 1e-12);
  EXPECT_EQ(af.single_e.count + af.single_d.count + af.single_c.count + af.single_g.count, 0u);
  EXPECT_EQ(af.single_a.count + af.single_b.count, 2u);
  // And a half G kernel's in half G's alone.
  GenRunRecord with_g = run;
  GenMeasurement gm = run.measurements[0];
  gm.kernel = "stencil3d_7pt_f64";
  gm.klass = "stencil";
  gm.params = {{"n", 384}};
  gm.half = gen::kernel_entry(gm.kernel).half;
  ASSERT_EQ(gm.half, 'G');
  with_g.measurements.push_back(gm);
  const GenAnalysis ag = analyse_generalisation(with_g, [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "stencil3d_7pt_f64" ? 4.1e-4 * 1.2 : 4.1e-4;  // +20 % for the half G kernel
    p.steady_s = m.kernel == "stencil3d_7pt_f64" ? 3.95e-4 * 0.6 : 3.95e-4;
    return p;
  });
  EXPECT_EQ(ag.single_g.count, 1u);
  EXPECT_NEAR(ag.single_g.median, 0.2, 1e-12);
  EXPECT_EQ(ag.steady_g.count, 1u);
  EXPECT_NEAR(ag.steady_g.median, 0.4, 1e-12);
  EXPECT_EQ(ag.single_f.count + ag.single_e.count + ag.single_d.count + ag.single_c.count + ag.single_h.count, 0u);
  EXPECT_EQ(ag.single_a.count + ag.single_b.count, 2u);
  // And a half H kernel's in half H's alone.
  GenRunRecord with_h = run;
  GenMeasurement hm = run.measurements[0];
  hm.kernel = "scale_f64x2";
  hm.params = {{"n", 1LL << 26}};
  hm.half = gen::kernel_entry(hm.kernel).half;
  ASSERT_EQ(hm.half, 'H');
  with_h.measurements.push_back(hm);
  const GenAnalysis ah = analyse_generalisation(with_h, [](const GenMeasurement& m) {
    GenPrediction p;
    p.single_s = m.kernel == "scale_f64x2" ? 4.1e-4 * 0.75 : 4.1e-4;  // −25 % for the half H kernel
    p.steady_s = m.kernel == "scale_f64x2" ? 3.95e-4 * 1.05 : 3.95e-4;
    return p;
  });
  EXPECT_EQ(ah.single_h.count, 1u);
  EXPECT_NEAR(ah.single_h.median, 0.25, 1e-12);
  EXPECT_EQ(ah.steady_h.count, 1u);
  EXPECT_NEAR(ah.steady_h.median, 0.05, 1e-12);
  EXPECT_EQ(ah.single_g.count + ah.single_f.count + ah.single_e.count + ah.single_d.count + ah.single_c.count, 0u);
  EXPECT_EQ(ah.single_a.count + ah.single_b.count, 2u);
  // Without a predictor: the measured table alone, and why.
  const GenAnalysis none = analyse_generalisation(run, GenPredictor{}, "no reader");
  EXPECT_FALSE(none.predicted);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(write_generalisation_report(dir, run, none, "", "c").size(), 1u);
  EXPECT_NE(read_file(dir + "/report.md").find("none in this report (no reader)"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The pre-registered signatures: one per kernel, each a format-2 file whose params name the
// catalogue's parameters (the suite passes the measured sizes as parameter values).
TEST(GeneralisationSignatures, OnePerKernelWithTheCataloguesParams) {
  std::set<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(kSignatures))
    if (f.path().extension() == ".yaml") files.insert(f.path().stem().string());
  std::set<std::string> kernels;
  for (const auto& e : gen::kernel_catalog()) kernels.insert(e.name);
  EXPECT_EQ(files, kernels);
  for (const auto& e : gen::kernel_catalog()) {
    const std::string path = kSignatures + "/" + e.name + ".yaml";
    SCOPED_TRACE(path);
    const YAML::Node doc = YAML::LoadFile(path);
    EXPECT_EQ(doc["format"].as<int>(), 2);
    ASSERT_TRUE(doc["params"].IsMap());
    for (const gen::Params& p : e.sizes)
      for (const auto& [key, value] : p) EXPECT_TRUE(doc["params"][key]) << "params lacks " << key;
    ASSERT_TRUE(doc["kernels"].IsSequence());
    EXPECT_GE(doc["kernels"].size(), 1u);
    for (const YAML::Node& k : doc["kernels"]) {
      EXPECT_TRUE(k["grid"].IsSequence());
      EXPECT_TRUE(k["block"].IsSequence());
      EXPECT_TRUE(k["registers"]) << "the compiler's register count is part of the signature";
    }
  }
}

// Every signature reads and predicts at every size of the suite.
TEST(GeneralisationSignatures, ReadAndPredictAtEverySize) {
  const Profile profile = load_profile(kData + "/profiles/nvidia-h100-80gb-hbm3.yaml");
  const GpuCalibration& gpu = profile.require_gpu();
  for (const GenPoint& point : generalisation_plan({})) {
    const std::string path = kSignatures + "/" + point.kernel + ".yaml";
    SCOPED_TRACE(path + " " + gen::params_string(point.params));
    WorkloadParams set;
    for (const auto& [k, value] : point.params) set[k] = static_cast<double>(value);
    const GpuWorkloadFile file = read_gpu_workload(path, gpu, set);
    EXPECT_EQ(file.format, 2);
    EXPECT_GT(predict_gpu(gpu, file.workload).seconds, 0);
  }
  // And at every kernel's test size (the GPU test's), half C's included.
  for (const auto& e : gen::kernel_catalog()) {
    SCOPED_TRACE(e.name + " " + gen::params_string(e.test_size));
    WorkloadParams set;
    for (const auto& [k, value] : e.test_size) set[k] = static_cast<double>(value);
    const GpuWorkloadFile file = read_gpu_workload(kSignatures + "/" + e.name + ".yaml", gpu, set);
    EXPECT_GT(predict_gpu(gpu, file.workload).seconds, 0);
  }
  std::string why;
  const std::optional<GenPredictor> predictor = format2_predictor(profile, kSignatures, why);
  ASSERT_TRUE(predictor.has_value()) << why;
  GenMeasurement m;
  m.kernel = "tiny_axpy_4k";
  m.params = {{"n", 4096}};
  const GenPrediction p = (*predictor)(m);
  ASSERT_TRUE(p.single_s.has_value() && p.steady_s.has_value());
  EXPECT_GT(*p.single_s, 0);
  EXPECT_GT(*p.steady_s, 0);
}

// The first recorded run (H100, 2026-11-26) re-analysed with this build: the errors stay at the
// level the model reached (a little headroom), so a later change that loses it fails here. Half A
// chose the model's rules; half B was held out (docs/generalisation-suite.md, "The record").
// The run was predicted from the then bundled profile (GPU 110d06eb, 2026-11-23; its report.md
// names it by date), kept beside the other machines' calibrations: a later bundled profile does
// not change what this record holds.
const std::string kRecordedRunProfile = kData + "/profiles/other/2026-11-23-h100-110d06eb/nvidia-h100-80gb-hbm3.yaml";

// A recorded generalisation run predicted from `profile_path` with the signatures in `signatures`.
GenAnalysis analyse_recorded(const std::string& run_dir, const std::string& profile_path, const std::string& signatures) {
  const Profile profile = load_profile(profile_path);
  std::string why;
  const std::optional<GenPredictor> predictor = format2_predictor(profile, signatures, why);
  EXPECT_TRUE(predictor.has_value()) << why;
  return analyse_generalisation(read_generalisation_run(run_dir), predictor ? *predictor : GenPredictor{}, why);
}

GenAnalysis recorded_analysis(const std::string& signatures) {
  const std::string run = kData + "/validation/2026-11-26-h100-generalisation";
  EXPECT_NE(read_file(run + "/report.md").find("measured " + load_profile(kRecordedRunProfile).provenance.date_utc), std::string::npos)
      << "the recorded run names another profile than " << kRecordedRunProfile;
  return analyse_recorded(run, kRecordedRunProfile, signatures);
}

TEST(GeneralisationRecorded, PreRegisteredSignaturesHoldTheReachedErrors) {
  const GenAnalysis a = recorded_analysis(kSignatures);
  ASSERT_TRUE(a.predicted);
  EXPECT_EQ(a.single_a.count, 26u);
  EXPECT_EQ(a.single_b.count, 23u);
  // Half A: 10.9 / 86.2 / 122 % before the rules it chose; 2.5 / 10.8 / 122 % after (the one
  // miss left, tiny_reduce_1block, is its signature's: version 2 below). Its tree's serial phase,
  // derived since its `chain` no longer keeps it out, takes it to 136.3 % (re-analysed).
  EXPECT_LE(a.single_a.median, 0.035);
  EXPECT_LE(a.single_a.p90, 0.13);
  EXPECT_LE(a.single_a.max, 1.37);
  // Half B, held out: 10.2 / 67.2 / 101.5 % before; 8.9 / 63.9 / 341 % after (scatter_local:
  // its version-1 signature cannot say its addresses stay in a 16 KiB window).
  EXPECT_LE(a.single_b.median, 0.095);
  EXPECT_LE(a.single_b.p90, 0.66);
  EXPECT_LE(a.single_a.count + a.single_b.count, a.rows.size());
  for (const GenRow& row : a.rows) {
    const std::string& k = row.measurement.kernel;
    ASSERT_TRUE(row.error_single.has_value()) << k;
    // The kernels whose misses the rules addressed stay within 12 % (half A).
    if (k == "hist_global_8" || k == "reduce_atomic_i32" || k == "scatter_random" || k == "transpose_naive" ||
        k == "gather_l2" || k == "strided_write_f32" || k == "starved_triad_32x256" || k == "sfu_sin_chain") {
      EXPECT_LE(std::abs(*row.error_single), 0.12) << k;
    }
    // The held-out starved copy (102 % before) follows the writes-in-flight rule chosen on half A.
    if (k == "starved_copy_132x128") {
      EXPECT_LE(std::abs(*row.error_single), 0.08) << k;
    }
  }
}

TEST(GeneralisationRecorded, CorrectedSignaturesHoldTheReachedErrors) {
  const GenAnalysis a = recorded_analysis(kData + "/workloads/generalisation-v2");
  ASSERT_TRUE(a.predicted);
  // Version 2 (three corrected signatures): half A 2.5 / 10.8 / 33.4 %, half B 8.5 / 59.0 / 92.0 %.
  EXPECT_LE(a.single_a.median, 0.035);
  EXPECT_LE(a.single_a.p90, 0.13);
  EXPECT_LE(a.single_a.max, 0.37);
  EXPECT_LE(a.single_b.median, 0.095);
  EXPECT_LE(a.single_b.p90, 0.62);
  EXPECT_LE(a.single_b.max, 0.95);
}

// The 2026-11-27 run (GPU 6fc1c3de) predicted from the 2026-11-27 calibration of another machine
// (GPU a07c6e1d, the bundled profile since): half D's six atomic kernels were measured there for
// the first time (pre-registered in 616db54), after the atomics model was chosen; with that profile
// median 10.0 %, p90 28.4 %, max 31.7 %; half C 6.2 / 38.8 / 67.4 %; its atomics within 11 %.
TEST(GeneralisationRecorded, HalfDHeldOutAfterTheAtomicsModel) {
  const GenAnalysis a = analyse_recorded(kData + "/validation/2026-11-27-h100-a07c6e1d/generalisation",
                                         kData + "/profiles/other/2026-11-27-h100-a07c6e1d/nvidia-h100-80gb-hbm3.yaml", kSignatures);
  ASSERT_TRUE(a.predicted);
  EXPECT_EQ(a.single_d.count, 6u);
  EXPECT_LE(a.single_d.median, 0.11);
  EXPECT_LE(a.single_d.p90, 0.30);
  EXPECT_LE(a.single_d.max, 0.33);
  EXPECT_LE(a.single_c.median, 0.07);
  EXPECT_LE(a.single_c.p90, 0.40);
  for (const GenRow& row : a.rows) {
    const std::string& k = row.measurement.kernel;
    if (k == "hist_f32_64" || k == "atomic_max_i32_1024" || k == "reduce_block_atomic_f64" || k == "hist_global_8" ||
        k == "reduce_atomic_i32" || k == "hist_global_256" || k == "reduce_shared_tree") {
      ASSERT_TRUE(row.error_single.has_value()) << k;
      EXPECT_LE(std::abs(*row.error_single), 0.13) << k;
    }
  }
}

// Each named kernel is in the analysis with a single-launch |error| at most its bound.
void expect_single_errors_within(const GenAnalysis& a, const std::map<std::string, double>& bounds) {
  std::size_t seen = 0;
  for (const GenRow& row : a.rows) {
    const auto it = bounds.find(row.measurement.kernel);
    if (it == bounds.end()) continue;
    ++seen;
    ASSERT_TRUE(row.error_single.has_value()) << it->first;
    EXPECT_LE(std::abs(*row.error_single), it->second) << it->first;
  }
  EXPECT_EQ(seen, bounds.size());
}

// The 2026-11-27 run on GPU fa2202fb, predicted from its own calibration: the stencils whose
// neighbour loads hit L1 stream at their centre load's DRAM slots (docs/workload-format.md, "DRAM
// loads in flight"). Before that rule: stencil1d_3pt_f32 −21.9 %, stencil2d_5pt −27.6 %,
// stencil3d_7pt_zmarch −25.6 %, half E 23.6 / 37.5 / 48.0 %; with it −6.7, −18.5, −14.2 % and
// half E 18.9 / 37.5 / 48.0 %.
TEST(GeneralisationRecorded, StencilNeighboursTakeNoDramSlot) {
  const GenAnalysis a = analyse_recorded(kData + "/validation/2026-11-27-h100-fa2202fb/generalisation",
                                         kData + "/profiles/other/2026-11-27-h100-fa2202fb/nvidia-h100-80gb-hbm3.gpu.yaml", kSignatures);
  ASSERT_TRUE(a.predicted);
  EXPECT_EQ(a.single_e.count, 10u);
  EXPECT_LE(a.single_e.median, 0.20);
  const std::map<std::string, double> reached = {{"stencil1d_3pt_f32", 0.08}, {"stencil2d_5pt", 0.20}, {"stencil3d_7pt_zmarch", 0.16}};
  expect_single_errors_within(a, reached);
}

// Half G (12 kernels pre-registered in 12391e8 before any GPU ran them) first measured on GPU
// 7f47636c, 2026-11-27, predicted from that machine's calibration a minute before, after the day's
// four model changes (integer pipes, DRAM slots of neighbour loads, a block's serial tree phase,
// the random-read rate as user gathers issue it), none chosen on it: as it came out median 9.7 %,
// p90 32.8 %, max 36.7 %; its random reads and read-modify-write within 7 %, its rotate-add chain
// within 1 %; half F (the random kernels the rate's benchmark was redesigned after) 2.8 / 7.5 / 7.7 %.
TEST(GeneralisationRecorded, HalfGAsItCameOut) {
  const GenAnalysis a = analyse_recorded(kData + "/validation/2026-11-27-h100-7f47636c/generalisation",
                                         kData + "/profiles/other/2026-11-27-h100-7f47636c/nvidia-h100-80gb-hbm3.yaml", kSignatures);
  ASSERT_TRUE(a.predicted);
  EXPECT_EQ(a.single_g.count, 12u);
  EXPECT_LE(a.single_g.median, 0.10);
  EXPECT_LE(a.single_g.p90, 0.34);
  EXPECT_LE(a.single_g.max, 0.38);
  EXPECT_LE(a.single_f.median, 0.03);
  EXPECT_LE(a.single_f.max, 0.08);
  const std::map<std::string, double> reached = {{"gather_random_2g", 0.03}, {"gather_random_96m_f64", 0.07}, {"hash_gather2_512m", 0.06},
                                                 {"rmw_random_1g", 0.03},    {"int_rotl_add_chain", 0.02}};
  expect_single_errors_within(a, reached);
}

// Half H (12 kernels pre-registered in 90f821c) first measured on GPU 8d3aff77, 2026-11-27,
// predicted from that machine's calibration minutes before, after the two changes chosen on half G
// (random scatters' partial write-backs at the measured write rate; a block's tree phase whatever
// the signature's chain): as it came out median 2.0 %, p90 10.4 %, max 20.4 %; its five scatters
// within 8.3 %, its three trees within 10.7 %.
TEST(GeneralisationRecorded, HalfHAsItCameOut) {
  const GenAnalysis a = analyse_recorded(kData + "/validation/2026-11-27-h100-8d3aff77/generalisation",
                                         kData + "/profiles/other/2026-11-27-h100-8d3aff77/nvidia-h100-80gb-hbm3.yaml", kSignatures);
  ASSERT_TRUE(a.predicted);
  EXPECT_EQ(a.single_h.count, 12u);
  EXPECT_LE(a.single_h.median, 0.025);
  EXPECT_LE(a.single_h.p90, 0.11);
  EXPECT_LE(a.single_h.max, 0.21);
  EXPECT_LE(a.single_g.p90, 0.23);
  expect_single_errors_within(a, {{"scatter_random_256m", 0.03},
                                  {"scatter_random_2g", 0.02},
                                  {"scatter_random_f64_1g", 0.02},
                                  {"scatter_dense_perm_512m", 0.09},
                                  {"hash_scatter_1g", 0.02},
                                  {"reduce_tree512_partials_f32", 0.06},
                                  {"reduce_tree128_atomic_f64", 0.11},
                                  {"reduce_tree256_x4_f32", 0.05}});
}

// Version 2 differs from version 1 only in the corrected files, each of which says so.
TEST(GeneralisationSignatures, VersionTwoDiffersOnlyInItsCorrectedFiles) {
  const std::set<std::string> corrected = {"tiny_reduce_1block", "gather_local", "scatter_local"};
  const std::string v2 = kData + "/workloads/generalisation-v2";
  for (const auto& e : gen::kernel_catalog()) {
    if (e.half >= 'C') continue;  // halves C to F were pre-registered after version 2: no version 2 of them
    SCOPED_TRACE(e.name);
    const std::string one = read_file(kSignatures + "/" + e.name + ".yaml"), two = read_file(v2 + "/" + e.name + ".yaml");
    if (corrected.count(e.name)) {
      EXPECT_NE(one, two);
      EXPECT_EQ(two.rfind("# Version 2 of the signature of " + e.name, 0), 0u);
    } else {
      EXPECT_EQ(one, two);
    }
  }
}

}  // namespace
}  // namespace perfmodel
