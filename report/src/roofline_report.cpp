// The roofline drawing of `perfmodel roofline` and `perfmodel report` (data, script, SVG and PNG).
// The hierarchical roofline of a profile with measured and predicted kernel points.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_workload_file.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/predictors/roofline.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/report/roofline_report.hpp"

namespace perfmodel::report {
namespace {

const auto g = plot_number;

std::string roofline_script(const Roofline& r, const std::string& title, bool has_points, bool has_workloads) {
  const double pi32 = r.compute_roof("fp32").value;
  std::ostringstream s;
  s << "# perfmodel roofline — measured roofs (solid), datasheet peaks (grey dashes), kernels measured\n"
       "# (filled) and predicted (open), joined. Data: roofs.csv, points.csv, workloads.csv. Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#e5e5e5'\n"
       "set logscale xy 10\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
       "set xrange [0.01:1000]\nset yrange [1:2e5]\n"
       "set xlabel 'arithmetic intensity (flop per DRAM byte; per byte moved at the roof drawn)'\n"
       "set ylabel 'performance (Gflop/s)'\n"
       "set key below font ',9' samplen 2 maxrows 4\n"
       "set title "
    << gnuplot_text(title) << " font ',12'\n"
    << "mn(a,b) = a < b ? a : b\n";
  std::ostringstream plots;
  int dt = 1;
  for (const Roof& m : r.memory) {
    s << "b_" << m.name << " = " << g(m.value / 1e9) << "\n";
    plots << (plots.tellp() ? ", \\\n     " : "") << "mn(" << g(pi32 / 1e9) << ", b_" << m.name << "*x) with lines lw 2 dt " << dt++
          << " lc rgb '#000000' title " << gnuplot_quote(m.name + " " + g(std::round(m.value / 1e9)) + " GB/s");
    if (m.theoretical > 0)
      plots << ", \\\n     mn(" << g(pi32 / 1e9) << ", " << g(m.theoretical / 1e9) << "*x) with lines lw 1 dt 2 lc rgb '#aaaaaa' notitle";
  }
  // The roof names as a reader needs them: which FP16 roof is the vector units' and which the tensor cores'.
  const auto label = [](const std::string& name) {
    if (name == "fp16") return std::string("fp16 half2 (non-tensor)");
    if (name.rfind("tensor_", 0) == 0) return name.substr(7) + " tensor cores (mma.sync)";
    return name;
  };
  for (const Roof& c : r.compute) {
    plots << ", \\\n     (x >= " << g(c.value / r.memory_roof("dram").value) << " ? " << g(c.value / 1e9)
          << " : 1/0) with lines lw 2 lc rgb '#444444' title " << gnuplot_quote(label(c.name) + " " + g(std::round(c.value / 1e11) / 10) + " Tflop/s");
    if (c.theoretical > 0)
      plots << ", \\\n     " << g(c.theoretical / 1e9) << " with lines lw 1 dt 2 lc rgb '#aaaaaa' title " << gnuplot_quote(label(c.name) + " datasheet");
  }
  if (has_points)
    plots << ", \\\n     'points.csv' skip 1 using 3:($4/1e9):(0):(($5-$4)/1e9) with vectors nohead lw 1 lc rgb '#666666' notitle"
             ", \\\n     'points.csv' skip 1 using 3:($4/1e9) with points pt 7 ps 1.0 lc rgb '#000000' title 'measured (validation run)'"
             ", \\\n     'points.csv' skip 1 using 3:($5/1e9) with points pt 6 ps 1.3 lc rgb '#000000' title 'predicted'"
             ", \\\n     'points.csv' skip 1 using 3:($4/1e9):1 with labels offset 0.8,0.4 left font ',7' noenhanced notitle";
  if (has_workloads)
    plots << ", \\\n     'workloads.csv' skip 1 using 2:($3/1e9) with points pt 4 ps 1.3 lc rgb '#000000' title 'workloads (predicted)'"
             ", \\\n     'workloads.csv' skip 1 using 2:($3/1e9):1 with labels offset 0.8,-0.6 left font ',7' noenhanced notitle";
  s << "plot " << plots.str() << "\n";
  return s.str();
}

}  // namespace

RooflineOutputs write_roofline(const std::string& dir, const Profile& profile, const ValidationRun* run,
                               const std::vector<std::string>& workload_files) {
  const Roofline r = roofline_of(profile);
  const GpuCalibration& gpu = profile.require_gpu();
  RooflineOutputs out;
  // Every input is read and checked before anything is written.
  std::vector<GpuWorkloadFile> files;
  for (const std::string& file : workload_files) {
    files.push_back(read_gpu_workload(file, gpu));
    const GpuWorkload& w = files.back().workload;
    if (!(w.dram_bytes() > 0) || !(w.flops > 0))
      throw InputError(file + ": a roofline point needs flops and DRAM bytes (this workload has " + g(w.flops) + " flops, " +
                       g(w.dram_bytes()) + " DRAM bytes)");
  }
  make_directory(dir);
  std::ostringstream roofs;
  roofs << "name,kind,value,theoretical\n";
  for (const Roof& m : r.memory) roofs << m.name << ",memory," << g(m.value) << ',' << g(m.theoretical) << "\n";
  for (const Roof& c : r.compute) roofs << c.name << ",compute," << g(c.value) << ',' << g(c.theoretical) << "\n";
  write_file_atomically(dir + "/roofs.csv", roofs.str());
  std::ostringstream points;
  points << "kernel,n,intensity,measured_flops,predicted_flops,attainable_flops,bound,headroom\n";
  if (run) {
    // One point per kernel: the launch rule's configuration at the largest size measured.
    std::map<std::string, const KernelMeasurement*> largest;
    for (const KernelMeasurement& m : run->measurements) {
      const GpuKernelSpec& spec = gpu_kernel_spec(m.kernel);
      if (!(default_config(spec, m.n) == m.config)) continue;
      const KernelMeasurement*& best = largest[m.kernel];
      if (!best || m.n > best->n) best = &m;
    }
    const ResourceTable resources = run->resource_table();
    for (const auto& [kernel, m] : largest) {
      const GpuWorkload w = describe_gpu_kernel(kernel, m->n, m->config, resources, gpu.device.l2_cache_bytes);
      const double measured = w.flops / m->summary().median, predicted = w.flops / predict_gpu(gpu, w, dirty_l2_where_measured(gpu)).seconds;
      const double intensity = w.flops / w.dram_bytes();
      const RooflineBound b = roofline_bound(r, intensity, "dram", "fp32", measured);
      out.points.push_back({kernel, m->n, b, predicted});
      points << kernel << ',' << m->n << ',' << g(intensity) << ',' << g(measured) << ',' << g(predicted) << ',' << g(b.attainable)
             << ',' << (b.memory_bound ? "memory" : "compute") << ',' << g(b.headroom) << "\n";
    }
  }
  write_file_atomically(dir + "/points.csv", points.str());
  std::ostringstream workloads;
  workloads << "workload,intensity,predicted_flops,attainable_flops,bound\n";
  for (const GpuWorkloadFile& f : files) {
    const double bytes = f.workload.dram_bytes();
    const double predicted = f.workload.flops / predict_gpu(gpu, f.workload, dirty_l2_where_measured(gpu)).seconds;
    const RooflineBound b = roofline_bound(r, f.workload.flops / bytes, "dram", "fp32", predicted);
    out.workloads.push_back({f.name, 0, b, predicted});
    workloads << csv_label(f.name) << ',' << g(b.intensity) << ',' << g(predicted) << ',' << g(b.attainable) << ','
              << (b.memory_bound ? "memory" : "compute") << "\n";
  }
  write_file_atomically(dir + "/workloads.csv", workloads.str());
  write_file_atomically(dir + "/roofline.gp", roofline_script(r, "Roofline: " + profile.provenance.device_name + " (measured " +
                                                                     profile.provenance.date_utc.substr(0, 10) + ")",
                                                             !out.points.empty(), !out.workloads.empty()));
  render_gnuplot(dir, "roofline", PlotSize{1000, 820});
  out.roofline = r;
  return out;
}

void add_roofline_tables(Report& report, const RooflineOutputs& out, const std::vector<double>& intensities,
                         const std::vector<RooflineBound>& bounds) {
  report.meta.push_back({"prediction_of", Cell("each kernel's attainable flop/s: the lowest roof at its arithmetic intensity (the reference "
                                               "kernels' points from their measured times, the workloads' from their predicted times)")});
  Table roofs{"roofs", {}};
  for (const Roof& m : out.roofline.memory)
    roofs.rows.push_back({{"roof", Cell(m.name)}, {"kind", Cell("memory")}, {"measured_bytes_per_s", Cell(m.value, Unit::bytes_per_s)},
                          {"datasheet_bytes_per_s", m.theoretical > 0 ? Cell(m.theoretical, Unit::bytes_per_s) : Cell(nullptr)},
                          {"ridge_flop_per_byte", Cell(out.roofline.compute_roof("fp32").value / m.value)}});
  // A compute roof's ridge is against DRAM; a memory roof's against FP32.
  for (const Roof& c : out.roofline.compute)
    roofs.rows.push_back({{"roof", Cell(c.name)}, {"kind", Cell("compute")}, {"measured_flop_per_s", Cell(c.value, Unit::flop_per_s)},
                          {"datasheet_flop_per_s", c.theoretical > 0 ? Cell(c.theoretical, Unit::flop_per_s) : Cell(nullptr)},
                          {"ridge_flop_per_byte", Cell(c.value / out.roofline.memory_roof("dram").value)}});
  report.tables.push_back(roofs);
  Table points{"points", {}};
  auto add = [&](const RooflinePoint& p, const char* source) {
    points.rows.push_back({{"point", Cell(p.name)}, {"source", Cell(source)}, {"n", Cell(static_cast<std::int64_t>(p.n))},
                           {"intensity", Cell(p.bound.intensity)}, {"bound", Cell(p.bound.memory_bound ? "memory" : "compute")},
                           {"attainable_flop_per_s", Cell(p.bound.attainable, Unit::flop_per_s)},
                           {"measured_flop_per_s", p.bound.achieved > 0 ? Cell(p.bound.achieved, Unit::flop_per_s) : Cell(nullptr)},
                           {"predicted_flop_per_s", Cell(p.predicted, Unit::flop_per_s)},
                           {"headroom", p.bound.achieved > 0 ? Cell(p.bound.headroom) : Cell(nullptr)}});
  };
  for (const RooflinePoint& p : out.points) add(p, "validation");
  for (const RooflinePoint& p : out.workloads) add(p, "workload");
  for (std::size_t i = 0; i < intensities.size(); ++i) {
    const RooflineBound& b = bounds[i];
    add({"I = " + plot_number(intensities[i]), 0, b, 0}, "--intensity");
    points.rows.back().push_back({"ridge", Cell(b.ridge)});
  }
  report.tables.push_back(points);
}

}  // namespace perfmodel::report
