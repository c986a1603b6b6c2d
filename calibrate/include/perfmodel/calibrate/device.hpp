#pragma once
// The GPU this process would calibrate, as seen through the CUDA runtime.
#include <optional>
#include <string>

#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/provenance.hpp"

namespace perfmodel {

// True when this build has CUDA support compiled in.
bool built_with_cuda();

// std::nullopt when a CUDA device is usable; otherwise one sentence saying why not
// ("this perfmodel was built without CUDA", "no CUDA device: cudaGetDeviceCount: no CUDA-capable device is detected").
std::optional<std::string> gpu_unavailable_reason();

// Fills the device fields of a provenance record (name, UUID, PCI bus id, driver and runtime
// versions) for device 0. Throws RuntimeFailure when no GPU is usable.
void fill_device_provenance(Provenance& provenance);

// Properties of device 0 from the CUDA runtime, plus the architecture constants this build
// knows for its compute capability (0 where it does not). Throws RuntimeFailure without a GPU.
GpuDeviceInfo query_gpu_device();

}  // namespace perfmodel
