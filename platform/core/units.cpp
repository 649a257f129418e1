#include "platform/core/units.hpp"

#include "platform/core/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

namespace trainvp {
namespace {

struct UnitScale {
  const char* unit;
  double scale;
};

// Splits "12.5 Gbps" into 12.5 and "Gbps". The number must be a plain decimal (no hex, no inf).
std::pair<double, std::string> split_number(const std::string& text, Quantity q) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  bool digits = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    ++i;
    digits = true;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      digits = true;
    }
  }
  if (digits && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      i = j;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    }
  }
  if (!digits)
    throw UnitError("expected a " + std::string(quantity_name(q)) + " such as a number followed by a unit (" +
                    units_of(q) + "), found " + quote_clipped(text));
  double value = std::strtod(text.substr(start, i - start).c_str(), nullptr);
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return {value, text.substr(i, end - i)};
}

double parse_with(const std::string& text, Quantity q, const std::vector<UnitScale>& table) {
  auto [value, unit] = split_number(text, q);
  if (unit.empty())
    throw UnitError("missing unit in " + quote_clipped(text) + ": expected a " + quantity_name(q) + " with one of " +
                    units_of(q));
  for (const auto& u : table) {
    if (unit == u.unit) {
      if (value < 0)
        throw UnitError("negative " + std::string(quantity_name(q)) + " " + quote_clipped(text) +
                        ": expected a value >= 0");
      double r = value * u.scale;
      if (!std::isfinite(r))
        throw UnitError("out-of-range " + std::string(quantity_name(q)) + " " + quote_clipped(text));
      return r;
    }
  }
  throw UnitError("unknown " + std::string(quantity_name(q)) + " unit " + quote_clipped(unit) + " in " +
                  quote_clipped(text) + ": expected one of " + units_of(q));
}

constexpr double kKi = 1024.0, kMi = kKi * 1024.0, kGi = kMi * 1024.0, kTi = kGi * 1024.0;

const std::vector<UnitScale> kBandwidth = {
    {"bps", 1},         {"Kbps", 1e3},      {"kbps", 1e3},      {"Mbps", 1e6},      {"Gbps", 1e9},   {"Tbps", 1e12},
    {"b/s", 1},         {"Kb/s", 1e3},      {"kb/s", 1e3},      {"Mb/s", 1e6},      {"Gb/s", 1e9},   {"Tb/s", 1e12},
    {"bit/s", 1},       {"Kbit/s", 1e3},    {"kbit/s", 1e3},    {"Mbit/s", 1e6},    {"Gbit/s", 1e9}, {"Tbit/s", 1e12},
    {"B/s", 8},         {"KB/s", 8e3},      {"kB/s", 8e3},      {"MB/s", 8e6},      {"GB/s", 8e9},   {"TB/s", 8e12},
    {"KiB/s", 8 * kKi}, {"MiB/s", 8 * kMi}, {"GiB/s", 8 * kGi}, {"TiB/s", 8 * kTi},
};
const std::vector<UnitScale> kTime = {
    {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}, {"min", 60e12}, {"h", 3600e12},
};
const std::vector<UnitScale> kSize = {
    {"B", 1},     {"KB", 1e3},  {"kB", 1e3},  {"MB", 1e6},  {"GB", 1e9},
    {"TB", 1e12}, {"KiB", kKi}, {"MiB", kMi}, {"GiB", kGi}, {"TiB", kTi},
};
const std::vector<UnitScale> kFrequency = {{"Hz", 1}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
const std::vector<UnitScale> kFlops = {
    {"FLOPS", 1},  {"KFLOPS", 1e3},  {"MFLOPS", 1e6},  {"GFLOPS", 1e9},  {"TFLOPS", 1e12},  {"PFLOPS", 1e15},
    {"FLOP/s", 1}, {"KFLOP/s", 1e3}, {"MFLOP/s", 1e6}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15},
};

}  // namespace

const char* quantity_name(Quantity q) {
  switch (q) {
    case Quantity::Bandwidth: return "bandwidth";
    case Quantity::Time: return "time";
    case Quantity::Size: return "size";
    case Quantity::FlopRate: return "compute rate";
    case Quantity::Frequency: return "frequency";
  }
  return "quantity";
}

const char* units_of(Quantity q) {
  switch (q) {
    case Quantity::Bandwidth:
      return "bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s";
    case Quantity::Time: return "ps, ns, us, ms, s, min, h";
    case Quantity::Size: return "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
    case Quantity::FlopRate: return "FLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS";
    case Quantity::Frequency: return "Hz, kHz, MHz, GHz";
  }
  return "";
}

double parse_bandwidth_bps(const std::string& text) { return parse_with(text, Quantity::Bandwidth, kBandwidth); }

std::int64_t parse_time_ps(const std::string& text) {
  double ps = parse_with(text, Quantity::Time, kTime);
  if (ps > 9.0e18) throw UnitError("time " + quote_clipped(text) + " is too long (the limit is about 100 days)");
  return static_cast<std::int64_t>(std::llround(ps));
}

std::uint64_t parse_size_bytes(const std::string& text) {
  double b = parse_with(text, Quantity::Size, kSize);
  if (b > 1.8e19) throw UnitError("size " + quote_clipped(text) + " is too large");
  double r = std::round(b);
  // Allow only the rounding error of the decimal conversion (a few ulps), so that "1.1KB" is
  // 1100 B but "1000000.5B" is refused rather than rounded.
  if (std::fabs(b - r) > std::max(1e-9, 8 * std::numeric_limits<double>::epsilon() * b))
    throw UnitError("size " + quote_clipped(text) + " is not a whole number of bytes");
  return static_cast<std::uint64_t>(r);
}

double parse_flop_rate(const std::string& text) { return parse_with(text, Quantity::FlopRate, kFlops); }

double parse_frequency_hz(const std::string& text) { return parse_with(text, Quantity::Frequency, kFrequency); }

std::string format_time_s(double s) {
  char buf[64];
  double a = std::fabs(s);
  if (a == 0) std::snprintf(buf, sizeof buf, "0 s");
  else if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.3f ns", s * 1e9);
  else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  else if (a < 1) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

std::string format_count(double v) {
  char buf[32];
  const char* suffix[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (v >= 1000 && i < 5) v /= 1000, ++i;
  std::snprintf(buf, sizeof buf, i ? "%.2f%s" : "%.0f%s", v, suffix[i]);
  return buf;
}

std::string format_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (std::fabs(b) >= 1024 && i < 4) {
    b /= 1024;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f %s" : "%.2f %s", b, units[i]);
  return buf;
}

std::string format_bandwidth_bps(double bps) {
  char buf[64];
  if (bps >= 1e12) std::snprintf(buf, sizeof buf, "%.2f Tbps", bps / 1e12);
  else if (bps >= 1e9) std::snprintf(buf, sizeof buf, "%.2f Gbps", bps / 1e9);
  else if (bps >= 1e6) std::snprintf(buf, sizeof buf, "%.2f Mbps", bps / 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f bps", bps);
  return buf;
}

}  // namespace trainvp
