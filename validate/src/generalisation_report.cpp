// The generalisation suite's analysis: measured medians, predictions from the pre-registered
// signatures where this build can read them, relative errors, report.md and predictions.csv.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel {
namespace {

std::string g9(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}
std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f %%", 100 * v);
  return b;
}
std::string abs_pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", 100 * v);
  return b;
}
std::string opt_seconds(const std::optional<double>& v) { return v ? format_seconds(*v) : "-"; }
std::string opt_pct(const std::optional<double>& v) { return v ? pct(*v) : "-"; }
std::string opt_g9(const std::optional<double>& v) { return v ? g9(*v) : ""; }

}  // namespace

GenAnalysis analyse_generalisation(const GenRunRecord& run, const GenPredictor& predictor, const std::string& why) {
  GenAnalysis a;
  a.predicted = static_cast<bool>(predictor);
  a.not_predicted_because = a.predicted ? "" : why;
  // |error| per half ('A' … 'H'), single and steady; '*' collects every row.
  std::map<char, std::vector<double>> single_errors, steady_errors;
  for (const GenMeasurement& m : run.measurements) {
    GenRow row;
    row.measurement = m;
    const SampleSummary single = m.single();
    row.measured_single_s = single.median;
    row.single_spread = single.median > 0 ? (single.p90 - single.p10) / single.median : 0;
    row.measured_steady_s = m.steady().median;
    if (predictor) {
      row.prediction = predictor(m);
      if (row.prediction.single_s) {
        row.error_single = *row.prediction.single_s / row.measured_single_s - 1;
        for (const char h : {'*', m.half}) single_errors[h].push_back(std::abs(*row.error_single));
      }
      if (row.prediction.steady_s) {
        row.error_steady = *row.prediction.steady_s / row.measured_steady_s - 1;
        for (const char h : {'*', m.half}) steady_errors[h].push_back(std::abs(*row.error_steady));
      }
    }
    a.rows.push_back(std::move(row));
  }
  const auto stats = [](std::map<char, std::vector<double>>& errors, char half) { return error_stats(errors[half]); };
  a.single_all = stats(single_errors, '*'), a.single_a = stats(single_errors, 'A'), a.single_b = stats(single_errors, 'B');
  a.single_c = stats(single_errors, 'C'), a.single_d = stats(single_errors, 'D'), a.single_e = stats(single_errors, 'E');
  a.single_f = stats(single_errors, 'F'), a.single_g = stats(single_errors, 'G');
  a.single_h = stats(single_errors, 'H');
  a.steady_all = stats(steady_errors, '*'), a.steady_a = stats(steady_errors, 'A'), a.steady_b = stats(steady_errors, 'B');
  a.steady_c = stats(steady_errors, 'C'), a.steady_d = stats(steady_errors, 'D'), a.steady_e = stats(steady_errors, 'E');
  a.steady_f = stats(steady_errors, 'F'), a.steady_g = stats(steady_errors, 'G');
  a.steady_h = stats(steady_errors, 'H');
  return a;
}

std::vector<std::string> write_generalisation_report(const std::string& dir, const GenRunRecord& run, const GenAnalysis& a,
                                                     const std::string& profile_note, const std::string& command) {
  std::filesystem::create_directories(dir);
  std::vector<std::string> written;
  const Provenance& p = run.provenance;
  std::ostringstream md;
  md << "# Generalisation suite on " << p.device_name << ", " << p.date_utc << "\n\n";
  md << "Kernels the model was never tuned on (docs/generalisation-suite.md), each checked against its CPU reference "
        "before its times were kept.\n\n";
  md << "- measured: " << p.device_name << " (" << p.device_uuid << "), driver " << p.driver_version << ", runtime "
     << p.runtime_version << ", " << p.date_utc << ", toolkit " << p.toolkit_version << " commit " << p.toolkit_commit << ", `"
     << p.command << "`, " << g9(run.wall_s) << " s\n";
  md << "- single: one run (every launch of the kernel) timed with CUDA events around it, the L2 flushed (a memset of twice "
        "its size) before each; the median of the repetitions (p10, p90 beside it)\n";
  md << "- steady: N runs back to back between two events, divided by N; the median of the batches\n";
  md << "- this report: `" << command << "`\n";
  if (a.predicted) {
    // The signatures the command named with --workloads, else the pre-registered ones.
    const std::size_t flag = command.find("--workloads ");
    if (flag == std::string::npos) {
      md << "- predictions: from the signatures in data/workloads/generalisation/ (workload format 2, committed before the "
            "first measurement), " << profile_note << "\n";
    } else {
      const std::size_t from = flag + std::string("--workloads ").size();
      md << "- predictions: from the signatures in " << command.substr(from, command.find(' ', from) - from)
         << " (workload format 2; not the pre-registered data/workloads/generalisation/ unless it is that folder), "
         << profile_note << "\n";
    }
    md << "- relative_error = predicted / measured − 1; statistics are of |relative_error|\n\n";
    md << "## Errors\n\n| timing | kernels | count | median | p90 | max |\n|---|---|---|---|---|---|\n";
    auto line = [&](const char* timing, const char* set, const ErrorStats& s) {
      if (s.count == 0) {
        md << "| " << timing << " | " << set << " | 0 | - | - | - |\n";
        return;
      }
      md << "| " << timing << " | " << set << " | " << s.count << " | " << abs_pct(s.median) << " | " << abs_pct(s.p90) << " | "
         << abs_pct(s.max) << " |\n";
    };
    line("single", "all", a.single_all);
    line("single", "half A (model changes may be chosen on it)", a.single_a);
    line("single", "half B (held out)", a.single_b);
    line("single", "half C (fresh, held out)", a.single_c);
    line("single", "half D (fresh, held out)", a.single_d);
    line("single", "half E (fresh, held out)", a.single_e);
    line("single", "half F (fresh, held out)", a.single_f);
    line("single", "half G (fresh, held out)", a.single_g);
    line("single", "half H (fresh, held out)", a.single_h);
    line("steady", "all", a.steady_all);
    line("steady", "half A", a.steady_a);
    line("steady", "half B (held out)", a.steady_b);
    line("steady", "half C (fresh, held out)", a.steady_c);
    line("steady", "half D (fresh, held out)", a.steady_d);
    line("steady", "half E (fresh, held out)", a.steady_e);
    line("steady", "half F (fresh, held out)", a.steady_f);
    line("steady", "half G (fresh, held out)", a.steady_g);
    line("steady", "half H (fresh, held out)", a.steady_h);
    md << "\n";
  } else {
    md << "- predictions: none in this report (" << a.not_predicted_because << ")\n\n";
  }
  md << "## Per kernel\n\n";
  md << "| kernel | class | half | params | single | p10 | p90 | steady | runs/batch | predicted single | error | predicted steady | error | bound |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const GenRow& r : a.rows) {
    const GenMeasurement& m = r.measurement;
    const SampleSummary s = m.single();
    md << "| " << m.kernel << " | " << m.klass << " | " << m.half << " | " << gen::params_string(m.params) << " | "
       << format_seconds(s.median) << " | " << format_seconds(s.p10) << " | " << format_seconds(s.p90) << " | "
       << format_seconds(r.measured_steady_s) << " | " << m.steady_runs << " | " << opt_seconds(r.prediction.single_s) << " | "
       << opt_pct(r.error_single) << " | " << opt_seconds(r.prediction.steady_s) << " | " << opt_pct(r.error_steady) << " | "
       << (r.prediction.bound.empty() ? "-" : r.prediction.bound) << " |\n";
  }
  bool any_notes = false;
  for (const GenRow& r : a.rows)
    for (const std::string& n : r.prediction.notes) {
      if (!any_notes) md << "\n## Notes of the predictions\n\n";
      any_notes = true;
      md << "- " << r.measurement.kernel << " (" << gen::params_string(r.measurement.params) << "): " << n << "\n";
    }
  const std::string md_path = (std::filesystem::path(dir) / "report.md").string();
  write_file_atomically(md_path, md.str());
  written.push_back(md_path);

  if (a.predicted) {
    std::ostringstream csv;
    csv << "# perfmodel generalisation predictions v1\n";
    for (const auto& [key, value] : run.provenance.fields()) csv << "# measured_" << key << ": " << *value << "\n";
    csv << "# profile: " << profile_note << "\n# command: " << command << "\n";
    csv << "kernel,class,half,params,measured_single_s,measured_steady_s,predicted_single_s,predicted_steady_s,"
           "relative_error_single,relative_error_steady,bound\n";
    for (const GenRow& r : a.rows) {
      const GenMeasurement& m = r.measurement;
      csv << m.kernel << ',' << m.klass << ',' << m.half << ',' << gen::params_string(m.params) << ',' << g9(r.measured_single_s)
          << ',' << g9(r.measured_steady_s) << ',' << opt_g9(r.prediction.single_s) << ',' << opt_g9(r.prediction.steady_s) << ','
          << opt_g9(r.error_single) << ',' << opt_g9(r.error_steady) << ',' << r.prediction.bound << "\n";
    }
    const std::string csv_path = (std::filesystem::path(dir) / "predictions.csv").string();
    write_file_atomically(csv_path, csv.str());
    written.push_back(csv_path);
  }
  return written;
}

}  // namespace perfmodel
