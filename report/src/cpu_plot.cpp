// The CPU bandwidth plot (perfmodel/report/cpu_plot.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/report/cpu_plot.hpp"
#include "perfmodel/report/gnuplot.hpp"

namespace perfmodel::report {
namespace {

const auto g = plot_number;

std::string cpu_script(const std::string& title, const std::vector<double>& thread_counts) {
  std::ostringstream s;
  s << "# perfmodel plot cpu — CPU bandwidth vs working set, one line per thread count.\n"
       "# Data: cpu_bandwidth.csv (kind,threads,working_set_bytes,Bps), cpu_plateaus.csv. Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#dddddd'\n"
       "set logscale x 2\nset format x '%.0b%B'\nset logscale y 10\n"
       "set xlabel 'working set (all threads)'\nset ylabel 'GB/s (10^9 B/s)'\n"
       "set key top right font ',8' samplen 2\n"
       "set multiplot layout 2,2 title "
    << gnuplot_text(title) << " font ',13'\n";
  for (const char* kind : {"read", "write", "copy", "triad"}) {
    s << "set title " << gnuplot_quote(kind) << " font ',11'\nplot ";
    bool first = true;
    int style = 0;
    for (double t : thread_counts) {
      s << (first ? "" : ", \\\n     ") << "'cpu_bandwidth.csv' using 3:((strcol(1) eq " << gnuplot_quote(kind) << " && $2 == " << g(t)
        << ") ? $4/1e9 : 1/0) with linespoints pt " << (4 + style % 8) << " ps 0.5 dt " << (1 + style % 4)
        << " lc rgb '#333333' title " << gnuplot_quote(g(t) + (t == 1 ? " thread" : " threads"));
      first = false;
      ++style;
    }
    if (std::string(kind) == "read")
      s << ", \\\n     'cpu_plateaus.csv' using 3:($5/1e9):($4-$3):(0) with vectors nohead lw 3 lc rgb '#000000' title 'plateaus'";
    s << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

}  // namespace

void write_cpu_plot(const std::string& dir, const CpuCalibration& cpu, const Provenance& provenance) {
  std::ostringstream data, plateaus;
  data << "kind,threads,working_set_bytes,Bps\n";
  std::map<double, bool> threads;
  double largest = 0;
  for (const auto& [kind, table] : cpu.bandwidth)
    for (const auto& row : table.rows) {
      data << kind << ',' << g(row[0]) << ',' << g(row[1]) << ',' << g(row[2]) << "\n";
      threads[row[0]] = true;
      largest = std::max(largest, row[1]);
    }
  plateaus << "threads,level,from_bytes,to_bytes,read_Bps\n";
  for (const CachePlateau& p : cpu.plateaus)
    if (p.threads == threads.rbegin()->first)  // the all-threads curve: one set of segments keeps the panel readable
      plateaus << g(p.threads) << ',' << p.level << ',' << g(std::max(p.from_bytes, 4096.0)) << ','
               << g(std::isinf(p.to_bytes) ? largest : p.to_bytes) << ',' << g(p.read_Bps) << "\n";
  std::vector<double> counts;
  for (const auto& entry : threads) counts.push_back(entry.first);
  make_directory(dir);
  write_file_atomically(dir + "/cpu_bandwidth.csv", data.str());
  write_file_atomically(dir + "/cpu_plateaus.csv", plateaus.str());
  const std::string title = "CPU bandwidth: " + provenance.host_cpu + ", " + g(cpu.cpu.logical_cpus) + " CPUs (" +
                            provenance.date_utc.substr(0, 10) + ")";
  write_file_atomically(dir + "/cpu.gp", cpu_script(title, counts));
  render_gnuplot(dir, "cpu", {1300, 1000});
}

}  // namespace perfmodel::report
