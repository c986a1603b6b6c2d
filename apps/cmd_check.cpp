// perfmodel check transfers [--profile P] --out DIR [--sizes N] [--reps N] [--seed S] [--mode single|stream]
// perfmodel check transfers --from DIR [--profile P] [--mode single|stream]
#include <chrono>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "cli_common.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/transfer_check.hpp"

namespace perfmodel::cli {
namespace {

constexpr const char* kRecordName = "transfer_check.csv";

Cell optional_cell(const std::optional<double>& v, Unit unit = Unit::none) { return v ? Cell(*v, unit) : Cell(nullptr); }

std::string prediction_of(TransferMode mode) {
  return mode == TransferMode::single
             ? "one synchronous cudaMemcpy timed with CUDA events around it (median of the copies of each size)"
             : "one copy of many queued back to back in a stream, compared with single copies";
}

Report sizes_report(const TransferCheckAnalysis& a) {
  Report r;
  r.meta.push_back({"prediction_of", Cell(prediction_of(a.mode))});
  Table t{"sizes", {}};
  for (const TransferCheckSize& s : a.sizes)
    t.rows.push_back({{"direction", Cell(to_string(s.key.direction))},
                      {"memory", Cell(to_string(s.key.memory))},
                      {"bytes", Cell(static_cast<std::int64_t>(s.bytes), Unit::bytes)},
                      {"copies", Cell(static_cast<std::int64_t>(s.copies))},
                      {"measured_s", Cell(s.measured_s, Unit::seconds)},
                      {"predicted_s", Cell(s.predicted_s, Unit::seconds)},
                      {"relative_error", Cell(s.relative_error, Unit::percent)},
                      {"interval_low_s", optional_cell(s.interval_low_s, Unit::seconds)},
                      {"interval_high_s", optional_cell(s.interval_high_s, Unit::seconds)},
                      {"inside_fraction", s.interval_low_s ? Cell(static_cast<double>(s.inside) / static_cast<double>(s.copies))
                                                           : Cell(nullptr)}});
  r.tables.push_back(std::move(t));
  return r;
}

Table summary_table(const TransferCheckAnalysis& a) {
  Table t{"summary", {}};
  for (const TransferCheckGroup& g : a.groups) {
    const bool covered = g.inside_fraction && *g.inside_fraction >= a.coverage_target;
    const bool accurate = !g.target_median_abs_rel_error ||
                          (g.median_abs_rel_error && *g.median_abs_rel_error <= *g.target_median_abs_rel_error);
    t.rows.push_back({{"group", Cell(g.name)},
                      {"sizes", Cell(static_cast<std::int64_t>(g.sizes))},
                      {"copies", Cell(static_cast<std::int64_t>(g.copies))},
                      {"inside_fraction", optional_cell(g.inside_fraction)},
                      {"coverage_target_fraction", Cell(a.coverage_target)},
                      {"median_abs_relative_error", optional_cell(g.median_abs_rel_error, Unit::percent)},
                      {"target_median_abs_relative_error", optional_cell(g.target_median_abs_rel_error, Unit::percent)},
                      {"meets_targets", g.inside_fraction ? Cell(covered && accurate) : Cell(nullptr)}});
  }
  return t;
}

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
  std::ostringstream sizes_csv, summary_csv;
  render(sizes_report(analysis), Format::csv, sizes_csv);
  Report summary;
  summary.tables.push_back(summary_table(analysis));
  render(summary, Format::csv, summary_csv);
  write_file_atomically(out_dir + "/transfer_check_sizes.csv", sizes_csv.str());
  write_file_atomically(out_dir + "/transfer_check_summary.csv", summary_csv.str());

  Report report;
  add_profile_meta(report, loaded);
  report.meta.push_back({"prediction_of", Cell(prediction_of(*mode))});
  report.meta.push_back({"mode", Cell(to_string(*mode))});
  report.meta.push_back({"measured_on", Cell(record.provenance.device_name + ", " + record.provenance.date_utc)});
  report.meta.push_back({"seed", Cell(static_cast<std::int64_t>(record.seed))});
  report.meta.push_back({"copies", Cell(static_cast<std::int64_t>(record.copies.size()))});
  report.tables.push_back(summary_table(analysis));
  report.notes.push_back("wrote " + out_dir + "/{" + (vm.count("from") ? "" : "transfer_check.csv,") +
                         "transfer_check_sizes.csv,transfer_check_summary.csv}");
  render(report, format, inv.out);
  return kExitOk;
}

}  // namespace

int cmd_check(const Invocation& inv) { return dispatch_target(inv, "check", {{"transfers", check_transfers}}); }

}  // namespace perfmodel::cli
