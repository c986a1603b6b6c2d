#pragma once
// What every raw-sample CSV of perfmodel shares: a magic first line, '#'-lines with
// "key: value" metadata (provenance first), one column-header line, then rows.
// Private to model/.
#include <functional>
#include <string>
#include <vector>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/provenance.hpp"

namespace perfmodel::csv {

std::vector<std::string> split(const std::string& line, char separator);
std::string format_g(double value);  // shortest round-trip-safe enough form ("%.9g")

// "# magic\n# key: value\n…" for the provenance fields.
std::string header_lines(const std::string& magic, const Provenance& provenance);

// Reads the file line by line. Provenance '#'-lines are stored; other "# key: value" lines go to
// on_metadata (may be empty); the column header must equal `header`; each later non-empty line
// goes to on_row(cells, error) where error(column, problem) builds an InputError at that line and
// the character where that column's cell starts ("file:line:char: column: problem").
using ErrorAt = std::function<InputError(const std::string& column, const std::string& problem)>;
void read_sample_file(const std::string& text, const std::string& file_name, const std::string& magic,
                      const std::string& header, Provenance& provenance,
                      const std::function<void(const std::string& key, const std::string& value, const ErrorAt&)>& on_metadata,
                      const std::function<void(const std::vector<std::string>& cells, const ErrorAt&)>& on_row);

// Parses a decimal number (all of the cell, finite, within ±1e21); throws error(column, …) otherwise.
double parse_number(const std::string& cell, const std::string& column, const ErrorAt& error);
// A whole number in [low, high]: safe to convert to any integer type that holds high.
double parse_whole(const std::string& cell, const std::string& column, const ErrorAt& error, double low, double high);

}  // namespace perfmodel::csv
