// The generalisation suite's host side: buffers, device-side input fills, launches, the check
// against the CPU reference, and the timing (perfmodel/kernels/generalisation_runs.hpp).
#include "perfmodel/kernels/generalisation_runs.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "cuda_check.hpp"
#include "event_timer.cuh"
#include "generalisation_kernels.cuh"
#include "perfmodel/kernels/thread_pool.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/statistics.hpp"

namespace perfmodel::gpu {
namespace {

class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {
    PERFMODEL_CUDA_CHECK(cudaMalloc(&p_, std::max<std::size_t>(bytes, 16)));
    PERFMODEL_CUDA_CHECK(cudaMemset(p_, 0, std::max<std::size_t>(bytes, 16)));
  }
  ~Buffer() {
    if (p_) cudaFree(p_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

double to_double(float v) { return v; }
double to_double(double v) { return v; }
double to_double(int v) { return v; }
double to_double(unsigned v) { return v; }
double to_double(__half v) { return static_cast<double>(__half2float(v)); }

int grid_for(long long items, int per_block) { return static_cast<int>((items + per_block - 1) / per_block); }

// One prepared kernel: its buffers (alive as long as the run), its launches and how to read its output.
struct GenRun {
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<GenPhase> phases;
  std::vector<const void*> functions;
  std::function<void(cudaStream_t)> reset = [](cudaStream_t) {};
  std::function<void(cudaStream_t)> enqueue;
  std::function<std::vector<double>(const std::vector<std::size_t>&)> read;

  template <class T>
  T* alloc(std::size_t count) {
    buffers.push_back(std::make_unique<Buffer>(count * sizeof(T)));
    return static_cast<T*>(buffers.back()->get());
  }
  float* f32(std::size_t count, std::uint32_t seed) {
    float* p = alloc<float>(count);
    gen::fill_value_f32<<<grid_for(static_cast<long long>(count), 256), 256>>>(p, static_cast<long long>(count), seed);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    return p;
  }
  double* f64(std::size_t count, std::uint32_t seed) {
    double* p = alloc<double>(count);
    gen::fill_value_f64<<<grid_for(static_cast<long long>(count), 256), 256>>>(p, static_cast<long long>(count), seed);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    return p;
  }
  __half* f16(std::size_t count, std::uint32_t seed) {
    __half* p = alloc<__half>(count);
    gen::fill_value_f16<<<grid_for(static_cast<long long>(count), 256), 256>>>(p, static_cast<long long>(count), seed);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    return p;
  }
  std::uint32_t* keys(std::size_t count, std::uint32_t seed, std::uint32_t mask) {
    auto* p = alloc<std::uint32_t>(count);
    gen::fill_key_masked<<<grid_for(static_cast<long long>(count), 256), 256>>>(p, static_cast<long long>(count), seed, mask);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    return p;
  }
  void phase(const char* name, const void* fn, long long blocks, int threads) {
    GenPhase p;
    p.kernel = name;
    p.blocks = blocks;
    p.threads_per_block = threads;
    phases.push_back(p);
    functions.push_back(fn);
  }
  template <class T>
  void output(const T* p, std::size_t count) {
    read = [p, count](const std::vector<std::size_t>& positions) {
      std::vector<T> all(count);
      PERFMODEL_CUDA_CHECK(cudaMemcpy(all.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
      std::vector<double> v;
      v.reserve(positions.size());
      for (std::size_t i : positions) v.push_back(to_double(all.at(i)));
      return v;
    };
  }
};

#define PHASE(run, fn, blocks, threads) (run).phase(#fn, reinterpret_cast<const void*>(&gen::fn), (blocks), (threads))

GenRun make_run(const std::string& k, const gen::Params& p) {
  GenRun r;
  const long long n = p.count("n") ? gen::param(p, "n") : 0;
  const int ni = static_cast<int>(n);
  const auto un = static_cast<std::size_t>(n);
  const int g = grid_for(n, 256);

  if (k == "copy_f32") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    PHASE(r, copy_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::copy_f32<<<g, 256, 0, st>>>(a, b, ni); };
    r.output(b, un);
  } else if (k == "copy_f32x4") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    const int g4 = grid_for(n / 4, 256);
    PHASE(r, copy_f32x4, g4, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::copy_f32x4<<<g4, 256, 0, st>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b), ni / 4);
    };
    r.output(b, un);
  } else if (k == "scale_f32") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    PHASE(r, scale_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::scale_f32<<<g, 256, 0, st>>>(a, b, 1.5f, ni); };
    r.output(b, un);
  } else if (k == "add_f32") {
    const float *a = r.f32(un, 1), *b = r.f32(un, 2);
    float* c = r.alloc<float>(un);
    PHASE(r, add_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::add_f32<<<g, 256, 0, st>>>(a, b, c, ni); };
    r.output(c, un);
  } else if (k == "triad_f32") {
    float* a = r.alloc<float>(un);
    const float *b = r.f32(un, 2), *c = r.f32(un, 3);
    PHASE(r, triad_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::triad_f32<<<g, 256, 0, st>>>(a, b, c, 1.5f, ni); };
    r.output(a, un);
  } else if (k == "triad_f64") {
    double* a = r.alloc<double>(un);
    const double *b = r.f64(un, 2), *c = r.f64(un, 3);
    PHASE(r, triad_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::triad_f64<<<g, 256, 0, st>>>(a, b, c, 1.5, ni); };
    r.output(a, un);
  } else if (k == "axpy_f32" || k == "tiny_axpy_4k") {
    const float* x = r.f32(un, 1);
    float* y = r.f32(un, 2);
    PHASE(r, axpy_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::axpy_f32<<<g, 256, 0, st>>>(1.5f, x, y, ni); };
    r.output(y, un);
  } else if (k == "axpy_f32x4") {
    const float* x = r.f32(un, 1);
    float* y = r.f32(un, 2);
    const int g4 = grid_for(n / 4, 256);
    PHASE(r, axpy_f32x4, g4, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::axpy_f32x4<<<g4, 256, 0, st>>>(1.5f, reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), ni / 4);
    };
    r.output(y, un);
  } else if (k == "axpy_f64") {
    const double* x = r.f64(un, 1);
    double* y = r.f64(un, 2);
    PHASE(r, axpy_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::axpy_f64<<<g, 256, 0, st>>>(1.5, x, y, ni); };
    r.output(y, un);
  } else if (k == "axpy_f16") {
    const __half* x = r.f16(un, 1);
    __half* y = r.f16(un, 2);
    const __half a = __float2half(1.5f);
    PHASE(r, axpy_f16, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::axpy_f16<<<g, 256, 0, st>>>(a, x, y, ni); };
    r.output(y, un);
  } else if (k == "axpy_f16x2") {
    const __half* x = r.f16(un, 1);
    __half* y = r.f16(un, 2);
    const __half2 a = __float2half2_rn(1.5f);
    const int g2 = grid_for(n / 2, 256);
    PHASE(r, axpy_f16x2, g2, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::axpy_f16x2<<<g2, 256, 0, st>>>(a, reinterpret_cast<const __half2*>(x), reinterpret_cast<__half2*>(y), ni / 2);
    };
    r.output(y, un);
  } else if (k == "strided_read_f32" || k == "strided_write_f32") {
    const long long s = gen::param(p, "s");
    const int si = static_cast<int>(s);
    if (k == "strided_read_f32") {
      const float* a = r.f32(un * static_cast<std::size_t>(s), 1);
      float* b = r.alloc<float>(un);
      PHASE(r, strided_read_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::strided_read_f32<<<g, 256, 0, st>>>(a, b, si, ni); };
      r.output(b, un);
    } else {
      const float* a = r.f32(un, 1);
      float* b = r.alloc<float>(un * static_cast<std::size_t>(s));
      PHASE(r, strided_write_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::strided_write_f32<<<g, 256, 0, st>>>(a, b, si, ni); };
      r.output(b, un * static_cast<std::size_t>(s));
    }
  } else if (k == "gather_random" || k == "gather_l2" || k == "gather_local") {
    const bool local = k == "gather_local";
    const std::size_t m = local ? un : static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    int* idx = r.alloc<int>(un);
    if (local)
      gen::fill_local_index<<<g, 256>>>(idx, n, 6);
    else
      gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, 5, static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "scatter_random" || k == "scatter_local") {
    int bits = 0;
    while ((1LL << bits) < n) ++bits;
    if ((1LL << bits) != n) throw InputError(k + ": n must be a power of two (the permutation is over [0, 2^bits))");
    if (k == "scatter_local" && bits < 12) throw InputError(k + ": n must be at least 4096 (one window)");
    const float* in = r.f32(un, 1);
    int* idx = r.alloc<int>(un);
    if (k == "scatter_random")
      gen::fill_permutation<<<g, 256>>>(idx, n, bits, 7);
    else
      gen::fill_local_permutation<<<g, 256>>>(idx, n, 8);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, scatter_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::scatter_f32<<<g, 256, 0, st>>>(in, idx, out, ni); };
    r.output(out, un);
  } else if (k == "transpose_naive" || k == "transpose_tiled" || k == "transpose_tiled_padded") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(32, 8);
    if (k == "transpose_naive") {
      const dim3 grid(ni / 32, ni / 8);
      PHASE(r, transpose_naive, n / 32 * (n / 8), 256);
      r.enqueue = [=](cudaStream_t st) { gen::transpose_naive<<<grid, block, 0, st>>>(in, out, ni); };
    } else {
      const dim3 grid(ni / 32, ni / 32);
      if (k == "transpose_tiled") {
        r.phase("transpose_tiled<0>", reinterpret_cast<const void*>(&gen::transpose_tiled<0>), n / 32 * (n / 32), 256);
        r.enqueue = [=](cudaStream_t st) { gen::transpose_tiled<0><<<grid, block, 0, st>>>(in, out, ni); };
      } else {
        r.phase("transpose_tiled<1>", reinterpret_cast<const void*>(&gen::transpose_tiled<1>), n / 32 * (n / 32), 256);
        r.enqueue = [=](cudaStream_t st) { gen::transpose_tiled<1><<<grid, block, 0, st>>>(in, out, ni); };
      }
    }
    r.output(out, nn);
  } else if (k == "stencil2d_5pt" || k == "stencil2d_5pt_shared") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(32, 8), grid(ni / 32, ni / 8);
    if (k == "stencil2d_5pt") {
      PHASE(r, stencil2d_5pt, n / 32 * (n / 8), 256);
      r.enqueue = [=](cudaStream_t st) { gen::stencil2d_5pt<<<grid, block, 0, st>>>(in, out, ni); };
    } else {
      PHASE(r, stencil2d_5pt_shared, n / 32 * (n / 8), 256);
      r.enqueue = [=](cudaStream_t st) { gen::stencil2d_5pt_shared<<<grid, block, 0, st>>>(in, out, ni); };
    }
    r.output(out, nn);
  } else if (k == "stencil3d_7pt") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nnn = un * un * un;
    const float* in = r.f32(nnn, 1);
    float* out = r.alloc<float>(nnn);
    const dim3 block(32, 4, 4), grid(ni / 32, ni / 4, ni / 4);
    PHASE(r, stencil3d_7pt, n / 32 * (n / 4) * (n / 4), 512);
    r.enqueue = [=](cudaStream_t st) { gen::stencil3d_7pt<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nnn);
  } else if (k == "reduce_atomic_i32") {
    const int* x = reinterpret_cast<const int*>(r.keys(un, 4, 15u));
    int* total = r.alloc<int>(1);
    PHASE(r, reduce_atomic_i32, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(int), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_atomic_i32<<<g, 256, 0, st>>>(x, total, ni); };
    r.output(total, 1);
  } else if (k == "reduce_shared_tree" || k == "reduce_warp_shuffle" || k == "tiny_reduce_1block") {
    const float* x = r.f32(un, 1);
    double* total = r.alloc<double>(1);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(double), st)); };
    if (k == "reduce_shared_tree") {
      PHASE(r, reduce_shared_tree, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::reduce_shared_tree<<<g, 256, 0, st>>>(x, total, ni); };
    } else if (k == "reduce_warp_shuffle") {
      PHASE(r, reduce_warp_shuffle, 1024, 256);
      r.enqueue = [=](cudaStream_t st) { gen::reduce_warp_shuffle<<<1024, 256, 0, st>>>(x, total, ni); };
    } else {
      PHASE(r, tiny_reduce, 1, 256);
      r.enqueue = [=](cudaStream_t st) { gen::tiny_reduce<<<1, 256, 0, st>>>(x, total, ni); };
    }
    r.output(total, 1);
  } else if (k == "hist_global_256" || k == "hist_global_8" || k == "hist_shared_256") {
    const std::uint32_t* keys = r.keys(un, 9, 0xffffffffu);
    const int bins = k == "hist_global_8" ? 8 : 256;
    unsigned* hist = r.alloc<unsigned>(256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned), st)); };
    if (k == "hist_shared_256") {
      PHASE(r, hist_shared_256, 1024, 256);
      r.enqueue = [=](cudaStream_t st) { gen::hist_shared_256<<<1024, 256, 0, st>>>(keys, hist, ni); };
    } else {
      PHASE(r, hist_global, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::hist_global<<<g, 256, 0, st>>>(keys, hist, bins, ni); };
    }
    r.output(hist, static_cast<std::size_t>(bins));
  } else if (k == "scan_i32") {
    const int* in = reinterpret_cast<const int*>(r.keys(un, 10, 7u));
    int* out = r.alloc<int>(un);
    const int blocks = grid_for(n, 1024);
    int* sums = r.alloc<int>(static_cast<std::size_t>(blocks));
    PHASE(r, scan_blocks, blocks, 1024);
    PHASE(r, scan_block_sums, 1, 1024);
    PHASE(r, scan_add_offsets, g, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::scan_blocks<<<blocks, 1024, 0, st>>>(in, out, sums, ni);
      gen::scan_block_sums<<<1, 1024, 0, st>>>(sums, blocks);
      gen::scan_add_offsets<<<g, 256, 0, st>>>(out, sums, ni);
    };
    r.output(out, un);
  } else if (k == "bgemm16_shared" || k == "bgemm4_regs") {
    const long long batch = gen::param(p, "batch");
    const std::size_t d = k == "bgemm16_shared" ? 16 : 4, count = static_cast<std::size_t>(batch) * d * d;
    const float *a = r.f32(count, 1), *b = r.f32(count, 2);
    float* c = r.alloc<float>(count);
    const int bi = static_cast<int>(batch);
    if (d == 16) {
      PHASE(r, bgemm16_shared, batch, 256);
      r.enqueue = [=](cudaStream_t st) { gen::bgemm16_shared<<<bi, dim3(16, 16), 0, st>>>(a, b, c); };
    } else {
      const int gb = grid_for(batch, 128);
      PHASE(r, bgemm4_regs, gb, 128);
      r.enqueue = [=](cudaStream_t st) {
        gen::bgemm4_regs<<<gb, 128, 0, st>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b),
                                             reinterpret_cast<float4*>(c), bi);
      };
    }
    r.output(c, count);
  } else if (k == "fma_chain_f32" || k == "fma_ilp4_f32" || k == "sinf_chain" || k == "sfu_sin_chain" || k == "regheavy_fma64") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const float* in = r.f32(un, 1);
    float* out = r.alloc<float>(un);
    if (k == "fma_chain_f32") {
      PHASE(r, fma_chain_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::fma_chain_f32<<<g, 256, 0, st>>>(in, out, steps, ni); };
    } else if (k == "fma_ilp4_f32") {
      PHASE(r, fma_ilp4_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::fma_ilp4_f32<<<g, 256, 0, st>>>(in, out, steps, ni); };
    } else if (k == "sinf_chain") {
      PHASE(r, sinf_chain, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::sinf_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    } else if (k == "sfu_sin_chain") {
      PHASE(r, sfu_sin_chain, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::sfu_sin_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    } else {
      PHASE(r, regheavy_fma64, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::regheavy_fma64<<<g, 256, 0, st>>>(in, out, steps, ni); };
    }
    r.output(out, un);
  } else if (k == "fma_chain_f64") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const double* in = r.f64(un, 1);
    double* out = r.alloc<double>(un);
    PHASE(r, fma_chain_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::fma_chain_f64<<<g, 256, 0, st>>>(in, out, steps, ni); };
    r.output(out, un);
  } else if (k == "fma_chain_f16x2") {
    // n __half2 pairs: 2n halves.
    const int steps = static_cast<int>(gen::param(p, "k"));
    const __half* in = r.f16(2 * un, 1);
    __half* out = r.alloc<__half>(2 * un);
    PHASE(r, fma_chain_f16x2, g, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::fma_chain_f16x2<<<g, 256, 0, st>>>(reinterpret_cast<const __half2*>(in), reinterpret_cast<__half2*>(out), steps, ni);
    };
    r.output(out, 2 * un);
  } else if (k == "int_mix_chain") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const std::uint32_t* in = r.keys(un, 11, 0xffffffffu);
    auto* out = r.alloc<std::uint32_t>(un);
    PHASE(r, int_mix_chain, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::int_mix_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    r.output(reinterpret_cast<const unsigned*>(out), un);
  } else if (k == "tiny_fill_1block") {
    float* out = r.alloc<float>(un);
    const int gb = grid_for(n, 256);
    PHASE(r, tiny_fill, gb, 256);
    r.enqueue = [=](cudaStream_t st) { gen::tiny_fill<<<gb, 256, 0, st>>>(out, ni); };
    r.output(out, un);
  } else if (k == "starved_copy_132x128") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    PHASE(r, starved_copy, 132, 128);
    r.enqueue = [=](cudaStream_t st) { gen::starved_copy<<<132, 128, 0, st>>>(a, b, ni); };
    r.output(b, un);
  } else if (k == "starved_triad_32x256") {
    float* a = r.alloc<float>(un);
    const float *b = r.f32(un, 2), *c = r.f32(un, 3);
    PHASE(r, starved_triad, 32, 256);
    r.enqueue = [=](cudaStream_t st) { gen::starved_triad<<<32, 256, 0, st>>>(a, b, c, 1.5f, ni); };
    r.output(a, un);
  } else if (k == "regheavy_stream16") {
    if (n % 64 != 0) throw InputError(k + ": n must be a multiple of 64");
    const float* in = r.f32(un, 1);
    float* out = r.alloc<float>(un);
    const int t = ni / 64, gt = grid_for(t, 256);
    PHASE(r, regheavy_stream16, gt, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::regheavy_stream16<<<gt, 256, 0, st>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), t);
    };
    r.output(out, un);
  } else if (k == "stream_3r2w_f32") {
    const float *a = r.f32(un, 1), *b = r.f32(un, 2), *c = r.f32(un, 3);
    float *d = r.alloc<float>(un), *e = r.alloc<float>(un);
    PHASE(r, stream_3r2w_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::stream_3r2w_f32<<<g, 256, 0, st>>>(a, b, c, d, e, ni); };
    r.output(d, un);
  } else if (k == "strided_read_f64") {
    const long long s = gen::param(p, "s");
    const int si = static_cast<int>(s);
    const double* a = r.f64(un * static_cast<std::size_t>(s), 1);
    double* b = r.alloc<double>(un);
    PHASE(r, strided_read_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::strided_read_f64<<<g, 256, 0, st>>>(a, b, si, ni); };
    r.output(b, un);
  } else if (k == "strided_write_s2_f32") {
    const long long s = gen::param(p, "s");
    const int si = static_cast<int>(s);
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un * static_cast<std::size_t>(s));
    PHASE(r, strided_write_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::strided_write_f32<<<g, 256, 0, st>>>(a, b, si, ni); };
    r.output(b, un * static_cast<std::size_t>(s));
  } else if (k == "gather_random_32m") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, 5, static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "stencil2d_9pt") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(32, 8), grid(ni / 32, ni / 8);
    PHASE(r, stencil2d_9pt, n / 32 * (n / 8), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil2d_9pt<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nn);
  } else if (k == "reduce_block_atomic_f64") {
    const double* x = r.f64(un, 1);
    double* sums = r.alloc<double>(static_cast<std::size_t>(g));
    PHASE(r, reduce_block_atomic_f64, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sums, 0, static_cast<std::size_t>(g) * sizeof(double), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_block_atomic_f64<<<g, 256, 0, st>>>(x, sums, ni); };
    r.output(sums, static_cast<std::size_t>(g));
  } else if (k == "hist_f32_64") {
    const std::uint32_t* keys = r.keys(un, 9, 0xffffffffu);
    float* hist = r.alloc<float>(64);
    PHASE(r, hist_f32_64, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(hist, 0, 64 * sizeof(float), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::hist_f32_64<<<g, 256, 0, st>>>(keys, hist, ni); };
    r.output(hist, 64);
  } else if (k == "atomic_max_i32_1024") {
    const std::uint32_t* keys = r.keys(un, 12, 0xffffffffu);
    int* maxima = r.alloc<int>(1024);
    PHASE(r, atomic_max_i32_1024, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(maxima, 0, 1024 * sizeof(int), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::atomic_max_i32_1024<<<g, 256, 0, st>>>(keys, maxima, ni); };
    r.output(maxima, 1024);
  } else if (k == "sfu_sinexp_chain") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const float* in = r.f32(un, 1);
    float* out = r.alloc<float>(un);
    PHASE(r, sfu_sinexp_chain, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::sfu_sinexp_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    r.output(out, un);
  } else if (k == "int_xorshift_chain") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const std::uint32_t* in = r.keys(un, 11, 0xffffffffu);
    auto* out = r.alloc<std::uint32_t>(un);
    PHASE(r, int_xorshift_chain, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::int_xorshift_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    r.output(reinterpret_cast<const unsigned*>(out), un);
  } else if (k == "tiny_scale_64") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    const int gb = grid_for(n, 64);
    PHASE(r, scale_f32, gb, 64);
    r.enqueue = [=](cudaStream_t st) { gen::scale_f32<<<gb, 64, 0, st>>>(a, b, 1.5f, ni); };
    r.output(b, un);
  } else if (k == "gridstride_copy_132x256") {
    const float* a = r.f32(un, 1);
    float* b = r.alloc<float>(un);
    PHASE(r, starved_copy, 132, 256);
    r.enqueue = [=](cudaStream_t st) { gen::starved_copy<<<132, 256, 0, st>>>(a, b, ni); };
    r.output(b, un);
  } else if (k == "reduce_block_atomic_f32") {
    const float* x = r.f32(un, 1);
    float* sums = r.alloc<float>(static_cast<std::size_t>(g));
    PHASE(r, reduce_block_atomic_f32, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sums, 0, static_cast<std::size_t>(g) * sizeof(float), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_block_atomic_f32<<<g, 256, 0, st>>>(x, sums, ni); };
    r.output(sums, static_cast<std::size_t>(g));
  } else if (k == "reduce_warp_slot_f64") {
    const double* x = r.f64(un, 1);
    const std::size_t slots = (un + 31) / 32;
    double* sums = r.alloc<double>(slots);
    PHASE(r, reduce_warp_slot_f64, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sums, 0, slots * sizeof(double), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_warp_slot_f64<<<g, 256, 0, st>>>(x, sums, ni); };
    r.output(sums, slots);
  } else if (k == "hist_global_32") {
    const std::uint32_t* keys = r.keys(un, 13, 0xffffffffu);
    int* hist = r.alloc<int>(32);
    PHASE(r, hist_global_32, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(hist, 0, 32 * sizeof(int), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::hist_global_32<<<g, 256, 0, st>>>(keys, hist, ni); };
    r.output(hist, 32);
  } else if (k == "hist_f64_16") {
    const std::uint32_t* keys = r.keys(un, 14, 0xffffffffu);
    double* hist = r.alloc<double>(16);
    PHASE(r, hist_f64_16, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(hist, 0, 16 * sizeof(double), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::hist_f64_16<<<g, 256, 0, st>>>(keys, hist, ni); };
    r.output(hist, 16);
  } else if (k == "scatter_add_f32_4m") {
    const std::uint32_t* keys = r.keys(un, 15, 0xffffffffu);
    const float* x = r.f32(un, 1);
    const std::size_t slots = std::size_t{1} << 20;
    float* y = r.alloc<float>(slots);
    PHASE(r, scatter_add_f32_4m, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(y, 0, slots * sizeof(float), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::scatter_add_f32_4m<<<g, 256, 0, st>>>(keys, x, y, ni); };
    r.output(y, slots);
  } else if (k == "counter_i32_runtime_uniform") {
    // Block b's slot is b mod 4 (gen::counter_slot): the four counters share one sector.
    std::vector<int> slot_of_block(static_cast<std::size_t>(g));
    for (std::size_t b = 0; b < slot_of_block.size(); ++b) slot_of_block[b] = static_cast<int>(gen::counter_slot(b));
    int* block_slot = r.alloc<int>(slot_of_block.size());
    PERFMODEL_CUDA_CHECK(cudaMemcpy(block_slot, slot_of_block.data(), slot_of_block.size() * sizeof(int), cudaMemcpyHostToDevice));
    int* counters = r.alloc<int>(gen::kCounterSlots);
    PHASE(r, counter_i32_runtime_uniform, g, 256);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(counters, 0, gen::kCounterSlots * sizeof(int), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::counter_i32_runtime_uniform<<<g, 256, 0, st>>>(block_slot, counters, ni); };
    r.output(counters, gen::kCounterSlots);
  } else if (k == "stencil1d_3pt_f32") {
    const float* in = r.f32(un, 1);
    float* out = r.alloc<float>(un);
    PHASE(r, stencil1d_3pt_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil1d_3pt_f32<<<g, 256, 0, st>>>(in, out, ni); };
    r.output(out, un);
  } else if (k == "stencil2d_5pt_f64_16x16") {
    if (n % 16 != 0) throw InputError(k + ": n must be a multiple of 16");
    const std::size_t nn = un * un;
    const double* in = r.f64(nn, 1);
    double* out = r.alloc<double>(nn);
    const dim3 block(16, 16), grid(ni / 16, ni / 16);
    PHASE(r, stencil2d_5pt_f64, n / 16 * (n / 16), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil2d_5pt_f64<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nn);
  } else if (k == "stencil2d_box9_64x4") {
    if (n % 64 != 0) throw InputError(k + ": n must be a multiple of 64");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(64, 4), grid(ni / 64, ni / 4);
    PHASE(r, stencil2d_box9_f32, n / 64 * (n / 4), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil2d_box9_f32<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nn);
  } else if (k == "stencil3d_7pt_zmarch") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nnn = un * un * un;
    const float* in = r.f32(nnn, 1);
    float* out = r.alloc<float>(nnn);
    const dim3 block(32, 8), grid(ni / 32, ni / 8);
    PHASE(r, stencil3d_7pt_zmarch, n / 32 * (n / 8), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil3d_7pt_zmarch<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nnn);
  } else if (k == "gather_near_512") {
    const float* data = r.f32(un, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_near_index<<<g, 256>>>(idx, n, 16);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "gather4_l2_16m") {
    if (n % 4 != 0) throw InputError(k + ": n must be a multiple of 4");
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, 17, static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    const int g4 = grid_for(n / 4, 256);
    PHASE(r, gather4_f32, g4, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::gather4_f32<<<g4, 256, 0, st>>>(data, reinterpret_cast<const int4*>(idx), reinterpret_cast<float4*>(out), ni / 4);
    };
    r.output(out, un);
  } else if (k == "gather_random_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, 18, static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "xorshift32_chain_64") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    auto* out = r.alloc<std::uint32_t>(un);
    PHASE(r, xorshift32_chain, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::xorshift32_chain<<<g, 256, 0, st>>>(out, steps, ni); };
    r.output(reinterpret_cast<const unsigned*>(out), un);
  } else if (k == "reduce_tree512_atomic_f32") {
    const float* x = r.f32(un, 1);
    float* total = r.alloc<float>(1);
    const int g512 = grid_for(n, 512);
    PHASE(r, reduce_tree512_f32, g512, 512);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(float), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_tree512_f32<<<g512, 512, 0, st>>>(x, total, ni); };
    r.output(total, 1);
  } else if (k == "reduce_two_pass") {
    const float* x = r.f32(un, 1);
    float* partials = r.alloc<float>(static_cast<std::size_t>(g));
    double* total = r.alloc<double>(1);
    PHASE(r, reduce_pass1_f32, g, 256);
    PHASE(r, reduce_pass2_f64, 1, 1024);
    r.enqueue = [=](cudaStream_t st) {
      gen::reduce_pass1_f32<<<g, 256, 0, st>>>(x, partials, ni);
      gen::reduce_pass2_f64<<<1, 1024, 0, st>>>(partials, total, g);
    };
    r.output(total, 1);
  } else if (k == "gather_random_256m" || k == "gather_random_4g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, k == "gather_random_256m" ? 19 : 20,
                                     static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "gather_random_f64_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const double* data = r.f64(m, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_key_masked<<<g, 256>>>(reinterpret_cast<std::uint32_t*>(idx), n, 21, static_cast<std::uint32_t>(m - 1));
    PERFMODEL_CUDA_CHECK_LAUNCH();
    double* out = r.alloc<double>(un);
    PHASE(r, gather_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f64<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "gather2_random_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    const float* data = r.f32(m, 1);
    const auto* idx_a = reinterpret_cast<const int*>(r.keys(un, 22, static_cast<std::uint32_t>(m - 1)));
    const auto* idx_b = reinterpret_cast<const int*>(r.keys(un, 23, static_cast<std::uint32_t>(m - 1)));
    float* out = r.alloc<float>(un);
    PHASE(r, gather2_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather2_f32<<<g, 256, 0, st>>>(data, idx_a, idx_b, out, ni); };
    r.output(out, un);
  } else if (k == "hash_gather_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if ((m & (m - 1)) != 0 || m > (std::size_t{1} << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const float* data = r.f32(m, 1);
    float* out = r.alloc<float>(un);
    const auto mask = static_cast<std::uint32_t>(m - 1);
    PHASE(r, hash_gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::hash_gather_f32<<<g, 256, 0, st>>>(data, out, mask, ni); };
    r.output(out, un);
  } else if (k == "random_rmw_256m") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31) throw InputError(k + ": m must be a power of two, at most 2^31");
    if (un > m) throw InputError(k + ": n must be at most m (the updates go to distinct words)");
    const float* x = r.f32(un, 1);
    float* y = r.f32(m, 2);
    int* idx = r.alloc<int>(un);
    gen::fill_permutation<<<g, 256>>>(idx, n, bits, 24);  // the first n values of a permutation of [0, m): injective
    PERFMODEL_CUDA_CHECK_LAUNCH();
    PHASE(r, random_rmw_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::random_rmw_f32<<<g, 256, 0, st>>>(x, idx, y, ni); };
    r.output(y, m);
  } else if (k == "gather_random_2g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if ((m & (m - 1)) != 0 || m > (std::size_t{1} << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const float* data = r.f32(m, 1);
    const auto* idx = reinterpret_cast<const int*>(r.keys(un, 25, static_cast<std::uint32_t>(m - 1)));
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "gather_random_96m_f64") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if (m > (std::size_t{1} << 31)) throw InputError(k + ": m must be at most 2^31");
    const double* data = r.f64(m, 1);
    auto* idx = r.alloc<std::uint32_t>(un);
    gen::fill_key_below<<<g, 256>>>(idx, n, 26, static_cast<std::uint32_t>(m));  // uniform over [0, m), m any size
    PERFMODEL_CUDA_CHECK_LAUNCH();
    double* out = r.alloc<double>(un);
    PHASE(r, gather_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f64<<<g, 256, 0, st>>>(data, reinterpret_cast<const int*>(idx), out, ni); };
    r.output(out, un);
  } else if (k == "hash_gather2_512m") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if ((m & (m - 1)) != 0 || m > (std::size_t{1} << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const float* data = r.f32(m, 1);
    float* out = r.alloc<float>(un);
    const auto mask = static_cast<std::uint32_t>(m - 1);
    PHASE(r, hash_gather2_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::hash_gather2_f32<<<g, 256, 0, st>>>(data, out, mask, ni); };
    r.output(out, un);
  } else if (k == "scatter_random_1g" || k == "rmw_random_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31) throw InputError(k + ": m must be a power of two, at most 2^31");
    if (un > m) throw InputError(k + ": n must be at most m (the writes go to distinct words)");
    const bool scatter = k == "scatter_random_1g";
    const float* x = r.f32(un, 1);
    int* idx = r.alloc<int>(un);
    gen::fill_permutation<<<g, 256>>>(idx, n, bits, scatter ? 27 : 28);  // the first n values of a permutation of [0, m): injective
    PERFMODEL_CUDA_CHECK_LAUNCH();
    if (scatter) {
      float* out = r.alloc<float>(m);
      PHASE(r, scatter_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::scatter_f32<<<g, 256, 0, st>>>(x, idx, out, ni); };
      r.output(out, m);
    } else {
      float* y = r.f32(m, 2);
      PHASE(r, random_rmw_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::random_rmw_f32<<<g, 256, 0, st>>>(x, idx, y, ni); };
      r.output(y, m);
    }
  } else if (k == "int_rotl_add_chain" || k == "int_lcg_and_chain") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const bool rotl = k == "int_rotl_add_chain";
    const std::uint32_t* in = r.keys(un, rotl ? 29 : 30, 0xffffffffu);
    auto* out = r.alloc<std::uint32_t>(un);
    if (rotl) {
      PHASE(r, int_rotl_add_chain, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::int_rotl_add_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    } else {
      PHASE(r, int_lcg_and_chain, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::int_lcg_and_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    }
    r.output(reinterpret_cast<const unsigned*>(out), un);
  } else if (k == "stencil1d_5pt_f32") {
    const float* in = r.f32(un, 1);
    float* out = r.alloc<float>(un);
    PHASE(r, stencil1d_5pt_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil1d_5pt_f32<<<g, 256, 0, st>>>(in, out, ni); };
    r.output(out, un);
  } else if (k == "stencil2d_5pt_f32_64x4") {
    if (n % 64 != 0) throw InputError(k + ": n must be a multiple of 64");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(64, 4), grid(ni / 64, ni / 4);
    PHASE(r, stencil2d_5pt, n / 64 * (n / 4), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil2d_5pt<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nn);
  } else if (k == "stencil3d_7pt_f64") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nnn = un * un * un;
    const double* in = r.f64(nnn, 1);
    double* out = r.alloc<double>(nnn);
    const dim3 block(32, 4, 2), grid(ni / 32, ni / 4, ni / 2);
    PHASE(r, stencil3d_7pt_f64, n / 32 * (n / 4) * (n / 2), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil3d_7pt_f64<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nnn);
  } else if (k == "reduce_shared_tree_256_f64") {
    const double* x = r.f64(un, 1);
    double* partials = r.alloc<double>(static_cast<std::size_t>(g));
    PHASE(r, reduce_shared_tree_256_f64, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::reduce_shared_tree_256_f64<<<g, 256, 0, st>>>(x, partials, ni); };
    r.output(partials, static_cast<std::size_t>(g));
  } else if (k == "reduce_shuffle_block1024_f32") {
    const float* x = r.f32(un, 1);
    float* total = r.alloc<float>(1);
    const int g4096 = grid_for(n, 4096);
    PHASE(r, reduce_shuffle_block1024_f32, g4096, 1024);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(float), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_shuffle_block1024_f32<<<g4096, 1024, 0, st>>>(x, total, ni); };
    r.output(total, 1);
  } else if (k == "scatter_random_256m" || k == "scatter_random_2g" || k == "scatter_random_f64_1g" ||
             k == "scatter_dense_perm_512m") {
    // out[idx[i]] = in[i], idx the first n values of a permutation of [0, m) (injective; all of it
    // when n = m): every written word written once.
    const bool dense = k == "scatter_dense_perm_512m";
    const std::size_t m = dense ? un : static_cast<std::size_t>(gen::param(p, "m"));
    int bits = 0;
    while ((std::size_t{1} << bits) < m) ++bits;
    if ((std::size_t{1} << bits) != m || bits > 31) throw InputError(k + ": m must be a power of two, at most 2^31");
    if (un > m) throw InputError(k + ": n must be at most m (the writes go to distinct words)");
    int* idx = r.alloc<int>(un);
    gen::fill_permutation<<<g, 256>>>(idx, n, bits, k == "scatter_random_256m" ? gen::kScatter256mSeed
                                             : k == "scatter_random_2g"  ? gen::kScatter2gSeed
                                             : dense                     ? gen::kDensePermSeed
                                                                         : gen::kScatterF64Seed);
    PERFMODEL_CUDA_CHECK_LAUNCH();
    if (k == "scatter_random_f64_1g") {
      const double* in = r.f64(un, 1);
      double* out = r.alloc<double>(m);
      PHASE(r, scatter_f64, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::scatter_f64<<<g, 256, 0, st>>>(in, idx, out, ni); };
      r.output(out, m);
    } else {
      const float* in = r.f32(un, 1);
      float* out = r.alloc<float>(m);
      PHASE(r, scatter_f32, g, 256);
      r.enqueue = [=](cudaStream_t st) { gen::scatter_f32<<<g, 256, 0, st>>>(in, idx, out, ni); };
      r.output(out, m);
    }
  } else if (k == "hash_scatter_1g") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if ((m & (m - 1)) != 0 || m > (std::size_t{1} << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    auto* out = r.alloc<std::uint32_t>(m);
    const auto mask = static_cast<std::uint32_t>(m - 1);
    PHASE(r, hash_scatter_u32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::hash_scatter_u32<<<g, 256, 0, st>>>(out, mask, ni); };
    r.output(reinterpret_cast<const unsigned*>(out), m);
  } else if (k == "reduce_tree512_partials_f32") {
    const float* x = r.f32(un, 1);
    const int g512 = grid_for(n, 512);
    float* partials = r.alloc<float>(static_cast<std::size_t>(g512));
    PHASE(r, reduce_tree512_partials_f32, g512, 512);
    r.enqueue = [=](cudaStream_t st) { gen::reduce_tree512_partials_f32<<<g512, 512, 0, st>>>(x, partials, ni); };
    r.output(partials, static_cast<std::size_t>(g512));
  } else if (k == "reduce_tree128_atomic_f64") {
    const double* x = r.f64(un, 1);
    double* total = r.alloc<double>(1);
    const int g128 = grid_for(n, 128);
    PHASE(r, reduce_tree128_atomic_f64, g128, 128);
    r.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(double), st)); };
    r.enqueue = [=](cudaStream_t st) { gen::reduce_tree128_atomic_f64<<<g128, 128, 0, st>>>(x, total, ni); };
    r.output(total, 1);
  } else if (k == "reduce_tree256_x4_f32") {
    if (n % 4 != 0) throw InputError(k + ": n must be a multiple of 4 (float4 loads)");
    const float* x = r.f32(un, 1);
    const int n4 = ni / 4, g4 = grid_for(n / 4, 256);
    float* partials = r.alloc<float>(static_cast<std::size_t>(g4));
    PHASE(r, reduce_tree256_x4_f32, g4, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::reduce_tree256_x4_f32<<<g4, 256, 0, st>>>(reinterpret_cast<const float4*>(x), partials, n4);
    };
    r.output(partials, static_cast<std::size_t>(g4));
  } else if (k == "gather_random_512m") {
    const std::size_t m = static_cast<std::size_t>(gen::param(p, "m"));
    if ((m & (m - 1)) != 0 || m > (std::size_t{1} << 31)) throw InputError(k + ": m must be a power of two, at most 2^31");
    const float* data = r.f32(m, 1);
    const auto* idx = reinterpret_cast<const int*>(r.keys(un, gen::kHalfHGatherSeed, static_cast<std::uint32_t>(m - 1)));
    float* out = r.alloc<float>(un);
    PHASE(r, gather_f32, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::gather_f32<<<g, 256, 0, st>>>(data, idx, out, ni); };
    r.output(out, un);
  } else if (k == "int_xor_mul_chain") {
    const int steps = static_cast<int>(gen::param(p, "k"));
    const std::uint32_t* in = r.keys(un, gen::kHalfHChainSeed, 0xffffffffu);
    auto* out = r.alloc<std::uint32_t>(un);
    PHASE(r, int_xor_mul_chain, g, 256);
    r.enqueue = [=](cudaStream_t st) { gen::int_xor_mul_chain<<<g, 256, 0, st>>>(in, out, steps, ni); };
    r.output(reinterpret_cast<const unsigned*>(out), un);
  } else if (k == "stencil2d_9pt_f32_32x8") {
    if (n % 32 != 0) throw InputError(k + ": n must be a multiple of 32");
    const std::size_t nn = un * un;
    const float* in = r.f32(nn, 1);
    float* out = r.alloc<float>(nn);
    const dim3 block(32, 8), grid(ni / 32, ni / 8);
    PHASE(r, stencil2d_9pt_f32, n / 32 * (n / 8), 256);
    r.enqueue = [=](cudaStream_t st) { gen::stencil2d_9pt_f32<<<grid, block, 0, st>>>(in, out, ni); };
    r.output(out, nn);
  } else if (k == "scale_f64x2") {
    const double* x = r.f64(2 * un, 1);  // n pairs of doubles
    double* y = r.alloc<double>(2 * un);
    PHASE(r, scale_f64x2, g, 256);
    r.enqueue = [=](cudaStream_t st) {
      gen::scale_f64x2<<<g, 256, 0, st>>>(1.5, reinterpret_cast<const double2*>(x), reinterpret_cast<double2*>(y), ni);
    };
    r.output(y, 2 * un);
  } else {
    throw RuntimeFailure("no GPU run for generalisation kernel '" + k + "'");
  }
  PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());  // the fills are done before anything is timed
  return r;
}

#undef PHASE

}  // namespace

struct GeneralisationRunner::Impl {
  explicit Impl(int threads) : pool(threads) {}
  cpu::ThreadPool pool;
  cudaStream_t stream = nullptr;
  std::unique_ptr<Buffer> flush;
};

GeneralisationRunner::GeneralisationRunner(int host_threads) : impl_(std::make_unique<Impl>(host_threads)) {
  int device = 0;
  PERFMODEL_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  PERFMODEL_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  impl_->flush = std::make_unique<Buffer>(static_cast<std::size_t>(2) * std::max(prop.l2CacheSize, 1 << 20));
  PERFMODEL_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
}

GeneralisationRunner::~GeneralisationRunner() {
  if (impl_ && impl_->stream) cudaStreamDestroy(impl_->stream);
}

GenResult GeneralisationRunner::measure(const std::string& kernel, const gen::Params& params, const GenSettings& settings, bool time) {
  Impl& m = *impl_;
  const gen::ReferenceCheck check = gen::reference_check(kernel, params);  // unknown kernel or parameter: InputError first
  GenRun run = make_run(kernel, params);
  GenResult result;
  result.kernel = kernel;
  result.params = params;
  result.check_what = check.what;
  result.check_bound = check.bound;
  for (std::size_t i = 0; i < run.phases.size(); ++i) {
    GenPhase& ph = run.phases[i];
    cudaFuncAttributes attr{};
    PERFMODEL_CUDA_CHECK(cudaFuncGetAttributes(&attr, run.functions[i]));
    ph.resources = {attr.numRegs, static_cast<int>(attr.sharedSizeBytes), attr.maxThreadsPerBlock};
    PERFMODEL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ph.occupancy_blocks_per_sm, run.functions[i], ph.threads_per_block, 0));
    if (ph.threads_per_block > attr.maxThreadsPerBlock)
      throw RuntimeFailure(kernel + ": " + ph.kernel + " cannot launch " + std::to_string(ph.threads_per_block) + " threads per block");
  }
  result.phases = run.phases;
  cudaStream_t st = m.stream;

  // The warm-up run is the checked one: no time is kept from a kernel whose result is wrong.
  run.reset(st);
  run.enqueue(st);
  PERFMODEL_CUDA_CHECK_LAUNCH();
  PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(st));
  const std::vector<std::size_t> outputs = gen::checked_outputs(check);
  const std::vector<std::size_t> positions = [&] {
    std::vector<std::size_t> v;
    v.reserve(outputs.size());
    for (std::size_t o : outputs) v.push_back(check.where(o));
    return v;
  }();
  const std::vector<double> got = run.read(positions);
  std::vector<double> expected(outputs.size());
  if (!outputs.empty()) expected[0] = check.expected(outputs[0]);  // serially first: a reference may build a table on its first call
  m.pool.run(m.pool.size(), [&](int index, int parts) {
    std::size_t first = 0, last = 0;
    cpu::ThreadPool::split(outputs.size(), index, parts, first, last);
    for (std::size_t j = std::max<std::size_t>(first, 1); j < last; ++j) expected[j] = check.expected(outputs[j]);
  });
  double diff = 0, scale = 0;
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const double d = std::abs(got[j] - expected[j]);
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::abs(expected[j]));
  }
  result.check_error = scale > 0 ? diff / scale : diff;
  result.checked_outputs = outputs.size();
  if (!result.passed() || !time) return result;

  EventTimer timer;
  for (int rep = 0; rep < settings.single_reps; ++rep) {
    run.reset(st);
    PERFMODEL_CUDA_CHECK(cudaMemsetAsync(m.flush->get(), rep & 0xff, m.flush->bytes(), st));  // evict L2
    const BatchTiming t = timer.time(st, 1, [&] { run.enqueue(st); });
    PERFMODEL_CUDA_CHECK_LAUNCH();
    result.single_s.push_back(t.event_s);
  }
  const double median = summarize(result.single_s).median;
  result.steady_runs =
      std::clamp(static_cast<int>(std::ceil(settings.steady_target_s / std::max(median, 1e-7))), settings.steady_min, settings.steady_max);
  for (int b = 0; b < settings.steady_batches; ++b) {
    const BatchTiming t = timer.time(st, result.steady_runs, [&] { run.enqueue(st); });
    PERFMODEL_CUDA_CHECK_LAUNCH();
    result.steady_s.push_back(t.event_s);
  }
  return result;
}

}  // namespace perfmodel::gpu
