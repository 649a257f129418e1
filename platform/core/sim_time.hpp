#pragma once
// Simulated time as the platform counts it: integer picoseconds (SystemC's time resolution is 1 ps)
// and, for reports, seconds.
#include <cstdint>

#include <systemc>

namespace trainvp {

// The kernel's current time in picoseconds.
inline std::int64_t now_ps() { return static_cast<std::int64_t>(sc_core::sc_time_stamp().value()); }

// Picoseconds to seconds.
constexpr double sec(std::int64_t ps) { return static_cast<double>(ps) * 1e-12; }

// Picoseconds to an sc_time.
inline sc_core::sc_time ps_time(std::int64_t ps) { return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS); }

}  // namespace trainvp
