#include "perfmodel/report/page.hpp"

#include <fstream>
#include <iomanip>
#include <sstream>

namespace perfmodel::report {

std::string base64(const std::string& data) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(data[i]) << 16) | (static_cast<unsigned char>(data[i + 1]) << 8) |
                       static_cast<unsigned char>(data[i + 2]);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i < data.size()) {
    unsigned v = static_cast<unsigned char>(data[i]) << 16;
    if (i + 1 < data.size()) v |= static_cast<unsigned char>(data[i + 1]) << 8;
    out += {k[v >> 18], k[(v >> 12) & 63], i + 1 < data.size() ? k[(v >> 6) & 63] : '=', '='};
  }
  return out;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return o;
}

std::string format_number_short(double v) {  // 4 significant digits
  std::ostringstream o;
  o << std::setprecision(4) << v;
  return o.str();
}

}  // namespace perfmodel::report
