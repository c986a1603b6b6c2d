// Files and options from someone else: every value out of what the physics and the hardware allow,
// every file that is not whole, gives exit 1 and one line naming the flag or file:line:key, and
// nothing is printed as a prediction (limits: model/include/perfmodel/model/limits.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli.hpp"
#include "cli_run.hpp"
#include "cli_common.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "perfmodel/model/profile_io.hpp"

using namespace perfmodel;

namespace {

using test::Result;
using test::run;

std::string data(const std::string& relative) { return std::string(PERFMODEL_TEST_DATA_DIR) + "/" + relative; }
std::string h100() { return data("profiles/nvidia-h100-80gb-hbm3.yaml"); }
std::string xeon() { return data("profiles/xeon-2core-vm.yaml"); }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write(const std::string& name, const std::string& text) {
  // Tests run in parallel processes: each test writes under its own name.
  const std::string path =
      ::testing::TempDir() + "/hostile_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// `text` with the first match of `pattern` replaced (the test fails if there is none).
std::string edited(const std::string& text, const std::string& pattern, const std::string& replacement) {
  const std::regex re(pattern);
  EXPECT_TRUE(std::regex_search(text, re)) << pattern;
  return std::regex_replace(text, re, replacement, std::regex_constants::format_first_only);
}

// Exit 1, nothing on stdout, and one error line matching `expected`.
void expect_refused(const Result& r, const std::string& expected) {
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(std::regex_search(r.err, std::regex(expected))) << "expected /" << expected << "/\n  got: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace

// ---- checked arithmetic at the boundary

TEST(HostileInput, TransferSizesThatOverflowAreRefusedNamingTheFlag) {
  expect_refused(run({"predict", "transfer", "--for", "mm", "--n", "3000000000"}), "--n: must be a whole number from 1 to 2147483647");
  // 4 n^2 bytes beyond 2^50: refused before the integer product.
  expect_refused(run({"predict", "transfer", "--for", "mm", "--n", "20000000"}), "n = 20000000 makes a copy of .* more than the 1 PiB");
  expect_refused(run({"predict", "transfer", "--for", "conv2d", "--n", "4096", "--filter", "1.5"}), "--filter: must be a whole number");
  expect_refused(run({"predict", "transfer", "--bytes", "0"}), "--bytes: a copy of 0 bytes");
  expect_refused(run({"predict", "transfer", "--bytes", "2PiB"}), "--bytes: .*unknown unit");
  expect_refused(run({"predict", "transfer", "--bytes", "2e15"}), "--bytes: '2e15' is not a byte count");
  expect_refused(run({"predict", "transfer", "--bytes", "2000TB"}), "--bytes: .*more than 2\\^50 bytes");
  expect_refused(run({"predict", "transfer", "--add", "h2d:pinned:0"}), "--add 'h2d:pinned:0': a copy of 0 bytes");
}

TEST(HostileInput, KernelSizesBeyondTheDeviceMemoryAreRefused) {
  expect_refused(run({"predict", "kernel", "--kernel", "mm-opt", "--n", "2000000000"}),
                 "--n: mm-opt at n = 2000000000 needs at least .* of device memory; the profile's GPU has 79.2 GiB");
  expect_refused(run({"predict", "kernel", "--kernel", "mm-opt", "--n", "1e12"}), "--n: must be a whole number from 1 to 2147483647");
  expect_refused(run({"tune", "--kernel", "mm-global", "--n", "1048576"}), "--n: mm-global at n = 1048576 needs at least");
}

TEST(HostileInput, CpuOptionsAreWholeAndFitTheHost) {
  expect_refused(run({"predict", "cpu", "--kernel", "mm", "--n", "100", "--threads", "1.5", "--profile", xeon()}),
                 "--threads: must be a whole number from 1 to 65536, got '1.5'");
  expect_refused(run({"predict", "cpu", "--kernel", "mm", "--n", "100.5", "--profile", xeon()}), "--n: must be a whole number");
  expect_refused(run({"predict", "cpu", "--kernel", "mm", "--n", "100000", "--profile", xeon()}),
                 "mm at n = 100000 works on .*, more than the host's .* of memory");
}

TEST(HostileInput, AbsurdWorkloadValuesNameFileLineAndKey) {
  const std::string head = "perfmodel_workload: 1\nkernels:\n";
  const std::string kernel = "  - {grid: [1024], block: [256], read_bytes: 1e6}\n";
  const struct {
    std::string yaml, expected;
  } cases[] = {
      {head + kernel + "transfers:\n  - {direction: h2d, bytes: 1e308}\n", R"(w\.yaml:5:\d+: transfers\[0\]\.bytes: .*out of range)"},
      {head + kernel + "transfers:\n  - {direction: h2d, bytes: 2e15}\n", R"(w\.yaml:5:\d+: transfers\[0\]\.bytes: must be <= 1\.125899907e\+15)"},
      {head + "  - {grid: [9223372036854775808, 1], block: [256]}\n", R"(w\.yaml:3:\d+: kernels\[0\]\.grid\[0\]: must be <= 2147483647)"},
      {head + "  - {grid: [1, 65536], block: [256]}\n", R"(w\.yaml:3:\d+: kernels\[0\]\.grid\[1\]: must be <= 65535)"},
      {head + "  - {grid: [1.5], block: [256]}\n", R"(w\.yaml:3:\d+: kernels\[0\]\.grid\[0\]: must be a whole number)"},
      {head + "  - {grid: [1], block: [2048]}\n", R"(w\.yaml:3:\d+: kernels\[0\]\.block\[0\]: must be <= 1024)"},
      {head + "  - {grid: [1], block: [256], launches: 1e13}\n", R"(kernels\[0\]\.launches: must be <= 1e\+12)"},
      {head + "  - {grid: [1], block: [256], flops_fp32: 1e300}\n", R"(kernels\[0\]\.flops_fp32: .*out of range)"},
      {head + "  - {grid: [1], block: [256], shared_bytes_per_block: 1e9}\n",
       R"(kernels\[0\]\.shared_bytes_per_block: more than the 232448 bytes a block may have)"},
  };
  for (const auto& c : cases) {
    const std::string path = write("w.yaml", c.yaml);
    expect_refused(run({"predict", "workload", path}), c.expected);
  }
}

TEST(HostileInput, AbsurdProfileConstantsNameFileLineAndKey) {
  const std::string gpu = slurp(h100()), cpu = slurp(xeon());
  const struct {
    std::string text, pattern, replacement, expected;
    std::vector<std::string> command;
  } cases[] = {
      {gpu, "multiprocessors: 132", "multiprocessors: 1e308", R"(gpu\.device\.multiprocessors: .*out of range)",
       {"predict", "kernel", "--kernel", "mm-opt", "--n", "1024"}},
      {gpu, "multiprocessors: 132", "multiprocessors: 5000", R"(gpu\.device\.multiprocessors: must be <= 4096)",
       {"predict", "kernel", "--kernel", "mm-opt", "--n", "1024"}},
      {gpu, "warp_size: 32", "warp_size: 32.5", R"(gpu\.device\.warp_size: must be a whole number)",
       {"predict", "kernel", "--kernel", "mm-opt", "--n", "1024"}},
      // A segment's setup_s (not a curve's mixed_setup_s, which a schema-4 profile writes first).
      {gpu, "(- \\{from_bytes: [^,]+, to_bytes: [^,]+, )setup_s: [0-9.e-]+", "$1setup_s: 1e308",
       R"(pcie\.curves\.h2d\.pinned\.segments\[0\]\.setup_s: .*out of range)", {"predict", "transfer", "--bytes", "1MiB"}},
      {gpu, "(- \\{from_bytes: [^,]+, to_bytes: [^,]+, )setup_s: [0-9.e-]+", "$1setup_s: 1e6", R"(segments\[0\]\.setup_s: must be <= 10)",
       {"predict", "transfer", "--bytes", "1MiB"}},
      {gpu, "s_per_byte: [0-9.e-]+", "s_per_byte: 5", R"(segments\[0\]\.s_per_byte: must be <= 0\.001)",
       {"predict", "transfer", "--bytes", "1MiB"}},
      {cpu, "rows:\n( +- \\[.*\n)+", "rows: []\n", R"(cpu\.bandwidth\.read\.rows: needs at least one measured point)",
       {"predict", "cpu", "--kernel", "mv", "--n", "1000"}},
      {cpu, "logical_cpus: 2", "logical_cpus: 1e9", R"(cpu\.info\.logical_cpus: must be <= 65536)",
       {"predict", "cpu", "--kernel", "mv", "--n", "1000"}},
      {cpu, "\\[1, 4096, [0-9.e+]+\\]", "[1, 4096, 1e-300]", R"(cpu\.bandwidth\.read\.rows\[0\]\[2\]: must be >= 1000)",
       {"predict", "cpu", "--kernel", "mv", "--n", "1000"}},
  };
  for (const auto& c : cases) {
    const std::string path = write("p.yaml", edited(c.text, c.pattern, c.replacement));
    std::vector<std::string> args = c.command;
    args.insert(args.end(), {"--profile", path});
    expect_refused(run(args), std::regex_replace(path, std::regex(R"([.+])"), "\\$&") + R"(:\d+:\d+: (.*\.)?)" + c.expected);
  }
}

TEST(HostileInput, NoNonFiniteNumberIsPrinted) {
  perfmodel::report::Report report;
  report.meta.push_back({"total_seconds", perfmodel::report::Cell(1.0, perfmodel::report::Unit::seconds)});
  report.tables.push_back({"transfers", {{{"segment_to_bytes", perfmodel::report::Cell(INFINITY, perfmodel::report::Unit::bytes)}}}});
  EXPECT_NO_THROW(cli::require_finite(report));  // the open end of a range is no result
  report.tables[0].rows.push_back({{"seconds", perfmodel::report::Cell(INFINITY, perfmodel::report::Unit::seconds)}});
  try {
    cli::require_finite(report);
    ADD_FAILURE() << "an infinite time passed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("transfers[1].seconds is not a finite number"), std::string::npos) << e.what();
  }
  report.tables.pop_back();
  report.meta.push_back({"ratio", perfmodel::report::Cell(NAN)});
  EXPECT_THROW(cli::require_finite(report), InputError);
}

// ---- whole files or an error

TEST(HostileInput, DuplicateKeysSecondDocumentsAndAliasesAreErrors) {
  const std::string profile = slurp(xeon());
  const struct {
    std::string text, expected;
  } cases[] = {
      {edited(profile, "    logical_cpus: 2\n", "    logical_cpus: 2\n    logical_cpus: 4\n"),
       R"(p\.yaml:21:5: cpu\.info\.logical_cpus: duplicate key \(first given on line 20\))"},
      {edited(profile, "schema_version: 2\n", "schema_version: 2\nschema_version: 3\n"), R"(p\.yaml:3:1: schema_version: duplicate key)"},
      {profile + "---\nschema_version: 2\n", R"(p\.yaml:\d+:1: a second YAML document)"},
      {edited(profile, "l1d_bytes: 49152", "l1d_bytes: &a 49152"), R"(p\.yaml:21:\d+: cpu\.info: anchors \(&name\) are not supported)"},
  };
  for (const auto& c : cases) {
    const std::string path = write("p.yaml", c.text);
    const Result r = run({"profile", "show", path});
    expect_refused(r, c.expected);
  }
  const std::string workload = write("w.yaml", "perfmodel_workload: 1\nkernels:\n  - {grid: [1], block: [32], grid: [2]}\n");
  expect_refused(run({"predict", "workload", workload}), R"(w\.yaml:3:\d+: kernels\[0\]\.grid: duplicate key)");
}

TEST(HostileInput, AProfileCutShortAnywhereIsRefused) {
  const std::string text = slurp(xeon());
  ASSERT_EQ(text.substr(text.size() - 4), "...\n");
  // At every line boundary of the cpu section, and inside a number.
  std::size_t accepted = 0, cuts = 0;
  for (std::size_t at = text.find("\ncpu:"); at != std::string::npos && at + 5 < text.size(); at = text.find('\n', at + 1)) {
    ++cuts;
    try {
      static_cast<void>(parse_profile(text.substr(0, at + 1), "cut.yaml"));
      ++accepted;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cut.yaml:"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(cuts, 300u);
  EXPECT_EQ(accepted, 0u);
  // Inside a number that still reads as one: only the missing last line tells.
  const std::string path = write("cut.yaml", text.substr(0, text.find("memory_bytes: 25276502016") + 18));
  expect_refused(run({"profile", "show", path}), R"(cut\.yaml:\d+: the profile ends without its last line '\.\.\.')");
  // A profile written by hand (no perfmodel first line) needs no marker.
  EXPECT_NO_THROW(parse_profile(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 5), "hand.yaml"));
}

TEST(HostileInput, FilesOfAnotherKindAreNamedAsSuch) {
  expect_refused(run({"profile", "show", data("workloads/saxpy.yaml")}), "saxpy\\.yaml:.*this is a perfmodel workload file, not a profile");
  const std::string other = write("other.yaml", "name: something\nversion: 7\n");
  expect_refused(run({"profile", "show", other}), "other\\.yaml:1:1: not a perfmodel profile: it has no schema_version");
  expect_refused(run({"predict", "workload", h100()}), "nvidia-h100-80gb-hbm3\\.yaml:.*this is a perfmodel profile, not a workload file");
  expect_refused(run({"predict", "workload", other}), "other\\.yaml:1:1: not a workload file");
}

TEST(HostileInput, InputFilesHaveASizeLimit) {
  expect_refused(run({"profile", "show", "/dev/zero"}), "/dev/zero: is not a regular file and gives more than the 64 MiB");
  expect_refused(run({"profile", "show", ::testing::TempDir()}), "is a directory, not a file");
  const std::string small = write("small.yaml", std::string(200, '#'));
  try {
    static_cast<void>(read_input_file(small, 100));
    ADD_FAILURE() << "a file over the limit was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is 200 bytes, more than"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_input_file(small, 200).size(), 200u);
}

TEST(HostileInput, FitRefusesToWriteAProfileItsReaderRejects) {
  // cpu samples whose host says it has no CPU: the fit would write logical_cpus: 0.
  const std::string samples =
      write("zero.cpu_samples.csv", edited(slurp(data("profiles/xeon-2core-vm.cpu_samples.csv")), "# cpu\\.logical_cpus: 2", "# cpu.logical_cpus: 0"));
  const std::string out = ::testing::TempDir() + "/hostile_fit_out.yaml";
  std::remove(out.c_str());
  expect_refused(run({"fit", "--cpu-samples", samples, "--out", out}),
                 "fit: the samples give a profile perfmodel cannot use, so nothing is written: .*cpu\\.info\\.logical_cpus: must be >= 1");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(HostileInput, FitRefusesToWriteAProfileWithNoModel) {
  // The samples' header and provenance, no rows: a cpu section with nothing to predict with.
  const std::string full = slurp(data("profiles/xeon-2core-vm.cpu_samples.csv"));
  const std::string header = "series,params,rep,seconds,amount\n";
  const std::string samples = write("none.cpu_samples.csv", full.substr(0, full.find(header) + header.size()));
  const std::string out = ::testing::TempDir() + "/hostile_none.yaml";
  std::remove(out.c_str());
  expect_refused(run({"fit", "--cpu-samples", samples, "--out", out}), "nothing is written: .*cpu: the cpu section has no bandwidth curves");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(HostileInput, SampleNumbersParseStrictly) {
  const std::string samples = write("strict.cpu_samples.csv",
                                    edited(slurp(data("profiles/xeon-2core-vm.cpu_samples.csv")), "\n([a-z_.]+),([^,]*),0,([0-9.e-]+),", "\n$1,$2,0,$3xyz,"));
  const std::string out = ::testing::TempDir() + "/hostile_strict.yaml";
  expect_refused(run({"fit", "--cpu-samples", samples, "--out", out}), R"(strict\.cpu_samples\.csv:\d+:\d+: seconds: '[0-9.e-]+xyz' is not a number)");
}

TEST(HostileInput, UnnamedKernelsKeepTheirOwnGrid) {
  const std::string path = write("two.yaml", "perfmodel_workload: 1\nkernels:\n  - {grid: [100], block: [128], read_bytes: 1e6}\n"
                                             "  - {grid: [7000], block: [256], read_bytes: 1e8}\n");
  const Result r = run({"predict", "workload", path, "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("100x1,128x1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7000x1,256x1"), std::string::npos) << r.out;
}

TEST(HostileInput, ManyKernelsAreReadInOnePass) {
  // 20 000 unnamed kernels: every phase row keeps its own description (the ctest timeout stands
  // for a quadratic lookup; 200 000 run in a few seconds with `perfmodel predict workload`).
  std::string yaml = "perfmodel_workload: 1\nkernels:\n";
  for (int i = 0; i < 20000; ++i) yaml += "  - {grid: [" + std::to_string(1 + i % 97) + "], block: [64]}\n";
  const Result r = run({"predict", "workload", write("many.yaml", yaml), "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("96x1,64x1"), std::string::npos);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n') > 20000, true);
}
