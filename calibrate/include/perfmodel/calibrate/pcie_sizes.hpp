#pragma once
// Transfer sizes of the PCIe calibration.
//   fit set:     every power of two 2^2 … 2^30, the midpoints 3·2^k between them, and one odd
//                size per octave (2^(k+0.55), made odd) from 16 B to 64 MiB;
//   held-out set: two sizes per octave at 2^(k+0.3) and 2^(k+0.8), rounded to a whole byte,
//                 never a power of two nor a fit size. The fit never sees them.
#include <cstdint>
#include <vector>

namespace perfmodel {

struct PcieSizePlan {
  std::vector<std::uint64_t> fit;
  std::vector<std::uint64_t> holdout;
};

// Sizes from min_bytes up to max_bytes (both powers of two, 4 ≤ min < max).
PcieSizePlan pcie_size_plan(std::uint64_t min_bytes = 4, std::uint64_t max_bytes = std::uint64_t{1} << 30);

}  // namespace perfmodel
