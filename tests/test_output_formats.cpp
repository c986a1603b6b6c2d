// The output scheme of docs/output.md, command by command: every command's --help runs; every
// command that takes --format runs in every format against the bundled data; its JSON parses (with
// nlohmann/json) and carries the common header fields; its YAML parses; its CSV is one table
// (provenance in '#' lines, one header row, every row as wide as the header).
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "perfmodel/report/report.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;

struct Result {
  int code;
  std::string out, err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = perfmodel::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

std::string joined(const std::vector<std::string>& args) {
  std::string s = "perfmodel";
  for (const std::string& a : args) s += " " + a;
  return s;
}

// The commands `perfmodel --help` lists: lines "  NAME [TARGET]   description".
std::vector<std::vector<std::string>> listed_commands() {
  const Result r = run({"--help"});
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::vector<std::string>> commands;
  const std::regex entry(R"(^  ([a-z]+)(?: ([a-z]+))?\s{2,}\S.*$)");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, entry)) continue;
    std::vector<std::string> words{m[1].str()};
    if (m[2].matched) words.push_back(m[2].str());
    commands.push_back(words);
  }
  return commands;
}

// A CSV body's records, each a list of fields ("…" quoting, "" a quote inside, a quoted field
// may hold a newline), as RFC 4180 reads them.
std::vector<std::vector<std::string>> csv_records(const std::string& body) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (quoted) {
      if (c == '"' && i + 1 < body.size() && body[i + 1] == '"') records.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else records.back().back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\n') {
      records.emplace_back(1);
    } else {
      records.back().back() += c;
    }
  }
  if (records.back().size() == 1 && records.back()[0].empty()) records.pop_back();  // the last newline
  return records;
}

// A CSV stream is '#' lines (one of them "# table: NAME"), then one header row and its rows, each
// as wide as the header; no blank line, no second table.
void expect_one_csv_table(const std::string& text, const std::string& what) {
  std::size_t at = 0, table_lines = 0;
  while (at < text.size() && text[at] == '#') {
    const std::size_t end = text.find('\n', at);
    if (text.compare(at, 9, "# table: ") == 0) ++table_lines;
    at = end == std::string::npos ? text.size() : end + 1;
  }
  EXPECT_EQ(table_lines, 1u) << what << ": the '# table: NAME' line\n" << text;
  const auto records = csv_records(text.substr(at));
  ASSERT_FALSE(records.empty()) << what << ": no header row\n" << text;
  const std::size_t width = records[0].size();
  for (const std::string& column : records[0]) EXPECT_FALSE(column.empty() || column[0] == '#') << what << ": header " << column;
  for (std::size_t r = 1; r < records.size(); ++r) {
    ASSERT_FALSE(records[r].size() == 1 && records[r][0].empty()) << what << ": a blank line in the CSV (a second table?)\n" << text;
    ASSERT_FALSE(!records[r][0].empty() && records[r][0][0] == '#') << what << ": a '#' line inside the table\n" << text;
    EXPECT_EQ(records[r].size(), width) << what << ": row " << r << " differs in width from the header";
  }
}

struct Case {
  std::vector<std::string> args;
  bool uses_profile;  // carries profile, profile_source, device, host_cpu
  bool predicts;      // carries prediction_of
};

fs::path scratch_dir() {
  const fs::path dir = fs::path(::testing::TempDir()) / ("output_formats_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Every command that takes --format, with arguments that need no GPU (recorded runs, the bundled
// profile). A command that gains --format without a case here fails CommandsWithFormatHaveACase.
std::vector<Case> cases() {
  const std::string out = scratch_dir().string();
  const std::string bundled = kData + "/profiles/nvidia-h100-80gb-hbm3.yaml";
  return {
      {{"calibrate", "--list"}, false, false},
      {{"fit", "--samples", kData + "/profiles/nvidia-h100-80gb-hbm3.pcie_samples.csv", "--out", out + "/fit.yaml"}, false, false},
      {{"predict", "transfer", "--for", "mv", "--n", "4096"}, true, true},
      {{"predict", "cpu", "--kernel", "mv", "--n", "4096"}, true, true},
      {{"predict", "kernel", "--kernel", "mv-opt", "--n", "4096"}, true, true},
      {{"predict", "workload", kData + "/workloads/v2/saxpy.yaml", "--set", "n=1Mi,64Mi"}, true, true},
      {{"predict", "farm", "--app", "blur", "--size", "64", "--tasks", "10", "--streams", "2"}, true, true},
      {{"farm", "--app", "blur", "--size", "64", "--tasks", "10", "--streams", "2"}, true, true},
      {{"offload", "--kernel", "mv", "--n", "4096"}, true, true},
      {{"tune", "--kernel", "mv-opt", "--n", "4096", "--top", "3"}, true, true},
      {{"validate", "--from", kData + "/validation/nvidia-h100-80gb-hbm3", "--out", out + "/validate"}, true, true},
      {{"validate", "--only", "farm", "--from", kData + "/validation/nvidia-h100-80gb-hbm3-farm", "--out", out + "/farm"}, true, true},
      {{"plot", "farm", "--from", kData + "/validation/nvidia-h100-80gb-hbm3-farm", "--out", out + "/plot-farm"}, true, true},
      {{"check", "transfers", "--from", kData + "/validation/other/2026-11-26-h100-92e6119c/transfer-check", "--profile", bundled, "--out",
        out + "/check"},
       true, true},
      {{"roofline", "--out", out + "/roofline"}, true, true},
      {{"profile", "show"}, false, false},
      {{"profile", "diff", bundled, kData + "/profiles/nvidia-h100-80gb-hbm3.repeat.yaml"}, false, false},
      {{"plot", "speedup", "--out", out + "/speedup"}, true, true},
  };
}

bool takes_format(const std::vector<std::string>& command) {
  std::vector<std::string> args = command;
  args.push_back("--help");
  return run(args).out.find("--format") != std::string::npos;
}

}  // namespace

TEST(OutputFormats, EveryCommandHasHelp) {
  const auto commands = listed_commands();
  ASSERT_GE(commands.size(), 15u) << "perfmodel --help lists the commands";
  for (const auto& command : commands) {
    std::vector<std::string> args = command;
    args.push_back("--help");
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << joined(args) << "\n" << r.err;
    if (command[0] == "version") continue;  // prints the version, as `perfmodel version` does
    EXPECT_NE(r.out.find("usage: perfmodel " + command[0]), std::string::npos) << joined(args) << "\n" << r.out;
  }
}

TEST(OutputFormats, CommandsWithFormatHaveACase) {
  std::set<std::vector<std::string>> covered;
  for (const Case& c : cases()) {
    covered.insert({c.args[0]});
    if (c.args.size() > 1 && c.args[1].rfind("-", 0) != 0) covered.insert({c.args[0], c.args[1]});
  }
  for (const auto& command : listed_commands())
    if (command[0] != "version" && takes_format(command)) {
      EXPECT_TRUE(covered.count(command)) << joined(command) << " takes --format: add a case";
    }
}

TEST(OutputFormats, EveryCommandInEveryFormat) {
  for (const Case& c : cases()) {
    for (const char* format : {"table", "yaml", "json", "csv"}) {
      std::vector<std::string> args = c.args;
      args.insert(args.end(), {"--format", format});
      const std::string what = joined(args);
      const Result r = run(args);
      ASSERT_EQ(r.code, 0) << what << "\n" << r.err;
      ASSERT_FALSE(r.out.empty()) << what;
      const std::string f = format;
      if (f == "json") {
        nlohmann::json doc;
        ASSERT_NO_THROW(doc = nlohmann::json::parse(r.out)) << what << "\n" << r.out;
        ASSERT_TRUE(doc.is_object()) << what;
        std::vector<std::string> header;
        if (c.uses_profile) header = {"profile", "profile_source", "device", "host_cpu"};
        if (c.predicts) header.push_back("prediction_of");
        for (const std::string& key : header) EXPECT_TRUE(doc.contains(key)) << what << ": no '" << key << "'";
        if (c.uses_profile) {
          EXPECT_TRUE(doc["profile_source"] == "bundled" || doc["profile_source"] == "user") << what;
          EXPECT_TRUE(doc["device"].is_string() || doc["device"].is_null()) << what;
        }
        if (doc.contains("notes")) {
          EXPECT_TRUE(doc["notes"].is_array()) << what;
        }
      } else if (f == "yaml") {
        YAML::Node doc;
        ASSERT_NO_THROW(doc = YAML::Load(r.out)) << what;
        EXPECT_TRUE(doc.IsMap()) << what;
      } else if (f == "csv") {
        expect_one_csv_table(r.out, what);
      }
    }
  }
  fs::remove_all(scratch_dir());
}

TEST(OutputFormats, CsvTableIsChosenByName) {
  const std::vector<std::string> base = {"predict", "workload", kData + "/workloads/v2/saxpy.yaml", "--format", "csv"};
  const Result first = run(base);
  ASSERT_EQ(first.code, 0) << first.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.out, m, std::regex("# other tables \\(--table NAME\\): ([a-z_]+)"))) << first.out;
  std::vector<std::string> other = base;
  other.insert(other.end(), {"--table", m[1].str()});
  const Result second = run(other);
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find("# table: " + m[1].str() + "\n"), std::string::npos) << second.out;
  expect_one_csv_table(second.out, "--table " + m[1].str());

  std::vector<std::string> wrong = base;
  wrong.insert(wrong.end(), {"--table", "no_such_table"});
  const Result bad = run(wrong);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--table: 'no_such_table'"), std::string::npos) << bad.err;

  // A table named but empty this time: its '#' header says so and no header row follows.
  perfmodel::report::Report empty;
  empty.tables.push_back({"rows", {}});
  perfmodel::report::Format format = perfmodel::report::Format::csv;
  format.csv_table = "rows";
  std::ostringstream none;
  perfmodel::report::render(empty, format, none);
  EXPECT_EQ(none.str(), "# table: rows\n# (no rows)\n");

  const Result not_csv = run({"predict", "transfer", "--for", "mv", "--n", "4096", "--format", "json", "--table", "transfers"});
  EXPECT_EQ(not_csv.code, 1);
  EXPECT_NE(not_csv.err.find("--table"), std::string::npos) << not_csv.err;
}

TEST(OutputFormats, JsonWritesNullWhereNoValueExists) {
  using perfmodel::report::Cell;
  perfmodel::report::Report report;
  report.meta = {{"profile", Cell("p.yaml")}, {"crossover_n", Cell(nullptr)}, {"speedup", Cell(std::nan(""))}};
  report.tables.push_back({"rows", {{{"name", Cell("a \"quoted\"\n name")}, {"bytes", Cell(std::int64_t{1} << 40)}, {"ok", Cell(true)}}}});
  report.notes = {"a note"};
  std::ostringstream out;
  perfmodel::report::render(report, perfmodel::report::Format::json, out);
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(out.str());
  EXPECT_EQ(doc.begin().key(), "profile");  // header fields first, in the command's order
  EXPECT_TRUE(doc["crossover_n"].is_null());
  EXPECT_TRUE(doc["speedup"].is_null());  // not finite: no value
  EXPECT_EQ(doc["rows"][0]["name"], "a \"quoted\"\n name");
  EXPECT_EQ(doc["rows"][0]["bytes"], std::int64_t{1} << 40);
  EXPECT_EQ(doc["rows"][0]["ok"], true);
  EXPECT_EQ(doc["notes"][0], "a note");

  std::ostringstream csv;
  perfmodel::report::render(report, perfmodel::report::Format::csv, csv);
  EXPECT_NE(csv.str().find("# crossover_n: \n"), std::string::npos) << csv.str();  // empty field, not 0
  expect_one_csv_table(csv.str(), "rendered report");
}
