#pragma once
// Raw microbenchmark timings (GPU or CPU), every repetition kept, as CSV with provenance and the
// queried device or CPU properties in '#' lines:
//
//   # perfmodel gpu samples v1
//   # device_name: NVIDIA H100 80GB HBM3            (provenance, as in every sample file)
//   # gpu.multiprocessors: 132                       (GpuDeviceInfo fields)
//   # calibration_wall_s: 41.5
//   series,params,rep,seconds,amount
//   dram.read,blocks_per_sm=8;threads=1024,0,0.000712,2147483648
//
// One row is one timed repetition of the measurement `series` under the configuration `params`
// (name=value pairs, ';'-separated): `seconds` of device time during which `amount` units of
// work were done (bytes, flops, accesses or launches, by series; see gpu_fit.hpp, cpu_fit.hpp).
// CPU files have the magic "# perfmodel cpu samples v1" and "# cpu.<field>" lines (CpuInfo).
#include <map>
#include <string>
#include <vector>

#include "perfmodel/model/cpu_info.hpp"
#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/provenance.hpp"

namespace perfmodel {

struct BenchmarkSample {
  std::string series;
  std::map<std::string, double> params;
  int rep = 0;
  double seconds = 0;
  double amount = 0;

  // Throws std::out_of_range naming the parameter when it is absent.
  double param(const std::string& name) const;
  std::string params_text() const;  // "a=1;b=2" (sorted by name)
};

struct GpuSampleFile {
  Provenance provenance;
  GpuDeviceInfo device;
  std::vector<BenchmarkSample> samples;
  double calibration_wall_s = 0;  // wall time of all GPU microbenchmarks ("# calibration_wall_s: …")
};

struct CpuSampleFile {
  Provenance provenance;
  CpuInfo cpu;
  std::vector<BenchmarkSample> samples;
  double calibration_wall_s = 0;
};

std::string to_csv(const GpuSampleFile& file);
std::string to_csv(const CpuSampleFile& file);
// Throw InputError "file:line: column: problem" on any malformed line.
GpuSampleFile parse_gpu_samples(const std::string& text, const std::string& file_name);
GpuSampleFile load_gpu_samples(const std::string& path);
CpuSampleFile parse_cpu_samples(const std::string& text, const std::string& file_name);
CpuSampleFile load_cpu_samples(const std::string& path);

}  // namespace perfmodel
