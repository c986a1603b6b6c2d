#pragma once
// From raw samples to a profile: the fit of each section from its samples (`perfmodel calibrate`
// fits what it has just measured with these), and the re-fit of a profile from its calibration
// run's recorded samples (`perfmodel fit`, no GPU needed). Pure C++: the models' fits themselves
// are transfer_model.hpp's, gpu_fit.hpp's, cpu_fit.hpp's and stream_calibration.hpp's.
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_samples.hpp"

namespace perfmodel {

// Fits every transfer curve present in the samples (fit set), one per mode measured (the stream
// curve takes the single copies above its largest queued size), and reports held-out error where
// the samples have a holdout set. `batched`: samples of file format v1, whose one measurement
// serves both modes (timing "batched"). `samples_file` is recorded in the profile as given
// (relative to the profile's folder). A curve that cannot be fitted, or no curve at all: InputError
// naming `samples_file`.
PcieCalibration fit_pcie(const std::vector<TransferSample>& samples, const std::string& samples_file,
                         TimerSource timer = TimerSource::event, bool batched = false);

// Widens every curve's intervals to cover another calibration run of the same machine too (the
// 5-95 % band of that run's copies around this run's curve, regime by regime; its samples of
// the curve's mode, all sizes). The spread between runs minutes apart is larger than within one
// (docs/transfers.md). Returns how many segments widened.
std::size_t widen_intervals_across_runs(PcieCalibration& pcie, const std::vector<TransferSample>& other_run);

// The `gpu` section from raw GPU samples; a sample set that cannot be fitted is an InputError
// naming the file.
GpuCalibration fit_gpu_samples(const GpuSampleFile& samples, const std::string& samples_file);

// The `cpu` section from raw CPU samples (InputError naming the file when it cannot be fitted).
CpuCalibration fit_cpu_samples(const CpuSampleFile& samples, const std::string& samples_file);

// What `perfmodel fit` re-fits: samples files written by `perfmodel calibrate`, each optional, and
// the profile they go into. Each fitted section records its samples file by its name alone (the
// samples live beside the profile).
struct ProfileRefitInputs {
  // Start from this profile: the sections re-fitted replace its own, the others are kept. Its
  // samples must come from the calibration run that wrote it. Without it the profile holds only
  // the sections fitted, and takes the provenance of the first samples file read.
  std::optional<std::string> base_profile;
  std::optional<std::string> gpu_samples;      // NAME.gpu_samples.csv → the gpu section
  // GPU samples with the gpu.streams series, maybe of another day on the same GPU model: fitted
  // into gpu.streams of the base profile (or of gpu_samples' section), which keeps everything
  // else; the section records its own provenance.
  std::optional<std::string> streams_samples;
  std::optional<std::string> cpu_samples;      // NAME.cpu_samples.csv → the cpu section
  std::optional<std::string> pcie_samples;     // NAME.pcie_samples.csv → the pcie section
  // Transfer samples of other calibration runs of the same machine: the pcie curves' intervals
  // widen to cover their copies too (widen_intervals_across_runs). Needs pcie_samples.
  std::vector<std::string> repeat_pcie_samples;
  TimerSource timer = TimerSource::event;      // which timing of the transfer samples is fitted
  std::string command_line;                    // recorded in provenance.refit
  std::string output_path;                     // where the profile will be written (named in errors)
};

struct ProfileRefit {
  Profile profile;                 // checked: the profile reader accepts it as written
  std::vector<std::string> notes;  // one line each for the user, e.g. "fit: R.csv widened 3 transfer regimes' intervals"
};

// Loads the inputs, checks that samples re-fitted into a profile come from the run that wrote it
// (run_id, else device_uuid, date_utc and toolkit_commit), fits the sections given and merges
// them: the pcie section keeps the base profile's calibration_wall_s (the transfer samples do not
// record it) and takes the samples' host_buffer. The measurement's provenance stays the
// calibration run's; a re-fit of gpu, cpu or pcie is recorded beside it as provenance.refit
// (command line, toolkit version and commit, date). The result is read back with the reader every
// command uses, so samples that fit into values it refuses are bad input.
// Throws InputError naming the file (or, for a streams merge without a gpu section,
// --streams-samples), nothing written. Preconditions (std::invalid_argument otherwise): at least
// one samples file; streams_samples only with base_profile or gpu_samples; repeat_pcie_samples
// only with pcie_samples.
ProfileRefit refit_profile(const ProfileRefitInputs& inputs);

}  // namespace perfmodel
