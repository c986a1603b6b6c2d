// Checked values at the command line's two edges: whole-number options on the way in, and the
// numbers of a result on the way out (limits: model/include/perfmodel/model/limits.hpp).
#include <cmath>
#include <cstdio>
#include <variant>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"

namespace perfmodel::cli {
namespace {

std::string shortest(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

// NaN is never a result; infinity is one only as the open end of a range of bytes (the last
// segment of a transfer curve reaches +inf), never as a time, a rate or a fraction.
void check_cell(const std::string& where, const Cell& cell) {
  const double* v = std::get_if<double>(&cell.value);
  if (v && (std::isnan(*v) || (std::isinf(*v) && cell.unit != Unit::bytes)))
    throw InputError("the result's " + where + " is not a finite number (" + shortest(*v) +
                     "): the profile or the options hold values outside what the model covers");
}

}  // namespace

double parse_whole_number(const std::string& text, const std::string& what, double low, double high) {
  const double v = parse_positive_number(text, what);
  if (v != std::floor(v) || v < low || v > high)
    throw InputError(what + ": must be a whole number from " + shortest(low) + " to " + shortest(high) + ", got '" + text + "'");
  return v;
}

void require_finite(const Report& report) {
  for (const auto& [name, cell] : report.meta) check_cell(name, cell);
  for (const Table& t : report.tables)
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (const auto& [name, cell] : t.rows[i]) check_cell(t.name + "[" + std::to_string(i) + "]." + name, cell);
}

}  // namespace perfmodel::cli
