#pragma once
// The profile's optional gpu.streams section (stream_calibration.hpp): writer and validating
// reader, called from the gpu section's (profile_io_gpu.cpp). Private to model/.
#include <yaml-cpp/yaml.h>

#include "perfmodel/model/stream_calibration.hpp"
#include "yaml_reader.hpp"

namespace perfmodel::sections {

void emit_streams(YAML::Emitter& out, const StreamCalibration& s);
StreamCalibration read_streams(const yaml::Value& v);

}  // namespace perfmodel::sections
