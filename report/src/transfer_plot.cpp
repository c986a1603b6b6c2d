// The transfer plot (perfmodel/report/transfer_plot.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/transfer_plot.hpp"

namespace perfmodel::report {
namespace {

const auto g = plot_number;

// The gnuplot script: one row per curve, time (left) and effective bandwidth (right), log-log.
// Measured typical times (interquartile means) are open circles (fit sizes) and filled triangles (held-out sizes) with
// p10-p90 bars; the model is a solid line — distinguishable in greyscale.
std::string transfer_script(const std::vector<TransferKey>& keys, const std::string& title) {
  std::ostringstream s;
  s << "# perfmodel plot transfers — measured vs predicted host<->device copies.\n"
       "# Data: transfers.csv (measured typical times: interquartile means), transfers_model.csv (model). Restyle freely.\n"
       "set datafile separator ','\n"
       "set logscale x 2\n"
       "set format x '%.0b%B'\n"
       "set xtics 16 font ',9'\n"
       "set grid xtics ytics lc rgb '#dddddd'\n"
       "set key top left font ',9' samplen 2\n"
       "set multiplot layout "
    << keys.size() << ",2 title " << gnuplot_text(title) << " font ',13'\n";
  for (const TransferKey& k : keys) {
    const std::string name = k.name();
    const std::string sel = "(strcol(1) eq " + gnuplot_quote(name) + " ? ";
    s << "\n# " << name << "\n"
      << "set title " << gnuplot_quote(name + ": time per copy") << " font ',11'\n"
      << "set logscale y 10\nset format y '10^{%L}'\nset ylabel 'time (s)'\nset xlabel 'bytes per copy'\n"
      << "plot 'transfers_model.csv' using 2:" << sel << "$3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \\\n"
      << "     'transfers.csv' using 2:" << sel << "(strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \\\n"
      << "     'transfers.csv' using 2:" << sel << "(strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'\n"
      << "set title " << gnuplot_quote(name + ": effective bandwidth") << " font ',11'\n"
      << "unset logscale y\nset format y '%g'\nset ylabel 'GB/s (10^9 B/s)'\n"
      << "plot 'transfers_model.csv' using 2:" << sel << "$4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \\\n"
      << "     'transfers.csv' using 2:" << sel << "(strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \\\n"
      << "     'transfers.csv' using 2:" << sel << "(strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

}  // namespace

void write_transfer_plot(const std::string& dir, const PcieCalibration& pcie, const TransferSampleFile& samples,
                         const Provenance& provenance) {
  const TimerSource timer = pcie.timer == "host_clock" ? TimerSource::wall : TimerSource::event;

  std::ostringstream measured;
  measured << "curve,bytes,set,typical_s,p10_s,p90_s,typical_bytes_per_s,predicted_s,rel_error\n";
  std::ostringstream model;
  model << "curve,bytes,predicted_s,predicted_bytes_per_s\n";
  std::vector<TransferKey> keys;
  for (const auto& [key, curve] : pcie.curves) {
    keys.push_back(key);
    for (SizeSet set : {SizeSet::fit, SizeSet::holdout}) {
      std::map<std::uint64_t, std::vector<double>> by_size;
      for (const TransferSample& s : samples.samples)
        if (s.key == key && s.set == set) by_size[s.bytes].push_back(timer == TimerSource::event ? s.event_s : s.wall_s);
      for (auto& [bytes, times] : by_size) {
        const SampleSummary sum = summarize(times);
        const double b = static_cast<double>(bytes);
        const double predicted = curve.seconds(b);
        const double typical = sum.interquartile_mean;  // what the fit and its held-out errors use
        measured << key.name() << ',' << bytes << ',' << to_string(set) << ',' << g(typical) << ',' << g(sum.p10) << ','
                 << g(sum.p90) << ',' << g(b / typical) << ',' << g(predicted) << ',' << g((predicted - typical) / typical)
                 << "\n";
      }
    }
    for (double e = std::log2(std::max(curve.min_bytes, 1.0)); e <= std::log2(curve.max_bytes) + 1e-9; e += 1.0 / 16) {
      // The model line is drawn for aligned sizes; misaligned measured sizes show their extra cost.
      const double b = e < 4 ? std::round(std::exp2(e)) : std::round(std::exp2(e) / 16) * 16;
      model << key.name() << ',' << g(b) << ',' << g(curve.seconds(b)) << ',' << g(b / curve.seconds(b)) << "\n";
    }
  }
  make_directory(dir);
  write_file_atomically(dir + "/transfers.csv", measured.str());
  write_file_atomically(dir + "/transfers_model.csv", model.str());
  const std::string title = "Host<->device copies: " + provenance.device_name + " (" +
                            provenance.date_utc.substr(0, 10) + ")";
  write_file_atomically(dir + "/transfers.gp", transfer_script(keys, title));
  render_gnuplot(dir, "transfers", {1100, 330 * static_cast<int>(keys.size())});
}

}  // namespace perfmodel::report
