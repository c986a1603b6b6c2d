#pragma once
// The calibration profile: everything measured about one machine, versioned, with provenance.
// On disk it is YAML (see profile_io.hpp); this is its in-memory form.
#include <map>
#include <optional>
#include <string>

#include "perfmodel/model/cpu_calibration.hpp"
#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

// The schema this build writes, and the oldest it reads; a file of any other version is rejected.
// 1: provenance + pcie.  2: + gpu (device, ceilings, concurrency, latency, bank conflicts,
// partition camping, launch, overlap) + cpu (bandwidth curves, cache plateaus, compute
// ceilings, per-kernel time model).  3: a PCIe segment fitted on no sizes (`sizes: 0`) is a
// bridge across a gap between two fitted segments (segmented_fit.hpp), whose setup_s (the line's
// intercept) may be negative. 4: pcie.curves are single synchronous copies, pcie.stream_curves
// copies queued in a stream (TransferMode); every curve says how it was timed (`timing`) and
// every segment carries the interval observed around it (interval_low, interval_high). A
// version-4 reader reads 2 and 3 (one batched curve per transfer, serving both modes; no
// intervals); a profile is always written as the newest version.
inline constexpr int kProfileSchemaVersion = 4;
inline constexpr int kOldestReadableProfileSchemaVersion = 2;

struct PcieCalibration {
  std::map<TransferKey, TransferCurve> curves;         // single copies (TransferMode::single)
  std::map<TransferKey, TransferCurve> stream_curves;  // copies queued in a stream (TransferMode::stream)
  std::string samples_file;         // raw samples, relative to the profile's directory
  std::string timer = "cuda_events";  // which timer the fit used: cuda_events | host_clock
  double calibration_wall_s = 0;    // wall time of the whole PCIe calibration
  std::string host_buffer;          // host bytes of the copies: rotating | fixed; empty: not recorded (TransferSampleFile)

  // Throws InputError naming the missing curve.
  const TransferCurve& curve(const TransferKey& key, TransferMode mode = TransferMode::single) const;
};

struct Profile {
  int schema_version = kProfileSchemaVersion;
  Provenance provenance;
  std::optional<PcieCalibration> pcie;
  std::optional<GpuCalibration> gpu;
  std::optional<CpuCalibration> cpu;

  // Throw InputError saying which section the profile lacks (and how to measure it).
  const PcieCalibration& require_pcie() const;
  const GpuCalibration& require_gpu() const;
  const CpuCalibration& require_cpu() const;
};

}  // namespace perfmodel
