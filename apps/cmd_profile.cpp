// perfmodel profile show PATH | perfmodel profile diff A B
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/report/profile_diff.hpp"
#include "perfmodel/report/profile_report.hpp"

namespace perfmodel::cli {

namespace {

int profile_show(const Invocation& sub) {
  po::options_description options("perfmodel profile show options");
  options.add_options()("path", po::value<std::string>(), "profile to show (default: the bundled H100 profile)");
  add_profile_option(options);  // --profile P: the same as the positional PROFILE, as every other command takes it
  add_format_option(options);
  po::positional_options_description positional;
  positional.add("path", 1);
  po::variables_map vm;
  if (!parse_or_help(sub, "usage: perfmodel profile show [PROFILE.yaml | --profile PROFILE.yaml] [--format F]\n\n"
                     "Validates a profile and prints it, with a warning where its CPU calibration looks measured on a\n"
                     "busy host (cache plateaus out of order, more threads reading slower than fewer, a kernel model\n"
                     "missing its held-out sizes by over 10 % on average or 30 % at worst).",
                     options, &positional, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  if (vm.count("path") && vm.count("profile")) throw InputError("profile show: give the profile once, as PROFILE.yaml or with --profile");
  const std::string path = vm.count("path") ? vm["path"].as<std::string>() : vm.count("profile") ? vm["profile"].as<std::string>() : bundled_profile_path();
  const Profile profile = load_profile(path);
  Report report = profile_report(profile);
  report.meta.insert(report.meta.begin(), {"profile", Cell(path)});
  render(report, format, sub.out);
  return kExitOk;
}

}  // namespace

int cmd_profile(const Invocation& inv) { return dispatch_target(inv, "profile", {{"show", profile_show}, {"diff", profile_diff}}); }

}  // namespace perfmodel::cli
