#include "profile_report.hpp"

namespace perfmodel::cli {

Report profile_report(const Profile& profile) {
  Report r;
  r.meta.push_back({"schema_version", Cell(std::int64_t{profile.schema_version})});
  for (const auto& [key, value] : profile.provenance.fields()) r.meta.push_back({key, Cell(*value)});
  if (!profile.pcie) return r;
  const PcieCalibration& pcie = *profile.pcie;
  r.meta.push_back({"pcie_samples_file", Cell(pcie.samples_file)});
  r.meta.push_back({"pcie_timer", Cell(pcie.timer)});
  r.meta.push_back({"pcie_calibration_wall_s", Cell(pcie.calibration_wall_s, Unit::seconds)});
  Table curves{"pcie_curves", {}};
  Table segments{"pcie_segments", {}};
  constexpr double kGiB = 1073741824.0;
  for (const auto& [key, c] : pcie.curves) {
    Record row{{"curve", Cell(key.name())},
               {"segments", Cell(static_cast<std::int64_t>(c.segments.size()))},
               {"T_x_bytes_per_s", Cell(c.asymptotic_rate_bytes_per_s(), Unit::bytes_per_s)},
               {"rate_at_1GiB_bytes_per_s", Cell(kGiB / c.seconds(kGiB), Unit::bytes_per_s)},
               {"time_at_4B_s", Cell(c.seconds(4), Unit::seconds)},
               {"fit_sizes", Cell(static_cast<std::int64_t>(c.fit.sizes))},
               {"fit_mean_rel_error", Cell(c.fit.mean_rel_error, Unit::percent)},
               {"fit_max_rel_error", Cell(c.fit.max_rel_error, Unit::percent)}};
    if (c.holdout) {
      row.push_back({"holdout_sizes", Cell(static_cast<std::int64_t>(c.holdout->sizes))});
      row.push_back({"holdout_mean_rel_error", Cell(c.holdout->mean_rel_error, Unit::percent)});
      row.push_back({"holdout_max_rel_error", Cell(c.holdout->max_rel_error, Unit::percent)});
    }
    curves.rows.push_back(row);
    for (const TransferSegment& s : c.segments)
      segments.rows.push_back({{"curve", Cell(key.name())},
                               {"from_bytes", Cell(s.from_bytes, Unit::bytes)},
                               {"to_bytes", Cell(s.to_bytes, Unit::bytes)},
                               {"c1_setup_s", Cell(s.setup_s, Unit::seconds)},
                               {"rate_bytes_per_s", Cell(s.s_per_byte > 0 ? 1.0 / s.s_per_byte : 0.0, Unit::bytes_per_s)},
                               {"c0_s_per_byte", Cell(c.c0_s_per_byte(s))},
                               {"misaligned_s", Cell(s.misaligned_s, Unit::seconds)},
                               {"sizes", Cell(static_cast<std::int64_t>(s.sizes))},
                               {"mean_rel_error", Cell(s.mean_rel_error, Unit::percent)},
                               {"max_rel_error", Cell(s.max_rel_error, Unit::percent)}});
  }
  r.tables.push_back(std::move(curves));
  r.tables.push_back(std::move(segments));
  return r;
}

}  // namespace perfmodel::cli
