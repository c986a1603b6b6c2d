#pragma once
// `perfmodel report`'s page: one self-contained HTML file (every figure embedded) and its Markdown
// twin, gathering what a user shares: the profile summary, the calibration plots, the validation
// errors and plot, the roofline, the speedups and the task farm.
#include <string>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/farm_data.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_samples.hpp"
#include "perfmodel/model/validation_data.hpp"

namespace perfmodel::report {

// Everything the page shows, loaded and checked by the caller: a profile with gpu and cpu sections
// (the cpu section with bandwidth curves; the gpu section with the microbenchmark results the plot
// draws), its raw GPU samples, its transfer samples where it has a pcie section (else null), a
// recorded validation run, and a recorded farm run (null: the farm cases predicted only).
struct ReportPageInputs {
  const Profile& profile;
  std::string profile_path;
  const ValidationRun& run;
  const GpuSampleFile& gpu_samples;
  const TransferSampleFile* transfer_samples = nullptr;
  const FarmRun* farm = nullptr;
  std::string command_line;  // the command that made the page, for its provenance line
};

// Writes every figure (each in its own folder under DIR, with its data and script), then
// DIR/report.html and DIR/report.md. DIR exists; callers stage it so that the report appears whole
// or not at all. Returns the number of figures embedded. RuntimeFailure where a figure was not drawn.
int write_report_page(const std::string& dir, const ReportPageInputs& inputs);

}  // namespace perfmodel::report
