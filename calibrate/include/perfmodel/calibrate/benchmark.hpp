#pragma once
// Microbenchmark interface and registry.
//
// A Benchmark says *what* is measured (a stable key such as "pcie.h2d.pinned", a description,
// whether it can run on this machine) and measures it into a CalibrationData. *How* a time is
// taken is the timing engine's job (cuda/event_timer.cuh), shared by all benchmarks.
// Selection: `--only pcie` picks every key equal to "pcie" or starting with "pcie.".
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/calibrate/pcie_sizes.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/transfer_samples.hpp"

namespace perfmodel {

struct CalibrationOptions {
  bool quick = false;              // fewer repetitions; for smoke runs, not for bundled profiles
  double pcie_effort = 1;          // the PCIe curves' samples per size, times this (PcieRoundPlan::scaled)
  PcieHostBuffer pcie_host_buffer = PcieHostBuffer::rotating;  // which host bytes each PCIe copy uses
  std::ostream* progress = nullptr;  // human progress lines (stderr in the CLI); may be null
};

// Everything the benchmarks measured in one run: raw samples, kept whole.
struct CalibrationData {
  Provenance provenance;
  std::vector<TransferSample> transfer_samples;
  double pcie_wall_s = 0;
  std::vector<BenchmarkSample> gpu_samples;
  GpuDeviceInfo gpu_device;  // filled by the first GPU microbenchmark that runs
  double gpu_wall_s = 0;
  std::vector<BenchmarkSample> cpu_samples;
  CpuInfo cpu_info;          // filled by the first CPU benchmark that runs
  double cpu_wall_s = 0;
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  virtual std::string key() const = 0;
  virtual std::string description() const = 0;
  // std::nullopt when it can run here; otherwise why not (it is then skipped, not failed).
  virtual std::optional<std::string> unavailable_reason() const = 0;
  // Throws RuntimeFailure on a CUDA error or a result that fails verification.
  virtual void run(const CalibrationOptions& options, CalibrationData& data) = 0;
  // About how many seconds run() takes on the machines the project measured (for the progress
  // line's estimate of the time left; not a limit). The default is a typical GPU
  // microbenchmark's (the GPU section, ~20 of them, took 11 s on the H100 host).
  virtual double expected_seconds(const CalibrationOptions& options) const { return options.quick ? 0.25 : 0.6; }
};

class BenchmarkRegistry {
 public:
  void add(std::unique_ptr<Benchmark> benchmark);  // keys must be unique
  const std::vector<std::unique_ptr<Benchmark>>& all() const { return benchmarks_; }
  // Benchmarks whose key equals a pattern or extends it by ".…"; all of them for no pattern.
  // Throws InputError naming a pattern that matches nothing.
  std::vector<Benchmark*> select(const std::vector<std::string>& patterns) const;

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;
};

// The registry with every benchmark this build has (GPU ones only in CUDA builds; CPU ones always).
BenchmarkRegistry make_default_registry();

// Adds the GPU microbenchmarks; a no-op in builds without CUDA.
void register_gpu_benchmarks(BenchmarkRegistry& registry);

// The keys of the GPU and PCIe benchmarks, known in every build: a build without CUDA tells a key
// it cannot measure (a runtime failure, exit 2) from one that exists in no build (bad input,
// exit 1), as a CUDA build does. A test checks the list against the CUDA build's registry.
const std::vector<std::string>& gpu_benchmark_keys();
// Whether an --only pattern (a key or a key prefix) names one of them.
bool names_gpu_benchmark(const std::string& pattern);

}  // namespace perfmodel
