#include "perfmodel/model/farm_data.hpp"

#include <filesystem>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "resource_rows.hpp"
#include "sample_csv.hpp"

namespace perfmodel {
namespace {

// v2 adds the host's time to issue the stream of tasks (issue_seconds, one per timed run); v1
// recordings (without it) still read.
constexpr const char* kMagicV1 = "# perfmodel farm measurements v1";
constexpr const char* kMagic = "# perfmodel farm measurements v2";
constexpr const char* kResourcesMagic = "# perfmodel farm resources v1";
constexpr const char* kHeaderV1 = "app,size,iterations,tasks,mode,streams,memory,check_error,check_bound,seconds";
constexpr const char* kHeader = "app,size,iterations,tasks,mode,streams,memory,check_error,check_bound,seconds,issue_seconds";
using recorded::kResourcesHeader;
using recorded::parse_count;
using recorded::kDevicePrefix;
constexpr const char* kConnectionsKey = "cuda_device_max_connections";

}  // namespace

const char* to_string(FarmMode mode) {
  switch (mode) {
    case FarmMode::serial: return "serial";
    case FarmMode::streams: return "streams";
    case FarmMode::data_parallel: return "data_parallel";
  }
  return "?";
}

std::string FarmMeasurement::config_label() const {
  std::string s;
  switch (mode) {
    case FarmMode::serial: s = "S=0"; break;
    case FarmMode::streams: s = "S=" + std::to_string(streams); break;
    case FarmMode::data_parallel: s = "data-parallel"; break;
  }
  if (memory == HostMemory::pageable) s += " pageable";
  return s;
}

ResourceTable FarmRun::resource_table() const {
  ResourceTable t;
  for (const PhaseResourceRecord& r : resources) t[r.phase_kernel] = r.resources;
  return t;
}

void write_farm_run(const std::string& dir, const FarmRun& run) {
  std::filesystem::create_directories(dir);
  std::ostringstream m;
  m << csv::header_lines(kMagic, run.provenance);
  for (const auto& [name, value] : run.device.fields()) m << "# " << kDevicePrefix << name << ": " << csv::format_g(*value) << "\n";
  m << "# " << kConnectionsKey << ": " << (run.cuda_device_max_connections.empty() ? "unset" : run.cuda_device_max_connections) << "\n";
  m << "# farm_wall_s: " << csv::format_g(run.wall_s) << "\n";
  m << kHeader << "\n";
  for (const FarmMeasurement& f : run.measurements) {
    m << to_string(f.task.app) << ',' << f.task.size << ',' << f.task.iterations << ',' << f.tasks << ',' << to_string(f.mode) << ','
      << f.streams << ',' << to_string(f.memory) << ',' << csv::format_g(f.check_error) << ',' << csv::format_g(f.check_bound) << ',';
    for (std::size_t i = 0; i < f.seconds.size(); ++i) m << (i ? ";" : "") << csv::format_g(f.seconds[i]);
    m << ',';
    for (std::size_t i = 0; i < f.issue_seconds.size(); ++i) m << (i ? ";" : "") << csv::format_g(f.issue_seconds[i]);
    m << "\n";
  }
  std::ostringstream r;
  r << csv::header_lines(kResourcesMagic, run.provenance) << kResourcesHeader << "\n";
  for (const PhaseResourceRecord& p : run.resources)
    r << p.phase_kernel << ',' << p.threads_per_block << ',' << p.resources.registers_per_thread << ','
      << p.resources.static_shared_bytes << ',' << p.resources.max_threads_per_block << ',' << p.occupancy_blocks_per_sm << "\n";
  write_file_atomically((std::filesystem::path(dir) / kFarmMeasurementsFile).string(), m.str());
  write_file_atomically((std::filesystem::path(dir) / kFarmResourcesFile).string(), r.str());
}

bool has_farm_run(const std::string& dir) {
  return std::filesystem::exists(std::filesystem::path(dir) / kFarmMeasurementsFile);
}

FarmRun read_farm_run(const std::string& dir) {
  FarmRun run;
  const std::string mpath = (std::filesystem::path(dir) / kFarmMeasurementsFile).string();
  const std::string rpath = (std::filesystem::path(dir) / kFarmResourcesFile).string();
  const std::string text = read_input_file(mpath);
  const bool v1 = text.rfind(kMagicV1, 0) == 0;
  const std::size_t columns = v1 ? 10 : 11;
  csv::read_sample_file(
      text, mpath, v1 ? kMagicV1 : kMagic, v1 ? kHeaderV1 : kHeader, run.provenance,
      [&](const std::string& key, const std::string& value, const csv::ErrorAt& error) {
        if (key == "farm_wall_s") {
          run.wall_s = csv::parse_number(value, key, error);
        } else if (key == kConnectionsKey) {
          run.cuda_device_max_connections = value == "unset" ? "" : value;
        } else {
          recorded::read_device_property(key, value, error, run.device);
        }
      },
      [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
        if (cells.size() != columns)
          throw error("row", "expected " + std::to_string(columns) + " columns, found " + std::to_string(cells.size()));
        FarmMeasurement f;
        const auto app = parse_farm_app(cells[0]);
        if (!app) throw error("app", "'" + cells[0] + "' is not cosine, matmul or blur");
        f.task.app = *app;
        f.task.size = parse_count(cells[1], "size", error, 1);
        f.task.iterations = parse_count(cells[2], "iterations", error, 0);
        const std::string problem = farm_task_problem(f.task);
        if (!problem.empty()) throw error("size", problem);
        f.tasks = parse_count(cells[3], "tasks", error, 1);
        if (cells[4] == "serial") f.mode = FarmMode::serial;
        else if (cells[4] == "streams") f.mode = FarmMode::streams;
        else if (cells[4] == "data_parallel") f.mode = FarmMode::data_parallel;
        else throw error("mode", "'" + cells[4] + "' is not serial, streams or data_parallel");
        f.streams = parse_count(cells[5], "streams", error, 0);
        if ((f.mode == FarmMode::streams) != (f.streams > 0)) throw error("streams", "must be > 0 exactly for mode streams");
        const auto memory = parse_host_memory(cells[6]);
        if (!memory) throw error("memory", "'" + cells[6] + "' is not pinned or pageable");
        f.memory = *memory;
        f.check_error = csv::parse_number(cells[7], "check_error", error);
        f.check_bound = csv::parse_number(cells[8], "check_bound", error);
        if (f.check_error < 0 || f.check_bound < 0) throw error("check_error", "check values must be >= 0");
        if (f.check_error > f.check_bound) throw error("check_error", "the result check failed: no time may be recorded");
        for (const std::string& t : csv::split(cells[9], ';')) {
          const double s = csv::parse_number(t, "seconds", error);
          if (!(s > 0)) throw error("seconds", "times must be > 0");
          f.seconds.push_back(s);
        }
        if (f.seconds.empty()) throw error("seconds", "no repetitions");
        if (!v1 && !cells[10].empty()) {
          for (const std::string& t : csv::split(cells[10], ';')) {
            const double s = csv::parse_number(t, "issue_seconds", error);
            if (!(s > 0)) throw error("issue_seconds", "times must be > 0");
            f.issue_seconds.push_back(s);
          }
          if (f.issue_seconds.size() != f.seconds.size())
            throw error("issue_seconds", "one per timed run: " + std::to_string(f.seconds.size()) + " expected, found " +
                                             std::to_string(f.issue_seconds.size()));
        }
        run.measurements.push_back(std::move(f));
      });
  if (std::filesystem::exists(rpath)) {
    Provenance resources_provenance;
    csv::read_sample_file(read_input_file(rpath), rpath, kResourcesMagic, kResourcesHeader, resources_provenance, nullptr,
                          [&](const std::vector<std::string>& cells, const csv::ErrorAt& error) {
                            run.resources.push_back(recorded::parse_resource_row(cells, error));
                          });
  }
  if (run.measurements.empty()) throw InputError(mpath + ": no measurements");
  return run;
}

}  // namespace perfmodel
