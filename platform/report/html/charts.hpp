#pragma once
// The report's three kinds of chart, each drawn as one inline <svg> inside a <figure>: a line
// chart over an axis (with shaded x-spans, vertical markers and y-bands for faults, actions and
// the SLO), a bar chart (stacked, grouped or horizontal) and a Gantt chart. Every data element
// carries a <title>, which the browser shows on hover. The <svg> is tagged
// data-chart="ID" and data-marks="N" (the data elements drawn) so a test can find a chart and see
// that it is not empty.
#include <string>
#include <utility>
#include <vector>

namespace trainvp::html {

// A legend entry: a name and its colour.
struct LegendEntry {
  std::string name, color;
};

struct Series {
  std::string name, color;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in the order given
  bool dashed = false;
  bool lines = true;  // false: dots only (points that share an x, as a sweep's scatter)
};

struct Span {  // a shaded range of x: a fault while it was active
  double x0 = 0, x1 = 0;
  std::string tip, color;
};

struct Marker {  // a vertical line at x: a detection, a diagnosis, a mitigation action
  double x = 0;
  std::string tip, color, label;  // label: a few characters written at the top, "" for none
};

struct Band {  // a shaded range of y: the SLO band
  double y0 = 0, y1 = 0;
  std::string tip, color;
};

struct LineChart {
  std::string id, title, x_label, y_label;
  std::vector<Series> series;
  std::vector<Span> spans;
  std::vector<Marker> markers;
  std::vector<Band> bands;
  std::vector<LegendEntry> legend;  // besides the series' names: what the spans and markers mean
  bool logx = false, logy = false, y_from_zero = true;
  int width = 960, height = 320;
};
std::string render(const LineChart& c);

struct Bar {
  std::string label;
  std::vector<double> values;  // one per segment (stacked) or per group member (grouped)
};

struct BarChart {
  enum class Layout { Stacked, Grouped, Horizontal };
  std::string id, title, value_label;
  std::vector<std::string> segments;  // the names of each bar's values, coloured by palette()
  std::vector<Bar> bars;
  Layout layout = Layout::Stacked;
  std::string unit = "s";  // "s": values are seconds; "": plain numbers; "%": fractions shown as %
  int width = 960, height = 300;
};
std::string render(const BarChart& c);

struct GanttBar {
  double start = 0, end = 0;
  std::string text, tip, color;  // text: written inside the bar when it fits
};
struct GanttRow {
  std::string label;
  std::vector<GanttBar> bars;
};
struct Gantt {
  std::string id, title, x_label;
  std::vector<GanttRow> rows;
  std::vector<LegendEntry> legend;
  int width = 960;
};
std::string render(const Gantt& c);

// Rows over time bins, each cell shaded by a fraction in [0, 1] (a link's busy share of the bin).
struct HeatMap {
  std::string id, title, x_label;
  double x0 = 0, x1 = 1;                   // the time the columns divide evenly
  std::vector<std::string> rows;           // one label per row
  std::vector<std::vector<double>> cells;  // [row][column], each in [0, 1]; 0 is not drawn
  int width = 960;
};
std::string render(const HeatMap& c);

// A value of a chart's unit for an axis label or tip.
std::string value_text(double v, const std::string& unit);

}  // namespace trainvp::html
