// The GPU microbenchmark plot (perfmodel/report/microbench_plot.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/microbench_plot.hpp"

namespace perfmodel::report {
namespace {

const auto g = plot_number;

double param(const SeriesPoint& p, const std::string& name) {
  const auto it = p.params.find(name);
  if (it == p.params.end()) throw InputError("gpu samples: a point lacks parameter '" + name + "'");
  return it->second;
}

std::string microbench_script(const std::string& title, double l2_bytes, const std::vector<std::string>& partition_cases) {
  std::ostringstream s;
  s << "# perfmodel plot microbench — GPU microbenchmarks, measured (points) and fitted (lines).\n"
       "# Data: microbench_*.csv next to this script. Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#dddddd'\n"
       "set key font ',9' samplen 2\n"
       "set multiplot layout 3,2 title "
    << gnuplot_text(title) << " font ',13'\n"
    << "\n# 1. DRAM bandwidth vs bytes in flight\n"
       "set title 'DRAM read bandwidth vs bytes in flight' font ',11'\n"
       "set logscale x 2\nset format x '%.0b%B'\nset xlabel 'bytes in flight (SMs x warps x min(ILP, limit) x 256 B)'\n"
       "set ylabel 'TB/s'\nset key bottom right\n"
       "plot 'microbench_concurrency_model.csv' using 1:($2/1e12) with lines lw 2 lc rgb '#000000' title 'fitted saturation curve', \\\n"
       "     'microbench_concurrency.csv' using 3:(strcol(5) eq 'fit' ? $4/1e12 : 1/0) with points pt 6 ps 0.6 lc rgb '#555555' title 'measured (fit)', \\\n"
       "     'microbench_concurrency.csv' using 3:(strcol(5) eq 'holdout' ? $4/1e12 : 1/0) with points pt 9 ps 0.7 lc rgb '#222222' title 'measured (held out)'\n"
    << "\n# 2. bank conflicts\n"
       "set title 'shared memory: time per warp access vs conflict degree' font ',11'\n"
       "unset logscale x\nset format x '%g'\nset xlabel 'conflict degree (distinct words per bank; 8-byte: per half-warp)'\n"
       "set ylabel 'ns per warp access per SM'\nset key top left\n"
       "plot 'microbench_conflicts.csv' using 2:(($1==4) ? $3*1e9 : 1/0) with points pt 6 ps 0.7 lc rgb '#333333' title '4-byte words', \\\n"
       "     'microbench_conflicts.csv' using 2:(($1==4) ? $4*1e9 : 1/0) with lines lw 1 lc rgb '#000000' title '4-byte line fit', \\\n"
       "     'microbench_conflicts.csv' using 2:(($1==8) ? $3*1e9 : 1/0) with points pt 9 ps 0.7 lc rgb '#777777' title '8-byte words', \\\n"
       "     'microbench_conflicts.csv' using 2:(($1==8) ? $4*1e9 : 1/0) with lines lw 1 dt 2 lc rgb '#000000' title '8-byte line fit'\n"
    << "\n# 3. strided access\n"
       "set title 'strided 4-byte reads: useful-byte efficiency' font ',11'\n"
       "set xlabel 'stride (elements)'\nset ylabel 'efficiency vs stride 1'\nset logscale y 2\nset key top right\n"
       "plot 'microbench_strided.csv' using 1:4 with linespoints pt 6 ps 0.7 lc rgb '#333333' title 'measured', \\\n"
       "     'microbench_strided.csv' using 1:5 with lines lw 2 dt 2 lc rgb '#000000' title '32-B sector model (4 / sectors per request)'\n"
       "unset logscale y\n"
    << "\n# 4. partition camping\n"
       "set title 'partition/channel camping: bandwidth vs slots used' font ',11'\n"
       "set logscale x 2\nset format x '%g'\nset xlabel 'slots of the period used (1 = all chunks camped on one)'\n"
       "set ylabel 'TB/s'\nset key bottom right font ',7'\nset yrange [0:*]\n"
       "cases = ";
  std::string words;
  for (const std::string& label : partition_cases) words += label + ' ';
  s << gnuplot_quote(words) << "\n"
       "plot for [i=0:"
    << (partition_cases.empty() ? 0 : partition_cases.size() - 1)
    << "] 'microbench_partition.csv' using 4:(($1==i) ? $5/1e12 : 1/0) with linespoints pt (i%7)+4 ps 0.6 lc rgb '#333333' "
       "title word(cases, i+1)\n"
       "set yrange [*:*]\n"
    << "\n# 5. hierarchy\n"
       "set title 'read bandwidth vs working set' font ',11'\n"
       "set logscale x 2\nset format x '%.0b%B'\nset xlabel 'working set'\nset ylabel 'TB/s'\nunset key\n"
       "set arrow 1 from "
    << g(l2_bytes) << ", graph 0 to " << g(l2_bytes)
    << ", graph 1 nohead dt 3 lc rgb '#888888'\n"
       "plot 'microbench_hierarchy.csv' using 1:($2/1e12) with linespoints pt 6 ps 0.7 lc rgb '#000000'\n"
    << "\n# 6. latency\n"
       "set title 'dependent-load latency (pointer chase) vs footprint' font ',11'\n"
       "set xlabel 'footprint (random 128-byte lines)'\nset ylabel 'ns'\nset logscale y 10\n"
       "plot 'microbench_latency.csv' using 1:($2*1e9) with linespoints pt 6 ps 0.7 lc rgb '#000000'\n"
       "unset arrow 1\nunset logscale\n"
       "unset multiplot\n";
  return s.str();
}

}  // namespace

void write_microbench_plot(const std::string& dir, const GpuCalibration& gpu, const GpuSampleFile& samples, const Provenance& provenance) {
  // 1. concurrency
  const SaturationCurve& c = *gpu.dram_concurrency;
  std::ostringstream concurrency, concurrency_model;
  concurrency << "warps_per_sm,ilp,bytes_in_flight,measured_Bps,set,predicted_Bps\n";
  double q_min = 1e300, q_max = 0;
  for (const SeriesPoint& p : series_medians(samples.samples, "dram.concurrency")) {
    const double warps = param(p, "blocks_per_sm") * param(p, "threads") / 32;
    const double q = c.bytes_in_flight(param(p, "sms"), warps, param(p, "ilp"), 32 * param(p, "element_bytes"));
    q_min = std::min(q_min, q), q_max = std::max(q_max, q);
    concurrency << g(warps) << ',' << g(param(p, "ilp")) << ',' << g(q) << ',' << g(p.median_rate) << ','
                << (param(p, "holdout") != 0 ? "holdout" : "fit") << ',' << g(c.bandwidth_Bps(q)) << "\n";
  }
  concurrency_model << "bytes_in_flight,predicted_Bps\n";
  for (double e = std::log2(q_min) - 0.5; e <= std::log2(q_max) + 0.5; e += 1.0 / 16)
    concurrency_model << g(std::exp2(e)) << ',' << g(c.bandwidth_Bps(std::exp2(e))) << "\n";
  // 2. conflicts
  std::ostringstream conflicts;
  conflicts << "word_bytes,degree,seconds_per_access,line_fit_s\n";
  for (const auto& [word, curve] : gpu.bank_conflicts)
    for (std::size_t d = 1; d <= curve.seconds_per_access.size(); ++d)
      conflicts << word << ',' << d << ',' << g(curve.seconds_per_access[d - 1]) << ','
                << g(curve.intercept_s + curve.slope_s * static_cast<double>(d)) << "\n";
  // 3. strided
  const PartitionCalibration& part = *gpu.partition;
  std::ostringstream strided;
  strided << "stride_elements,element_bytes,useful_Bps,efficiency,sector_model_efficiency\n";
  for (const auto& row : part.strided.rows) {
    const double sectors = row[part.strided.column("sectors_per_request")];
    const double element = row[part.strided.column("element_bytes")];
    strided << g(row[part.strided.column("stride_elements")]) << ',' << g(element) << ',' << g(row[part.strided.column("Bps")])
            << ',' << g(row[part.strided.column("efficiency")]) << ',' << g(32 * element / (sectors * 32)) << "\n";
  }
  // 4. partition: one numbered case per (granule, stride)
  std::ostringstream partition;
  partition << "case,granule_bytes,stride_bytes,slots_used,Bps\n";
  std::map<std::pair<double, double>, int> cases;
  std::vector<std::string> case_labels;  // "granule/stride", for the legend
  for (const auto& row : part.sweep.rows) {
    const auto key = std::make_pair(row[0], row[1]);
    if (!cases.count(key)) {
      const int id = static_cast<int>(cases.size());
      cases[key] = id;
      case_labels.push_back("G" + format_bytes(row[0]) + "/S" + format_bytes(row[1]));
      case_labels.back().erase(std::remove(case_labels.back().begin(), case_labels.back().end(), ' '), case_labels.back().end());
    }
  }
  for (const auto& row : part.sweep.rows)
    partition << cases[{row[0], row[1]}] << ',' << g(row[0]) << ',' << g(row[1]) << ',' << g(row[2]) << ',' << g(row[3]) << "\n";
  // 5. hierarchy
  std::ostringstream hierarchy;
  hierarchy << "footprint_bytes,Bps\n";
  std::map<double, double> by_footprint;
  for (const SeriesPoint& p : series_medians(samples.samples, "hierarchy.read")) by_footprint[param(p, "footprint_bytes")] = p.median_rate;
  for (const auto& [footprint, rate] : by_footprint) hierarchy << g(footprint) << ',' << g(rate) << "\n";
  // 6. latency
  std::ostringstream latency;
  latency << "footprint_bytes,seconds_per_load\n";
  for (const auto& [footprint, seconds] : chase_latency_by_footprint(series_medians(samples.samples, "latency.chase")))
    latency << g(footprint) << ',' << g(seconds) << "\n";

  make_directory(dir);
  write_file_atomically(dir + "/microbench_concurrency.csv", concurrency.str());
  write_file_atomically(dir + "/microbench_concurrency_model.csv", concurrency_model.str());
  write_file_atomically(dir + "/microbench_conflicts.csv", conflicts.str());
  write_file_atomically(dir + "/microbench_strided.csv", strided.str());
  write_file_atomically(dir + "/microbench_partition.csv", partition.str());
  write_file_atomically(dir + "/microbench_hierarchy.csv", hierarchy.str());
  write_file_atomically(dir + "/microbench_latency.csv", latency.str());
  const std::string title = "GPU microbenchmarks: " + provenance.device_name + " (" +
                            provenance.date_utc.substr(0, 10) + ")";
  write_file_atomically(dir + "/microbench.gp", microbench_script(title, gpu.device.l2_cache_bytes, case_labels));
  render_gnuplot(dir, "microbench", {1300, 1400});
}

}  // namespace perfmodel::report
