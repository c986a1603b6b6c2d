#pragma once
// The task farm's outputs: `perfmodel predict farm` (the pipeline's stages and one row per stream
// count), `perfmodel plot farm` (completion time and speedup against CUDA streams, per case) and
// the summary `perfmodel validate --only farm` prints.
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/predictors/farm.hpp"
#include "perfmodel/report/report.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel::report {

// What a farm prediction is of (the header's prediction_of).
extern const char* const kFarmPredictionOf;

// `predict farm`: `rows` are the predictions of the stream counts asked (`predictor.predict(S)`);
// `best` the best of a sweep (absent for one S); `streams` the one S asked (absent for a sweep).
struct FarmPredictionView {
  const FarmSetup& setup;
  const FarmPredictor& predictor;
  std::vector<FarmPrediction> rows;
  std::optional<FarmPrediction> best;
  std::optional<int> streams;
};
// Adds prediction_of, the task and the pipeline's stages to the header, the `streams` table and
// the notes (S beyond L, pageable memory, the predictor's assumptions).
void add_farm_prediction(Report& report, const FarmPredictionView& view);

// `plot farm`: the cases of `run` (every distinct task and L it measured, and its
// CUDA_DEVICE_MAX_CONNECTIONS) or, without a run, the validation's standard cases, predicted only.
struct FarmPlotOutputs {
  Table cases;          // one row per case: serial and data-parallel time, best S, its bound
  std::string not_drawn;  // why gnuplot drew no picture ("" when it did); the numbers are written regardless
};
// Writes DIR/farm_predicted.csv, farm_measured.csv, farm_cases.csv, farm.gp and draws farm.{svg,png}
// (DIR is created).
FarmPlotOutputs write_farm_plot(const std::string& dir, const Profile& profile, const FarmRun* run);
// prediction_of, the cases table and the notes (what was written, what was not drawn).
void add_farm_plot(Report& report, const FarmPlotOutputs& outputs, const std::string& dir);

// `validate --only farm`: the run's header fields, the errors per application and the best-S check;
// notes: the files written under out_dir, the analysis' assumptions, the failures.
void add_farm_validation(Report& report, const FarmRun& run, const FarmAnalysis& analysis, const std::string& out_dir,
                         bool from_recorded, const std::vector<std::string>& failures);

}  // namespace perfmodel::report
