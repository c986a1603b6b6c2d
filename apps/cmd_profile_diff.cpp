// perfmodel profile diff A B: every constant two profiles share, side by side, with its relative
// difference, flagged where the difference exceeds the spread either calibration observed.
#include <ostream>
#include <string>

#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/report/profile_diff.hpp"

namespace perfmodel::cli {

int profile_diff(const Invocation& sub) {
  po::options_description options("perfmodel profile diff options");
  options.add_options()("a", po::value<std::string>()->required(), "first profile")("b", po::value<std::string>()->required(),
                                                                                    "second profile");
  add_format_option(options);
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  po::variables_map vm;
  if (!parse_or_help(sub, "usage: perfmodel profile diff A.yaml B.yaml [--format F]\n\n"
                     "Every constant the two profiles share, side by side (GPU ceilings, launch, latency, DRAM\n"
                     "concurrency, bank conflicts; PCIe copy times at 4 B, 64 KiB, 1 MiB, 64 MiB and 1 GiB per\n"
                     "direction and host memory; CPU bandwidth, FP32 rate and kernel efficiencies), the relative\n"
                     "difference, and whether it exceeds the spread either calibration observed of it.",
                     options, &positional, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const Profile a = load_profile(vm["a"].as<std::string>());
  const Profile b = load_profile(vm["b"].as<std::string>());
  Report report = profile_diff_report(a, b);
  report.meta.insert(report.meta.begin(), {"profile_b", Cell(vm["b"].as<std::string>())});
  report.meta.insert(report.meta.begin(), {"profile_a", Cell(vm["a"].as<std::string>())});
  render(report, format, sub.out);
  return kExitOk;
}

}  // namespace perfmodel::cli
