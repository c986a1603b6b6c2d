#pragma once
// The calibration profile: everything measured about one machine, versioned, with provenance.
// On disk it is YAML (see profile_io.hpp); this is its in-memory form.
#include <map>
#include <optional>
#include <string>

#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

// The schema this build reads and writes. A file with any other version is rejected.
inline constexpr int kProfileSchemaVersion = 1;

struct PcieCalibration {
  std::map<TransferKey, TransferCurve> curves;
  std::string samples_file;         // raw samples, relative to the profile's directory
  std::string timer = "cuda_events";  // which timer the fit used: cuda_events | host_clock
  double calibration_wall_s = 0;    // wall time of the whole PCIe calibration

  // Throws InputError naming the missing curve.
  const TransferCurve& curve(const TransferKey& key) const;
};

struct Profile {
  int schema_version = kProfileSchemaVersion;
  Provenance provenance;
  std::optional<PcieCalibration> pcie;
};

}  // namespace perfmodel
