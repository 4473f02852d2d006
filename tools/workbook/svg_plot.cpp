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

// Sizes in pixels. The bars' font is sans-serif 12; titles are sans-serif, whose widest common glyphs
// stay under 0.65 em: enough to size the canvas so the title is not cut off either.
constexpr double kPlotWidth = 560, kRightMargin = 150, kBarHeight = 14, kBarGap = 3, kGroupGap = 12;
constexpr double kPanelTop = 80;     // below title, subtitle, legend and the library label
constexpr double kPanelFooter = 68;  // tick labels, the axis label, the next panel's library label
constexpr double kSansCharWidth = 0.65;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::size_t characters(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;  // UTF-8 continuation bytes are not characters
  return n;
}

const char* colour(const std::string& series) {
  if (series == "yours") return "#e8710a";
  if (series == "pytorch") return "#188038";
  return "#1a73e8";
}

// Ticks every 20% up to 200%, then coarser, so the tick labels never run into each other.
double tick_step(double max_value) {
  for (double step : {20.0, 50.0, 100.0, 200.0, 500.0})
    if (max_value / step <= 11) return step;
  return 1000.0;
}

std::string text_element(double x, double y, const std::string& content, const std::string& attributes = "") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\"" + (attributes.empty() ? "" : " " + attributes) + ">" +
         xml_escape(content) + "</text>\n";
}

std::string line_element(double x1, double y1, double x2, double y2, const std::string& attributes) {
  return "<line x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) + "\" y2=\"" + number(y2) +
         "\" " + attributes + "/>\n";
}

double panel_bars_height(const PlotPanel& panel) {
  std::size_t bars = 0;
  for (const PlotGroup& group : panel.groups) bars += group.bars.size();
  return static_cast<double>(bars) * (kBarHeight + kBarGap) + static_cast<double>(panel.groups.size()) * kGroupGap + 10;
}

// One panel from `top`: grid, bars, the library line and the axis that says what the bars are % of.
// Returns the height it used.
double render_panel(const PlotPanel& panel, double left, double top, std::string& svg) {
  double max_value = 110;
  for (const PlotGroup& group : panel.groups)
    for (const PlotBar& bar : group.bars)
      if (!bar.missing) max_value = std::max(max_value, bar.value * 1.05);
  const double step = tick_step(max_value);
  max_value = std::ceil(max_value / step) * step;
  const double height = panel_bars_height(panel);
  auto x_of = [&](double value) { return left + kPlotWidth * std::max(0.0, value) / max_value; };

  for (double tick = 0; tick <= max_value + 1e-9; tick += step) {
    svg += line_element(x_of(tick), top, x_of(tick), top + height, "stroke=\"#e0e0e0\"");
    char label[32];
    std::snprintf(label, sizeof label, "%.0f%%", tick);
    svg += text_element(x_of(tick), top + height + 16, label, "text-anchor=\"middle\" fill=\"#555\"");
  }
  svg += text_element(left + kPlotWidth / 2, top + height + 36, panel.axis_label, "text-anchor=\"middle\"");

  double y = top + 5;
  for (const PlotGroup& group : panel.groups) {
    const double group_height = static_cast<double>(group.bars.size()) * (kBarHeight + kBarGap);
    svg += text_element(left - kLabelGap, y + group_height / 2 + 4, group.label,
                        "text-anchor=\"end\" font-family=\"monospace\" font-size=\"" + number(kLabelFontSize) + "\"");
    for (const PlotBar& bar : group.bars) {
      if (bar.missing) {
        svg += text_element(left + 4, y + kBarHeight - 3, bar.note.empty() ? "no result" : bar.note,
                            std::string("fill=\"") + colour(bar.series) + "\"");
      } else {
        svg += "<rect x=\"" + number(left) + "\" y=\"" + number(y) + "\" width=\"" + number(x_of(bar.value) - left) +
               "\" height=\"" + number(kBarHeight) + "\" fill=\"" + colour(bar.series) + "\"><title>" +
               xml_escape(bar.series + ": " + number(bar.value) + "%") + "</title></rect>\n";
        svg += text_element(x_of(bar.value) + 4, y + kBarHeight - 3,
                            number(bar.value) + "%" + (bar.note.empty() ? "" : " " + bar.note));
      }
      y += kBarHeight + kBarGap;
    }
    y += kGroupGap;
  }
  if (!panel.library_label.empty()) {
    svg += line_element(x_of(100), top - 4, x_of(100), top + height,
                        "stroke=\"#202124\" stroke-width=\"2\" stroke-dasharray=\"6,4\"");
    // Above the panel's first bar, so a bar past 100% never runs under it.
    svg += text_element(x_of(100) + 4, top - 6, panel.library_label, "fill=\"#202124\"");
  }
  return height + kPanelFooter;
}

}  // namespace

double estimated_label_width(const std::string& label) {
  return static_cast<double>(characters(label)) * kLabelCharWidth;
}

double plot_left_margin(const PlotSpec& spec) {
  double longest = 0;
  for (const PlotPanel& panel : spec.panels)
    for (const PlotGroup& group : panel.groups) longest = std::max(longest, estimated_label_width(group.label));
  // 10 px from the canvas edge; never so narrow that the legend's first entry starts at the edge.
  return std::max(120.0, 10 + longest + kLabelGap);
}

std::string render_svg(const PlotSpec& spec) {
  const double left = plot_left_margin(spec);
  std::vector<const PlotPanel*> panels;
  for (const PlotPanel& panel : spec.panels)
    if (!panel.groups.empty()) panels.push_back(&panel);
  double panels_height = 0;
  for (const PlotPanel* panel : panels) panels_height += panel_bars_height(*panel) + kPanelFooter;

  // Which series appear: the legend names only those.
  bool present[3] = {false, false, false};
  const char* const series[3] = {"yours", "reference", "pytorch"};
  const std::string legend_text[3] = {"yours", "reference solution", spec.peer_label};
  for (const PlotPanel* panel : panels)
    for (const PlotGroup& group : panel->groups)
      for (const PlotBar& bar : group.bars)
        for (int s = 0; s < 3; ++s) present[s] = present[s] || bar.series == series[s];

  double legend_end = left;
  for (int s = 0; s < 3; ++s)
    if (present[s]) legend_end += 16 + static_cast<double>(characters(legend_text[s])) * kSansCharWidth * 12 + 14;
  const double width = std::max({left + kPlotWidth + kRightMargin, legend_end + 10,
                                 20 + static_cast<double>(characters(spec.title)) * kSansCharWidth * 16,
                                 20 + static_cast<double>(characters(spec.subtitle)) * kSansCharWidth * 12});
  const double height = kPanelTop + std::max(panels_height, 20.0) + 10;

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
                    number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += text_element(10, 22, spec.title, "font-size=\"16\" font-weight=\"bold\"");
  svg += text_element(10, 40, spec.subtitle, "fill=\"#555\"");
  double x = left;
  for (int s = 0; s < 3; ++s) {
    if (!present[s]) continue;
    svg += "<rect x=\"" + number(x) + "\" y=\"48\" width=\"12\" height=\"10\" fill=\"" + colour(series[s]) + "\"/>";
    svg += text_element(x + 16, 57, legend_text[s]);
    x += 16 + static_cast<double>(characters(legend_text[s])) * kSansCharWidth * 12 + 14;
  }
  double top = kPanelTop;
  for (const PlotPanel* panel : panels) top += render_panel(*panel, left, top, svg);
  svg += "</svg>\n";
  return svg;
}

}  // namespace wbcli
