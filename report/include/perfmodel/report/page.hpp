#pragma once
// The building blocks of `perfmodel report`'s page: each block is written once as Markdown and
// once as HTML, so the two files say the same; figures are gnuplot SVGs, linked from the Markdown
// and embedded (base64) in the HTML so that report.html stands alone.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perfmodel/model/errors.hpp"

namespace perfmodel::report {

std::string base64(const std::string& data);
std::string html_escape(const std::string& s);  // < > & " as entities
std::string format_number_short(double v);      // 4 significant digits

// The page is built as a list of blocks, each written once as Markdown and once as HTML.
struct Page {
  std::ostringstream md, html;
  std::string dir;
  int images = 0;

  void heading(const std::string& text, int level) {
    md << std::string(level, '#') << ' ' << text << "\n\n";
    html << "<h" << level << ">" << html_escape(text) << "</h" << level << ">\n";
  }
  void paragraph(const std::string& text) {
    md << text << "\n\n";
    html << "<p>" << html_escape(text) << "</p>\n";
  }
  void preformatted(const std::string& text, const std::string& collapsed_title = "") {
    md << "```\n" << text << "```\n\n";
    if (!collapsed_title.empty()) html << "<details><summary>" << html_escape(collapsed_title) << "</summary>";
    html << "<pre>" << html_escape(text) << "</pre>";
    if (!collapsed_title.empty()) html << "</details>";
    html << "\n";
  }
  // An SVG drawn by gnuplot under dir: linked from the Markdown, embedded in the HTML.
  void figure(const std::string& relative_svg, const std::string& caption) {
    const std::string path = dir + "/" + relative_svg;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw RuntimeFailure("report: " + path + " was not drawn");
    std::stringstream svg;
    svg << in.rdbuf();
    md << "![" << caption << "](" << relative_svg << ")\n\n*" << caption << "*\n\n";
    html << "<figure><img alt=\"" << html_escape(caption) << "\" src=\"data:image/svg+xml;base64," << base64(svg.str())
         << "\"><figcaption>" << html_escape(caption) << "</figcaption></figure>\n";
    ++images;
  }
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    md << "|";
    for (const std::string& h : header) md << ' ' << h << " |";
    md << "\n|";
    for (std::size_t i = 0; i < header.size(); ++i) md << (i ? "---:|" : "---|");
    md << "\n";
    html << "<table><tr>";
    for (const std::string& h : header) html << "<th>" << html_escape(h) << "</th>";
    html << "</tr>\n";
    for (const auto& row : rows) {
      md << "|";
      html << "<tr>";
      for (const std::string& c : row) md << ' ' << c << " |", html << "<td>" << html_escape(c) << "</td>";
      md << "\n";
      html << "</tr>\n";
    }
    md << "\n";
    html << "</table>\n";
  }
};

}  // namespace perfmodel::report
