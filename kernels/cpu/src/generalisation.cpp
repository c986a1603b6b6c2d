#include "perfmodel/kernels/generalisation.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "perfmodel/kernels/generalisation_inputs.hpp"
#include "perfmodel/model/errors.hpp"

namespace perfmodel::gen {
namespace {

constexpr long long kP20 = 1LL << 20;

std::vector<KernelEntry> build_catalog() {
  std::vector<KernelEntry> v;
  auto add = [&](std::string name, std::string klass, std::string summary, std::vector<Params> sizes, Params test) {
    KernelEntry e;
    e.name = std::move(name);
    e.klass = std::move(klass);
    e.half = v.size() % 2 == 0 ? 'A' : 'B';
    e.summary = std::move(summary);
    e.sizes = std::move(sizes);
    e.test_size = std::move(test);
    v.push_back(std::move(e));
  };
  const Params n27{{"n", 1LL << 27}}, small{{"n", 1LL << 16}};
  // Streaming: one element (or one vector) per thread, 256 threads per block.
  add("copy_f32", "streaming", "b[i] = a[i], FP32, one scalar load per thread", {{{"n", 1LL << 22}}, n27}, small);
  add("copy_f32x4", "streaming", "b[i] = a[i], FP32 as float4 (16-byte loads), n/4 threads", {n27}, small);
  add("scale_f32", "streaming", "b[i] = 1.5·a[i], FP32", {n27}, small);
  add("add_f32", "streaming", "c[i] = a[i] + b[i], FP32", {n27}, small);
  add("triad_f32", "streaming", "a[i] = b[i] + 1.5·c[i], FP32 (STREAM triad)", {{{"n", 1LL << 22}}, n27}, small);
  add("triad_f64", "streaming", "a[i] = b[i] + 1.5·c[i], FP64", {{{"n", 1LL << 26}}}, small);
  add("axpy_f32", "streaming", "y[i] = 1.5·x[i] + y[i] in place, FP32", {n27}, small);
  add("axpy_f32x4", "streaming", "y = 1.5·x + y in place, FP32 as float4, n/4 threads", {n27}, small);
  add("axpy_f64", "streaming", "y = 1.5·x + y in place, FP64", {{{"n", 1LL << 26}}}, small);
  add("axpy_f16", "streaming", "y = 1.5·x + y in place, FP16 (__half, 2-byte loads)", {{{"n", 1LL << 28}}}, small);
  add("axpy_f16x2", "streaming", "y = 1.5·x + y in place, FP16 as __half2 (4-byte loads, paired FMA), n/2 threads",
      {{{"n", 1LL << 28}}}, small);
  // Strided: the stride on one side only.
  add("strided_read_f32", "strided", "b[i] = a[i·s], s = 8: strided reads, coalesced writes", {{{"n", 1LL << 24}, {"s", 8}}},
      {{"n", 1LL << 12}, {"s", 8}});
  add("strided_write_f32", "strided", "b[i·s] = a[i], s = 8: coalesced reads, strided writes", {{{"n", 1LL << 24}, {"s", 8}}},
      {{"n", 1LL << 12}, {"s", 8}});
  // Gathers and scatters through an index array (int32) read coalesced.
  add("gather_random", "gather-scatter", "out[i] = data[idx[i]], idx uniform over 2^27 floats (512 MiB)",
      {{{"n", 1LL << 26}, {"m", 1LL << 27}}}, {{"n", 1LL << 14}, {"m", 1LL << 16}});
  add("gather_l2", "gather-scatter", "out[i] = data[idx[i]], idx uniform over 2^22 floats (16 MiB: fits in L2)",
      {{{"n", 1LL << 26}, {"m", 1LL << 22}}}, {{"n", 1LL << 14}, {"m", 1LL << 12}});
  add("gather_local", "gather-scatter", "out[i] = data[idx[i]], idx uniform in the aligned window of 4096 floats holding i",
      {{{"n", 1LL << 26}}}, {{"n", 1LL << 14}});
  add("scatter_random", "gather-scatter", "out[idx[i]] = in[i], idx a random permutation of 2^26", {{{"n", 1LL << 26}}},
      {{"n", 1LL << 14}});
  add("scatter_local", "gather-scatter", "out[idx[i]] = in[i], idx a random permutation inside each window of 4096",
      {{{"n", 1LL << 26}}}, {{"n", 1LL << 14}});
  // Transposes of an n×n FP32 matrix, 32×8 threads per block.
  add("transpose_naive", "transpose", "out[x·n + y] = in[y·n + x]: coalesced reads, writes strided by n", {{{"n", 8192}}},
      {{"n", 256}});
  add("transpose_tiled", "transpose", "32×32 shared tile, no padding (32-way bank conflicts on the column reads)",
      {{{"n", 8192}}}, {{"n", 256}});
  add("transpose_tiled_padded", "transpose", "32×33 shared tile (padding: no bank conflicts)", {{{"n", 8192}}}, {{"n", 256}});
  // Stencils.
  add("stencil2d_5pt", "stencil", "5-point Jacobi step on n×n FP32, neighbours read from global memory", {{{"n", 8192}}},
      {{"n", 256}});
  add("stencil2d_5pt_shared", "stencil", "the same step with a 34×10 shared tile (halo loaded by edge threads)",
      {{{"n", 8192}}}, {{"n", 256}});
  add("stencil3d_7pt", "stencil", "7-point step on n³ FP32, 3-D grid of 32×4×4 blocks", {{{"n", 512}}}, {{"n", 64}});
  // Reductions.
  add("reduce_atomic_i32", "reduction", "sum of int32: every thread atomicAdd()s its element to one address",
      {{{"n", 1LL << 24}}}, {{"n", 1LL << 14}});
  add("reduce_shared_tree", "reduction", "sum of FP32: shared-memory tree per 256-thread block, one FP64 atomicAdd per block",
      {n27}, small);
  add("reduce_warp_shuffle", "reduction", "sum of FP32: grid-stride loop (1024×256 threads), __shfl_down_sync, one FP64 atomicAdd per warp",
      {n27}, small);
  // Histograms of uint32 keys.
  add("hist_global_256", "histogram", "256 bins, one global atomicAdd per key", {{{"n", 1LL << 26}}}, small);
  add("hist_global_8", "histogram", "8 bins, one global atomicAdd per key (a warp's 32 lanes on at most 8 addresses)",
      {{{"n", 1LL << 26}}}, small);
  add("hist_shared_256", "histogram", "256 bins in shared memory per block (1024 blocks, grid-stride), merged by 256 global atomics per block",
      {{{"n", 1LL << 26}}}, small);
  // Scan.
  add("scan_i32", "scan", "inclusive prefix sum of int32: block scans of 1024 (Hillis–Steele), a one-block scan of the block sums, an add pass",
      {{{"n", 1LL << 26}}}, {{"n", 1LL << 16}});
  // Batched small matrix products.
  add("bgemm16_shared", "batched-matmul", "C = A·B for a batch of 16×16 FP32 matrices, one 16×16 block per matrix via shared memory",
      {{{"batch", 1LL << 18}}}, {{"batch", 64}});
  add("bgemm4_regs", "batched-matmul", "C = A·B for a batch of 4×4 FP32 matrices, one matrix per thread in registers (float4 loads)",
      {{{"batch", 1LL << 22}}}, {{"batch", 1024}});
  // Compute chains: one dependent chain per thread unless stated.
  add("fma_chain_f32", "compute", "y = fmaf(y, 0.75, c), k = 1024 dependent FP32 FMAs per thread", {{{"n", 1LL << 24}, {"k", 1024}}},
      {{"n", 1LL << 12}, {"k", 1024}});
  add("fma_ilp4_f32", "compute", "four independent FP32 FMA chains of k = 1024 per thread", {{{"n", 1LL << 22}, {"k", 1024}}},
      {{"n", 1LL << 12}, {"k", 1024}});
  add("fma_chain_f64", "compute", "y = fma(y, 0.75, c), k = 512 dependent FP64 FMAs per thread", {{{"n", 1LL << 23}, {"k", 512}}},
      {{"n", 1LL << 12}, {"k", 512}});
  add("fma_chain_f16x2", "compute", "y = __hfma2(y, 0.75, c) on __half2, k = 1024 per thread (2 FP16 FMAs each)",
      {{{"n", 1LL << 24}, {"k", 1024}}}, {{"n", 1LL << 12}, {"k", 1024}});
  add("sinf_chain", "compute", "y = sinf(y) + c, k = 64 per thread (libm sinf: range reduction in FP32)",
      {{{"n", 1LL << 24}, {"k", 64}}}, {{"n", 1LL << 12}, {"k", 64}});
  add("sfu_sin_chain", "compute", "y = __sinf(y) + c, k = 256 per thread (the special-function unit)", {{{"n", 1LL << 24}, {"k", 256}}},
      {{"n", 1LL << 12}, {"k", 256}});
  add("int_mix_chain", "compute", "y = (y ^ y >> 15)·0x2c1b3c6d + 0x9e3779b9, k = 256 int32 rounds per thread",
      {{{"n", 1LL << 24}, {"k", 256}}}, {{"n", 1LL << 12}, {"k", 256}});
  // Launch-bound: small problems, one launch dominated by its fixed costs.
  add("tiny_axpy_4k", "launch-bound", "y = 1.5·x + y over 4096 floats (16 blocks)", {{{"n", 4096}}}, {{"n", 4096}});
  add("tiny_fill_1block", "launch-bound", "one block of 256 threads writes out[t] = 0.5·t", {{{"n", 256}}}, {{"n", 256}});
  add("tiny_reduce_1block", "launch-bound", "one block of 256 threads sums 4096 floats (grid-stride + shared tree)",
      {{{"n", 4096}}}, {{"n", 4096}});
  // Occupancy-starved: fewer threads than the GPU holds, grid-stride loops.
  add("starved_copy_132x128", "occupancy-starved", "copy of 2^26 floats by 132 blocks of 128 threads (one block per SM)",
      {{{"n", 1LL << 26}}}, small);
  add("starved_triad_32x256", "occupancy-starved", "triad of 2^25 floats by 32 blocks of 256 threads (32 of the SMs)",
      {{{"n", 1LL << 25}}}, small);
  // Register-heavy.
  add("regheavy_fma64", "register-heavy", "64 FP32 accumulators per thread (k = 64 FMA rounds over all of them)",
      {{{"n", 1LL << 22}, {"k", 64}}}, {{"n", 1LL << 12}, {"k", 64}});
  add("regheavy_stream16", "register-heavy", "each thread loads 16 float4 (all before its first store: 64 registers of data), writes them back in reverse slice order",
      {n27}, {{"n", 1LL << 16}});
  // Half C: a fresh held-out set, its signatures committed before its first measurement
  // (docs/generalisation-suite.md, "Half C"). Not alternating: every kernel below is in half C.
  const std::size_t first_c = v.size();
  add("stream_3r2w_f32", "streaming", "d[i] = a[i] + b[i] + c[i], e[i] = a[i] − c[i], FP32: 3 reads, 2 writes per thread",
      {{{"n", 1LL << 26}}}, small);
  add("strided_read_f64", "strided", "b[i] = a[i·s], s = 4, FP64: strided 8-byte reads, coalesced writes",
      {{{"n", 1LL << 25}, {"s", 4}}}, {{"n", 1LL << 12}, {"s", 4}});
  add("strided_write_s2_f32", "strided", "b[i·s] = a[i], s = 2, FP32: coalesced reads, writes to every other float",
      {{{"n", 1LL << 26}, {"s", 2}}}, {{"n", 1LL << 12}, {"s", 2}});
  add("gather_random_32m", "gather-scatter", "out[i] = data[idx[i]], idx uniform over 2^25 floats (128 MiB)",
      {{{"n", 1LL << 26}, {"m", 1LL << 25}}}, {{"n", 1LL << 14}, {"m", 1LL << 16}});
  add("stencil2d_9pt", "stencil", "9-point (3×3) step on n×n FP32, all neighbours read from global memory, 32×8 threads",
      {{{"n", 8192}}}, {{"n", 256}});
  add("reduce_block_atomic_f64", "reduction", "per-block sums of FP64: every thread atomicAdd()s its element to its block's slot",
      {{{"n", 1LL << 26}}}, small);
  add("hist_f32_64", "histogram", "64 FP32 bins, one global atomicAdd(float) of 1 per key", {{{"n", 1LL << 26}}}, small);
  add("atomic_max_i32_1024", "histogram", "int32 atomicMax on 1024 addresses chosen by the key's low 10 bits",
      {{{"n", 1LL << 26}}}, small);
  add("sfu_sinexp_chain", "compute", "y = 0.25·__expf(__sinf(y)) + c, k = 128 per thread (two special-function ops a step)",
      {{{"n", 1LL << 24}, {"k", 128}}}, {{"n", 1LL << 12}, {"k", 128}});
  add("int_xorshift_chain", "compute", "y ^= y << 13; y ^= y >> 17; y = y·0x9e3779b1 + 7, k = 256 int32 rounds per thread",
      {{{"n", 1LL << 24}, {"k", 256}}}, {{"n", 1LL << 12}, {"k", 256}});
  add("tiny_scale_64", "launch-bound", "one block of 64 threads: b[i] = 1.5·a[i] over 64 floats", {{{"n", 64}}}, {{"n", 64}});
  add("gridstride_copy_132x256", "occupancy-starved", "copy of 2^26 floats by 132 blocks of 256 threads (grid-stride loop)",
      {{{"n", 1LL << 26}}}, small);
  for (std::size_t i = first_c; i < v.size(); ++i) v[i].half = 'C';
  // Half D: a fresh held-out set of atomics, its signatures committed before its first measurement
  // (docs/generalisation-suite.md, "Half D"): the atomics model was changed after half C was seen.
  const std::size_t first_d = v.size();
  add("reduce_block_atomic_f32", "reduction", "per-block sums of FP32: every thread atomicAdd()s its element to its block's slot",
      {{{"n", 1LL << 26}}}, small);
  add("reduce_warp_slot_f64", "reduction", "per-warp sums of FP64: every lane atomicAdd()s its element to its warp's slot (i / 32)",
      {{{"n", 1LL << 25}}}, small);
  add("hist_global_32", "histogram", "32 int32 bins (4 sectors), one global atomicAdd of 1 per uint32 key", {{{"n", 1LL << 26}}}, small);
  add("hist_f64_16", "histogram", "16 FP64 bins (4 sectors), one global atomicAdd(double) of 1 per uint32 key",
      {{{"n", 1LL << 25}}}, small);
  add("scatter_add_f32_4m", "gather-scatter", "y[key mod 2^20] += x[i] by FP32 atomicAdd: random keys over 2^20 floats (4 MiB)",
      {{{"n", 1LL << 26}}}, small);
  add("counter_i32_runtime_uniform", "reduction",
      "int32 atomicAdd of 1 to one of 4 counters, the block's slot read from device memory (uniform at run time, not provably warp-uniform)",
      {{{"n", 1LL << 24}}}, small);
  for (std::size_t i = first_d; i < v.size(); ++i) v[i].half = 'D';
  // Half E: fresh held-out stencils, gathers with locality, an integer chain and reductions, its
  // signatures committed before its first measurement (docs/generalisation-suite.md, "Half E").
  const std::size_t first_e = v.size();
  add("stencil1d_3pt_f32", "stencil", "1-D 3-point step on 2^27 floats: out[i] = 0.5·in[i] + 0.25·(in[i−1] + in[i+1])",
      {n27}, small);
  add("stencil2d_5pt_f64_16x16", "stencil", "5-point step on n×n doubles, 16×16 threads per block, neighbours from global memory",
      {{{"n", 8192}}}, {{"n", 256}});
  add("stencil2d_box9_64x4", "stencil", "3×3 box step (every weight 1/8) on n×n floats, 64×4 threads per block",
      {{{"n", 8192}}}, {{"n", 256}});
  add("stencil3d_7pt_zmarch", "stencil",
      "7-point step on n^3 floats, 32×8 threads each marching along z with z−1, z, z+1 in registers", {{{"n", 512}}}, {{"n", 64}});
  add("gather_near_512", "gather-scatter", "out[i] = data[idx[i]], idx[i] = i + a uniform offset in [−512, 511] over 2^26 floats",
      {{{"n", 1LL << 26}}}, {{"n", 1LL << 14}});
  add("gather4_l2_16m", "gather-scatter",
      "four independent gathers per thread (int4 index, float4 store), uniform over 2^22 floats (16 MiB: fits in L2), 2^26 reads",
      {{{"n", 1LL << 26}, {"m", 1LL << 22}}}, {{"n", 1LL << 14}, {"m", 1LL << 12}});
  add("gather_random_1g", "gather-scatter", "out[i] = data[idx[i]], 2^25 reads uniform over 2^28 floats (1 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 28}}}, {{"n", 1LL << 14}, {"m", 1LL << 16}});
  add("xorshift32_chain_64", "compute", "xorshift32 (y ^= y << 13; y ^= y >> 17; y ^= y << 5), k = 64 rounds from the seed i + 1",
      {{{"n", 1LL << 24}, {"k", 64}}}, {{"n", 1LL << 12}, {"k", 64}});
  add("reduce_tree512_atomic_f32", "reduction", "shared-memory tree per 512-thread block, one FP32 atomicAdd per block to the total",
      {n27}, small);
  add("reduce_two_pass", "reduction",
      "two launches: a 256-thread shared tree writes one FP32 partial per block; one block of 1024 threads sums them in FP64",
      {{{"n", 1LL << 26}}}, small);
  for (std::size_t i = first_e; i < v.size(); ++i) v[i].half = 'E';
  // Half F: fresh held-out random DRAM accesses, its signatures committed before its first
  // measurement (docs/generalisation-suite.md, "Half F").
  const std::size_t first_f = v.size();
  const Params random_test{{"n", 1LL << 14}, {"m", 1LL << 16}};
  add("gather_random_256m", "gather-scatter", "out[i] = data[idx[i]], 2^25 reads uniform over 2^26 floats (256 MiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 26}}}, random_test);
  add("gather_random_4g", "gather-scatter", "out[i] = data[idx[i]], 2^25 reads uniform over 2^30 floats (4 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 30}}}, random_test);
  add("gather_random_f64_1g", "gather-scatter", "out[i] = data[idx[i]] in FP64, 2^25 reads uniform over 2^27 doubles (1 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 27}}}, random_test);
  add("gather2_random_1g", "gather-scatter",
      "out[i] = data[a[i]] + data[b[i]]: two independent gathers per thread, 2^24 threads, uniform over 2^28 floats (1 GiB)",
      {{{"n", 1LL << 24}, {"m", 1LL << 28}}}, random_test);
  add("hash_gather_1g", "gather-scatter",
      "out[i] = data[hash32(i) mod m]: no index array, the address a cheap integer hash of i, 2^25 reads over 2^28 floats (1 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 28}}}, random_test);
  add("random_rmw_256m", "gather-scatter",
      "y[idx[i]] += x[i], not atomic: 2^24 updates at distinct random words (a permutation's first n values) of 2^26 floats (256 MiB)",
      {{{"n", 1LL << 24}, {"m", 1LL << 26}}}, random_test);
  for (std::size_t i = first_f; i < v.size(); ++i) v[i].half = 'F';
  // Half G: fresh held-out random reads and writes beyond the L2, integer chains, stencils and
  // reductions, its signatures committed before its first measurement (docs/generalisation-suite.md,
  // "Half G").
  const std::size_t first_g = v.size();
  add("gather_random_2g", "gather-scatter", "out[i] = data[idx[i]], 2^25 reads uniform over 2^29 floats (2 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 29}}}, random_test);
  add("gather_random_96m_f64", "gather-scatter",
      "out[i] = data[idx[i]] in FP64, 2^25 reads uniform over 12 Mi doubles (96 MiB, beyond the 50 MiB L2)",
      {{{"n", 1LL << 25}, {"m", 12LL << 20}}}, {{"n", 1LL << 14}, {"m", 12LL << 10}});
  add("hash_gather2_512m", "gather-scatter",
      "out[i] = data[hash32(2i) mod m] + data[hash32(2i + 1) mod m]: two independent reads per thread, no index array, "
      "2^24 threads over 2^27 floats (512 MiB)",
      {{{"n", 1LL << 24}, {"m", 1LL << 27}}}, random_test);
  add("scatter_random_1g", "gather-scatter",
      "out[idx[i]] = in[i]: 2^25 writes at distinct random words (a permutation's first n values) of 2^28 floats (1 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 28}}}, random_test);
  add("rmw_random_1g", "gather-scatter",
      "y[idx[i]] += x[i], not atomic: 2^25 updates at distinct random words (a permutation's first n values) of 2^28 floats (1 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 28}}}, random_test);
  add("int_rotl_add_chain", "compute", "y = rotl(y, 7) + (y ^ 0x9e3779b9) (rotl by __funnelshift_l), k = 256 uint32 rounds per thread",
      {{{"n", 1LL << 24}, {"k", 256}}}, {{"n", 1LL << 12}, {"k", 256}});
  add("int_lcg_and_chain", "compute", "y = (y·1664525 + 1013904223) & 0x7fffffff, k = 512 uint32 rounds per thread",
      {{{"n", 1LL << 24}, {"k", 512}}}, {{"n", 1LL << 12}, {"k", 512}});
  add("stencil1d_5pt_f32", "stencil",
      "1-D radius-2 step on 2^27 floats: out[i] = 0.5·in[i] + 0.125·(in[i−1] + in[i+1]) + 0.0625·(in[i−2] + in[i+2])", {n27}, small);
  add("stencil2d_5pt_f32_64x4", "stencil", "5-point step on n×n floats, 64×4 threads per block, neighbours from global memory",
      {{{"n", 8192}}}, {{"n", 256}});
  add("stencil3d_7pt_f64", "stencil", "7-point step on n^3 doubles (interior points), 3-D grid of 32×4×2 blocks, neighbours from global memory",
      {{{"n", 384}}}, {{"n", 64}});
  add("reduce_shared_tree_256_f64", "reduction",
      "one launch: a 256-thread shared-memory tree per block over one double each, the block's sum written to partials[block]",
      {{{"n", 1LL << 26}}}, small);
  add("reduce_shuffle_block1024_f32", "reduction",
      "1024-thread blocks, 4 floats per thread (block-strided), warp shuffles, the 32 warp sums through shared memory, "
      "one FP32 atomicAdd per block to the total",
      {n27}, small);
  for (std::size_t i = first_g; i < v.size(); ++i) v[i].half = 'G';
  // Half H: fresh held-out random scatters, shared-memory trees, a random gather, an integer
  // chain, a 3×3 stencil and an FP64 pair stream, its signatures committed before its first
  // measurement (docs/generalisation-suite.md, "Half H").
  const std::size_t first_h = v.size();
  add("scatter_random_256m", "gather-scatter",
      "out[idx[i]] = in[i]: 2^25 writes at distinct random words (a permutation's first n values) of 2^26 floats (256 MiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 26}}}, random_test);
  add("scatter_random_2g", "gather-scatter",
      "out[idx[i]] = in[i]: 2^25 writes at distinct random words (a permutation's first n values) of 2^29 floats (2 GiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 29}}}, random_test);
  add("scatter_random_f64_1g", "gather-scatter",
      "out[idx[i]] = in[i] in FP64: 2^24 writes at distinct random words (a permutation's first n values) of 2^27 doubles (1 GiB)",
      {{{"n", 1LL << 24}, {"m", 1LL << 27}}}, random_test);
  add("scatter_dense_perm_512m", "gather-scatter",
      "out[perm[i]] = in[i], perm a full random permutation of 2^27 floats (512 MiB): every element written once",
      {n27}, small);
  add("hash_scatter_1g", "gather-scatter",
      "out[hash32(i) mod m] = hash32(i) mod m (uint32): no index array, no input, 2^24 writes over 2^28 words (1 GiB); "
      "colliding threads write the same value",
      {{{"n", 1LL << 24}, {"m", 1LL << 28}}}, random_test);
  add("reduce_tree512_partials_f32", "reduction",
      "one launch: a 512-thread shared-memory tree per block over one float each, the block's sum written to partials[block]",
      {n27}, small);
  add("reduce_tree128_atomic_f64", "reduction",
      "a 128-thread shared-memory tree per block over one double each, one FP64 atomicAdd per block to the total",
      {{{"n", 1LL << 26}}}, small);
  add("reduce_tree256_x4_f32", "reduction",
      "256-thread blocks, each thread sums one float4 (4 contiguous floats), a shared-memory tree, the block's sum written to "
      "partials[block]",
      {n27}, small);
  add("gather_random_512m", "gather-scatter", "out[i] = data[idx[i]], 2^25 reads uniform over 2^27 floats (512 MiB)",
      {{{"n", 1LL << 25}, {"m", 1LL << 27}}}, random_test);
  add("int_xor_mul_chain", "compute", "y = (y ^ (y >> 15))·0x2c1b3c6d, k = 256 dependent uint32 rounds per thread",
      {{{"n", 1LL << 24}, {"k", 256}}}, {{"n", 1LL << 12}, {"k", 256}});
  add("stencil2d_9pt_f32_32x8", "stencil",
      "3×3 box mean on n×n floats (the nine points summed, times 1/9), 32×8 threads per block, neighbours from global memory",
      {{{"n", 8192}}}, {{"n", 256}});
  add("scale_f64x2", "streaming", "y[i] = 1.5·x[i] on double2 (16-byte loads and stores), 2^26 pairs (1 GiB each way)",
      {{{"n", 1LL << 26}}}, small);
  for (std::size_t i = first_h; i < v.size(); ++i) v[i].half = 'H';
  return v;
}

double dv(std::uint32_t seed, std::uint64_t i) { return static_cast<double>(value(seed, i)); }

ReferenceCheck elementwise(std::size_t count, std::function<double(std::size_t)> expected, double bound, std::string what) {
  ReferenceCheck c;
  c.count = count;
  c.where = [](std::size_t k) { return k; };
  c.expected = std::move(expected);
  c.bound = bound;
  c.what = std::move(what);
  return c;
}

}  // namespace

const std::vector<KernelEntry>& kernel_catalog() {
  static const std::vector<KernelEntry> catalog = build_catalog();
  return catalog;
}

const KernelEntry& kernel_entry(const std::string& name) {
  for (const KernelEntry& e : kernel_catalog())
    if (e.name == name) return e;
  std::string known;
  for (const KernelEntry& e : kernel_catalog()) known += (known.empty() ? "" : ", ") + e.name;
  throw InputError("unknown generalisation kernel '" + name + "' (known: " + known + ")");
}

std::string params_string(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

Params parse_params(const std::string& text) {
  Params p;
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("parameter '" + item + "' is not NAME=INTEGER");
    const std::string value = item.substr(eq + 1);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || v <= 0) throw InputError("parameter '" + item + "': the value is not a positive integer");
    if (!p.emplace(item.substr(0, eq), v).second) throw InputError("parameter '" + item.substr(0, eq) + "' given twice");
  }
  if (p.empty()) throw InputError("no parameters in '" + text + "'");
  return p;
}

long long param(const Params& p, const std::string& key) {
  const auto it = p.find(key);
  if (it == p.end()) throw InputError("parameter '" + key + "' missing (have: " + params_string(p) + ")");
  return it->second;
}

double round_to_half(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);                                   // x = f·2^e, 0.5 <= |f| < 1
  const double quantum = std::ldexp(1.0, std::max(e, -13) - 11);  // 11 significant bits; subnormals below 2^-14
  const double r = std::nearbyint(x / quantum) * quantum;         // ties to even (default rounding mode)
  return std::abs(r) > 65504.0 ? std::copysign(INFINITY, x) : r;
}

std::vector<std::size_t> checked_outputs(const ReferenceCheck& check) {
  std::vector<std::size_t> v;
  if (check.count == 0) return v;
  if (check.count <= check.samples) {
    v.resize(check.count);
    for (std::size_t k = 0; k < check.count; ++k) v[k] = k;
    return v;
  }
  // Evenly spread, each shifted by a hash inside its stretch so that no stride aliases the layout.
  const std::size_t stretch = check.count / check.samples;
  for (std::size_t j = 0; j < check.samples; ++j) v.push_back(j * stretch + static_cast<std::size_t>(mix64(j) % stretch));
  v.push_back(check.count - 1);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

ReferenceCheck reference_check(const std::string& kernel, const Params& p) {
  kernel_entry(kernel);  // throws for an unknown name
  const std::string& k = kernel;
  auto n_of = [&] { return static_cast<std::size_t>(param(p, "n")); };
  const std::string exact = "exact (the inputs are multiples of 1/256: every sum and product here is exact)";

  if (k == "copy_f32" || k == "copy_f32x4" || k == "starved_copy_132x128" || k == "gridstride_copy_132x256")
    return elementwise(n_of(), [](std::size_t i) { return dv(1, i); }, 0, "b[i] = a[i], " + exact);
  if (k == "scale_f32" || k == "tiny_scale_64") return elementwise(n_of(), [](std::size_t i) { return 1.5 * dv(1, i); }, 0, "b[i] = 1.5·a[i], " + exact);
  if (k == "add_f32") return elementwise(n_of(), [](std::size_t i) { return dv(1, i) + dv(2, i); }, 0, "c[i] = a[i] + b[i], " + exact);
  if (k == "triad_f32" || k == "triad_f64" || k == "starved_triad_32x256")
    return elementwise(n_of(), [](std::size_t i) { return dv(2, i) + 1.5 * dv(3, i); }, 0, "a[i] = b[i] + 1.5·c[i], " + exact);
  if (k == "axpy_f32" || k == "axpy_f32x4" || k == "axpy_f64" || k == "tiny_axpy_4k")
    return elementwise(n_of(), [](std::size_t i) { return 1.5 * dv(1, i) + dv(2, i); }, 0,
                       "y[i] = 1.5·x[i] + y[i] after the first launch, " + exact);
  if (k == "axpy_f16" || k == "axpy_f16x2")
    return elementwise(n_of(), [](std::size_t i) { return round_to_half(1.5 * dv(1, i) + dv(2, i)); }, 2e-3,
                       "y[i] = 1.5·x[i] + y[i] after the first launch, reference rounded once to binary16 "
                       "(an unfused multiply-add may differ by one binary16 rounding)");
  if (k == "strided_read_f32") {
    const std::size_t s = static_cast<std::size_t>(param(p, "s"));
    return elementwise(n_of(), [s](std::size_t i) { return dv(1, i * s); }, 0, "b[i] = a[i·s], exact");
  }
  if (k == "stream_3r2w_f32")
    return elementwise(n_of(), [](std::size_t i) { return dv(1, i) + dv(2, i) + dv(3, i); }, 0,
                       "d[i] = a[i] + b[i] + c[i] (the output checked; e is written alongside), " + exact);
  if (k == "strided_read_f64") {
    const std::size_t s = static_cast<std::size_t>(param(p, "s"));
    return elementwise(n_of(), [s](std::size_t i) { return dv(1, i * s); }, 0, "b[i] = a[i·s], exact");
  }
  if (k == "strided_write_f32" || k == "strided_write_s2_f32") {
    ReferenceCheck c = elementwise(n_of(), [](std::size_t i) { return dv(1, i); }, 0, "b[i·s] = a[i], exact");
    const std::size_t s = static_cast<std::size_t>(param(p, "s"));
    c.where = [s](std::size_t i) { return i * s; };
    return c;
  }
  if (k == "gather_random" || k == "gather_l2" || k == "gather_random_32m") {
    const std::uint64_t mask = static_cast<std::uint64_t>(param(p, "m")) - 1;
    return elementwise(n_of(), [mask](std::size_t i) { return dv(1, key(5, i) & mask); }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "gather_local")
    return elementwise(n_of(), [](std::size_t i) { return dv(1, local_index(static_cast<std::uint32_t>(i), 12, 6)); }, 0,
                       "out[i] = data[idx[i]], exact");
  if (k == "scatter_random" || k == "scatter_local") {
    const std::size_t n = n_of();
    int bits = 0;
    while ((std::size_t{1} << bits) < n) ++bits;
    ReferenceCheck c = elementwise(n, [](std::size_t i) { return dv(1, i); }, 0, "out[idx[i]] = in[i] (a permutation: every element written once), exact");
    if (k == "scatter_random")
      c.where = [bits](std::size_t i) { return static_cast<std::size_t>(permute(static_cast<std::uint32_t>(i), bits, 7)); };
    else
      c.where = [](std::size_t i) { return static_cast<std::size_t>(local_permute(static_cast<std::uint32_t>(i), 12, 8)); };
    return c;
  }
  if (k == "transpose_naive" || k == "transpose_tiled" || k == "transpose_tiled_padded") {
    const std::size_t n = n_of();
    return elementwise(n * n, [n](std::size_t o) { return dv(1, (o % n) * n + o / n); }, 0, "out[r][c] = in[c][r], exact");
  }
  if (k == "stencil2d_5pt" || k == "stencil2d_5pt_shared") {
    const std::size_t n = n_of(), w = n - 2;
    ReferenceCheck c = elementwise(
        w * w,
        [n, w](std::size_t o) {
          const std::size_t r = 1 + o / w, col = 1 + o % w, i = r * n + col;
          return 0.5 * dv(1, i) + 0.125 * (dv(1, i - n) + dv(1, i + n) + dv(1, i - 1) + dv(1, i + 1));
        },
        0, "interior points: 0.5·centre + 0.125·(four neighbours), " + exact);
    c.where = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    return c;
  }
  if (k == "stencil2d_9pt") {
    const std::size_t n = n_of(), w = n - 2;
    ReferenceCheck c = elementwise(
        w * w,
        [n, w](std::size_t o) {
          const std::size_t i = (1 + o / w) * n + 1 + o % w;
          const double edges = dv(1, i - n) + dv(1, i + n) + dv(1, i - 1) + dv(1, i + 1);
          const double corners = dv(1, i - n - 1) + dv(1, i - n + 1) + dv(1, i + n - 1) + dv(1, i + n + 1);
          return 0.5 * dv(1, i) + 0.0625 * edges + 0.0625 * corners;
        },
        0, "interior points: 0.5·centre + 0.0625·(four edge neighbours) + 0.0625·(four corners), " + exact);
    c.where = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    return c;
  }
  if (k == "reduce_block_atomic_f64") {
    const std::size_t n = n_of();
    return elementwise((n + 255) / 256, [n](std::size_t b) {
      double s = 0;
      for (std::size_t i = 256 * b; i < std::min(n, 256 * b + 256); ++i) s += dv(1, i);
      return s;
    }, 0, "every block's sum of its 256 elements, exact (multiples of 1/256 in FP64)");
  }
  if (k == "hist_f32_64") {
    const std::size_t n = n_of();
    auto counts = std::make_shared<std::vector<double>>();
    return elementwise(64, [n, counts](std::size_t b) {
      if (counts->empty()) {
        counts->assign(64, 0.0);
        for (std::size_t i = 0; i < n; ++i) (*counts)[key(9, i) % 64] += 1;
      }
      return (*counts)[b];
    }, 0, "every bin's count, exact (FP32 holds every integer up to 2^24; no bin reaches it)");
  }
  if (k == "atomic_max_i32_1024") {
    const std::size_t n = n_of();
    auto maxima = std::make_shared<std::vector<double>>();
    return elementwise(1024, [n, maxima](std::size_t a) {
      if (maxima->empty()) {
        maxima->assign(1024, 0.0);  // the output starts at 0; every value is >= 0
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t kk = key(12, i);
          double& m = (*maxima)[kk & 1023u];
          m = std::max(m, static_cast<double>(kk >> 10));
        }
      }
      return (*maxima)[a];
    }, 0, "every address's maximum of key >> 10, exact");
  }
  if (k == "reduce_block_atomic_f32") {
    const std::size_t n = n_of();
    return elementwise((n + 255) / 256, [n](std::size_t b) {
      double s = 0;
      for (std::size_t i = 256 * b; i < std::min(n, 256 * b + 256); ++i) s += dv(1, i);
      return s;
    }, 0, "every block's sum of its 256 elements, exact (multiples of 1/256 whose partial sums stay below 2^9: "
          "17 significant bits, exact in FP32 in any order)");
  }
  if (k == "reduce_warp_slot_f64") {
    const std::size_t n = n_of();
    return elementwise((n + 31) / 32, [n](std::size_t w) {
      double s = 0;
      for (std::size_t i = 32 * w; i < std::min(n, 32 * w + 32); ++i) s += dv(1, i);
      return s;
    }, 0, "every warp's sum of its 32 elements, exact (multiples of 1/256 in FP64)");
  }
  if (k == "hist_global_32" || k == "hist_f64_16") {
    const std::size_t n = n_of();
    const std::uint32_t bins = k == "hist_global_32" ? 32 : 16, seed = k == "hist_global_32" ? 13 : 14;
    auto counts = std::make_shared<std::vector<double>>();
    return elementwise(bins, [n, bins, seed, counts](std::size_t b) {
      if (counts->empty()) {
        counts->assign(bins, 0.0);
        for (std::size_t i = 0; i < n; ++i) (*counts)[key(seed, i) % bins] += 1;
      }
      return (*counts)[b];
    }, 0, "every bin's count, exact");
  }
  if (k == "scatter_add_f32_4m") {
    const std::size_t n = n_of(), slots = std::size_t{1} << 20;
    auto sums = std::make_shared<std::vector<double>>();
    return elementwise(slots, [n, slots, sums](std::size_t y) {
      if (sums->empty()) {
        sums->assign(slots, 0.0);
        for (std::size_t i = 0; i < n; ++i) (*sums)[key(15, i) % slots] += dv(1, i);
      }
      return (*sums)[y];
    }, 0, "every slot's sum of the x[i] whose key lands on it, exact (multiples of 1/256; a slot's partial sums "
          "stay below 2^15 while it receives fewer than 2^14 elements, as every slot does at these sizes: "
          "exact in FP32 in any order)");
  }
  if (k == "counter_i32_runtime_uniform") {
    const std::size_t n = n_of(), blocks = (n + 255) / 256;
    return elementwise(kCounterSlots, [n, blocks](std::size_t c) {
      double count = 0;
      for (std::size_t b = 0; b < blocks; ++b)
        if (counter_slot(b) == c) count += static_cast<double>(std::min(n, 256 * b + 256) - 256 * b);
      return count;
    }, 0, "every counter's count (the threads of the blocks whose slot it is), exact");
  }
  if (k == "stencil1d_3pt_f32") {
    ReferenceCheck c = elementwise(n_of() - 2, [](std::size_t o) {
      const std::size_t i = o + 1;
      return 0.5 * dv(1, i) + 0.25 * (dv(1, i - 1) + dv(1, i + 1));
    }, 0, "interior points: 0.5·centre + 0.25·(two neighbours), " + exact);
    c.where = [](std::size_t o) { return o + 1; };
    return c;
  }
  if (k == "stencil2d_5pt_f64_16x16") {
    const std::size_t n = n_of(), w = n - 2;
    ReferenceCheck c = elementwise(
        w * w,
        [n, w](std::size_t o) {
          const std::size_t i = (1 + o / w) * n + 1 + o % w;
          return 0.5 * dv(1, i) + 0.125 * (dv(1, i - n) + dv(1, i + n) + dv(1, i - 1) + dv(1, i + 1));
        },
        0, "interior points: 0.5·centre + 0.125·(four neighbours) in FP64, " + exact);
    c.where = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    return c;
  }
  if (k == "stencil2d_box9_64x4") {
    const std::size_t n = n_of(), w = n - 2;
    ReferenceCheck c = elementwise(
        w * w,
        [n, w](std::size_t o) {
          const std::size_t i = (1 + o / w) * n + 1 + o % w;
          double s = 0;
          for (std::size_t r : {i - n, i, i + n}) s += dv(1, r - 1) + dv(1, r) + dv(1, r + 1);
          return 0.125 * s;
        },
        0, "interior points: 0.125·(the 3×3 box's nine points), " + exact);
    c.where = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    return c;
  }
  if (k == "gather_near_512") {
    const std::size_t n = n_of();
    return elementwise(n, [n](std::size_t i) {
      return dv(1, near_index(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(n), 16));
    }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "gather4_l2_16m" || k == "gather_random_1g") {
    const std::uint64_t mask = static_cast<std::uint64_t>(param(p, "m")) - 1;
    const std::uint32_t seed = k == "gather4_l2_16m" ? 17 : 18;
    return elementwise(n_of(), [mask, seed](std::size_t i) { return dv(1, key(seed, i) & mask); }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "gather_random_256m" || k == "gather_random_4g" || k == "gather_random_f64_1g") {
    const std::uint64_t mask = static_cast<std::uint64_t>(param(p, "m")) - 1;
    const std::uint32_t seed = k == "gather_random_256m" ? 19 : k == "gather_random_4g" ? 20 : 21;
    return elementwise(n_of(), [mask, seed](std::size_t i) { return dv(1, key(seed, i) & mask); }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "gather2_random_1g") {
    const std::uint64_t mask = static_cast<std::uint64_t>(param(p, "m")) - 1;
    return elementwise(n_of(), [mask](std::size_t i) { return dv(1, key(22, i) & mask) + dv(1, key(23, i) & mask); }, 0,
                       "out[i] = data[a[i]] + data[b[i]], " + exact);
  }
  if (k == "hash_gather_1g") {
    const long long m = param(p, "m");
    if ((m & (m - 1)) != 0 || m > (1LL << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const auto mask = static_cast<std::uint32_t>(m - 1);
    return elementwise(n_of(), [mask](std::size_t i) { return dv(1, hash32(static_cast<std::uint32_t>(i)) & mask); }, 0,
                       "out[i] = data[hash32(i) & (m − 1)], exact");
  }
  if (k == "random_rmw_256m") {
    const std::size_t m = static_cast<std::size_t>(param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31) throw InputError(k + ": m must be a power of two, at most 2^31");
    if (n_of() > m) throw InputError(k + ": n must be at most m (the updates go to distinct words)");
    ReferenceCheck c = elementwise(n_of(), [bits](std::size_t i) { return dv(2, permute(static_cast<std::uint32_t>(i), bits, 24)) + dv(1, i); },
                                   0, "y[idx[i]] = y[idx[i]] + x[i] after the first launch (idx injective: each word updated once), " + exact);
    c.where = [bits](std::size_t i) { return static_cast<std::size_t>(permute(static_cast<std::uint32_t>(i), bits, 24)); };
    return c;
  }
  if (k == "gather_random_2g") {
    const long long m = param(p, "m");
    if ((m & (m - 1)) != 0 || m > (1LL << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const std::uint64_t mask = static_cast<std::uint64_t>(m) - 1;
    return elementwise(n_of(), [mask](std::size_t i) { return dv(1, key(25, i) & mask); }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "gather_random_96m_f64") {
    const long long m = param(p, "m");
    if (m > (1LL << 31)) throw InputError(k + ": m must be at most 2^31");
    const auto mm = static_cast<std::uint32_t>(m);
    return elementwise(n_of(), [mm](std::size_t i) { return dv(1, key_below(26, i, mm)); }, 0, "out[i] = data[idx[i]], exact");
  }
  if (k == "hash_gather2_512m") {
    const long long m = param(p, "m");
    if ((m & (m - 1)) != 0 || m > (1LL << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const auto mask = static_cast<std::uint32_t>(m - 1);
    return elementwise(n_of(), [mask](std::size_t i) {
      const std::uint32_t j = 2u * static_cast<std::uint32_t>(i);
      return dv(1, hash32(j) & mask) + dv(1, hash32(j + 1u) & mask);
    }, 0, "out[i] = data[hash32(2i) & (m − 1)] + data[hash32(2i + 1) & (m − 1)], " + exact);
  }
  if (k == "scatter_random_1g" || k == "rmw_random_1g") {
    const std::size_t m = static_cast<std::size_t>(param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31) throw InputError(k + ": m must be a power of two, at most 2^31");
    if (n_of() > m) throw InputError(k + ": n must be at most m (the writes go to distinct words)");
    const std::uint32_t seed = k == "scatter_random_1g" ? 27 : 28;
    auto where = [bits, seed](std::size_t i) { return static_cast<std::size_t>(permute(static_cast<std::uint32_t>(i), bits, seed)); };
    ReferenceCheck c =
        k == "scatter_random_1g"
            ? elementwise(n_of(), [](std::size_t i) { return dv(1, i); }, 0,
                          "out[idx[i]] = in[i] (idx injective: each written word written once), exact")
            : elementwise(n_of(), [where](std::size_t i) { return dv(2, where(i)) + dv(1, i); }, 0,
                          "y[idx[i]] = y[idx[i]] + x[i] after the first launch (idx injective: each word updated once), " + exact);
    c.where = where;
    return c;
  }
  if (k == "int_rotl_add_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      std::uint32_t y = key(29, i);
      for (int s = 0; s < steps; ++s) y = ((y << 7) | (y >> 25)) + (y ^ kRotlAddConstant);
      return static_cast<double>(y);
    }, 0, "the same integer rounds on the host (the rotation as two shifts), exact");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "int_lcg_and_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      std::uint32_t y = key(30, i);
      for (int s = 0; s < steps; ++s) y = (y * 1664525u + 1013904223u) & 0x7fffffffu;
      return static_cast<double>(y);
    }, 0, "the same integer rounds on the host, exact");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "stencil1d_5pt_f32") {
    const std::size_t n = n_of();
    if (n < 5) throw InputError(k + ": n must be at least 5 (one interior point)");
    ReferenceCheck c = elementwise(n - 4, [](std::size_t o) {
      const std::size_t i = o + 2;
      return 0.5 * dv(1, i) + 0.125 * (dv(1, i - 1) + dv(1, i + 1)) + 0.0625 * (dv(1, i - 2) + dv(1, i + 2));
    }, 0, "interior points: 0.5·centre + 0.125·(the two neighbours) + 0.0625·(the two at distance 2), " + exact);
    c.where = [](std::size_t o) { return o + 2; };
    return c;
  }
  if (k == "stencil2d_5pt_f32_64x4") {
    const std::size_t n = n_of(), w = n - 2;
    ReferenceCheck c = elementwise(
        w * w,
        [n, w](std::size_t o) {
          const std::size_t i = (1 + o / w) * n + 1 + o % w;
          return 0.5 * dv(1, i) + 0.125 * (dv(1, i - n) + dv(1, i + n) + dv(1, i - 1) + dv(1, i + 1));
        },
        0, "interior points: 0.5·centre + 0.125·(four neighbours), " + exact);
    c.where = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    return c;
  }
  if (k == "reduce_shared_tree_256_f64") {
    const std::size_t n = n_of();
    return elementwise((n + 255) / 256, [n](std::size_t b) {
      double s = 0;
      for (std::size_t i = 256 * b; i < std::min(n, 256 * b + 256); ++i) s += dv(1, i);
      return s;
    }, 0, "every block's sum of its 256 elements, exact (multiples of 1/256 in FP64)");
  }
  if (k == "reduce_shuffle_block1024_f32") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dv(1, i);
      return s;
    }, 1e-4, "the sum, within 1e-4 of it: every block's sum of 4096 elements is exact in FP32 (below 2^13, multiples of "
             "1/256), the FP32 total rounds each of the n/4096 adds, in any order (exact while it stays below 2^16; at "
             "n = 2^27 the total is near −2^18 and the roundings, half an ulp (2^-6 below 2^19) at most each and of "
             "either sign, add up to about 1e-5 of it)");
  }
  if (k == "scatter_random_256m" || k == "scatter_random_2g" || k == "scatter_random_f64_1g" || k == "scatter_dense_perm_512m") {
    const bool dense = k == "scatter_dense_perm_512m";
    const std::size_t m = dense ? n_of() : static_cast<std::size_t>(param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31)
      throw InputError(k + (dense ? ": n must be a power of two, at most 2^31" : ": m must be a power of two, at most 2^31"));
    if (n_of() > m) throw InputError(k + ": n must be at most m (the writes go to distinct words)");
    const std::uint32_t seed = k == "scatter_random_256m" ? kScatter256mSeed
                               : k == "scatter_random_2g" ? kScatter2gSeed
                               : dense                    ? kDensePermSeed
                                                          : kScatterF64Seed;
    ReferenceCheck c = elementwise(n_of(), [](std::size_t i) { return dv(1, i); }, 0,
                                   "out[idx[i]] = in[i] (idx injective: each written word written once), exact");
    c.where = [bits, seed](std::size_t i) { return static_cast<std::size_t>(permute(static_cast<std::uint32_t>(i), bits, seed)); };
    return c;
  }
  if (k == "hash_scatter_1g") {
    const long long m = param(p, "m");
    if ((m & (m - 1)) != 0 || m > (1LL << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const auto mask = static_cast<std::uint32_t>(m - 1);
    auto where = [mask](std::size_t i) { return static_cast<std::size_t>(hash32(static_cast<std::uint32_t>(i)) & mask); };
    // Threads whose hashes collide write the same word with the same value (the word's index),
    // so the checked word holds that value whichever thread wrote last: an exact check, with no
    // assumption on the order of colliding writes.
    ReferenceCheck c = elementwise(n_of(), [where](std::size_t i) { return static_cast<double>(where(i)); }, 0,
                                   "out[hash32(i) & (m − 1)] holds its own index (colliding threads write the same value), exact");
    c.where = where;
    return c;
  }
  if (k == "reduce_tree512_partials_f32" || k == "reduce_tree256_x4_f32") {
    const std::size_t n = n_of(), b = k == "reduce_tree512_partials_f32" ? 512 : 1024;  // floats per block
    if (k == "reduce_tree256_x4_f32" && n % 4 != 0) throw InputError(k + ": n must be a multiple of 4 (float4 loads)");
    return elementwise((n + b - 1) / b, [n, b](std::size_t blk) {
      double s = 0;
      for (std::size_t i = b * blk; i < std::min(n, b * blk + b); ++i) s += dv(1, i);
      return s;
    }, 0, "every block's sum of its " + std::to_string(b) + " floats, exact (below 2^11 in magnitude, multiples of 1/256: exact in FP32)");
  }
  if (k == "reduce_tree128_atomic_f64") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dv(1, i);
      return s;
    }, 0, "the sum, exact (every partial sum a multiple of 1/256 below 2^27 in magnitude: exact in FP64, in any order)");
  }
  if (k == "gather_random_512m") {
    const long long m = param(p, "m");
    if ((m & (m - 1)) != 0 || m > (1LL << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const std::uint64_t mask = static_cast<std::uint64_t>(m) - 1;
    return elementwise(n_of(), [mask](std::size_t i) { return dv(1, key(kHalfHGatherSeed, i) & mask); }, 0,
                       "out[i] = data[idx[i]], exact");
  }
  if (k == "int_xor_mul_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      std::uint32_t y = key(kHalfHChainSeed, i);
      for (int s = 0; s < steps; ++s) y = (y ^ (y >> 15)) * kXorMulMultiplier;
      return static_cast<double>(y);
    }, 0, "the same integer rounds on the host, exact");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "stencil2d_9pt_f32_32x8") {
    const std::size_t n = n_of();
    if (n < 3) throw InputError(k + ": n must be at least 3 (one interior point)");
    const std::size_t w = n - 2;
    auto at = [n, w](std::size_t o) { return (1 + o / w) * n + 1 + o % w; };
    ReferenceCheck c = elementwise(
        w * w,
        [n, at](std::size_t o) {
          const std::size_t i = at(o);
          double s = 0;  // the nine values' sum is exact in FP32 too (multiples of 1/256 below 2^5)
          for (std::size_t r = i - n; r <= i + n; r += n) s += dv(1, r - 1) + dv(1, r) + dv(1, r + 1);
          return static_cast<double>(static_cast<float>(s) * (1.0f / 9.0f));  // the one rounded FP32 multiply
        },
        0, "interior points: the nine points' sum (exact) times the FP32 1/9, rounded once as the device rounds it, exact");
    c.where = at;
    return c;
  }
  if (k == "scale_f64x2")
    return elementwise(2 * n_of(), [](std::size_t i) { return 1.5 * dv(1, i); }, 0, "y = 1.5·x over the n pairs' 2n doubles, " + exact);
  if (k == "xorshift32_chain_64") {
    const int steps = static_cast<int>(param(p, "k"));
    return elementwise(n_of(), [steps](std::size_t i) { return static_cast<double>(xorshift32(static_cast<std::uint32_t>(i), steps)); },
                       0, "every thread's xorshift32 state after k rounds, exact");
  }
  if (k == "reduce_tree512_atomic_f32") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dv(1, i);
      return s;
    }, 1e-4, "the sum, within 1e-4 of it: every block's sum is exact in FP32 (below 2^10), the FP32 total "
             "rounds each of the n/512 adds, in any order (exact while it stays below 2^16; at n = 2^27 the "
             "total is near −2^18 and the roundings, half an ulp (2^-6 below 2^19) at most each and of either "
             "sign, add up to about 1e-5 of it)");
  }
  if (k == "reduce_two_pass") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dv(1, i);
      return s;
    }, 0, "the sum, exact (every block's FP32 partial below 2^9 is exact, their FP64 sum too)");
  }
  if (k == "stencil3d_7pt" || k == "stencil3d_7pt_zmarch" || k == "stencil3d_7pt_f64") {
    const std::size_t n = n_of(), w = n - 2, nn = n * n;
    auto at = [n, w, nn](std::size_t o) {
      const std::size_t z = 1 + o / (w * w), y = 1 + (o / w) % w, x = 1 + o % w;
      return z * nn + y * n + x;
    };
    ReferenceCheck c = elementwise(
        w * w * w,
        [at, n, nn](std::size_t o) {
          const std::size_t i = at(o);
          return 0.25 * dv(1, i) +
                 0.125 * (dv(1, i - 1) + dv(1, i + 1) + dv(1, i - n) + dv(1, i + n) + dv(1, i - nn) + dv(1, i + nn));
        },
        0, "interior points: 0.25·centre + 0.125·(six neighbours), " + exact);
    c.where = at;
    return c;
  }
  if (k == "reduce_atomic_i32") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      long long s = 0;
      for (std::size_t i = 0; i < n; ++i) s += key(4, i) & 15u;
      return static_cast<double>(s);
    }, 0, "the sum of the int32 elements, exact");
  }
  if (k == "reduce_shared_tree" || k == "reduce_warp_shuffle" || k == "tiny_reduce_1block") {
    const std::size_t n = n_of();
    return elementwise(1, [n](std::size_t) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += dv(1, i);
      return s;
    }, 0, "the sum, exact (partial sums of multiples of 1/256 below 2^15 terms are exact in FP32, the total in FP64)");
  }
  if (k == "hist_global_256" || k == "hist_global_8" || k == "hist_shared_256") {
    const std::size_t n = n_of(), bins = k == "hist_global_8" ? 8 : 256;
    auto counts = std::make_shared<std::vector<double>>();
    return elementwise(bins, [n, bins, counts](std::size_t b) {
      if (counts->empty()) {
        counts->assign(bins, 0.0);
        for (std::size_t i = 0; i < n; ++i) (*counts)[key(9, i) % bins] += 1;
      }
      return (*counts)[b];
    }, 0, "every bin's count, exact");
  }
  if (k == "scan_i32") {
    const std::size_t n = n_of();
    auto prefix = std::make_shared<std::vector<long long>>();
    return elementwise(n, [n, prefix](std::size_t i) {
      if (prefix->empty()) {
        prefix->resize(n);
        long long s = 0;
        for (std::size_t j = 0; j < n; ++j) (*prefix)[j] = s += key(10, j) & 7u;
      }
      return static_cast<double>((*prefix)[i]);
    }, 0, "inclusive prefix sums, exact");
  }
  if (k == "bgemm16_shared" || k == "bgemm4_regs") {
    const std::size_t d = k == "bgemm16_shared" ? 16 : 4, batch = static_cast<std::size_t>(param(p, "batch"));
    return elementwise(batch * d * d, [d](std::size_t o) {
      const std::size_t b = o / (d * d), r = (o / d) % d, col = o % d, base = b * d * d;
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) s += dv(1, base + r * d + j) * dv(2, base + j * d + col);
      return s;
    }, 1e-6, "C = A·B per matrix (FP64 reference; the FP32 sums round)");
  }
  if (k == "fma_chain_f32") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const float cc = value(1, i);
      float y = cc;
      for (int s = 0; s < steps; ++s) y = std::fma(y, 0.75f, cc);
      return static_cast<double>(y);
    }, 1e-6, "the same FMA chain in FP32 on the host (std::fma rounds as fmaf does)");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "fma_ilp4_f32") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const float cc = value(1, i);
      float y0 = cc, y1 = cc + 0.25f, y2 = cc + 0.5f, y3 = cc + 0.75f;
      for (int s = 0; s < steps; ++s) {
        y0 = std::fma(y0, 0.75f, cc), y1 = std::fma(y1, 0.75f, cc), y2 = std::fma(y2, 0.75f, cc), y3 = std::fma(y3, 0.75f, cc);
      }
      return static_cast<double>(((y0 + y1) + y2) + y3);
    }, 1e-6, "the same four FMA chains in FP32 on the host");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "fma_chain_f64") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const double cc = dv(1, i);
      double y = cc;
      for (int s = 0; s < steps; ++s) y = std::fma(y, 0.75, cc);
      return y;
    }, 1e-12, "the same FMA chain in FP64 on the host");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "fma_chain_f16x2") {
    const int steps = static_cast<int>(param(p, "k"));
    // Output element e is half e of the __half2 array (n pairs: 2n halves).
    ReferenceCheck c = elementwise(2 * n_of(), [steps](std::size_t e) {
      const double cc = dv(1, e);
      double y = cc;
      for (int s = 0; s < steps; ++s) y = round_to_half(y * 0.75 + cc);
      return y;
    }, 2e-3, "the same chain with each FMA rounded once to binary16 on the host");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "sinf_chain" || k == "sfu_sin_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const double cc = dv(1, i);
      double y = cc;
      for (int s = 0; s < steps; ++s) y = std::sin(y) + cc;
      return y;
    }, k == "sinf_chain" ? 1e-4 : 5e-4,
        k == "sinf_chain" ? "the chain in FP64 on the host (sinf is within 2 ulp; |cos| <= 1 keeps the chain's error from growing)"
                          : "the chain in FP64 on the host (__sinf's absolute error is about 2^-21.4 on [-π, π])");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "int_mix_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      std::uint32_t y = key(11, i);
      for (int s = 0; s < steps; ++s) y = (y ^ (y >> 15)) * 0x2c1b3c6du + 0x9e3779b9u;
      return static_cast<double>(y);
    }, 0, "the same integer rounds on the host, exact");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "sfu_sinexp_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const double cc = dv(1, i);
      double y = cc;
      for (int s = 0; s < steps; ++s) y = 0.25 * std::exp(std::sin(y)) + cc;
      return y;
    }, 5e-4, "the chain in FP64 on the host (__sinf and __expf are within about 2^-21 here; "
             "|d/dy 0.25·exp(sin y)| <= 0.68 keeps the chain's error from growing)");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "int_xorshift_chain") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      std::uint32_t y = key(11, i);
      for (int s = 0; s < steps; ++s) {
        y ^= y << 13;
        y ^= y >> 17;
        y = y * 0x9e3779b1u + 7u;
      }
      return static_cast<double>(y);
    }, 0, "the same integer rounds on the host, exact");
    c.samples = 1 << 14;
    return c;
  }
  if (k == "tiny_fill_1block")
    return elementwise(n_of(), [](std::size_t t) { return 0.5 * static_cast<double>(t); }, 0, "out[t] = 0.5·t, exact");
  if (k == "regheavy_fma64") {
    const int steps = static_cast<int>(param(p, "k"));
    ReferenceCheck c = elementwise(n_of(), [steps](std::size_t i) {
      const float cc = value(1, i);
      float acc[64];
      for (int j = 0; j < 64; ++j) acc[j] = static_cast<float>(j) * (1.0f / 64.0f);
      for (int s = 0; s < steps; ++s)
        for (float& a : acc) a = std::fma(a, 0.75f, cc);
      float sum = 0;
      for (float a : acc) sum += a;
      return static_cast<double>(sum);
    }, 1e-6, "the same 64 chains and their sum in FP32 on the host");
    c.samples = 1 << 12;
    return c;
  }
  if (k == "regheavy_stream16") {
    // n floats; t = n/64 threads; thread i moves the float4 at i + j·t to i + (15 − j)·t.
    const std::size_t n = n_of(), t = n / 64;
    return elementwise(n, [t](std::size_t e) {
      const std::size_t slot = e / 4, q = e % 4, j = slot / t, i = slot % t;
      return dv(1, 4 * (i + (15 - j) * t) + q);
    }, 0, "out slice j = in slice 15 − j (16 slices of n/16 floats), exact");
  }
  throw InputError("no reference for generalisation kernel '" + kernel + "'");
}

}  // namespace perfmodel::gen
