#pragma once
// Error vocabulary shared by every layer.
//
// InputError   — something the user gave us is wrong (a file, a key, a value, a flag).
//                The CLI prints what() and exits 1. what() always names where: "file:line:col: key: problem".
// RuntimeFailure — the input was fine but the machine could not do it (no GPU, CUDA error, I/O
//                failure). The CLI prints what() and exits 2.
#include <stdexcept>
#include <string>

namespace perfmodel {

enum ExitCode : int { kExitOk = 0, kExitBadInput = 1, kExitRuntimeFailure = 2 };

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

class RuntimeFailure : public std::runtime_error {
 public:
  explicit RuntimeFailure(const std::string& message) : std::runtime_error(message) {}
};

// A position in a text file; line and column are 1-based, 0 when unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string to_string() const;  // "file:line:col" (parts that are unknown are left out)
};

// InputError whose message is "<location>: <key>: <problem>".
InputError input_error_at(const SourceLocation& where, const std::string& key, const std::string& problem);

}  // namespace perfmodel
