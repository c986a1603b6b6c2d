#include "perfmodel/model/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"

namespace perfmodel {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string printf_string(const char* format, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value, unit);
  return buffer;
}

}  // namespace

std::uint64_t parse_bytes(const std::string& text, const std::string& what) {
  const std::string s = trim(text);
  auto bad = [&](const std::string& why) {
    return InputError(what + ": '" + text + "' is not a byte count (" + why + ")");
  };
  if (s.empty()) throw bad("empty");
  if (s[0] == '-') throw bad("negative");
  std::size_t pos = 0;
  while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
  if (pos == 0) throw bad("expected a number, e.g. 4096 or 64MiB");
  const std::string number = s.substr(0, pos);
  std::string unit = trim(s.substr(pos));
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(number, &used);
    if (used != number.size()) throw bad("malformed number");
  } catch (const std::logic_error&) {
    throw bad("malformed number");
  }
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0},          {"B", 1.0},           {"K", 1e3},          {"KB", 1e3},         {"M", 1e6},
      {"MB", 1e6},        {"G", 1e9},           {"GB", 1e9},         {"T", 1e12},         {"TB", 1e12},
      {"Ki", 1024.0},     {"KiB", 1024.0},      {"Mi", 1048576.0},   {"MiB", 1048576.0},  {"Gi", 1073741824.0},
      {"GiB", 1073741824.0}, {"Ti", 1099511627776.0}, {"TiB", 1099511627776.0}};
  double scale = -1;
  for (const auto& [name, factor] : kUnits)
    if (unit == name) scale = factor;
  if (scale < 0) throw bad("unknown unit '" + unit + "'; use B, KB, MB, GB, KiB, MiB, GiB");
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes > limits::kMaxBytes) throw bad("more than 2^50 bytes (1 PiB), the most perfmodel takes; limits.hpp");
  if (bytes != std::floor(bytes)) throw bad("not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(double bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  if (unit == 0) return printf_string("%.0f %s", v, kNames[unit]);
  return printf_string(v == std::floor(v) ? "%.0f %s" : "%.3g %s", v, kNames[unit]);
}

std::string format_seconds(double seconds) {
  const double a = std::fabs(seconds);
  if (a < 1e-6) return printf_string("%.3g %s", seconds * 1e9, "ns");
  if (a < 1e-3) return printf_string("%.4g %s", seconds * 1e6, "us");
  if (a < 1.0) return printf_string("%.4g %s", seconds * 1e3, "ms");
  return printf_string("%.4g %s", seconds, "s");
}

std::string format_rate(double bytes_per_second) {
  const double a = std::fabs(bytes_per_second);
  if (a >= 1e12) return printf_string("%.4g %s", bytes_per_second / 1e12, "TB/s");
  if (a >= 1e9) return printf_string("%.4g %s", bytes_per_second / 1e9, "GB/s");
  if (a >= 1e6) return printf_string("%.4g %s", bytes_per_second / 1e6, "MB/s");
  return printf_string("%.4g %s", bytes_per_second / 1e3, "kB/s");
}

std::string format_number(double v) {
  std::ostringstream o;
  o.precision(3);
  o << v;
  return o.str();
}

}  // namespace perfmodel
