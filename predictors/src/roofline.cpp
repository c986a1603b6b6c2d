#include "perfmodel/predictors/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {
namespace {
// "dram, l2, shared": the roofs this profile has (pcie only where it has a PCIe calibration).
std::string names_of(const std::vector<Roof>& roofs) {
  std::string out;
  for (const Roof& r : roofs) out += (out.empty() ? "" : ", ") + r.name;
  return out;
}
}  // namespace

const Roof& Roofline::memory_roof(const std::string& name) const {
  for (const Roof& r : memory)
    if (r.name == name) return r;
  throw InputError("no memory roof '" + name + "' (the profile's memory roofs: " + names_of(memory) + ")");
}

const Roof& Roofline::compute_roof(const std::string& name) const {
  for (const Roof& r : compute)
    if (r.name == name) return r;
  throw InputError("no compute roof '" + name + "' (the profile's compute roofs: " + names_of(compute) + ")");
}

Roofline roofline_of(const Profile& profile) {
  const GpuCalibration& g = profile.require_gpu();
  const GpuDeviceInfo& d = g.device;
  Roofline r;
  const double shared_theoretical = d.multiprocessors * d.shared_memory_banks * d.shared_memory_bank_bytes * d.sm_clock_hz;
  r.memory.push_back({"dram", g.ceiling("dram_read").median, d.theoretical_dram_Bps()});
  r.memory.push_back({"l2", g.ceiling("l2_read").median, 0});
  r.memory.push_back({"shared", g.ceiling("shared_load").median, shared_theoretical});
  if (profile.pcie) {
    const TransferKey key{Direction::h2d, HostMemory::pinned};
    if (profile.pcie->curves.count(key)) {
      const double bytes = 1073741824.0;
      r.memory.push_back({"pcie", bytes / profile.pcie->curve(key).seconds(bytes), 0});
    }
  }
  r.compute.push_back({"fp32", g.ceiling("fp32").median, d.theoretical_flops(d.fp32_lanes_per_sm)});
  r.compute.push_back({"fp64", g.ceiling("fp64").median, d.theoretical_flops(d.fp64_lanes_per_sm)});
  r.compute.push_back({"fp16", g.ceiling("fp16").median, d.theoretical_flops(d.fp16_lanes_per_sm)});
  // Tensor-core roofs where the profile measured them (profiles before the gpu.tensor benchmark have none).
  for (const char* name : {"tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8"}) {
    const auto it = g.ceilings.find(name);
    if (it != g.ceilings.end()) r.compute.push_back({name, it->second.median, d.theoretical_tensor_ops(name)});
  }
  return r;
}

RooflineBound roofline_bound(const Roofline& roofline, double intensity, const std::string& memory, const std::string& precision,
                             double achieved) {
  if (!(intensity > 0) || !std::isfinite(intensity)) throw InputError("arithmetic intensity must be a positive number of flop per byte");
  if (achieved < 0) throw InputError("achieved performance must be >= 0");
  const double beta = roofline.memory_roof(memory).value, pi = roofline.compute_roof(precision).value;
  RooflineBound b;
  b.intensity = intensity;
  b.ridge = pi / beta;
  b.attainable = std::min(pi, beta * intensity);
  b.memory_bound = intensity < b.ridge;
  b.achieved = achieved;
  b.headroom = achieved > 0 ? b.attainable / achieved : 0;
  return b;
}

}  // namespace perfmodel
