// The text pieces of the report's charts: escaping, numbers that read the same on every machine,
// and axis scales.
#include <gtest/gtest.h>

#include "platform/report/html/svg.hpp"

namespace trainvp::html {
namespace test_svg {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(HtmlSvg, EscapesEveryCharacterThatEndsTextOrAnAttribute) {
  EXPECT_EQ(escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(escape("node0.gpu3->node0.nvswitch"), "node0.gpu3-&gt;node0.nvswitch");
}

TEST(HtmlSvg, NumbersHaveFixedDigitsAndNoNegativeZero) {
  EXPECT_EQ(num(16.745948471431014), "16.75");
  EXPECT_EQ(num(0), "0");
  EXPECT_EQ(num(1234567.0, 6), "1.23457e+06");
  EXPECT_EQ(exact(0.1), "0.10000000000000001");
  EXPECT_EQ(std::stod(exact(16.745948471431014)), 16.745948471431014);  // round-trips
  EXPECT_EQ(coord(-0.04), "0.0");
  EXPECT_EQ(coord(12.345), "12.3");
}

TEST(HtmlSvg, SecondsAndBytesPickAReadableUnit) {
  EXPECT_EQ(seconds(1.5), "1.5 s");
  EXPECT_EQ(seconds(0.0125), "12.5 ms");
  EXPECT_EQ(seconds(4.2e-6), "4.2 us");
  EXPECT_EQ(seconds(1338.6), "22 min 19 s");
  EXPECT_EQ(bytes(3 * 1024.0 * 1024 * 1024), "3 GiB");
  EXPECT_EQ(bytes(512), "512 B");
}

TEST(HtmlSvg, ALinearScaleMapsEndsToPixelsAndTicksAreRound) {
  const Scale s(0, 10, 100, 200);
  EXPECT_DOUBLE_EQ(s(0), 100);
  EXPECT_DOUBLE_EQ(s(10), 200);
  EXPECT_DOUBLE_EQ(s(5), 150);
  EXPECT_EQ(s.ticks(5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const Scale down(0, 1, 300, 0);  // y grows upwards
  EXPECT_DOUBLE_EQ(down(1), 0);
}

TEST(HtmlSvg, ALogScaleTicksAtPowersOfTen) {
  const Scale s(1, 1000, 0, 300, true);
  EXPECT_DOUBLE_EQ(s(10), 100);
  EXPECT_EQ(s.ticks(), (std::vector<double>{1, 10, 100, 1000}));
  // Within less than two decades: 1, 2 and 5 times the powers of ten.
  EXPECT_EQ(Scale(1, 8, 0, 300, true).ticks(), (std::vector<double>{1, 2, 5}));
}

TEST(HtmlSvg, AxisRangeStartsAtZeroAndWidensAFlatRange) {
  EXPECT_EQ(axis_range({2, 4}, true).first, 0);
  EXPECT_GT(axis_range({2, 4}, true).second, 4);
  auto [lo, hi] = axis_range({5, 5}, false);
  EXPECT_LT(lo, 5);
  EXPECT_GT(hi, 5);
  EXPECT_EQ(axis_range({}, true), (std::pair<double, double>{0, 1}));
}

}  // namespace test_svg
}  // namespace trainvp::html
