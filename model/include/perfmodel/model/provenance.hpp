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
  // Optional: set when `perfmodel fit` re-fitted the profile from the run's recorded samples with
  // another toolkit: the measurement's fields above stay the calibration run's, and this says who
  // fitted it ("perfmodel fit … (toolkit 0.1.0, commit …, 2026-11-23T02:50:00Z)"). Empty: the
  // profile is as the calibration wrote it.
  std::string refit;
  // Optional: one calibration run's identity ("2026-11-26T19:20:00Z-vm-12345-9f3c2a1b": date, host,
  // process, 32 random bits), written into the profile and into each of its samples files, so that
  // a reader can tell a profile and samples of two runs apart (two calibrations writing one
  // PROFILE.yaml at once). Empty in files written before it existed: nothing to check then.
  std::string run_id;

  // Ordered (key, value) view of the required fields, the single list that writers and readers
  // share (`refit` and `run_id` are written and read beside it, only when set).
  std::vector<std::pair<std::string, std::string*>> fields();
  std::vector<std::pair<std::string, const std::string*>> fields() const;
};

// Host-side facts every calibration records: host name, CPU model, date, toolkit version/commit.
// Device fields are left for the caller (they need CUDA).
Provenance host_provenance(const std::string& command);

// Where a profile and a samples file read together (the profile's own samples, or samples re-fitted
// into it) both carry a run_id and they differ: InputError naming the samples file, both ids and
// the profile. Files without one are not compared.
void check_same_run(const Provenance& profile, const std::string& profile_path, const Provenance& samples,
                    const std::string& samples_path);

// "2026-11-22T19:04:05Z"
std::string utc_now_iso8601();

}  // namespace perfmodel
