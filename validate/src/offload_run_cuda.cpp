// The GPU half of `perfmodel validate --only offload`: runs the plan through the offload runner.
#include <chrono>
#include <ostream>
#include <sstream>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/offload_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/offload_validation.hpp"

namespace perfmodel {

OffloadRun run_offload_validation(const Profile& profile, const ResourceTable& resources, const std::string& out_dir, const std::string& command, std::ostream* progress,
                                  std::vector<std::string>& failures, double budget_s,
                                  const OffloadPlanLimits& limits) {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure("cannot validate on a GPU: " + *why);
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  OffloadRun run;
  run.provenance = host_provenance(command);
  fill_device_provenance(run.provenance);
  run.plan = offload_plan(profile, limits, resources);
  write_offload_plan(out_dir, run.plan, run.provenance);  // the plan is on disk before anything is measured
  gpu::OffloadRunner runner;
  run.cpu_threads = runner.max_threads();
  if (progress)
    *progress << "perfmodel validate --only offload: " << run.plan.size() << " sizes on " << run.provenance.device_name << " and "
              << run.cpu_threads << " CPU threads (plan: " << out_dir << "/offload_plan.csv)\n";
  const gpu::OffloadTimingSettings settings;
  std::size_t index = 0, skipped_budget = 0;
  for (const OffloadPlanRow& row : run.plan) {
    ++index;
    if (elapsed() > budget_s) {
      ++skipped_budget;
      continue;
    }
    const int its = row.c.kernel == "cg" ? row.c.iterations : 0;
    const std::string label = row.c.label() + " n=" + std::to_string(row.n);
    auto record = [&](const std::string& path, const std::string& memory, int threads, const gpu::OffloadTiming& t, const std::string& note) {
      OffloadMeasurement m{row.c, row.n, path, memory, threads, t.check_error, t.check_bound, t.seconds, note};
      run.measurements.push_back(m);
      if (progress)
        *progress << "  [" << index << "/" << run.plan.size() << "] " << label << " " << path << (memory.empty() ? "" : " " + memory)
                  << (path == "cpu" ? " " + std::to_string(threads) + " threads" : "") << ": "
                  << (t.seconds.empty() ? note : format_seconds(m.median()) + " (" + std::to_string(t.seconds.size()) + " reps)") << "\n";
    };
    // All threads first: its result is the reference the GPU's is checked against.
    record("cpu", "", run.cpu_threads, runner.time_cpu(row.c.kernel, row.n, its, run.cpu_threads, settings), "");
    if (row.cpu_1thread) record("cpu", "", 1, runner.time_cpu(row.c.kernel, row.n, its, 1, settings), "");
    for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable}) {
      const gpu::OffloadTiming t = runner.time_gpu(row.c.kernel, row.n, its, memory, settings);
      std::string note;
      if (!t.passed()) {
        std::ostringstream f;
        f << label << " " << to_string(memory) << ": result check failed: " << t.check_what << " = " << t.check_error << " > bound " << t.check_bound;
        note = "check failed";
        failures.push_back(f.str());
      }
      record("gpu", to_string(memory), 0, t, note);
    }
  }
  std::size_t skipped_1thread = 0;
  for (const OffloadPlanRow& row : run.plan) skipped_1thread += row.cpu_1thread ? 0 : 1;
  if (skipped_1thread)
    run.notes.push_back(std::to_string(skipped_1thread) + " sizes not measured at one CPU thread: predicted over " + std::to_string(limits.cpu_cap_s) +
                        " s per repetition");
  run.notes.push_back("sizes capped where the all-threads CPU side was predicted over " + std::to_string(limits.cpu_cap_s) +
                      " s per repetition or an input over " + std::to_string(limits.host_bytes_cap / 1e9) + " GB");
  if (skipped_budget) run.notes.push_back(std::to_string(skipped_budget) + " planned sizes not measured: the run's time budget ran out");
  run.wall_s = elapsed();
  return run;
}

}  // namespace perfmodel
