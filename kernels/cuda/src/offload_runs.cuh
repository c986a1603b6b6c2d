// The offloaded operations of perfmodel/kernels/offload_runs.hpp. Included at the end of
// gpu_runs.cu: the reference kernels are defined once, in that translation unit, and this file
// uses its kernel tables, input generator and device arrays.
#include <chrono>
#include <cstring>

#include "perfmodel/kernels/offload_runs.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/predictors/offload.hpp"

namespace perfmodel::gpu {
namespace {

// Host memory of one side of the copies: pageable (std::vector) or pinned (cudaMallocHost).
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t bytes, bool pinned) : bytes_(bytes), pinned_(pinned) {
    if (pinned) {
      PERFMODEL_CUDA_CHECK(cudaMallocHost(&p_, std::max<std::size_t>(bytes, 4)));
    } else {
      storage_.resize(std::max<std::size_t>(bytes, 4));
      p_ = storage_.data();
    }
    std::memset(p_, 0, bytes_);  // first touch outside any timing
  }
  ~HostBuffer() {
    if (pinned_ && p_) cudaFreeHost(p_);
  }
  HostBuffer(HostBuffer&& o) noexcept { swap(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    swap(o);
    return *this;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void swap(HostBuffer& o) {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    std::swap(pinned_, o.pinned_);
    std::swap(storage_, o.storage_);
  }
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
  bool pinned_ = false;
  std::vector<unsigned char> storage_;
};

double relative_max_error(const float* got, const float* ref, std::size_t count) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(got[i]) || !std::isfinite(ref[i])) return HUGE_VAL;
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - ref[i]));
    scale = std::max(scale, std::abs(static_cast<double>(ref[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// A measurement whose repetitions would take longer than this keeps fewer of them (at least 2):
// the run must fit its time budget, and runs this long vary little.
constexpr double kLongMeasurement_s = 1.5;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

struct OffloadRunner::Impl {
  cpu::ThreadPool pool;
  // The problem: host inputs (float or bytes), the CPU reference output.
  std::string kernel;
  int n = 0, iterations = 0;
  std::vector<float> a, b;                 // inputs (meaning per kernel)
  std::vector<unsigned char> img;
  std::vector<float> cpu_out, work;        // the CPU's result (all threads), scratch
  std::vector<unsigned char> cpu_img;
  double cpu_dot = 0;
  bool have_reference = false;
  // Host copies of the inputs and outputs in each kind of memory, and device arrays.
  HostBuffer in0[2], in1[2], out0[2];  // [pageable, pinned]
  DeviceArray d0, d1, d2, d3, d4, d5;

  Impl() : pool(0) {}

  void fill(std::vector<float>& v, std::size_t count, std::uint64_t seed, float lo, float hi) {
    v.resize(count);
    pool.run(pool.size(), [&](int index, int parts) {
      std::size_t first = 0, last = 0;
      cpu::ThreadPool::split(count, index, parts, first, last);
      for (std::size_t i = first; i < last; ++i) v[i] = uniform(seed, i, lo, hi);
    });
  }
  void fill_spd(std::vector<float>& v, int size) {  // symmetric, diagonally dominant: SPD, well conditioned
    const auto s = static_cast<std::size_t>(size);
    v.resize(s * s);
    pool.run(pool.size(), [&](int index, int parts) {
      std::size_t first = 0, last = 0;
      cpu::ThreadPool::split(s, index, parts, first, last);
      for (std::size_t i = first; i < last; ++i)
        for (std::size_t j = 0; j < s; ++j) {
          const std::size_t lo = std::min(i, j), hi = std::max(i, j);
          v[i * s + j] = i == j ? 2.0f : uniform(7, lo * s + hi, 0, 1) / static_cast<float>(size);
        }
    });
  }

  // Bytes of the copies in (two at most) and out (one).
  void sizes(std::size_t& i0, std::size_t& i1, std::size_t& o0) const {
    const auto s = static_cast<std::size_t>(n);
    i1 = 0;
    if (kernel == "mv" || kernel == "cg") i0 = 4 * s * s, i1 = 4 * s, o0 = 4 * s;
    else if (kernel == "mm") i0 = i1 = o0 = 4 * s * s;
    else if (kernel == "dot") i0 = i1 = 4 * s, o0 = 4;
    else if (kernel == "cholesky") i0 = o0 = 4 * s * s;
    else if (kernel == "conv2d") i0 = o0 = 4 * s * s, i1 = 4 * kFs * kFs;
    else if (kernel == "blur") i0 = o0 = 3 * s * s;
    else if (kernel == "cosine") i0 = o0 = 4 * s;
    else throw InputError("offload: unknown kernel '" + kernel + "'");
  }

  void prepare(const std::string& k, int size, int its) {
    if (k == kernel && size == n && its == iterations) return;
    kernel.clear();
    have_reference = false;
    for (DeviceArray* d : {&d0, &d1, &d2, &d3, &d4, &d5}) *d = DeviceArray();
    for (int m = 0; m < 2; ++m) in0[m] = HostBuffer(), in1[m] = HostBuffer(), out0[m] = HostBuffer();
    a.clear(), b.clear(), img.clear(), cpu_out.clear(), work.clear(), cpu_img.clear();
    const auto s = static_cast<std::size_t>(size);
    if (k == "mv") fill(a, s * s, 1, 0, 1), fill(b, s, 2, 0, 1);
    else if (k == "mm") fill(a, s * s, 3, 0, 1), fill(b, s * s, 4, 0, 1);
    else if (k == "dot") fill(a, s, 9, 0, 1), fill(b, s, 10, 0, 1);
    else if (k == "cg") fill_spd(a, size), fill(b, s, 11, 0, 1);
    else if (k == "cholesky") fill_spd(a, size);
    else if (k == "conv2d") fill(a, s * s, 6, 0, 1), fill(b, static_cast<std::size_t>(kFs * kFs), 8, 0, 1);
    else if (k == "blur") {
      img.resize(3 * s * s);
      for (std::size_t i = 0; i < img.size(); ++i) img[i] = static_cast<unsigned char>(mix(13 + i) >> 56);
    } else if (k == "cosine") fill(a, s, 12, -3, 3);
    else throw InputError("offload: unknown kernel '" + k + "'");
    kernel = k, n = size, iterations = its;
    std::size_t i0 = 0, i1 = 0, o0 = 0;
    sizes(i0, i1, o0);
    for (int m = 0; m < 2; ++m) {
      in0[m] = HostBuffer(i0, m == 1);
      std::memcpy(in0[m].as<void>(), k == "blur" ? static_cast<const void*>(img.data()) : static_cast<const void*>(a.data()), i0);
      if (i1) {
        in1[m] = HostBuffer(i1, m == 1);
        std::memcpy(in1[m].as<void>(), b.data(), i1);
      }
      out0[m] = HostBuffer(o0, m == 1);
    }
    d0 = DeviceArray(i0), d1 = DeviceArray(std::max<std::size_t>(i1, 4)), d2 = DeviceArray(o0);
    if (k == "cg") d2 = DeviceArray(4 * s), d3 = DeviceArray(4 * s), d4 = DeviceArray(4 * s), d5 = DeviceArray(4 * (2 * its + 2));
  }

  // The CPU computation at `threads`; the output lands in cpu_out / cpu_img / cpu_dot.
  void run_cpu(int threads) {
    const auto s = static_cast<std::size_t>(n);
    if (kernel == "mv") cpu_out.resize(s), cpu::mv(pool, threads, a.data(), b.data(), cpu_out.data(), n);
    else if (kernel == "mm") cpu_out.resize(s * s), cpu::mm(pool, threads, a.data(), b.data(), cpu_out.data(), n);
    else if (kernel == "dot") cpu_dot = cpu::dot(pool, threads, a.data(), b.data(), s);
    else if (kernel == "cg") cpu_out.resize(s), cpu::cg(pool, threads, a.data(), b.data(), cpu_out.data(), n, iterations);
    else if (kernel == "cholesky") cpu::cholesky(pool, threads, work.data(), n);  // work = A, set untimed
    else if (kernel == "conv2d") cpu_out.resize(s * s), cpu::conv2d(pool, threads, a.data(), b.data(), cpu_out.data(), n, kFs);
    else if (kernel == "blur") cpu_img.resize(3 * s * s), cpu::blur(pool, threads, img.data(), cpu_img.data(), n, n, kBlurRadius);
    else if (kernel == "cosine") cpu::cosine(pool, threads, work.data(), s, kCosineRepeats);  // work = x, set untimed
  }
  void reset_cpu() {  // untimed: the in-place kernels start from their input
    if (kernel == "cholesky" || kernel == "cosine") work = a;
  }
  void keep_cpu_result() {
    if (kernel == "cholesky" || kernel == "cosine") cpu_out = work;
    have_reference = true;
  }

  // The offloaded operation (host clock around it): copies in, kernels, copy out, synchronize.
  void run_gpu(int m) {
    const auto s = static_cast<std::size_t>(n);
    std::size_t i0 = 0, i1 = 0, o0 = 0;
    sizes(i0, i1, o0);
    const std::string& gk = offload_gpu_kernel(kernel);
    const GpuKernelSpec& spec = gpu_kernel_spec(gk);
    const KernelConfig c = default_config(spec, n);
    const dim3 block(c.bx, c.by);
    const int nn = n;
    PERFMODEL_CUDA_CHECK(cudaMemcpy(d0.as<void>(), in0[m].as<void>(), i0, cudaMemcpyHostToDevice));
    if (kernel == "mv") {
      PERFMODEL_CUDA_CHECK(cudaMemcpyToSymbol(mv_b_constant, in1[m].as<void>(), i1));
      const auto fn = lookup(tables().mv_opt_t, c, gk);
      fn.first<<<launch_grid(nn / c.bx, nullptr), block>>>(d0.as<float>(), nullptr, d2.as<float>(), nn);
    } else if (kernel == "mm") {
      PERFMODEL_CUDA_CHECK(cudaMemcpy(d1.as<void>(), in1[m].as<void>(), i1, cudaMemcpyHostToDevice));
      const auto fn = lookup(tables().mm_opt_t, c, gk);
      fn.first<<<launch_grid(dim3(nn / (c.bx * c.by), nn / c.p), nullptr), block>>>(d0.as<float>(), d1.as<float>(), d2.as<float>(), nn);
    } else if (kernel == "dot") {
      PERFMODEL_CUDA_CHECK(cudaMemcpy(d1.as<void>(), in1[m].as<void>(), i1, cudaMemcpyHostToDevice));
      const auto fn = tables().dot_t.at(c.bx);
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(d2.as<void>(), 0, 4));
      fn.first<<<launch_grid(c.p, nullptr), c.bx>>>(d0.as<float>(), d1.as<float>(), d2.as<float>(), static_cast<long long>(nn));
    } else if (kernel == "cg") {
      // d1: b, uploaded as r; d2 x, d3 p, d4 q, d5 the scalars.
      float *A = d0.as<float>(), *r = d1.as<float>(), *x = d2.as<float>(), *p = d3.as<float>(), *q = d4.as<float>(), *sc = d5.as<float>();
      PERFMODEL_CUDA_CHECK(cudaMemcpy(r, in1[m].as<void>(), i1, cudaMemcpyHostToDevice));
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(x, 0, 4 * s));
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sc, 0, 4 * (2 * static_cast<std::size_t>(iterations) + 2)));
      PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(p, r, 4 * s, cudaMemcpyDeviceToDevice));
      const auto mvfn = lookup(tables().mv_opt_global_b_t, c, gk);
      const auto dotfn = tables().dot_t.at(256);
      const int vb = blocks_for(nn, 256), db = std::min(blocks_for(nn, 256), 528);  // as the descriptor
      dotfn.first<<<launch_grid(db, nullptr), 256>>>(r, r, sc, nn);
      for (int i = 0; i < iterations; ++i) {
        mvfn.first<<<launch_grid(nn / c.bx, nullptr), block>>>(A, p, q, nn);
        dotfn.first<<<launch_grid(db, nullptr), 256>>>(p, q, sc + 2 * i + 1, nn);
        cg_update_xr<<<launch_grid(vb, nullptr), 256>>>(x, r, p, q, sc, i, nn);
        dotfn.first<<<launch_grid(db, nullptr), 256>>>(r, r, sc + 2 * i + 2, nn);
        cg_update_p<<<launch_grid(vb, nullptr), 256>>>(p, r, sc, i, nn);
      }
      PERFMODEL_CUDA_CHECK(cudaMemcpy(out0[m].as<void>(), x, o0, cudaMemcpyDeviceToHost));
      PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
      return;
    } else if (kernel == "cholesky") {
      float* u = d0.as<float>();
      for (int k = 0; k < nn; ++k) {
        chol_division<<<launch_grid(1, nullptr), c.bx>>>(u, nn, k);
        if (k + 1 < nn) chol_elimination<<<launch_grid(nn - k - 1, nullptr), c.bx>>>(u, nn, k);
      }
      PERFMODEL_CUDA_CHECK(cudaMemcpy(out0[m].as<void>(), u, o0, cudaMemcpyDeviceToHost));
      PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
      return;
    } else if (kernel == "conv2d") {
      PERFMODEL_CUDA_CHECK(cudaMemcpy(d1.as<void>(), in1[m].as<void>(), i1, cudaMemcpyHostToDevice));
      const auto fn = lookup(tables().conv_shared_t, c, gk);
      fn.first<<<launch_grid(dim3(nn / c.bx, nn / c.by), nullptr), block>>>(d0.as<float>(), d1.as<float>(), d2.as<float>(), nn);
    } else if (kernel == "blur") {
      blur_kernel<<<launch_grid(blocks_for(static_cast<long long>(nn) * nn, c.bx), nullptr), c.bx>>>(d0.as<unsigned char>(), d2.as<unsigned char>(), nn, nn, kBlurRadius);
    } else if (kernel == "cosine") {
      cosine_loop<<<launch_grid(blocks_for(nn, c.bx), nullptr), c.bx>>>(d0.as<float>(), nn, kCosineRepeats);
      PERFMODEL_CUDA_CHECK(cudaMemcpy(out0[m].as<void>(), d0.as<void>(), o0, cudaMemcpyDeviceToHost));
      PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
      return;
    }
    PERFMODEL_CUDA_CHECK(cudaMemcpy(out0[m].as<void>(), d2.as<void>(), o0, cudaMemcpyDeviceToHost));
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // The GPU result (in out0[m]) against the CPU's.
  OffloadTiming check(int m) const {
    OffloadTiming t;
    const auto s = static_cast<std::size_t>(n);
    const double u = 1.0 / (1 << 24);
    if (kernel == "dot") {
      const double got = *out0[m].as<float>();
      const KernelConfig c = default_config(gpu_kernel_spec("dot"), n);
      const double terms = std::ceil(static_cast<double>(n) / (static_cast<double>(c.bx) * c.p)) + std::log2(c.bx) + c.p;
      t.check_error = std::isfinite(got) ? std::abs(got - cpu_dot) / std::abs(cpu_dot) : HUGE_VAL;
      t.check_bound = 2.0 * terms * u;
      t.check_what = "|x·y (GPU) - x·y (perfmodel::cpu::dot)| / |x·y (CPU)|";
    } else if (kernel == "blur") {
      const unsigned char* got = out0[m].as<unsigned char>();
      double worst = 0;
      for (std::size_t i = 0; i < cpu_img.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(got[i]) - cpu_img[i]));
      t.check_error = worst;
      t.check_bound = 0;
      t.check_what = "largest channel difference from perfmodel::cpu::blur (must be exact)";
    } else if (kernel == "cholesky") {
      // GPU: U upper (row-major), CPU: L lower; U[i][j] = L[j][i] for i <= j.
      const float* got = out0[m].as<float>();
      std::vector<float> g, r;
      for (std::size_t i = 0; i < s; i += std::max<std::size_t>(1, s / 256))
        for (std::size_t j = i; j < s; ++j) g.push_back(got[i * s + j]), r.push_back(cpu_out[j * s + i]);
      t.check_error = relative_max_error(g.data(), r.data(), g.size());
      t.check_bound = 16.0 * s * u;
      t.check_what = "max |U - L_cpu^T| / max |L_cpu| over every 256th row (perfmodel::cpu::cholesky)";
    } else {
      const std::size_t count = cpu_out.size();
      t.check_error = relative_max_error(out0[m].as<float>(), cpu_out.data(), count);
      if (kernel == "mv" || kernel == "mm") t.check_bound = 4.0 * s * u;
      else if (kernel == "cg") t.check_bound = 16.0 * s * u;
      else if (kernel == "conv2d") t.check_bound = 4.0 * kFs * kFs * u;
      else t.check_bound = 1e-5;  // cosine: 100 cosf steps on each side, errors contract (|sin| < 0.85)
      t.check_what = "max |GPU - CPU| / max |CPU| over every element (perfmodel::cpu::" + kernel + ")";
    }
    return t;
  }
};

OffloadRunner::OffloadRunner() : impl_(std::make_unique<Impl>()) {}
OffloadRunner::~OffloadRunner() = default;
int OffloadRunner::max_threads() const { return impl_->pool.size(); }

OffloadTiming OffloadRunner::time_cpu(const std::string& k, int n, int iterations, int threads, const OffloadTimingSettings& settings) {
  Impl& m = *impl_;
  m.prepare(k, n, iterations);
  threads = std::clamp(threads, 1, m.pool.size());
  m.reset_cpu();
  auto t0 = std::chrono::steady_clock::now();
  m.run_cpu(threads);  // warm-up (caches, pages, the pool's workers)
  const double first = seconds_since(t0);
  if (threads == m.pool.size()) m.keep_cpu_result();
  OffloadTiming t;
  int reps = std::clamp(static_cast<int>(settings.target_s / std::max(first, 1e-7)), settings.min_reps, settings.max_reps);
  if (first * reps > kLongMeasurement_s) reps = std::max(2, static_cast<int>(kLongMeasurement_s / first));  // a long run: fewer repetitions
  for (int r = 0; r < reps; ++r) {
    m.reset_cpu();
    t0 = std::chrono::steady_clock::now();
    m.run_cpu(threads);
    t.seconds.push_back(seconds_since(t0));
  }
  return t;
}

OffloadTiming OffloadRunner::time_gpu(const std::string& k, int n, int iterations, HostMemory memory, const OffloadTimingSettings& settings) {
  Impl& m = *impl_;
  m.prepare(k, n, iterations);
  if (!m.have_reference) {
    m.reset_cpu();
    m.run_cpu(m.pool.size());
    m.keep_cpu_result();
  }
  const int mem = memory == HostMemory::pinned ? 1 : 0;
  PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
#ifdef PERFMODEL_BLOCK_SUBSET
  subset_begin();
#endif
  auto t0 = std::chrono::steady_clock::now();
  m.run_gpu(mem);  // warm-up, then the check: no time is kept from a wrong result
  PERFMODEL_CUDA_CHECK_LAUNCH();
  const double first = seconds_since(t0);
#ifdef PERFMODEL_BLOCK_SUBSET
  OffloadTiming launched;
  launched.blocks_launched = subset_description(launched.grid_complete);
  if (!launched.grid_complete) {  // the blocks that did not run left their outputs unwritten: nothing to check
    launched.check_what = "not checked: the launches ran a subset of their grids (racecheck build, PERFMODEL_RACECHECK_BLOCKS)";
    return launched;
  }
  OffloadTiming t = m.check(mem);
  t.blocks_launched = launched.blocks_launched;
#else
  OffloadTiming t = m.check(mem);
#endif
  if (!t.passed()) return t;
  int reps = std::clamp(static_cast<int>(settings.target_s / std::max(first, 1e-7)), settings.min_reps, settings.max_reps);
  if (first * reps > kLongMeasurement_s) reps = std::max(2, static_cast<int>(kLongMeasurement_s / first));
  for (int r = 0; r < reps; ++r) {
    t0 = std::chrono::steady_clock::now();
    m.run_gpu(mem);
    t.seconds.push_back(seconds_since(t0));
  }
  PERFMODEL_CUDA_CHECK_LAUNCH();
  return t;
}

}  // namespace perfmodel::gpu
