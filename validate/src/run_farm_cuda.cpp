// The GPU half of `perfmodel validate --only farm`: runs the farm plan through kernels/cuda.
#include <chrono>
#include <ostream>
#include <sstream>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/farm_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel {

FarmRun run_farm_validation(FarmCaseSet set, const std::string& command, std::ostream* progress, std::vector<std::string>& failures) {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure("cannot validate on a GPU: " + *why);
  const auto t0 = std::chrono::steady_clock::now();
  FarmRun run;
  run.provenance = host_provenance(command);
  fill_device_provenance(run.provenance);
  run.device = query_gpu_device();
  run.cuda_device_max_connections = gpu::cuda_device_max_connections();
  const int sms = static_cast<int>(run.device.multiprocessors);
  const bool quick = set == FarmCaseSet::quick;
  const std::vector<FarmCase> cases = farm_cases(set);
  const std::vector<FarmConfig> configs = farm_configs(sms, quick);
  if (progress)
    *progress << "perfmodel validate --only farm: " << cases.size() << " cases x " << configs.size() << " configurations on "
              << run.provenance.device_name << " (" << sms << " SMs, " << run.device.async_engines << " copy engines, "
              << "CUDA_DEVICE_MAX_CONNECTIONS " << (run.cuda_device_max_connections.empty() ? "unset" : run.cuda_device_max_connections)
              << ")\n";
  gpu::FarmRunner runner;
  for (const gpu::PhaseInfo& p : runner.resources())
    run.resources.push_back({p.kernel, p.threads_per_block, p.resources, p.occupancy_blocks_per_sm});
  std::size_t index = 0;
  const std::size_t total = cases.size() * configs.size();
  for (const FarmCase& c : cases) {
    runner.prepare(c.task, c.tasks);
    for (const FarmConfig& config : configs) {
      ++index;
      FarmMeasurement m;
      m.task = c.task;
      m.tasks = c.tasks;
      m.mode = config.mode;
      m.streams = config.streams;
      m.memory = config.memory;
      const std::string label = c.task.label() + ", L=" + std::to_string(c.tasks) + ", " + m.config_label();
      const auto c0 = std::chrono::steady_clock::now();
      const gpu::FarmResult r = runner.measure(config, kFarmRepetitions);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      if (!r.passed()) {
        std::ostringstream why;
        why << label << ": result check failed: " << r.check_what << " = " << r.check_error << " > bound " << r.check_bound;
        failures.push_back(why.str());
        if (progress) *progress << "  [" << index << "/" << total << "] " << label << ": CHECK FAILED\n";
        continue;
      }
      m.check_error = r.check_error;
      m.check_bound = r.check_bound;
      m.seconds = r.seconds;
      m.issue_seconds = r.issue_seconds;
      if (progress) {
        const SampleSummary s = m.summary();
        *progress << "  [" << index << "/" << total << "] " << label << ": " << format_seconds(s.median) << " (p10 "
                  << format_seconds(s.p10) << ", p90 " << format_seconds(s.p90) << "; " << format_seconds(wall) << " wall)\n";
      }
      run.measurements.push_back(std::move(m));
    }
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (progress) *progress << "farm validation: " << format_seconds(run.wall_s) << " wall\n";
  return run;
}

}  // namespace perfmodel
