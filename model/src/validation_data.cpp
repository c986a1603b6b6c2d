#include "perfmodel/model/validation_data.hpp"

#include <filesystem>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "perfmodel/model/limits.hpp"
#include "resource_rows.hpp"
#include "sample_csv.hpp"

namespace perfmodel {
namespace {

constexpr const char* kMeasurementsMagic = "# perfmodel validation measurements v1";
constexpr const char* kResourcesMagic = "# perfmodel validation resources v1";
constexpr const char* kMeasurementsHeader = "kernel,n,config,check_error,check_bound,seconds";
using recorded::kResourcesHeader;
using recorded::parse_count;
using recorded::kDevicePrefix;

}  // namespace

namespace recorded {

int parse_count(const std::string& cell, const std::string& column, const csv::ErrorAt& error, int min_value) {
  return static_cast<int>(csv::parse_whole(cell, column, error, min_value, 2147483647.0));
}

bool read_device_property(const std::string& key, const std::string& value, const csv::ErrorAt& error, GpuDeviceInfo& device) {
  if (key.rfind(kDevicePrefix, 0) != 0) return false;
  const std::string name = key.substr(std::string(kDevicePrefix).size());
  for (auto& [field, target] : device.fields())
    if (field == name) {
      *target = csv::parse_number(value, key, error);
      return true;
    }
  throw error(key, "unknown device property");
}

PhaseResourceRecord parse_resource_row(const std::vector<std::string>& cells, const csv::ErrorAt& error) {
  if (cells.size() < 6) throw error("row", "expected 6 columns, found " + std::to_string(cells.size()));
  const std::size_t name_cells = cells.size() - 5;
  PhaseResourceRecord p;
  for (std::size_t i = 0; i < name_cells; ++i) p.phase_kernel += (i ? "," : "") + cells[i];
  const std::vector<std::string> numbers(cells.begin() + static_cast<std::ptrdiff_t>(name_cells), cells.end());
  if (p.phase_kernel.empty()) throw error("phase_kernel", "empty");
  p.threads_per_block = parse_count(numbers[0], "threads_per_block", error, 1);
  p.resources.registers_per_thread = parse_count(numbers[1], "registers", error, 1);
  p.resources.static_shared_bytes = parse_count(numbers[2], "static_shared_bytes", error, 0);
  p.resources.max_threads_per_block = parse_count(numbers[3], "max_threads", error, 1);
  p.occupancy_blocks_per_sm = parse_count(numbers[4], "occupancy_blocks_per_sm", error, 0);
  return p;
}

}  // namespace recorded

ResourceTable ValidationRun::resource_table() const {
  ResourceTable t;
  for (const PhaseResourceRecord& r : resources) t[r.phase_kernel] = r.resources;
  return t;
}

void write_validation_run(const std::string& dir, const ValidationRun& run) {
  std::filesystem::create_directories(dir);
  std::ostringstream m;
  m << csv::header_lines(kMeasurementsMagic, run.provenance);
  for (const auto& [name, value] : run.device.fields()) m << "# " << kDevicePrefix << name << ": " << csv::format_g(*value) << "\n";
  m << "# validation_wall_s: " << csv::format_g(run.wall_s) << "\n";
  m << "# quick: " << (run.quick ? "true" : "false") << "\n";
  m << kMeasurementsHeader << "\n";
  for (const KernelMeasurement& k : run.measurements) {
    m << k.kernel << ',' << k.n << ',' << to_string(k.config, gpu_kernel_spec(k.kernel)) << ',' << csv::format_g(k.check_error) << ','
      << csv::format_g(k.check_bound) << ',';
    for (std::size_t i = 0; i < k.seconds.size(); ++i) m << (i ? ";" : "") << csv::format_g(k.seconds[i]);
    m << "\n";
  }
  std::ostringstream r;
  r << csv::header_lines(kResourcesMagic, run.provenance);
  r << kResourcesHeader << "\n";
  for (const PhaseResourceRecord& p : run.resources)
    r << p.phase_kernel << ',' << p.threads_per_block << ',' << p.resources.registers_per_thread << ','
      << p.resources.static_shared_bytes << ',' << p.resources.max_threads_per_block << ',' << p.occupancy_blocks_per_sm << "\n";
  write_file_atomically((std::filesystem::path(dir) / kMeasurementsFile).string(), m.str());
  write_file_atomically((std::filesystem::path(dir) / kResourcesFile).string(), r.str());
}

ValidationRun read_validation_run(const std::string& dir) {
  const std::string mpath = (std::filesystem::path(dir) / kMeasurementsFile).string();
  const std::string rpath = (std::filesystem::path(dir) / kResourcesFile).string();
  const std::string measurements = read_input_file(mpath);
  return parse_validation_run(measurements, mpath, read_input_file(rpath), rpath);
}

ValidationRun parse_validation_run(const std::string& measurements_text, const std::string& mpath,
                                   const std::string& resources_text, const std::string& rpath) {
  ValidationRun run;
  csv::read_sample_file(
      measurements_text, mpath, kMeasurementsMagic, kMeasurementsHeader, run.provenance,
      [&](const std::string& key, const std::string& value, const csv::ErrorAt& error) {
        if (key == "validation_wall_s") {
          run.wall_s = csv::parse_number(value, key, error);
        } else if (key == "quick") {
          if (value != "true" && value != "false") throw error(key, "must be true or false");
          run.quick = value == "true";
        } else {
          recorded::read_device_property(key, value, error, run.device);
        }
      },
      [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
        if (cells.size() != 6) throw error("row", "expected 6 columns, found " + std::to_string(cells.size()));
        KernelMeasurement k;
        k.kernel = cells[0];
        const GpuKernelSpec* spec = nullptr;
        try {
          spec = &gpu_kernel_spec(k.kernel);
        } catch (const InputError& e) {
          throw error("kernel", e.what());
        }
        k.n = parse_count(cells[1], "n", error, 1);
        try {
          k.config = parse_kernel_config(cells[2], *spec);
        } catch (const InputError& e) {
          throw error("config", e.what());
        }
        const std::string problem = config_problem(*spec, k.n, k.config);
        if (!problem.empty()) throw error("config", problem);
        k.check_error = csv::parse_number(cells[3], "check_error", error);
        k.check_bound = csv::parse_number(cells[4], "check_bound", error);
        if (k.check_error < 0 || k.check_bound < 0) throw error("check_error", "check values must be >= 0");
        if (k.check_error > k.check_bound) throw error("check_error", "the result check failed: no time may be recorded");
        for (const std::string& t : csv::split(cells[5], ';')) {
          const double s = csv::parse_number(t, "seconds", error);
          if (!(s > 0 && s <= limits::kMaxSampleSeconds)) throw error("seconds", "times must be > 0 and at most a day");
          k.seconds.push_back(s);
        }
        if (k.seconds.empty()) throw error("seconds", "no repetitions");
        run.measurements.push_back(std::move(k));
      });
  Provenance resources_provenance;
  csv::read_sample_file(resources_text, rpath, kResourcesMagic, kResourcesHeader, resources_provenance, nullptr,
                        [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
    run.resources.push_back(recorded::parse_resource_row(cells, error));
  });
  if (run.measurements.empty()) throw InputError(mpath + ": no measurements");
  return run;
}

}  // namespace perfmodel
