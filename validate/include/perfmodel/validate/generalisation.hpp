#pragma once
// `perfmodel validate --suite generalisation`: measures the generalisation suite (kernels the model
// was never tuned on; perfmodel/kernels/generalisation.hpp) and records it, with provenance, in
//   measurements.csv  kernel,class,half,params,check_error,check_bound,checked_outputs,steady_runs,single_s,steady_s
//                     single_s: every single-launch time (';'-separated; events around one run, L2 flushed before);
//                     steady_s: per run, one per batch of steady_runs back-to-back runs
//   resources.csv     kernel,params,phase_kernel,blocks,threads_per_block,registers,static_shared_bytes,max_threads,occupancy_blocks_per_sm
//   report.md         the measured table (and, where the predictions exist, measured vs predicted)
// The protocol (signatures committed before the first measurement, halves A and B) is in
// docs/generalisation-suite.md.
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/kernels/generalisation.hpp"
#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/validate/analysis.hpp"

namespace perfmodel {

struct GenPoint {
  std::string kernel;
  gen::Params params;
};

// The suite's points in catalogue order, each kernel at each of its sizes (test_sizes: at its
// small test size only). `only`: kernel names or classes; empty = all. Throws InputError naming
// an unknown name.
std::vector<GenPoint> generalisation_plan(const std::vector<std::string>& only, bool test_sizes = false);

struct GenPhaseRecord {
  std::string phase_kernel;
  long long blocks = 0;
  int threads_per_block = 0;
  KernelResources resources;
  int occupancy_blocks_per_sm = 0;
};

struct GenMeasurement {
  std::string kernel, klass;
  char half = 'A';
  gen::Params params;
  double check_error = 0, check_bound = 0;
  std::size_t checked_outputs = 0;
  int steady_runs = 0;
  std::vector<double> single_s, steady_s;
  std::vector<GenPhaseRecord> phases;
  SampleSummary single() const { return summarize(single_s); }
  SampleSummary steady() const { return summarize(steady_s); }
};

struct GenRunRecord {
  Provenance provenance;
  GpuDeviceInfo device;
  double wall_s = 0;
  std::vector<GenMeasurement> measurements;
};

inline constexpr const char* kGenMeasurementsFile = "measurements.csv";
inline constexpr const char* kGenResourcesFile = "resources.csv";

// Writes measurements.csv and resources.csv into dir (created if missing), each atomically.
void write_generalisation_run(const std::string& dir, const GenRunRecord& run);
// Throws InputError "FILE:LINE: column: problem" for anything malformed.
GenRunRecord read_generalisation_run(const std::string& dir);

// Measures the plan on GPU 0 (the GPU half lives in kernels/cuda), one progress line per kernel
// on `progress`. Throws RuntimeFailure when no GPU is usable or this build has no CUDA; a failed
// result check, or an error while running one kernel, is reported in `failures` and its point is
// left out. With a checkpoint_dir, the files are rewritten there after every kernel.
GenRunRecord run_generalisation(const std::vector<GenPoint>& plan, const std::string& command, std::ostream* progress,
                                std::vector<std::string>& failures, const std::string& checkpoint_dir = "");

// ------------------------------------------------------------------ measured vs predicted
// A kernel's prediction from its pre-registered signature (data/workloads/generalisation/<kernel>.yaml,
// workload format 2) at the measured params. A timing the predictor cannot give stays empty (null).
struct GenPrediction {
  std::optional<double> single_s, steady_s;
  std::string bound;
  std::vector<std::string> notes;
};
using GenPredictor = std::function<GenPrediction(const GenMeasurement&)>;

// The format-2 predictor over `workloads_dir` (one <kernel>.yaml per kernel) and the profile's GPU
// section; std::nullopt, with the reason in why_not, when this build has no format-2 reader.
std::optional<GenPredictor> format2_predictor(const Profile& profile, const std::string& workloads_dir, std::string& why_not);

struct GenRow {
  GenMeasurement measurement;
  double measured_single_s = 0, measured_steady_s = 0;  // medians
  double single_spread = 0;                             // (p90 − p10) / median of the single launches
  GenPrediction prediction;
  std::optional<double> error_single, error_steady;     // predicted / measured − 1
};

struct GenAnalysis {
  std::vector<GenRow> rows;
  bool predicted = false;
  std::string not_predicted_because;  // when !predicted
  // |relative error| statistics per timing over all kernels and each half (A, B, C, D, E, F, G, H).
  ErrorStats single_all, single_a, single_b, single_c, single_d, single_e, single_f, single_g, single_h, steady_all, steady_a,
      steady_b, steady_c, steady_d, steady_e, steady_f, steady_g, steady_h;
};

// predictor may be empty (measured table only; `why` says why).
GenAnalysis analyse_generalisation(const GenRunRecord& run, const GenPredictor& predictor, const std::string& why = "");

// report.md and predictions.csv (only with predictions) into dir; returns the files written.
std::vector<std::string> write_generalisation_report(const std::string& dir, const GenRunRecord& run, const GenAnalysis& analysis,
                                                     const std::string& profile_note, const std::string& command);

}  // namespace perfmodel
