// Quantities with units (platform/core/units.hpp): every accepted unit against its closed-form value,
// spacing and exponents, and bad inputs that must fail with a message saying what was expected.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "platform/core/units.hpp"

namespace trainvp {
namespace test_units {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;
constexpr double kTi = kGi * 1024.0;

struct DoubleCase {
  const char* text;
  double expected;
};

// ---- bandwidth (bits per second) ----

TEST(UnitsBandwidth, EveryBitUnitHasItsDecimalScale) {
  const std::vector<DoubleCase> cases = {
      {"1bps", 1},   {"1Kbps", 1e3},   {"1kbps", 1e3},   {"1Mbps", 1e6},   {"1Gbps", 1e9},   {"1Tbps", 1e12},
      {"1b/s", 1},   {"1Kb/s", 1e3},   {"1kb/s", 1e3},   {"1Mb/s", 1e6},   {"1Gb/s", 1e9},   {"1Tb/s", 1e12},
      {"1bit/s", 1}, {"1Kbit/s", 1e3}, {"1kbit/s", 1e3}, {"1Mbit/s", 1e6}, {"1Gbit/s", 1e9}, {"1Tbit/s", 1e12},
  };
  for (const auto& c : cases) EXPECT_DOUBLE_EQ(parse_bandwidth_bps(c.text), c.expected) << c.text;
}

TEST(UnitsBandwidth, EveryByteUnitIsEightBitsPerByte) {
  const std::vector<DoubleCase> cases = {
      {"1B/s", 8},     {"1KB/s", 8e3},      {"1kB/s", 8e3},      {"1MB/s", 8e6},      {"1GB/s", 8e9},
      {"1TB/s", 8e12}, {"1KiB/s", 8 * kKi}, {"1MiB/s", 8 * kMi}, {"1GiB/s", 8 * kGi}, {"1TiB/s", 8 * kTi},
  };
  for (const auto& c : cases) EXPECT_DOUBLE_EQ(parse_bandwidth_bps(c.text), c.expected) << c.text;
}

TEST(UnitsBandwidth, DataSheetFiguresHaveClosedFormValues) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("400Gbps"), 4e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("50GB/s"), 4e11);  // the same link, written in bytes
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("1GiB/s"), 8.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("3.35TB/s"), 3.35 * 8e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("2.039TB/s"), 1.6312e13);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("450GB/s"), 3.6e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("0bps"), 0.0);  // zero parses; callers bound it
}

TEST(UnitsBandwidth, SpacesAroundNumberAndUnitAreIgnored) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("  10 Gbps "), 1e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("10Gbps"), 1e10);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("10\tGbps\n"), 1e10);
}

TEST(UnitsBandwidth, ExponentsSignsAndBareFractionsParse) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("1e3Mbps"), 1e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("1E3Mbps"), 1e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("2.5e+2 Gbps"), 2.5e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("4000e-1Gbps"), 4e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("+5Gbps"), 5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps(".5Gbps"), 5e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps("5.Gbps"), 5e9);
}

// ---- time (picoseconds, exact integers) ----

TEST(UnitsTime, EveryUnitHasItsExactPicosecondScale) {
  EXPECT_EQ(parse_time_ps("1ps"), 1);
  EXPECT_EQ(parse_time_ps("1ns"), 1000);
  EXPECT_EQ(parse_time_ps("1us"), 1000000);
  EXPECT_EQ(parse_time_ps("1ms"), 1000000000);
  EXPECT_EQ(parse_time_ps("1s"), 1000000000000);
  EXPECT_EQ(parse_time_ps("1min"), 60000000000000);
  EXPECT_EQ(parse_time_ps("1h"), 3600000000000000);
}

TEST(UnitsTime, DecimalsAreExactToThePicosecond) {
  EXPECT_EQ(parse_time_ps("1.5us"), 1500000);
  EXPECT_EQ(parse_time_ps("2min"), 120000000000000);  // 1.2e14
  EXPECT_EQ(parse_time_ps("0.1ns"), 100);
  EXPECT_EQ(parse_time_ps("0.001ns"), 1);
  EXPECT_EQ(parse_time_ps("600ns"), 600000);
  EXPECT_EQ(parse_time_ps("4us"), 4000000);
  EXPECT_EQ(parse_time_ps("2.000000000001s"), 2000000000001);
  EXPECT_EQ(parse_time_ps("24h"), 86400000000000000);
  EXPECT_EQ(parse_time_ps("2.5e-3 s"), 2500000000);
  EXPECT_EQ(parse_time_ps(" 7 ms "), 7000000000);
  EXPECT_EQ(parse_time_ps("0s"), 0);
}

// ---- size (bytes, whole numbers) ----

TEST(UnitsSize, EveryDecimalAndBinaryUnitHasItsScale) {
  EXPECT_EQ(parse_size_bytes("1B"), 1u);
  EXPECT_EQ(parse_size_bytes("1KB"), 1000u);
  EXPECT_EQ(parse_size_bytes("1kB"), 1000u);
  EXPECT_EQ(parse_size_bytes("1MB"), 1000000u);
  EXPECT_EQ(parse_size_bytes("1GB"), 1000000000u);
  EXPECT_EQ(parse_size_bytes("1TB"), 1000000000000u);
  EXPECT_EQ(parse_size_bytes("1KiB"), 1024u);
  EXPECT_EQ(parse_size_bytes("1MiB"), 1048576u);
  EXPECT_EQ(parse_size_bytes("1GiB"), 1073741824u);
  EXPECT_EQ(parse_size_bytes("1TiB"), 1099511627776u);
}

TEST(UnitsSize, FractionsThatGiveWholeBytesAreExact) {
  EXPECT_EQ(parse_size_bytes("25MiB"), 26214400u);
  EXPECT_EQ(parse_size_bytes("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size_bytes("80GiB"), 85899345920u);
  EXPECT_EQ(parse_size_bytes("141GB"), 141000000000u);
  EXPECT_EQ(parse_size_bytes("1.1KB"), 1100u);
  EXPECT_EQ(parse_size_bytes("0.001KB"), 1u);
  EXPECT_EQ(parse_size_bytes("2e3B"), 2000u);
  EXPECT_EQ(parse_size_bytes(" 3 MB "), 3000000u);
  EXPECT_EQ(parse_size_bytes("0B"), 0u);
}

// ---- compute rate (FLOP/s) ----

TEST(UnitsFlopRate, EveryUnitAndItsSlashSpellingHaveTheirScale) {
  const std::vector<DoubleCase> cases = {
      {"1FLOPS", 1},  {"1KFLOPS", 1e3},  {"1MFLOPS", 1e6},  {"1GFLOPS", 1e9},  {"1TFLOPS", 1e12},  {"1PFLOPS", 1e15},
      {"1FLOP/s", 1}, {"1KFLOP/s", 1e3}, {"1MFLOP/s", 1e6}, {"1GFLOP/s", 1e9}, {"1TFLOP/s", 1e12}, {"1PFLOP/s", 1e15},
  };
  for (const auto& c : cases) EXPECT_DOUBLE_EQ(parse_flop_rate(c.text), c.expected) << c.text;
}

TEST(UnitsFlopRate, DataSheetFiguresHaveClosedFormValues) {
  EXPECT_DOUBLE_EQ(parse_flop_rate("989TFLOPS"), 9.89e14);
  EXPECT_DOUBLE_EQ(parse_flop_rate("19.5TFLOPS"), 1.95e13);
  EXPECT_DOUBLE_EQ(parse_flop_rate("494.5 TFLOP/s"), 4.945e14);
  EXPECT_DOUBLE_EQ(parse_flop_rate("1.979PFLOPS"), 1.979e15);
  EXPECT_DOUBLE_EQ(parse_flop_rate("0FLOPS"), 0.0);
}

// ---- the documented unit lists are exactly what parses ----

std::vector<std::string> split_units(const char* list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(' ');
    out.push_back(item.substr(b));
  }
  return out;
}

TEST(UnitsNames, EveryUnitThatUnitsOfListsParses) {
  for (const auto& u : split_units(units_of(Quantity::Bandwidth))) EXPECT_NO_THROW(parse_bandwidth_bps("2" + u)) << u;
  for (const auto& u : split_units(units_of(Quantity::Time))) EXPECT_NO_THROW(parse_time_ps("2" + u)) << u;
  for (const auto& u : split_units(units_of(Quantity::Size))) EXPECT_NO_THROW(parse_size_bytes("2" + u)) << u;
  for (const auto& u : split_units(units_of(Quantity::FlopRate))) EXPECT_NO_THROW(parse_flop_rate("2" + u)) << u;
  EXPECT_EQ(split_units(units_of(Quantity::Time)).size(), 7u);
  EXPECT_EQ(split_units(units_of(Quantity::Size)).size(), 9u);
}

TEST(UnitsNames, QuantitiesHaveReadableNames) {
  EXPECT_STREQ(quantity_name(Quantity::Bandwidth), "bandwidth");
  EXPECT_STREQ(quantity_name(Quantity::Time), "time");
  EXPECT_STREQ(quantity_name(Quantity::Size), "size");
  EXPECT_STREQ(quantity_name(Quantity::FlopRate), "compute rate");
}

// ---- bad inputs: UnitError with a message that says what was expected ----

// The message of the UnitError that `parse` throws, or a failure when it throws nothing.
std::string unit_error(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const UnitError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UnitError";
  return "";
}

std::string bandwidth_error(const std::string& s) {
  return unit_error([&] { parse_bandwidth_bps(s); });
}
std::string time_error(const std::string& s) {
  return unit_error([&] { parse_time_ps(s); });
}
std::string size_error(const std::string& s) {
  return unit_error([&] { parse_size_bytes(s); });
}
std::string flops_error(const std::string& s) {
  return unit_error([&] { parse_flop_rate(s); });
}

TEST(UnitsErrors, NumberWithoutUnitSaysUnitIsMissingAndListsUnits) {
  std::string m = bandwidth_error("400");
  EXPECT_NE(m.find("missing unit in \"400\""), std::string::npos) << m;
  EXPECT_NE(m.find("bandwidth"), std::string::npos) << m;
  EXPECT_NE(m.find(units_of(Quantity::Bandwidth)), std::string::npos) << m;
  EXPECT_NE(time_error("10").find("missing unit"), std::string::npos);
  EXPECT_NE(size_error("  10  ").find("missing unit"), std::string::npos);
  EXPECT_NE(flops_error("989e12").find("missing unit"), std::string::npos);
}

TEST(UnitsErrors, UnknownUnitNamesTheUnitAndListsTheAcceptedOnes) {
  std::string m = bandwidth_error("400Gbs");
  EXPECT_NE(m.find("unknown bandwidth unit \"Gbs\""), std::string::npos) << m;
  EXPECT_NE(m.find("expected one of " + std::string(units_of(Quantity::Bandwidth))), std::string::npos) << m;

  m = time_error("5 parsecs");
  EXPECT_NE(m.find("unknown time unit \"parsecs\""), std::string::npos) << m;
  EXPECT_NE(m.find("expected one of ps, ns, us, ms, s, min, h"), std::string::npos) << m;

  m = flops_error("1TOPS");
  EXPECT_NE(m.find("unknown compute rate unit \"TOPS\""), std::string::npos) << m;
}

TEST(UnitsErrors, UnitsAreCaseSensitiveBitsAreNotBytes) {
  EXPECT_NE(bandwidth_error("400gbps").find("unknown bandwidth unit \"gbps\""), std::string::npos);
  EXPECT_NE(size_error("1b").find("unknown size unit \"b\""), std::string::npos);
  EXPECT_NE(size_error("1mb").find("unknown size unit"), std::string::npos);
  EXPECT_NE(time_error("1S").find("unknown time unit"), std::string::npos);
  EXPECT_NE(time_error("1m").find("unknown time unit \"m\""), std::string::npos);
  EXPECT_NE(flops_error("1tflops").find("unknown compute rate unit"), std::string::npos);
}

TEST(UnitsErrors, UnitOfAnotherQuantityIsRejectedWithTheRightList) {
  std::string m = size_error("1ms");
  EXPECT_NE(m.find("unknown size unit \"ms\""), std::string::npos) << m;
  EXPECT_NE(m.find("expected one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"), std::string::npos) << m;
  EXPECT_NE(time_error("1GB").find("unknown time unit \"GB\""), std::string::npos);
  EXPECT_NE(bandwidth_error("1GB").find("unknown bandwidth unit \"GB\""), std::string::npos);  // GB/s is a rate
  EXPECT_NE(flops_error("1Gbps").find("unknown compute rate unit"), std::string::npos);
}

TEST(UnitsErrors, NegativeValuesAreRejectedForEveryQuantity) {
  std::string m = bandwidth_error("-1Gbps");
  EXPECT_NE(m.find("negative bandwidth \"-1Gbps\""), std::string::npos) << m;
  EXPECT_NE(m.find("expected a value >= 0"), std::string::npos) << m;
  EXPECT_NE(time_error("-1us").find("negative time"), std::string::npos);
  EXPECT_NE(size_error("-1KiB").find("negative size"), std::string::npos);
  EXPECT_NE(flops_error("-1TFLOPS").find("negative compute rate"), std::string::npos);
}

TEST(UnitsErrors, EmptyStringSaysANumberAndUnitWereExpected) {
  std::string m = bandwidth_error("");
  EXPECT_NE(m.find("expected a bandwidth such as a number followed by a unit"), std::string::npos) << m;
  EXPECT_NE(m.find("found \"\""), std::string::npos) << m;
  EXPECT_NE(time_error("   ").find("expected a time"), std::string::npos);
}

TEST(UnitsErrors, GarbageSaysANumberAndUnitWereExpected) {
  for (const char* bad : {"fast", "Gbps", "inf Gbps", "nan Gbps", "-Gbps", "--1Gbps", ".Gbps", "e3Gbps"}) {
    std::string m = bandwidth_error(bad);
    EXPECT_NE(m.find("expected a bandwidth such as a number followed by a unit (bps,"), std::string::npos)
        << bad << ": " << m;
    EXPECT_NE(m.find(std::string("found \"") + bad + "\""), std::string::npos) << bad << ": " << m;
  }
}

TEST(UnitsErrors, TrailingJunkAfterTheNumberIsAnUnknownUnit) {
  EXPECT_NE(bandwidth_error("1 0Gbps").find("unknown bandwidth unit \"0Gbps\""), std::string::npos);
  EXPECT_NE(bandwidth_error("1.2.3Gbps").find("unknown bandwidth unit \".3Gbps\""), std::string::npos);
  EXPECT_NE(bandwidth_error("0x10Gbps").find("unknown bandwidth unit \"x10Gbps\""), std::string::npos);
  EXPECT_NE(bandwidth_error("10 Gbps fast").find("unknown bandwidth unit \"Gbps fast\""), std::string::npos);
}

TEST(UnitsErrors, FractionalBytesAreRejected) {
  for (const char* bad : {"0.5B", "1.5B", "0.0001KB", "1000000.5B", "1.0000005MB", "1.0000000000005TB"}) {
    std::string m = size_error(bad);
    EXPECT_NE(m.find("is not a whole number of bytes"), std::string::npos) << bad << ": " << m;
  }
}

TEST(UnitsErrors, ValuesBeyondTheRepresentableRangeAreRejected) {
  EXPECT_NE(bandwidth_error("1e400Gbps").find("out-of-range bandwidth"), std::string::npos);
  EXPECT_NE(time_error("3000h").find("too long"), std::string::npos);
  EXPECT_NE(size_error("20000000TB").find("too large"), std::string::npos);
}

// ---- human formatting ----

TEST(UnitsFormat, TimePicksTheLargestUnitBelowTheValue) {
  EXPECT_EQ(format_time_s(0), "0 s");
  EXPECT_EQ(format_time_s(1.5e-9), "1.500 ns");
  EXPECT_EQ(format_time_s(2.5e-6), "2.500 us");
  EXPECT_EQ(format_time_s(0.0125), "12.500 ms");
  EXPECT_EQ(format_time_s(3), "3.000 s");
  EXPECT_EQ(format_time_s(120), "120.000 s");
  EXPECT_EQ(format_time_s(-0.002), "-2.000 ms");
}

TEST(UnitsFormat, BytesUseBinaryUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(25 * kMi), "25.00 MiB");
  EXPECT_EQ(format_bytes(80 * kGi), "80.00 GiB");
  EXPECT_EQ(format_bytes(3 * kTi), "3.00 TiB");
  EXPECT_EQ(format_bytes(2048 * kTi), "2048.00 TiB");  // TiB is the largest unit
}

TEST(UnitsFormat, BandwidthUsesDecimalBitUnits) {
  EXPECT_EQ(format_bandwidth_bps(0), "0 bps");
  EXPECT_EQ(format_bandwidth_bps(999), "999 bps");
  EXPECT_EQ(format_bandwidth_bps(2.5e6), "2.50 Mbps");
  EXPECT_EQ(format_bandwidth_bps(4e11), "400.00 Gbps");
  EXPECT_EQ(format_bandwidth_bps(1.6e12), "1.60 Tbps");
}

TEST(UnitsFormat, FormattedBandwidthParsesBack) {
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps(format_bandwidth_bps(4e11)), 4e11);
  EXPECT_DOUBLE_EQ(parse_bandwidth_bps(format_bandwidth_bps(2.5e6)), 2.5e6);
}

}  // namespace test_units
}  // namespace trainvp
