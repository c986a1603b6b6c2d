// The inputs of the calibration plots, loaded and checked the same way by `perfmodel plot …` and
// `perfmodel report`: errors name the profile or the samples file.
#include <optional>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/report/gnuplot.hpp"

namespace perfmodel::cli {

std::optional<std::string> optional_value(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? std::optional<std::string>(vm[name].as<std::string>()) : std::nullopt;
}

GpuSampleFile microbench_inputs(const LoadedProfile& loaded, const std::optional<std::string>& samples_given) {
  const GpuCalibration& gpu = loaded.gpu();
  const std::string samples_path = samples_given ? *samples_given : directory_of(loaded.path) + "/" + gpu.samples_file;
  GpuSampleFile samples = load_gpu_samples(samples_path);
  if (!samples_given) check_same_run(loaded.profile.provenance, loaded.path, samples.provenance, samples_path);
  if (!gpu.dram_concurrency || gpu.bank_conflicts.empty() || !gpu.partition || !gpu.latency)
    throw InputError(loaded.path + ": the gpu section lacks the concurrency, bank-conflict, partition or latency results to plot");
  return samples;
}

TransferSampleFile transfer_plot_inputs(const LoadedProfile& loaded, const std::optional<std::string>& samples_given) {
  const PcieCalibration& pcie = loaded.pcie();
  const std::string samples_path = samples_given ? *samples_given : directory_of(loaded.path) + "/" + pcie.samples_file;
  TransferSampleFile samples = load_transfer_samples(samples_path);
  if (!samples_given) check_same_run(loaded.profile.provenance, loaded.path, samples.provenance, samples_path);
  return samples;
}

const CpuCalibration& cpu_plot_inputs(const LoadedProfile& loaded) {
  const CpuCalibration& cpu = loaded.cpu();
  if (cpu.bandwidth.empty()) throw InputError(loaded.path + ": the cpu section has no bandwidth curves to plot");
  return cpu;
}

}  // namespace perfmodel::cli
