// Experiment (not part of the toolkit's calibration): does a process's launch rate change as it
// runs? Repeats the calibration's back-to-back launch measurement (1000 empty <<<1,1>>> launches
// between two events) several hundred times in one process, with a CG-like sequence (51 launches
// of a small kernel with four arguments behind ~30 µs of GPU work, as after the validation
// runner's L2 flush) in between, and records per repetition the event time, the host's enqueue
// time (steady clock around the launch loop) and the CPU the thread ran on. Also the
// cholesky-opt launch pattern behind the validation runner's L2 flush.
// Prints CSV (steps given as arguments, see main): case,rep,since_start_s,event_per_launch_s,host_per_launch_s,cpu.
// Build: nvcc -O2 -arch=sm_90 -o launch_warmup launch_warmup.cu
#include <sched.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "check.cuh"

__global__ void empty() {}
__global__ void four_args(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + 0.5f * b[i];
}
// Cholesky-like pair: one block, then n-k-1 blocks, on a small matrix (no real work).
__global__ void one_block(float* u, int n, int k) {
  if (threadIdx.x == 0 && k < 0) u[n] = 1.0f;
}
__global__ void many_blocks(float* u, int n, int k) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && k < 0) u[n] = 1.0f;
}
__global__ void spin(unsigned long long cycles) {
  const unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

int main(int argc, char** argv) {
  int reps = 300;
  const auto t0 = std::chrono::steady_clock::now();
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float* buf;
  CHECK(cudaMalloc(&buf, 3 << 12));
  CHECK(cudaMemset(buf, 0, 3 << 12));
  std::printf("case,rep,since_start_s,event_per_launch_s,host_per_launch_s,cpu\n");
  const auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  float* flush;
  const size_t flush_bytes = 100u << 20;  // twice the H100's L2, as the validation runner flushes it
  CHECK(cudaMalloc(&flush, flush_bytes));
  const auto run = [&](const char* name, int k, int busy, auto&& launch) {
    for (int rep = 0; rep < reps; ++rep) {
      CHECK(cudaStreamSynchronize(s));
      if (busy == 1) spin<<<1, 32, 0, s>>>(60000);  // ~30 µs at 1.98 GHz
      if (busy == 2) CHECK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes, s));
      CHECK(cudaEventRecord(a, s));
      const auto h0 = std::chrono::steady_clock::now();
      for (int i = 0; i < k; ++i) launch();
      const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count();
      CHECK(cudaEventRecord(b, s));
      CHECK(cudaEventSynchronize(b));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      std::printf("%s,%d,%.6f,%.9g,%.9g,%d\n", name, rep, since(), ms * 1e-3 / k, host / k, sched_getcpu());
    }
  };
  const auto empty_launch = [&] { empty<<<1, 1, 0, s>>>(); };
  const auto small_launch = [&] { four_args<<<2, 256, 0, s>>>(buf, buf + 1024, buf + 2048, 512); };
  int step = 0;
  const auto pair_launch = [&] {  // 511 launches: n = 256 of the cholesky-opt pattern
    const int k = step++ % 511;
    if (k % 2 == 0) one_block<<<1, 256, 0, s>>>(buf, 256, k / 2);
    else many_blocks<<<255 - k / 2, 256, 0, s>>>(buf, 256, k / 2);
  };
  // Arguments: a plan of steps KIND:COUNT, run in order: e (empty1000), b (small51/busy),
  // m (small1000), c (cholesky511/flush: 511 launches of a one-block and a many-block kernel in
  // turn, behind a 100 MB memset as the validation runner's flush), f (empty511/flush) for COUNT
  // repetitions, s (sleep COUNT ms). Default: e:300 b:300 m:300 e:300 b:300.
  std::vector<std::string> plan(argv + 1, argv + argc);
  if (plan.empty()) plan = {"e:300", "b:300", "m:300", "e:300", "b:300"};
  for (const std::string& step : plan) {
    const char kind = step[0];
    const int count = std::atoi(step.c_str() + 2);
    reps = count;
    if (kind == 'e') run("empty1000", 1000, false, empty_launch);
    else if (kind == 'b') run("small51/busy", 51, true, small_launch);
    else if (kind == 'm') run("small1000", 1000, false, small_launch);
    else if (kind == 'c') run("cholesky511/flush", 511, 2, pair_launch);
    else if (kind == 'f') run("empty511/flush", 511, 2, empty_launch);
    else if (kind == 's') std::this_thread::sleep_for(std::chrono::milliseconds(count));
    else {
      std::fprintf(stderr, "unknown step %s\n", step.c_str());
      return 2;
    }
  }
  return 0;
}
