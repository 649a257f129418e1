#pragma once
// Closed-form and kernel-stepping helpers shared by the unit tests that wire modules alone.
#include <cmath>
#include <cstdint>

#include "platform/core/sim_time.hpp"

namespace trainvp::test {

// Serialization time of `bytes` at `bps` bits per second, in whole picoseconds.
inline std::int64_t ser_ps(std::uint64_t bytes, double bps) {
  return std::llround(static_cast<double>(bytes) * 8.0 / bps * 1e12);
}

// Runs the kernel to just before `t` (ps): what is due at `t` has not happened yet.
inline void run_to(std::int64_t t) { sc_core::sc_start(ps_time(t - now_ps())); }

}  // namespace trainvp::test
