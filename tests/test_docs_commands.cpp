// Every command the README and docs/ show runs, and exits 0, against the bundled profile: a line
// `$ perfmodel ARGS` in a fenced block. Commands that need a GPU (calibrate, validate without
// --from, check transfers) are only checked for their --help. The commands run in a scratch
// folder that sees the repository's data/ (so `data/...` paths work and outputs land there).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(PERFMODEL_TEST_DATA_DIR).parent_path();

struct Shown {
  std::string file;
  int line;
  std::vector<std::string> args;
};

// Splits like a shell for the simple lines the docs show: spaces, and '…' or "…" quoting.
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c, in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(word), word.clear(), in_word = false;
    } else {
      word += c, in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

std::vector<Shown> shown_commands() {
  std::vector<fs::path> files = {kSource / "README.md"};
  for (const auto& entry : fs::directory_iterator(kSource / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  std::vector<Shown> all;
  const std::regex command(R"(^\s*\$ (?:build/)?perfmodel (.*?)\s*(#.*)?$)");
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string line;
    int number = 0;
    bool fenced = false;
    while (std::getline(in, line)) {
      ++number;
      if (line.rfind("```", 0) == 0) {
        fenced = !fenced;
        continue;
      }
      std::smatch m;
      if (fenced && std::regex_match(line, m, command)) all.push_back({fs::relative(f, kSource).string(), number, split(m[1].str())});
    }
  }
  return all;
}

bool needs_gpu(const std::vector<std::string>& args) {
  if (args.empty()) return false;
  if (args[0] == "calibrate" || args[0] == "check") return true;
  if (args[0] == "validate") {
    for (const std::string& a : args)
      if (a == "--from") return false;
    return true;
  }
  return false;
}

}  // namespace

TEST(DocsCommands, EveryShownCommandRuns) {
  const std::vector<Shown> commands = shown_commands();
  ASSERT_GE(commands.size(), 5u) << "the README shows commands as '$ perfmodel ...' lines in fenced blocks";
  const fs::path scratch = fs::path(::testing::TempDir()) / ("docs_commands_" + std::to_string(::getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  fs::create_directory_symlink(kSource / "data", scratch / "data");
  const fs::path previous = fs::current_path();
  fs::current_path(scratch);
  for (const Shown& c : commands) {
    std::vector<std::string> args = c.args;
    if (needs_gpu(args)) args = {args[0], "--help"};
    std::ostringstream out, err;
    const int code = perfmodel::cli::run(args, out, err);
    std::string text;
    for (const std::string& a : c.args) text += " " + a;
    EXPECT_EQ(code, 0) << c.file << ":" << c.line << ": perfmodel" << text << "\n" << err.str();
  }
  fs::current_path(previous);
  fs::remove_all(scratch);
}
