// The GPU reference kernels' host side: problems, checks against CPU references, timing.
#include "perfmodel/kernels/gpu_runs.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <vector>

#include "block_index.cuh"
#include "cuda_check.hpp"
#include "event_timer.cuh"
#include "mm_kernels.cuh"
#include "mv_kernels.cuh"
#include "other_kernels.cuh"
#include "perfmodel/kernels/cpu_kernels.hpp"
#include "perfmodel/kernels/thread_pool.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"

namespace perfmodel::gpu {
namespace {

constexpr double kUnit = 1.0 / (1 << 24);  // unit roundoff of binary32

// ------------------------------------------------------------------ the grid a launch runs
// Every launch of the runners takes its grid through launch_grid(full, stream). In the timed
// builds that is `full`. In the racecheck build (PERFMODEL_BLOCK_SUBSET, block_index.cuh) with
// PERFMODEL_RACECHECK_BLOCKS=N, it uploads the blocks select_blocks() chooses (at most N) and the
// full grid's dimensions to g_block_subset, stream-ordered before the launch, and returns a 1-D
// grid of that many blocks; every launch is recorded for the result's blocks_launched.
#ifdef PERFMODEL_BLOCK_SUBSET
struct SubsetLaunch {
  GridDims grid;
  std::vector<GridDims> blocks;  // empty: the whole grid (no budget)
};
struct SubsetState {
  int budget = parse_racecheck_blocks(std::getenv("PERFMODEL_RACECHECK_BLOCKS"));
  std::vector<SubsetLaunch> launches;
  std::deque<BlockSubsetTable> tables;  // the copies' sources, alive until subset_begin() after a synchronize
};
SubsetState& subset_state() {
  static SubsetState s;
  return s;
}
// Call with nothing in flight (the tables of earlier launches are released).
void subset_begin() {
  subset_state().launches.clear();
  subset_state().tables.clear();
}
dim3 launch_grid(dim3 full, cudaStream_t st) {
  SubsetState& s = subset_state();
  const GridDims grid{full.x, full.y, full.z};
  BlockSubsetTable& t = s.tables.emplace_back();
  t = BlockSubsetTable{};
  SubsetLaunch rec{grid, {}};
  dim3 launched = full;
  if (s.budget > 0) {
    rec.blocks = select_blocks(grid, s.budget);
    t.count = static_cast<unsigned>(rec.blocks.size());
    t.grid = make_uint3(grid.x, grid.y, grid.z);
    for (std::size_t i = 0; i < rec.blocks.size(); ++i) t.blocks[i] = make_uint3(rec.blocks[i].x, rec.blocks[i].y, rec.blocks[i].z);
    launched = dim3(t.count);
  }
  PERFMODEL_CUDA_CHECK(cudaMemcpyToSymbolAsync(g_block_subset, &t, sizeof t, 0, cudaMemcpyHostToDevice, st));
  s.launches.push_back(std::move(rec));
  return launched;
}
// The launches since subset_begin(), one line per distinct grid and choice; `complete` false when
// some launch ran fewer blocks than its grid.
std::string subset_description(bool& complete) {
  complete = true;
  std::vector<std::pair<std::string, int>> lines;  // text, launches
  for (const SubsetLaunch& l : subset_state().launches) {
    const unsigned long long total = static_cast<unsigned long long>(l.grid.x) * l.grid.y * l.grid.z;
    std::string text = "grid " + std::to_string(l.grid.x) + "x" + std::to_string(l.grid.y) +
                       (l.grid.z > 1 ? "x" + std::to_string(l.grid.z) : "") + " (" + std::to_string(total) + " blocks): ";
    if (l.blocks.empty()) {
      text += "whole grid";
    } else {
      if (l.blocks.size() < total) complete = false;
      text += std::to_string(l.blocks.size()) + " launched: " + describe_blocks(l.blocks, l.grid);
    }
    if (!lines.empty() && lines.back().first == text) ++lines.back().second;
    else lines.push_back({text, 1});
  }
  std::string s;
  for (const auto& [text, count] : lines) s += (s.empty() ? "" : "; ") + text + (count > 1 ? " (" + std::to_string(count) + " launches)" : "");
  return s;
}
#else
inline dim3 launch_grid(dim3 full, cudaStream_t) { return full; }
#endif

// ------------------------------------------------------------------ kernel tables
using MatFn = void (*)(const float*, const float*, float*, int);   // (A, B or b, C, n)
using MvFn = void (*)(const float*, float*, int);                  // (A, c, n), b in constant memory
using MvOptFn = void (*)(const float*, const float*, float*, int);  // (A, b, c, n)

template <class Fn>
using Table = std::map<KernelConfig, std::pair<Fn, const void*>>;

template <class Fn>
void put(Table<Fn>& t, KernelConfig c, Fn fn) {
  t[c] = {fn, reinterpret_cast<const void*>(fn)};
}

template <int X, int Y>
void add_mv_opt(Table<MvOptFn>& constant_b, Table<MvOptFn>& global_b) {
  if constexpr (Y <= X && X * Y <= 1024) {
    put<MvOptFn>(constant_b, {X, Y, 0}, &mv_opt<X, Y, true>);
    put<MvOptFn>(global_b, {X, Y, 0}, &mv_opt<X, Y, false>);
  }
}
template <int X>
void add_mv_opt_x(Table<MvOptFn>& c, Table<MvOptFn>& g) {
  add_mv_opt<X, 1>(c, g);
  add_mv_opt<X, 2>(c, g);
  add_mv_opt<X, 4>(c, g);
  add_mv_opt<X, 8>(c, g);
  add_mv_opt<X, 16>(c, g);
  add_mv_opt<X, 32>(c, g);
}
template <int X, int Y, int NE>
void add_mm_opt(Table<MatFn>& t) {
  if constexpr (Y <= NE && NE % Y == 0) put<MatFn>(t, {X, Y, NE}, &mm_opt<X, Y, NE>);
}
template <int X, int Y>
void add_mm_opt_y(Table<MatFn>& t) {
  add_mm_opt<X, Y, 8>(t);
  add_mm_opt<X, Y, 16>(t);
  add_mm_opt<X, Y, 32>(t);
}
template <int X>
void add_mm_opt_x(Table<MatFn>& t) {
  add_mm_opt_y<X, 2>(t);
  add_mm_opt_y<X, 4>(t);
  add_mm_opt_y<X, 8>(t);
  add_mm_opt_y<X, 16>(t);
}

struct Tables {
  Table<MvFn> mv_shared_t;
  Table<MvOptFn> mv_opt_t, mv_opt_global_b_t;
  Table<MatFn> mm_shared_t, mm_opt_t, conv_shared_t;
  std::map<int, std::pair<void (*)(const float*, const float*, float*, long long), const void*>> dot_t;
  Tables() {
    put<MvFn>(mv_shared_t, {16, 1, 0}, &mv_shared<16>);
    put<MvFn>(mv_shared_t, {32, 1, 0}, &mv_shared<32>);
    put<MvFn>(mv_shared_t, {64, 1, 0}, &mv_shared<64>);
    add_mv_opt_x<16>(mv_opt_t, mv_opt_global_b_t);
    add_mv_opt_x<32>(mv_opt_t, mv_opt_global_b_t);
    add_mv_opt_x<64>(mv_opt_t, mv_opt_global_b_t);
    put<MatFn>(mm_shared_t, {8, 8, 0}, &mm_shared<8>);
    put<MatFn>(mm_shared_t, {16, 16, 0}, &mm_shared<16>);
    put<MatFn>(mm_shared_t, {32, 32, 0}, &mm_shared<32>);
    add_mm_opt_x<8>(mm_opt_t);
    add_mm_opt_x<16>(mm_opt_t);
    add_mm_opt_x<32>(mm_opt_t);
    put<MatFn>(conv_shared_t, {16, 4, 0}, &conv_shared<16, 4>);
    put<MatFn>(conv_shared_t, {16, 8, 0}, &conv_shared<16, 8>);
    put<MatFn>(conv_shared_t, {16, 16, 0}, &conv_shared<16, 16>);
    put<MatFn>(conv_shared_t, {32, 4, 0}, &conv_shared<32, 4>);
    put<MatFn>(conv_shared_t, {32, 8, 0}, &conv_shared<32, 8>);
    put<MatFn>(conv_shared_t, {32, 16, 0}, &conv_shared<32, 16>);
    put<MatFn>(conv_shared_t, {64, 1, 0}, &conv_shared<64, 1>);
    put<MatFn>(conv_shared_t, {64, 4, 0}, &conv_shared<64, 4>);
    put<MatFn>(conv_shared_t, {64, 8, 0}, &conv_shared<64, 8>);
    dot_t[128] = {&dot_kernel<128>, reinterpret_cast<const void*>(&dot_kernel<128>)};
    dot_t[256] = {&dot_kernel<256>, reinterpret_cast<const void*>(&dot_kernel<256>)};
    dot_t[512] = {&dot_kernel<512>, reinterpret_cast<const void*>(&dot_kernel<512>)};
    dot_t[1024] = {&dot_kernel<1024>, reinterpret_cast<const void*>(&dot_kernel<1024>)};
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

template <class Fn>
const std::pair<Fn, const void*>& lookup(const Table<Fn>& t, const KernelConfig& c, const std::string& kernel) {
  const auto it = t.find(c);
  if (it == t.end()) throw RuntimeFailure(kernel + ": no compiled instantiation for this configuration (catalog and kernels disagree)");
  return it->second;
}

// ------------------------------------------------------------------ buffers and inputs
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t bytes) : bytes_(bytes) { PERFMODEL_CUDA_CHECK(cudaMalloc(&p_, std::max<std::size_t>(bytes, 4))); }
  ~DeviceArray() {
    if (p_) cudaFree(p_);
  }
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p_); }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  // A pageable cudaMemcpy may return before its DMA lands, and the runs' stream is non-blocking
  // (no implicit order with the legacy stream): wait for the copy before any kernel reads it.
  void upload(const std::vector<T>& v) { upload_bytes(v.data(), v.size() * sizeof(T)); }
  void upload_bytes(const void* data, std::size_t bytes) {
    PERFMODEL_CUDA_CHECK(cudaMemcpy(p_, data, bytes, cudaMemcpyHostToDevice));
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  template <class T>
  std::vector<T> download(std::size_t count) const {
    std::vector<T> v(count);
    PERFMODEL_CUDA_CHECK(cudaMemcpy(v.data(), p_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Uniform in [lo, hi), a pure function of (seed, index): the same inputs on every run.
float uniform(std::uint64_t seed, std::size_t i, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>((mix(seed * 0x100000001b3ull + i) >> 40) * (1.0 / (1ull << 24)));
}

// ------------------------------------------------------------------ a prepared run
struct Check {
  double error = 0, bound = 0;
  std::string what;
};

struct Run {
  std::vector<std::pair<std::string, const void*>> phases;  // name, function
  std::vector<int> phase_threads;
  std::function<void(cudaStream_t)> reset = [](cudaStream_t) {};  // untimed, before each repetition
  std::function<void(cudaStream_t)> enqueue;
  std::function<Check()> check;
};

double norm_error(const std::vector<double>& got, const std::vector<double>& ref) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

constexpr int kSpots = 1024;

}  // namespace

// ------------------------------------------------------------------ problems
struct ReferenceRunner::Impl {
  explicit Impl(int threads) : pool(threads) {}
  cpu::ThreadPool pool;
  cudaStream_t stream = nullptr;
  DeviceArray flush;
  int sms = 0;

  // The current problem: inputs on host and device for one (family, n); replaced when either changes.
  std::string family;
  int n = 0;
  std::vector<float> h0, h1, h2;            // host inputs
  std::vector<unsigned char> img;
  DeviceArray d0, d1, d2, d3, d4, d5, d6;   // device arrays (meaning per family)

  void fill(std::vector<float>& v, std::size_t count, std::uint64_t seed, float lo, float hi) {
    v.resize(count);
    pool.run(pool.size(), [&](int index, int parts) {
      std::size_t first = 0, last = 0;
      cpu::ThreadPool::split(count, index, parts, first, last);
      for (std::size_t i = first; i < last; ++i) v[i] = uniform(seed, i, lo, hi);
    });
  }
  // Symmetric, diagonally dominant (eigenvalues in [1, 3]): SPD and well conditioned.
  void fill_spd(std::vector<float>& v, int size) {
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

  void prepare(const std::string& fam, int size) {
    if (fam == family && size == n) return;
    family.clear();
    for (DeviceArray* d : {&d0, &d1, &d2, &d3, &d4, &d5, &d6}) *d = DeviceArray();
    h0.clear(), h1.clear(), h2.clear(), img.clear();
    const auto s = static_cast<std::size_t>(size);
    if (fam == "mv") {
      fill(h0, s * s, 1, 0, 1), fill(h1, s, 2, 0, 1);
      d0 = DeviceArray(4 * s * s), d1 = DeviceArray(4 * s), d2 = DeviceArray(4 * s);
      d0.upload(h0), d1.upload(h1);
      if (size <= kMvConstantMax) PERFMODEL_CUDA_CHECK(cudaMemcpyToSymbol(mv_b_constant, h1.data(), 4 * s));
    } else if (fam == "mm" || fam == "sgemm") {
      fill(h0, s * s, 3, 0, 1), fill(h1, s * s, 4, 0, 1), fill(h2, s * s, 5, 0, 1);
      d0 = DeviceArray(4 * s * s), d1 = DeviceArray(4 * s * s), d2 = DeviceArray(4 * s * s), d3 = DeviceArray(4 * s * s);
      d0.upload(h0), d1.upload(h1), d3.upload(h2);  // d3: the initial C of sgemm
    } else if (fam == "conv2d") {
      fill(h0, s * s, 6, 0, 1), fill(h1, static_cast<std::size_t>(kFs * kFs), 8, 0, 1);
      d0 = DeviceArray(4 * s * s), d1 = DeviceArray(4 * kFs * kFs), d2 = DeviceArray(4 * s * s);
      d0.upload(h0), d1.upload(h1);
    } else if (fam == "dot") {
      fill(h0, s, 9, 0, 1), fill(h1, s, 10, 0, 1);
      d0 = DeviceArray(4 * s), d1 = DeviceArray(4 * s), d2 = DeviceArray(4);
      d0.upload(h0), d1.upload(h1);
    } else if (fam == "cg") {
      fill_spd(h0, size), fill(h1, s, 11, 0, 1);
      d0 = DeviceArray(4 * s * s), d1 = DeviceArray(4 * s);
      d0.upload(h0), d1.upload(h1);
      d2 = DeviceArray(4 * s), d3 = DeviceArray(4 * s), d4 = DeviceArray(4 * s), d5 = DeviceArray(4 * s);  // x r p q
      d6 = DeviceArray(4 * (2 * kCgIterations + 2));                                                    // scalars
    } else if (fam == "cholesky") {
      fill_spd(h0, size);
      d0 = DeviceArray(4 * s * s), d1 = DeviceArray(4 * s * s);
      d0.upload(h0);
    } else if (fam == "cosine") {
      fill(h0, s, 12, -3, 3);
      d0 = DeviceArray(4 * s), d1 = DeviceArray(4 * s);
      d0.upload(h0);
    } else if (fam == "blur") {
      img.resize(3 * s * s);
      for (std::size_t i = 0; i < img.size(); ++i) img[i] = static_cast<unsigned char>(mix(13 + i) >> 56);
      d0 = DeviceArray(3 * s * s), d1 = DeviceArray(3 * s * s);
      d0.upload_bytes(img.data(), img.size());
    } else {
      throw RuntimeFailure("no problem builder for family '" + fam + "'");
    }
    family = fam;
    n = size;
  }

  // Spot positions (row, column) for the large outputs, deterministic.
  std::vector<std::pair<int, int>> spots(int rows, int cols, std::uint64_t seed) const {
    std::vector<std::pair<int, int>> v;
    std::mt19937_64 rng(seed);
    for (int i = 0; i < kSpots; ++i) v.push_back({static_cast<int>(rng() % rows), static_cast<int>(rng() % cols)});
    v.push_back({rows - 1, cols - 1});
    v.push_back({0, 0});
    return v;
  }

  // References computed once per problem (keyed by what they are of).
  std::string ref_key;
  std::vector<double> ref;
  std::vector<std::pair<int, int>> ref_spots;

  template <class Compute>
  const std::vector<double>& reference(const std::string& key, Compute&& compute) {
    const std::string full = family + ":" + std::to_string(n) + ":" + key;
    if (ref_key != full) {
      ref = compute();
      ref_key = full;
    }
    return ref;
  }

  Run make_run(const std::string& kernel, int size, const KernelConfig& c);
};

namespace {
int blocks_for(long long items, int per_block) { return static_cast<int>((items + per_block - 1) / per_block); }
}  // namespace

Run ReferenceRunner::Impl::make_run(const std::string& kernel, int size, const KernelConfig& c) {
  const GpuKernelSpec& spec = gpu_kernel_spec(kernel);
  const std::string problem = config_problem(spec, size, c);
  if (!problem.empty()) throw InputError(kernel + ": " + problem);
  prepare(spec.family, size);
  const std::vector<std::string> names = phase_kernel_names(kernel, c);
  const auto s = static_cast<std::size_t>(size);
  const int threads = c.bx * c.by;
  const dim3 block(c.bx, c.by);
  Run run;
  auto phase = [&](std::size_t i, const void* fn, int phase_threads) {
    run.phases.push_back({names.at(i), fn});
    run.phase_threads.push_back(phase_threads);
  };
  const std::string& f = spec.family;

  if (f == "mv") {
    float *a = d0.as<float>(), *b = d1.as<float>(), *out = d2.as<float>();
    const int nn = size;
    if (kernel == "mv-global") {
      phase(0, reinterpret_cast<const void*>(&mv_global), threads);
      run.enqueue = [=](cudaStream_t st) { mv_global<<<launch_grid(nn / c.bx, st), c.bx, 0, st>>>(a, b, out, nn); };
    } else if (kernel == "mv-constant") {
      phase(0, reinterpret_cast<const void*>(&mv_constant), threads);
      run.enqueue = [=](cudaStream_t st) { mv_constant<<<launch_grid(nn / c.bx, st), c.bx, 0, st>>>(a, out, nn); };
    } else if (kernel == "mv-shared") {
      const auto fn = lookup(tables().mv_shared_t, c, kernel);
      phase(0, fn.second, threads);
      run.enqueue = [=](cudaStream_t st) { fn.first<<<launch_grid(nn / c.bx, st), c.bx, 0, st>>>(a, out, nn); };
    } else {
      const auto fn = lookup(tables().mv_opt_t, c, kernel);
      phase(0, fn.second, threads);
      run.enqueue = [=](cudaStream_t st) { fn.first<<<launch_grid(nn / c.bx, st), block, 0, st>>>(a, nullptr, out, nn); };
    }
    run.check = [this, s]() {
      const std::vector<double>& r = reference("c", [&] {
        std::vector<double> c_ref(s);
        pool.run(pool.size(), [&](int index, int parts) {
          std::size_t first = 0, last = 0;
          cpu::ThreadPool::split(s, index, parts, first, last);
          for (std::size_t i = first; i < last; ++i) {
            double acc = 0;
            for (std::size_t j = 0; j < s; ++j) acc += static_cast<double>(h0[i * s + j]) * h1[j];
            c_ref[i] = acc;
          }
        });
        return c_ref;
      });
      const std::vector<float> got = d2.download<float>(s);
      return Check{norm_error(std::vector<double>(got.begin(), got.end()), r), 2.0 * s * kUnit,
                   "max |c - c_ref| / max |c_ref| over all rows (double-precision CPU reference)"};
    };
    return run;
  }

  if (f == "mm") {
    float *a = d0.as<float>(), *b = d1.as<float>(), *out = d2.as<float>();
    const int nn = size;
    if (kernel == "mm-global") {
      phase(0, reinterpret_cast<const void*>(&mm_global), threads);
      run.enqueue = [=](cudaStream_t st) { mm_global<<<launch_grid(dim3(nn / c.bx, nn / c.by), st), block, 0, st>>>(a, b, out, nn); };
    } else if (kernel == "matmul") {
      phase(0, reinterpret_cast<const void*>(&matmul_naive), threads);
      const int g = blocks_for(nn, 32);
      run.enqueue = [=](cudaStream_t st) { matmul_naive<<<launch_grid(dim3(g, g), st), dim3(32, 32), 0, st>>>(a, b, out, nn); };
    } else if (kernel == "mm-shared") {
      const auto fn = lookup(tables().mm_shared_t, c, kernel);
      phase(0, fn.second, threads);
      run.enqueue = [=](cudaStream_t st) { fn.first<<<launch_grid(dim3(nn / c.bx, nn / c.by), st), block, 0, st>>>(a, b, out, nn); };
    } else {
      const auto fn = lookup(tables().mm_opt_t, c, kernel);
      phase(0, fn.second, threads);
      run.enqueue = [=](cudaStream_t st) { fn.first<<<launch_grid(dim3(nn / (c.bx * c.by), nn / c.p), st), block, 0, st>>>(a, b, out, nn); };
    }
    run.check = [this, s]() {
      const std::vector<double>& r = reference("C spots", [&] {
        ref_spots = spots(static_cast<int>(s), static_cast<int>(s), 21);
        std::vector<double> v;
        for (const auto& [i, j] : ref_spots) {
          double acc = 0;
          for (std::size_t k = 0; k < s; ++k) acc += static_cast<double>(h0[i * s + k]) * h1[k * s + j];
          v.push_back(acc);
        }
        return v;
      });
      const std::vector<float> all = d2.download<float>(s * s);
      std::vector<double> got;
      for (const auto& [i, j] : ref_spots) got.push_back(all[i * s + j]);
      return Check{norm_error(got, r), 2.0 * s * kUnit, "max |C - C_ref| / max |C_ref| over 1026 entries (double-precision CPU reference)"};
    };
    return run;
  }

  if (f == "sgemm") {
    float *a = d0.as<float>(), *b = d1.as<float>(), *out = d2.as<float>(), *c0 = d3.as<float>();
    const int nn = size;
    constexpr float alpha = 1.0f, beta = 0.5f;
    run.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(out, c0, 4 * s * s, cudaMemcpyDeviceToDevice, st)); };
    if (kernel == "sgemm-tiled") {
      phase(0, reinterpret_cast<const void*>(&sgemm_tiled), threads);
      run.enqueue = [=](cudaStream_t st) { sgemm_tiled<<<launch_grid(dim3(nn / 32, nn / 32), st), dim3(32, 8), 0, st>>>(a, b, out, nn, nn, nn, alpha, beta); };
    } else if (kernel == "sgemm-256x16") {
      phase(0, reinterpret_cast<const void*>(&sgemm_256x16), threads);
      run.enqueue = [=](cudaStream_t st) { sgemm_256x16<<<launch_grid(dim3(nn / 256, nn / 16), st), dim3(16, 16), 0, st>>>(a, b, out, nn, nn, nn, alpha, beta); };
    } else {
      phase(0, reinterpret_cast<const void*>(&sgemm_64), threads);
      run.enqueue = [=](cudaStream_t st) { sgemm_64<<<launch_grid(dim3(nn / 64, nn / 64), st), dim3(16, 16), 0, st>>>(a, b, out, nn, nn, nn, alpha, beta); };
    }
    run.check = [this, s]() {
      const std::vector<double>& r = reference("C spots", [&] {
        ref_spots = spots(static_cast<int>(s), static_cast<int>(s), 22);
        std::vector<double> v;
        for (const auto& [i, j] : ref_spots) {  // column-major: A(i,k) = h0[i + k·n]
          double acc = 0;
          for (std::size_t k = 0; k < s; ++k) acc += static_cast<double>(h0[i + k * s]) * h1[k + j * s];
          v.push_back(1.0 * acc + 0.5 * h2[i + j * s]);
        }
        return v;
      });
      const std::vector<float> all = d2.download<float>(s * s);
      std::vector<double> got;
      for (const auto& [i, j] : ref_spots) got.push_back(all[i + j * s]);
      return Check{norm_error(got, r), 2.0 * (s + 2) * kUnit, "max |C - C_ref| / max |C_ref| over 1026 entries of α·A·B + β·C (double-precision CPU reference)"};
    };
    return run;
  }

  if (f == "conv2d") {
    float *a = d0.as<float>(), *filt = d1.as<float>(), *out = d2.as<float>();
    const int nn = size;
    const dim3 grid(nn / c.bx, nn / c.by);
    if (kernel == "conv2d-global") {
      phase(0, reinterpret_cast<const void*>(&conv_global), threads);
      run.enqueue = [=](cudaStream_t st) { conv_global<<<launch_grid(grid, st), block, 0, st>>>(a, filt, out, nn); };
    } else {
      const auto fn = lookup(tables().conv_shared_t, c, kernel);
      phase(0, fn.second, threads);
      run.enqueue = [=](cudaStream_t st) { fn.first<<<launch_grid(grid, st), block, 0, st>>>(a, filt, out, nn); };
    }
    run.check = [this, s]() {
      const std::vector<double>& r = reference("C spots", [&] {
        ref_spots = spots(static_cast<int>(s), static_cast<int>(s), 23);
        std::vector<double> v;
        const long long ns = static_cast<long long>(s);
        for (const auto& [i, j] : ref_spots) {
          double acc = 0;
          for (int u = 0; u < kFs; ++u)
            for (int w = 0; w < kFs; ++w) {
              const long long rr = i + u - kR, cc = j + w - kR;
              if (rr >= 0 && rr < ns && cc >= 0 && cc < ns) acc += static_cast<double>(h0[rr * ns + cc]) * h1[u * kFs + w];
            }
          v.push_back(acc);
        }
        return v;
      });
      const std::vector<float> all = d2.download<float>(s * s);
      std::vector<double> got;
      for (const auto& [i, j] : ref_spots) got.push_back(all[i * s + j]);
      return Check{norm_error(got, r), 2.0 * kFs * kFs * kUnit, "max |C - C_ref| / max |C_ref| over 1026 entries (double-precision CPU reference)"};
    };
    return run;
  }

  if (f == "dot") {
    const auto fn = tables().dot_t.at(c.bx);
    phase(0, fn.second, threads);
    float *x = d0.as<float>(), *y = d1.as<float>(), *res = d2.as<float>();
    const long long len = size;
    const int grid = c.p;
    run.enqueue = [=](cudaStream_t st) {
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(res, 0, 4, st));
      fn.first<<<launch_grid(grid, st), c.bx, 0, st>>>(x, y, res, len);
    };
    const double terms = std::ceil(static_cast<double>(len) / (static_cast<double>(c.bx) * grid)) + std::log2(c.bx) + grid;
    run.check = [this, s, terms]() {
      const std::vector<double>& r = reference("sum", [&] {
        double acc = 0;
        for (std::size_t i = 0; i < s; ++i) acc += static_cast<double>(h0[i]) * h1[i];
        return std::vector<double>{acc};
      });
      const std::vector<float> got = d2.download<float>(1);
      return Check{std::abs(got[0] - r[0]) / r[0], 2.0 * terms * kUnit,
                   "|x·y - ref| / ref (double-precision CPU reference)"};
    };
    return run;
  }

  if (f == "cg") {
    const auto mvfn = lookup(tables().mv_opt_global_b_t, c, kernel);
    const auto dotfn = tables().dot_t.at(256);
    run.phases.push_back({names.at(0), dotfn.second});
    run.phase_threads.push_back(256);
    run.phases.push_back({names.at(1), mvfn.second});
    run.phase_threads.push_back(threads);
    run.phases.push_back({names.at(2), reinterpret_cast<const void*>(&cg_update_xr)});
    run.phase_threads.push_back(256);
    run.phases.push_back({names.at(3), reinterpret_cast<const void*>(&cg_update_p)});
    run.phase_threads.push_back(256);
    float *a = d0.as<float>(), *b = d1.as<float>(), *x = d2.as<float>(), *r = d3.as<float>(), *p = d4.as<float>(),
          *q = d5.as<float>(), *sc = d6.as<float>();
    const int nn = size, vb = blocks_for(size, 256), db = std::min(blocks_for(size, 256), 528);  // as the descriptor
    run.reset = [=](cudaStream_t st) {
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(x, 0, 4 * s, st));
      PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(r, b, 4 * s, cudaMemcpyDeviceToDevice, st));
      PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(p, b, 4 * s, cudaMemcpyDeviceToDevice, st));
      PERFMODEL_CUDA_CHECK(cudaMemsetAsync(sc, 0, 4 * (2 * kCgIterations + 2), st));
    };
    run.enqueue = [=](cudaStream_t st) {
      dotfn.first<<<launch_grid(db, st), 256, 0, st>>>(r, r, sc, nn);
      for (int i = 0; i < kCgIterations; ++i) {
        mvfn.first<<<launch_grid(nn / c.bx, st), block, 0, st>>>(a, p, q, nn);
        dotfn.first<<<launch_grid(db, st), 256, 0, st>>>(p, q, sc + 2 * i + 1, nn);
        cg_update_xr<<<launch_grid(vb, st), 256, 0, st>>>(x, r, p, q, sc, i, nn);
        dotfn.first<<<launch_grid(db, st), 256, 0, st>>>(r, r, sc + 2 * i + 2, nn);
        cg_update_p<<<launch_grid(vb, st), 256, 0, st>>>(p, r, sc, i, nn);
      }
    };
    run.check = [this, s]() {
      const std::vector<double>& ref_x = reference("x", [&] {
        std::vector<float> xr(s, 0.0f);
        cpu::cg(pool, pool.size(), h0.data(), h1.data(), xr.data(), static_cast<int>(s), kCgIterations);
        return std::vector<double>(xr.begin(), xr.end());
      });
      const std::vector<float> got = d2.download<float>(s);
      return Check{norm_error(std::vector<double>(got.begin(), got.end()), ref_x), 8.0 * s * kUnit,
                   "max |x - x_cpu| / max |x_cpu| after 10 iterations (perfmodel::cpu::cg reference)"};
    };
    return run;
  }

  if (f == "cholesky") {
    float *a0 = d0.as<float>(), *u = d1.as<float>();
    const int nn = size, bt = c.bx;
    run.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(u, a0, 4 * s * s, cudaMemcpyDeviceToDevice, st)); };
    if (kernel == "cholesky-single") {
      phase(0, reinterpret_cast<const void*>(&chol_single), threads);
      run.enqueue = [=](cudaStream_t st) { chol_single<<<launch_grid(1, st), bt, 0, st>>>(u, nn); };
    } else {
      phase(0, reinterpret_cast<const void*>(&chol_division), threads);
      phase(1, reinterpret_cast<const void*>(&chol_elimination), threads);
      run.enqueue = [=](cudaStream_t st) {
        for (int k = 0; k < nn; ++k) {
          chol_division<<<launch_grid(1, st), bt, 0, st>>>(u, nn, k);
          if (k + 1 < nn) chol_elimination<<<launch_grid(nn - k - 1, st), bt, 0, st>>>(u, nn, k);
        }
      };
    }
    run.check = [this, s]() {
      const std::vector<double>& r = reference("L spots", [&] {
        std::vector<float> l = h0;
        cpu::cholesky(pool, pool.size(), l.data(), static_cast<int>(s));
        ref_spots = spots(static_cast<int>(s), static_cast<int>(s), 24);
        std::vector<double> v;
        for (auto& [i, j] : ref_spots) {
          if (i > j) std::swap(i, j);  // upper triangle of U: U[i][j] = L[j][i]
          v.push_back(l[static_cast<std::size_t>(j) * s + i]);
        }
        return v;
      });
      const std::vector<float> all = d1.download<float>(s * s);
      std::vector<double> got;
      for (const auto& [i, j] : ref_spots) got.push_back(all[static_cast<std::size_t>(i) * s + j]);
      return Check{norm_error(got, r), 8.0 * s * kUnit, "max |U - L_cpuᵀ| / max |L_cpu| over 1026 entries (perfmodel::cpu::cholesky reference)"};
    };
    return run;
  }

  if (f == "cosine") {
    float *x0 = d0.as<float>(), *x = d1.as<float>();
    const int nn = size, bt = c.bx, grid = blocks_for(size, c.bx);
    phase(0, reinterpret_cast<const void*>(&cosine_loop), threads);
    run.reset = [=](cudaStream_t st) { PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(x, x0, 4 * s, cudaMemcpyDeviceToDevice, st)); };
    run.enqueue = [=](cudaStream_t st) { cosine_loop<<<launch_grid(grid, st), bt, 0, st>>>(x, nn, kCosineRepeats); };
    run.check = [this, s]() {
      const std::size_t stride = std::max<std::size_t>(1, s / 8192);
      const std::vector<double>& r = reference("x", [&] {
        std::vector<double> v;
        for (std::size_t i = 0; i < s; i += stride) {
          double y = h0[i];
          for (int k = 0; k < kCosineRepeats; ++k) y = std::cos(y);
          v.push_back(y);
        }
        return v;
      });
      const std::vector<float> all = d1.download<float>(s);
      std::vector<double> got;
      for (std::size_t i = 0; i < s; i += stride) got.push_back(all[i]);
      return Check{norm_error(got, r), 2e-6, "max |x - x_ref| / max |x_ref| over every element or 8192 evenly spaced ones (double-precision reference)"};
    };
    return run;
  }

  if (f == "blur") {
    unsigned char *in = d0.as<unsigned char>(), *out = d1.as<unsigned char>();
    const int nn = size, bt = c.bx, grid = blocks_for(static_cast<long long>(size) * size, c.bx);
    phase(0, reinterpret_cast<const void*>(&blur_kernel), threads);
    run.enqueue = [=](cudaStream_t st) { blur_kernel<<<launch_grid(grid, st), bt, 0, st>>>(in, out, nn, nn, kBlurRadius); };
    run.check = [this, s]() {
      const std::vector<double>& r = reference("image", [&] {
        std::vector<unsigned char> o(3 * s * s);
        cpu::blur(pool, pool.size(), img.data(), o.data(), static_cast<int>(s), static_cast<int>(s), kBlurRadius);
        return std::vector<double>(o.begin(), o.end());
      });
      std::vector<unsigned char> got(3 * s * s);
      PERFMODEL_CUDA_CHECK(cudaMemcpy(got.data(), d1.as<void>(), got.size(), cudaMemcpyDeviceToHost));
      double worst = 0;
      for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - r[i]));
      return Check{worst, 0, "largest difference of a channel value from perfmodel::cpu::blur (must be exact)"};
    };
    return run;
  }
  throw RuntimeFailure("no run builder for " + kernel);
}

ReferenceRunner::ReferenceRunner(int host_threads) : impl_(std::make_unique<Impl>(host_threads)) {
  int device = 0;
  PERFMODEL_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  PERFMODEL_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  impl_->sms = prop.multiProcessorCount;
  impl_->flush = DeviceArray(static_cast<std::size_t>(2) * std::max(prop.l2CacheSize, 1 << 20));
  PERFMODEL_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
}

ReferenceRunner::~ReferenceRunner() {
  if (impl_ && impl_->stream) cudaStreamDestroy(impl_->stream);
}

namespace {
PhaseInfo phase_info(const std::string& name, const void* fn, int threads) {
  cudaFuncAttributes attr{};
  PERFMODEL_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
  PhaseInfo info;
  info.kernel = name;
  info.resources = {attr.numRegs, static_cast<int>(attr.sharedSizeBytes), attr.maxThreadsPerBlock};
  info.threads_per_block = threads;
  PERFMODEL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info.occupancy_blocks_per_sm, fn, threads, 0));
  return info;
}
}  // namespace

PointResult ReferenceRunner::measure(const std::string& kernel, int n, const KernelConfig& config, const MeasureSettings& settings) {
  Impl& m = *impl_;
  Run run = m.make_run(kernel, n, config);
  PointResult result;
  result.kernel = kernel;
  result.n = n;
  result.config = config;
  for (std::size_t i = 0; i < run.phases.size(); ++i) {
    result.phases.push_back(phase_info(run.phases[i].first, run.phases[i].second, run.phase_threads[i]));
    const PhaseInfo& p = result.phases.back();
    if (p.threads_per_block > p.resources.max_threads_per_block)
      throw RuntimeFailure(kernel + ": " + p.kernel + " was compiled with " + std::to_string(p.resources.registers_per_thread) +
                           " registers per thread and cannot launch " + std::to_string(p.threads_per_block) + " threads per block");
  }
  cudaStream_t st = m.stream;
  EventTimer timer;
#ifdef PERFMODEL_BLOCK_SUBSET
  PERFMODEL_CUDA_CHECK(cudaStreamSynchronize(st));
  subset_begin();
#endif
  // Warm-up run, then the check: no time is kept from a run whose result is wrong.
  run.reset(st);
  const BatchTiming first = timer.time(st, 1, [&] { run.enqueue(st); });
  PERFMODEL_CUDA_CHECK_LAUNCH();
#ifdef PERFMODEL_BLOCK_SUBSET
  result.blocks_launched = subset_description(result.grid_complete);
  if (!result.grid_complete) {  // the blocks that did not run left their outputs unwritten: nothing to check
    result.check_what = "not checked: the launches ran a subset of their grids (racecheck build, PERFMODEL_RACECHECK_BLOCKS)";
    return result;
  }
#endif
  const Check check = run.check();
  result.check_error = check.error;
  result.check_bound = check.bound;
  result.check_what = check.what;
  if (!result.passed()) return result;
  const int reps = std::clamp(static_cast<int>(settings.target_seconds / std::max(first.event_s, 1e-7)), settings.min_reps, settings.max_reps);
  for (int rep = 0; rep < reps; ++rep) {
    run.reset(st);
    PERFMODEL_CUDA_CHECK(cudaMemsetAsync(m.flush.as<void>(), rep & 0xff, m.flush.bytes(), st));  // evict L2
    const BatchTiming t = timer.time(st, 1, [&] { run.enqueue(st); });
    PERFMODEL_CUDA_CHECK_LAUNCH();
    result.seconds.push_back(t.event_s);
  }
  return result;
}

bool block_subset_build() {
#ifdef PERFMODEL_BLOCK_SUBSET
  return true;
#else
  return false;
#endif
}

std::vector<PhaseInfo> ReferenceRunner::all_resources() {
  std::vector<PhaseInfo> all;
  std::map<std::string, bool> seen;
  for (const GpuKernelSpec& spec : gpu_kernel_specs())
    for (const KernelConfig& c : spec.configs) {
      // Build the run at the smallest size the config accepts, only to reach its functions.
      int n = std::max(spec.min_n, 512);
      while (!config_problem(spec, n, c).empty() && n <= spec.max_n) n *= 2;
      if (!config_problem(spec, n, c).empty()) continue;
      const Run run = impl_->make_run(spec.name, n, c);
      for (std::size_t i = 0; i < run.phases.size(); ++i) {
        const std::string key = run.phases[i].first + "@" + std::to_string(run.phase_threads[i]);
        if (seen[key]) continue;
        seen[key] = true;
        all.push_back(phase_info(run.phases[i].first, run.phases[i].second, run.phase_threads[i]));
      }
    }
  return all;
}

}  // namespace perfmodel::gpu

// The offloaded operations (copies + kernels + copies, host-timed) of `perfmodel validate --only offload`.
#include "offload_runs.cuh"
