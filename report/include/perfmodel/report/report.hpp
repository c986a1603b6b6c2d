#pragma once
// The CLI's one reporter: a result is built once as data (metadata + named tables of records)
// and rendered as a human table, YAML, JSON or CSV. Numbers stay numbers in the machine
// formats; the human table formats them by unit.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace perfmodel::report {

enum class Unit { none, seconds, bytes, bytes_per_s, flop_per_s, per_s, ratio, percent };  // per_s: op/s, call/s

struct Cell {
  // monostate: no value exists (JSON null, YAML null, empty CSV field, "-" in the table); never 0.
  std::variant<std::string, double, std::int64_t, bool, std::monostate> value;
  Unit unit = Unit::none;

  Cell(std::string s) : value(std::move(s)) {}                   // NOLINT(google-explicit-constructor)
  Cell(const char* s) : value(std::string(s)) {}                 // NOLINT(google-explicit-constructor)
  Cell(double d, Unit u = Unit::none) : value(d), unit(u) {}     // NOLINT(google-explicit-constructor)
  Cell(std::int64_t i, Unit u = Unit::none) : value(i), unit(u) {}  // NOLINT(google-explicit-constructor)
  Cell(bool b) : value(b) {}                                     // NOLINT(google-explicit-constructor)
  Cell(std::nullptr_t) : value(std::monostate{}) {}              // NOLINT(google-explicit-constructor)
  bool is_null() const { return std::holds_alternative<std::monostate>(value); }
};

using Record = std::vector<std::pair<std::string, Cell>>;

struct Table {
  std::string name;  // key in YAML/JSON, heading in the human table
  std::vector<Record> rows;
};

struct Report {
  Record meta;                  // scalar facts (profile used, totals, …)
  std::vector<Table> tables;
  std::vector<std::string> notes;  // human remarks; in machine formats they go under "notes"
};

// How a report is written. CSV is one table per stream or file: the report's metadata and notes
// go into '#' header lines, then one table (header row + rows); `csv_table` names which (empty:
// the first table that has rows, or the metadata as a one-row table when no table has rows).
struct Format {
  enum Kind { table, yaml, json, csv };
  Kind kind = table;
  std::string csv_table;
  Format(Kind k) : kind(k) {}  // NOLINT(google-explicit-constructor): Format::csv reads as a format
  operator Kind() const { return kind; }  // NOLINT(google-explicit-constructor): switch and == on the kind
};
// Throws InputError for anything but table|yaml|json|csv.
Format parse_format(const std::string& s);

// Throws InputError when format.csv_table names no table of the report (the message lists them).
void render(const Report& report, const Format& format, std::ostream& out);

}  // namespace perfmodel::report
