// The independent transfer check's timing loop (transfer_check.hpp). Deliberately written apart
// from the calibration's EventTimer and PcieBenchmark.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ostream>
#include <random>

#include "cuda_check.hpp"
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

void time_transfer_check(std::vector<TransferCheckCopy>& copies, std::ostream* progress) {
  std::uint64_t largest = 0;
  for (const TransferCheckCopy& c : copies) {
    if (c.key.direction == Direction::bidir) throw InputError("transfer check: bidirectional copies are not checked");
    if (c.bytes == 0) throw InputError("transfer check: a copy of 0 bytes");
    largest = std::max(largest, c.bytes);
  }
  if (copies.empty()) return;
  // Twice the largest copy: every copy's host bytes start at a random page of the buffer.
  const std::size_t page = 4096;
  const std::size_t span = static_cast<std::size_t>(largest) * 2 + page;
  unsigned char* pinned = nullptr;
  unsigned char* device = nullptr;
  PERFMODEL_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), span));
  std::vector<unsigned char> pageable(span);
  std::memset(pinned, 1, span);
  std::memset(pageable.data(), 1, span);
  cudaError_t status = cudaMalloc(reinterpret_cast<void**>(&device), static_cast<std::size_t>(largest));
  if (status != cudaSuccess) {
    cudaFreeHost(pinned);
    PERFMODEL_CUDA_CHECK(status);
  }
  cudaEvent_t before = nullptr, after = nullptr;
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&before));
  PERFMODEL_CUDA_CHECK(cudaEventCreate(&after));
  std::mt19937_64 offsets(static_cast<std::uint64_t>(copies.size()) * 7919u + largest);
  const auto started = std::chrono::steady_clock::now();
  std::size_t done = 0;
  // A few untimed copies: the first copies after idle pay the link's and the driver's wake-up.
  for (int i = 0; i < 20; ++i) {
    PERFMODEL_CUDA_CHECK(cudaMemcpy(device, pinned, std::min<std::uint64_t>(largest, 1 << 20), cudaMemcpyHostToDevice));
    PERFMODEL_CUDA_CHECK(cudaMemcpy(pageable.data(), device, std::min<std::uint64_t>(largest, 1 << 20), cudaMemcpyDeviceToHost));
  }
  for (TransferCheckCopy& c : copies) {
    unsigned char* host_base = c.key.memory == HostMemory::pinned ? pinned : pageable.data();
    const std::size_t pages = (span - static_cast<std::size_t>(c.bytes)) / page;
    unsigned char* host = host_base + page * static_cast<std::size_t>(offsets() % (pages + 1));
    const auto wall_start = std::chrono::steady_clock::now();
    PERFMODEL_CUDA_CHECK(cudaEventRecord(before, 0));
    if (c.key.direction == Direction::h2d) PERFMODEL_CUDA_CHECK(cudaMemcpy(device, host, c.bytes, cudaMemcpyHostToDevice));
    else PERFMODEL_CUDA_CHECK(cudaMemcpy(host, device, c.bytes, cudaMemcpyDeviceToHost));
    PERFMODEL_CUDA_CHECK(cudaEventRecord(after, 0));
    PERFMODEL_CUDA_CHECK(cudaEventSynchronize(after));
    c.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    float ms = 0;
    PERFMODEL_CUDA_CHECK(cudaEventElapsedTime(&ms, before, after));
    c.event_s = static_cast<double>(ms) * 1e-3;
    if (progress && ++done % 100 == 0)
      *progress << "     " << done << " of " << copies.size() << " copies timed ("
                << format_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()) << ")\n";
  }
  cudaEventDestroy(before);
  cudaEventDestroy(after);
  cudaFree(device);
  cudaFreeHost(pinned);
}

}  // namespace perfmodel
