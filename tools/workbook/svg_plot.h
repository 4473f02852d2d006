// SPDX-License-Identifier: MIT
// The benchmark plot, drawn as SVG by the tool itself (no Python): one group of horizontal bars
// per launcher (yours and the reference), in % of the library or of the bandwidth peak, with the
// library as a dashed line at 100%.
#pragma once

#include <string>
#include <vector>

namespace wbcli {

struct PlotBar {
  std::string series;    // "yours" or "reference"
  double value = 0;      // percent
  bool missing = false;  // no number (the lesson failed): drawn as a note, not a bar
  std::string note;      // printed after the bar: "FAIL", "2900 GB/s"
};

struct PlotGroup {
  std::string label;  // "1.03 smem_tiled"
  std::vector<PlotBar> bars;
};

struct PlotSpec {
  std::string title;
  std::string subtitle;  // device, date, sizes
  std::string axis_label;
  std::string library_label;  // "cuBLAS (100%)"; empty: no line
  std::vector<PlotGroup> groups;
};

std::string render_svg(const PlotSpec& spec);
std::string xml_escape(const std::string& text);

}  // namespace wbcli
