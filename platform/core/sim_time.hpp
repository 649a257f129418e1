#pragma once
// Simulated time as the platform counts it: integer picoseconds (SystemC's time resolution is 1 ps)
// and, for reports, seconds.
#include <cmath>
#include <cstdint>

#include <systemc>

namespace trainvp {

// The kernel's current time in picoseconds.
inline std::int64_t now_ps() { return static_cast<std::int64_t>(sc_core::sc_time_stamp().value()); }

// Picoseconds to seconds.
constexpr double sec(std::int64_t ps) { return static_cast<double>(ps) * 1e-12; }

// A duration too long for the time base: 3e18 ps (about 35 days). Every time a scenario can
// write is at most 720 h (params), so a duration that saturates here lies beyond any time limit,
// and now + two of them still fits in 63 bits.
constexpr std::int64_t kForeverPs = 3'000'000'000'000'000'000;

// Picoseconds held in a double (a duration computed from a rate) to whole picoseconds, saturating
// at kForeverPs: an absurdly slow rate ends the run at its time limit instead of overflowing.
inline std::int64_t round_ps(double ps) {
  if (!(ps < static_cast<double>(kForeverPs))) return kForeverPs;  // NaN too
  return ps <= 0 ? 0 : static_cast<std::int64_t>(std::llround(ps));
}

// Picoseconds to an sc_time. Below 2^52 ps (about 75 minutes) sc_time(double, SC_PS) yields exactly
// `ps` at the 1 ps resolution, so the value is set directly: the double constructor looks up the
// time parameters and converts on every notification (1.5% of a large run). Longer times take the
// constructor, whose rounding there is kept as it was.
inline sc_core::sc_time ps_time(std::int64_t ps) {
  if (ps >= 0 && ps < (std::int64_t{1} << 52))
    return sc_core::sc_time::from_value(static_cast<sc_core::sc_time::value_type>(ps));
  return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

}  // namespace trainvp
