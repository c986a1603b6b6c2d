#pragma once
// The roofline drawing, shared by `perfmodel roofline` and `perfmodel report`.
#include <string>
#include <vector>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/validation_data.hpp"
#include "perfmodel/predictors/roofline.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::report {

struct RooflinePoint {
  std::string name;
  int n = 0;
  RooflineBound bound;    // achieved = measured (kernels) or predicted (workloads)
  double predicted = 0;   // flop/s
};

struct RooflineOutputs {
  Roofline roofline;
  std::vector<RooflinePoint> points, workloads;
};

// Writes DIR/roofline.{gp,svg,png}, roofs.csv, points.csv, workloads.csv (DIR is created; callers
// stage it, see StagedDirectory). Every workload file is read and checked before anything is written.
RooflineOutputs write_roofline(const std::string& dir, const Profile& profile, const ValidationRun* run,
                               const std::vector<std::string>& workload_files);

// What `perfmodel roofline` prints: prediction_of, the roofs (measured and datasheet, each with its
// ridge point) and the points (kernels, workloads, then each intensity asked with its bound
// `bounds[i]` and ridge).
void add_roofline_tables(Report& report, const RooflineOutputs& outputs, const std::vector<double>& intensities,
                         const std::vector<RooflineBound>& bounds);

}  // namespace perfmodel::report
