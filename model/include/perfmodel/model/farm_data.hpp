#pragma once
// What `perfmodel validate --only farm` records on the GPU, and reads back anywhere: one row per
// measured farm configuration (every timed repetition kept), the run's environment (the
// CUDA_DEVICE_MAX_CONNECTIONS it ran with, the copy engines), and the farm kernels' compiled
// resources. Files (in the run's folder, each with provenance):
//   farm_measurements.csv  app,size,iterations,tasks,mode,streams,memory,check_error,check_bound,seconds
//                          (seconds: ';'-separated repetitions, each the whole stream of tasks,
//                           events on the legacy default stream around the loop that issues it)
//   farm_resources.csv     phase_kernel,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm
#include <string>
#include <vector>

#include "perfmodel/model/farm.hpp"
#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/model/validation_data.hpp"

namespace perfmodel {

// serial: Cecconi's zero-stream reference (synchronous cudaMemcpy and the launch on the default
//         stream, task after task); streams: S CUDA streams, round-robin; data_parallel: one copy
//         of every task's input, one launch over all tasks, one copy back.
enum class FarmMode { serial, streams, data_parallel };
const char* to_string(FarmMode mode);

// One way of running a stream of tasks.
struct FarmConfig {
  FarmMode mode = FarmMode::streams;
  int streams = 0;  // 0 for serial and data_parallel
  HostMemory memory = HostMemory::pinned;
};

struct FarmMeasurement {
  FarmTask task;
  int tasks = 0;
  FarmMode mode = FarmMode::streams;
  int streams = 0;  // 0 for serial and data_parallel
  HostMemory memory = HostMemory::pinned;
  double check_error = 0, check_bound = 0;
  std::vector<double> seconds;
  // The host's time in the loop that issues the stream, one per timed run (the API calls alone
  // for stream configurations in pinned memory; the serial loop and pageable copies wait in it);
  // empty in recordings made before it was kept.
  std::vector<double> issue_seconds;
  SampleSummary summary() const { return summarize(seconds); }
  std::string config_label() const;  // "S=0", "S=8", "S=8 pageable", "data-parallel"
};

struct FarmRun {
  Provenance provenance;
  GpuDeviceInfo device;
  double wall_s = 0;
  // The environment variable as the run saw it ("" when unset: the runtime's default applies).
  std::string cuda_device_max_connections;
  std::vector<FarmMeasurement> measurements;
  std::vector<PhaseResourceRecord> resources;
  ResourceTable resource_table() const;
};

inline constexpr const char* kFarmMeasurementsFile = "farm_measurements.csv";
inline constexpr const char* kFarmResourcesFile = "farm_resources.csv";

// Writes both files into dir (created if missing), each atomically.
void write_farm_run(const std::string& dir, const FarmRun& run);
// Whether dir holds a recorded farm run.
bool has_farm_run(const std::string& dir);
// Throws InputError "FILE:LINE: column: problem" for anything malformed.
FarmRun read_farm_run(const std::string& dir);

}  // namespace perfmodel
