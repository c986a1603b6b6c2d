#include "perfmodel/calibrate/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <stdexcept>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

std::string samples_file_name_for(const std::string& profile_path, const std::string& kind) {
  std::string name = profile_path.substr(profile_path.find_last_of('/') + 1);
  const auto dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  return name + "." + kind + "_samples.csv";
}

CalibrationOutputs run_calibration(const BenchmarkRegistry& registry, const std::vector<std::string>& only,
                                   const CalibrationOptions& options, const std::string& profile_path,
                                   const std::string& command_line) {
  const std::vector<Benchmark*> selected = registry.select(only);
  if (selected.empty()) {
    const auto reason = gpu_unavailable_reason();
    throw RuntimeFailure("nothing to calibrate" + (reason ? ": " + *reason : std::string()));
  }
  // Nothing selected can run (no GPU, typically): one error, no per-benchmark noise.
  if (std::all_of(selected.begin(), selected.end(), [](Benchmark* b) { return b->unavailable_reason().has_value(); }))
    throw RuntimeFailure("none of the selected benchmarks can run here: " + *selected.front()->unavailable_reason());
  CalibrationData data;
  data.provenance = host_provenance(command_line);
  if (!gpu_unavailable_reason()) fill_device_provenance(data.provenance);

  // Progress: each benchmark's line says how far the run is and about how long is left (the
  // benchmarks' expected times, scaled by how the finished ones compared with theirs).
  std::vector<Benchmark*> runnable;
  for (Benchmark* b : selected) {
    if (const auto why = b->unavailable_reason()) {
      if (options.progress) *options.progress << "skip " << b->key() << ": " << *why << "\n";
      continue;
    }
    runnable.push_back(b);
  }
  double expected_left = 0;
  for (Benchmark* b : runnable) expected_left += b->expected_seconds(options);
  double expected_done = 0, actual_done = 0;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < runnable.size(); ++i) {
    Benchmark* b = runnable[i];
    if (options.progress) {
      const double pace = expected_done > 1 ? actual_done / expected_done : 1.0;
      *options.progress << "run  [" << i + 1 << "/" << runnable.size() << ", " << format_seconds(actual_done) << " elapsed, ~"
                        << format_seconds(expected_left * pace) << " left] " << b->key() << ": " << b->description() << "\n";
    }
    const double expected = b->expected_seconds(options);
    b->run(options, data);
    expected_left -= expected;
    expected_done += expected;
    actual_done = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (options.progress)
    *options.progress << "done: " << runnable.size() << " benchmarks in " << format_seconds(actual_done) << "\n";

  CalibrationOutputs outputs;
  outputs.profile_path = profile_path;
  Profile profile;
  profile.provenance = data.provenance;
  const auto slash = profile_path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? std::string() : profile_path.substr(0, slash + 1);
  // Raw samples are written first: if a fit fails, what was measured is kept. Returns the
  // samples file's name as the profile records it (relative to the profile's folder).
  auto write_samples = [&](const char* kind, const std::string& csv, std::string& path) {
    const std::string name = samples_file_name_for(profile_path, kind);
    path = directory + name;
    write_file_atomically(path, csv);
    return name;
  };
  if (!data.gpu_samples.empty()) {
    const GpuSampleFile file{data.provenance, data.gpu_device, data.gpu_samples, data.gpu_wall_s};
    profile.gpu = fit_gpu_samples(file, write_samples("gpu", to_csv(file), outputs.gpu_samples_path));
  }
  if (!data.cpu_samples.empty()) {
    const CpuSampleFile file{data.provenance, data.cpu_info, data.cpu_samples, data.cpu_wall_s};
    profile.cpu = fit_cpu_samples(file, write_samples("cpu", to_csv(file), outputs.cpu_samples_path));
  }
  if (!data.transfer_samples.empty()) {
    const TransferSampleFile file{data.provenance, data.transfer_samples, to_string(options.pcie_host_buffer)};
    const std::string samples_name = write_samples("pcie", to_csv(file), outputs.pcie_samples_path);
    profile.pcie = fit_pcie(data.transfer_samples, samples_name);
    profile.pcie->calibration_wall_s = data.pcie_wall_s;
    profile.pcie->host_buffer = file.host_buffer;
  }
  save_profile(profile, profile_path);
  return outputs;
}

}  // namespace perfmodel
