#pragma once
// Rows every recorded run's CSV files share (private to model/): whole counts, and the compiled
// kernels' resources (validation runs, farm runs).
#include <string>
#include <vector>

#include "perfmodel/model/validation_data.hpp"
#include "sample_csv.hpp"

namespace perfmodel::recorded {

inline constexpr const char* kResourcesHeader =
    "phase_kernel,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm";

// A whole number from min_value to 2^31 − 1; an error naming the cell otherwise.
int parse_count(const std::string& cell, const std::string& column, const csv::ErrorAt& error, int min_value);

// One row of a resources CSV: a phase kernel's name may hold commas (template arguments,
// "mv_opt<32,8,const>"): it is everything before the five numeric columns.
PhaseResourceRecord parse_resource_row(const std::vector<std::string>& cells, const csv::ErrorAt& error);

}  // namespace perfmodel::recorded
