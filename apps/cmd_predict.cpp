// perfmodel predict transfer ... | predict cpu ... (the tables: perfmodel/report/predict_tables.hpp), and the dispatch of `perfmodel predict`.
#include <algorithm>
#include <ostream>

#include "cli_common.hpp"
#include "perfmodel/model/cpu_fit.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/cpu_compute.hpp"
#include "perfmodel/report/predict_tables.hpp"

namespace perfmodel::cli {
namespace {

TransferKey parse_key(const std::string& direction, const std::string& memory, const std::string& where) {
  const auto d = parse_direction(direction);
  if (!d) throw InputError(where + ": direction '" + direction + "' is not h2d, d2h or bidir");
  const auto m = parse_host_memory(memory);
  if (!m) throw InputError(where + ": memory '" + memory + "' is not pinned or pageable");
  return {*d, *m};
}

// "h2d:pinned:64MiB"
Transfer parse_transfer_spec(const std::string& spec) {
  const auto a = spec.find(':');
  const auto b = a == std::string::npos ? a : spec.find(':', a + 1);
  if (b == std::string::npos) throw InputError("--add '" + spec + "': expected DIRECTION:MEMORY:BYTES, e.g. h2d:pinned:64MiB");
  const std::string where = "--add '" + spec + "'";
  const std::uint64_t bytes = parse_bytes(spec.substr(b + 1), where);
  if (bytes == 0) throw InputError(where + ": a copy of 0 bytes; sizes must be positive");
  return {parse_key(spec.substr(0, a), spec.substr(a + 1, b - a - 1), where), bytes};
}

int predict_transfer(const Invocation& inv) {
  po::options_description options("perfmodel predict transfer options");
  options.add_options()("bytes,b", po::value<std::string>(), "bytes per copy, e.g. 4096, 64MiB, 1.5GB")(
      "direction,d", po::value<std::string>()->default_value("h2d"), "h2d | d2h | bidir (one copy each way at once)")(
      "memory,m", po::value<std::string>()->default_value("pinned"), "host memory: pinned | pageable")(
      "add", po::value<std::vector<std::string>>()->composing(), "another copy DIRECTION:MEMORY:BYTES (repeatable); copies run one after another")(
      "for", po::value<std::string>(), "the transfers of a reference kernel as White (2013) counts them: mv | mm | conv2d (with --n, --memory)")(
      "n", po::value<std::string>(), "matrix side for --for")(
      "filter", po::value<std::string>()->default_value("3"), "filter side for --for conv2d")(
      "mode", po::value<std::string>()->default_value("single"),
      "single: one synchronous cudaMemcpy timed with CUDA events around it | stream: the per-copy cost of copies queued "
      "back to back in a stream");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel predict transfer --bytes N [--direction h2d|d2h|bidir] [--memory pinned|pageable]\n"
                     "                                  [--mode single|stream] [--add DIR:MEM:BYTES]... [--for mv|mm|conv2d --n N]\n"
                     "                                  [--profile P]\n\n"
                     "Predicts host<->device copy time from the profile's piecewise PCIe model (White (2013) Eq 3.14-3.15),\n"
                     "for a single synchronous copy (default) or a copy queued in a stream (--mode stream), with the 5-95 %\n"
                     "interval the calibration observed around the curve (interval_low_s, interval_high_s; null for profiles\n"
                     "of schema 2-3, which have none). Each copy's row names the regime (segment) it falls in. In profiles of\n"
                     "schema 3, bridge = yes marks a segment fitted on no sizes across a gap between two fitted ones.\n"
                     "See docs/transfers.md.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);

  std::vector<Transfer> transfers;
  if (vm.count("bytes")) {
    const TransferKey key = parse_key(vm["direction"].as<std::string>(), vm["memory"].as<std::string>(), "--direction/--memory");
    const std::uint64_t bytes = parse_bytes(vm["bytes"].as<std::string>(), "--bytes");
    if (bytes == 0) throw InputError("--bytes: a copy of 0 bytes; sizes must be positive");
    transfers.push_back({key, bytes});
  }
  if (vm.count("add"))
    for (const std::string& spec : vm["add"].as<std::vector<std::string>>()) {
      transfers.push_back(parse_transfer_spec(spec));
      if (transfers.back().bytes == 0) throw InputError("--add '" + spec + "': a copy of 0 bytes; give a positive size");
    }
  if (vm.count("for")) {
    if (!vm.count("n")) throw InputError("--for needs --n (the matrix side)");
    const auto n = static_cast<std::uint64_t>(parse_whole_number(vm["n"].as<std::string>(), "--n", 1, limits::kMaxProblemSize));
    const HostMemory memory = parse_key("h2d", vm["memory"].as<std::string>(), "--memory").memory;
    const std::string kernel = vm["for"].as<std::string>();
    std::vector<Transfer> added;
    if (kernel == "mv") added = mv_transfers(n, memory);
    else if (kernel == "mm") added = mm_transfers(n, memory);
    else if (kernel == "conv2d")
      added = conv2d_transfers(n, static_cast<std::uint64_t>(parse_whole_number(vm["filter"].as<std::string>(), "--filter", 1, limits::kMaxProblemSize)), memory);
    else throw InputError("--for: '" + kernel + "' is not mv, mm or conv2d");
    transfers.insert(transfers.end(), added.begin(), added.end());
  }
  if (transfers.empty()) throw InputError("nothing to predict: give --bytes, --add or --for (see --help)");
  for (const Transfer& t : transfers)
    if (t.bytes == 0) throw InputError("a transfer of 0 bytes: sizes must be positive");

  const auto mode = parse_transfer_mode(vm["mode"].as<std::string>());
  if (!mode) throw InputError("--mode: expected single or stream, got '" + vm["mode"].as<std::string>() + "'");
  const LoadedProfile loaded = load_selected_profile(vm);
  loaded.pcie();
  const CommunicationPredictor predictor(loaded.profile);
  const TransferListPrediction prediction = predictor.predict(transfers, *mode);

  Report report;
  add_profile_meta(report, loaded);
  add_transfer_prediction(report, prediction, *mode, loaded.profile.schema_version);
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

int predict_cpu_command(const Invocation& inv) {
  po::options_description options("perfmodel predict cpu options");
  std::string kernels;
  for (const std::string& k : cpu_kernel_names()) kernels += (kernels.empty() ? "" : " | ") + k;
  options.add_options()("kernel,k", po::value<std::string>()->required(), ("reference kernel: " + kernels).c_str())(
      "n", po::value<std::vector<std::string>>()->composing()->required(), "problem size (repeatable): matrix order, vector length or image side")(
      "threads,t", po::value<std::string>(), "threads (default: the count the kernel model was fitted at)");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel predict cpu --kernel K --n N [--n N]... [--threads T] [--profile P]\n\n"
                     "Predicts a CPU reference kernel's time from the profile's cpu section: measured bandwidth\n"
                     "curves and FMA ceiling, plus the kernel's fitted overhead and efficiency. Warns where the\n"
                     "profile's CPU calibration looks measured on a busy host (see perfmodel profile show --help).",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const LoadedProfile loaded = load_selected_profile(vm);
  const std::string kernel = vm["kernel"].as<std::string>();
  const auto& names = cpu_kernel_names();
  if (std::find(names.begin(), names.end(), kernel) == names.end()) {
    std::string list;
    for (const std::string& k : names) list += (list.empty() ? "" : ", ") + k;
    throw InputError("--kernel: unknown CPU kernel '" + kernel + "' (known: " + list + ")");
  }
  double threads = 0;
  if (vm.count("threads")) threads = parse_whole_number(vm["threads"].as<std::string>(), "--threads", 1, limits::kMaxThreads);
  std::vector<CpuPrediction> predictions;
  for (const std::string& text : vm["n"].as<std::vector<std::string>>())
    predictions.push_back(predict_cpu(loaded.profile, kernel, parse_whole_number(text, "--n", 1, limits::kMaxProblemSize), threads));
  Report report;
  add_profile_meta(report, loaded);
  add_cpu_predictions(report, kernel, predictions, cpu_calibration_warnings(loaded.cpu()));
  require_finite(report);
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace

int cmd_predict(const Invocation& inv) {
  return dispatch_target(inv, "predict", {{"transfer", predict_transfer},
                                               {"cpu", predict_cpu_command},
                                               {"kernel", predict_kernel_command},
                                               {"workload", predict_workload_command},
                                               {"farm", predict_farm_command}});
}

}  // namespace perfmodel::cli
