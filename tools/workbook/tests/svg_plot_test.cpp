// SPDX-License-Identifier: MIT
// The SVG plot: well-formed, with the bars, the missing results and the library line.
#include "tools/workbook/svg_plot.h"

#include "common/catch.h"

namespace {
std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("the plot draws yours, the reference and the library line", "[host][workbook]") {
  wbcli::PlotSpec spec;
  spec.title = "workbook bench phase1";
  spec.subtitle = "NVIDIA H100 <80GB> & co";
  spec.axis_label = "% of cuBLAS measured in the same run";
  spec.library_label = "cuBLAS = 100%";
  spec.groups.push_back({"1.03 matmul_smem_tiled", {{"yours", 15.0, false, ""}, {"reference", 17.0, false, ""}}});
  spec.groups.push_back(
      {"1.07 matmul_warptiling", {{"yours", 0, true, "not passing yet"}, {"reference", 131.0, false, ""}}});
  const std::string svg = wbcli::render_svg(spec);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(count(svg, "<rect") == 1 + 2 + 3);  // background, legend, three bars
  CHECK(svg.find("not passing yet") != std::string::npos);
  CHECK(svg.find("cuBLAS = 100%") != std::string::npos);
  CHECK(svg.find("stroke-dasharray") != std::string::npos);
  CHECK(svg.find("NVIDIA H100 &lt;80GB&gt; &amp; co") != std::string::npos);
  CHECK(svg.find("140%") != std::string::npos);  // the axis grows past the largest bar (131%)
  CHECK(count(svg, "<text") == count(svg, "</text>"));
}

TEST_CASE("xml_escape escapes markup", "[host][workbook]") {
  CHECK(wbcli::xml_escape("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
}
