#pragma once
// The hierarchical roofline of a profile (S3 Eq 5.10–5.11, Williams et al.): attainable
// performance P(I) = min(π, β·I) for arithmetic intensity I (flop per byte moved at the level of
// β), with every roof a measured ceiling of the profile and the datasheet peak beside it.
//   memory roofs: DRAM (read ceiling), L2, shared memory, and PCIe (pinned host→device at 1 GiB,
//                 for data that must cross the bus);
//   compute roofs: FP32, FP64, FP16 (half2, non-tensor).
// The ridge point of a pair is I* = π/β: below it a kernel is memory-bound.
#include <string>
#include <vector>

#include "perfmodel/model/profile.hpp"

namespace perfmodel {

struct Roof {
  std::string name;          // dram, l2, shared, pcie | fp32, fp64, fp16
  double value = 0;          // measured: B/s for memory roofs, flop/s for compute roofs
  double theoretical = 0;    // datasheet peak from the device properties (0: unknown)
};

struct Roofline {
  std::vector<Roof> memory, compute;
  // Throws InputError naming the roof when it is not in the profile.
  const Roof& memory_roof(const std::string& name) const;
  const Roof& compute_roof(const std::string& name) const;
};

// Throws InputError when the profile has no gpu section.
Roofline roofline_of(const Profile& profile);

struct RooflineBound {
  double intensity = 0;     // flop per byte
  double attainable = 0;    // flop/s: min(π, β·I)
  double ridge = 0;         // flop per byte: π/β
  bool memory_bound = false;
  double achieved = 0;      // flop/s, when given
  double headroom = 0;      // attainable / achieved (0 when no achieved rate)
};

// Bound of a kernel of intensity I against one memory roof and one compute roof.
RooflineBound roofline_bound(const Roofline& roofline, double intensity, const std::string& memory = "dram",
                             const std::string& precision = "fp32", double achieved = 0);

}  // namespace perfmodel
