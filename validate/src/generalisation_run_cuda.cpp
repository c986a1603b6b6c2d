// The GPU half of `perfmodel validate --suite generalisation`: runs the plan through the
// generalisation runner, one progress line per point.
#include <chrono>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/kernels/generalisation_runs.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel {

GenRunRecord run_generalisation(const std::vector<GenPoint>& plan, const std::string& command, std::ostream* progress,
                                std::vector<std::string>& failures, const std::string& checkpoint_dir) {
  if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure("cannot validate on a GPU: " + *why);
  const auto t0 = std::chrono::steady_clock::now();
  GenRunRecord run;
  run.provenance = host_provenance(command);
  fill_device_provenance(run.provenance);
  run.device = query_gpu_device();
  if (progress)
    *progress << "perfmodel validate --suite generalisation: " << plan.size() << " kernel sizes on " << run.provenance.device_name << "\n";
  gpu::GeneralisationRunner runner;
  const gpu::GenSettings settings;
  std::size_t index = 0;
  for (const GenPoint& point : plan) {
    ++index;
    const auto p0 = std::chrono::steady_clock::now();
    const std::string label = point.kernel + " " + gen::params_string(point.params);
    gpu::GenResult r;
    try {
      r = runner.measure(point.kernel, point.params, settings);
    } catch (const std::runtime_error& e) {
      // One kernel's failure (a launch the GPU refuses, a CUDA error) costs that kernel only: the
      // others are still measured and recorded (after a sticky CUDA error they fail the same way).
      failures.push_back(label + ": " + e.what());
      if (progress) *progress << "  [" << index << "/" << plan.size() << "] " << label << ": FAILED: " << e.what() << "\n";
      continue;
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
    std::ostringstream check;
    check.precision(3);
    check << r.check_error << " <= " << r.check_bound << " over " << r.checked_outputs << " outputs";
    if (!r.passed()) {
      failures.push_back(label + ": result check failed: " + r.check_what + ": error " + check.str());
      if (progress) *progress << "  [" << index << "/" << plan.size() << "] " << label << ": CHECK FAILED (" << check.str() << ")\n";
      continue;
    }
    const gen::KernelEntry& e = gen::kernel_entry(point.kernel);
    GenMeasurement m;
    m.kernel = point.kernel;
    m.klass = e.klass;
    m.half = e.half;
    m.params = point.params;
    m.check_error = r.check_error;
    m.check_bound = r.check_bound;
    m.checked_outputs = r.checked_outputs;
    m.steady_runs = r.steady_runs;
    m.single_s = r.single_s;
    m.steady_s = r.steady_s;
    for (const gpu::GenPhase& ph : r.phases)
      m.phases.push_back({ph.kernel, ph.blocks, ph.threads_per_block, ph.resources, ph.occupancy_blocks_per_sm});
    if (progress) {
      const SampleSummary s = m.single(), st = m.steady();
      *progress << "  [" << index << "/" << plan.size() << "] " << label << ": single " << format_seconds(s.median) << " (p10 "
                << format_seconds(s.p10) << ", p90 " << format_seconds(s.p90) << "), steady " << format_seconds(st.median) << " ("
                << m.steady_runs << " runs x " << st.count << "); check " << check.str() << "; " << format_seconds(took) << "\n";
    }
    run.measurements.push_back(std::move(m));
    if (!checkpoint_dir.empty()) {  // what is measured so far survives an interrupted run
      run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      write_generalisation_run(checkpoint_dir, run);
    }
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace perfmodel
