#pragma once
// Draws a gnuplot script to SVG and PNG. The script is kept next to its data so a user can
// restyle and re-run it; the terminal is chosen on the command line, not in the script.
#include <string>

namespace perfmodel::report {

struct PlotSize {
  int width = 1000, height = 700;
};

// Runs gnuplot on dir/stem.gp, writing dir/stem.svg and dir/stem.png (each atomically). No shell
// is involved: gnuplot is found on PATH and started with an argument vector in dir, and the
// terminal, the output file and `load 'stem.gp'` reach it on its standard input. Throws
// RuntimeFailure if gnuplot is missing or fails (with the first lines it wrote to stderr).
void render_gnuplot(const std::string& dir, const std::string& stem, PlotSize size);
// gnuplot's path on PATH; RuntimeFailure naming what to install when there is none. Commands
// that draw call it before their work, so that a missing gnuplot is not found at the end.
std::string require_gnuplot();
// gnuplot's path, looked up in PATH as execvp would ("" entries mean the current folder), or "".
std::string find_gnuplot();

// The one way a string enters a gnuplot script (titles, labels, key entries, file names): a
// single-quoted literal. gnuplot substitutes backquotes (`cmd` runs cmd) and @macros inside
// double quotes but not inside single quotes, where the only special character is the quote
// itself (doubled here); a newline or another control character would end the command, so each
// becomes a space.
std::string gnuplot_quote(const std::string& text);
// Text shown as it is (a title holding a device or host name): gnuplot_quote(text) followed by
// `noenhanced`, so that ^ _ @ & { } are not read as enhanced-text markup (gnuplot's SVG terminal
// writes an escaped '&' unescaped: a file no browser shows).
std::string gnuplot_text(const std::string& text);
// A label written into a plot's CSV data: commas, quotes and control characters as spaces (one
// field on one line).
std::string csv_label(const std::string& text);

// Helpers every plot command shares.
std::string plot_number(double v);                 // "%.9g"
std::string directory_of(const std::string& path);  // "." when there is no '/'
void make_directory(const std::string& dir);        // RuntimeFailure when it cannot be created

}  // namespace perfmodel::report
