#include "cli.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <map>
#include <ostream>

#include "cli_common.hpp"
#include "offload_cli.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/version.hpp"

#ifndef PERFMODEL_SOURCE_DATA_DIR
#error "PERFMODEL_SOURCE_DATA_DIR must be defined by the build"
#endif

namespace perfmodel::cli {

namespace {

constexpr const char* kBundledProfile = "nvidia-h100-80gb-hbm3.yaml";

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string executable_dir() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<std::size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

std::string quote_for_shell(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The recorded validation run of the bundled profile's GPU (compiled resources, measured sweeps).
constexpr const char* kBundledValidation = "nvidia-h100-80gb-hbm3";

const char* kTopUsage =
    "perfmodel — calibrate a machine once, then predict GPU/CPU work in closed form\n"
    "\n"
    "usage: perfmodel <command> [options]     (perfmodel <command> --help for each)\n"
    "\n"
    "commands:\n"
    "  calibrate            run microbenchmarks on this machine's GPU and CPU, write a profile (+ raw samples)\n"
    "  fit                  re-fit a profile from recorded raw samples (no GPU needed)\n"
    "  predict transfer     host<->device copy time(s) from a profile\n"
    "  predict cpu          CPU time of a reference kernel (bandwidth curves + FMA ceiling + fitted efficiency)\n"
    "  predict kernel       GPU time of a reference kernel (workload descriptor + execution metrics + profile)\n"
    "  predict workload     GPU time of a kernel described in a YAML file (bytes, flops, accesses, launch)\n"
    "  predict farm         a stream of tasks over CUDA streams (also: perfmodel farm): completion and service\n"
    "                       time, the bound stage, speedups, the best number of streams\n"
    "  offload              CPU or GPU? CPU time vs GPU kernels + copies, decision with its uncertainty, crossover n,\n"
    "                       CG's break-even iterations, chunked overlap and the best CPU/GPU split\n"
    "  tune                 the launch configuration the model predicts fastest, beside the measured optimum\n"
    "  validate             run the GPU reference kernels, predict each run, report the errors\n"
    "  check transfers      time random-size copies no calibration timed, against the profile's intervals\n"
    "  report               one self-contained HTML page (+ Markdown) with the profile, plots, validation,\n"
    "                       roofline and speedups, to attach to a paper or a pull request\n"
    "  roofline             the profile's hierarchical roofline with kernels measured and predicted (gnuplot)\n"
    "  profile show         print a profile readably (validates it)\n"
    "  plot transfers       measured vs predicted transfer time and bandwidth (gnuplot: SVG + PNG)\n"
    "  plot speedup         GPU (kernel + copies) vs CPU over n, measured and predicted, crossovers; kernel variants\n"
    "  plot farm            task-farm completion time and speedup vs streams, measured and predicted, #SM bound\n"
    "  plot cpu             CPU bandwidth vs working set and threads, with the cache plateaus (gnuplot)\n"
    "  plot microbench      GPU microbenchmarks: bandwidth vs bytes in flight, bank conflicts, strides,\n"
    "                       partition camping, bandwidth vs working set, latency (gnuplot: SVG + PNG)\n"
    "  version              toolkit version and commit\n"
    "\n"
    "exit codes: 0 ok, 1 bad input (options, files), 2 runtime failure (no GPU, CUDA error, I/O)\n";

}  // namespace

bool parse_or_help(const Invocation& inv, const std::string& usage, po::options_description& options,
                   const po::positional_options_description* positional, po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(inv.args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      inv.out << usage << "\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

void add_profile_option(po::options_description& options) {
  options.add_options()("profile,p", po::value<std::string>(),
                        "calibration profile (YAML); default: the bundled NVIDIA H100 profile");
}

void add_format_option(po::options_description& options) {
  options.add_options()("format,f", po::value<std::string>()->default_value("table"), "output: table|yaml|json|csv")(
      "table", po::value<std::string>(),
      "with --format csv: the table to write (CSV is one table; default the first, its '#' header names the others)");
}

Format selected_format(const po::variables_map& vm) {
  Format format = parse_format(vm["format"].as<std::string>());
  if (vm.count("table")) {
    if (format.kind != Format::csv) throw InputError("--table: only with --format csv (the other formats hold every table)");
    format.csv_table = vm["table"].as<std::string>();
    if (format.csv_table.empty()) throw InputError("--table: empty table name");
  }
  return format;
}

int dispatch_target(const Invocation& inv, const std::string& command,
                    const std::vector<std::pair<std::string, Handler>>& targets) {
  std::string names;
  for (const auto& t : targets) names += (names.empty() ? "" : "|") + t.first;
  const std::string usage = "usage: perfmodel " + command + " " + names + " [options]   (add --help after the target)";
  if (inv.args.empty()) throw InputError(usage);
  if (inv.args[0] == "--help" || inv.args[0] == "-h") {
    inv.out << usage << "\n";
    return kExitOk;
  }
  for (const auto& [name, handler] : targets)
    if (inv.args[0] == name)
      return handler({std::vector<std::string>(inv.args.begin() + 1, inv.args.end()), inv.command_line, inv.out, inv.err});
  throw InputError(command + ": unknown target '" + inv.args[0] + "' (this build has: " + names + ")");
}

std::string bundled_profiles_dir() {
  if (const char* env = std::getenv("PERFMODEL_DATA_DIR")) return std::string(env) + "/profiles";
  const std::string installed = executable_dir() + "/../share/perfmodel/profiles";
  if (is_directory(installed)) return installed;
  return std::string(PERFMODEL_SOURCE_DATA_DIR) + "/profiles";
}

std::string bundled_profile_path() { return bundled_profiles_dir() + "/" + kBundledProfile; }

std::string bundled_validation_dir() {
  const std::string profiles = bundled_profiles_dir();
  return profiles.substr(0, profiles.size() - std::string("profiles").size()) + "validation/" + kBundledValidation;
}

std::string LoadedProfile::note() const {
  std::string n = "profile: " + path;
  if (bundled)
    n += " (bundled: " + profile.provenance.device_name + ", measured " + profile.provenance.date_utc +
         "; pass --profile to use your machine's)";
  return n;
}

namespace {
InputError missing_section(const std::string& path, const char* section) {
  return InputError(path + ": the profile has no " + section + " section (run `perfmodel calibrate --only " + section +
                    "` on the machine, or give a profile that has one with --profile)");
}
}  // namespace

const GpuCalibration& LoadedProfile::gpu() const {
  if (!profile.gpu) throw missing_section(path, "gpu");
  return *profile.gpu;
}
const CpuCalibration& LoadedProfile::cpu() const {
  if (!profile.cpu) throw missing_section(path, "cpu");
  return *profile.cpu;
}
const PcieCalibration& LoadedProfile::pcie() const {
  if (!profile.pcie) throw missing_section(path, "pcie");
  return *profile.pcie;
}

LoadedProfile load_selected_profile(const po::variables_map& vm) {
  LoadedProfile loaded;
  if (vm.count("profile")) {
    loaded.path = vm["profile"].as<std::string>();
  } else {
    loaded.path = bundled_profile_path();
    loaded.bundled = true;
  }
  loaded.profile = load_profile(loaded.path);
  return loaded;
}

void add_profile_meta(Report& report, const LoadedProfile& loaded) {
  add_profile_header(report, loaded.path, loaded.bundled, loaded.profile.provenance, loaded.note());
}

double parse_positive_number(const std::string& text, const std::string& what) {
  double v = 0;
  try {
    std::size_t used = 0;
    v = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::logic_error&) {
    throw InputError(what + ": '" + text + "' is not a number");
  }
  if (!(v > 0) || !std::isfinite(v)) throw InputError(what + ": must be a positive, finite number, got '" + text + "'");
  return v;
}

namespace {

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string command_line = "perfmodel";
  for (const std::string& a : args) command_line += " " + quote_for_shell(a);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      out << kTopUsage;
      return args.empty() ? kExitBadInput : kExitOk;
    }
    const std::string& command = args[0];
    if (command == "version" || command == "--version") {
      out << "perfmodel " << toolkit_version() << " (" << toolkit_commit() << ")\n";
      return kExitOk;
    }
    static const std::map<std::string, Handler> commands = {{"calibrate", cmd_calibrate},
                                                            {"fit", cmd_fit},
                                                            {"predict", cmd_predict},
                                                            {"profile", cmd_profile},
                                                            {"plot", cmd_plot},
                                                            {"validate", cmd_validate},
                                                            {"check", cmd_check},
                                                            {"tune", cmd_tune},
                                                            {"roofline", cmd_roofline},
                                                            {"report", cmd_report},
                                                            {"offload", cmd_offload},
                                                            {"farm", predict_farm_command}};
    const auto it = commands.find(command);
    if (it == commands.end()) throw InputError("unknown command '" + command + "' (see perfmodel --help)");
    Invocation inv{std::vector<std::string>(args.begin() + 1, args.end()), command_line, out, err};
    return it->second(inv);
  } catch (const InputError& e) {
    err << "perfmodel: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const RuntimeFailure& e) {
    err << "perfmodel: error: " << e.what() << "\n";
    return kExitRuntimeFailure;
  } catch (const std::exception& e) {
    err << "perfmodel: internal error: " << e.what() << "\n";
    return kExitRuntimeFailure;
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const int code = run_command(args, out, err);
  // Output that never arrived (a full disk, a closed pipe) is a failure, not a result.
  errno = 0;
  out.flush();
  if (!out) {
    const int why = errno;
    err << "perfmodel: error: cannot write the output to standard output" << (why ? std::string(": ") + std::strerror(why) : "") << "\n";
    return kExitRuntimeFailure;
  }
  return code;
}

}  // namespace perfmodel::cli
