// perfmodel plot speedup --out DIR [--profile P] [--validation RUN] [--memory pinned|pageable]
// GPU (kernel + copies) against CPU over n for each reference kernel, measured and predicted on
// the same axes with the crossover marked; and S0's stepwise comparison of kernel variants
// (naive → shared → optimised) as effective bandwidth.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include "cli_common.hpp"
#include "gnuplot.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"
#include "speedup_report.hpp"

namespace perfmodel::cli {
namespace {

const auto g = plot_number;

// The GPU kernel each CPU reference kernel is compared with (the seeds' optimised variant).
const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"mv", "mv-opt"}, {"mm", "mm-opt"},         {"dot", "dot"},       {"cg", "cg"},
    {"cholesky", "cholesky-opt"}, {"conv2d", "conv2d-shared"}, {"blur", "blur"}, {"cosine", "cosine"}};

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

double copies_s(const CommunicationPredictor* comm, const GpuWorkload& w, HostMemory memory) {
  if (!comm) return 0;
  std::vector<Transfer> t;
  if (w.h2d_bytes > 0) t.push_back({{Direction::h2d, memory}, static_cast<std::uint64_t>(w.h2d_bytes)});
  if (w.d2h_bytes > 0) t.push_back({{Direction::d2h, memory}, static_cast<std::uint64_t>(w.d2h_bytes)});
  return t.empty() ? 0 : comm->predict(t).total_seconds;
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
       "set multiplot layout 2,4 title \""
    << title << "\" font ',12'\n";
  for (const SpeedupCurve& c : curves) {
    s << "set title '" << c.cpu_kernel << " (GPU: " << c.gpu_kernel << ")' font ',10'\n"
      << "set xlabel '" << size_meaning(c.cpu_kernel) << "' font ',8'\n"
      << "unset arrow\n";
    if (c.crossover_n > 0)
      s << "set arrow from " << g(c.crossover_n) << ", graph 0 to " << g(c.crossover_n)
        << ", graph 1 nohead dt 3 lc rgb '#555555'\n";
    s << "plot 1 with lines lc rgb '#aaaaaa' notitle, "
      << "'speedup_predicted.csv' skip 1 using (strcol(1) eq '" << c.cpu_kernel
      << "' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', "
      << "'speedup_measured.csv' skip 1 using (strcol(1) eq '" << c.cpu_kernel
      << "' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'"
      << (c.crossover_n > 0 ? ", 1/0 with lines dt 3 lc rgb '#555555' title 'crossover n = " + g(std::round(c.crossover_n)) + "'" : "")
      << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

std::string variants_script(const std::string& title) {
  std::ostringstream s;
  s << "# perfmodel plot speedup — S0's stepwise comparison: effective bandwidth (algorithmic bytes / time)\n"
       "# of each kernel variant over n. Data: variants.csv (family,kernel,n,measured,predicted). Restyle freely.\n"
       "set datafile separator ','\n"
       "set grid lc rgb '#e5e5e5'\n"
       "set logscale xy 10\nset format y '%g'\n"
       "set xlabel 'n (matrix order / image side)'\nset ylabel 'effective bandwidth (GB/s, S0 units)'\n"
       "set key outside right font ',8' samplen 2\n"
       "set multiplot layout 3,1 title \""
    << title << "\" font ',12'\n";
  for (const auto& [family, kernels] : kVariants) {
    s << "set title '" << family << ": measured (points) and predicted (lines)' font ',10'\nplot ";
    int style = 0;
    for (const std::string& k : kernels) {
      s << (style ? ", \\\n     " : "") << "'variants.csv' skip 1 using (strcol(2) eq '" << k << "' ? $3 : 1/0):($5/1e9) with lines dt "
        << (1 + style % 5) << " lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq '" << k
        << "' ? $3 : 1/0):($4/1e9) with points pt " << (4 + 2 * style) << " ps 0.8 lc rgb '#000000' title '" << k << "'";
      ++style;
    }
    s << "\n";
  }
  s << "unset multiplot\n";
  return s.str();
}

}  // namespace

SpeedupOutputs write_speedup(const std::string& dir, const Profile& profile, const std::string& profile_path, const ValidationRun* run,
                             HostMemory memory) {
  const GpuCalibration& gpu = profile.require_gpu();
  if (!profile.cpu) throw InputError(profile_path + ": the profile has no cpu section: no CPU side to compare with");
  make_directory(dir);
  std::unique_ptr<CommunicationPredictor> comm;
  if (profile.pcie) comm = std::make_unique<CommunicationPredictor>(profile);
  const ResourceTable resources = run ? run->resource_table() : ResourceTable{};
  const auto cpu_measured = measured_cpu(profile, profile_path);
  std::map<std::pair<std::string, int>, double> gpu_measured;
  if (run)
    for (const KernelMeasurement& m : run->measurements)
      if (default_config(gpu_kernel_spec(m.kernel), m.n) == m.config)
        gpu_measured[{m.kernel, m.n}] = m.summary().median;

  SpeedupOutputs out;
  std::ostringstream predicted, measured, crossovers;
  predicted << "cpu_kernel,gpu_kernel,n,speedup,cpu_s,gpu_s,copies_s\n";
  measured << "cpu_kernel,gpu_kernel,n,speedup,cpu_s,gpu_s,copies_s\n";
  crossovers << "cpu_kernel,gpu_kernel,crossover_n\n";
  for (const auto& [cpu_kernel, gpu_kernel] : kPairs) {
    const GpuKernelSpec& spec = gpu_kernel_spec(gpu_kernel);
    SpeedupCurve c{cpu_kernel, gpu_kernel, 0, {}, {}};
    const double lo = spec.min_n, hi = spec.max_n;
    double prev_n = 0, prev_s = 0;
    for (int i = 0; i <= 40; ++i) {
      double n = std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / 40.0);
      n = std::max(lo, std::round(n / spec.n_multiple) * spec.n_multiple);
      const KernelConfig cfg = default_config(spec, n);
      if (!config_problem(spec, n, cfg).empty()) continue;
      const GpuWorkload w = describe_gpu_kernel(gpu_kernel, n, cfg, resources, gpu.device.l2_cache_bytes);
      // The inputs' copies to the device pass through the L2 and leave it dirty, as the measured
      // runs' L2 flush does.
      const double tg = predict_gpu(gpu, w, dirty_l2_where_measured(gpu)).seconds, tc = copies_s(comm.get(), w, memory);
      const double tcpu = predict_cpu(profile, cpu_kernel, n).seconds;
      const double s = tcpu / (tg + tc);
      c.predicted.push_back({n, s});
      predicted << cpu_kernel << ',' << gpu_kernel << ',' << g(n) << ',' << g(s) << ',' << g(tcpu) << ',' << g(tg) << ',' << g(tc) << "\n";
      if (prev_n > 0 && c.crossover_n == 0 && (prev_s - 1) * (s - 1) < 0) {  // log-linear interpolation of the crossing
        const double u = std::log(prev_s) / (std::log(prev_s) - std::log(s));
        c.crossover_n = std::exp(std::log(prev_n) + u * (std::log(n) - std::log(prev_n)));
      }
      prev_n = n, prev_s = s;
    }
    for (const auto& [key, tg] : gpu_measured) {
      if (key.first != gpu_kernel) continue;
      const auto cpu = cpu_measured.find({cpu_kernel, key.second});
      if (cpu == cpu_measured.end()) continue;
      const GpuWorkload w = describe_gpu_kernel(gpu_kernel, key.second, default_config(spec, key.second),
                                                resources, gpu.device.l2_cache_bytes);
      const double tc = copies_s(comm.get(), w, memory), s = cpu->second / (tg + tc);
      c.measured.push_back({static_cast<double>(key.second), s});
      measured << cpu_kernel << ',' << gpu_kernel << ',' << key.second << ',' << g(s) << ',' << g(cpu->second) << ',' << g(tg) << ','
               << g(tc) << "\n";
    }
    crossovers << cpu_kernel << ',' << gpu_kernel << ',' << g(c.crossover_n) << "\n";
    out.curves.push_back(std::move(c));
  }
  write_file_atomically(dir + "/speedup_predicted.csv", predicted.str());
  write_file_atomically(dir + "/speedup_measured.csv", measured.str());
  write_file_atomically(dir + "/crossovers.csv", crossovers.str());
  write_file_atomically(dir + "/speedup.gp", speedup_script("GPU (" + profile.provenance.device_name + ", kernel + " +
                                                                to_string(memory) + " copies) vs its host CPU (" +
                                                                profile.provenance.host_cpu + ", " + g(profile.cpu->cpu.logical_cpus) + " CPUs)",
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

int plot_speedup(const Invocation& inv) {
  po::options_description options("perfmodel plot speedup options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)")(
      "validation", po::value<std::string>(), "recorded validation run for the measured GPU points (default: the bundled H100 run)")(
      "memory,m", po::value<std::string>()->default_value("pinned"), "host memory of the copies: pinned | pageable");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot speedup --out DIR [--validation RUN] [--memory pinned|pageable] [--profile P]\n\n"
                     "Writes DIR/speedup.{gp,svg,png} (CPU time / (GPU kernel + copies) over n for each reference kernel,\n"
                     "measured and predicted, crossover marked) and DIR/variants.{gp,svg,png} (effective bandwidth of each\n"
                     "kernel variant), with their CSV data.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const LoadedProfile loaded = load_selected_profile(vm);
  const auto memory = parse_host_memory(vm["memory"].as<std::string>());
  if (!memory) throw InputError("--memory: '" + vm["memory"].as<std::string>() + "' is not pinned or pageable");
  std::optional<ValidationRun> run;
  const std::string dir = vm.count("validation") ? vm["validation"].as<std::string>() : bundled_validation_dir();
  if (vm.count("validation") || std::filesystem::exists(dir + "/measurements.csv")) run = read_validation_run(dir);
  const SpeedupOutputs out = write_speedup(vm["out"].as<std::string>(), loaded.profile, loaded.path, run ? &*run : nullptr, *memory);
  Report report;
  add_profile_meta(report, loaded);
  Table t{"speedup", {}};
  for (const SpeedupCurve& c : out.curves) {
    const auto& last = c.predicted.back();
    t.rows.push_back({{"cpu_kernel", Cell(c.cpu_kernel)}, {"gpu_kernel", Cell(c.gpu_kernel)},
                      {"crossover_n", Cell(c.crossover_n)}, {"largest_n", Cell(last.first)},
                      {"predicted_speedup_there", Cell(last.second)},
                      {"measured_points", Cell(static_cast<std::int64_t>(c.measured.size()))}});
  }
  report.tables.push_back(t);
  report.notes.push_back("crossover_n 0: the predicted speedup does not cross 1 over the sizes drawn");
  report.notes.push_back("measured speedup = measured CPU time / (measured GPU kernel time + predicted copy time)");
  report.notes.push_back("wrote " + vm["out"].as<std::string>() + "/{speedup,variants}.{gp,svg,png} with their CSV data");
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
