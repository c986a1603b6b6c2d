#include "perfmodel/model/gpu_samples.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "sample_csv.hpp"

namespace perfmodel {
namespace {

constexpr const char* kMagic = "# perfmodel gpu samples v1";
constexpr const char* kHeader = "series,params,rep,seconds,amount";
constexpr const char* kDevicePrefix = "gpu.";

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-')) return false;
  return true;
}

}  // namespace

double GpuSample::param(const std::string& name) const {
  const auto it = params.find(name);
  if (it == params.end()) throw std::out_of_range("sample of series " + series + " has no parameter '" + name + "'");
  return it->second;
}

std::string GpuSample::params_text() const {
  std::string out;
  for (const auto& [name, value] : params) out += (out.empty() ? "" : ";") + name + "=" + csv::format_g(value);
  return out;
}

std::string to_csv(const GpuSampleFile& file) {
  std::ostringstream out;
  out << csv::header_lines(kMagic, file.provenance);
  for (const auto& [name, value] : file.device.fields()) out << "# " << kDevicePrefix << name << ": " << csv::format_g(*value) << "\n";
  out << "# calibration_wall_s: " << csv::format_g(file.calibration_wall_s) << "\n";
  out << kHeader << "\n";
  for (const GpuSample& s : file.samples)
    out << s.series << ',' << s.params_text() << ',' << s.rep << ',' << csv::format_g(s.seconds) << ','
        << csv::format_g(s.amount) << "\n";
  return out.str();
}

GpuSampleFile parse_gpu_samples(const std::string& text, const std::string& file_name) {
  GpuSampleFile file;
  auto device_fields = file.device.fields();
  const auto on_metadata = [&](const std::string& key, const std::string& value, const csv::ErrorAt& error) {
    if (key == "calibration_wall_s") {
      file.calibration_wall_s = csv::parse_number(value, key, error);
      return;
    }
    if (key.rfind(kDevicePrefix, 0) != 0) return;  // other comments are allowed and ignored
    const std::string name = key.substr(std::string(kDevicePrefix).size());
    for (auto& [field, target] : device_fields)
      if (field == name) {
        *target = csv::parse_number(value, key, error);
        if (*target < 0) throw error(key, "must be >= 0");
        return;
      }
    throw error(key, "unknown device property");
  };
  csv::read_sample_file(text, file_name, kMagic, kHeader, file.provenance, on_metadata,
                        [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
    if (cells.size() != 5) throw error("row", "expected 5 columns, found " + std::to_string(cells.size()));
    GpuSample s;
    s.series = cells[0];
    if (!valid_name(s.series)) throw error("series", "'" + s.series + "' is not a series name");
    if (!cells[1].empty())
      for (const std::string& pair : csv::split(cells[1], ';')) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos || !valid_name(pair.substr(0, eq)))
          throw error("params", "'" + pair + "' is not name=value");
        const std::string name = pair.substr(0, eq);
        if (s.params.count(name)) throw error("params", "parameter '" + name + "' given twice");
        s.params[name] = csv::parse_number(pair.substr(eq + 1), "params." + name, error);
      }
    const double rep = csv::parse_number(cells[2], "rep", error);
    if (rep < 0 || rep != static_cast<int>(rep)) throw error("rep", "must be an integer >= 0");
    s.rep = static_cast<int>(rep);
    s.seconds = csv::parse_number(cells[3], "seconds", error);
    if (!(s.seconds > 0)) throw error("seconds", "must be > 0");
    s.amount = csv::parse_number(cells[4], "amount", error);
    if (!(s.amount > 0)) throw error("amount", "must be > 0");
    file.samples.push_back(std::move(s));
  });
  return file;
}

GpuSampleFile load_gpu_samples(const std::string& path) { return parse_gpu_samples(read_file(path), path); }

}  // namespace perfmodel
