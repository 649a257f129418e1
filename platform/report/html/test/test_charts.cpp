// The three chart kinds: each is one <svg> tagged with its id and the number of data marks drawn,
// every mark has a hover title, and the output is the same text for the same chart.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "platform/report/html/charts.hpp"

namespace trainvp::html {
namespace test_charts {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

LineChart iteration_chart() {
  LineChart c;
  c.id = "it";
  c.title = "Iteration <time>";
  c.x_label = "t (s)";
  c.y_label = "s";
  c.series.push_back({"iteration time", "#000", {{1, 1.0}, {2, 1.1}, {3, 2.0}}, false});
  c.spans.push_back({1.5, 2.5, "fault 0", "#f00"});
  c.markers.push_back({2.6, "diagnosis", "#00f", "D"});
  c.bands.push_back({1.0, 1.11, "SLO", "#0f0"});
  return c;
}

TEST(HtmlCharts, ALineChartDrawsItsPointsSpansMarkersAndBand) {
  const std::string svg = render(iteration_chart());
  EXPECT_NE(svg.find("data-chart=\"it\""), std::string::npos);
  EXPECT_NE(svg.find("data-marks=\"6\""), std::string::npos) << svg;  // 3 points + span + marker + band
  EXPECT_EQ(count(svg, "<circle"), 3u);
  EXPECT_EQ(count(svg, "class=\"span\""), 1u);
  EXPECT_EQ(count(svg, "class=\"band\""), 1u);
  EXPECT_EQ(count(svg, "class=\"marker\""), 1u);
  EXPECT_NE(svg.find("Iteration &lt;time&gt;"), std::string::npos);  // the title is escaped
  EXPECT_EQ(svg, render(iteration_chart()));                         // deterministic
}

TEST(HtmlCharts, ManyPointsAreOneLineWithoutDots) {
  LineChart c = iteration_chart();
  c.series[0].points.clear();
  for (int i = 0; i < 1000; ++i) c.series[0].points.push_back({double(i), 1.0 + i % 7});
  const std::string svg = render(c);
  EXPECT_EQ(count(svg, "<circle"), 0u);
  EXPECT_NE(svg.find("data-marks=\"1003\""), std::string::npos);
}

TEST(HtmlCharts, ASeriesWithoutLinesIsDotsOnly) {
  LineChart c = iteration_chart();
  c.series[0].lines = false;
  const std::string svg = render(c);
  EXPECT_EQ(count(svg, "class=\"line\""), 0u);
  EXPECT_EQ(count(svg, "<circle"), 3u);
}

TEST(HtmlCharts, StackedBarsStackEverySegmentAndNameThemInTheLegend) {
  BarChart c;
  c.id = "split";
  c.title = "split";
  c.segments = {"compute", "bubble"};
  c.bars = {{"stage 0", {0.6, 0.1}}, {"stage 1", {0.5, 0.2}}};
  const std::string svg = render(c);
  EXPECT_NE(svg.find("data-marks=\"4\""), std::string::npos);
  EXPECT_EQ(count(svg, "<rect"), 4u);
  EXPECT_NE(svg.find("stage 1: bubble 200 ms"), std::string::npos);  // the hover title
  EXPECT_NE(svg.find("class=\"legend\""), std::string::npos);
}

TEST(HtmlCharts, HorizontalBarsWriteEachRowLabelAndValue) {
  BarChart c;
  c.id = "links";
  c.layout = BarChart::Layout::Horizontal;
  c.unit = "%";
  c.segments = {"utilization"};
  c.bars = {{"node0.gpu0->node0.nvswitch", {0.5}}, {"node0.nic0->switch", {0.25}}};
  const std::string svg = render(c);
  EXPECT_NE(svg.find("node0.gpu0-&gt;node0.nvswitch"), std::string::npos);
  EXPECT_NE(svg.find(">50%<"), std::string::npos);
  EXPECT_NE(svg.find("data-marks=\"2\""), std::string::npos);
}

// Segments laid end to end (a link's bytes by job): the axis spans each bar's total, so the
// longest bar ends inside the plot (x from 300 to width - 90 = 870).
TEST(HtmlCharts, StackedHorizontalBarsEndInsideTheAxis) {
  BarChart c;
  c.id = "shared";
  c.layout = BarChart::Layout::Horizontal;
  c.unit = "";
  c.segments = {"a", "b"};
  c.bars = {{"leaf0->spine1", {3, 5}}, {"leaf1->spine1", {1, 1}}};
  const std::string svg = render(c);
  static const std::regex rect(R"re(<rect x="([0-9.]+)" y="[^"]*" width="([0-9.]+)")re");
  double end = 0;
  std::size_t rects = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it, ++rects)
    end = std::max(end, std::stod((*it)[1]) + std::stod((*it)[2]));
  EXPECT_EQ(rects, 4u);
  EXPECT_GT(end, 300 + 0.5 * 570);  // the longer bar is drawn, not clipped to nothing
  EXPECT_LE(end, 870.01);
}

TEST(HtmlCharts, AGanttChartHasARowPerStageAndABarPerSlice) {
  Gantt g;
  g.id = "pipeline";
  g.title = "pipeline";
  g.rows = {{"stage 0", {{0, 1, "0", "F0", "#00f"}, {1, 2, "1", "F1", "#00f"}}},
            {"stage 1", {{1, 3, "0", "F0", "#00f"}}}};
  const std::string svg = render(g);
  EXPECT_NE(svg.find("data-marks=\"3\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"row-label\""), 2u);
  EXPECT_EQ(count(svg, "<title>F"), 3u);
}

TEST(HtmlCharts, AHeatMapDrawsTheBusyCellsShadedToTheBusiest) {
  HeatMap h;
  h.id = "heat";
  h.title = "links";
  h.x0 = 0, h.x1 = 4;
  h.rows = {"a->b", "c->d"};
  h.cells = {{0, 0.5, 0.25, 0}, {0.1, 0, 0, 0}};
  const std::string svg = render(h);
  EXPECT_NE(svg.find("data-marks=\"3\""), std::string::npos);  // zero cells are not drawn
  EXPECT_NE(svg.find("a-&gt;b: 1 s to 2 s, busy 50%"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"rgb(0,72,143)\""), std::string::npos);  // the busiest cell: full blue
  EXPECT_NE(svg.find("busy 50%"), std::string::npos);                // the legend's top names it
}

TEST(HtmlCharts, ValueTextFollowsTheUnit) {
  EXPECT_EQ(value_text(0.25, "%"), "25%");
  EXPECT_EQ(value_text(0.002, "s"), "2 ms");
  EXPECT_EQ(value_text(2048, "B"), "2 KiB");
  EXPECT_EQ(value_text(3, ""), "3");
}

}  // namespace test_charts
}  // namespace trainvp::html
