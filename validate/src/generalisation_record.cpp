// The generalisation suite's plan and its recorded run (measurements.csv, resources.csv).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel {
namespace {

constexpr const char* kMagic = "# perfmodel generalisation measurements v1";
constexpr const char* kResourcesMagic = "# perfmodel generalisation resources v1";
constexpr const char* kHeader = "kernel,class,half,params,check_error,check_bound,checked_outputs,steady_runs,single_s,steady_s";
constexpr const char* kResourcesHeader =
    "kernel,params,phase_kernel,blocks,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm";
constexpr const char* kDevicePrefix = "gpu_";

std::string g9(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

struct At {
  std::string file;
  int line = 0;
  InputError operator()(const std::string& column, const std::string& problem) const {
    return InputError(file + ":" + std::to_string(line) + ": " + column + ": " + problem);
  }
};

double number(const std::string& cell, const std::string& column, const At& at) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (cell.empty() || used != cell.size() || !std::isfinite(v)) throw at(column, "'" + cell + "' is not a number");
  return v;
}

long long count(const std::string& cell, const std::string& column, const At& at, long long min_value) {
  const double v = number(cell, column, at);
  if (v != std::floor(v) || v < static_cast<double>(min_value) || v > 9e15)
    throw at(column, "'" + cell + "' is not an integer >= " + std::to_string(min_value));
  return static_cast<long long>(v);
}

std::vector<double> times(const std::string& cell, const std::string& column, const At& at) {
  std::vector<double> v;
  for (const std::string& t : split(cell, ';')) {
    const double s = number(t, column, at);
    if (!(s > 0)) throw at(column, "times must be > 0");
    v.push_back(s);
  }
  if (v.empty()) throw at(column, "no times");
  return v;
}

// Reads "# key: value" lines into provenance (and on_meta), rows into on_row.
template <class OnMeta, class OnRow>
void read_csv(const std::string& path, const char* magic, const char* header, Provenance& provenance, OnMeta&& on_meta, OnRow&& on_row) {
  std::istringstream in(read_file(path));
  At at{path, 0};
  std::string line;
  if (!std::getline(in, line) || (++at.line, line != magic)) throw at("", std::string("the first line must be '") + magic + "'");
  auto fields = provenance.fields();
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++at.line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const auto colon = line.find(':');
      if (colon == std::string::npos || line.size() < 2) continue;
      const std::string key = line.substr(2, colon - 2), value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
      bool known = false;
      for (auto& [name, field] : fields)
        if (name == key) *field = value, known = true;
      if (!known) on_meta(key, value, at);
      continue;
    }
    if (!header_seen) {
      if (line != header) throw at("header", std::string("expected '") + header + "'");
      header_seen = true;
      continue;
    }
    on_row(split(line, ','), at);
  }
  if (!header_seen) throw at("header", "missing");
}

std::string provenance_lines(const char* magic, const Provenance& p) {
  std::string out = std::string(magic) + "\n";
  for (const auto& [key, value] : p.fields()) out += "# " + key + ": " + *value + "\n";
  return out;
}

}  // namespace

std::vector<GenPoint> generalisation_plan(const std::vector<std::string>& only, bool test_sizes) {
  for (const std::string& name : only) {
    bool known = false;
    for (const gen::KernelEntry& e : gen::kernel_catalog()) known = known || e.name == name || e.klass == name;
    if (!known) {
      std::string classes;
      for (const gen::KernelEntry& e : gen::kernel_catalog())
        if (classes.find(e.klass) == std::string::npos) classes += (classes.empty() ? "" : ", ") + e.klass;
      try {
        gen::kernel_entry(name);
      } catch (const InputError& e) {
        throw InputError(std::string("--only: ") + e.what() + "; or a class: " + classes);
      }
    }
  }
  std::vector<GenPoint> plan;
  for (const gen::KernelEntry& e : gen::kernel_catalog()) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.name) == only.end() &&
        std::find(only.begin(), only.end(), e.klass) == only.end())
      continue;
    if (test_sizes)
      plan.push_back({e.name, e.test_size});
    else
      for (const gen::Params& p : e.sizes) plan.push_back({e.name, p});
  }
  return plan;
}

void write_generalisation_run(const std::string& dir, const GenRunRecord& run) {
  std::filesystem::create_directories(dir);
  std::ostringstream m;
  m << provenance_lines(kMagic, run.provenance);
  for (const auto& [name, value] : run.device.fields()) m << "# " << kDevicePrefix << name << ": " << g9(*value) << "\n";
  m << "# validation_wall_s: " << g9(run.wall_s) << "\n";
  m << kHeader << "\n";
  std::ostringstream r;
  r << provenance_lines(kResourcesMagic, run.provenance) << kResourcesHeader << "\n";
  for (const GenMeasurement& k : run.measurements) {
    const std::string params = gen::params_string(k.params);
    m << k.kernel << ',' << k.klass << ',' << k.half << ',' << params << ',' << g9(k.check_error) << ',' << g9(k.check_bound)
      << ',' << k.checked_outputs << ',' << k.steady_runs << ',';
    for (std::size_t i = 0; i < k.single_s.size(); ++i) m << (i ? ";" : "") << g9(k.single_s[i]);
    m << ',';
    for (std::size_t i = 0; i < k.steady_s.size(); ++i) m << (i ? ";" : "") << g9(k.steady_s[i]);
    m << "\n";
    for (const GenPhaseRecord& p : k.phases)
      r << k.kernel << ',' << params << ',' << p.phase_kernel << ',' << p.blocks << ',' << p.threads_per_block << ','
        << p.resources.registers_per_thread << ',' << p.resources.static_shared_bytes << ',' << p.resources.max_threads_per_block
        << ',' << p.occupancy_blocks_per_sm << "\n";
  }
  write_file_atomically((std::filesystem::path(dir) / kGenMeasurementsFile).string(), m.str());
  write_file_atomically((std::filesystem::path(dir) / kGenResourcesFile).string(), r.str());
}

GenRunRecord read_generalisation_run(const std::string& dir) {
  GenRunRecord run;
  const std::string mpath = (std::filesystem::path(dir) / kGenMeasurementsFile).string();
  const std::string rpath = (std::filesystem::path(dir) / kGenResourcesFile).string();
  auto device_fields = run.device.fields();
  read_csv(
      mpath, kMagic, kHeader, run.provenance,
      [&](const std::string& key, const std::string& value, const At& at) {
        if (key == "validation_wall_s") {
          run.wall_s = number(value, key, at);
        } else if (key.rfind(kDevicePrefix, 0) == 0) {
          const std::string name = key.substr(std::string(kDevicePrefix).size());
          for (auto& [field, target] : device_fields)
            if (field == name) {
              *target = number(value, key, at);
              return;
            }
          throw at(key, "unknown device property");
        }
      },
      [&](const std::vector<std::string>& c, const At& at) {
        if (c.size() != 10) throw at("row", "expected 10 columns, found " + std::to_string(c.size()));
        GenMeasurement k;
        k.kernel = c[0];
        try {
          const gen::KernelEntry& e = gen::kernel_entry(k.kernel);
          if (c[1] != e.klass) throw at("class", "'" + c[1] + "' but the catalogue says '" + e.klass + "'");
          if (c[2].size() != 1 || c[2][0] != e.half) throw at("half", "'" + c[2] + "' but the catalogue says '" + std::string(1, e.half) + "'");
          k.klass = e.klass;
          k.half = e.half;
          k.params = gen::parse_params(c[3]);
        } catch (const InputError& e) {
          const std::string what = e.what();
          if (what.rfind(mpath, 0) == 0) throw;
          throw at("kernel", what);
        }
        k.check_error = number(c[4], "check_error", at);
        k.check_bound = number(c[5], "check_bound", at);
        if (k.check_error < 0 || k.check_bound < 0) throw at("check_error", "check values must be >= 0");
        if (k.check_error > k.check_bound) throw at("check_error", "the result check failed: no time may be recorded");
        k.checked_outputs = static_cast<std::size_t>(count(c[6], "checked_outputs", at, 1));
        k.steady_runs = static_cast<int>(count(c[7], "steady_runs", at, 1));
        k.single_s = times(c[8], "single_s", at);
        k.steady_s = times(c[9], "steady_s", at);
        run.measurements.push_back(std::move(k));
      });
  if (run.measurements.empty()) throw InputError(mpath + ": no measurements");
  if (std::filesystem::exists(rpath)) {
    Provenance resources_provenance;
    read_csv(rpath, kResourcesMagic, kResourcesHeader, resources_provenance, [](const std::string&, const std::string&, const At&) {},
             [&](const std::vector<std::string>& c, const At& at) {
               if (c.size() != 9) throw at("row", "expected 9 columns, found " + std::to_string(c.size()));
               GenPhaseRecord p;
               p.phase_kernel = c[2];
               p.blocks = count(c[3], "blocks", at, 1);
               p.threads_per_block = static_cast<int>(count(c[4], "threads_per_block", at, 1));
               p.resources.registers_per_thread = static_cast<int>(count(c[5], "registers", at, 1));
               p.resources.static_shared_bytes = static_cast<int>(count(c[6], "static_shared_bytes", at, 0));
               p.resources.max_threads_per_block = static_cast<int>(count(c[7], "max_threads", at, 1));
               p.occupancy_blocks_per_sm = static_cast<int>(count(c[8], "occupancy_blocks_per_sm", at, 0));
               for (GenMeasurement& k : run.measurements)
                 if (k.kernel == c[0] && gen::params_string(k.params) == c[1]) {
                   k.phases.push_back(p);
                   return;
                 }
               throw at("kernel", "no measurement of '" + c[0] + "' at '" + c[1] + "'");
             });
  }
  return run;
}

}  // namespace perfmodel
