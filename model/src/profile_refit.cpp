#include "perfmodel/model/profile_refit.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/stream_calibration.hpp"
#include "perfmodel/model/version.hpp"

namespace perfmodel {

namespace {

// Sizes of `from` not in `into` and above its largest size join it (the stream curve's long copies).
void extend_above(std::vector<SizeTime>& into, const std::vector<SizeTime>& from) {
  const double largest = into.empty() ? 0.0 : into.back().bytes;
  for (const SizeTime& m : from)
    if (m.bytes > largest) into.push_back(m);
}

// A samples file as the profile records it: its name alone (the samples live beside the profile).
std::string file_name_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

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

ProfileRefit refit_profile(const ProfileRefitInputs& in) {
  if (!in.gpu_samples && !in.streams_samples && !in.cpu_samples && !in.pcie_samples)
    throw std::invalid_argument("refit_profile: no samples file to fit");
  if (in.streams_samples && !in.base_profile && !in.gpu_samples)
    throw std::invalid_argument("refit_profile: streams samples need a base profile or GPU samples to merge into");
  if (!in.repeat_pcie_samples.empty() && !in.pcie_samples)
    throw std::invalid_argument("refit_profile: repeat transfer samples need the transfer samples whose curves they widen");
  ProfileRefit result;
  Profile& profile = result.profile;
  std::string base_path;
  if (in.base_profile) {
    base_path = *in.base_profile;
    profile = load_profile(base_path);
  }
  // Samples re-fitted into an existing profile must come from the run that wrote it.
  std::string provenance_from = base_path;  // the file the profile's provenance comes from
  auto take_provenance = [&](const Provenance& samples, const std::string& path) {
    if (!provenance_from.empty()) check_same_run(profile.provenance, provenance_from, samples, path);
    if (!base_path.empty()) {
      const auto ours = profile.provenance.fields();
      const auto theirs = samples.fields();
      for (std::size_t i = 0; i < ours.size(); ++i) {
        const std::string& key = ours[i].first;
        if (key != "device_uuid" && key != "date_utc" && key != "toolkit_commit") continue;
        if (*theirs[i].second != *ours[i].second)
          throw InputError(path + ": " + key + " '" + *theirs[i].second + "' differs from " + base_path + "'s '" + *ours[i].second +
                           "': the samples are from another calibration run");
      }
      return;
    }
    profile.provenance = samples;
    provenance_from = path;
  };
  if (in.gpu_samples) {
    const std::string& path = *in.gpu_samples;
    const GpuSampleFile samples = load_gpu_samples(path);
    take_provenance(samples.provenance, path);
    profile.gpu = fit_gpu_samples(samples, file_name_of(path));
  }
  if (in.streams_samples) {
    const std::string& path = *in.streams_samples;
    const GpuSampleFile samples = load_gpu_samples(path);
    if (!has_stream_samples(samples)) throw InputError(path + ": no streams.* series (run perfmodel calibrate --only gpu.streams)");
    if (!profile.gpu) throw InputError("--streams-samples: the profile has no gpu section to merge gpu.streams into");
    if (samples.provenance.device_name != profile.provenance.device_name)
      throw InputError(path + ": measured on '" + samples.provenance.device_name + "', the profile describes '" +
                       profile.provenance.device_name + "'");
    profile.gpu->streams = fit_streams(samples, file_name_of(path));
  }
  if (in.cpu_samples) {
    const std::string& path = *in.cpu_samples;
    const CpuSampleFile samples = load_cpu_samples(path);
    take_provenance(samples.provenance, path);
    profile.cpu = fit_cpu_samples(samples, file_name_of(path));
  }
  if (in.pcie_samples) {
    const std::string& path = *in.pcie_samples;
    const TransferSampleFile samples = load_transfer_samples(path);
    take_provenance(samples.provenance, path);
    const double wall = profile.pcie ? profile.pcie->calibration_wall_s : 0;  // the transfer samples do not record it
    profile.pcie = fit_pcie(samples.samples, file_name_of(path), in.timer, samples.version == 1);
    profile.pcie->calibration_wall_s = wall;
    profile.pcie->host_buffer = samples.host_buffer;
  }
  for (const std::string& path : in.repeat_pcie_samples) {
    const TransferSampleFile other = load_transfer_samples(path);
    const std::size_t widened = widen_intervals_across_runs(*profile.pcie, other.samples);
    result.notes.push_back("fit: " + path + " widened " + std::to_string(widened) + " transfer regimes' intervals");
  }
  // The measurement's provenance stays the calibration run's; the re-fit is recorded beside it.
  // (A gpu.streams section merged alone carries its own provenance: the profile's is untouched.)
  if (in.pcie_samples || in.gpu_samples || in.cpu_samples)
    profile.provenance.refit = in.command_line + " (toolkit " + toolkit_version() + ", commit " + toolkit_commit() + ", " +
                               utc_now_iso8601() + ")";
  // The fitted profile is read back with the reader every command uses before it is written: samples
  // that fit into values the reader refuses (logical_cpus: 0, no model at all) are bad input.
  try {
    static_cast<void>(parse_profile(profile_to_yaml(profile), in.output_path));
  } catch (const InputError& e) {
    throw InputError(std::string("fit: the samples give a profile perfmodel cannot use, so nothing is written: ") + e.what());
  }
  return result;
}

}  // namespace perfmodel
