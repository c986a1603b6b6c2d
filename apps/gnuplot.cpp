#include "gnuplot.hpp"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "perfmodel/model/errors.hpp"

namespace perfmodel::cli {

std::string plot_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
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

void render_gnuplot(const std::string& dir, const std::string& stem, PlotSize size) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    throw RuntimeFailure("gnuplot is not installed; the data and script are in " + dir + "/" + stem +
                         ".{csv,gp} (install gnuplot and re-run, or run gnuplot on the script)");
  const std::string base = dir + "/" + stem;
  const std::string dims = std::to_string(size.width) + "," + std::to_string(size.height);
  const struct {
    const char* extension;
    std::string terminal;
  } outputs[] = {{"svg", "svg size " + dims + " dynamic enhanced font 'Helvetica,12' background '#ffffff'"},
                 {"png", "pngcairo size " + dims + " enhanced font 'Helvetica,11' background '#ffffff'"}};
  for (const auto& o : outputs) {
    const std::string target = base + "." + o.extension;
    const std::string temporary = target + ".tmp";
    const std::string command = "cd '" + dir + "' && gnuplot -e \"set terminal " + o.terminal + "; set output '" + stem + "." +
                                o.extension + ".tmp'\" '" + stem + ".gp' 2>'" + stem + ".log'";
    const int status = std::system(command.c_str());
    if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::remove(temporary.c_str());
      throw RuntimeFailure("gnuplot failed on " + base + ".gp (see " + base + ".log)");
    }
    if (std::rename(temporary.c_str(), target.c_str()) != 0) throw RuntimeFailure("cannot write " + target);
  }
  std::remove((base + ".log").c_str());
}

}  // namespace perfmodel::cli
