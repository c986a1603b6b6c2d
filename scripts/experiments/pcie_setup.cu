// Experiment (not calibration): what a PCIe benchmark's buffers cost to set up and tear down,
// beside its samples. Each calibrated curve allocates 1 GiB of host memory (pinned or pageable,
// every page touched), 1 GiB on the device, and frees them; the bidirectional one twice. Prints
// CSV: what,rep,seconds (wall clock).
// Build: nvcc -O2 -arch=sm_90 -o pcie_setup pcie_setup.cu
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "check.cuh"

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

int main() {
  const size_t bytes = size_t{1} << 30;
  CHECK(cudaFree(nullptr));  // context
  std::printf("what,rep,seconds\n");
  for (int rep = 0; rep < 3; ++rep) {
    void *pinned = nullptr, *pageable = nullptr, *dev = nullptr;
    double t = now();
    CHECK(cudaMallocHost(&pinned, bytes));
    std::printf("cudaMallocHost_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    std::memset(pinned, 0, bytes);
    std::printf("memset_pinned_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    pageable = std::aligned_alloc(4096, bytes);
    std::memset(pageable, 0, bytes);
    std::printf("aligned_alloc_memset_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    CHECK(cudaMalloc(&dev, bytes));
    CHECK(cudaMemset(dev, 0, bytes));
    CHECK(cudaDeviceSynchronize());
    std::printf("cudaMalloc_memset_1GiB,%d,%.6f\n", rep, now() - t);
    for (int copy = 0; copy < 2; ++copy) {
      t = now();
      CHECK(cudaMemcpy(dev, pageable, bytes, cudaMemcpyHostToDevice));
      std::printf("pageable_h2d_1GiB_copy%d,%d,%.6f\n", copy, rep, now() - t);
    }
    t = now();
    CHECK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice));
    std::printf("pinned_h2d_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    CHECK(cudaFreeHost(pinned));
    std::printf("cudaFreeHost_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    std::free(pageable);
    std::printf("free_1GiB,%d,%.6f\n", rep, now() - t);
    t = now();
    CHECK(cudaFree(dev));
    std::printf("cudaFree_1GiB,%d,%.6f\n", rep, now() - t);
  }
  return 0;
}
