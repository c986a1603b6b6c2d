#include "perfmodel/model/benchmark_samples.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "perfmodel/model/limits.hpp"
#include "sample_csv.hpp"

namespace perfmodel {
namespace {

constexpr const char* kGpuMagic = "# perfmodel gpu samples v1";
constexpr const char* kCpuMagic = "# perfmodel cpu samples v1";
constexpr const char* kHeader = "series,params,rep,seconds,amount";

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-')) return false;
  return true;
}

}  // namespace

double BenchmarkSample::param(const std::string& name) const {
  const auto it = params.find(name);
  if (it == params.end()) throw std::out_of_range("sample of series " + series + " has no parameter '" + name + "'");
  return it->second;
}

std::string BenchmarkSample::params_text() const {
  std::string out;
  for (const auto& [name, value] : params) out += (out.empty() ? "" : ";") + name + "=" + csv::format_g(value);
  return out;
}

namespace {

// Both file kinds: provenance, the info fields under `prefix`, the wall time, the rows.
template <class Info>
std::string samples_csv(const std::string& magic, const std::string& prefix, const Provenance& provenance, const Info& info,
                        double wall, const std::vector<BenchmarkSample>& samples) {
  std::ostringstream out;
  out << csv::header_lines(magic, provenance);
  for (const auto& [name, value] : info.fields()) out << "# " << prefix << name << ": " << csv::format_g(*value) << "\n";
  out << "# calibration_wall_s: " << csv::format_g(wall) << "\n";
  out << kHeader << "\n";
  for (const BenchmarkSample& s : samples)
    out << s.series << ',' << s.params_text() << ',' << s.rep << ',' << csv::format_g(s.seconds) << ','
        << csv::format_g(s.amount) << "\n";
  return out.str();
}

template <class Info>
void parse_samples(const std::string& text, const std::string& file_name, const std::string& magic, const std::string& prefix,
                   Provenance& provenance, Info& info, double& wall, std::vector<BenchmarkSample>& samples) {
  auto info_fields = info.fields();
  const auto on_metadata = [&](const std::string& key, const std::string& value, const csv::ErrorAt& error) {
    if (key == "calibration_wall_s") {
      wall = csv::parse_number(value, key, error);
      return;
    }
    if (key.rfind(prefix, 0) != 0) return;  // other comments are allowed and ignored
    const std::string name = key.substr(prefix.size());
    for (auto& [field, target] : info_fields)
      if (field == name) {
        *target = csv::parse_number(value, key, error);
        if (*target < 0) throw error(key, "must be >= 0");
        return;
      }
    throw error(key, "unknown " + prefix.substr(0, prefix.size() - 1) + " property");
  };
  csv::read_sample_file(text, file_name, magic, kHeader, provenance, on_metadata,
                        [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
    if (cells.size() != 5) throw error("row", "expected 5 columns, found " + std::to_string(cells.size()));
    BenchmarkSample s;
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
    s.rep = static_cast<int>(csv::parse_whole(cells[2], "rep", error, 0, 1e9));
    s.seconds = csv::parse_number(cells[3], "seconds", error);
    if (!(s.seconds > 0 && s.seconds <= limits::kMaxSampleSeconds)) throw error("seconds", "must be a positive time of at most a day");
    s.amount = csv::parse_number(cells[4], "amount", error);
    if (!(s.amount > 0)) throw error("amount", "must be > 0");
    samples.push_back(std::move(s));
  });
}

}  // namespace

std::string to_csv(const GpuSampleFile& f) {
  return samples_csv(kGpuMagic, "gpu.", f.provenance, f.device, f.calibration_wall_s, f.samples);
}
std::string to_csv(const CpuSampleFile& f) { return samples_csv(kCpuMagic, "cpu.", f.provenance, f.cpu, f.calibration_wall_s, f.samples); }

GpuSampleFile parse_gpu_samples(const std::string& text, const std::string& file_name) {
  GpuSampleFile f;
  parse_samples(text, file_name, kGpuMagic, "gpu.", f.provenance, f.device, f.calibration_wall_s, f.samples);
  return f;
}
CpuSampleFile parse_cpu_samples(const std::string& text, const std::string& file_name) {
  CpuSampleFile f;
  parse_samples(text, file_name, kCpuMagic, "cpu.", f.provenance, f.cpu, f.calibration_wall_s, f.samples);
  return f;
}
GpuSampleFile load_gpu_samples(const std::string& path) { return parse_gpu_samples(read_input_file(path), path); }
CpuSampleFile load_cpu_samples(const std::string& path) { return parse_cpu_samples(read_input_file(path), path); }

}  // namespace perfmodel
