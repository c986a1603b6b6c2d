#include "perfmodel/model/errors.hpp"

namespace perfmodel {

std::string SourceLocation::to_string() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

InputError input_error_at(const SourceLocation& where, const std::string& key, const std::string& problem) {
  std::string message = where.to_string() + ": ";
  if (!key.empty()) message += key + ": ";
  return InputError(message + problem);
}

}  // namespace perfmodel
