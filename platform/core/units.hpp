#pragma once
// Quantities with units, as scenario files write them: "400Gbps", "1.5us", "25MiB", "989TFLOPS".
// Parsing is strict: a number, optional spaces, then a known unit; anything else is an error whose
// message says which units are accepted.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace trainvp {

enum class Quantity { Bandwidth, Time, Size, FlopRate, Frequency };

struct UnitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bandwidth in bits per second: bps Kbps Mbps Gbps Tbps (also Kb/s ... Tb/s), and bytes per
// second B/s KB/s MB/s GB/s TB/s (decimal) and KiB/s MiB/s GiB/s TiB/s (binary).
double parse_bandwidth_bps(const std::string& text);
// Time in picoseconds (exact for every decimal the format can express down to 1 ps):
// ps ns us ms s min h.
std::int64_t parse_time_ps(const std::string& text);
// Size in bytes: B KB MB GB TB (decimal), KiB MiB GiB TiB (binary). Fractions must give whole bytes.
std::uint64_t parse_size_bytes(const std::string& text);
// Compute rate in FLOP/s: FLOPS KFLOPS MFLOPS GFLOPS TFLOPS PFLOPS (also TFLOP/s ...).
double parse_flop_rate(const std::string& text);

// Frequency in Hz: Hz kHz KHz MHz GHz.
double parse_frequency_hz(const std::string& text);

// Canonical names of the accepted units, for messages and `trainvp describe`.
const char* units_of(Quantity q);
const char* quantity_name(Quantity q);

// Human formatting for summaries (not used in results.json, which keeps SI numbers).
std::string format_time_s(double seconds);
std::string format_bytes(double bytes);
// A count with an SI suffix: 1.23G, 980M, 12.
std::string format_count(double v);
std::string format_bandwidth_bps(double bps);

}  // namespace trainvp
