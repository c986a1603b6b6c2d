#pragma once
// Files perfmodel writes appear whole or not at all: content goes to a temporary file in the
// same directory, is flushed to disk, and is renamed over the target.
#include <string>

namespace perfmodel {

// Throws RuntimeFailure naming the path if any step fails; the target is then untouched.
void write_file_atomically(const std::string& path, const std::string& content);

// Reads a whole file; throws InputError naming the path if it cannot be read.
std::string read_file(const std::string& path);

}  // namespace perfmodel
