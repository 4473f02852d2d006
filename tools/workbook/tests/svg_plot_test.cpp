// SPDX-License-Identifier: MIT
// The SVG plot: well-formed, with the bars, the missing results and the library line; labels that
// always fit; library and peak yardsticks in separate panels.
#include "tools/workbook/svg_plot.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "common/catch.h"

namespace {
std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

bool near(double a, double b) {
  return std::fabs(a - b) <= 0.05;
}

// The x of the first <text ...> element whose content is `content`.
double text_x(const std::string& svg, const std::string& content) {
  const std::size_t end = svg.find(">" + content + "</text>");
  REQUIRE(end != std::string::npos);
  const std::size_t start = svg.rfind("<text x=\"", end);
  REQUIRE(start != std::string::npos);
  return std::strtod(svg.c_str() + start + 9, nullptr);
}

// The y of the first bar whose tooltip starts with `tooltip`.
double bar_y(const std::string& svg, const std::string& tooltip) {
  const std::size_t at = svg.find("<title>" + tooltip);
  REQUIRE(at != std::string::npos);
  const std::size_t y = svg.rfind(" y=\"", at);
  return std::strtod(svg.c_str() + y + 4, nullptr);
}

wbcli::PlotPanel library_panel() {
  wbcli::PlotPanel panel;
  panel.axis_label = "% of cuBLAS measured in the same run";
  panel.library_label = "cuBLAS = 100%";
  panel.groups.push_back({"1.03 matmul_smem_tiled", {{"yours", 15.0, false, ""}, {"reference", 17.0, false, ""}}});
  panel.groups.push_back(
      {"1.07 matmul_warptiling", {{"yours", 0, true, "not passing yet"}, {"reference", 131.0, false, ""}}});
  return panel;
}
}  // namespace

TEST_CASE("the plot draws yours, the reference and the library line", "[host][workbook]") {
  wbcli::PlotSpec spec;
  spec.title = "workbook bench phase1";
  spec.subtitle = "NVIDIA H100 <80GB> & co";
  spec.panels.push_back(library_panel());
  const std::string svg = wbcli::render_svg(spec);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(count(svg, "<rect") == 1 + 2 + 3);  // background, legend, three bars
  CHECK(svg.find("not passing yet") != std::string::npos);
  CHECK(svg.find("cuBLAS = 100%") != std::string::npos);
  CHECK(svg.find("stroke-dasharray") != std::string::npos);
  CHECK(svg.find("NVIDIA H100 &lt;80GB&gt; &amp; co") != std::string::npos);
  CHECK(svg.find(">140%<") != std::string::npos);   // the axis grows past the largest bar (131%)
  CHECK(svg.find("PyTorch") == std::string::npos);  // no PyTorch bar, no PyTorch legend
  CHECK(count(svg, "<text") == count(svg, "</text>"));
}

TEST_CASE("row labels are never clipped: the left margin grows with the longest label", "[host][workbook]") {
  const std::string longest = "2.09 softmax_single_read 16384x4096 (register fallback, % HBM peak)";
  wbcli::PlotSpec spec;
  spec.panels.push_back(library_panel());
  spec.panels[0].groups.push_back({longest, {{"reference", 90.0, false, ""}}});
  const double left = wbcli::plot_left_margin(spec);
  const double width = wbcli::estimated_label_width(longest);
  CHECK(near(width, static_cast<double>(longest.size()) * wbcli::kLabelCharWidth));
  CHECK(width > 230);                                   // the old fixed margin would have cut it
  CHECK(left - wbcli::kLabelGap - width >= 10 - 1e-9);  // the label starts 10 px or more from the edge

  const std::string svg = wbcli::render_svg(spec);
  const double label_end = text_x(svg, longest);
  CHECK(near(label_end, left - wbcli::kLabelGap));  // drawn at one decimal
  CHECK(label_end - width >= 0);
  // Labels are drawn in the font the estimate is for.
  CHECK(svg.find("text-anchor=\"end\" font-family=\"monospace\"") != std::string::npos);
  // Short labels keep a sensible minimum margin; characters, not UTF-8 bytes, are counted.
  CHECK(near(wbcli::estimated_label_width("±"), wbcli::kLabelCharWidth));
}

TEST_CASE("% of the library and % of peak are drawn in two panels, each axis saying which", "[host][workbook]") {
  wbcli::PlotSpec spec;
  spec.title = "workbook bench phase0";
  spec.peer_label = "PyTorch 2.5.1";
  spec.panels.push_back(library_panel());
  spec.panels[0].groups[0].bars.push_back({"pytorch", 98.0, false, ""});
  wbcli::PlotPanel peak;
  peak.axis_label = "% of HBM peak (device attributes)";
  peak.groups.push_back({"0.09 pipeline_4_streams", {{"yours", 40.0, false, ""}, {"reference", 62.0, false, ""}}});
  spec.panels.push_back(peak);
  spec.panels.push_back(wbcli::PlotPanel{"an empty panel is not drawn", "", {}});

  const std::string svg = wbcli::render_svg(spec);
  CHECK(svg.find(">% of cuBLAS measured in the same run</text>") != std::string::npos);
  CHECK(svg.find(">% of HBM peak (device attributes)</text>") != std::string::npos);
  CHECK(svg.find("an empty panel") == std::string::npos);
  CHECK(count(svg, "stroke-dasharray") == 1);  // the library line only in the library panel
  CHECK(count(svg, ">0%</text>") == 2);        // each panel has its own axis
  CHECK(bar_y(svg, "reference: 62.0%") > bar_y(svg, "reference: 131.0%"));  // the peak panel is below
  CHECK(text_x(svg, "% of HBM peak (device attributes)") > 0);
  CHECK(svg.find(">PyTorch 2.5.1</text>") != std::string::npos);
  CHECK(svg.find("<title>pytorch: 98.0%</title>") != std::string::npos);
  CHECK(count(svg, "<text") == count(svg, "</text>"));
}

TEST_CASE("xml_escape escapes markup", "[host][workbook]") {
  CHECK(wbcli::xml_escape("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
}
