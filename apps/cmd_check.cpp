// perfmodel check transfers [--profile P] --out DIR [--sizes N] [--reps N] [--seed S] [--mode single|stream]
// perfmodel check transfers --from DIR [--profile P] [--mode single|stream]
#include <chrono>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "cli_common.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/report/transfer_check_report.hpp"
#include "perfmodel/validate/transfer_check.hpp"

namespace perfmodel::cli {
namespace {

constexpr const char* kRecordName = "transfer_check.csv";

int check_transfers(const Invocation& inv) {
  po::options_description options("perfmodel check transfers options");
  options.add_options()("out,o", po::value<std::string>(), "folder for the record (transfer_check.csv) and the analysis")(
      "from", po::value<std::string>(), "analyse a recorded check (DIR/transfer_check.csv) instead of measuring; writes its analysis there "
                                        "unless --out names another folder")(
      "mode", po::value<std::string>()->default_value("single"), "which prediction to compare with: single | stream")(
      "sizes", po::value<int>()->default_value(24), "random sizes per direction x host memory (h2d, d2h x pinned, pageable; 1-1000)")(
      "reps", po::value<int>()->default_value(5), "copies per size (1-100)")(
      "seed", po::value<std::uint64_t>(), "seed of the sizes and their order (default: from the clock; recorded)")(
      "max-bytes", po::value<std::string>()->default_value("256MiB"), "largest size drawn");
  add_profile_option(options);
  add_format_option(options);
  po::variables_map vm;
  if (!parse_or_help(inv,
                     "usage: perfmodel check transfers [--profile P] --out DIR [--sizes N] [--reps N] [--seed S]\n"
                     "       perfmodel check transfers --from DIR [--profile P] [--out DIR2]\n\n"
                     "The independent check of the transfer model: on the GPU, times single copies (a synchronous cudaMemcpy\n"
                     "between two CUDA events each, its own loop and buffers, not the calibration's) of random sizes that no\n"
                     "calibration times (never a power of two or three times one), pinned and pageable, h2d and d2h, and\n"
                     "compares them with the profile's predictions: the fraction of copies inside the stated 90 % interval\n"
                     "(target 0.90) and the median |error| of each size's median copy (pinned >= 1 MiB: 5 %, below: 10 %).\n"
                     "Run it minutes after `perfmodel calibrate`, with --profile the profile that wrote. Every copy is\n"
                     "recorded in DIR/transfer_check.csv; --from re-analyses a record against any profile.",
                     options, nullptr, vm))
    return kExitOk;
  const Format format = selected_format(vm);
  const auto mode = parse_transfer_mode(vm["mode"].as<std::string>());
  if (!mode) throw InputError("--mode: expected single or stream, got '" + vm["mode"].as<std::string>() + "'");
  if (!vm.count("out") && !vm.count("from")) throw InputError("check transfers: give --out DIR (measure) or --from DIR (re-analyse)");
  const LoadedProfile loaded = load_selected_profile(vm);  // a bad profile fails before the GPU is touched
  (void)loaded.profile.require_pcie();

  TransferCheckRecord record;
  std::string out_dir;
  if (vm.count("from")) {
    for (const char* flag : {"sizes", "reps", "seed"})
      if (vm.count(flag) && !vm[flag].defaulted()) throw InputError(std::string("--") + flag + ": not with --from (the record says what was measured)");
    const std::string from = vm["from"].as<std::string>();
    const std::string path = from + "/" + kRecordName;
    record = parse_transfer_check(read_file(path), path);
    out_dir = vm.count("out") ? vm["out"].as<std::string>() : from;
  } else {
    out_dir = vm["out"].as<std::string>();
    TransferCheckPlanOptions plan;
    plan.sizes_per_key = vm["sizes"].as<int>();
    plan.reps = vm["reps"].as<int>();
    if (plan.sizes_per_key < 1 || plan.sizes_per_key > 1000) throw InputError("--sizes: must lie in 1-1000");
    if (plan.reps < 1 || plan.reps > 100) throw InputError("--reps: must lie in 1-100");
    plan.max_bytes = parse_bytes(vm["max-bytes"].as<std::string>(), "--max-bytes");
    if (plan.max_bytes < 64 || plan.max_bytes > (std::uint64_t{4} << 30)) throw InputError("--max-bytes: must lie in 64 B - 4 GiB");
    plan.seed = vm.count("seed") ? vm["seed"].as<std::uint64_t>()
                                 : static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec || !std::filesystem::is_directory(out_dir)) throw InputError("--out " + out_dir + ": cannot create the folder");
    if (const auto why = gpu_unavailable_reason()) throw RuntimeFailure("cannot check transfers: " + *why);
    record.seed = plan.seed;
    record.profile = loaded.path;
    record.provenance = host_provenance(inv.command_line);
    fill_device_provenance(record.provenance);
    record.copies = transfer_check_plan(plan);
    inv.err << "check transfers: " << record.copies.size() << " single copies of " << plan.sizes_per_key * 4
            << " random sizes (seed " << plan.seed << ")\n";
    const auto started = std::chrono::steady_clock::now();
    time_transfer_check(record.copies, &inv.err);
    inv.err << "     timed in " << format_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count())
            << "\n";
    write_file_atomically(out_dir + "/" + kRecordName, to_csv(record));
  }
  const TransferCheckAnalysis analysis = analyse_transfer_check(record, loaded.profile, *mode);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  write_transfer_check_tables(out_dir, analysis);
  Report report;
  add_profile_meta(report, loaded);
  add_transfer_check(report, record, analysis, out_dir, vm.count("from") > 0);
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace

int cmd_check(const Invocation& inv) { return dispatch_target(inv, "check", {{"transfers", check_transfers}}); }

}  // namespace perfmodel::cli
