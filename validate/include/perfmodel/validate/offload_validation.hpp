#pragma once
// `perfmodel validate --only offload`: the offload advisor against the real thing. For every
// built-in CPU/GPU pair (CG at 1, 8 and 64 iterations) it times, as a user would, the offloaded
// operation on the GPU (host clock around copies in, kernels, copies out, synchronize; pinned and
// pageable host memory) and the CPU reference kernel (one thread and all threads), at sizes
// chosen around the crossover the profile predicts — planned before anything is measured and
// written first (offload_plan.csv) — and reports decision accuracy, speedup error and crossover
// position error. Files of a run (DIR):
//   offload_plan.csv          case,kernel,iterations,n,predicted_cpu_s,predicted_cpu_1thread_s,predicted_gpu_pinned_s,
//                             predicted_gpu_pageable_s,predicted_crossover_n,verdict,cpu_1thread_planned
//   offload_measurements.csv  kernel,iterations,n,path,memory,threads,check_error,check_bound,seconds,note
//                             (path cpu|gpu; memory pinned|pageable for gpu, empty for cpu; seconds ';'-separated)
//   offload_predictions.csv, offload_crossovers.csv, report.md   derived (re-made by --from DIR)
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/offload.hpp"

namespace perfmodel {

struct OffloadCase {
  std::string kernel;  // cpu kernel name
  int iterations = 0;  // cg only (0 elsewhere)
  std::string label() const;  // "cg/8" or "mv"
};

struct OffloadPlanRow {
  OffloadCase c;
  int n = 0;
  double predicted_cpu_s = 0, predicted_cpu_1thread_s = 0, predicted_gpu_pinned_s = 0, predicted_gpu_pageable_s = 0;
  std::optional<double> predicted_crossover_n;  // the case's (pinned, all threads)
  std::string verdict;
  bool cpu_1thread = true;  // false: skipped (predicted over the per-repetition cap)
};

struct OffloadPlanLimits {
  double cpu_cap_s = 0.5;       // skip a CPU measurement predicted to take longer per repetition
  double host_bytes_cap = 1.1e9;  // largest input of one side (bytes)
  int sizes = 8;
  // Held-out plan: the log-midpoints between the sizes the default plan picks (same span, one
  // size fewer per case, none of the default's), so a change tuned on a default run is judged
  // on sizes it never saw (`perfmodel validate --only offload --plan holdout`).
  bool holdout = false;
};

// The cases: mv, mm, dot, cg/1, cg/8, cg/64, cholesky, conv2d, blur, cosine.
std::vector<OffloadCase> offload_cases();
// Sizes per case around the predicted crossover (pinned copies, all threads), from `profile`;
// `resources`: the compiled kernels' registers and shared memory (a recorded validation run's).
std::vector<OffloadPlanRow> offload_plan(const Profile& profile, const OffloadPlanLimits& limits = {}, const ResourceTable& resources = {});

struct OffloadMeasurement {
  OffloadCase c;
  int n = 0;
  std::string path;    // "cpu" | "gpu"
  std::string memory;  // gpu: "pinned" | "pageable"
  int threads = 0;     // cpu
  double check_error = 0, check_bound = 0;
  std::vector<double> seconds;
  std::string note;
  double median() const;
};

struct OffloadRun {
  Provenance provenance;
  double wall_s = 0;
  int cpu_threads = 0;
  std::vector<OffloadPlanRow> plan;
  std::vector<OffloadMeasurement> measurements;
  std::vector<std::string> notes;  // what was skipped and why
};

void write_offload_plan(const std::string& dir, const std::vector<OffloadPlanRow>& plan, const Provenance& provenance);
void write_offload_run(const std::string& dir, const OffloadRun& run);
// Throws InputError "FILE:LINE: column: problem".
OffloadRun read_offload_run(const std::string& dir);
bool is_offload_run(const std::string& dir);  // DIR holds offload_measurements.csv

// Measures the plan on GPU 0 (CUDA builds). Throws RuntimeFailure without a GPU. Writes the plan
// into out_dir before measuring. Failed result checks go to `failures` (their times are not kept).
OffloadRun run_offload_validation(const Profile& profile, const ResourceTable& resources, const std::string& out_dir, const std::string& command, std::ostream* progress,
                                  std::vector<std::string>& failures, double budget_s = 170,
                                  const OffloadPlanLimits& limits = {});

// ----------------------------------------------------------------------------- error levels
// The levels the advisor's interval uses, each with where it comes from (predictors/offload.hpp):
// the GPU model's p90 |error| on a recorded validation run's runs of `gpu_kernel` (all runs when
// empty), the CPU model's largest held-out |error| (cpu.kernels.K.holdout), the copy curves'
// largest held-out |error|.
void offload_gpu_error_level(const Profile& gpu, const ValidationRun& run, const std::string& gpu_kernel, OffloadErrorLevels& e);
void offload_cpu_error_level(const Profile& cpu, const CpuSide& side, const CpuSideTime& t, OffloadErrorLevels& e);
void offload_copy_error_level(const Profile& gpu, const std::vector<Transfer>& copies, OffloadErrorLevels& e);

// ----------------------------------------------------------------------------- analysis
struct OffloadPointAnalysis {
  OffloadCase c;
  int n = 0;
  std::string memory;  // of the GPU copies
  int threads = 0;     // CPU threads
  double measured_cpu_s = 0, measured_gpu_s = 0, predicted_cpu_s = 0, predicted_gpu_s = 0;
  double measured_speedup = 0, predicted_speedup = 0, speedup_error = 0;  // predicted / measured − 1
  bool close = false;    // the two measured times within 5 % of each other: no decision counted
  bool correct = false;  // the predicted decision is the measured one
  // The advisor's interval (when the analysis had a recorded GPU validation run for the levels).
  std::optional<double> speedup_low, speedup_high;
  bool inside_interval = false;
};

// A crossover over measured sizes is the final crossing: the size from which one side wins to the
// end of the range (the advisor's `crossover_n`, CrossoverResult::gpu_from_n, when the GPU wins
// above it). An earlier crossing where the speedup touches 1 and turns back (cg at 8 iterations:
// 1.02 predicted at n = 512, 0.74–0.86 measured up to 1728, 1.76 from 2560) is not a crossover
// a user acts on. Measured: log speedup interpolated linearly in log n between the bracketing
// sizes.
//
// Its uncertainty: the measured speedups carry run-to-run noise; within `band` (5 %: the margin
// under which the decision is not counted) the crossing is not resolved. The interval is the final
// crossing with every measured speedup `band` higher (low end) and `band` lower (high end); where
// the shifted series does not cross, the range's end (a crossing at or beyond the measured sizes).
// A flat speedup gives a wide interval: cosine's measured speedup (all threads, pinned, GPU
// a07c6e1d, 2026-11-27) is 0.92–1.21 from n = 52 to 558, and its crossover lies anywhere in
// [58, 603].
struct MeasuredCrossing {
  std::optional<double> n;  // absent: no crossing of the measured speedups themselves
  std::string wins_above;
  std::string side;              // the side winning above the crossing or its noise ("" with no interval)
  double low_n = 0, high_n = 0;  // the interval (0, 0: no series crosses)
};
MeasuredCrossing measured_crossing(const std::vector<std::pair<double, double>>& n_speedup, double band = 0.05);

struct OffloadCrossoverCheck {
  OffloadCase c;
  std::string memory;
  int threads = 0;
  std::optional<double> measured_n, predicted_n;  // final crossing over the measured sizes (above)
  std::string measured_wins_above, predicted_wins_above;
  std::optional<double> error;                    // predicted / measured − 1
  // The measured crossing's uncertainty interval (MeasuredCrossing; absent where neither the
  // measured speedups nor the shifted ones cross), and whether the predicted crossing (same side
  // winning above) lies in it.
  std::optional<double> measured_low_n, measured_high_n;
  bool predicted_inside_measured = false;
};

struct OffloadAnalysis {
  std::vector<OffloadPointAnalysis> points;
  std::vector<OffloadCrossoverCheck> crossovers;
  // Over the all-threads comparisons (the advisor's default), and separately at one thread.
  struct Summary {
    std::size_t cases = 0, decided = 0, close = 0, correct = 0;
    double accuracy = 0;
    double speedup_median = 0, speedup_p90 = 0;  // of |error|
    std::size_t crossovers_compared = 0, crossovers_within_25 = 0;
    // within ±25 % of the measured crossing, or inside its uncertainty interval
    std::size_t crossovers_within_25_or_noise = 0;
    std::size_t with_interval = 0, inside_interval = 0;  // measured speedups inside the predicted interval
  };
  Summary all_threads, one_thread;
  std::vector<std::string> notes;
};

// Predicts every measured point from the two profiles (CPU side from cpu_profile, GPU side from
// gpu_profile); with `gpu_run` (a recorded GPU validation run), its compiled resources and the
// advisor's interval.
OffloadAnalysis analyse_offload(const OffloadRun& run, const Profile& cpu_profile, const Profile& gpu_profile,
                                const ValidationRun* gpu_run = nullptr, const OffloadRun* cpu_reference = nullptr);

// The CPU model's spread on a recorded offload run: per (kernel, one thread or several) the p90
// over the measured sizes of max(p/m, m/p) − 1 (cg: all iteration counts together), with the
// count. The interval's CPU level (offload.hpp). analyse_offload takes it from `cpu_reference`,
// else from the run itself (then in-sample).
struct OffloadCpuSpread {
  struct Level {
    double p90 = 0;
    std::size_t sizes = 0;
  };
  std::map<std::pair<std::string, bool>, Level> levels;  // (kernel, one thread)
  std::string from;                                      // device, date
};
// gpu_profile only completes the prediction (its CPU term does not depend on it).
OffloadCpuSpread offload_cpu_spread(const OffloadRun& run, const Profile& cpu_profile, const Profile& gpu_profile,
                                    const ResourceTable& resources = {});
// Sets e.cpu from the spread where it has the kernel at that thread class; false where not.
bool offload_cpu_error_level(const OffloadCpuSpread& spread, const std::string& kernel, double threads, OffloadErrorLevels& e);
// offload_predictions.csv, offload_crossovers.csv, report.md into dir.
void write_offload_analysis(const std::string& dir, const OffloadRun& run, const OffloadAnalysis& analysis, const std::string& profile_note);

}  // namespace perfmodel
