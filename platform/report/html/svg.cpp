#include "platform/report/html/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trainvp::html {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {
std::string printf_double(const char* format, int digits, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, digits, v);
  return buf;
}
}  // namespace

std::string num(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
  if (v == 0) return "0";
  return printf_double("%.*g", digits, v);
}

std::string exact(double v) {
  if (!std::isfinite(v)) return "null";
  return printf_double("%.*g", 17, v);
}

std::string coord(double v) {
  if (!std::isfinite(v)) v = 0;
  std::string s = printf_double("%.*f", 1, v);
  return s == "-0.0" ? "0.0" : s;
}

std::string seconds(double s) {
  if (!std::isfinite(s)) return num(s);
  const double a = std::fabs(s);
  if (a >= 600) {
    const double m = std::floor(a / 60);
    return std::string(s < 0 ? "-" : "") + num(m, 6) + " min " + num(std::round(a - 60 * m), 3) + " s";
  }
  if (a >= 1 || a == 0) return num(s) + " s";
  if (a >= 1e-3) return num(s * 1e3) + " ms";
  if (a >= 1e-6) return num(s * 1e6) + " us";
  return num(s * 1e9) + " ns";
}

std::string bytes(double b) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = b;
  while (std::fabs(v) >= 1024 && u < 5) v /= 1024, ++u;
  return num(v) + " " + units[u];
}

Scale::Scale(double lo, double hi, double px_lo, double px_hi, bool log)
    : lo_(lo), hi_(hi), px_lo_(px_lo), px_hi_(px_hi), log_(log && lo > 0 && hi > 0) {}

double Scale::operator()(double v) const {
  double a = lo_, b = hi_;
  if (log_) {
    v = std::log10(std::max(v, lo_ * 1e-3));
    a = std::log10(a), b = std::log10(b);
  }
  if (b == a) return (px_lo_ + px_hi_) / 2;
  return px_lo_ + (v - a) / (b - a) * (px_hi_ - px_lo_);
}

std::vector<double> Scale::ticks(int count) const {
  std::vector<double> out;
  if (!(hi_ > lo_)) return {lo_};
  if (log_) {
    // Powers of ten; within less than two decades, 1, 2 and 5 times them.
    const bool fine = hi_ / lo_ < 100;
    for (double p = std::pow(10, std::floor(std::log10(lo_))); p <= hi_ * 1.0000001; p *= 10)
      for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1})
        if (m * p >= lo_ * 0.9999999 && m * p <= hi_ * 1.0000001) out.push_back(m * p);
    if (out.size() < 2) out = {lo_, hi_};
    return out;
  }
  // A step of 1, 2 or 5 times a power of ten that gives about `count` ticks.
  const double raw = (hi_ - lo_) / std::max(count, 1);
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo_ / step) * step; t <= hi_ + step * 1e-9; t += step)
    out.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  return out;
}

std::pair<double, double> axis_range(const std::vector<double>& values, bool from_zero) {
  double lo = 0, hi = 0;
  bool any = false;
  for (double v : values)
    if (std::isfinite(v)) {
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  if (!any) return {0, 1};
  if (from_zero && lo > 0) lo = 0;
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    return {lo - (from_zero && lo >= 0 ? 0 : pad), hi + pad};
  }
  return {lo, hi + (hi - lo) * 0.05};
}

const char* palette(std::size_t i) {
  // Colour-blind-safe (Okabe-Ito), then greys.
  static const char* colours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00",
                                  "#56B4E9", "#F0E442", "#000000", "#999999"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

}  // namespace trainvp::html
