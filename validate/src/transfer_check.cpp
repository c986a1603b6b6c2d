#include "perfmodel/validate/transfer_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/predictors/communication.hpp"

namespace perfmodel {
namespace {

constexpr const char* kMagic = "# perfmodel transfer check v1";
constexpr const char* kHeader = "direction,memory,bytes,rep,event_s";
constexpr double kMiB = 1024.0 * 1024.0;

std::string format_exact(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

bool is_calibration_size(std::uint64_t bytes) {
  auto power_of_two = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  return power_of_two(bytes) || (bytes % 3 == 0 && power_of_two(bytes / 3 * 2));
}

std::vector<TransferCheckCopy> transfer_check_plan(const TransferCheckPlanOptions& o) {
  if (o.sizes_per_key < 1 || o.reps < 1 || o.min_bytes < 1 || o.max_bytes <= o.min_bytes)
    throw std::invalid_argument("transfer_check_plan: needs sizes_per_key >= 1, reps >= 1, 1 <= min_bytes < max_bytes");
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> log_size(std::log(static_cast<double>(o.min_bytes)), std::log(static_cast<double>(o.max_bytes)));
  std::vector<TransferCheckCopy> copies;
  for (Direction d : {Direction::h2d, Direction::d2h})
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable}) {
      std::vector<std::uint64_t> sizes;
      while (static_cast<int>(sizes.size()) < o.sizes_per_key) {
        auto b = static_cast<std::uint64_t>(std::llround(std::exp(log_size(rng))));
        b = std::clamp(b, o.min_bytes, o.max_bytes);
        while (is_calibration_size(b) && b < o.max_bytes) ++b;
        if (is_calibration_size(b) || std::find(sizes.begin(), sizes.end(), b) != sizes.end()) continue;
        sizes.push_back(b);
      }
      for (std::uint64_t b : sizes)
        for (int r = 0; r < o.reps; ++r) copies.push_back({{d, m}, b, r, 0.0});
    }
  std::shuffle(copies.begin(), copies.end(), rng);
  return copies;
}

std::string to_csv(const TransferCheckRecord& record) {
  std::ostringstream out;
  out << kMagic << "\n# seed: " << record.seed << "\n";
  if (!record.profile.empty()) out << "# profile: " << record.profile << "\n";
  for (const auto& [key, value] : record.provenance.fields()) out << "# " << key << ": " << *value << "\n";
  out << kHeader << "\n";
  for (const TransferCheckCopy& c : record.copies)
    out << to_string(c.key.direction) << ',' << to_string(c.key.memory) << ',' << c.bytes << ',' << c.rep << ','
        << format_exact(c.event_s) << "\n";
  return out.str();
}

TransferCheckRecord parse_transfer_check(const std::string& text, const std::string& file_name) {
  TransferCheckRecord record;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  bool header = false;
  auto fail = [&](const std::string& column, const std::string& problem) {
    return InputError(file_name + ":" + std::to_string(number) + ": " + column + ": " + problem);
  };
  auto fields = record.provenance.fields();
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line != kMagic) throw fail("header", "not a perfmodel transfer check record (expected '" + std::string(kMagic) + "')");
      continue;
    }
    if (line.empty()) continue;
    if (line[0] == '#') {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(2, colon - 2), value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
      if (key == "seed") {
        try {
          record.seed = std::stoull(value);
        } catch (const std::logic_error&) {
          throw fail("seed", "'" + value + "' is not a whole number");
        }
      } else if (key == "profile") {
        record.profile = value;
      } else {
        for (auto& [name, field] : fields)
          if (name == key) *field = value;
      }
      continue;
    }
    if (!header) {
      if (line != kHeader) throw fail("header", "expected '" + std::string(kHeader) + "'");
      header = true;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    if (cells.size() != 5) throw fail("row", "expected 5 columns, found " + std::to_string(cells.size()));
    TransferCheckCopy c;
    const auto d = parse_direction(cells[0]);
    if (!d || *d == Direction::bidir) throw fail("direction", "'" + cells[0] + "' is not h2d or d2h");
    const auto m = parse_host_memory(cells[1]);
    if (!m) throw fail("memory", "'" + cells[1] + "' is not pinned or pageable");
    c.key = {*d, *m};
    try {
      std::size_t used = 0;
      const long long bytes = std::stoll(cells[2], &used);
      if (used != cells[2].size() || bytes <= 0) throw std::invalid_argument("bytes");
      c.bytes = static_cast<std::uint64_t>(bytes);
    } catch (const std::logic_error&) {
      throw fail("bytes", "'" + cells[2] + "' is not a positive integer");
    }
    try {
      c.rep = std::stoi(cells[3]);
      std::size_t used = 0;
      c.event_s = std::stod(cells[4], &used);
      if (used != cells[4].size()) throw std::invalid_argument("event_s");
    } catch (const std::logic_error&) {
      throw fail("row", "rep and event_s must be numbers");
    }
    if (!(c.event_s > 0) || !std::isfinite(c.event_s)) throw fail("event_s", "must be a positive, finite time");
    record.copies.push_back(c);
  }
  if (number == 0) throw InputError(file_name + ":1: header: the file is empty");
  if (!header) throw InputError(file_name + ": no '" + std::string(kHeader) + "' line");
  if (record.copies.empty()) throw InputError(file_name + ": no copies recorded");
  return record;
}

TransferCheckAnalysis analyse_transfer_check(const TransferCheckRecord& record, const Profile& profile, TransferMode mode) {
  const CommunicationPredictor predictor(profile);
  TransferCheckAnalysis out;
  out.mode = mode;
  std::map<std::pair<TransferKey, std::uint64_t>, std::vector<double>> by_size;
  for (const TransferCheckCopy& c : record.copies) by_size[{c.key, c.bytes}].push_back(c.event_s);
  for (const auto& [where, times] : by_size) {
    const TransferPrediction p = predictor.predict({where.first, where.second}, mode);
    TransferCheckSize s;
    s.key = where.first;
    s.bytes = where.second;
    s.copies = times.size();
    s.measured_s = median_of(times);
    s.predicted_s = p.seconds;
    s.relative_error = (p.seconds - s.measured_s) / s.measured_s;
    if (p.has_interval) {
      s.interval_low_s = p.interval_low_s;
      s.interval_high_s = p.interval_high_s;
      for (double t : times) s.inside += t >= p.interval_low_s && t <= p.interval_high_s ? 1 : 0;
    }
    out.sizes.push_back(s);
  }
  auto group = [&](const std::string& name, auto&& member, std::optional<double> target) {
    TransferCheckGroup g;
    g.name = name;
    g.target_median_abs_rel_error = target;
    std::vector<double> errors;
    std::size_t inside = 0, with_interval = 0;
    for (const TransferCheckSize& s : out.sizes) {
      if (!member(s)) continue;
      ++g.sizes;
      g.copies += s.copies;
      errors.push_back(std::fabs(s.relative_error));
      if (s.interval_low_s) with_interval += s.copies, inside += s.inside;
    }
    if (!errors.empty()) g.median_abs_rel_error = median_of(errors);
    if (with_interval > 0 && with_interval == g.copies) g.inside_fraction = static_cast<double>(inside) / static_cast<double>(with_interval);
    if (g.sizes > 0) out.groups.push_back(g);
  };
  for (Direction d : {Direction::h2d, Direction::d2h})
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable}) {
      const TransferKey key{d, m};
      group(key.name(), [&](const TransferCheckSize& s) { return s.key == key; }, std::nullopt);
    }
  for (HostMemory m : {HostMemory::pinned, HostMemory::pageable})
    for (bool large : {true, false}) {
      const std::string name = std::string(to_string(m)) + (large ? " >= 1 MiB" : " < 1 MiB");
      const std::optional<double> target = m == HostMemory::pinned ? std::optional<double>(large ? 0.05 : 0.10) : std::nullopt;
      group(name, [&](const TransferCheckSize& s) { return s.key.memory == m && (static_cast<double>(s.bytes) >= kMiB) == large; }, target);
    }
  group("all", [](const TransferCheckSize&) { return true; }, std::nullopt);
  return out;
}

}  // namespace perfmodel
