// The table of `perfmodel profile diff`: every constant two profiles share, side by side, with its relative
// difference, flagged where the difference exceeds the spread either calibration observed.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/report/profile_diff.hpp"

namespace perfmodel::report {

namespace {

// One compared quantity. The spread is what the calibration itself saw of that quantity's
// variation (relative): a ceiling's (p90 − p10) / median over its samples, a fit's mean relative
// error on its held-out sizes, a transfer curve's held-out error; 0 where the profile records none.
struct Quantity {
  std::string key, unit;
  double a = 0, b = 0;
  double spread_a = 0, spread_b = 0;
};

double relative_spread(const MeasuredRate& r) { return r.median > 0 ? (r.p90 - r.p10) / r.median : 0; }

double holdout_error(const std::optional<FitQuality>& q) { return q ? q->mean_rel_error : 0; }

void compare_gpu(const GpuCalibration& a, const GpuCalibration& b, std::vector<Quantity>& out) {
  for (const CeilingKind& kind : ceiling_kinds()) {
    const auto ia = a.ceilings.find(kind.name), ib = b.ceilings.find(kind.name);
    if (ia == a.ceilings.end() || ib == b.ceilings.end()) continue;
    out.push_back({std::string("gpu.ceilings.") + kind.name, kind.unit, ia->second.median, ib->second.median,
                   relative_spread(ia->second), relative_spread(ib->second)});
  }
  if (a.launch && b.launch) {
    out.push_back({"gpu.launch.empty_kernel_s", "s", a.launch->empty_kernel_s, b.launch->empty_kernel_s, 0, 0});
    out.push_back({"gpu.launch.launch_sync_s", "s", a.launch->launch_sync_s, b.launch->launch_sync_s, 0, 0});
    out.push_back({"gpu.launch.per_wave_s", "s", a.launch->per_wave_s, b.launch->per_wave_s, a.launch->wave_fit.mean_rel_error,
                   b.launch->wave_fit.mean_rel_error});
  }
  if (a.latency && b.latency) {
    out.push_back({"gpu.latency.l1_s", "s", a.latency->l1_s, b.latency->l1_s, 0, 0});
    out.push_back({"gpu.latency.l2_s", "s", a.latency->l2_s, b.latency->l2_s, 0, 0});
    out.push_back({"gpu.latency.dram_s", "s", a.latency->dram_s, b.latency->dram_s, 0, 0});
  }
  if (a.dram_concurrency && b.dram_concurrency) {
    const SaturationCurve &ca = *a.dram_concurrency, &cb = *b.dram_concurrency;
    out.push_back({"gpu.dram_concurrency.peak_Bps", "B/s", ca.peak_Bps, cb.peak_Bps, ca.fit.mean_rel_error, cb.fit.mean_rel_error});
    out.push_back({"gpu.dram_concurrency.latency_s", "s", ca.latency_s, cb.latency_s, ca.fit.mean_rel_error, cb.fit.mean_rel_error});
  }
  for (const auto& [word, curve] : a.bank_conflicts) {
    const auto it = b.bank_conflicts.find(word);
    if (it == b.bank_conflicts.end()) continue;
    out.push_back({"gpu.bank_conflicts." + std::to_string(word) + "B.penalty_32way", "ratio", curve.penalty(32), it->second.penalty(32),
                   curve.fit.mean_rel_error, it->second.fit.mean_rel_error});
  }
  if (a.partition && b.partition)
    out.push_back({"gpu.partition.penalty", "ratio", a.partition->penalty, b.partition->penalty, 0, 0});
  for (const auto& [type, curve] : a.atomics) {
    const auto it = b.atomics.find(type);
    if (it == b.atomics.end() || curve.addresses.empty() || it->second.addresses.empty()) continue;
    out.push_back({"gpu.atomics." + type + ".sector_update_s", "s", curve.sector_update_s(), it->second.sector_update_s(), 0, 0});
    // Both at the same K (the smaller largest K), so two grids of different size compare.
    const double k = std::min(curve.addresses.back(), it->second.addresses.back());
    out.push_back({"gpu.atomics." + type + ".seconds_per_update_spread", "s", curve.seconds_per_update_at(k),
                   it->second.seconds_per_update_at(k), 0, 0});
  }
  // Random-sector rates at 1 GiB, a table both calibrations measure (or bracket).
  if (a.dram_random && b.dram_random)
    out.push_back({"gpu.dram_random.sectors_per_s_1GiB", "sector/s", a.dram_random->sectors_per_s_at(1073741824.0),
                   b.dram_random->sectors_per_s_at(1073741824.0), 0, 0});
  if (a.dram_random_rmw && b.dram_random_rmw)
    out.push_back({"gpu.dram_random_rmw.sectors_per_s_1GiB", "sector/s", a.dram_random_rmw->sectors_per_s_at(1073741824.0),
                   b.dram_random_rmw->sectors_per_s_at(1073741824.0), 0, 0});
  if (a.dram_random_write && b.dram_random_write)
    out.push_back({"gpu.dram_random_write.sectors_per_s_1GiB", "sector/s", a.dram_random_write->sectors_per_s_at(1073741824.0),
                   b.dram_random_write->sectors_per_s_at(1073741824.0), 0, 0});
}

void compare_pcie(const PcieCalibration& a, const PcieCalibration& b, std::vector<Quantity>& out) {
  // Segments differ in number and place between runs, so the curves are compared where a user
  // reads them: the predicted time of a copy at sizes from setup-bound to rate-bound.
  static const double sizes[] = {4, 65536, 1048576, 67108864, 1073741824};
  for (const auto& [key, curve] : a.curves) {
    const auto it = b.curves.find(key);
    if (it == b.curves.end()) continue;
    for (double bytes : sizes) {
      char size[32];
      std::snprintf(size, sizeof size, "%.0f", bytes);
      out.push_back({"pcie." + key.name() + ".seconds_at_" + size + "_bytes", "s", curve.seconds(bytes), it->second.seconds(bytes),
                     holdout_error(curve.holdout), holdout_error(it->second.holdout)});
    }
  }
}

void compare_cpu(const CpuCalibration& a, const CpuCalibration& b, std::vector<Quantity>& out) {
  const double threads = std::min(a.max_threads(), b.max_threads());
  static const struct {
    const char* name;
    double bytes;
  } sets[] = {{"16KiB", 16384}, {"1MiB", 1048576}, {"256MiB", 268435456}};
  for (const std::string& kind : cpu_bandwidth_kinds()) {
    if (!a.bandwidth.count(kind) || !b.bandwidth.count(kind)) continue;
    for (double t : {1.0, threads})
      for (const auto& s : sets) {
        char key[96];
        std::snprintf(key, sizeof key, "cpu.bandwidth.%s.%s.threads_%.0f", kind.c_str(), s.name, t);
        out.push_back({key, "B/s", a.bandwidth_Bps(kind, s.bytes, t), b.bandwidth_Bps(kind, s.bytes, t), 0, 0});
      }
  }
  out.push_back({"cpu.fp32_flop_per_s.threads_1", "flop/s", a.fp32_flops(1), b.fp32_flops(1), 0, 0});
  char key[64];
  std::snprintf(key, sizeof key, "cpu.fp32_flop_per_s.threads_%.0f", threads);
  out.push_back({key, "flop/s", a.fp32_flops(threads), b.fp32_flops(threads), 0, 0});
  for (const auto& [name, model] : a.kernels) {
    const auto it = b.kernels.find(name);
    if (it == b.kernels.end()) continue;
    // The efficiency at the middle of the working sets both fitted.
    const double lo = std::max(model.efficiency.rows.front()[0], it->second.efficiency.rows.front()[0]);
    const double hi = std::min(model.efficiency.rows.back()[0], it->second.efficiency.rows.back()[0]);
    const double mid = lo < hi ? std::sqrt(lo * hi) : lo;
    out.push_back({"cpu.kernels." + name + ".efficiency", "ratio", model.efficiency_at(mid), it->second.efficiency_at(mid),
                   holdout_error(model.holdout), holdout_error(it->second.holdout)});
  }
}

std::string describe(const Provenance& p) {
  return p.device_name + " " + p.device_uuid.substr(0, std::min<std::size_t>(p.device_uuid.size(), 12)) + ", host " + p.host_name + ", " +
         p.date_utc;
}

}  // namespace

Report profile_diff_report(const Profile& a, const Profile& b) {
  std::vector<Quantity> quantities;
  std::vector<std::string> only;
  auto section = [&](const char* name, bool in_a, bool in_b) {
    if (in_a != in_b) only.push_back(std::string(name) + " only in " + (in_a ? "A" : "B"));
    return in_a && in_b;
  };
  if (section("gpu", a.gpu.has_value(), b.gpu.has_value())) compare_gpu(*a.gpu, *b.gpu, quantities);
  if (section("pcie", a.pcie.has_value(), b.pcie.has_value())) compare_pcie(*a.pcie, *b.pcie, quantities);
  if (section("cpu", a.cpu.has_value(), b.cpu.has_value())) compare_cpu(*a.cpu, *b.cpu, quantities);

  Report report;
  report.meta.push_back({"a", Cell(describe(a.provenance))});
  report.meta.push_back({"b", Cell(describe(b.provenance))});
  report.meta.push_back({"same_gpu", Cell(a.provenance.device_uuid == b.provenance.device_uuid)});
  Table table{"quantities", {}};
  std::int64_t flagged = 0;
  for (const Quantity& q : quantities) {
    if (!(std::isfinite(q.a) && std::isfinite(q.b))) continue;
    const double spread = std::max(q.spread_a, q.spread_b);
    const double reference = std::max(std::abs(q.a), std::abs(q.b));
    const double difference = reference > 0 ? (q.b - q.a) / std::abs(q.a == 0 ? reference : q.a) : 0.0;
    const bool beyond = spread > 0 && std::abs(difference) > spread;
    flagged += beyond ? 1 : 0;
    table.rows.push_back({{"key", Cell(q.key)},
                          {"unit", Cell(q.unit)},
                          {"a", Cell(q.a)},
                          {"b", Cell(q.b)},
                          {"relative_difference", Cell(difference, Unit::percent)},
                          {"spread", spread > 0 ? Cell(spread, Unit::percent) : Cell(nullptr)},
                          {"beyond_spread", Cell(beyond)}});
  }
  report.meta.push_back({"quantities_compared", Cell(static_cast<std::int64_t>(table.rows.size()))});
  report.meta.push_back({"quantities_beyond_spread", Cell(flagged)});
  report.tables.push_back(std::move(table));
  for (const std::string& o : only) report.notes.push_back(o);
  report.notes.push_back(
      "relative_difference = (b - a) / a; spread = the larger relative variation either calibration observed of that "
      "quantity (a ceiling's p10-p90 range over its median, a fit's mean error on its held-out sizes); '-' where "
      "the profile records none");
  return report;
}

}  // namespace perfmodel::report
