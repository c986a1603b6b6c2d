#include "sample_csv.hpp"

#include "perfmodel/model/limits.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
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
  const std::vector<std::string> header_columns = split(header, ',');
  bool in_row = false;
  // In a row, the error names the character column where the cell of `column` starts
  // ("params.x" is in params; "row" is the whole line).
  const ErrorAt error = [&](const std::string& column, const std::string& problem) {
    int character = 0;
    if (in_row) {
      const std::string name = column.substr(0, column.find('.'));
      std::size_t index = 0;
      while (index < header_columns.size() && header_columns[index] != name) ++index;
      character = 1;
      if (index < header_columns.size()) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < index && at != std::string::npos; ++i) {
          at = line.find(',', at);
          if (at != std::string::npos) ++at;
        }
        if (at != std::string::npos) character = static_cast<int>(at) + 1;
      }
    }
    return input_error_at({file_name, line_no, character}, column, problem);
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
    in_row = true;
    on_row(split(line, ','), error);
    in_row = false;
  }
  if (!header_seen) throw error("header", "no column header line");
}

double parse_number(const std::string& cell, const std::string& column, const ErrorAt& error) {
  // Strictly a decimal number, all of the cell: strtod alone would also take leading blanks,
  // hexadecimal, "inf", "nan", and stop silently before trailing garbage ("1.29e-05xyz").
  const bool starts_well = !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || cell[0] == '-' ||
                                             cell[0] == '+' || cell[0] == '.');
  bool decimal = starts_well;
  for (char c : cell)
    decimal = decimal && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+');
  if (!decimal) throw error(column, "'" + cell + "' is not a number");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size()) throw error(column, "'" + cell + "' is not a number");
  if (!std::isfinite(v) || std::fabs(v) > limits::kMaxProfileNumber)
    throw error(column, "out of range: '" + cell + "' (no number perfmodel reads exceeds 1e21; limits.hpp)");
  return v;
}

double parse_whole(const std::string& cell, const std::string& column, const ErrorAt& error, double low, double high) {
  const double v = parse_number(cell, column, error);
  if (v != std::floor(v) || v < low || v > high)
    throw error(column, "'" + cell + "' is not a whole number between " + format_g(low) + " and " + format_g(high));
  return v;
}

}  // namespace perfmodel::csv
