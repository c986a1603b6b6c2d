#pragma once
// Private to model/: the two workload-file formats share these.
#include <string>

#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "yaml_reader.hpp"

namespace perfmodel::detail {

// Useful fraction of DRAM bandwidth for a read of stride `stride` elements of `element_bytes`
// from the profile's measured table (gpu.partition.strided), interpolated in log stride; 1 when
// the profile has none.
double strided_efficiency(const GpuCalibration& gpu, double stride, double element_bytes);
bool has_strided_efficiency(const GpuCalibration& gpu);

// Format 2 (docs/workload-format.md), from the parsed document.
GpuWorkloadFile parse_workload_format2(const yaml::Value& root, const std::string& file_name, const GpuCalibration& gpu,
                                       const WorkloadParams& set);

}  // namespace perfmodel::detail
