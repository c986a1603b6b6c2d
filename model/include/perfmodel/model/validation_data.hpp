#pragma once
// What `perfmodel validate` records on the GPU, and reads back anywhere: one row per measured
// point (every repetition kept), and the compiled resources and occupancy of every phase kernel.
// Files (in the run's folder, each with provenance):
//   measurements.csv  kernel,n,config,check_error,check_bound,seconds   (seconds: ';'-separated repetitions)
//   resources.csv     phase_kernel,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm
//                     (a phase kernel's name may hold commas: "mv_opt<32,8,const>"; the last five columns are numbers)
#include <string>
#include <vector>

#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/statistics.hpp"

namespace perfmodel {

struct KernelMeasurement {
  std::string kernel;
  int n = 0;
  KernelConfig config;
  double check_error = 0, check_bound = 0;
  std::vector<double> seconds;
  SampleSummary summary() const { return summarize(seconds); }
};

struct PhaseResourceRecord {
  std::string phase_kernel;
  int threads_per_block = 0;
  KernelResources resources;
  int occupancy_blocks_per_sm = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

struct ValidationRun {
  Provenance provenance;
  GpuDeviceInfo device;  // as the runtime reported it (for occupancy cross-checks)
  double wall_s = 0;
  bool quick = false;
  std::vector<KernelMeasurement> measurements;
  std::vector<PhaseResourceRecord> resources;

  ResourceTable resource_table() const;  // by phase kernel
};

inline constexpr const char* kMeasurementsFile = "measurements.csv";
inline constexpr const char* kResourcesFile = "resources.csv";

// Writes both files into dir (created if missing), each atomically.
void write_validation_run(const std::string& dir, const ValidationRun& run);
// Throws InputError "FILE:LINE: column: problem" for anything malformed.
ValidationRun read_validation_run(const std::string& dir);
// The same from the two files' contents (the paths name them in errors).
ValidationRun parse_validation_run(const std::string& measurements_text, const std::string& measurements_path,
                                   const std::string& resources_text, const std::string& resources_path);

}  // namespace perfmodel
