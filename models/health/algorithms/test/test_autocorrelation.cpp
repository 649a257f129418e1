// Autocorrelation and the iteration period against hand-computed Pearson values and series built
// with a known period.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/health/algorithms/autocorrelation.hpp"

namespace trainvp {
namespace test_autocorrelation {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// One iteration's collective calls: a short burst of small ones and one long all-reduce.
std::vector<double> repeat(const std::vector<double>& pattern, int times) {
  std::vector<double> x;
  for (int i = 0; i < times; ++i) x.insert(x.end(), pattern.begin(), pattern.end());
  return x;
}

double uniform(std::mt19937& g) { return static_cast<double>(g()) / 4294967296.0; }

TEST(HealthAutocorrelation, HandComputedPearson) {
  // a = {1,2,3,1} (mean 7/4), b = {2,3,1,2} (mean 2): cov -1, variances 11/4 and 2.
  EXPECT_NEAR(autocorrelation({1, 2, 3, 1, 2}, 1), -1 / std::sqrt(5.5), 1e-15);
  EXPECT_NEAR(autocorrelation({1, -1, 1, -1, 1, -1}, 1), -1, 1e-15);
  EXPECT_NEAR(autocorrelation({0, 1, 2, 3, 4, 5, 6}, 3), 1, 1e-15);  // two ramps: linear
}

TEST(HealthAutocorrelation, ExactRepeatIsExactlyOne) {
  const auto x = repeat({0.1, 0.3, 0.2, 1.7}, 25);
  EXPECT_EQ(autocorrelation(x, 4), 1.0);
  EXPECT_EQ(autocorrelation(x, 8), 1.0);
  EXPECT_LT(autocorrelation(x, 2), 0.95);
}

TEST(HealthAutocorrelation, ZeroVarianceParts) {
  EXPECT_EQ(autocorrelation(std::vector<double>(10, 0.7), 3), 1.0);  // equal constant parts
  EXPECT_EQ(autocorrelation({1, 1, 1, 2, 2, 2}, 3), 0.0);            // constant, unequal
  EXPECT_EQ(autocorrelation({1, 1, 1, 1, 5, 6}, 2), 0.0);            // one part constant
}

TEST(HealthAutocorrelation, LagOutsideTheSeries) {
  EXPECT_EQ(autocorrelation({1, 2, 3}, 3), 0.0);
  EXPECT_EQ(autocorrelation({}, 1), 0.0);
  EXPECT_THROW(autocorrelation({1, 2, 3}, 0), std::invalid_argument);
}

TEST(HealthPeriod, FindsThePatternLength) {
  // A pulse every 7 calls: lags 1..6 correlate at about -1/6, lag 7 at exactly 1.
  EXPECT_EQ(first_period(repeat({1, 1, 1, 1, 1, 1, 3}, 40), 0.95, 100), 7);
  EXPECT_EQ(first_period(repeat({0.1, 0.3, 0.2, 1.7}, 25), 0.95, 100), 4);
}

TEST(HealthPeriod, NoisyPeriodStillFound) {
  std::mt19937 g(7);
  auto x = repeat({0.2, 0.2, 0.5, 0.2, 0.2, 2.0, 0.3, 0.3, 0.3}, 200);
  for (double& v : x) v *= 1 + 0.01 * (2 * uniform(g) - 1);
  EXPECT_EQ(first_period(x, 0.95, 500), 9);
}

TEST(HealthPeriod, BoundedByHalfTheSeriesAndMaxLag) {
  EXPECT_EQ(first_period(repeat({1, 2, 3, 4, 9}, 2), 0.95, 100), 5);  // n = 10, lag 5 = n/2
  auto eleven = repeat({1, 2, 3, 4, 5, 9}, 2);
  eleven.pop_back();
  EXPECT_EQ(autocorrelation(eleven, 6), 1.0);
  EXPECT_EQ(first_period(eleven, 0.95, 100), 0);  // n = 11: lag 6 > n/2
  EXPECT_EQ(first_period(repeat({1, 1, 1, 1, 1, 1, 3}, 40), 0.95, 6), 0);
  EXPECT_EQ(first_period({}, 0.95, 10), 0);
  EXPECT_EQ(first_period(std::vector<double>(8, 2.5), 0.95, 10), 1);  // constant: equal parts
}

// The brief's worst size: 20,000 calls, lags up to 5,000 (docs/performance.md times it).
TEST(HealthPeriod, LongSeries) {
  std::mt19937 g(13);
  std::vector<double> noise(20000), pattern(4000);
  for (double& v : noise) v = uniform(g);
  for (double& v : pattern) v = uniform(g);
  EXPECT_EQ(first_period(noise, 0.95, 5000), 0);  // white noise: |r| ~ 1/sqrt(n)
  EXPECT_EQ(first_period(repeat(pattern, 5), 0.95, 5000), 4000);
}

// The prefix-sum search answers what scanning autocorrelation() lag by lag answers.
TEST(HealthPeriod, AgreesWithLagByLagScan) {
  std::mt19937 g(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int period = 2 + static_cast<int>(g() % 30), n = 50 + static_cast<int>(g() % 400);
    std::vector<double> pattern(static_cast<std::size_t>(period));
    for (double& v : pattern) v = 1 + uniform(g);
    auto x = repeat(pattern, n / period + 1);
    const double noise = 0.2 * uniform(g);
    for (double& v : x) v += noise * uniform(g);
    for (double th : {0.5, 0.9, 0.95, 0.99}) {
      int expect = 0;
      for (int lag = 1; lag <= static_cast<int>(x.size() / 2) && lag <= 60 && !expect; ++lag)
        if (autocorrelation(x, lag) >= th) expect = lag;
      EXPECT_EQ(first_period(x, th, 60), expect) << trial << " " << th;
    }
  }
}

}  // namespace test_autocorrelation
}  // namespace trainvp
