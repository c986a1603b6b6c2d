#include "perfmodel/report/gnuplot.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"

extern char** environ;

namespace perfmodel::report {

namespace {

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_gnuplot() {
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t from = 0;
  for (;;) {
    const std::size_t colon = path.find(':', from);
    std::string folder = path.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    if (folder.empty()) folder = ".";
    const std::string candidate = folder + "/gnuplot";
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string::npos) return "";
    from = colon + 1;
  }
}

namespace {

// One line of gnuplot's stderr for a message: control characters as spaces, at most 300 bytes.
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (control && (out.empty() || out.back() == ' ')) continue;
    out += control ? ' ' : c;
    if (out.size() >= 300) return out + "...";
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Runs `gnuplot` in `dir` with `program` on its standard input. Returns its exit status (-1 if it
// did not exit normally) and its stderr in `errors`.
int run_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& program, std::string& errors) {
  int in[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw RuntimeFailure(std::string("cannot start gnuplot (pipe): ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw RuntimeFailure(std::string("cannot start gnuplot (pipe): ") + std::strerror(errno));
  }
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv = {const_cast<char*>(gnuplot.c_str()), nullptr};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(in[0]), ::close(in[1]), ::close(err[0]), ::close(err[1]);
    throw RuntimeFailure(std::string("cannot start gnuplot (fork): ") + std::strerror(errno));
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (::dup2(in[0], 0) < 0 || ::dup2(err[1], 2) < 0 || null < 0 || ::dup2(null, 1) < 0) ::_exit(127);
    if (::chdir(dir.c_str()) != 0) {
      const char message[] = "perfmodel: cannot enter the plot's folder\n";
      (void)!::write(2, message, sizeof message - 1);
      ::_exit(127);
    }
    ::execve(gnuplot.c_str(), argv.data(), environ);
    ::_exit(127);
  }
  set_child_process_for_signals(pid);
  ::close(in[0]);
  ::close(err[1]);
  // The program is a few hundred bytes: it fits in the pipe, so writing it all before reading
  // stderr cannot block on a gnuplot that is itself blocked writing.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &previous);  // a gnuplot that exits early must not kill perfmodel
  std::size_t written = 0;
  while (written < program.size()) {
    const ssize_t n = ::write(in[1], program.data() + written, program.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(in[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(err[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (errors.size() < 65536) errors.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  set_child_process_for_signals(0);
  ::sigaction(SIGPIPE, &previous, nullptr);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string plot_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += ' ';
    else out += c;
  }
  return out + "'";
}

std::string gnuplot_text(const std::string& text) { return gnuplot_quote(text) + " noenhanced"; }

std::string csv_label(const std::string& text) {
  std::string out;
  for (char c : text) out += (c == ',' || c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  return out;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

void make_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // with its parents
  if (ec || !std::filesystem::is_directory(dir)) throw RuntimeFailure("cannot create directory " + dir + (ec ? ": " + ec.message() : ""));
}

std::string require_gnuplot() {
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    throw RuntimeFailure("gnuplot is not installed (no gnuplot on PATH); install it to draw the plots "
                         "(e.g. apt-get install gnuplot)");
  return gnuplot;
}

void render_gnuplot(const std::string& dir, const std::string& stem, PlotSize size) {
  const std::string gnuplot = require_gnuplot();
  const std::string base = dir + "/" + stem;
  const std::string dims = std::to_string(size.width) + "," + std::to_string(size.height);
  const struct {
    const char* extension;
    std::string terminal;
  } outputs[] = {{"svg", "svg size " + dims + " dynamic enhanced font 'Helvetica,12' background '#ffffff'"},
                 {"png", "pngcairo size " + dims + " enhanced font 'Helvetica,11' background '#ffffff'"}};
  for (const auto& o : outputs) {
    TemporaryFile output(base + "." + o.extension);
    // gnuplot runs in dir: the output is named without the folder, which never enters a script.
    const std::string name = std::filesystem::path(output.path()).filename().string();
    const std::string program = "set terminal " + o.terminal + "\nset output " + gnuplot_quote(name) + "\nload " +
                                gnuplot_quote(stem + ".gp") + "\nset output\n";
    std::string errors;
    const int status = run_gnuplot(gnuplot, dir, program, errors);
    if (status != 0) {
      const std::string said = one_line(errors);
      // Named without its folder: the commands draw in a staging folder that is then dropped.
      throw RuntimeFailure("gnuplot failed on " + stem + ".gp" + (said.empty() ? std::string() : ": " + said));
    }
    output.commit();
  }
}

}  // namespace perfmodel::report
