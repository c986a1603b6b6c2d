#pragma once
// Pieces every subcommand shares: option parsing with --help, the profile to use, output format.
#include <boost/program_options.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_samples.hpp"
#include "perfmodel/report/profile_report.hpp"
#include "perfmodel/report/report.hpp"

namespace perfmodel::cli {

namespace po = boost::program_options;
// The report layer (report/: Report, Cell, Table, Format, render, the plots) is the CLI's vocabulary.
using namespace perfmodel::report;  // NOLINT(google-build-using-namespace)

struct Invocation {
  std::vector<std::string> args;  // after the subcommand words
  std::string command_line;       // the whole command, for provenance
  std::ostream& out;
  std::ostream& err;
};

// Parses args against `options` (+ positional). Returns false if --help was asked for (the
// help text has then been printed to out). Throws InputError for unknown or malformed options.
bool parse_or_help(const Invocation& inv, const std::string& usage, po::options_description& options,
                   const po::positional_options_description* positional, po::variables_map& vm);

// Adds --profile and --format to a subcommand's options.
void add_profile_option(po::options_description& options);
void add_format_option(po::options_description& options);

struct LoadedProfile {
  Profile profile;
  std::string path;
  bool bundled = false;
  std::string note() const;  // "profile: PATH" or "profile: PATH (bundled: …; pass --profile to use your own)"
  // The profile's sections; InputError naming the file and the calibration that makes the section.
  const GpuCalibration& gpu() const;
  const CpuCalibration& cpu() const;
  const PcieCalibration& pcie() const;
};

// --profile if given, else the bundled H100 profile.
LoadedProfile load_selected_profile(const po::variables_map& vm);
// The profile lines every prediction starts with (path, bundled or not, device), and its note.
void add_profile_meta(Report& report, const LoadedProfile& loaded);

// A finite number > 0 ("4096", "1.5e6"); InputError naming `what` otherwise.
double parse_positive_number(const std::string& text, const std::string& what);
// A whole number in [low, high] (limits.hpp for the usual bounds); InputError naming `what` otherwise.
double parse_whole_number(const std::string& text, const std::string& what, double low, double high);
// The last check before a result is printed: every number in it is finite. Throws InputError
// naming the field (exit 1) instead of printing inf or nan with exit 0.
void require_finite(const Report& report);

// The calibration plots' inputs (plot_inputs.cpp), shared by `plot` and `report`: the raw
// samples (samples_given, else the profile's own file, checked to be of the profile's run) and the
// profile's sections each plot needs. InputError naming the profile or the file otherwise.
GpuSampleFile microbench_inputs(const LoadedProfile& loaded, const std::optional<std::string>& samples_given);
TransferSampleFile transfer_plot_inputs(const LoadedProfile& loaded, const std::optional<std::string>& samples_given);
const CpuCalibration& cpu_plot_inputs(const LoadedProfile& loaded);

// The bundled profiles folder: $PERFMODEL_DATA_DIR/profiles, <exe>/../share/perfmodel/profiles,
// or the source tree's data/profiles, whichever exists first.
std::string bundled_profiles_dir();
std::string bundled_profile_path();
// The bundled recorded validation run (data/validation/<gpu>): compiled resources of every
// reference kernel and the measured configuration sweeps.
std::string bundled_validation_dir();

Format selected_format(const po::variables_map& vm);
// The value of an optional string option, if given.
std::optional<std::string> optional_value(const po::variables_map& vm, const char* name);

// Two-word commands ("predict transfer", "plot transfers", "profile show"): runs the handler
// named by the first argument with the rest. Throws InputError for a missing or unknown target.
using Handler = int (*)(const Invocation&);
int dispatch_target(const Invocation& inv, const std::string& command,
                    const std::vector<std::pair<std::string, Handler>>& targets);

int cmd_calibrate(const Invocation& inv);
int cmd_fit(const Invocation& inv);
int cmd_predict(const Invocation& inv);
int cmd_profile(const Invocation& inv);
int cmd_plot(const Invocation& inv);
int cmd_validate(const Invocation& inv);
int cmd_check(const Invocation& inv);
int cmd_tune(const Invocation& inv);
int cmd_roofline(const Invocation& inv);
int cmd_report(const Invocation& inv);
int predict_kernel_command(const Invocation& inv);
int predict_workload_command(const Invocation& inv);
int predict_farm_command(const Invocation& inv);  // cmd_farm.cpp (also `perfmodel farm`)
int plot_farm(const Invocation& inv);             // cmd_farm.cpp
int plot_microbench(const Invocation& inv);       // plot_microbench.cpp
int plot_cpu(const Invocation& inv);              // plot_cpu.cpp
int plot_speedup(const Invocation& inv);          // plot_speedup.cpp
int profile_diff(const Invocation& sub);          // cmd_profile_diff.cpp

}  // namespace perfmodel::cli
