// perfmodel_bench_predict [PROFILE] [RESOURCES_DIR]: how fast the GPU predictor runs — the
// issue's target is a single prediction in microseconds (≥ 10^6 predictions per second).
// For every reference kernel at its default launch, n = 4096 (dot, cosine: 2^24), it times
// (a) predict_gpu on an already described workload and (b) describe + predict from scratch,
// 5 repetitions of ≥ 0.2 s each, and prints the median rate and the spread.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

using namespace perfmodel;

namespace {

template <class Body>
SampleSummary rate_of(Body&& body) {
  std::vector<double> rates;
  volatile double sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    std::size_t calls = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < 0.2) {
      for (int i = 0; i < 256; ++i) sink = sink + body();
      calls += 256;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    rates.push_back(static_cast<double>(calls) / elapsed);
  }
  return summarize(rates);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string data = PERFMODEL_BENCH_DATA_DIR;
  const std::string profile_path = argc > 1 ? argv[1] : data + "/profiles/nvidia-h100-80gb-hbm3.yaml";
  const std::string run_dir = argc > 2 ? argv[2] : data + "/validation/nvidia-h100-80gb-hbm3";
  const Profile profile = load_profile(profile_path);
  const GpuCalibration& gpu = profile.require_gpu();
  const ResourceTable resources = read_validation_run(run_dir).resource_table();
  std::printf("%-16s %8s %22s %22s\n", "kernel", "phases", "predict (1/s, spread)", "describe+predict (1/s)");
  for (const GpuKernelSpec& spec : gpu_kernel_specs()) {
    const double n = spec.family == "dot" || spec.family == "cosine" ? 1 << 24 : 4096;
    if (n > spec.max_n) continue;
    const KernelConfig c = default_config(spec, n);
    const GpuWorkload w = describe_gpu_kernel(spec.name, n, c, resources, gpu.device.l2_cache_bytes);
    const SampleSummary p = rate_of([&] { return predict_gpu(gpu, w).seconds; });
    const SampleSummary d = rate_of([&] {
      return predict_gpu(gpu, describe_gpu_kernel(spec.name, n, c, resources, gpu.device.l2_cache_bytes)).seconds;
    });
    std::printf("%-16s %8zu %12.3g (%4.1f%%) %15.3g (%4.1f%%)\n", spec.name.c_str(), w.phases.size(), p.median,
                100 * p.relative_spread(), d.median, 100 * d.relative_spread());
  }
  return 0;
}
