#pragma once
// The independent transfer check: sizes nobody fitted, single copies timed by a loop of its own
// (calibrate/transfer_check.hpp), compared with a profile's single-copy predictions and their
// intervals. It answers: do the measurements fall inside the stated 90 % interval 90 % of the
// time, and how far is the prediction from the median copy (pinned copies ≥ 1 MiB: target
// 5 %, below: 10 %)?
//
// The record (DIR/transfer_check.csv) keeps every copy:
//   # perfmodel transfer check v1
//   # seed: 1764181234
//   # <provenance lines>
//   direction,memory,bytes,rep,event_s
// so that the analysis can be redone against any profile (`perfmodel check transfers --from DIR`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/provenance.hpp"

namespace perfmodel {

struct TransferCheckPlanOptions {
  std::uint64_t seed = 1;
  int sizes_per_key = 24;  // per direction × memory (h2d, d2h × pinned, pageable)
  int reps = 5;            // copies per size
  std::uint64_t min_bytes = 3, max_bytes = std::uint64_t{256} << 20;
};

// Sizes drawn log-uniformly in [min_bytes, max_bytes] per key, none a power of two or three
// times one (the calibration's sizes), each copied `reps` times; all copies in one random order.
// Throws std::invalid_argument on sizes_per_key < 1, reps < 1 or min_bytes < 1 or max ≤ min.
std::vector<TransferCheckCopy> transfer_check_plan(const TransferCheckPlanOptions& options);

// Whether the PCIe calibration times this size (powers of two and their 3/2 multiples).
bool is_calibration_size(std::uint64_t bytes);

struct TransferCheckRecord {
  Provenance provenance;
  std::uint64_t seed = 0;
  std::string profile;  // the profile the check was run against (informative)
  std::vector<TransferCheckCopy> copies;
};

std::string to_csv(const TransferCheckRecord& record);
// Throws InputError "file:line: column: problem" on a malformed file.
TransferCheckRecord parse_transfer_check(const std::string& text, const std::string& file_name);

struct TransferCheckSize {
  TransferKey key;
  std::uint64_t bytes = 0;
  std::size_t copies = 0;
  double measured_s = 0;   // median of the copies
  double predicted_s = 0;
  double relative_error = 0;  // (predicted − measured) / measured
  std::optional<double> interval_low_s, interval_high_s;
  std::size_t inside = 0;  // copies inside the interval (0 without one)
};

struct TransferCheckGroup {
  std::string name;  // "h2d/pinned", "pinned >= 1 MiB", …, "all"
  std::size_t sizes = 0, copies = 0;
  std::optional<double> inside_fraction;      // of the copies; null where no interval was stated
  std::optional<double> median_abs_rel_error;  // over the sizes' medians; null without sizes
  std::optional<double> target_median_abs_rel_error;  // the target where it has one
};

struct TransferCheckAnalysis {
  TransferMode mode = TransferMode::single;
  std::vector<TransferCheckSize> sizes;
  std::vector<TransferCheckGroup> groups;
  double coverage_target = 0.90;
};

// Predicts every size of the record from the profile (in `mode`) and sums up. Throws InputError
// when the profile lacks a curve the record needs.
TransferCheckAnalysis analyse_transfer_check(const TransferCheckRecord& record, const Profile& profile,
                                             TransferMode mode = TransferMode::single);

}  // namespace perfmodel
