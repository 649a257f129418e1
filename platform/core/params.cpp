#include "platform/core/params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace trainvp {

bool Range::contains(double v) const {
  if (std::isnan(v)) return false;
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return true;
}

static std::string num(double v) {
  // Whole bounds print whole ("10000000", not "1e+07").
  if (std::abs(v) < 1e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string Range::text() const {
  bool lo_inf = std::isinf(lo), hi_inf = std::isinf(hi);
  if (lo_inf && hi_inf) return "";
  if (hi_inf) return (lo_open ? "> " : ">= ") + num(lo);
  if (lo_inf) return (hi_open ? "< " : "<= ") + num(hi);
  return std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + (hi_open ? ")" : "]");
}

std::string Range::phrase() const {
  std::string t = text();
  if (t.empty() || t[0] == '>' || t[0] == '<') return t;
  return "in " + t;
}

namespace params_detail {

double as_number(const json& v, const std::string& path, const std::string& expected) {
  if (!v.is_number()) fail_expected(path, expected, v);
  return v.get<double>();
}

void check_range(double v, const std::string& path, const Range& r, const std::string& what, const json& found) {
  if (!r.contains(v)) fail_expected(path, what + " " + r.phrase(), found);
}

std::int64_t as_integer(const json& v, const std::string& path, const Range& r) {
  std::string expected = "an integer" + (r.text().empty() ? std::string() : " " + r.phrase());
  // A value past what an integer holds is named by that bound, not by the range's lower end.
  const std::string within =
      std::isinf(r.hi) ? expected + (r.text().empty() ? " " : " and ") + "<= 9223372036854775807 (2^63-1)" : expected;
  if (v.is_number_integer()) {
    auto x = v.get<std::int64_t>();
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      fail_expected(path, within, v);
    check_range(static_cast<double>(x), path, r, "an integer", v);
    return x;
  }
  // 4.0 is accepted as 4: JSON writers often emit integral floats.
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 9e15) {
      check_range(d, path, r, "an integer", v);
      return static_cast<std::int64_t>(d);
    }
    if (std::floor(d) == d && std::fabs(d) > 9.2e18) fail_expected(path, within, v);
    if (std::floor(d) == d)
      fail_expected(
          path,
          expected + ", written in full digits (a value this large with an exponent or a decimal point is not exact)",
          v);
  }
  fail_expected(path, expected, v);
}

double quantity(const json& v, const std::string& path, Quantity q, const Range& r) {
  std::string expected = std::string("a ") + quantity_name(q) + " string with a unit (" + units_of(q) + ")";
  if (!v.is_string()) fail_expected(path, expected, v);
  double x;
  try {
    switch (q) {
      case Quantity::Bandwidth: x = parse_bandwidth_bps(v.get<std::string>()); break;
      case Quantity::Time: x = static_cast<double>(parse_time_ps(v.get<std::string>())); break;
      case Quantity::Size: x = static_cast<double>(parse_size_bytes(v.get<std::string>())); break;
      case Quantity::Frequency: x = parse_frequency_hz(v.get<std::string>()); break;
      default: x = parse_flop_rate(v.get<std::string>()); break;
    }
  } catch (const UnitError& e) {
    throw ScenarioError(path, e.what());
  }
  // What the 1 ps time base can represent (docs/reliability.md): above these rates a byte, a
  // FLOP or a clock cycle takes under a picosecond and rounding swamps the result; above 720 h a
  // time no longer fits beside others in the 63-bit picosecond clock.
  struct Limit {
    double max;
    const char* text;
  };
  static const Limit limits[] = {{1e15, "at most 1000Tbps (1 Pbit/s)"},          // Bandwidth
                                 {720.0 * 3600 * 1e12, "at most 720h"},          // Time
                                 {std::numeric_limits<double>::infinity(), ""},  // Size: overflow-checked where used
                                 {1e18, "at most 1000PFLOPS"},                   // FlopRate
                                 {1e12, "at most 1000GHz"}};                     // Frequency
  const Limit& lim = limits[static_cast<int>(q)];
  if (x > lim.max)
    fail_expected(path, std::string("a ") + quantity_name(q) + " " + lim.text + " (the 1 ps time base)", v);
  if (!r.contains(x)) {
    std::string bound = r.lo_open && r.lo == 0 ? "greater than zero" : r.text();
    fail_expected(path, std::string("a ") + quantity_name(q) + " " + bound, v);
  }
  return x;
}

// Levenshtein distance, for "did you mean" hints on misspelt keys.
static std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 3;  // more than two edits away is no longer a typo
  for (auto& c : candidates) {
    // Lengths more than two apart cannot be two edits apart: skip them (a hostile 100 kB key
    // then costs nothing).
    if (key.size() > c.size() + 2 || c.size() > key.size() + 2) continue;
    std::size_t d = edit_distance(key, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

}  // namespace params_detail
}  // namespace trainvp
