#pragma once
// Rows every recorded run's CSV files share (private to model/): whole counts, and the compiled
// kernels' resources (validation runs, farm runs).
#include <string>
#include <vector>

#include "perfmodel/model/validation_data.hpp"
#include "sample_csv.hpp"

namespace perfmodel::recorded {

// Header lines `# gpu_NAME: value` carry the device's properties.
inline constexpr const char* kDevicePrefix = "gpu_";

inline constexpr const char* kResourcesHeader =
    "phase_kernel,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm";

// A `gpu_NAME: value` header line of a recorded run into the device's field NAME; false when the
// key is no device property (no `gpu_` prefix); an error naming the key for an unknown NAME.
bool read_device_property(const std::string& key, const std::string& value, const csv::ErrorAt& error, GpuDeviceInfo& device);

// A whole number from min_value to 2^31 − 1; an error naming the cell otherwise.
int parse_count(const std::string& cell, const std::string& column, const csv::ErrorAt& error, int min_value);

// One row of a resources CSV: a phase kernel's name may hold commas (template arguments,
// "mv_opt<32,8,const>"): it is everything before the five numeric columns.
PhaseResourceRecord parse_resource_row(const std::vector<std::string>& cells, const csv::ErrorAt& error);

}  // namespace perfmodel::recorded
