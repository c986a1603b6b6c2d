#pragma once
// Reading a file perfmodel was given (profile, workload, samples, validation CSVs): whole, and
// never more than limits::kMaxInputFileBytes, so that a device file or a runaway pipe ends with
// an error instead of filling the memory.
#include <cstdint>
#include <string>

#include "perfmodel/model/limits.hpp"

namespace perfmodel {

// The whole content of `path`. Throws InputError naming the path if it cannot be opened, is a
// directory, cannot be read, or holds more than `max_bytes` (regular files are refused from their
// size before reading; pipes and devices are read up to the limit).
std::string read_input_file(const std::string& path, std::uint64_t max_bytes = limits::kMaxInputFileBytes);

}  // namespace perfmodel
