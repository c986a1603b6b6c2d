#include "sample_csv.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace perfmodel::csv {

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, separator)) out.push_back(cell);
  if (!line.empty() && line.back() == separator) out.emplace_back();
  return out;
}

std::string format_g(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

std::string header_lines(const std::string& magic, const Provenance& provenance) {
  std::string out = magic + "\n";
  for (const auto& [key, value] : provenance.fields()) out += "# " + key + ": " + *value + "\n";
  if (!provenance.run_id.empty()) out += "# run_id: " + provenance.run_id + "\n";
  return out;
}

void read_sample_file(const std::string& text, const std::string& file_name, const std::string& magic,
                      const std::string& header, Provenance& provenance,
                      const std::function<void(const std::string&, const std::string&, const ErrorAt&)>& on_metadata,
                      const std::function<void(const std::vector<std::string>&, const ErrorAt&)>& on_row) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  const ErrorAt error = [&](const std::string& column, const std::string& problem) {
    return input_error_at({file_name, line_no, 0}, column, problem);
  };
  if (!std::getline(in, line) || (++line_no, line != magic))
    throw error("", "not a " + magic.substr(2) + " file (the first line must be '" + magic + "')");
  auto fields = provenance.fields();
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const auto colon = line.find(':');
      if (colon == std::string::npos || line.size() < 2) continue;
      const std::string key = line.substr(2, colon - 2);
      const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
      bool known = false;
      for (auto& [name, field] : fields)
        if (name == key) *field = value, known = true;
      if (key == "run_id") provenance.run_id = value, known = true;
      if (!known && on_metadata) on_metadata(key, value, error);
      continue;
    }
    if (!header_seen) {
      if (line != header) throw error("header", "expected '" + header + "'");
      header_seen = true;
      continue;
    }
    on_row(split(line, ','), error);
  }
  if (!header_seen) throw error("header", "no column header line");
}

double parse_number(const std::string& cell, const std::string& column, const ErrorAt& error) {
  double v = 0;
  try {
    std::size_t used = 0;
    v = std::stod(cell, &used);
    if (used != cell.size()) throw std::invalid_argument(cell);
  } catch (const std::logic_error&) {
    throw error(column, "'" + cell + "' is not a number");
  }
  if (!std::isfinite(v)) throw error(column, "must be finite, got '" + cell + "'");
  return v;
}

}  // namespace perfmodel::csv
