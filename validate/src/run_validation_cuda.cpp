// The GPU half of `perfmodel validate`: runs the plan through the reference-kernel runner.
#include <chrono>
#include <map>
#include <ostream>
#include <sstream>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/gpu_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/plan.hpp"

namespace perfmodel {
namespace {
std::string sci(double v) { return format_number(v); }
}  // namespace

ValidationRun run_validation(const ValidationOptions& options, const std::string& command, std::ostream* progress,
                             std::vector<std::string>& failures) {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure("cannot validate on a GPU: " + *why);
  const auto t0 = std::chrono::steady_clock::now();
  ValidationRun run;
  run.quick = options.quick;
  run.provenance = host_provenance(command);
  fill_device_provenance(run.provenance);
  run.device = query_gpu_device();
  const std::vector<ValidationPoint> plan = validation_plan(options);
  if (progress) *progress << "perfmodel validate: " << plan.size() << " runs on " << run.provenance.device_name << "\n";
  gpu::ReferenceRunner runner;
  std::map<std::string, bool> recorded;
  auto keep_resources = [&](const std::vector<gpu::PhaseInfo>& phases) {
    for (const gpu::PhaseInfo& p : phases) {
      const std::string key = p.kernel + "@" + std::to_string(p.threads_per_block);
      if (recorded[key]) continue;
      recorded[key] = true;
      run.resources.push_back({p.kernel, p.threads_per_block, p.resources, p.occupancy_blocks_per_sm});
    }
  };
  const gpu::MeasureSettings settings;
  std::size_t index = 0;
  for (const ValidationPoint& point : plan) {
    ++index;
    const gpu::PointResult r = runner.measure(point.kernel, point.n, point.config, settings);
    keep_resources(r.phases);
    const std::string label = point.kernel + " n=" + std::to_string(point.n) + " " + to_string(point.config, gpu_kernel_spec(point.kernel));
    if (!r.passed()) {
      failures.push_back(label + ": result check failed: " + r.check_what + " = " + sci(r.check_error) +
                         " > bound " + sci(r.check_bound));
      if (progress) *progress << "  [" << index << "/" << plan.size() << "] " << label << ": CHECK FAILED\n";
      continue;
    }
    KernelMeasurement m{point.kernel, point.n, point.config, r.check_error, r.check_bound, r.seconds};
    if (progress) {
      const SampleSummary s = m.summary();
      *progress << "  [" << index << "/" << plan.size() << "] " << label << ": " << format_seconds(s.median) << " (p10 "
                << format_seconds(s.p10) << ", p90 " << format_seconds(s.p90) << ", " << s.count << " reps; check "
                << sci(r.check_error) << " <= " << sci(r.check_bound) << ")\n";
    }
    run.measurements.push_back(std::move(m));
  }
  // Every compiled configuration's resources, also those the plan did not run (the tuner needs them).
  for (const gpu::PhaseInfo& p : runner.all_resources()) keep_resources({p});
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace perfmodel
