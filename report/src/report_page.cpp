// `perfmodel report`'s page (perfmodel/report/report_page.hpp).
#include <sstream>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/report/cpu_plot.hpp"
#include "perfmodel/report/farm_report.hpp"
#include "perfmodel/report/microbench_plot.hpp"
#include "perfmodel/report/page.hpp"
#include "perfmodel/report/profile_report.hpp"
#include "perfmodel/report/report_page.hpp"
#include "perfmodel/report/roofline_report.hpp"
#include "perfmodel/report/speedup_report.hpp"
#include "perfmodel/report/transfer_plot.hpp"
#include "perfmodel/report/validation_report.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel::report {

int write_report_page(const std::string& dir, const ReportPageInputs& in) {
  const Profile& profile = in.profile;
  const ValidationRun& run = in.run;
  // Every figure first, each in its own folder with its data and script.
  write_microbench_plot(dir + "/microbench", *profile.gpu, in.gpu_samples, profile.provenance);
  if (profile.pcie && in.transfer_samples) write_transfer_plot(dir + "/transfers", *profile.pcie, *in.transfer_samples, profile.provenance);
  write_cpu_plot(dir + "/cpu", *profile.cpu, profile.provenance);
  const ValidationAnalysis analysis = analyse_validation(run, profile);
  const std::string plot_note = write_validation_outputs(dir + "/validation", run, analysis, in.profile_path);
  if (!plot_note.empty()) throw RuntimeFailure("report: " + plot_note);
  const RooflineOutputs roof = write_roofline(dir + "/roofline", profile, &run, {});
  const SpeedupOutputs speed = write_speedup(dir + "/speedup", profile, in.profile_path, &run, HostMemory::pinned);
  write_farm_plot(dir + "/farm", profile, in.farm);

  Page page;
  page.dir = dir;
  const Provenance& pv = profile.provenance;
  page.heading("perfmodel report: " + pv.device_name, 1);
  page.paragraph("Profile " + in.profile_path + ", measured " + pv.date_utc + " on " + pv.host_name + " (" + pv.host_cpu + "; driver " +
                 pv.driver_version + ", runtime " + pv.runtime_version + ") by `" + pv.command + "`, toolkit " + pv.toolkit_version +
                 " (" + pv.toolkit_commit + "). Validation run measured " + run.provenance.date_utc + " by `" + run.provenance.command +
                 "` (" + run.provenance.toolkit_commit + "). This report: `" + in.command_line + "`.");

  page.heading("Profile summary", 2);
  std::ostringstream summary;
  render(profile_report(profile), Format::table, summary);
  page.preformatted(summary.str(), "every section of the profile (perfmodel profile show)");

  page.heading("Calibration", 2);
  page.figure("microbench/microbench.svg", "GPU microbenchmarks: bandwidth vs bytes in flight, bank conflicts, strides, camping, working set, latency");
  if (profile.pcie) page.figure("transfers/transfers.svg", "Host-device copies: measured and modelled time and bandwidth vs size");
  page.figure("cpu/cpu.svg", "CPU bandwidth vs working set per thread count, with the cache plateaus");

  page.heading("GPU kernel time: validation", 2);
  std::vector<std::vector<std::string>> rows;
  for (const auto& [kernel, s] : analysis.per_kernel)
    rows.push_back({kernel, std::to_string(s.count), pct(s.mean), pct(s.median), pct(s.p90), pct(s.max)});
  rows.push_back({"all", std::to_string(analysis.overall.count), pct(analysis.overall.mean), pct(analysis.overall.median),
                  pct(analysis.overall.p90), pct(analysis.overall.max)});
  page.paragraph(std::to_string(run.measurements.size()) + " runs of the reference kernels, each checked against its CPU reference; "
                 "|predicted / measured - 1| per kernel (targets: median <= 10 %, p90 <= 20 %). Tuner: the predicted-best "
                 "configuration is " + pct(analysis.tuner_mean_loss) + " slower than the measured optimum on average over " +
                 std::to_string(analysis.tuner.size()) + " sweeps.");
  page.table({"kernel", "runs", "mean", "median", "p90", "max"}, rows);
  page.figure("validation/validation.svg", "Measured vs predicted kernel time, every validation run");

  page.heading("Roofline", 2);
  rows.clear();
  for (const RooflinePoint& p : roof.points)
    rows.push_back({p.name, std::to_string(p.n), format_number_short(p.bound.intensity), p.bound.memory_bound ? "memory" : "compute",
                    format_number_short(p.bound.achieved / 1e9), format_number_short(p.predicted / 1e9),
                    format_number_short(p.bound.attainable / 1e9)});
  page.figure("roofline/roofline.svg", "Hierarchical roofline from measured ceilings (datasheet peaks dashed); kernels measured (filled) and predicted (open)");
  page.table({"kernel", "n", "flop/DRAM byte", "bound", "measured Gflop/s", "predicted Gflop/s", "attainable Gflop/s"}, rows);

  page.heading("Speedup over the host CPU", 2);
  rows.clear();
  for (const SpeedupCurve& c : speed.curves)
    rows.push_back({c.cpu_kernel, c.gpu_kernel,
                    c.crossover.crossings.empty() ? c.crossover.verdict
                                                  : format_number_short(c.crossover.crossings.front().n) + " (" +
                                                        (c.crossover.crossings.front().wins_above == "gpu" ? "GPU" : "CPU") + " wins above)",
                    format_number_short(c.predicted.back().second), std::to_string(c.measured.size())});
  page.figure("speedup/speedup.svg", "CPU time / (GPU kernel + pinned copies) over n: predicted (lines), measured (points), crossover dotted");
  page.table({"CPU kernel", "GPU kernel", "crossover n", "predicted speedup at the largest n", "measured points"}, rows);
  page.figure("speedup/variants.svg", "Kernel variants (White (2013)'s stepwise procedure) as effective bandwidth: measured (points), predicted (lines)");

  page.heading("Task farm on CUDA streams", 2);
  if (!in.farm) {
    page.paragraph("No recorded farm run (perfmodel validate --only farm): the validation's farm cases, predicted only. "
                   "The model: docs/farm.md.");
  } else {
    const FarmRun& farm = *in.farm;
    const FarmAnalysis fa = analyse_farm(farm, profile);
    page.paragraph("Recorded farm run " + farm.provenance.date_utc + " on " + farm.provenance.device_name + " by `" +
                   farm.provenance.command + "`; CUDA_DEVICE_MAX_CONNECTIONS " +
                   (farm.cuda_device_max_connections.empty() ? std::string("unset") : farm.cuda_device_max_connections) +
                   ". Completion time of the whole stream of tasks, |predicted / measured - 1| (targets: mean <= 10 %, p90 <= 20 %).");
    rows.clear();
    for (const auto& [app, st] : fa.per_app) rows.push_back({app, std::to_string(st.count), pct(st.mean), pct(st.median), pct(st.p90), pct(st.max)});
    rows.push_back({"all", std::to_string(fa.overall.count), pct(fa.overall.mean), pct(fa.overall.median), pct(fa.overall.p90), pct(fa.overall.max)});
    page.table({"application", "points", "mean", "median", "p90", "max"}, rows);
    rows.clear();
    for (const FarmBestCheck& b : fa.best)
      rows.push_back({b.label, std::to_string(b.measured_best), std::to_string(b.predicted_best), pct(b.loss), b.within_5_percent ? "yes" : "no",
                      b.bound_at_best});
    page.table({"case", "measured best S", "predicted best S", "loss", "within 5 %", "bound"}, rows);
  }
  page.figure("farm/farm.svg", "Task farm: completion time and speedup over S = 0 against CUDA streams, predicted (lines), measured (points), #SM bound");

  const std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfmodel report: " + html_escape(pv.device_name) +
      "</title>\n<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#111}"
      "figure{margin:1.5em 0}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:.9em;color:#444}"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}"
      "td:first-child,th:first-child{text-align:left}pre{font-size:.75em;overflow-x:auto;background:#f6f6f6;padding:1em}</style>\n"
      "<script>window.addEventListener('load',function(){var i=document.images,n=0;for(var k=0;k<i.length;++k)"
      "if(i[k].complete&&i[k].naturalWidth>0)++n;document.body.setAttribute('data-images-total',i.length);"
      "document.body.setAttribute('data-images-loaded',n);});</script>\n</head><body>\n" +
      page.html.str() + "</body></html>\n";
  write_file_atomically(dir + "/report.html", html);
  write_file_atomically(dir + "/report.md", page.md.str());
  return page.images;
}

}  // namespace perfmodel::report
