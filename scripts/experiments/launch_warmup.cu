// Experiment (not part of the toolkit's calibration): does a process's launch rate change as it
// runs? Repeats the calibration's back-to-back launch measurement (1000 empty <<<1,1>>> launches
// between two events) several hundred times in one process, with a CG-like sequence (51 launches
// of a small kernel with four arguments behind ~30 µs of GPU work, as after the validation
// runner's L2 flush) in between, and records per repetition the event time, the host's enqueue
// time (steady clock around the launch loop) and the CPU the thread ran on.
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
  const auto run = [&](const char* name, int k, bool busy, auto&& launch) {
    for (int rep = 0; rep < reps; ++rep) {
      CHECK(cudaStreamSynchronize(s));
      if (busy) spin<<<1, 32, 0, s>>>(60000);  // ~30 µs at 1.98 GHz
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
  // Arguments: a plan of steps KIND:COUNT, run in order: e (empty1000), b (small51/busy),
  // m (small1000) for COUNT repetitions, s (sleep COUNT ms). Default: e:300 b:300 m:300 e:300 b:300.
  std::vector<std::string> plan(argv + 1, argv + argc);
  if (plan.empty()) plan = {"e:300", "b:300", "m:300", "e:300", "b:300"};
  for (const std::string& step : plan) {
    const char kind = step[0];
    const int count = std::atoi(step.c_str() + 2);
    reps = count;
    if (kind == 'e') run("empty1000", 1000, false, empty_launch);
    else if (kind == 'b') run("small51/busy", 51, true, small_launch);
    else if (kind == 'm') run("small1000", 1000, false, small_launch);
    else if (kind == 's') std::this_thread::sleep_for(std::chrono::milliseconds(count));
    else {
      std::fprintf(stderr, "unknown step %s\n", step.c_str());
      return 2;
    }
  }
  return 0;
}
