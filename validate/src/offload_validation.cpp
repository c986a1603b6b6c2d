// The plan, the recorded files and the analysis of `perfmodel validate --only offload` (pure C++).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <tuple>
#include <map>
#include <set>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/predictors/offload.hpp"
#include "perfmodel/validate/analysis.hpp"
#include "perfmodel/validate/offload_validation.hpp"

#include "perfmodel/model/units.hpp"

namespace perfmodel {
namespace {

constexpr const char* kPlanFile = "offload_plan.csv";
constexpr const char* kOffloadMeasurementsFile = "offload_measurements.csv";
constexpr const char* kMagic = "# perfmodel offload measurements v1";
constexpr const char* kPlanMagic = "# perfmodel offload plan v1";
constexpr const char* kPlanHeader =
    "case,kernel,iterations,n,predicted_cpu_s,predicted_cpu_1thread_s,predicted_gpu_pinned_s,predicted_gpu_pageable_s,predicted_crossover_n,"
    "verdict,cpu_1thread_planned";
constexpr const char* kHeader = "kernel,iterations,n,path,memory,threads,check_error,check_bound,seconds,note";

std::string g(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}
std::string g3(double v) { return format_number(v); }
std::string pct(double v) { return g3(100 * v) + " %"; }
std::string no_commas(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.push_back("");
  return out;
}

std::string provenance_lines(const std::string& magic, const Provenance& p) {
  std::string s = magic + "\n";
  for (const auto& [k, v] : p.fields()) s += "# " + k + ": " + *v + "\n";
  return s;
}

OffloadOptions options_for(const OffloadCase& c, HostMemory memory, double threads) {
  OffloadOptions o;
  o.memory = memory;
  o.cpu_threads = threads;
  o.iterations = c.kernel == "cg" ? c.iterations : kCgIterations;
  return o;
}

double bytes_in(const std::string& k, double n) {
  double b = 0;
  for (const Transfer& t : offload_copies_in(k, n, HostMemory::pinned)) b += static_cast<double>(t.bytes);
  return b;
}

// The final sign change of log speedup over the sizes (log-linear between the bracketing ones):
// the size from which one side wins to the end of the range.
std::optional<double> final_crossing(const std::vector<std::pair<double, double>>& n_speedup, std::string& wins_above) {
  for (std::size_t i = n_speedup.size(); i-- > 1;) {
    const double a = std::log(n_speedup[i - 1].second), b = std::log(n_speedup[i].second);
    if ((a > 0) != (b > 0)) {
      const double u = a / (a - b);
      wins_above = b > 0 ? "gpu" : "cpu";
      return std::exp(std::log(n_speedup[i - 1].first) + u * (std::log(n_speedup[i].first) - std::log(n_speedup[i - 1].first)));
    }
  }
  return std::nullopt;
}

// The size from which `side` wins to the end of the sizes: the range's end where it does not win
// at the last size, its start where it wins at every size.
double side_wins_from(const std::vector<std::pair<double, double>>& n_speedup, const std::string& side) {
  const auto wins = [&](double s) { return side == "gpu" ? s > 1 : s <= 1; };
  if (!wins(n_speedup.back().second)) return n_speedup.back().first;
  std::string above;
  const std::optional<double> n = final_crossing(n_speedup, above);
  return n ? *n : n_speedup.front().first;
}

}  // namespace

// The copy curves' recorded error: the largest held-out |error| (or fit error) over the curves used.
void offload_copy_error_level(const Profile& gpu, const std::vector<Transfer>& copies, OffloadErrorLevels& e) {
  std::set<std::string> keys;
  for (const Transfer& t : copies) {
    const TransferCurve& c = gpu.require_pcie().curve(t.key);
    const FitQuality& q = c.holdout ? *c.holdout : c.fit;
    if (q.max_rel_error > e.copies) e.copies = q.max_rel_error;
    keys.insert(t.key.name());
  }
  std::string list;
  for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
  e.copies_source = "pcie curves " + list + ": largest |error| on held-out sizes (fit sizes where none were held out)";
}

void offload_gpu_error_level(const Profile& gpu, const ValidationRun& recorded, const std::string& gpu_kernel, OffloadErrorLevels& e) {
  ValidationRun run = recorded;
  if (!gpu_kernel.empty()) {
    std::vector<KernelMeasurement> kept;
    for (const KernelMeasurement& m : run.measurements)
      if (m.kernel == gpu_kernel) kept.push_back(m);
    run.measurements = kept;
  }
  if (run.measurements.empty()) {
    e.gpu_source = "the recorded validation run has no " + gpu_kernel + " runs: the GPU model's error is not included";
    return;
  }
  const ValidationAnalysis a = analyse_validation(run, gpu);
  e.gpu = a.overall.p90;
  e.gpu_source = "p90 |error| of the GPU model on " + std::to_string(a.overall.count) + " recorded runs of " +
                 (gpu_kernel.empty() ? std::string("all reference kernels") : gpu_kernel) + " (" + run.provenance.device_name + ", " +
                 run.provenance.date_utc + ")";
}

void offload_cpu_error_level(const Profile& cpu, const CpuSide& side, const CpuSideTime& t, OffloadErrorLevels& e) {
  if (side.kind == CpuSide::Kind::measured) {
    e.cpu_source = "measured (given): taken as exact";
    return;
  }
  if (side.kind == CpuSide::Kind::signature) {
    e.cpu_source = t.lower_bound ? "a roofline lower bound: the CPU time can only be longer (no upper end of the speedup)"
                                 : "a signature with a given efficiency, taken as exact: its error is not known";
    return;
  }
  const CpuKernelModel& m = cpu.require_cpu().kernels.at(side.kernel);
  if (m.holdout) {
    e.cpu = m.holdout->max_rel_error;
    e.cpu_source = "cpu.kernels." + side.kernel + ".holdout: largest |error| on " + std::to_string(m.holdout->sizes) + " held-out sizes at " +
                   g3(m.threads) + " threads";
    if (std::abs(t.threads - m.threads) > 0.5) e.cpu_source += " (this prediction is at " + g3(t.threads) + ": not held out there)";
  } else {
    e.cpu_source = "cpu.kernels." + side.kernel + " has no held-out check: the CPU model's error is not included";
  }
}

std::string OffloadCase::label() const { return kernel == "cg" ? "cg/" + std::to_string(iterations) : kernel; }

double OffloadMeasurement::median() const { return seconds.empty() ? 0 : summarize(seconds).median; }

std::vector<OffloadCase> offload_cases() {
  return {{"mv", 0}, {"mm", 0}, {"dot", 0}, {"cg", 1}, {"cg", 8}, {"cg", 64}, {"cholesky", 0}, {"conv2d", 0}, {"blur", 0}, {"cosine", 0}};
}

std::vector<OffloadPlanRow> offload_plan(const Profile& profile, const OffloadPlanLimits& limits, const ResourceTable& resources) {
  std::vector<OffloadPlanRow> plan;
  for (const OffloadCase& c : offload_cases()) {
    double from = 0, to = 0, multiple = 1;
    offload_size_range(c.kernel, from, to, multiple);
    const OffloadOptions pinned = options_for(c, HostMemory::pinned, 0);
    const auto cpu_all = [&](double n) { return predict_builtin_offload(profile, profile, c.kernel, n, pinned, resources).terms.cpu_s; };
    // The largest size whose CPU side (all threads) stays under the cap and whose inputs fit the host cap.
    const auto fits = [&](double n) { return cpu_all(n) <= limits.cpu_cap_s && bytes_in(c.kernel, n) <= limits.host_bytes_cap; };
    double klo = std::ceil(from / multiple), khi = std::floor(to / multiple);
    if (!fits(khi * multiple)) {
      while (khi - klo > 1) {
        const double m = std::floor((klo + khi) / 2);
        (fits(m * multiple) ? klo : khi) = m;
      }
      khi = klo;
    }
    const double cap = khi * multiple;
    const auto speedup = [&](double n) {
      const OffloadTerms t = predict_builtin_offload(profile, profile, c.kernel, n, pinned, resources).terms;
      return t.cpu_s / t.gpu_s();
    };
    const CrossoverResult cross = find_crossover(speedup, from, cap, multiple);
    std::optional<double> crossover;
    if (!cross.crossings.empty()) crossover = cross.crossings.front().n;
    // Sizes: log-spaced within a factor r of the crossover (vector kernels' work grows as n, the
    // matrices' as n^2 or n^3: a wider n range for the same span in time), widened until the
    // accepted sizes give `limits.sizes` distinct ones; the whole range where nothing crosses.
    const double r0 = c.kernel == "dot" || c.kernel == "cosine" ? 16 : 4;
    std::set<double> sizes;
    for (double r = r0; sizes.size() < static_cast<std::size_t>(limits.sizes); r *= 1.5) {
      const double lo = crossover ? std::max(from, *crossover / r) : from, hi = crossover ? std::min(cap, *crossover * r) : cap;
      sizes.clear();
      for (int i = 0; i < limits.sizes; ++i) {
        const double u = limits.sizes > 1 ? static_cast<double>(i) / (limits.sizes - 1) : 0;
        const double n = std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
        sizes.insert(std::clamp(std::round(n / multiple), std::ceil(from / multiple), khi) * multiple);
      }
      if (lo <= from && hi >= cap) break;  // the whole range: as many as it holds
    }
    if (limits.holdout) {  // the log-midpoints of the default plan's sizes, none of them
      const std::set<double> seen = sizes;
      sizes.clear();
      for (auto a = seen.begin(), b = std::next(a); a != seen.end() && b != seen.end(); ++a, ++b) {
        const double n = std::clamp(std::round(std::sqrt(*a * *b) / multiple), std::ceil(from / multiple), khi) * multiple;
        if (!seen.count(n)) sizes.insert(n);
      }
    }
    for (double n : sizes) {
      OffloadPlanRow row;
      row.c = c;
      row.n = static_cast<int>(n);
      const BuiltinOffload p = predict_builtin_offload(profile, profile, c.kernel, n, pinned, resources);
      row.predicted_cpu_s = p.terms.cpu_s;
      row.predicted_gpu_pinned_s = p.terms.gpu_s();
      row.predicted_gpu_pageable_s = predict_builtin_offload(profile, profile, c.kernel, n, options_for(c, HostMemory::pageable, 0), resources).terms.gpu_s();
      row.predicted_cpu_1thread_s = predict_builtin_offload(profile, profile, c.kernel, n, options_for(c, HostMemory::pinned, 1), resources).terms.cpu_s;
      row.cpu_1thread = row.predicted_cpu_1thread_s <= limits.cpu_cap_s;
      row.predicted_crossover_n = crossover;
      row.verdict = cross.verdict;
      plan.push_back(row);
    }
  }
  return plan;
}

// ----------------------------------------------------------------------------- files

void write_offload_plan(const std::string& dir, const std::vector<OffloadPlanRow>& plan, const Provenance& provenance) {
  std::filesystem::create_directories(dir);
  std::ostringstream s;
  s << provenance_lines(kPlanMagic, provenance) << kPlanHeader << "\n";
  for (const OffloadPlanRow& r : plan)
    s << r.c.label() << ',' << r.c.kernel << ',' << r.c.iterations << ',' << r.n << ',' << g(r.predicted_cpu_s) << ',' << g(r.predicted_cpu_1thread_s)
      << ',' << g(r.predicted_gpu_pinned_s) << ',' << g(r.predicted_gpu_pageable_s) << ','
      << (r.predicted_crossover_n ? g(*r.predicted_crossover_n) : "") << ',' << no_commas(r.verdict) << ',' << (r.cpu_1thread ? "true" : "false")
      << "\n";
  write_file_atomically((std::filesystem::path(dir) / kPlanFile).string(), s.str());
}

void write_offload_run(const std::string& dir, const OffloadRun& run) {
  write_offload_plan(dir, run.plan, run.provenance);
  std::ostringstream s;
  s << provenance_lines(kMagic, run.provenance);
  s << "# offload_wall_s: " << g(run.wall_s) << "\n# cpu_threads: " << run.cpu_threads << "\n";
  for (const std::string& n : run.notes) s << "# note: " << no_commas(n) << "\n";
  s << kHeader << "\n";
  for (const OffloadMeasurement& m : run.measurements) {
    s << m.c.kernel << ',' << m.c.iterations << ',' << m.n << ',' << m.path << ',' << m.memory << ',' << m.threads << ',' << g(m.check_error) << ','
      << g(m.check_bound) << ',';
    for (std::size_t i = 0; i < m.seconds.size(); ++i) s << (i ? ";" : "") << g(m.seconds[i]);
    s << ',' << no_commas(m.note) << "\n";
  }
  write_file_atomically((std::filesystem::path(dir) / kOffloadMeasurementsFile).string(), s.str());
}

MeasuredCrossing measured_crossing(const std::vector<std::pair<double, double>>& n_speedup, double band) {
  MeasuredCrossing m;
  if (n_speedup.size() < 2) return m;
  std::vector<std::pair<double, double>> up = n_speedup, down = n_speedup;
  for (auto& p : up) p.second *= 1 + band;
  for (auto& p : down) p.second /= 1 + band;
  std::string up_side, down_side;
  m.n = final_crossing(n_speedup, m.wins_above);
  const bool up_crosses = final_crossing(up, up_side).has_value(), down_crosses = final_crossing(down, down_side).has_value();
  std::string side = m.wins_above;
  if (side.empty()) side = up_crosses ? up_side : down_crosses ? down_side : "";
  if (side.empty()) return m;  // no crossing within the noise either
  m.side = side;
  const double a = side_wins_from(up, side), b = side_wins_from(down, side);
  m.low_n = std::min(a, b), m.high_n = std::max(a, b);
  return m;
}

bool is_offload_run(const std::string& dir) { return std::filesystem::exists(std::filesystem::path(dir) / kOffloadMeasurementsFile); }

namespace {

// Reads "# key: value" provenance lines and the rows after the header.
void read_csv(const std::string& path, const std::string& magic, const std::string& header, Provenance& provenance,
              const std::function<void(const std::string&, const std::string&, const std::function<InputError(const std::string&)>&)>& meta,
              const std::function<void(const std::vector<std::string>&, const std::function<InputError(const std::string&, const std::string&)>&)>& row) {
  std::istringstream in(read_file(path));
  std::string line;
  int number = 0;
  bool seen_header = false;
  auto fields = provenance.fields();
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = path + ":" + std::to_string(number);
    if (number == 1) {
      if (line != magic) throw InputError(where + ": not a perfmodel offload file (first line must be '" + magic + "')");
      continue;
    }
    if (line.rfind("# ", 0) == 0 && !seen_header) {
      const auto colon = line.find(": ");
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(2, colon - 2), value = line.substr(colon + 2);
      bool done = false;
      for (auto& [k, v] : fields)
        if (k == key) *v = value, done = true;
      if (!done) meta(key, value, [&](const std::string& problem) { return InputError(where + ": " + key + ": " + problem); });
      continue;
    }
    if (!seen_header) {
      if (line != header) throw InputError(where + ": expected the column header '" + header + "'");
      seen_header = true;
      continue;
    }
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line, ',');
    const std::vector<std::string> columns = split(header, ',');
    if (cells.size() != columns.size())
      throw InputError(where + ": " + std::to_string(cells.size()) + " columns, expected " + std::to_string(columns.size()));
    row(cells, [&](const std::string& column, const std::string& problem) { return InputError(where + ": " + column + ": " + problem); });
  }
  if (!seen_header) throw InputError(path + ": no column header");
}

double number(const std::string& cell, const std::string& column, const std::function<InputError(const std::string&, const std::string&)>& error) {
  try {
    std::size_t used = 0;
    const double v = std::stod(cell, &used);
    if (used != cell.size() || !std::isfinite(v)) throw std::invalid_argument(cell);
    return v;
  } catch (const std::logic_error&) {
    throw error(column, "'" + cell + "' is not a finite number");
  }
}

int count(const std::string& cell, const std::string& column, const std::function<InputError(const std::string&, const std::string&)>& error,
          int min_value) {
  const double v = number(cell, column, error);
  if (v != std::floor(v) || v < min_value || v > 2e9) throw error(column, "'" + cell + "' is not an integer >= " + std::to_string(min_value));
  return static_cast<int>(v);
}

OffloadCase case_of(const std::string& kernel, int iterations, const std::function<InputError(const std::string&, const std::string&)>& error) {
  for (const OffloadCase& c : offload_cases())
    if (c.kernel == kernel) {
      if (kernel == "cg" && iterations < 1) throw error("iterations", "cg needs iterations >= 1");
      return {kernel, kernel == "cg" ? iterations : 0};
    }
  throw error("kernel", "'" + kernel + "' is not a built-in offload kernel");
}

}  // namespace

OffloadRun read_offload_run(const std::string& dir) {
  OffloadRun run;
  const std::string mpath = (std::filesystem::path(dir) / kOffloadMeasurementsFile).string();
  const std::string ppath = (std::filesystem::path(dir) / kPlanFile).string();
  if (!std::filesystem::exists(mpath)) throw InputError(mpath + ": no such file (not a recorded offload run)");
  read_csv(
      mpath, kMagic, kHeader, run.provenance,
      [&](const std::string& key, const std::string& value, const std::function<InputError(const std::string&)>& error) {
        if (key == "offload_wall_s") run.wall_s = number(value, key, [&](const std::string&, const std::string& p) { return error(p); });
        else if (key == "cpu_threads") run.cpu_threads = count(value, key, [&](const std::string&, const std::string& p) { return error(p); }, 1);
        else if (key == "note") run.notes.push_back(value);
        else throw error("unknown metadata key");
      },
      [&](const std::vector<std::string>& c, const std::function<InputError(const std::string&, const std::string&)>& error) {
        OffloadMeasurement m;
        m.c = case_of(c[0], count(c[1], "iterations", error, 0), error);
        m.n = count(c[2], "n", error, 1);
        m.path = c[3];
        if (m.path != "cpu" && m.path != "gpu") throw error("path", "must be cpu or gpu");
        m.memory = c[4];
        if (m.path == "gpu" && m.memory != "pinned" && m.memory != "pageable") throw error("memory", "must be pinned or pageable for a gpu row");
        m.threads = count(c[5], "threads", error, 0);
        if (m.path == "cpu" && m.threads < 1) throw error("threads", "a cpu row needs threads >= 1");
        // A failed check may record a non-finite difference (a GPU result that is not finite): kept
        // as written, with no times (the row is not analysed).
        if (c[8].empty() && (c[6] == "inf" || c[6] == "nan" || c[6] == "-nan")) m.check_error = std::stod(c[6]);
        else m.check_error = number(c[6], "check_error", error);
        m.check_bound = number(c[7], "check_bound", error);
        if (!c[8].empty())
          for (const std::string& s : split(c[8], ';')) {
            const double v = number(s, "seconds", error);
            if (!(v > 0)) throw error("seconds", "every repetition must be > 0");
            m.seconds.push_back(v);
          }
        m.note = c[9];
        run.measurements.push_back(m);
      });
  if (run.cpu_threads < 1) throw InputError(mpath + ": missing '# cpu_threads: N'");
  if (std::filesystem::exists(ppath)) {
    Provenance p;
    read_csv(
        ppath, kPlanMagic, kPlanHeader, p, [](const std::string&, const std::string&, const std::function<InputError(const std::string&)>& e) { throw e("unknown metadata key"); },
        [&](const std::vector<std::string>& c, const std::function<InputError(const std::string&, const std::string&)>& error) {
          OffloadPlanRow r;
          r.c = case_of(c[1], count(c[2], "iterations", error, 0), error);
          r.n = count(c[3], "n", error, 1);
          r.predicted_cpu_s = number(c[4], "predicted_cpu_s", error);
          r.predicted_cpu_1thread_s = number(c[5], "predicted_cpu_1thread_s", error);
          r.predicted_gpu_pinned_s = number(c[6], "predicted_gpu_pinned_s", error);
          r.predicted_gpu_pageable_s = number(c[7], "predicted_gpu_pageable_s", error);
          if (!c[8].empty()) r.predicted_crossover_n = number(c[8], "predicted_crossover_n", error);
          r.verdict = c[9];
          r.cpu_1thread = c[10] == "true";
          run.plan.push_back(r);
        });
  }
  return run;
}

// ----------------------------------------------------------------------------- analysis

OffloadCpuSpread offload_cpu_spread(const OffloadRun& run, const Profile& cpu_profile, const Profile& gpu_profile, const ResourceTable& resources) {
  OffloadCpuSpread s;
  s.from = run.provenance.device_name + ", " + run.provenance.date_utc;
  std::map<std::pair<std::string, bool>, std::vector<double>> errors;
  for (const OffloadMeasurement& m : run.measurements) {
    if (m.seconds.empty() || m.path != "cpu") continue;
    const double measured = m.median(), predicted = predict_builtin_offload(cpu_profile, gpu_profile, m.c.kernel, m.n,
                                                                             options_for(m.c, HostMemory::pinned, m.threads), resources)
                                                            .terms.cpu_s;
    if (measured > 0 && predicted > 0) errors[{m.c.kernel, m.threads == 1}].push_back(std::max(predicted / measured, measured / predicted) - 1);
  }
  for (auto& [key, v] : errors) {
    std::sort(v.begin(), v.end());
    const std::size_t rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size())));  // nearest rank
    s.levels[key] = {v[std::max<std::size_t>(rank, 1) - 1], v.size()};
  }
  return s;
}

bool offload_cpu_error_level(const OffloadCpuSpread& spread, const std::string& kernel, double threads, OffloadErrorLevels& e) {
  const auto it = spread.levels.find({kernel, threads == 1});
  if (it == spread.levels.end()) return false;
  e.cpu = it->second.p90;
  e.cpu_source = "p90 of the CPU model's ratio error max(p/m, m/p) - 1 on " + std::to_string(it->second.sizes) + " measured sizes of " + kernel +
                 (threads == 1 ? " at one thread" : " at several threads") + " (recorded offload validation, " + spread.from + ")";
  return true;
}

OffloadAnalysis analyse_offload(const OffloadRun& run, const Profile& cpu_profile, const Profile& gpu_profile, const ValidationRun* gpu_run,
                                const OffloadRun* cpu_reference) {
  OffloadAnalysis a;
  std::map<std::string, OffloadErrorLevels> gpu_levels;  // by GPU kernel
  const ResourceTable resources = gpu_run ? gpu_run->resource_table() : ResourceTable{};
  const OffloadCpuSpread spread = offload_cpu_spread(cpu_reference ? *cpu_reference : run, cpu_profile, gpu_profile, resources);
  // (case label, n) → the measured medians.
  struct Measured {
    OffloadCase c;
    std::map<int, double> cpu;            // threads → median
    std::map<std::string, double> gpu;    // memory → median
  };
  std::map<std::pair<std::string, int>, Measured> by;
  for (const OffloadMeasurement& m : run.measurements) {
    if (m.seconds.empty()) continue;  // failed check or skipped
    Measured& x = by[{m.c.label(), m.n}];
    x.c = m.c;
    if (m.path == "cpu") x.cpu[m.threads] = m.median();
    else x.gpu[m.memory] = m.median();
  }
  std::map<std::string, std::size_t> case_order;
  for (const OffloadCase& c : offload_cases()) case_order[c.label()] = case_order.size();
  for (const auto& [key, x] : by)
    for (const auto& [threads, mc] : x.cpu)
      for (const auto& [memory, mg] : x.gpu) {
        OffloadPointAnalysis p;
        p.c = x.c;
        p.n = key.second;
        p.memory = memory;
        p.threads = threads;
        p.measured_cpu_s = mc, p.measured_gpu_s = mg;
        const BuiltinOffload pr = predict_builtin_offload(cpu_profile, gpu_profile, x.c.kernel, p.n,
                                                          options_for(x.c, *parse_host_memory(memory), threads), resources);
        p.predicted_cpu_s = pr.terms.cpu_s, p.predicted_gpu_s = pr.terms.gpu_s();
        p.measured_speedup = mc / mg, p.predicted_speedup = p.predicted_cpu_s / p.predicted_gpu_s;
        p.speedup_error = p.predicted_speedup / p.measured_speedup - 1;
        p.close = std::abs(p.measured_speedup - 1) < 0.05;
        p.correct = (p.predicted_speedup > 1) == (p.measured_speedup > 1);
        if (gpu_run) {
          auto level = gpu_levels.find(pr.gpu_kernel);
          if (level == gpu_levels.end()) {
            OffloadErrorLevels e;
            offload_gpu_error_level(gpu_profile, *gpu_run, pr.gpu_kernel, e);
            level = gpu_levels.emplace(pr.gpu_kernel, e).first;
          }
          OffloadErrorLevels e = level->second;
          CpuSide side;
          side.kernel = x.c.kernel, side.n = p.n, side.iterations = x.c.kernel == "cg" ? x.c.iterations : kCgIterations;
          side.threads = threads;
          if (!offload_cpu_error_level(spread, x.c.kernel, threads, e)) offload_cpu_error_level(cpu_profile, side, pr.cpu, e);
          std::vector<Transfer> copies = pr.gpu.copies_in;
          copies.insert(copies.end(), pr.gpu.copies_out.begin(), pr.gpu.copies_out.end());
          offload_copy_error_level(gpu_profile, copies, e);
          const OffloadDecision d = decide_offload(pr.terms, e);
          p.speedup_low = d.speedup_low;
          p.speedup_high = d.speedup_high;
          p.inside_interval = p.measured_speedup >= d.speedup_low && (!d.speedup_high || p.measured_speedup <= *d.speedup_high);
        }
        a.points.push_back(p);
      }
  std::stable_sort(a.points.begin(), a.points.end(), [&](const OffloadPointAnalysis& l, const OffloadPointAnalysis& r) {
    return std::make_tuple(case_order[l.c.label()], l.memory, -l.threads, l.n) < std::make_tuple(case_order[r.c.label()], r.memory, -r.threads, r.n);
  });
  // Crossovers over the measured sizes, per (case, memory, threads).
  std::map<std::tuple<std::size_t, std::string, int>, std::vector<const OffloadPointAnalysis*>> series;
  for (const OffloadPointAnalysis& p : a.points) series[{case_order[p.c.label()], p.memory, p.threads}].push_back(&p);
  for (const auto& [key, pts] : series) {
    if (pts.size() < 2) continue;
    OffloadCrossoverCheck c;
    c.c = pts.front()->c;
    c.memory = std::get<1>(key);
    c.threads = std::get<2>(key);
    std::vector<std::pair<double, double>> measured;
    for (const auto* p : pts) measured.push_back({static_cast<double>(p->n), p->measured_speedup});
    const MeasuredCrossing mc = measured_crossing(measured);
    c.measured_n = mc.n, c.measured_wins_above = mc.wins_above;
    if (mc.high_n > 0) c.measured_low_n = mc.low_n, c.measured_high_n = mc.high_n;
    double from = 0, to = 0, multiple = 1;
    offload_size_range(c.c.kernel, from, to, multiple);
    const OffloadOptions o = options_for(c.c, *parse_host_memory(c.memory), c.threads);
    const auto predicted_speedup = [&](double n) {
      const OffloadTerms t = predict_builtin_offload(cpu_profile, gpu_profile, c.c.kernel, n, o, resources).terms;
      return t.cpu_s / t.gpu_s();
    };
    const CrossoverResult pc = find_crossover(predicted_speedup, pts.front()->n, pts.back()->n, multiple);
    // The final crossing, as the advisor reports it (CrossoverResult::gpu_from_n).
    if (!pc.crossings.empty()) c.predicted_n = pc.crossings.back().n, c.predicted_wins_above = pc.crossings.back().wins_above;
    // Compared only where both cross the same way (the same side wins above).
    if (c.measured_n && c.predicted_n && c.measured_wins_above == c.predicted_wins_above) c.error = *c.predicted_n / *c.measured_n - 1;
    if (c.measured_high_n) {
      // The side the measured crossing (or its noise) hands over to; the prediction's size from
      // which that side wins to the end (the range's start or end where it crosses nowhere).
      const std::string& side = mc.side;
      double predicted_from = 0;
      if (c.predicted_n && c.predicted_wins_above == side) predicted_from = *c.predicted_n;
      else if (!c.predicted_n) {
        const bool gpu_at_end = predicted_speedup(pts.back()->n) > 1;
        predicted_from = (gpu_at_end == (side == "gpu")) ? pts.front()->n : pts.back()->n;
      }
      c.predicted_inside_measured = predicted_from > 0 && predicted_from >= *c.measured_low_n * (1 - 1e-9) && predicted_from <= *c.measured_high_n * (1 + 1e-9);
    }
    a.crossovers.push_back(c);
  }
  const auto summarise = [&](bool all) {
    OffloadAnalysis::Summary s;
    std::vector<double> errors;
    for (const OffloadPointAnalysis& p : a.points) {
      if ((p.threads == run.cpu_threads) != all || (!all && p.threads != 1)) continue;
      ++s.cases;
      errors.push_back(std::abs(p.speedup_error));
      if (p.speedup_low) ++s.with_interval, s.inside_interval += p.inside_interval ? 1 : 0;
      if (p.close) {
        ++s.close;
        continue;
      }
      ++s.decided;
      s.correct += p.correct ? 1 : 0;
    }
    s.accuracy = s.decided ? static_cast<double>(s.correct) / s.decided : 0;
    if (!errors.empty()) {
      const SampleSummary e = summarize(errors);
      s.speedup_median = e.median, s.speedup_p90 = e.p90;
    }
    for (const OffloadCrossoverCheck& c : a.crossovers) {
      if ((c.threads == run.cpu_threads) != all || (!all && c.threads != 1)) continue;
      if (!c.measured_n && !c.predicted_n) continue;
      ++s.crossovers_compared;
      if (c.error && std::abs(*c.error) <= 0.25) ++s.crossovers_within_25;
      if ((c.error && std::abs(*c.error) <= 0.25) || c.predicted_inside_measured) ++s.crossovers_within_25_or_noise;
    }
    return s;
  };
  a.all_threads = summarise(true);
  a.one_thread = summarise(false);
  return a;
}

void write_offload_analysis(const std::string& dir, const OffloadRun& run, const OffloadAnalysis& a, const std::string& profile_note) {
  std::filesystem::create_directories(dir);
  std::ostringstream pred;
  pred << "case,n,memory,threads,measured_cpu_s,predicted_cpu_s,measured_gpu_s,predicted_gpu_s,measured_speedup,predicted_speedup,relative_error,"
          "within_5_percent,decision_correct,speedup_low,speedup_high,inside_interval\n";
  for (const OffloadPointAnalysis& p : a.points)
    pred << p.c.label() << ',' << p.n << ',' << p.memory << ',' << p.threads << ',' << g(p.measured_cpu_s) << ',' << g(p.predicted_cpu_s) << ','
         << g(p.measured_gpu_s) << ',' << g(p.predicted_gpu_s) << ',' << g(p.measured_speedup) << ',' << g(p.predicted_speedup) << ','
         << g(p.speedup_error) << ',' << (p.close ? "true" : "false") << ',' << (p.close ? "" : p.correct ? "true" : "false") << ','
         << (p.speedup_low ? g(*p.speedup_low) : "") << ',' << (p.speedup_high ? g(*p.speedup_high) : "") << ','
         << (p.speedup_low ? (p.inside_interval ? "true" : "false") : "") << "\n";
  write_file_atomically((std::filesystem::path(dir) / "offload_predictions.csv").string(), pred.str());
  std::ostringstream cr;
  cr << "case,memory,threads,measured_crossover_n,measured_wins_above,predicted_crossover_n,predicted_wins_above,relative_error,"
        "measured_crossover_low_n,measured_crossover_high_n,predicted_inside_measured_interval\n";
  for (const OffloadCrossoverCheck& c : a.crossovers)
    cr << c.c.label() << ',' << c.memory << ',' << c.threads << ',' << (c.measured_n ? g(*c.measured_n) : "") << ',' << c.measured_wins_above << ','
       << (c.predicted_n ? g(*c.predicted_n) : "") << ',' << c.predicted_wins_above << ',' << (c.error ? g(*c.error) : "") << ','
       << (c.measured_low_n ? g(*c.measured_low_n) : "") << ',' << (c.measured_high_n ? g(*c.measured_high_n) : "") << ','
       << (c.measured_high_n ? (c.predicted_inside_measured ? "true" : "false") : "") << "\n";
  write_file_atomically((std::filesystem::path(dir) / "offload_crossovers.csv").string(), cr.str());

  std::ostringstream md;
  md << "# Offload advisor validation — " << run.provenance.device_name << ", " << run.provenance.date_utc << "\n\n"
     << "Measured with `" << run.provenance.command << "` (toolkit " << run.provenance.toolkit_commit << ") on " << run.provenance.host_cpu
     << " (" << run.cpu_threads << " CPU threads), " << g3(run.wall_s) << " s. Predicted from " << profile_note << ".\n\n"
     << "Each GPU time is the host's steady clock around the whole offloaded operation (copies in, kernels, copies out, synchronize); "
        "each CPU time the toolkit's CPU reference kernel. Medians of the repetitions. Every GPU result was checked against the CPU "
        "reference before its times were kept. The sizes were chosen before measuring, around the crossover the profile predicted "
        "(offload_plan.csv, in the order measured).\n\n";
  const auto summary = [&](const char* title, const OffloadAnalysis::Summary& s) {
    md << "| " << title << " | " << s.cases << " | " << s.close << " | " << s.correct << " / " << s.decided << " (" << pct(s.accuracy) << ") | "
       << pct(s.speedup_median) << " | " << pct(s.speedup_p90) << " | " << s.crossovers_within_25 << " / " << s.crossovers_compared << " | "
       << s.crossovers_within_25_or_noise << " / " << s.crossovers_compared << " | "
       << (s.with_interval ? std::to_string(s.inside_interval) + " / " + std::to_string(s.with_interval) : std::string("-")) << " |\n";
  };
  md << "## Summary\n\n| CPU side | comparisons | within 5 % (not decided) | decision correct | speedup \\|error\\| median | p90 | "
        "crossovers within ±25 % | within ±25 % or inside the measured crossing's interval | measured inside the predicted interval |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  summary("all threads", a.all_threads);
  summary("one thread", a.one_thread);
  md << "\nTargets (all threads): decision ≥ 97 %, speedup |error| median ≤ 10 %, p90 ≤ 25 %, every crossover within ±25 %. The predicted interval moves the CPU time "
        "by the p90 of the CPU model's ratio error on the bundled recorded offload run (per kernel, at one thread or at several; "
        "for that run itself an in-sample level), the GPU and copy terms by their recorded levels (offload.hpp). A crossover is the final "
        "crossing over the measured sizes (the size from which one side wins to the end); the measured crossing's interval is where it "
        "moves with every measured speedup 5 % higher or lower (the margin under which no decision is counted).\n\n";
  // The speedup error split by side: predicted / measured − 1 of each side (signed median; p90 of
  // its magnitude). With one side's times as measured the speedup's error is the other side's
  // (its inverse for the GPU side): these columns are what each model alone leaves.
  const auto per_case = [&](bool all) {
    md << "## Per case (" << (all ? "all threads" : "one thread") << ", pinned and pageable)\n\n| case | comparisons | decision correct | "
       << "speedup \\|error\\| median | p90 | CPU model error, signed median | CPU \\|error\\| p90 | GPU side error, signed median | "
          "GPU \\|error\\| p90 |\n|---|---|---|---|---|---|---|---|---|\n";
    std::map<std::string, std::vector<const OffloadPointAnalysis*>> per;
    std::vector<std::string> order{""};
    for (const OffloadPointAnalysis& p : a.points) {
      if (all ? p.threads != run.cpu_threads : p.threads != 1) continue;
      if (!per.count(p.c.label())) order.push_back(p.c.label());
      per[p.c.label()].push_back(&p);
      per[""].push_back(&p);
    }
    if (per[""].empty()) return;
    order.push_back(order.front());
    order.erase(order.begin());
    for (const std::string& label : order) {
      std::vector<double> s, c, cs, gg, gs;
      std::size_t decided = 0, correct = 0;
      for (const auto* p : per[label]) {
        s.push_back(std::abs(p->speedup_error));
        cs.push_back(p->predicted_cpu_s / p->measured_cpu_s - 1), c.push_back(std::abs(cs.back()));
        gs.push_back(p->predicted_gpu_s / p->measured_gpu_s - 1), gg.push_back(std::abs(gs.back()));
        if (!p->close) ++decided, correct += p->correct ? 1 : 0;
      }
      md << "| " << (label.empty() ? std::string("**all**") : label) << " | " << s.size() << " | " << correct << " / " << decided << " | "
         << pct(summarize(s).median) << " | " << pct(summarize(s).p90) << " | " << pct(summarize(cs).median) << " | " << pct(summarize(c).p90)
         << " | " << pct(summarize(gs).median) << " | " << pct(summarize(gg).p90) << " |\n";
    }
    md << "\n";
  };
  per_case(true);
  per_case(false);
  md << "## Crossovers over the measured sizes\n\n| case | memory | threads | measured n | measured n, speedups ±5 % | predicted n | error | "
        "predicted inside the measured interval |\n|---|---|---|---|---|---|---|---|\n";
  for (const OffloadCrossoverCheck& c : a.crossovers) {
    const auto n_of = [](const std::optional<double>& n, const std::string& wins) {
      return n ? g3(*n) + " (" + (wins == "gpu" ? "GPU" : "CPU") + " wins above)" : std::string("none");
    };
    md << "| " << c.c.label() << " | " << c.memory << " | " << c.threads << " | " << n_of(c.measured_n, c.measured_wins_above) << " | "
       << (c.measured_high_n ? g3(*c.measured_low_n) + " – " + g3(*c.measured_high_n) : std::string("-")) << " | "
       << n_of(c.predicted_n, c.predicted_wins_above) << " | " << (c.error ? pct(*c.error) : "-") << " | "
       << (c.measured_high_n ? (c.predicted_inside_measured ? "yes" : "no") : "-") << " |\n";
  }
  if (!run.notes.empty() || !a.notes.empty()) {
    md << "\n## Notes\n\n";
    for (const std::string& n : run.notes) md << "- " << n << "\n";
    for (const std::string& n : a.notes) md << "- " << n << "\n";
  }
  write_file_atomically((std::filesystem::path(dir) / "report.md").string(), md.str());
}

}  // namespace perfmodel
