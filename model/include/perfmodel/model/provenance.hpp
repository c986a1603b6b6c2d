#pragma once
// Where a measurement came from. Every profile and every raw-sample file carries one.
#include <string>
#include <utility>
#include <vector>

namespace perfmodel {

struct Provenance {
  std::string device_name;      // "NVIDIA H100 80GB HBM3", or "none" for a CPU-only calibration
  std::string device_uuid;      // "GPU-…"
  std::string pci_bus_id;       // "0000:01:00.0"
  std::string driver_version;   // CUDA driver API version, e.g. "13.0", plus the kernel-module version if known
  std::string runtime_version;  // CUDA runtime the toolkit was built against
  std::string host_cpu;         // model name from /proc/cpuinfo
  std::string host_name;
  std::string date_utc;         // ISO 8601, e.g. "2026-11-22T19:04:05Z"
  std::string command;          // the exact command line
  std::string toolkit_version;
  std::string toolkit_commit;

  // Ordered (key, value) view, the single list that writers and readers share.
  std::vector<std::pair<std::string, std::string*>> fields();
  std::vector<std::pair<std::string, const std::string*>> fields() const;
};

// Host-side facts every calibration records: host name, CPU model, date, toolkit version/commit.
// Device fields are left for the caller (they need CUDA).
Provenance host_provenance(const std::string& command);

// "2026-11-22T19:04:05Z"
std::string utc_now_iso8601();

}  // namespace perfmodel
