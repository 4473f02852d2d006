// SPDX-License-Identifier: MIT
// The benchmark plot, drawn as SVG by the tool itself (no Python): one group of horizontal bars
// per launcher (yours, the reference and, where measured, PyTorch). Bars in % of a library measured
// in the same run and bars in % of a peak are different yardsticks, so each kind gets its own panel
// with its own axis; a library panel draws the library as a dashed line at 100%.
#pragma once

#include <string>
#include <vector>

namespace wbcli {

struct PlotBar {
  std::string series;    // "yours", "reference" or "pytorch"
  double value = 0;      // percent
  bool missing = false;  // no number (the lesson failed): drawn as a note, not a bar
  std::string note;      // printed after the bar: "FAIL", "2900 GB/s"
};

struct PlotGroup {
  std::string label;  // "1.03 smem_tiled"
  std::vector<PlotBar> bars;
};

// One yardstick: every bar in it is a percentage of the same thing, which its axis names.
struct PlotPanel {
  std::string axis_label;     // "% of cuBLAS / memcpy, measured in the same run"
  std::string library_label;  // "cuBLAS = 100%"; empty: no line (a peak panel)
  std::vector<PlotGroup> groups;
};

struct PlotSpec {
  std::string title;
  std::string subtitle;                // device, date, sizes
  std::string peer_label = "PyTorch";  // the legend's text for the "pytorch" series
  std::vector<PlotPanel> panels;       // empty panels are not drawn
};

// Row labels are drawn in a monospace font, so their width is known without a font library: every
// character is at most kLabelCharWidth wide (0.6 em in DejaVu Sans Mono, Courier and Menlo; a little
// more for safety). The left margin is computed from the longest label, so no label is ever clipped.
constexpr double kLabelFontSize = 12;
constexpr double kLabelCharWidth = 0.62 * kLabelFontSize;
constexpr double kLabelGap = 8;  // between a label's end and its bars

double estimated_label_width(const std::string& label);  // pixels; UTF-8 counted by characters
double plot_left_margin(const PlotSpec& spec);           // where the bars start: the longest label fits

std::string render_svg(const PlotSpec& spec);
std::string xml_escape(const std::string& text);

}  // namespace wbcli
