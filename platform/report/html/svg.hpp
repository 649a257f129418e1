#pragma once
// The text pieces every chart of the HTML report is made of: escaping, numbers written the same
// way on every machine (the page is byte-identical for the same input), and an axis scale.
#include <string>
#include <string_view>
#include <vector>

namespace trainvp::html {

// Text for HTML element content or a double-quoted attribute: & < > " ' escaped.
std::string escape(std::string_view text);

// A number for a reader: `digits` significant digits, %g style ("0.1235", "1.235e+09").
std::string num(double v, int digits = 4);
// A number exactly as results.json holds it (17 significant digits): data-value attributes, which
// the browser test compares with results.json.
std::string exact(double v);
// An SVG coordinate: one decimal, never "-0.0".
std::string coord(double v);

// A duration for a reader: "1.235 s", "12.35 ms", "4.2 us", "3 min 20 s" above 10 minutes.
std::string seconds(double s);
// Bytes for a reader in powers of 1024 ("1.5 GiB").
std::string bytes(double b);

// Maps data values [lo, hi] onto pixels [px_lo, px_hi], linearly or logarithmically.
class Scale {
 public:
  Scale(double lo, double hi, double px_lo, double px_hi, bool log = false);
  double operator()(double v) const;
  // About `count` round values inside [lo, hi] for tick marks (powers of ten on a log scale).
  std::vector<double> ticks(int count = 5) const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }

 private:
  double lo_, hi_, px_lo_, px_hi_;
  bool log_;
};

// [lo, hi] of `values` widened to a usable axis: a zero-width range gets room around it, and
// with `from_zero` a positive range starts at 0.
std::pair<double, double> axis_range(const std::vector<double>& values, bool from_zero);

// The colour of series `i` (a fixed palette, so charts of one page agree).
const char* palette(std::size_t i);

}  // namespace trainvp::html
