// The speedup plots of `perfmodel plot speedup` and `perfmodel report`:
// GPU (kernel + copies) against CPU over n for each reference kernel, measured and predicted on
// the same axes with the crossovers marked by the side that wins above them (the predicted curve
// and the crossovers are the offload advisor's, perfmodel/predictors/offload.hpp); and S0's
// stepwise comparison of kernel variants (naive → shared → optimised) as effective bandwidth.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "perfmodel/report/speedup_report.hpp"

namespace perfmodel::report {
namespace {

const auto g = plot_number;

// The stepwise variant comparisons (S0 Figures 4.x, 5.x): naive → shared → optimised.
const std::vector<std::pair<std::string, std::vector<std::string>>> kVariants = {
    {"mv", {"mv-global", "mv-constant", "mv-shared", "mv-opt"}},
    {"mm", {"mm-global", "matmul", "mm-shared", "mm-opt", "sgemm-tiled", "sgemm-256x16", "sgemm-64"}},
    {"conv2d", {"conv2d-global", "conv2d-shared"}}};

// Median CPU time per (kernel, n) at the largest thread count recorded.
std::map<std::pair<std::string, int>, double> measured_cpu(const Profile& profile, const std::string& profile_path) {
  std::map<std::pair<std::string, int>, double> out;
  if (!profile.cpu || profile.cpu->samples_file.empty()) return out;
  const std::string path = directory_of(profile_path) + "/" + profile.cpu->samples_file;
  if (!std::filesystem::exists(path)) return out;
  const CpuSampleFile file = load_cpu_samples(path);
  check_same_run(profile.provenance, profile_path, file.provenance, path);
  std::map<std::pair<std::string, int>, std::map<double, std::vector<double>>> by;  // (kernel, n) → threads → times
  for (const BenchmarkSample& s : file.samples) {
    if (s.series.rfind("kernel.", 0) != 0) continue;
    // A sample times `amount` back-to-back runs.
    const auto n = s.params.find("n"), threads = s.params.find("threads");
    if (n == s.params.end() || threads == s.params.end() || !(n->second >= 1 && n->second <= limits::kMaxProblemSize) ||
        n->second != std::floor(n->second))
      throw InputError(path + ": a " + s.series + " sample needs n (a whole number from 1 to 2^31 - 1) and threads");
    by[{s.series.substr(7), static_cast<int>(n->second)}][threads->second].push_back(s.seconds / s.amount);
  }
  for (const auto& [key, per_threads] : by) out[key] = summarize(per_threads.rbegin()->second).median;
  return out;
}

std::string speedup_script(const std::string& title, const std::vector<SpeedupCurve>& curves) {
  std::ostringstream s;
  s << "# perfmodel plot speedup — CPU time / GPU time (kernel + host copies) over n, one panel per kernel.\n"
       "# Data: speedup_predicted.csv, speedup_measured.csv, crossovers.csv. Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#e5e5e5'\n"
       "set logscale xy 10\nset format y '%g'\n"
       "set ylabel 'speedup (CPU / GPU)'\n"
       "set key top left font ',8' samplen 2\n"
       "set multiplot layout 2,4 title "
    << gnuplot_text(title) << " font ',12'\n";
  for (const SpeedupCurve& c : curves) {
    s << "set title " << gnuplot_quote(c.cpu_kernel + " (GPU: " + c.gpu_kernel + ")") << " font ',10'\n"
      << "set xlabel " << gnuplot_quote(size_meaning(c.cpu_kernel)) << " font ',8'\n"
      << "unset arrow\nunset label\n";
    for (const Crossing& x : c.crossover.crossings)
      s << "set arrow from " << g(x.n) << ", graph 0 to " << g(x.n) << ", graph 1 nohead dt 3 lc rgb '#555555'\n"
        << "set label '" << (x.wins_above == "gpu" ? "GPU" : "CPU") << " wins above' at " << g(x.n) << ", graph 0.06 left offset 0.5,0 font ',7'\n";
    if (c.crossover.crossings.empty())
      s << "set label '" << (c.crossover.verdict.rfind("GPU always", 0) == 0 ? "GPU wins throughout" : "CPU wins throughout")
        << "' at graph 0.5, graph 0.06 center font ',7'\n";
    s << "plot 1 with lines lc rgb '#aaaaaa' notitle, "
      << "'speedup_predicted.csv' skip 1 using (strcol(1) eq " << gnuplot_quote(c.cpu_kernel)
      << " ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', "
      << "'speedup_measured.csv' skip 1 using (strcol(1) eq " << gnuplot_quote(c.cpu_kernel)
      << " ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'"
      << (c.crossover.crossings.empty() ? "" : ", 1/0 with lines dt 3 lc rgb '#555555' title " + gnuplot_quote("crossover n = " + g(std::round(c.crossover.crossings.front().n))))
      << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

std::string variants_script(const std::string& title) {
  std::ostringstream s;
  s << "# perfmodel plot speedup — White (2013)'s stepwise comparison: effective bandwidth (algorithmic bytes / time)\n"
       "# of each kernel variant over n. Data: variants.csv (family,kernel,n,measured,predicted). Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#e5e5e5'\n"
       "set logscale xy 10\nset format y '%g'\n"
       "set xlabel 'n (matrix order / image side)'\nset ylabel 'effective bandwidth (GB/s: algorithmic bytes / time)'\n"
       "set key outside right font ',8' samplen 2\n"
       "set multiplot layout 3,1 title "
    << gnuplot_text(title) << " font ',12'\n";
  for (const auto& [family, kernels] : kVariants) {
    s << "set title " << gnuplot_quote(family + ": measured (points) and predicted (lines)") << " font ',10'\nplot ";
    int style = 0;
    for (const std::string& k : kernels) {
      s << (style ? ", \\\n     " : "") << "'variants.csv' skip 1 using (strcol(2) eq " << gnuplot_quote(k) << " ? $3 : 1/0):($5/1e9) with lines dt "
        << (1 + style % 5) << " lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq " << gnuplot_quote(k)
        << " ? $3 : 1/0):($4/1e9) with points pt " << (4 + 2 * style) << " ps 0.8 lc rgb '#000000' title " << gnuplot_quote(k);
      ++style;
    }
    s << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

}  // namespace

SpeedupOutputs write_speedup(const std::string& dir, const Profile& profile, const std::string& profile_path, const ValidationRun* run,
                             HostMemory memory, const Profile* cpu_profile, const std::string& cpu_profile_path) {
  const GpuCalibration& gpu = profile.require_gpu();
  const Profile& cpu_side = cpu_profile ? *cpu_profile : profile;
  const std::string& cpu_path = cpu_profile ? cpu_profile_path : profile_path;
  if (!cpu_side.cpu) throw InputError(cpu_path + ": the profile has no cpu section: no CPU side to compare with");
  make_directory(dir);
  if (!profile.pcie) throw InputError(profile_path + ": the profile has no pcie section: the copies of the offloaded runs cannot be predicted");
  const auto comm = std::make_unique<CommunicationPredictor>(profile);
  const ResourceTable resources = run ? run->resource_table() : ResourceTable{};
  const auto cpu_measured = measured_cpu(cpu_side, cpu_path);
  std::map<std::pair<std::string, int>, double> gpu_measured;
  if (run)
    for (const KernelMeasurement& m : run->measurements)
      if (default_config(gpu_kernel_spec(m.kernel), m.n) == m.config)
        gpu_measured[{m.kernel, m.n}] = m.summary().median;

  SpeedupOutputs out;
  std::ostringstream predicted, measured, crossovers;
  predicted << "cpu_kernel,gpu_kernel,n,speedup,cpu_s,gpu_s,copies_s\n";
  measured << "cpu_kernel,gpu_kernel,n,speedup,cpu_s,gpu_s,copies_s\n";
  crossovers << "cpu_kernel,gpu_kernel,crossover_n,wins_above,verdict\n";
  OffloadOptions options;
  options.memory = memory;
  for (const auto& [cpu_kernel, gpu_kernel] : offload_kernel_pairs()) {
    SpeedupCurve c{cpu_kernel, gpu_kernel, {}, {}, {}};
    double lo = 0, hi = 0, multiple = 1;
    offload_size_range(cpu_kernel, lo, hi, multiple);
    const std::string& kernel = cpu_kernel;  // a structured binding cannot be captured in C++17
    const auto terms = [&](double n) { return predict_builtin_offload(cpu_side, profile, kernel, n, options, resources).terms; };
    for (int i = 0; i <= 40; ++i) {
      const double n = std::max(lo, std::round(std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / 40.0) / multiple) * multiple);
      const OffloadTerms t = terms(n);
      const double s = t.cpu_s / t.gpu_s();
      c.predicted.push_back({n, s});
      predicted << cpu_kernel << ',' << gpu_kernel << ',' << g(n) << ',' << g(s) << ',' << g(t.cpu_s) << ',' << g(t.kernels_s) << ','
                << g(t.h2d_s + t.d2h_s) << "\n";
    }
    c.crossover = find_crossover([&](double n) {
      const OffloadTerms t = terms(n);
      return t.cpu_s / t.gpu_s();
    }, lo, hi, multiple);
    for (const auto& [key, tg] : gpu_measured) {
      if (key.first != gpu_kernel) continue;
      const auto cpu = cpu_measured.find({cpu_kernel, key.second});
      if (cpu == cpu_measured.end()) continue;
      const double tc = comm->predict(offload_copies_in(cpu_kernel, key.second, memory)).total_seconds +
                        comm->predict(offload_copies_out(cpu_kernel, key.second, memory)).total_seconds;
      const double s = cpu->second / (tg + tc);
      c.measured.push_back({static_cast<double>(key.second), s});
      measured << cpu_kernel << ',' << gpu_kernel << ',' << key.second << ',' << g(s) << ',' << g(cpu->second) << ',' << g(tg) << ','
               << g(tc) << "\n";
    }
    if (c.crossover.crossings.empty()) crossovers << cpu_kernel << ',' << gpu_kernel << ",,,\"" << c.crossover.verdict << "\"\n";
    for (const Crossing& x : c.crossover.crossings)
      crossovers << cpu_kernel << ',' << gpu_kernel << ',' << g(x.n) << ',' << x.wins_above << ",\"" << c.crossover.verdict << "\"\n";
    out.curves.push_back(std::move(c));
  }
  write_file_atomically(dir + "/speedup_predicted.csv", predicted.str());
  write_file_atomically(dir + "/speedup_measured.csv", measured.str());
  write_file_atomically(dir + "/crossovers.csv", crossovers.str());
  write_file_atomically(dir + "/speedup.gp", speedup_script("GPU (" + profile.provenance.device_name + ", kernel + " +
                                                                to_string(memory) + " copies) vs its host CPU (" +
                                                                cpu_side.provenance.host_cpu + ", " + g(cpu_side.cpu->cpu.logical_cpus) + " CPUs)",
                                                            out.curves));
  render_gnuplot(dir, "speedup", PlotSize{1400, 800});

  std::ostringstream variants;
  variants << "family,kernel,n,measured_Bps,predicted_Bps\n";
  if (run)
    for (const auto& [family, kernels] : kVariants)
      for (const std::string& k : kernels)
        for (const auto& [key, t] : gpu_measured) {
          if (key.first != k) continue;
          const GpuWorkload w = describe_gpu_kernel(k, key.second, default_config(gpu_kernel_spec(k), key.second),
                                                    resources, gpu.device.l2_cache_bytes);
          variants << family << ',' << k << ',' << key.second << ',' << g(w.algorithmic_bytes / t) << ','
                   << g(w.algorithmic_bytes / predict_gpu(gpu, w, dirty_l2_where_measured(gpu)).seconds) << "\n";
          ++out.variant_points;
        }
  write_file_atomically(dir + "/variants.csv", variants.str());
  write_file_atomically(dir + "/variants.gp", variants_script("Kernel variants on " + profile.provenance.device_name));
  render_gnuplot(dir, "variants", PlotSize{1000, 1100});
  return out;
}

void add_speedup_summary(Report& report, const SpeedupOutputs& outputs, HostMemory memory, const Provenance& gpu,
                         const Profile* cpu_profile, const std::string& cpu_profile_path) {
  report.meta.push_back({"prediction_of", Cell(std::string("the speedup of the offloaded operation (copies in, GPU kernels, copies out; ") + to_string(memory) +
                                               " memory) over the CPU reference kernel, at each n")});
  if (cpu_profile) {
    report.meta.push_back({"cpu_profile", Cell(cpu_profile_path)});
    report.meta.push_back({"cpu_host", Cell(cpu_profile->provenance.host_name + " (" + cpu_profile->provenance.host_cpu + ")")});
    if (cpu_profile->provenance.host_name != gpu.host_name || cpu_profile->provenance.host_cpu != gpu.host_cpu)
      report.notes.push_back("warning: the CPU profile and the GPU profile come from different hosts");
  }
  Table t{"speedup", {}};
  for (const SpeedupCurve& c : outputs.curves) {
    const auto& last = c.predicted.back();
    const bool any = !c.crossover.crossings.empty();
    t.rows.push_back({{"cpu_kernel", Cell(c.cpu_kernel)}, {"gpu_kernel", Cell(c.gpu_kernel)},
                      {"crossover_n", any ? Cell(c.crossover.crossings.front().n) : Cell(nullptr)},
                      {"wins_above", any ? Cell(c.crossover.crossings.front().wins_above) : Cell(nullptr)},
                      {"verdict", Cell(c.crossover.verdict)}, {"largest_n", Cell(last.first)},
                      {"predicted_speedup_there", Cell(last.second)},
                      {"measured_points", Cell(static_cast<std::int64_t>(c.measured.size()))}});
  }
  report.tables.push_back(t);
  report.notes.push_back("predicted: the offload advisor's model (perfmodel offload): CPU reference kernel vs copies in + kernels + copies out; crossover_n null: no crossing over the sizes drawn (verdict says which side wins)");
  report.notes.push_back("measured speedup = measured CPU time / (measured GPU kernel time + predicted copy time)");
}

}  // namespace perfmodel::report
