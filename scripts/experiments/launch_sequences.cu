// Experiment (not part of the toolkit's calibration): how long a sequence of k back-to-back
// launches takes between two events, for k = 1 … 2048, with the GPU idle when the start event is
// recorded, or still busy with ~30 µs of earlier work (as after the validation runner's L2 flush),
// and what an async memset adds in front of a kernel. Prints CSV: case,k,rep,seconds.
// Build: nvcc -O2 -arch=sm_90 -o launch_sequences launch_sequences.cu
#include "check.cuh"

__global__ void empty() {}
__global__ void four_args(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n + 1) c[0] = a[0] + b[0];  // never true: a launch with arguments and no work
}
__global__ void spin(unsigned long long cycles) {
  const unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float* buf;
  CHECK(cudaMalloc(&buf, 1 << 20));
  const unsigned long long busy_cycles = 60000;  // ~30 µs at 1.98 GHz
  std::printf("case,k,rep,seconds\n");
  const int ks[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  for (int round = 0; round < 7; ++round)
    for (int busy = 0; busy <= 1; ++busy)
      for (int kind = 0; kind <= 2; ++kind)
        for (int k : ks) {
          if (kind == 2 && k > 64) continue;
          CHECK(cudaStreamSynchronize(s));
          if (busy) spin<<<1, 32, 0, s>>>(busy_cycles);
          CHECK(cudaEventRecord(a, s));
          for (int i = 0; i < k; ++i) {
            if (kind == 0) empty<<<1, 1, 0, s>>>();
            if (kind == 1) four_args<<<528, 256, 0, s>>>(buf, buf, buf, 1 << 20);
            if (kind == 2) {
              CHECK(cudaMemsetAsync(buf, 0, 4, s));
              four_args<<<528, 256, 0, s>>>(buf, buf, buf, 1 << 20);
            }
          }
          CHECK(cudaEventRecord(b, s));
          CHECK(cudaEventSynchronize(b));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, a, b));
          const char* names[] = {"empty", "four_args", "memset+four_args"};
          std::printf("%s%s,%d,%d,%.9g\n", names[kind], busy ? "/busy" : "", k, round, ms * 1e-3);
        }
  return 0;
}
