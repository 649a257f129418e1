#include "platform/report/html/charts.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "platform/report/html/svg.hpp"

namespace trainvp::html {

namespace {

constexpr double kLeft = 78, kRight = 16, kTop = 14, kBottom = 46;

std::string svg_open(const std::string& id, int w, int h, std::size_t marks, const std::string& title) {
  return "<svg class=\"chart\" data-chart=\"" + escape(id) + "\" data-marks=\"" + std::to_string(marks) +
         "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(h) + "\" role=\"img\" aria-label=\"" + escape(title) + "\">\n";
}

std::string figure(const std::string& title, const std::string& svg, const std::vector<LegendEntry>& legend) {
  std::string out = "<figure class=\"chart-box\"><figcaption>" + escape(title) + "</figcaption>\n" + svg;
  if (!legend.empty()) {
    out += "<div class=\"legend\">";
    for (auto& e : legend)
      out += "<span><i style=\"background:" + escape(e.color) + "\"></i>" + escape(e.name) + "</span>";
    out += "</div>\n";
  }
  return out + "</figure>\n";
}

std::string tip(const std::string& text) { return "<title>" + escape(text) + "</title>"; }

std::string text_at(double x, double y, const std::string& anchor, const std::string& text,
                    const std::string& cls = "tick") {
  return "<text class=\"" + cls + "\" x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" + anchor + "\">" +
         escape(text) + "</text>";
}

// The y axis (ticks, grid lines, label) of a plot area from `top` to `bottom` at x = left..right.
std::string y_axis(const Scale& s, double left, double right, const std::string& label, const std::string& unit,
                   double top, double bottom) {
  std::string out;
  for (double t : s.ticks()) {
    const double y = s(t);
    out += "<line class=\"grid\" x1=\"" + coord(left) + "\" x2=\"" + coord(right) + "\" y1=\"" + coord(y) + "\" y2=\"" +
           coord(y) + "\"/>" + text_at(left - 6, y + 4, "end", value_text(t, unit)) + "\n";
  }
  out += "<text class=\"axis-label\" transform=\"translate(14," + coord((top + bottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + escape(label) + "</text>\n";
  return out;
}

std::string x_axis(const Scale& s, double bottom, double left, double right, const std::string& label,
                   const std::string& unit) {
  std::string out = "<line class=\"axis\" x1=\"" + coord(left) + "\" x2=\"" + coord(right) + "\" y1=\"" +
                    coord(bottom) + "\" y2=\"" + coord(bottom) + "\"/>\n";
  for (double t : s.ticks(8)) {
    const double x = s(t);
    out += "<line class=\"axis\" x1=\"" + coord(x) + "\" x2=\"" + coord(x) + "\" y1=\"" + coord(bottom) + "\" y2=\"" +
           coord(bottom + 4) + "\"/>" + text_at(x, bottom + 17, "middle", value_text(t, unit)) + "\n";
  }
  out += text_at((left + right) / 2, bottom + 36, "middle", label, "axis-label") + "\n";
  return out;
}

// A log axis spans the positive values exactly, a little wider on each side.
std::pair<double, double> log_range(const std::vector<double>& values) {
  double lo = 0, hi = 0;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) lo = lo > 0 ? std::min(lo, v) : v, hi = std::max(hi, v);
  if (lo <= 0) return {1, 10};
  return {lo / 1.08, hi * 1.08};
}

}  // namespace

std::string value_text(double v, const std::string& unit) {
  if (unit == "s") return seconds(v);
  if (unit == "%") return num(v * 100, 3) + "%";
  if (unit == "B") return bytes(v);
  return num(v) + (unit.empty() ? "" : " " + unit);
}

std::string render(const LineChart& c) {
  const double w = c.width, h = c.height, left = kLeft, right = w - kRight, top = kTop, bottom = h - kBottom;
  std::vector<double> xs, ys;
  for (auto& s : c.series)
    for (auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  for (auto& m : c.markers) xs.push_back(m.x);
  for (auto& b : c.bands) ys.push_back(b.y0), ys.push_back(b.y1);
  auto [x0, x1] = c.logx ? log_range(xs) : axis_range(xs, false);
  auto [y0, y1] = c.logy ? log_range(ys) : axis_range(ys, c.y_from_zero);
  const Scale sx(x0, x1, left, right, c.logx), sy(y0, y1, bottom, top, c.logy);
  std::string body, marks_svg;
  std::size_t marks = 0;
  body += "<defs><clipPath id=\"clip-" + escape(c.id) + "\"><rect x=\"" + coord(left) + "\" y=\"" + coord(top) +
          "\" width=\"" + coord(right - left) + "\" height=\"" + coord(bottom - top) + "\"/></clipPath></defs>\n";
  body += y_axis(sy, left, right, c.y_label, "", top, bottom);
  body += x_axis(sx, bottom, left, right, c.x_label, "");
  body += "<g clip-path=\"url(#clip-" + escape(c.id) + ")\">\n";
  for (auto& b : c.bands) {
    const double ya = sy(std::max(b.y0, b.y1)), yb = sy(std::min(b.y0, b.y1));
    body += "<rect class=\"band\" x=\"" + coord(left) + "\" y=\"" + coord(ya) + "\" width=\"" + coord(right - left) +
            "\" height=\"" + coord(std::max(yb - ya, 1.0)) + "\" fill=\"" + escape(b.color) + "\">" + tip(b.tip) +
            "</rect>\n";
    ++marks;
  }
  for (auto& s : c.spans) {
    const double a = std::clamp(sx(std::max(s.x0, x0)), left, right),
                 b = std::clamp(sx(std::min(s.x1, x1)), left, right);
    body += "<rect class=\"span\" x=\"" + coord(a) + "\" y=\"" + coord(top) + "\" width=\"" +
            coord(std::max(b - a, 2.0)) + "\" height=\"" + coord(bottom - top) + "\" fill=\"" + escape(s.color) +
            "\">" + tip(s.tip) + "</rect>\n";
    ++marks;
  }
  for (auto& s : c.series) {
    if (s.points.empty()) continue;
    std::string d;
    for (std::size_t i = 0; i < s.points.size(); ++i)
      d += (i ? "L" : "M") + coord(sx(s.points[i].first)) + "," + coord(sy(s.points[i].second));
    if (s.lines)
      body += "<path class=\"line\" d=\"" + d + "\" stroke=\"" + escape(s.color) + "\"" +
              (s.dashed ? " stroke-dasharray=\"5,4\"" : "") + ">" + tip(s.name) + "</path>\n";
    // Dots with a tip each while they stay readable; beyond that the line alone.
    if (s.points.size() <= 400 || !s.lines)
      for (auto& [x, y] : s.points)
        body += "<circle cx=\"" + coord(sx(x)) + "\" cy=\"" + coord(sy(y)) + "\" r=\"2.5\" fill=\"" + escape(s.color) +
                "\">" + tip(s.name + ": " + c.x_label + " " + num(x, 6) + ", " + c.y_label + " " + num(y, 6)) +
                "</circle>\n";
    marks += s.points.size();
  }
  for (auto& m : c.markers) {
    const double x = sx(m.x);
    body += "<g class=\"marker\"><line x1=\"" + coord(x) + "\" x2=\"" + coord(x) + "\" y1=\"" + coord(top) +
            "\" y2=\"" + coord(bottom) + "\" stroke=\"" + escape(m.color) + "\"/>";
    if (!m.label.empty()) body += text_at(x + 3, top + 11, "start", m.label, "marker-label");
    body += tip(m.tip) + "</g>\n";
    ++marks;
  }
  body += "</g>\n";
  std::vector<LegendEntry> legend;
  for (auto& s : c.series) legend.push_back({s.name, s.color});
  legend.insert(legend.end(), c.legend.begin(), c.legend.end());
  return figure(c.title, svg_open(c.id, c.width, c.height, marks, c.title) + body + "</svg>\n", legend);
}

std::string render(const BarChart& c) {
  std::vector<LegendEntry> legend;
  for (std::size_t i = 0; i < c.segments.size(); ++i) legend.push_back({c.segments[i], palette(i)});
  std::size_t marks = 0;
  std::string body;
  auto bar_tip = [&](const Bar& b, std::size_t i) {
    return tip(b.label + ": " + (i < c.segments.size() ? c.segments[i] + " " : "") + value_text(b.values[i], c.unit));
  };
  if (c.layout == BarChart::Layout::Horizontal) {
    const double row = 18, label_w = 300, top = 6, left = label_w, right = c.width - 90.0;
    const double h = top + row * c.bars.size() + 40;
    std::vector<double> vals;  // each bar's segments are laid end to end: the axis spans the totals
    for (auto& b : c.bars) {
      double total = 0;
      for (double v : b.values) total += std::max(v, 0.0);
      vals.push_back(total);
    }
    auto [lo, hi] = axis_range(vals, true);
    const Scale sx(lo, hi, left, right);
    for (std::size_t r = 0; r < c.bars.size(); ++r) {
      const Bar& b = c.bars[r];
      const double y = top + r * row;
      body += text_at(left - 6, y + 13, "end", b.label, "row-label") + "\n";
      double x = left;
      for (std::size_t i = 0; i < b.values.size(); ++i) {
        const double wpx = std::max(sx(b.values[i]) - left, 0.0);
        body += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y + 2) + "\" width=\"" + coord(wpx) + "\" height=\"" +
                coord(row - 4) + "\" fill=\"" + palette(i) + "\">" + bar_tip(b, i) + "</rect>";
        x += wpx;
        ++marks;
      }
      double total = 0;
      for (double v : b.values) total += v;
      body += text_at(x + 4, y + 13, "start", value_text(total, c.unit)) + "\n";
    }
    body += x_axis(sx, top + row * c.bars.size() + 2, left, right, c.value_label, c.unit);
    return figure(c.title, svg_open(c.id, c.width, static_cast<int>(h), marks, c.title) + body + "</svg>\n",
                  c.segments.size() > 1 ? legend : std::vector<LegendEntry>{});
  }
  const double w = c.width, h = c.height, left = kLeft, right = w - kRight, top = kTop, bottom = h - kBottom - 14;
  const bool stacked = c.layout == BarChart::Layout::Stacked;
  std::vector<double> tops;
  for (auto& b : c.bars) {
    double sum = 0;
    for (double v : b.values) stacked ? void(sum += std::max(v, 0.0)) : tops.push_back(v);
    if (stacked) tops.push_back(sum);
  }
  auto [lo, hi] = axis_range(tops, true);
  const Scale sy(lo, hi, bottom, top);
  body += y_axis(sy, left, right, c.value_label, c.unit, top, bottom);
  const std::size_t n = std::max<std::size_t>(c.bars.size(), 1);
  const double slot = (right - left) / n, bar_w = std::max(slot * 0.75, 1.0);
  // Every k-th label, so that labels do not overlap.
  const std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(n * 7.0 * 8 / (right - left))));
  for (std::size_t k = 0; k < c.bars.size(); ++k) {
    const Bar& b = c.bars[k];
    const double x = left + k * slot + (slot - bar_w) / 2;
    double base = 0;
    const std::size_t m = std::max<std::size_t>(b.values.size(), 1);
    for (std::size_t i = 0; i < b.values.size(); ++i) {
      const double v = std::max(b.values[i], 0.0);
      double bx = x, bw = bar_w, y_hi = sy(base + v), y_lo = sy(base);
      if (!stacked) bx = x + i * bar_w / m, bw = bar_w / m, y_hi = sy(v), y_lo = sy(0);
      body += "<rect x=\"" + coord(bx) + "\" y=\"" + coord(y_hi) + "\" width=\"" + coord(bw) + "\" height=\"" +
              coord(std::max(y_lo - y_hi, 0.0)) + "\" fill=\"" + palette(i) + "\">" + bar_tip(b, i) + "</rect>";
      if (stacked) base += v;
      ++marks;
    }
    if (k % every == 0)
      body += "<text class=\"tick\" transform=\"translate(" + coord(x + bar_w / 2) + "," + coord(bottom + 12) +
              ") rotate(30)\" text-anchor=\"start\">" + escape(b.label) + "</text>";
    body += "\n";
  }
  body += "<line class=\"axis\" x1=\"" + coord(left) + "\" x2=\"" + coord(right) + "\" y1=\"" + coord(bottom) +
          "\" y2=\"" + coord(bottom) + "\"/>\n";
  return figure(c.title, svg_open(c.id, c.width, c.height, marks, c.title) + body + "</svg>\n", legend);
}

std::string render(const Gantt& c) {
  const double row = 20, label_w = 170, top = 6, left = label_w, right = c.width - 20.0;
  const double bottom = top + row * c.rows.size(), h = bottom + 46;
  std::vector<double> xs;
  for (auto& r : c.rows)
    for (auto& b : r.bars) xs.push_back(b.start), xs.push_back(b.end);
  auto [lo, hi] = axis_range(xs, false);
  const Scale sx(lo, hi, left, right);
  std::string body;
  std::size_t marks = 0;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + r * row;
    body += "<rect class=\"stripe\" x=\"" + coord(left) + "\" y=\"" + coord(y) + "\" width=\"" + coord(right - left) +
            "\" height=\"" + coord(row) + "\"/>" + text_at(left - 6, y + 14, "end", c.rows[r].label, "row-label") +
            "\n";
    for (auto& b : c.rows[r].bars) {
      const double a = sx(b.start), wpx = std::max(sx(b.end) - a, 0.8);
      body += "<g><rect x=\"" + coord(a) + "\" y=\"" + coord(y + 2) + "\" width=\"" + coord(wpx) + "\" height=\"" +
              coord(row - 4) + "\" fill=\"" + escape(b.color) + "\"/>";
      if (!b.text.empty() && wpx >= 7.0 * b.text.size() + 4)
        body += text_at(a + wpx / 2, y + 14, "middle", b.text, "bar-text");
      body += tip(b.tip) + "</g>\n";
      ++marks;
    }
  }
  body += x_axis(sx, bottom + 2, left, right, c.x_label, "");
  return figure(c.title, svg_open(c.id, c.width, static_cast<int>(h), marks, c.title) + body + "</svg>\n", c.legend);
}

namespace {
// White to the palette's blue: the shade of a fraction in [0, 1].
std::string shade(double f) {
  f = std::clamp(f, 0.0, 1.0);
  auto mix = [&](int from, int to) { return std::to_string(static_cast<int>(std::lround(from + (to - from) * f))); };
  return "rgb(" + mix(255, 0) + "," + mix(255, 0x48) + "," + mix(255, 0x8f) + ")";
}
}  // namespace

std::string render(const HeatMap& c) {
  const double row = 13, label_w = 230, top = 6, left = label_w, right = c.width - 20.0;
  const double bottom = top + row * c.rows.size(), h = bottom + 46;
  const Scale sx(c.x0, c.x1, left, right);
  // Shades run from white to full blue at the busiest cell, so a lightly loaded fabric still shows
  // its pattern; the legend names the shares.
  double peak = 0;
  for (auto& cells : c.cells)
    for (double v : cells) peak = std::max(peak, v);
  if (peak <= 0) peak = 1;
  std::string body;
  std::size_t marks = 0;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + r * row;
    body += "<rect class=\"stripe\" x=\"" + coord(left) + "\" y=\"" + coord(y) + "\" width=\"" + coord(right - left) +
            "\" height=\"" + coord(row) + "\"/>" + text_at(left - 6, y + 10, "end", c.rows[r], "row-label") + "\n";
    const auto& cells = c.cells[r];
    const double bin = cells.empty() ? 0 : (c.x1 - c.x0) / cells.size();
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (cells[k] <= 0) continue;
      const double a = sx(c.x0 + k * bin), b = sx(c.x0 + (k + 1) * bin);
      body += "<rect x=\"" + coord(a) + "\" y=\"" + coord(y + 1) + "\" width=\"" + coord(std::max(b - a, 0.5)) +
              "\" height=\"" + coord(row - 2) + "\" fill=\"" + shade(cells[k] / peak) + "\">" +
              tip(c.rows[r] + ": " + num(c.x0 + k * bin, 6) + " s to " + num(c.x0 + (k + 1) * bin, 6) + " s, busy " +
                  num(cells[k] * 100, 3) + "%") +
              "</rect>";
      ++marks;
    }
    body += "\n";
  }
  body += x_axis(sx, bottom + 2, left, right, c.x_label, "");
  std::vector<LegendEntry> legend;
  for (double f : {0.25, 0.5, 0.75, 1.0}) legend.push_back({"busy " + num(f * peak * 100, 3) + "%", shade(f)});
  return figure(c.title, svg_open(c.id, c.width, static_cast<int>(h), marks, c.title) + body + "</svg>\n", legend);
}

}  // namespace trainvp::html
