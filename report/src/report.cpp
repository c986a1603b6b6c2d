#include "perfmodel/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel::report {
namespace {

std::string number(double d) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.10g", d);
  return buffer;
}

std::string human(const Cell& c) {
  if (c.is_null()) return "-";
  if (const auto* s = std::get_if<std::string>(&c.value)) return *s;
  if (const auto* b = std::get_if<bool>(&c.value)) return *b ? "yes" : "no";
  const double v = std::holds_alternative<double>(c.value) ? std::get<double>(c.value)
                                                           : static_cast<double>(std::get<std::int64_t>(c.value));
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  switch (c.unit) {
    case Unit::seconds: return format_seconds(v);
    case Unit::bytes: return std::holds_alternative<std::int64_t>(c.value) || v == std::floor(v)
                                 ? format_bytes(v) + (v >= 1024 ? " (" + number(v) + ")" : "")
                                 : number(v);
    case Unit::bytes_per_s: return format_rate(v);
    case Unit::flop_per_s:
    case Unit::per_s: {
      const char* prefix[] = {"", "k", "M", "G", "T", "P"};
      int k = 0;
      double scaled = v;
      while (std::abs(scaled) >= 1000 && k < 5) scaled /= 1000, ++k;
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, "%.4g %s%s/s", scaled, prefix[k], c.unit == Unit::flop_per_s ? "flop" : "");
      return buffer;
    }
    case Unit::percent: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.3g%%", v * 100);
      return buffer;
    }
    case Unit::ratio:
    case Unit::none: break;
  }
  if (const auto* i = std::get_if<std::int64_t>(&c.value)) return std::to_string(*i);
  return number(v);
}

// A string as a JSON string literal (nlohmann's escaping), which is also a valid YAML double-quoted
// scalar; invalid UTF-8 is replaced rather than thrown on.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A number, bool or null as YAML and CSV write it (strings are quoted by the caller).
std::string scalar_text(const Cell& c) {
  if (c.is_null()) return "null";
  if (const auto* s = std::get_if<std::string>(&c.value)) return quoted(*s);
  if (const auto* b = std::get_if<bool>(&c.value)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<std::int64_t>(&c.value)) return std::to_string(*i);
  const double d = std::get<double>(c.value);
  return std::isfinite(d) ? number(d) : "null";
}

std::string yaml_value(const Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c.value)) return quoted(*s);  // a JSON string is valid YAML
  if (const auto* d = std::get_if<double>(&c.value)) {
    if (std::isnan(*d)) return ".nan";
    if (std::isinf(*d)) return *d > 0 ? ".inf" : "-.inf";
  }
  return scalar_text(c);
}

std::string csv_value(const Cell& c) {
  if (c.is_null()) return "";
  if (const auto* s = std::get_if<std::string>(&c.value)) {
    if (s->find_first_of(",\"\n") == std::string::npos) return *s;
    std::string out = "\"";
    for (char ch : *s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
  }
  if (const auto* d = std::get_if<double>(&c.value))
    if (std::isinf(*d)) return *d > 0 ? "inf" : "-inf";
  return scalar_text(c);
}

// The columns of a table: every key any row has, in the order they first appear (rows may differ:
// a curve without held-out sizes has no held-out columns), and a row's cell under a key.
std::vector<std::string> columns_of(const Table& t) {
  std::vector<std::string> keys;
  for (const Record& row : t.rows)
    for (const auto& [key, cell] : row)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

const Cell* cell_of(const Record& row, const std::string& key) {
  for (const auto& [k, cell] : row)
    if (k == key) return &cell;
  return nullptr;
}

void render_table(const Report& r, std::ostream& out) {
  for (const std::string& note : r.notes) out << "# " << note << "\n";
  std::size_t key_width = 0;
  for (const auto& [key, cell] : r.meta) key_width = std::max(key_width, key.size());
  for (const auto& [key, cell] : r.meta) out << key << std::string(key_width - key.size(), ' ') << "  " << human(cell) << "\n";
  for (const Table& t : r.tables) {
    if (t.rows.empty()) continue;
    out << "\n" << t.name << ":\n";
    const std::vector<std::string> header = columns_of(t);
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const Record& row : t.rows) {
      cells.emplace_back();
      for (std::size_t c = 0; c < header.size(); ++c) {
        const Cell* cell = cell_of(row, header[c]);
        cells.back().push_back(cell ? human(*cell) : "-");
        width[c] = std::max(width[c], cells.back().back().size());
      }
    }
    auto line = [&](const std::vector<std::string>& v) {
      out << " ";
      for (std::size_t c = 0; c < v.size(); ++c) out << " " << v[c] << std::string(width[c] - v[c].size(), ' ');
      out << "\n";
    };
    line(header);
    for (const auto& row : cells) line(row);
  }
}

void render_yaml(const Report& r, std::ostream& out) {
  for (const auto& [key, cell] : r.meta) out << key << ": " << yaml_value(cell) << "\n";
  for (const Table& t : r.tables) {
    out << t.name << ":" << (t.rows.empty() ? " []" : "") << "\n";
    for (const Record& row : t.rows) {
      bool first = true;
      for (const auto& [key, cell] : row) {
        out << (first ? "  - " : "    ") << key << ": " << yaml_value(cell) << "\n";
        first = false;
      }
    }
  }
  if (!r.notes.empty()) {
    out << "notes:\n";
    for (const std::string& n : r.notes) out << "  - " << quoted(n) << "\n";
  }
}

// JSON through nlohmann::ordered_json: keys keep the order the command gave them (metadata, then
// the tables, then the notes); a value that does not exist, or a non-finite number, is null.
nlohmann::ordered_json json_value(const Cell& c) {
  if (c.is_null()) return nullptr;
  if (const auto* s = std::get_if<std::string>(&c.value)) return *s;
  if (const auto* b = std::get_if<bool>(&c.value)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&c.value)) return *i;
  const double d = std::get<double>(c.value);
  if (!std::isfinite(d)) return nullptr;
  return d;
}

void render_json(const Report& r, std::ostream& out) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const auto& [key, cell] : r.meta) doc[key] = json_value(cell);
  for (const Table& t : r.tables) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const Record& row : t.rows) {
      nlohmann::ordered_json record = nlohmann::ordered_json::object();
      for (const auto& [key, cell] : row) record[key] = json_value(cell);
      rows.push_back(std::move(record));
    }
    doc[t.name] = std::move(rows);
  }
  if (!r.notes.empty()) doc["notes"] = r.notes;
  // Invalid UTF-8 in a string (a file name, a user's label) is replaced, not thrown on.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

// CSV: one table per stream. Notes and metadata are '#' header lines (provenance), then the chosen
// table's header row and rows; the other tables are named in a '#' line so that a reader knows
// what `--table NAME` gives.
void render_csv(const Report& r, const std::string& chosen, std::ostream& out) {
  const Table* table = nullptr;
  std::string names;
  for (const Table& t : r.tables) {
    names += (names.empty() ? "" : ", ") + t.name;
    if (chosen.empty() ? (table == nullptr && !t.rows.empty()) : t.name == chosen) table = &t;
  }
  if (!chosen.empty() && table == nullptr)
    throw InputError("--table: '" + chosen + "' is not a table of this output (" + (names.empty() ? "it has none" : "it has: " + names) + ")");
  for (const std::string& n : r.notes) out << "# " << n << "\n";
  for (const auto& [key, cell] : r.meta) out << "# " << key << ": " << csv_value(cell) << "\n";
  Table meta_row;  // no table has rows: the metadata is the table
  if (table == nullptr) {
    meta_row.name = "summary";
    meta_row.rows.push_back(r.meta);
    table = &meta_row;
  }
  out << "# table: " << table->name << "\n";
  std::string others;
  for (const Table& t : r.tables)
    if (&t != table) others += (others.empty() ? "" : ", ") + t.name;
  if (!others.empty()) out << "# other tables (--table NAME): " << others << "\n";
  if (table->rows.empty()) {  // a table named with --table that has no rows this time: no header to write
    out << "# (no rows)\n";
    return;
  }
  const std::vector<std::string> header = columns_of(*table);
  for (std::size_t c = 0; c < header.size(); ++c) out << (c ? "," : "") << header[c];
  out << "\n";
  for (const Record& row : table->rows) {
    for (std::size_t c = 0; c < header.size(); ++c) {
      const Cell* cell = cell_of(row, header[c]);
      out << (c ? "," : "") << (cell ? csv_value(*cell) : std::string());
    }
    out << "\n";
  }
}

}  // namespace

Format parse_format(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "yaml") return Format::yaml;
  if (s == "json") return Format::json;
  if (s == "csv") return Format::csv;
  throw InputError("--format: '" + s + "' is not one of table, yaml, json, csv");
}

void render(const Report& report, const Format& format, std::ostream& out) {
  switch (format.kind) {
    case Format::table: render_table(report, out); break;
    case Format::yaml: render_yaml(report, out); break;
    case Format::json: render_json(report, out); break;
    case Format::csv: render_csv(report, format.csv_table, out); break;
  }
}

}  // namespace perfmodel::report
