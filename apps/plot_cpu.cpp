// perfmodel plot cpu --out DIR [--profile P]
// The plot itself (data, script, drawing) is the report layer's: perfmodel/report/cpu_plot.hpp.
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/report/cpu_plot.hpp"
#include "perfmodel/report/gnuplot.hpp"

namespace perfmodel::cli {

int plot_cpu(const Invocation& inv) {
  po::options_description options("perfmodel plot cpu options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)");
  add_profile_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot cpu --out DIR [--profile P]\n\n"
                     "Writes DIR/cpu.{gp,svg,png} and its data DIR/cpu_bandwidth.csv, DIR/cpu_plateaus.csv.",
                     options, nullptr, vm))
    return kExitOk;
  const std::string dir = vm["out"].as<std::string>();
  check_output_directory(dir, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  const CpuCalibration& cpu = cpu_plot_inputs(loaded);
  StagedDirectory stage(dir, "--out");
  write_cpu_plot(stage.path(), cpu, loaded.profile.provenance);
  stage.publish();
  if (loaded.bundled) inv.err << loaded.note() << "\n";
  inv.out << "wrote " << dir << "/cpu.svg, cpu.png (data: cpu_bandwidth.csv, cpu_plateaus.csv; script: cpu.gp)\n";
  return kExitOk;
}

}  // namespace perfmodel::cli
