#pragma once
// Draws a gnuplot script to SVG and PNG. The script is kept next to its data so a user can
// restyle and re-run it; the terminal is chosen on the command line, not in the script.
#include <string>

namespace perfmodel::cli {

struct PlotSize {
  int width = 1000, height = 700;
};

// Runs `gnuplot` on dir/stem.gp, writing dir/stem.svg and dir/stem.png (each atomically).
// Throws RuntimeFailure if gnuplot is missing or fails (its stderr is kept in dir/stem.log).
void render_gnuplot(const std::string& dir, const std::string& stem, PlotSize size);

// Helpers every plot command shares.
std::string plot_number(double v);                 // "%.9g"
std::string directory_of(const std::string& path);  // "." when there is no '/'
void make_directory(const std::string& dir);        // RuntimeFailure when it cannot be created

// The `plot` subcommands (one file each).
struct Invocation;
int plot_microbench(const Invocation& inv);
int plot_cpu(const Invocation& inv);
int plot_speedup(const Invocation& inv);

}  // namespace perfmodel::cli
