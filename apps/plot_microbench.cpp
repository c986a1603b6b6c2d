// perfmodel plot microbench --out DIR [--profile P] [--samples CSV]
// The plot itself (data, script, drawing) is the report layer's: perfmodel/report/microbench_plot.hpp.
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/microbench_plot.hpp"

namespace perfmodel::cli {

int plot_microbench(const Invocation& inv) {
  po::options_description options("perfmodel plot microbench options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)")(
      "samples,s", po::value<std::string>(), "raw GPU samples CSV (default: the profile's own gpu samples file)");
  add_profile_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot microbench --out DIR [--profile P] [--samples CSV]\n\n"
                     "Writes DIR/microbench.{gp,svg,png} and its data DIR/microbench_*.csv.",
                     options, nullptr, vm))
    return kExitOk;
  const std::string dir = vm["out"].as<std::string>();
  check_output_directory(dir, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  const GpuSampleFile samples = microbench_inputs(loaded, optional_value(vm, "samples"));
  StagedDirectory stage(dir, "--out");
  write_microbench_plot(stage.path(), loaded.gpu(), samples, loaded.profile.provenance);
  stage.publish();
  if (loaded.bundled) inv.err << loaded.note() << "\n";
  inv.out << "wrote " << dir << "/microbench.svg, microbench.png (data: microbench_*.csv; script: microbench.gp)\n";
  return kExitOk;
}

}  // namespace perfmodel::cli
