// perfmodel plot transfers --out DIR [--profile P] [--samples CSV], and the dispatch of `perfmodel plot`.
// The plot itself (data, script, drawing) is the report layer's: perfmodel/report/transfer_plot.hpp.
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/report/transfer_plot.hpp"

namespace perfmodel::cli {
namespace {

int plot_transfers(const Invocation& inv) {
  po::options_description options("perfmodel plot transfers options");
  options.add_options()("out,o", po::value<std::string>()->required(), "output directory (created if missing)")(
      "samples,s", po::value<std::string>(), "raw samples CSV (default: the profile's own samples file)");
  add_profile_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel plot transfers --out DIR [--profile P] [--samples CSV]\n\n"
                     "Writes DIR/transfers.{csv,gp,svg,png} and DIR/transfers_model.csv.",
                     options, nullptr, vm))
    return kExitOk;
  const std::string dir = vm["out"].as<std::string>();
  check_output_directory(dir, "--out");
  require_gnuplot();
  const LoadedProfile loaded = load_selected_profile(vm);
  const TransferSampleFile samples = transfer_plot_inputs(loaded, optional_value(vm, "samples"));
  StagedDirectory stage(dir, "--out");
  write_transfer_plot(stage.path(), loaded.pcie(), samples, loaded.profile.provenance);
  stage.publish();
  if (loaded.bundled) inv.err << loaded.note() << "\n";
  inv.out << "wrote " << dir << "/transfers.svg, transfers.png (data: transfers.csv, transfers_model.csv; script: transfers.gp)\n";
  return kExitOk;
}

}  // namespace

int cmd_plot(const Invocation& inv) {
  return dispatch_target(inv, "plot", {{"transfers", plot_transfers}, {"microbench", plot_microbench}, {"cpu", plot_cpu}, {"speedup", plot_speedup}, {"farm", plot_farm}});
}

}  // namespace perfmodel::cli
