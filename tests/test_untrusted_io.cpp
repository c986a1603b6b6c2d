// Untrusted files and paths: a profile, a validation run, a workload or an --out path never makes
// perfmodel run a command; outputs appear whole or not at all (and not at all after a signal);
// every bad input exits 1 naming what is wrong before any work, and output that is lost exits 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <streambuf>
#include <thread>

#include "cli.hpp"
#include "cli_run.hpp"
#include "perfmodel/report/gnuplot.hpp"
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/model/provenance.hpp"

using namespace perfmodel;
namespace fs = std::filesystem;

namespace {

const std::string kData = PERFMODEL_TEST_DATA_DIR;
const std::string kProfiles = kData + "/profiles/";
const std::string kValidation = kData + "/validation/nvidia-h100-80gb-hbm3";

using test::Result;
using test::run;

// A fresh, empty folder for one test, unique to this process (test binaries of several builds may
// run at once), removed when the tests end.
std::vector<std::string> g_folders;
struct RemoveFolders : ::testing::Environment {
  void TearDown() override {
    std::error_code ec;
    for (const std::string& f : g_folders) fs::remove_all(f, ec);
  }
};
[[maybe_unused]] ::testing::Environment* const g_remove_folders = ::testing::AddGlobalTestEnvironment(new RemoveFolders);

std::string fresh_folder(const std::string& name) {
  std::string pattern = ::testing::TempDir() + "/untrusted_" + name + ".XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) throw std::runtime_error("cannot create a folder for " + name);
  g_folders.push_back(buffer.data());
  return buffer.data();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Names of what lies in a folder (recursively), to show that nothing was left behind.
std::vector<std::string> listing(const std::string& folder) {
  std::vector<std::string> names;
  if (!fs::exists(folder)) return names;
  for (const auto& e : fs::recursive_directory_iterator(folder)) names.push_back(e.path().lexically_relative(folder).string());
  std::sort(names.begin(), names.end());
  return names;
}

bool any_temporary(const std::string& folder) {
  for (const std::string& n : listing(folder))
    if (n.find(".tmp.") != std::string::npos || n.find(".tmp") != std::string::npos) return true;
  return false;
}

// A name that would run `touch MARKER` in a shell or in a gnuplot double-quoted string, and would
// break out of a single-quoted one, with gnuplot's enhanced-text markup and a macro for good measure.
// With `newline`, a line break follows that would start a command of its own if it reached a
// script as it is.
std::string hostile(const std::string& marker, bool newline = true) {
  return "x `touch " + marker + "` $(touch " + marker + ") \"dq\" 'sq'; system('touch " + marker + "') \\ @a & {b}_c" +
         (newline ? "\nsystem('touch " + marker + "')\n'" : "");
}

// YAML double-quoted form of `text`.
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\\\"") : c == '\\' ? std::string("\\\\") : c == '\n' ? std::string("\\n") : std::string(1, c);
  return out + "\"";
}

// The bundled profile with a hostile device and host name, beside links to its samples files.
std::string hostile_profile(const std::string& folder, const std::string& marker) {
  std::string text = slurp(kProfiles + "nvidia-h100-80gb-hbm3.yaml");
  text = std::regex_replace(text, std::regex("device_name: \"NVIDIA H100 80GB HBM3\""), "device_name: " + yaml_quoted(hostile(marker)));
  text = std::regex_replace(text, std::regex("host_cpu: \"[^\"]*\""), "host_cpu: " + yaml_quoted(hostile(marker)));
  const std::string path = folder + "/evil.yaml";
  spit(path, text);
  for (const char* kind : {"gpu", "cpu", "pcie"}) {
    const std::string name = std::string("nvidia-h100-80gb-hbm3.") + kind + "_samples.csv";
    fs::create_symlink(kProfiles + name, folder + "/" + name);
  }
  return path;
}

// The bundled validation run with a hostile device name in its header.
std::string hostile_validation(const std::string& folder, const std::string& marker) {
  const std::string dir = folder + "/evil-run";
  fs::create_directories(dir);
  std::string m = slurp(kValidation + "/measurements.csv");
  m = std::regex_replace(m, std::regex("# device_name: [^\n]*"), "# device_name: " + hostile(marker, false));
  spit(dir + "/measurements.csv", m);
  fs::copy_file(kValidation + "/resources.csv", dir + "/resources.csv");
  return dir;
}

void expect_drawn(const std::string& svg) {
  EXPECT_TRUE(fs::exists(svg)) << svg;
  EXPECT_GT(fs::exists(svg) ? fs::file_size(svg) : 0, 1000u) << svg;
  const std::string png = svg.substr(0, svg.size() - 3) + "png";
  EXPECT_TRUE(fs::exists(png)) << png;
}

}  // namespace

// ---- No command runs from any input ------------------------------------------------------------

TEST(UntrustedIo, GnuplotStringsAreSingleQuotedWithQuotesDoubledAndNoControlCharacters) {
  EXPECT_EQ(perfmodel::report::gnuplot_quote("a'b\nc`d`\"e\"@f\\"), "'a''b c`d`\"e\"@f\\'");
  EXPECT_EQ(perfmodel::report::gnuplot_quote(""), "''");
  EXPECT_EQ(perfmodel::report::gnuplot_text("x_1"), "'x_1' noenhanced");
  EXPECT_EQ(perfmodel::report::csv_label("a,b\"c\nd"), "a b c d");
}

// The first case: `device_name: "x `touch PWNED`"` ran touch through gnuplot's title.
TEST(UntrustedIo, HostileDeviceAndHostNamesRunNothingAndThePlotsAreDrawn) {
  const std::string folder = fresh_folder("hostile_profile");
  const std::string marker = folder + "/PWNED";
  const std::string profile = hostile_profile(folder, marker);
  const std::string validation = hostile_validation(folder, marker);
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> commands = {
      {{"roofline", "--out", folder + "/roofline", "--profile", profile, "--validation", validation}, {"roofline/roofline.svg"}},
      {{"plot", "microbench", "--out", folder + "/microbench", "--profile", profile}, {"microbench/microbench.svg"}},
      {{"plot", "transfers", "--out", folder + "/transfers", "--profile", profile}, {"transfers/transfers.svg"}},
      {{"plot", "cpu", "--out", folder + "/cpu", "--profile", profile}, {"cpu/cpu.svg"}},
      {{"plot", "speedup", "--out", folder + "/speedup", "--profile", profile, "--validation", validation},
       {"speedup/speedup.svg", "speedup/variants.svg"}},
      {{"validate", "--from", validation, "--out", folder + "/validation", "--profile", profile}, {"validation/validation.svg"}},
      {{"report", folder + "/report", "--profile", profile, "--validation", validation},
       {"report/microbench/microbench.svg", "report/roofline/roofline.svg", "report/validation/validation.svg"}},
  };
  for (const auto& [args, svgs] : commands) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_FALSE(fs::exists(marker)) << args[0] << " " << args[1] << " ran a command from the profile";
    for (const std::string& svg : svgs) {
      expect_drawn(folder + "/" + svg);
      // The name is drawn as text, not run, and the SVG stays well-formed XML (no bare '&': a
      // browser would show nothing).
      const std::string text = slurp(folder + "/" + svg);
      EXPECT_NE(text.find("touch " + marker), std::string::npos) << svg;
      EXPECT_FALSE(std::regex_search(text, std::regex("&(?!(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)"))) << svg;
    }
  }
  EXPECT_NE(slurp(folder + "/report/report.html").find("data:image/svg+xml;base64,"), std::string::npos);
  EXPECT_FALSE(any_temporary(folder));
}

TEST(UntrustedIo, HostileWorkloadNamesRunNothing) {
  const std::string folder = fresh_folder("hostile_workload");
  const std::string marker = folder + "/PWNED";
  std::string text = slurp(kData + "/workloads/saxpy.yaml");
  text = std::regex_replace(text, std::regex("name: saxpy 64Mi floats"), "name: " + yaml_quoted(hostile(marker)));
  text = std::regex_replace(text, std::regex("  - name: saxpy"), "  - name: " + yaml_quoted(hostile(marker)));
  spit(folder + "/evil.yaml", text);
  const Result r = run({"roofline", "--out", folder + "/out", "--workload", folder + "/evil.yaml", "--no-kernels"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  expect_drawn(folder + "/out/roofline.svg");
  // One row of four commas for the workload: its name cannot add fields or lines to the data.
  std::istringstream csv(slurp(folder + "/out/workloads.csv"));
  std::string header, row, extra;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_FALSE(std::getline(csv, extra)) << extra;
  EXPECT_EQ(std::count(row.begin(), row.end(), ','), 4) << row;
  EXPECT_NE(row.find("touch " + marker), std::string::npos) << row;
  const Result p = run({"predict", "workload", folder + "/evil.yaml", "--format", "json"});
  EXPECT_EQ(p.code, 0) << p.err;
  EXPECT_FALSE(fs::exists(marker));
}

// The second case: `plot cpu --out "x';id>INJECTED;'"` ran id through system().
TEST(UntrustedIo, HostileOutputPathsRunNothingAndTheFilesLandThere) {
  const std::string folder = fresh_folder("hostile_out");
  const fs::path previous = fs::current_path();
  fs::current_path(folder);
  const std::string base = "x';id>INJECTED;' \"q\" `touch INJECTED` $(touch INJECTED) sp ace\nnew line";
  const std::vector<std::pair<std::vector<std::string>, std::string>> commands = {
      {{"plot", "cpu", "--out", base + "/cpu"}, "cpu/cpu.svg"},
      {{"plot", "microbench", "--out", base + "/microbench"}, "microbench/microbench.svg"},
      {{"plot", "transfers", "--out", base + "/transfers"}, "transfers/transfers.svg"},
      {{"plot", "speedup", "--out", base + "/speedup"}, "speedup/speedup.svg"},
      {{"roofline", "--out", base + "/roofline"}, "roofline/roofline.svg"},
      {{"report", base + "/report"}, "report/roofline/roofline.svg"},
  };
  for (const auto& [args, svg] : commands) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_FALSE(fs::exists("INJECTED")) << args[0] << " " << args[1] << " ran a command from --out";
    expect_drawn(base + "/" + svg);
  }
  EXPECT_TRUE(fs::exists(base + "/report/report.html"));
  const std::vector<std::string> top = listing(".");
  fs::current_path(previous);
  EXPECT_FALSE(any_temporary(folder));
  for (const std::string& n : top) EXPECT_EQ(n.rfind("x';id>INJECTED;'", 0), 0u) << "unexpected: " << n;
}

// ---- Writes: whole or nothing, modes kept, links refused, nothing left by a signal --------------

TEST(UntrustedIo, AnExistingFileKeepsItsModeAndANewOneFollowsTheUmask) {
  const std::string folder = fresh_folder("modes");
  const std::string existing = folder + "/kept.txt";
  spit(existing, "old");
  ASSERT_EQ(::chmod(existing.c_str(), 0640), 0);
  write_file_atomically(existing, "new");
  struct stat info {};
  ASSERT_EQ(::stat(existing.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_EQ(slurp(existing), "new");
  const mode_t previous = ::umask(077);
  write_file_atomically(folder + "/private.txt", "x");
  ::umask(027);
  write_file_atomically(folder + "/group.txt", "x");
  ::umask(previous);
  ASSERT_EQ(::stat((folder + "/private.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat((folder + "/group.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_FALSE(any_temporary(folder));
}

TEST(UntrustedIo, ASymbolicLinkAtTheTargetIsRefusedAndLeftAsItWas) {
  const std::string folder = fresh_folder("symlink");
  spit(folder + "/real.yaml", "precious");
  fs::create_symlink(folder + "/real.yaml", folder + "/link.yaml");
  EXPECT_THROW(write_file_atomically(folder + "/link.yaml", "overwritten"), InputError);
  EXPECT_TRUE(fs::is_symlink(folder + "/link.yaml"));
  EXPECT_EQ(slurp(folder + "/real.yaml"), "precious");
  // The commands check it before any work.
  const Result fit = run({"fit", "--cpu-samples", kProfiles + "xeon-2core-vm.cpu_samples.csv", "--out", folder + "/link.yaml"});
  EXPECT_EQ(fit.code, 1);
  EXPECT_NE(fit.err.find("--out '" + folder + "/link.yaml': is a symbolic link"), std::string::npos) << fit.err;
  EXPECT_NE(fit.err.find("real.yaml"), std::string::npos) << fit.err;
  const Result calibrate = run({"calibrate", "--only", "cpu", "--out", folder + "/link.yaml"});
  EXPECT_EQ(calibrate.code, 1);
  EXPECT_NE(calibrate.err.find("symbolic link"), std::string::npos) << calibrate.err;
  EXPECT_EQ(calibrate.err.find("run  cpu"), std::string::npos) << "measured before failing: " << calibrate.err;
  // A file inside an output folder that is a link: the plot is refused whole, the link kept.
  fs::create_directories(folder + "/plots");
  fs::create_symlink(folder + "/real.yaml", folder + "/plots/cpu.svg");
  const Result plot = run({"plot", "cpu", "--out", folder + "/plots"});
  EXPECT_EQ(plot.code, 1);
  EXPECT_NE(plot.err.find("cpu.svg': is a symbolic link"), std::string::npos) << plot.err;
  EXPECT_EQ(listing(folder + "/plots"), std::vector<std::string>{"cpu.svg"});
  EXPECT_EQ(slurp(folder + "/real.yaml"), "precious");
  EXPECT_FALSE(any_temporary(folder));
}

TEST(UntrustedIo, TemporariesHaveUniqueNamesAndGoAwayUnlessCommitted) {
  const std::string folder = fresh_folder("temporaries");
  std::string a_path, b_path;
  {
    TemporaryFile a(folder + "/out.svg"), b(folder + "/out.svg");
    a_path = a.path(), b_path = b.path();
    EXPECT_NE(a_path, b_path);
    EXPECT_TRUE(fs::exists(a_path));
    spit(b_path, "drawn");
    b.commit();
  }
  EXPECT_FALSE(fs::exists(a_path));
  EXPECT_EQ(slurp(folder + "/out.svg"), "drawn");
  EXPECT_EQ(listing(folder), std::vector<std::string>{"out.svg"});
}

TEST(UntrustedIo, AStagedFolderAppearsWholeOrNotAtAll) {
  const std::string folder = fresh_folder("staged");
  {
    StagedDirectory stage(folder + "/new", "--out");
    write_file_atomically(stage.path() + "/a.csv", "1");
    EXPECT_FALSE(fs::exists(folder + "/new"));
  }  // not published: an error happened
  EXPECT_TRUE(listing(folder).empty()) << listing(folder).size();
  // Published into an existing folder: its other files stay, files of the same name are replaced.
  fs::create_directories(folder + "/out/sub");
  spit(folder + "/out/mine.txt", "keep");
  spit(folder + "/out/a.csv", "old");
  {
    StagedDirectory stage(folder + "/out", "--out");
    write_file_atomically(stage.path() + "/a.csv", "new");
    fs::create_directories(stage.path() + "/sub");
    write_file_atomically(stage.path() + "/sub/b.csv", "2");
    stage.publish();
  }
  EXPECT_EQ(slurp(folder + "/out/mine.txt"), "keep");
  EXPECT_EQ(slurp(folder + "/out/a.csv"), "new");
  EXPECT_EQ(slurp(folder + "/out/sub/b.csv"), "2");
  EXPECT_FALSE(any_temporary(folder));
  EXPECT_THROW(StagedDirectory(folder + "/out/mine.txt", "--out"), InputError);
}

// SIGINT and SIGTERM remove the temporaries of the writes in progress, and the process still ends
// by the signal. (SIGKILL cannot be caught: a killed process leaves its TARGET.tmp.XXXXXX.)
TEST(UntrustedIo, ASignalRemovesTheTemporariesInProgress) {
  for (int signal : {SIGTERM, SIGINT}) {
    const std::string folder = fresh_folder("signal" + std::to_string(signal));
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(ready[0]);
      TemporaryFile drawing(folder + "/plot.svg");
      StagedDirectory stage(folder + "/report", "--out");
      fs::create_directories(stage.path() + "/roofline");
      write_file_atomically(stage.path() + "/roofline/roofs.csv", "name\n");
      write_file_atomically(stage.path() + "/report.md", "# report\n");
      (void)!::write(ready[1], "r", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    EXPECT_EQ(listing(folder).size(), 5u);  // the temporary file, the staging folder and what is in it
    ::kill(child, signal);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
    EXPECT_TRUE(listing(folder).empty()) << listing(folder).front();
  }
}

TEST(UntrustedIo, TwoPlotsIntoOneFolderAtOnceDoNotCollide) {
  const std::string folder = fresh_folder("concurrent");
  Result a, b;
  std::thread first([&] { a = run({"plot", "cpu", "--out", folder}); });
  std::thread second([&] { b = run({"plot", "cpu", "--out", folder}); });
  first.join();
  second.join();
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(b.code, 0) << b.err;
  expect_drawn(folder + "/cpu.svg");
  EXPECT_EQ(listing(folder), (std::vector<std::string>{"cpu.gp", "cpu.png", "cpu.svg", "cpu_bandwidth.csv", "cpu_plateaus.csv"}));
}

// ---- Inputs and the output location are checked before the work; nothing half-written ---------

TEST(UntrustedIo, CalibrateRefusesAnOutputThatIsNoFileBeforeMeasuring) {
  const std::string folder = fresh_folder("calibrate_out");
  fs::create_directories(folder + "/dir");
  const struct {
    std::string out, says;
  } cases[] = {
      {folder + "/dir", "--out '" + folder + "/dir': is a folder, not a file"},
      {"", "--out: an empty path names no file"},
      {folder + "/dir/", "names a folder; give a file name"},
      {folder + "/missing/p.yaml", "the folder " + folder + "/missing does not exist"},
  };
  for (const auto& c : cases) {
    const Result r = run({"calibrate", "--only", "cpu", "--quick", "--out", c.out});
    EXPECT_EQ(r.code, 1) << c.out << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("run  cpu"), std::string::npos) << "measured before failing: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(listing(folder), std::vector<std::string>{"dir"});
}

// A profile without the sections the report needs, a missing validation run, an output that is a
// file: exit 1 naming it, and no report folder.
TEST(UntrustedIo, ReportInputErrorsExitOneAndLeaveNothing) {
  const std::string folder = fresh_folder("report_inputs");
  Profile p;
  p.provenance.device_name = "Test GPU";
  p.cpu = load_profile(kProfiles + "xeon-2core-vm.yaml").cpu;
  save_profile(p, folder + "/cpu_only.yaml");
  spit(folder + "/a_file", "x");
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"report", folder + "/r1", "--profile", folder + "/cpu_only.yaml"}, folder + "/cpu_only.yaml: the profile has no gpu section"},
      {{"report", folder + "/r2", "--validation", folder + "/nowhere"}, "--validation " + folder + "/nowhere: no recorded validation run"},
      {{"report", folder + "/a_file"}, "--out '" + folder + "/a_file': exists and is not a folder"},
      {{"report", folder + "/r3", "--profile", folder + "/missing.yaml"}, folder + "/missing.yaml: cannot open"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_EQ(listing(folder), (std::vector<std::string>{"a_file", "cpu_only.yaml"}));
}

TEST(UntrustedIo, ARooflineWorkloadWithoutFlopsLeavesNoFiles) {
  const std::string folder = fresh_folder("roofline_noflops");
  std::string text = slurp(kData + "/workloads/saxpy.yaml");
  text = std::regex_replace(text, std::regex("    flops_fp32: [^\n]*\n"), "");
  spit(folder + "/noflops.yaml", text);
  const Result r = run({"roofline", "--out", folder + "/out", "--workload", folder + "/noflops.yaml"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(folder + "/noflops.yaml: a roofline point needs flops and DRAM bytes"), std::string::npos) << r.err;
  EXPECT_EQ(listing(folder), std::vector<std::string>{"noflops.yaml"});
  // Into an existing folder: what was there stays as it was.
  fs::create_directories(folder + "/old");
  spit(folder + "/old/roofs.csv", "earlier");
  EXPECT_EQ(run({"roofline", "--out", folder + "/old", "--workload", folder + "/noflops.yaml"}).code, 1);
  EXPECT_EQ(listing(folder + "/old"), std::vector<std::string>{"roofs.csv"});
  EXPECT_EQ(slurp(folder + "/old/roofs.csv"), "earlier");
}

// validate checks its profile and output before measuring: a missing profile is exit 1 on every
// build, with or without a GPU.
TEST(UntrustedIo, ValidateChecksItsProfileAndOutputBeforeMeasuring) {
  const std::string folder = fresh_folder("validate_inputs");
  spit(folder + "/a_file", "x");
  const Result profile = run({"validate", "--quick", "--out", folder + "/v", "--profile", folder + "/missing.yaml"});
  EXPECT_EQ(profile.code, 1) << profile.err;
  EXPECT_NE(profile.err.find(folder + "/missing.yaml: cannot open"), std::string::npos) << profile.err;
  const Result out = run({"validate", "--quick", "--out", folder + "/a_file"});
  EXPECT_EQ(out.code, 1) << out.err;
  EXPECT_NE(out.err.find("exists and is not a folder"), std::string::npos) << out.err;
  EXPECT_EQ(listing(folder), std::vector<std::string>{"a_file"});
}

// `profile show > /dev/full`: the output is lost, so the command failed.
TEST(UntrustedIo, OutputLostOnStandardOutputExitsTwo) {
  struct FullDisk : std::streambuf {
    int overflow(int) override { return traits_type::eof(); }
  } full;
  std::ostream out(&full);
  std::ostringstream err;
  EXPECT_EQ(cli::run({"profile", "show"}, out, err), 2);
  EXPECT_NE(err.str().find("cannot write the output to standard output"), std::string::npos) << err.str();
}

// ---- Messages name the flag or the file ---------------------------------------------------------

TEST(UntrustedIo, MessagesNameTheFlagOrTheFile) {
  const std::string folder = fresh_folder("messages");
  Profile p;
  p.provenance.device_name = "Test GPU";
  p.cpu = load_profile(kProfiles + "xeon-2core-vm.yaml").cpu;
  save_profile(p, folder + "/cpu_only.yaml");
  std::string shared = slurp(kData + "/workloads/saxpy.yaml");
  shared = std::regex_replace(shared, std::regex("    block: \\[256\\]\n"), "    block: [256]\n    shared_bytes_per_block: 300000\n");
  spit(folder + "/shared.yaml", shared);
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"predict", "transfer", "--bytes", "0"}, "--bytes: a copy of 0 bytes"},
      {{"predict", "cpu", "--kernel", "zz", "--n", "100"}, "--kernel: unknown CPU kernel 'zz' (known: mv,"},
      {{"predict", "transfer", "--add", "h2d:pinned:0"}, "--add 'h2d:pinned:0': a copy of 0 bytes"},
      {{"predict", "transfer", "--for", "conv2d", "--n", "1024", "--filter", "0"}, "--filter: must be a positive"},
      {{"roofline", "--out", folder + "/r", "--memory", "hbm", "--intensity", "1"}, "--memory: no memory roof 'hbm' (the profile's memory roofs: dram, l2, shared, pcie)"},
      {{"roofline", "--out", folder + "/r", "--precision", "fp8", "--intensity", "1"}, "--precision: no compute roof 'fp8'"},
      {{"predict", "workload", folder + "/shared.yaml"}, folder + "/shared.yaml:8:29: kernels[0].shared_bytes_per_block: more than the 232448 bytes"},
      {{"predict", "kernel", "--kernel", "mv-opt", "--n", "4096", "--profile", folder + "/cpu_only.yaml"},
       folder + "/cpu_only.yaml: the profile has no gpu section"},
      {{"predict", "transfer", "--bytes", "64", "--profile", folder + "/cpu_only.yaml"}, folder + "/cpu_only.yaml: the profile has no pcie section"},
      {{"plot", "microbench", "--out", folder + "/m", "--profile", folder + "/cpu_only.yaml"}, folder + "/cpu_only.yaml: the profile has no gpu section"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 1) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(listing(folder), (std::vector<std::string>{"cpu_only.yaml", "shared.yaml"}));
}

// ---- A profile and its samples are one unit -----------------------------------------------------

TEST(UntrustedIo, EveryCalibrationRunHasItsOwnRunId) {
  const Provenance a = host_provenance("perfmodel calibrate"), b = host_provenance("perfmodel calibrate");
  EXPECT_FALSE(a.run_id.empty());
  EXPECT_NE(a.run_id, b.run_id);
  EXPECT_EQ(a.run_id.rfind(a.date_utc + "-", 0), 0u) << a.run_id;
  Profile p = load_profile(kProfiles + "xeon-2core-vm.yaml");
  EXPECT_TRUE(p.provenance.run_id.empty());  // written before run ids: read as it is
  p.provenance.run_id = a.run_id;
  const std::string path = fresh_folder("run_id_roundtrip") + "/p.yaml";
  save_profile(p, path);
  EXPECT_EQ(load_profile(path).provenance.run_id, a.run_id);
}

// Samples beside a profile from another run (two calibrations writing one profile at once) are
// refused where they are read with it; samples of the same run are read.
TEST(UntrustedIo, SamplesOfAnotherRunThanTheProfileAreRefused) {
  const std::string folder = fresh_folder("run_id_mismatch");
  // The bundled profile and samples with their run ids (where they have any) replaced by the test's.
  std::string profile = slurp(kProfiles + "nvidia-h100-80gb-hbm3.yaml");
  profile = std::regex_replace(profile, std::regex("\n  run_id: [^\n]*"), "");
  profile = std::regex_replace(profile, std::regex("(\n  device_name: [^\n]*\n)"), "$1  run_id: \"run-A\"\n");
  spit(folder + "/p.yaml", profile);
  ASSERT_EQ(load_profile(folder + "/p.yaml").provenance.run_id, "run-A");
  const std::string samples = std::regex_replace(slurp(kProfiles + "nvidia-h100-80gb-hbm3.gpu_samples.csv"), std::regex("\n# run_id: [^\n]*"), "");
  const auto with_run = [&](const std::string& id) {
    const auto eol = samples.find('\n');
    spit(folder + "/nvidia-h100-80gb-hbm3.gpu_samples.csv", samples.substr(0, eol + 1) + "# run_id: " + id + "\n" + samples.substr(eol + 1));
  };
  with_run("run-B");
  const Result other = run({"plot", "microbench", "--out", folder + "/plots", "--profile", folder + "/p.yaml"});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("nvidia-h100-80gb-hbm3.gpu_samples.csv: run_id 'run-B' differs from " + folder + "/p.yaml's 'run-A'"),
            std::string::npos)
      << other.err;
  EXPECT_FALSE(fs::exists(folder + "/plots"));
  const Result refit = run({"fit", "--profile", folder + "/p.yaml", "--gpu-samples", folder + "/nvidia-h100-80gb-hbm3.gpu_samples.csv",
                            "--out", folder + "/refit.yaml"});
  EXPECT_EQ(refit.code, 1);
  EXPECT_NE(refit.err.find("run_id 'run-B'"), std::string::npos) << refit.err;
  EXPECT_FALSE(fs::exists(folder + "/refit.yaml"));
  with_run("run-A");
  const Result same = run({"plot", "microbench", "--out", folder + "/plots", "--profile", folder + "/p.yaml"});
  EXPECT_EQ(same.code, 0) << same.err;
}

// ---- The same answer with and without CUDA ------------------------------------------------------

TEST(UntrustedIo, BuildsWithAndWithoutCudaKnowTheSameGpuBenchmarks) {
  if (built_with_cuda()) {
    std::vector<std::string> registered;
    const BenchmarkRegistry registry = make_default_registry();
    for (const auto& b : registry.all())
      if (b->key().rfind("gpu.", 0) == 0 || b->key().rfind("pcie.", 0) == 0) registered.push_back(b->key());
    EXPECT_EQ(registered, gpu_benchmark_keys());
  }
  EXPECT_TRUE(names_gpu_benchmark("gpu"));
  EXPECT_TRUE(names_gpu_benchmark("pcie.h2d"));
  EXPECT_FALSE(names_gpu_benchmark("gpu.bogus"));
  EXPECT_FALSE(names_gpu_benchmark("gpu.dr"));
}

// A bad flag is exit 1 whether or not the build has CUDA (a build without it used to answer the
// GPU-less machine first, exit 2).
TEST(UntrustedIo, BadCalibrateFlagsExitOneInEveryBuild) {
  const std::string out = fresh_folder("calibrate_flags") + "/p.yaml";
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"calibrate", "--only", "gpu.bogus", "--out", out}, "--only gpu.bogus: no benchmark has this key or prefix"},
      {{"calibrate", "--only", "pcie", "--pcie-effort", "0.5", "--out", out}, "--pcie-effort"},
      {{"calibrate", "--only", "gpu.dram", "--pcie-host-buffer", "cold", "--out", out}, "--pcie-host-buffer"},
      {{"calibrate", "--only", "gpu", "--out", ""}, "--out: an empty path names no file"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 1) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// gnuplot missing: exit 2 before any work, nothing written. gnuplot failing: exit 2 with what it
// said, nothing written (the staged folder is dropped).
TEST(UntrustedIo, AMissingOrFailingGnuplotLeavesNothing) {
  const std::string folder = fresh_folder("gnuplot_fails");
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  fs::create_directories(folder + "/bin");
  ::setenv("PATH", (folder + "/bin").c_str(), 1);
  const Result missing = run({"plot", "cpu", "--out", folder + "/missing"});
  spit(folder + "/bin/gnuplot", "#!/bin/sh\necho 'line 3: boom' >&2\nexit 1\n");
  ::chmod((folder + "/bin/gnuplot").c_str(), 0755);
  const Result failing = run({"plot", "cpu", "--out", folder + "/failing"});
  const Result report = run({"report", folder + "/report"});  // a runtime failure half-way: no half-built report
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(report.code, 2);
  EXPECT_NE(report.err.find("gnuplot failed on microbench.gp: line 3: boom"), std::string::npos) << report.err;
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("gnuplot is not installed"), std::string::npos) << missing.err;
  EXPECT_EQ(failing.code, 2);
  EXPECT_NE(failing.err.find("gnuplot failed on cpu.gp: line 3: boom"), std::string::npos) << failing.err;
  EXPECT_EQ(listing(folder), (std::vector<std::string>{"bin", "bin/gnuplot"}));
}

TEST(UntrustedIo, AnUnwritableOutputFolderIsBadInputBeforeTheWork) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere: nothing to refuse";
  const std::string folder = fresh_folder("unwritable");
  fs::create_directories(folder + "/locked");
  ::chmod((folder + "/locked").c_str(), 0555);
  const Result calibrate = run({"calibrate", "--only", "cpu", "--out", folder + "/locked/p.yaml"});
  const Result plot = run({"plot", "cpu", "--out", folder + "/locked/plots"});
  ::chmod((folder + "/locked").c_str(), 0755);
  EXPECT_EQ(calibrate.code, 1);
  EXPECT_NE(calibrate.err.find("is not writable"), std::string::npos) << calibrate.err;
  EXPECT_EQ(plot.code, 1);
  EXPECT_NE(plot.err.find("is not writable"), std::string::npos) << plot.err;
  EXPECT_EQ(listing(folder), std::vector<std::string>{"locked"});
}
