#include "perfmodel/calibrate/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <set>
#include <stdexcept>

#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

namespace {

// Sizes of `from` not in `into` and above its largest size join it (the stream curve's long copies).
void extend_above(std::vector<SizeTime>& into, const std::vector<SizeTime>& from) {
  const double largest = into.empty() ? 0.0 : into.back().bytes;
  for (const SizeTime& m : from)
    if (m.bytes > largest) into.push_back(m);
}

}  // namespace

PcieCalibration fit_pcie(const std::vector<TransferSample>& samples, const std::string& samples_file, TimerSource timer,
                         bool batched) {
  PcieCalibration pcie;
  pcie.samples_file = samples_file;
  pcie.timer = timer == TimerSource::event ? "cuda_events" : "host_clock";
  std::set<TransferKey> keys;
  for (const TransferSample& s : samples) keys.insert(s.key);
  // Samples without a single copy are v1's batched measurement, whoever read them.
  batched = batched || std::none_of(samples.begin(), samples.end(), [](const TransferSample& s) { return s.mode == TransferMode::single; });
  for (const TransferKey& key : keys) {
    try {
      if (batched) {  // samples v1: one measurement serves both modes
        TransferCurve c = fit_transfer_curve(typical_times_by_size(samples, key, SizeSet::fit, timer),
                                             typical_times_by_size(samples, key, SizeSet::holdout, timer));
        c.timing = "batched";
        pcie.curves[key] = c;
        pcie.stream_curves[key] = c;
        continue;
      }
      // single: the single copies alone. stream: the queued copies, and above the largest of
      // them the single copies (a copy there lasts milliseconds; the modes' fixed costs differ by
      // microseconds, docs/transfers.md).
      const auto single = typical_times_by_size(samples, key, SizeSet::fit, timer, TransferMode::single);
      const auto single_holdout = typical_times_by_size(samples, key, SizeSet::holdout, timer, TransferMode::single);
      auto stream = typical_times_by_size(samples, key, SizeSet::fit, timer, TransferMode::stream);
      auto stream_holdout = typical_times_by_size(samples, key, SizeSet::holdout, timer, TransferMode::stream);
      if (!single.empty()) {
        pcie.curves[key] = fit_transfer_curve(single, single_holdout);
        pcie.curves[key].timing = "single";
        // Copies issued among others (pcie.mixed), where the run has them: the single curve's
        // fixed cost and interval as a program meets them (apply_mixed_copies).
        const auto mixed = typical_times_by_size(samples, key, SizeSet::mixed, timer, TransferMode::single);
        if (!mixed.empty()) apply_mixed_copies(pcie.curves[key], single, mixed);
      }
      if (!stream.empty()) {
        extend_above(stream, single);
        extend_above(stream_holdout, single_holdout);
        pcie.stream_curves[key] = fit_transfer_curve(stream, stream_holdout);
        pcie.stream_curves[key].timing = "stream";
      }
    } catch (const std::invalid_argument& e) {
      throw InputError(samples_file + ": " + key.name() + ": cannot fit: " + e.what());
    }
  }
  if (pcie.curves.empty() && pcie.stream_curves.empty()) throw InputError(samples_file + ": no transfer samples to fit");
  return pcie;
}

std::size_t widen_intervals_across_runs(PcieCalibration& pcie, const std::vector<TransferSample>& other_run) {
  const bool batched =
      std::none_of(other_run.begin(), other_run.end(), [](const TransferSample& s) { return s.mode == TransferMode::single; });
  std::size_t widened = 0;
  for (TransferMode mode : {TransferMode::single, TransferMode::stream})
    for (auto& [key, curve] : mode == TransferMode::single ? pcie.curves : pcie.stream_curves) {
      const std::optional<TransferMode> which = batched ? std::nullopt : std::optional<TransferMode>(mode);
      std::vector<SizeTime> other = typical_times_by_size(other_run, key, SizeSet::fit, TimerSource::event, which);
      for (SizeTime& m : typical_times_by_size(other_run, key, SizeSet::holdout, TimerSource::event, which)) other.push_back(std::move(m));
      if (mode == TransferMode::single)  // the other run's copies issued among others: the same quantity
        for (SizeTime& m : typical_times_by_size(other_run, key, SizeSet::mixed, TimerSource::event, which)) other.push_back(std::move(m));
      for (TransferSegment& seg : curve.segments) {
        const auto [low, high] = observed_interval(other, curve, seg.from_bytes, seg.to_bytes);
        if (!(low > 0) || !seg.has_interval()) continue;
        if (low < seg.interval_low || high > seg.interval_high) ++widened;
        seg.interval_low = std::min(seg.interval_low, low);
        seg.interval_high = std::max(seg.interval_high, high);
      }
    }
  return widened;
}

std::string samples_file_name_for(const std::string& profile_path, const std::string& kind) {
  std::string name = profile_path.substr(profile_path.find_last_of('/') + 1);
  const auto dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  return name + "." + kind + "_samples.csv";
}

CpuCalibration fit_cpu_samples(const CpuSampleFile& samples, const std::string& samples_file) {
  try {
    return fit_cpu(samples, samples_file);
  } catch (const std::invalid_argument& e) {
    throw InputError(samples_file + ": cannot fit: " + e.what());
  }
}

GpuCalibration fit_gpu_samples(const GpuSampleFile& samples, const std::string& samples_file) {
  try {
    return fit_gpu(samples, samples_file);
  } catch (const std::invalid_argument& e) {
    throw InputError(samples_file + ": cannot fit: " + e.what());
  } catch (const std::out_of_range& e) {
    throw InputError(samples_file + ": " + e.what());
  }
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
