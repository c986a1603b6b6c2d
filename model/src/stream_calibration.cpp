#include "perfmodel/model/stream_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/gpu_fit.hpp"
#include "perfmodel/model/statistics.hpp"

namespace perfmodel {
namespace {

double param_of(const SeriesPoint& p, const std::string& name, const std::string& series) {
  const auto it = p.params.find(name);
  if (it == p.params.end()) throw InputError(series + ": a sample lacks the parameter " + name);
  return it->second;
}

// The amount (tasks or copies) of a series' configuration: every repetition has the same one.
double amount_of(const GpuSampleFile& file, const std::string& series, const std::map<std::string, double>& params) {
  for (const BenchmarkSample& s : file.samples)
    if (s.series == series && s.params == params) return s.amount;
  throw InputError(series + ": no samples");
}

}  // namespace

double StreamCalibration::concurrency_at(double streams) const {
  if (concurrency.rows.empty()) return 0;
  const std::size_t cs = concurrency.column("streams"), cc = concurrency.column("concurrency");
  const auto& rows = concurrency.rows;
  if (streams <= rows.front()[cs]) return std::min(streams, rows.front()[cc]);
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (streams <= rows[i][cs]) {
      const double x0 = rows[i - 1][cs], x1 = rows[i][cs], t = (streams - x0) / (x1 - x0);
      return rows[i - 1][cc] + t * (rows[i][cc] - rows[i - 1][cc]);
    }
  return rows.back()[cc];
}

double StreamCalibration::busy_issue_s() const {
  if (!concurrency.has("host_s")) return 0;
  const std::size_t cs = concurrency.column("streams"), ct = concurrency.column("tasks"), ch = concurrency.column("host_s");
  std::vector<double> per_task;
  for (const auto& row : concurrency.rows)
    if (row[cs] >= 8 && row[ct] > 0 && row[ch] > 0) per_task.push_back(row[ch] / row[ct]);
  return per_task.empty() ? 0 : summarize(per_task).median;
}

StreamCalibration::CopySharing StreamCalibration::copy_sharing(double bytes, double streams) const {
  CopySharing out;
  if (copies.rows.empty() || !(bytes > 0)) return out;
  const std::size_t cs = copies.column("streams"), cb = copies.column("bytes"), ch = copies.column("h2d_s_per_copy"),
                    cp = copies.column("bidir_s_per_pair");
  double size = copies.rows.front()[cb];
  for (const auto& r : copies.rows)
    if (std::abs(std::log(r[cb] / bytes)) < std::abs(std::log(size / bytes))) size = r[cb];
  const std::vector<double>* one = nullptr;
  const std::vector<double>* at = nullptr;  // the largest measured S not above `streams`
  for (const auto& r : copies.rows) {
    if (r[cb] != size) continue;
    if (r[cs] == 1) one = &r;
    if (r[cs] <= streams && (!at || r[cs] > (*at)[cs])) at = &r;
  }
  if (!one || !at) return out;
  out.h2d_ratio = (*at)[ch] / (*one)[ch];
  out.pair_factor = (*at)[cp] / (2 * (*one)[ch]);
  return out;
}

bool has_stream_samples(const GpuSampleFile& file) {
  return std::any_of(file.samples.begin(), file.samples.end(), [](const BenchmarkSample& s) { return s.series.rfind("streams.", 0) == 0; });
}

StreamCalibration fit_streams(const GpuSampleFile& file, const std::string& samples_file) {
  StreamCalibration c;
  c.samples_file = samples_file;
  c.measured_on = file.provenance.device_name + ", " + file.provenance.device_uuid + ", " + file.provenance.date_utc;
  c.command = file.provenance.command;
  for (const BenchmarkSample& s : file.samples)
    if (s.series.rfind("streams.", 0) == 0 && s.series != "streams.issue" && s.series != "streams.serial" &&
        s.series != "streams.concurrency" && s.series != "streams.concurrency_host" && s.series != "streams.copies")
      throw InputError(samples_file + ": unknown series '" + s.series + "'");

  const auto single = [&](const std::string& series) {
    const std::vector<SeriesPoint> points = series_medians(file.samples, series);
    if (points.size() != 1) throw InputError(series + ": expected one configuration, found " + std::to_string(points.size()));
    const double amount = amount_of(file, series, points[0].params);
    if (!(amount > 0)) throw InputError(series + ": the amount (tasks) must be > 0");
    return std::make_pair(points[0], amount);
  };
  {
    const auto [p, tasks] = single("streams.issue");
    c.issue_s = p.median_seconds / tasks;
    c.connections = param_of(p, "connections", "streams.issue");
  }
  {
    const auto [p, tasks] = single("streams.serial");
    c.serial_task_s = p.median_seconds / tasks;
  }
  const std::vector<SeriesPoint> conc = series_medians(file.samples, "streams.concurrency");
  if (conc.empty()) throw InputError("streams.concurrency: no samples");
  // The host's time to issue each row's tasks, where the calibration kept it (a column host_s).
  std::map<double, double> host_by_streams;
  for (const SeriesPoint& p : series_medians(file.samples, "streams.concurrency_host"))
    host_by_streams[param_of(p, "streams", "streams.concurrency_host")] = p.median_seconds;
  c.concurrency.columns = {"streams", "tasks", "seconds", "concurrency"};
  if (!host_by_streams.empty()) c.concurrency.columns.push_back("host_s");
  std::map<double, std::vector<double>> by_streams;
  for (const SeriesPoint& p : conc) {
    const double streams = param_of(p, "streams", "streams.concurrency");
    const double spin = param_of(p, "spin_ns", "streams.concurrency") * 1e-9;
    if (c.spin_s == 0) c.spin_s = spin;
    if (spin != c.spin_s) throw InputError("streams.concurrency: every configuration must spin equally long");
    const double tasks = amount_of(file, "streams.concurrency", p.params);
    by_streams[streams] = {streams, tasks, p.median_seconds, tasks * spin / p.median_seconds};
    if (!host_by_streams.empty()) {
      const auto h = host_by_streams.find(streams);
      if (h == host_by_streams.end() || !(h->second > 0))
        throw InputError("streams.concurrency_host: no host time for " + std::to_string(streams) + " streams");
      by_streams[streams].push_back(h->second);
    }
  }
  for (const auto& [s, row] : by_streams) {
    c.concurrency.rows.push_back(row);
    c.queues = std::max(c.queues, row[3]);
  }
  const std::vector<SeriesPoint> copies = series_medians(file.samples, "streams.copies");
  if (!copies.empty()) {
    c.copies.columns = {"streams", "bytes", "h2d_s_per_copy", "bidir_s_per_pair"};
    std::map<std::pair<double, double>, std::pair<double, double>> rows;  // (bytes, streams) → (h2d, bidir)
    for (const SeriesPoint& p : copies) {
      const double streams = param_of(p, "streams", "streams.copies"), bytes = param_of(p, "bytes", "streams.copies");
      const double per = p.median_seconds / amount_of(file, "streams.copies", p.params);
      (param_of(p, "bidir", "streams.copies") > 0 ? rows[{bytes, streams}].second : rows[{bytes, streams}].first) = per;
    }
    for (const auto& [key, r] : rows) {
      if (!(r.first > 0) || !(r.second > 0))
        throw InputError("streams.copies: " + std::to_string(key.first) + " B at " + std::to_string(key.second) +
                         " streams needs both an h2d and a bidir measurement");
      c.copies.rows.push_back({key.second, key.first, r.first, r.second});
    }
  }
  return c;
}

}  // namespace perfmodel
