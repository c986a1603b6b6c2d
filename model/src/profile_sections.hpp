#pragma once
// Writers and validating readers of the profile's sections, shared by profile_io.cpp.
// Private to model/.
#include <yaml-cpp/yaml.h>

#include "perfmodel/model/cpu_calibration.hpp"
#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "yaml_reader.hpp"

namespace perfmodel::sections {

void emit_quality(YAML::Emitter& out, const char* name, const FitQuality& q);
FitQuality read_quality(const yaml::Value& v);

void emit_gpu(YAML::Emitter& out, const GpuCalibration& gpu);
GpuCalibration read_gpu(const yaml::Value& v);

void emit_table(YAML::Emitter& out, const char* name, const NumericTable& t);
NumericTable read_table(const yaml::Value& v, const std::vector<std::string>& expected_columns);

void emit_cpu(YAML::Emitter& out, const CpuCalibration& cpu);
CpuCalibration read_cpu(const yaml::Value& v);

}  // namespace perfmodel::sections
