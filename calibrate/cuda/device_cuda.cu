#include <cstdio>
#include <regex>

#include "cuda_check.hpp"
#include "perfmodel/calibrate/device.hpp"

namespace perfmodel {

bool built_with_cuda() { return true; }

std::optional<std::string> gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
  if (count == 0) return std::string("no CUDA device present");
  return std::nullopt;
}

namespace {
std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

void fill_device_provenance(Provenance& p) {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure(*why);
  cudaDeviceProp prop{};
  PERFMODEL_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  p.device_name = prop.name;
  char uuid[64];
  const auto* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  p.device_uuid = uuid;
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  p.pci_bus_id = bus;
  int driver = 0, runtime = 0;
  PERFMODEL_CUDA_CHECK(cudaDriverGetVersion(&driver));
  PERFMODEL_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  p.driver_version = "CUDA " + version_string(driver);
  // The kernel module's own version (as nvidia-smi reports it): the first dotted number after
  // "Kernel Module" in e.g. "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build …".
  if (std::FILE* f = std::fopen("/proc/driver/nvidia/version", "r")) {
    char line[512] = {};
    if (std::fgets(line, sizeof line, f)) {
      const std::string s(line);
      const auto at = s.find("Kernel Module");
      std::smatch match;
      static const std::regex kVersion("[0-9]+\\.[0-9]+(\\.[0-9]+)?");
      if (at != std::string::npos && std::regex_search(s.begin() + static_cast<long>(at), s.end(), match, kVersion))
        p.driver_version += ", kernel module " + match.str();
    }
    std::fclose(f);
  }
  p.runtime_version = "CUDA " + version_string(runtime);
}

}  // namespace perfmodel

namespace perfmodel {
namespace {

struct ArchitectureLanes {
  int major, minor;
  double fp32, fp64, fp16, int32;  // per SM per clock (FMA lanes; fp16 counts half2 halves)
};

// From the CUDA C++ Programming Guide's arithmetic-instruction throughput table.
constexpr ArchitectureLanes kLanes[] = {
    {7, 0, 64, 32, 128, 64},  {7, 5, 64, 2, 128, 64},  {8, 0, 64, 32, 256, 64},   {8, 6, 128, 2, 256, 64},
    {8, 7, 128, 2, 256, 64},  {8, 9, 128, 2, 256, 64}, {9, 0, 128, 64, 256, 64},  {10, 0, 128, 64, 256, 64},
    {12, 0, 128, 2, 256, 64},
};

}  // namespace

GpuDeviceInfo query_gpu_device() {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure(*why);
  cudaDeviceProp p{};
  PERFMODEL_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  auto attribute = [](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, 0) == cudaSuccess ? static_cast<double>(v) : 0.0;
  };
  GpuDeviceInfo d;
  d.compute_capability_major = p.major;
  d.compute_capability_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_multiprocessor = p.maxBlocksPerMultiProcessor;
  d.registers_per_multiprocessor = p.regsPerMultiprocessor;
  d.registers_per_block = p.regsPerBlock;
  d.max_registers_per_thread = 255;
  d.register_allocation_unit = 256;
  d.shared_memory_per_multiprocessor = static_cast<double>(p.sharedMemPerMultiprocessor);
  d.shared_memory_per_block = static_cast<double>(p.sharedMemPerBlock);
  d.shared_memory_per_block_optin = static_cast<double>(p.sharedMemPerBlockOptin);
  d.reserved_shared_memory_per_block = static_cast<double>(p.reservedSharedMemPerBlock);
  d.shared_memory_allocation_unit = p.major >= 8 ? 128 : 256;
  d.shared_memory_banks = 32;
  d.shared_memory_bank_bytes = 4;
  d.l2_cache_bytes = p.l2CacheSize;
  d.global_memory_bytes = static_cast<double>(p.totalGlobalMem);
  d.constant_memory_bytes = static_cast<double>(p.totalConstMem);
  d.sector_bytes = 32;
  d.cache_line_bytes = 128;
  d.sm_clock_hz = attribute(cudaDevAttrClockRate) * 1e3;
  d.memory_clock_hz = attribute(cudaDevAttrMemoryClockRate) * 1e3;
  d.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  d.async_engines = p.asyncEngineCount;
  d.concurrent_kernels = p.concurrentKernels;
  d.max_grid_x = p.maxGridSize[0];
  for (const ArchitectureLanes& a : kLanes)
    if (a.major == p.major && a.minor == p.minor) {
      d.fp32_lanes_per_sm = a.fp32;
      d.fp64_lanes_per_sm = a.fp64;
      d.fp16_lanes_per_sm = a.fp16;
      d.int32_lanes_per_sm = a.int32;
    }
  return d;
}

}  // namespace perfmodel
