// Cecconi's task-farm driver on CUDA streams (MODELS.md §3.7 K-FARM), its serial and data-parallel
// references, and the three farm kernels. See farm_runs.hpp for the method.
#include "perfmodel/kernels/farm_runs.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_resources.cuh"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"

namespace perfmodel::gpu {
namespace {

// The farm kernels are the reference kernels (other_kernels.cuh: cosine_loop, blur_kernel;
// mm_kernels.cuh: matmul_naive) with one addition: the task index, from the grid's y (z for
// matmul) dimension, selects the task's data, so that the data-parallel reference runs the very
// same code over all tasks in one launch. A per-task launch has grid y (z) = 1.

// K-COS (Cecconi Listing 4.1), in place on the task's slot.
__global__ void __launch_bounds__(1024) farm_cosine(float* __restrict__ x, int n, int repeats) {
  x += static_cast<size_t>(blockIdx.y) * n;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < repeats; ++r) v = cosf(v);
  x[i] = v;
}

// K-MATMUL (Cecconi Listing 4.2), grid ⌈N/32⌉²: the task's input holds A then B.
__global__ void __launch_bounds__(1024) farm_matmul(const float* __restrict__ in, float* __restrict__ c, int n) {
  const size_t nn = static_cast<size_t>(n) * n;
  const float* a = in + blockIdx.z * 2 * nn;
  const float* b = a + nn;
  c += blockIdx.z * nn;
  const int col = blockIdx.x * 32 + threadIdx.x, row = blockIdx.y * 32 + threadIdx.y;
  if (row < n && col < n) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += a[static_cast<size_t>(row) * n + i] * b[static_cast<size_t>(i) * n + col];
    c[static_cast<size_t>(row) * n + col] = s;
  }
}

// K-BLUR (Cecconi Listing 4.3): integer sums and division, as the CPU reference.
__global__ void __launch_bounds__(1024) farm_blur(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int side,
                                                   int radius) {
  const size_t image = 3 * static_cast<size_t>(side) * side;
  in += blockIdx.y * image;
  out += blockIdx.y * image;
  const long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (p >= static_cast<long long>(side) * side) return;
  const int x = static_cast<int>(p % side), y = static_cast<int>(p / side);
  int sr = 0, sg = 0, sb = 0, hits = 0;
  for (int ox = -radius; ox <= radius; ++ox)
    for (int oy = -radius; oy <= radius; ++oy)
      if (x + ox >= 0 && x + ox < side && y + oy >= 0 && y + oy < side) {
        const long long q = (p + ox + static_cast<long long>(oy) * side) * 3;
        sr += in[q];
        sg += in[q + 1];
        sb += in[q + 2];
        ++hits;
      }
  out[3 * p] = static_cast<unsigned char>(sr / hits);
  out[3 * p + 1] = static_cast<unsigned char>(sg / hits);
  out[3 * p + 2] = static_cast<unsigned char>(sb / hits);
}

constexpr double kUnit = 1.0 / (1 << 24);  // unit roundoff of binary32

// Sampled output positions of a task (units: output elements; floats, or bytes for blur).
std::vector<std::size_t> sample_positions(std::size_t elements, int samples, int task) {
  std::vector<std::size_t> p;
  p.push_back(0);
  p.push_back(elements - 1);
  std::uint64_t h = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(task + 1);
  while (static_cast<int>(p.size()) < samples) {
    h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 29;
    p.push_back(static_cast<std::size_t>(h % elements));
  }
  return p;
}

// Grid of one task's launch (the task index dimension set to `tasks`).
struct Launch {
  dim3 grid, block;
};

}  // namespace

std::string cuda_device_max_connections() {
  const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  return v ? std::string(v) : std::string();
}

struct FarmRunner::Impl {
  FarmTask task;
  int tasks = 0;
  std::size_t in_bytes = 0, out_bytes = 0;  // per task
  std::unique_ptr<HostBuffer> in_pinned, out_pinned, in_pageable, out_pageable;
  // Sampled reference: per task, positions and expected values (as double; bytes for blur).
  std::vector<std::vector<std::size_t>> positions;
  std::vector<std::vector<double>> expected;
  std::vector<std::vector<double>> scale;  // matmul: Σ|a_i·b_i| of each sample (its error scale)

  bool in_place() const { return task.app == FarmApp::cosine; }

  Launch launch(int batch) const {
    const unsigned b = static_cast<unsigned>(batch);
    switch (task.app) {
      case FarmApp::cosine: return {dim3((task.size + 1023) / 1024, b), dim3(1024)};
      case FarmApp::matmul: {
        const unsigned g = static_cast<unsigned>((task.size + 31) / 32);
        return {dim3(g, g, b), dim3(32, 32)};
      }
      case FarmApp::blur: {
        const long long pixels = static_cast<long long>(task.size) * task.size;
        return {dim3(static_cast<unsigned>((pixels + 1023) / 1024), b), dim3(1024)};
      }
    }
    return {};
  }

  // One launch over `batch` consecutive tasks whose inputs start at `in` and outputs at `out`.
  void enqueue_kernel(unsigned char* in, unsigned char* out, int batch, cudaStream_t stream) const {
    const Launch l = launch(batch);
    switch (task.app) {
      case FarmApp::cosine: farm_cosine<<<l.grid, l.block, 0, stream>>>(reinterpret_cast<float*>(in), task.size, task.iterations); break;
      case FarmApp::matmul:
        farm_matmul<<<l.grid, l.block, 0, stream>>>(reinterpret_cast<const float*>(in), reinterpret_cast<float*>(out), task.size);
        break;
      case FarmApp::blur: farm_blur<<<l.grid, l.block, 0, stream>>>(in, out, task.size, kBlurRadius); break;
    }
  }

  void build_inputs() {
    std::mt19937 rng(20261126u + static_cast<unsigned>(task.app) * 7919u + static_cast<unsigned>(task.size));
    unsigned char* host = in_pinned->get();
    const std::size_t total = in_bytes * static_cast<std::size_t>(tasks);
    if (task.app == FarmApp::blur) {
      std::uniform_int_distribution<int> byte(0, 255);
      for (std::size_t i = 0; i < total; ++i) host[i] = static_cast<unsigned char>(byte(rng));
    } else {
      std::uniform_real_distribution<float> value(task.app == FarmApp::cosine ? 0.0f : -1.0f, 1.0f);
      float* f = reinterpret_cast<float*>(host);
      for (std::size_t i = 0; i < total / 4; ++i) f[i] = value(rng);
    }
  }

  void build_reference() {
    const int samples = task.app == FarmApp::cosine ? 8 : task.app == FarmApp::matmul ? 16 : 64;
    const std::size_t elements = task.app == FarmApp::blur ? out_bytes : out_bytes / 4;
    positions.assign(static_cast<std::size_t>(tasks), {});
    expected.assign(static_cast<std::size_t>(tasks), {});
    scale.assign(static_cast<std::size_t>(tasks), {});
    for (int k = 0; k < tasks; ++k) {
      const unsigned char* in = in_pinned->get() + in_bytes * static_cast<std::size_t>(k);
      auto& pos = positions[static_cast<std::size_t>(k)];
      pos = sample_positions(elements, samples, k);
      for (std::size_t at : pos) {
        double value = 0, s = 1;
        if (task.app == FarmApp::cosine) {
          float v = reinterpret_cast<const float*>(in)[at];
          for (int r = 0; r < task.iterations; ++r) v = std::cos(v);
          value = v;
        } else if (task.app == FarmApp::matmul) {
          const int n = task.size;
          const float* a = reinterpret_cast<const float*>(in);
          const float* b = a + static_cast<std::size_t>(n) * n;
          const std::size_t row = at / n, col = at % n;
          double sum = 0, abs_sum = 0;
          for (int i = 0; i < n; ++i) {
            const double t = static_cast<double>(a[row * n + i]) * b[static_cast<std::size_t>(i) * n + col];
            sum += t, abs_sum += std::abs(t);
          }
          value = sum, s = abs_sum > 0 ? abs_sum : 1;
        } else {
          const int side = task.size, channel = static_cast<int>(at % 3);
          const long long p = static_cast<long long>(at / 3);
          const int x = static_cast<int>(p % side), y = static_cast<int>(p / side);
          int sum = 0, hits = 0;
          for (int ox = -kBlurRadius; ox <= kBlurRadius; ++ox)
            for (int oy = -kBlurRadius; oy <= kBlurRadius; ++oy)
              if (x + ox >= 0 && x + ox < side && y + oy >= 0 && y + oy < side) {
                sum += in[(p + ox + static_cast<long long>(oy) * side) * 3 + channel];
                ++hits;
              }
          value = sum / hits;
        }
        expected[static_cast<std::size_t>(k)].push_back(value);
        scale[static_cast<std::size_t>(k)].push_back(s);
      }
    }
  }

  // Overwrites the sampled outputs with values the kernel cannot produce.
  void poison(unsigned char* out) const {
    for (int k = 0; k < tasks; ++k) {
      unsigned char* o = out + out_bytes * static_cast<std::size_t>(k);
      const auto& pos = positions[static_cast<std::size_t>(k)];
      for (std::size_t j = 0; j < pos.size(); ++j) {
        if (task.app == FarmApp::blur) {
          o[pos[j]] = static_cast<unsigned char>((static_cast<int>(expected[static_cast<std::size_t>(k)][j]) + 1) & 0xff);
        } else {
          reinterpret_cast<float*>(o)[pos[j]] = std::numeric_limits<float>::quiet_NaN();
        }
      }
    }
  }

  // The worst sampled error over all tasks, in the check's measure (NaN counts as infinite).
  double check(const unsigned char* out) const {
    double worst = 0;
    for (int k = 0; k < tasks; ++k) {
      const unsigned char* o = out + out_bytes * static_cast<std::size_t>(k);
      const auto& pos = positions[static_cast<std::size_t>(k)];
      for (std::size_t j = 0; j < pos.size(); ++j) {
        const double want = expected[static_cast<std::size_t>(k)][j];
        const double got = task.app == FarmApp::blur ? o[pos[j]] : reinterpret_cast<const float*>(o)[pos[j]];
        double e = std::abs(got - want) / (task.app == FarmApp::matmul ? scale[static_cast<std::size_t>(k)][j] : 1.0);
        if (!(e == e)) e = std::numeric_limits<double>::infinity();
        worst = std::max(worst, e);
      }
    }
    return worst;
  }

  double check_bound() const {
    switch (task.app) {
      case FarmApp::cosine: return 1e-5;  // cos contracts errors near its fixed point; cosf is within 2 ulp
      case FarmApp::matmul: return (task.size + 2) * kUnit;  // |c − ref| / Σ|a·b| of a float dot product
      case FarmApp::blur: return 0;  // integer arithmetic: exact
    }
    return 0;
  }

  std::string check_what() const {
    switch (task.app) {
      case FarmApp::cosine: return "max |x - x_ref| over sampled elements of every task";
      case FarmApp::matmul: return "max |c - c_ref| / sum|a*b| over sampled elements of every task";
      case FarmApp::blur: return "max byte difference over sampled bytes of every task";
    }
    return "";
  }
};

FarmRunner::FarmRunner() : impl_(std::make_unique<Impl>()) {}
FarmRunner::~FarmRunner() = default;

void FarmRunner::prepare(const FarmTask& task, int tasks) {
  const std::string problem = farm_task_problem(task);
  if (!problem.empty()) throw InputError(problem);
  if (tasks < 1) throw InputError("a farm needs at least one task");
  Impl& m = *impl_;
  m.in_pinned.reset(), m.out_pinned.reset(), m.in_pageable.reset(), m.out_pageable.reset();
  m.task = task;
  m.tasks = tasks;
  m.in_bytes = static_cast<std::size_t>(task.bytes_in());
  m.out_bytes = static_cast<std::size_t>(task.bytes_out());
  m.in_pinned = std::make_unique<HostBuffer>(m.in_bytes * tasks, HostMemory::pinned);
  m.out_pinned = std::make_unique<HostBuffer>(m.out_bytes * tasks, HostMemory::pinned);
  m.build_inputs();
  m.build_reference();
}

FarmResult FarmRunner::measure(const FarmConfig& config, int reps) {
  Impl& m = *impl_;
  if (m.tasks == 0) throw RuntimeFailure("FarmRunner::measure before prepare");
  if (config.mode == FarmMode::streams && config.streams < 1) throw InputError("a stream farm needs at least one stream");
  const bool pageable = config.memory == HostMemory::pageable;
  if (pageable && !m.in_pageable) {
    m.in_pageable = std::make_unique<HostBuffer>(m.in_bytes * m.tasks, HostMemory::pageable);
    m.out_pageable = std::make_unique<HostBuffer>(m.out_bytes * m.tasks, HostMemory::pageable);
    std::memcpy(m.in_pageable->get(), m.in_pinned->get(), m.in_bytes * m.tasks);
  }
  unsigned char* host_in = pageable ? m.in_pageable->get() : m.in_pinned->get();
  unsigned char* host_out = pageable ? m.out_pageable->get() : m.out_pinned->get();
  const std::size_t in_b = m.in_bytes, out_b = m.out_bytes;
  const int L = m.tasks;

  // Device slots: one per stream (serial: one; data-parallel: one per task). The cosine loop works
  // in place, so its slot is its input.
  const int slots = config.mode == FarmMode::data_parallel ? L : config.mode == FarmMode::serial ? 1 : std::min(config.streams, L);
  const std::size_t slot_bytes = in_b + (m.in_place() ? 0 : out_b);
  DeviceBuffer device(slot_bytes * static_cast<std::size_t>(slots));
  auto slot_in = [&](int s) { return device.get() + slot_bytes * static_cast<std::size_t>(s); };
  auto slot_out = [&](int s) { return m.in_place() ? slot_in(s) : slot_in(s) + in_b; };

  std::vector<cudaStream_t> streams;
  if (config.mode == FarmMode::streams) {
    streams.resize(static_cast<std::size_t>(config.streams));
    for (cudaStream_t& s : streams) PERFMODEL_CUDA_CHECK(cudaStreamCreate(&s));  // blocking: they order with the legacy stream
  }
  struct StreamsGuard {
    std::vector<cudaStream_t>& s;
    ~StreamsGuard() {
      for (cudaStream_t x : s) cudaStreamDestroy(x);
    }
  } guard{streams};
  cudaEvent_t start = nullptr, stop = nullptr;
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&start));
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&stop));
  struct EventsGuard {
    cudaEvent_t a, b;
    ~EventsGuard() {
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
  } events_guard{start, stop};

  const cudaStream_t legacy = cudaStreamLegacy;
  auto issue = [&] {
    switch (config.mode) {
      case FarmMode::serial:
        for (int k = 0; k < L; ++k) {
          PERFMODEL_CUDA_CHECK(cudaMemcpy(slot_in(0), host_in + in_b * k, in_b, cudaMemcpyHostToDevice));
          m.enqueue_kernel(slot_in(0), slot_out(0), 1, legacy);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(host_out + out_b * k, slot_out(0), out_b, cudaMemcpyDeviceToHost));
        }
        break;
      case FarmMode::streams:
        for (int k = 0; k < L; ++k) {
          const int s = k % config.streams;
          cudaStream_t st = streams[static_cast<std::size_t>(s)];
          PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(slot_in(s), host_in + in_b * k, in_b, cudaMemcpyHostToDevice, st));
          m.enqueue_kernel(slot_in(s), slot_out(s), 1, st);
          PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(host_out + out_b * k, slot_out(s), out_b, cudaMemcpyDeviceToHost, st));
        }
        break;
      case FarmMode::data_parallel:
        if (m.in_place()) {
          PERFMODEL_CUDA_CHECK(cudaMemcpy(slot_in(0), host_in, in_b * L, cudaMemcpyHostToDevice));
          m.enqueue_kernel(slot_in(0), slot_in(0), L, legacy);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(host_out, slot_in(0), out_b * L, cudaMemcpyDeviceToHost));
        } else {
          // All inputs, then all outputs, each contiguous: the batched kernel indexes them by task.
          unsigned char* ins = device.get();
          unsigned char* outs = device.get() + in_b * static_cast<std::size_t>(L);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(ins, host_in, in_b * L, cudaMemcpyHostToDevice));
          m.enqueue_kernel(ins, outs, L, legacy);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(host_out, outs, out_b * L, cudaMemcpyDeviceToHost));
        }
        break;
    }
    PERFMODEL_CUDA_CHECK_LAUNCH();
  };

  FarmResult result;
  result.check_bound = m.check_bound();
  result.check_what = m.check_what();
  std::vector<double> seconds, issue_seconds;
  PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
  for (int rep = -1; rep < reps; ++rep) {  // rep −1: the warm-up, checked but not kept
    m.poison(host_out);
    PERFMODEL_CUDA_CHECK(cudaEventRecord(start, legacy));
    const auto issue_start = std::chrono::steady_clock::now();
    issue();
    const double issue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - issue_start).count();
    PERFMODEL_CUDA_CHECK(cudaEventRecord(stop, legacy));
    PERFMODEL_CUDA_CHECK(cudaEventSynchronize(stop));
    PERFMODEL_CUDA_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    PERFMODEL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    const double error = m.check(host_out);
    result.check_error = std::max(result.check_error, error);
    if (!result.passed()) return result;  // no time kept
    if (rep >= 0) seconds.push_back(static_cast<double>(ms) * 1e-3), issue_seconds.push_back(issue_s);
  }
  result.seconds = std::move(seconds);
  result.issue_seconds = std::move(issue_seconds);
  return result;
}

std::vector<PhaseInfo> FarmRunner::resources() {
  std::vector<PhaseInfo> out;
  auto add = [&](const char* name, const void* fn, int threads) {
    cudaFuncAttributes a{};
    PERFMODEL_CUDA_CHECK(cudaFuncGetAttributes(&a, fn));
    int blocks = 0;
    PERFMODEL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, 0));
    PhaseInfo p;
    p.kernel = name;
    p.threads_per_block = threads;
    p.resources = {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock};
    p.occupancy_blocks_per_sm = blocks;
    out.push_back(p);
  };
  add("farm_cosine", reinterpret_cast<const void*>(&farm_cosine), 1024);
  add("farm_matmul", reinterpret_cast<const void*>(&farm_matmul), 1024);
  add("farm_blur", reinterpret_cast<const void*>(&farm_blur), 1024);
  return out;
}

}  // namespace perfmodel::gpu
