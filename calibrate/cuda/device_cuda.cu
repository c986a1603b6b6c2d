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
