#include "perfmodel/validate/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {

ErrorStats error_stats(const std::vector<double>& abs_errors) {
  ErrorStats s;
  s.count = abs_errors.size();
  if (abs_errors.empty()) return s;
  const SampleSummary sum = summarize(abs_errors);
  s.mean = sum.mean, s.median = sum.median, s.p90 = sum.p90, s.max = sum.max;
  return s;
}

ValidationAnalysis analyse_validation(const ValidationRun& run, const Profile& profile) {
  if (!profile.gpu) throw InputError("the profile has no gpu section: cannot predict GPU kernel times");
  const GpuCalibration& gpu = *profile.gpu;
  const ResourceTable resources = run.resource_table();
  ValidationAnalysis a;
  std::set<std::string> missing;
  std::map<std::string, std::vector<double>> by_kernel;
  std::vector<double> all;
  for (const KernelMeasurement& m : run.measurements) {
    PointAnalysis p;
    p.measurement = m;
    const SampleSummary s = m.summary();
    p.measured_s = s.median;
    p.spread = s.median > 0 ? (s.p90 - s.p10) / s.median : 0;
    std::vector<std::string> miss;
    const GpuWorkload w = describe_gpu_kernel(m.kernel, m.n, m.config, resources, gpu.device.l2_cache_bytes, &miss);
    missing.insert(miss.begin(), miss.end());
    p.prediction = predict_gpu(gpu, w, dirty_l2_where_measured(gpu));  // the runner flushes L2 by a memset before each run
    p.flops = w.flops;
    p.algorithmic_bytes = w.algorithmic_bytes;
    p.error = p.prediction.seconds / p.measured_s - 1;
    const GpuKernelSpec& spec = gpu_kernel_spec(m.kernel);
    p.default_config = default_config(spec, m.n) == m.config;
    by_kernel[m.kernel].push_back(std::abs(p.error));
    all.push_back(std::abs(p.error));
    a.points.push_back(std::move(p));
  }
  for (const auto& [kernel, errors] : by_kernel) a.per_kernel[kernel] = error_stats(errors);
  a.overall = error_stats(all);
  a.missing_resources.assign(missing.begin(), missing.end());

  // Sweeps: every (kernel, n) measured at more than two configurations.
  std::map<std::pair<std::string, int>, std::vector<const PointAnalysis*>> sweeps;
  for (const PointAnalysis& p : a.points) sweeps[{p.measurement.kernel, p.measurement.n}].push_back(&p);
  double loss_sum = 0;
  for (const auto& [key, points] : sweeps) {
    if (points.size() < 3) continue;
    TunerCheck t;
    t.kernel = key.first;
    t.n = key.second;
    t.configs = points.size();
    const auto best_measured = *std::min_element(points.begin(), points.end(), [](auto x, auto y) { return x->measured_s < y->measured_s; });
    const auto best_predicted = *std::min_element(points.begin(), points.end(), [](auto x, auto y) {
      return x->prediction.seconds < y->prediction.seconds;
    });
    t.measured_best = best_measured->measurement.config;
    t.measured_best_s = best_measured->measured_s;
    t.predicted_best = best_predicted->measurement.config;
    t.predicted_best_measured_s = best_predicted->measured_s;
    t.loss = t.predicted_best_measured_s / t.measured_best_s - 1;
    loss_sum += t.loss;
    a.tuner.push_back(t);
  }
  if (!a.tuner.empty()) a.tuner_mean_loss = loss_sum / static_cast<double>(a.tuner.size());
  return a;
}

}  // namespace perfmodel
