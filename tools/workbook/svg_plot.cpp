// SPDX-License-Identifier: MIT
#include "tools/workbook/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wbcli {

std::string xml_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

const char* colour(const std::string& series) { return series == "yours" ? "#e8710a" : "#1a73e8"; }

}  // namespace

std::string render_svg(const PlotSpec& spec) {
  const double label_width = 230, plot_width = 560, right_margin = 120, bar_height = 14, bar_gap = 3, group_gap = 12;
  const double top = 70, left = label_width;
  double max_value = 110;
  std::size_t bar_count = 0;
  for (const PlotGroup& group : spec.groups)
    for (const PlotBar& bar : group.bars) {
      if (!bar.missing) max_value = std::max(max_value, bar.value * 1.05);
      ++bar_count;
    }
  max_value = std::ceil(max_value / 20.0) * 20.0;
  const double plot_height = static_cast<double>(bar_count) * (bar_height + bar_gap) +
                             static_cast<double>(spec.groups.size()) * group_gap + 10;
  const double width = left + plot_width + right_margin, height = top + plot_height + 60;
  auto x_of = [&](double value) { return left + plot_width * std::max(0.0, value) / max_value; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
                    number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">" + xml_escape(spec.title) + "</text>\n";
  svg += "<text x=\"10\" y=\"40\" fill=\"#555\">" + xml_escape(spec.subtitle) + "</text>\n";
  // Legend.
  svg += "<rect x=\"" + number(left) + "\" y=\"48\" width=\"12\" height=\"10\" fill=\"" + colour("yours") +
         "\"/><text x=\"" + number(left + 16) + "\" y=\"57\">yours</text>\n";
  svg += "<rect x=\"" + number(left + 70) + "\" y=\"48\" width=\"12\" height=\"10\" fill=\"" + colour("reference") +
         "\"/><text x=\"" + number(left + 86) + "\" y=\"57\">reference solution</text>\n";
  // Grid and axis.
  for (double tick = 0; tick <= max_value + 1e-9; tick += 20) {
    svg += "<line x1=\"" + number(x_of(tick)) + "\" y1=\"" + number(top) + "\" x2=\"" + number(x_of(tick)) +
           "\" y2=\"" + number(top + plot_height) + "\" stroke=\"#e0e0e0\"/>\n";
    svg += "<text x=\"" + number(x_of(tick)) + "\" y=\"" + number(top + plot_height + 16) +
           "\" text-anchor=\"middle\" fill=\"#555\">" + number(tick).substr(0, number(tick).size() - 2) + "%</text>\n";
  }
  svg += "<text x=\"" + number(left + plot_width / 2) + "\" y=\"" + number(top + plot_height + 36) +
         "\" text-anchor=\"middle\">" + xml_escape(spec.axis_label) + "</text>\n";

  double y = top + 5;
  for (const PlotGroup& group : spec.groups) {
    const double group_height = static_cast<double>(group.bars.size()) * (bar_height + bar_gap);
    svg += "<text x=\"" + number(left - 8) + "\" y=\"" + number(y + group_height / 2 + 4) + "\" text-anchor=\"end\">" +
           xml_escape(group.label) + "</text>\n";
    for (const PlotBar& bar : group.bars) {
      if (bar.missing) {
        svg += "<text x=\"" + number(left + 4) + "\" y=\"" + number(y + bar_height - 3) + "\" fill=\"" +
               colour(bar.series) + "\">" + xml_escape(bar.note.empty() ? "no result" : bar.note) + "</text>\n";
      } else {
        svg += "<rect x=\"" + number(left) + "\" y=\"" + number(y) + "\" width=\"" + number(x_of(bar.value) - left) +
               "\" height=\"" + number(bar_height) + "\" fill=\"" + colour(bar.series) + "\"><title>" +
               xml_escape(bar.series + ": " + number(bar.value) + "%") + "</title></rect>\n";
        svg += "<text x=\"" + number(x_of(bar.value) + 4) + "\" y=\"" + number(y + bar_height - 3) + "\">" +
               number(bar.value) + "%" + (bar.note.empty() ? "" : " " + xml_escape(bar.note)) + "</text>\n";
      }
      y += bar_height + bar_gap;
    }
    y += group_gap;
  }
  if (!spec.library_label.empty()) {
    svg += "<line x1=\"" + number(x_of(100)) + "\" y1=\"" + number(top - 4) + "\" x2=\"" + number(x_of(100)) +
           "\" y2=\"" + number(top + plot_height) +
           "\" stroke=\"#202124\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n";
    svg += "<text x=\"" + number(x_of(100) + 4) + "\" y=\"" + number(top + 8) + "\" fill=\"#202124\">" +
           xml_escape(spec.library_label) + "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace wbcli
