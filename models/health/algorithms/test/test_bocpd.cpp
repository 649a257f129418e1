// Change-point detection on iteration-time series whose change points are known by construction.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/health/algorithms/bocpd.hpp"

namespace trainvp {
namespace test_bocpd {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr double kH = 1.0 / 250;  // the default hazard

double uniform(std::mt19937& g) { return static_cast<double>(g()) / 4294967296.0; }

// Largest reset probability over `n` observations of `f(i)`, counted once `window` are in.
template <class F>
double max_reset(Bocpd& b, int n, F f) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const double p = b.update(f(i));
    if (b.observations() >= 3) worst = std::max(worst, p);
  }
  return worst;
}

TEST(HealthBocpd, ResetIsOneUntilWindowObservations) {
  Bocpd b({});
  EXPECT_EQ(b.reset_probability(), 1);
  EXPECT_EQ(b.update(1.0), 1);
  EXPECT_EQ(b.update(1.0), 1);  // two observations: every run is shorter than 3
  EXPECT_LT(b.update(1.0), 0.05);
  EXPECT_EQ(b.observations(), 3);
}

TEST(HealthBocpd, SteadySeriesHoldsOnlyTheHazard) {
  // The recursion leaves exactly the hazard on run length 0; a steady series adds little more.
  Bocpd b({});
  const double worst = max_reset(b, 5000, [](int) { return 0.8; });
  EXPECT_GE(worst, kH * (1 - 1e-9));
  EXPECT_LT(worst, 2 * kH);
  EXPECT_EQ(b.most_likely_run(), 1000);  // the capped run: all 5000 in one run
}

TEST(HealthBocpd, OnePercentWobbleIsNoChange) {
  std::mt19937 g(3);
  Bocpd random({}), alternating({}), square({}), step({});
  EXPECT_LT(max_reset(random, 20000, [&](int) { return 1 + 0.01 * (2 * uniform(g) - 1); }), 2 * kH);
  EXPECT_LT(max_reset(alternating, 20000, [](int i) { return i % 2 ? 1.01 : 0.99; }), 2 * kH);
  EXPECT_LT(max_reset(square, 20000, [](int i) { return (i / 7) % 2 ? 1.01 : 1.0; }), 2 * kH);
  EXPECT_LT(max_reset(step, 20000, [](int i) { return i < 10000 ? 1.0 : 1.01; }), 2 * kH);
}

TEST(HealthBocpd, StepOfTenPercentOrMoreFlaggedAtOnce) {
  for (double factor : {1.1, 0.9, 1.2, 2.0, 10.0}) {
    Bocpd b({});
    EXPECT_LT(max_reset(b, 300, [](int) { return 1.5; }), 2 * kH) << factor;
    EXPECT_GT(b.update(1.5 * factor), 0.9) << factor;  // the first slow iteration
    EXPECT_GT(b.update(1.5 * factor), 0.9) << factor;
    EXPECT_EQ(b.most_likely_run(), 2) << factor;  // the new level's two observations
    b.update(1.5 * factor);
    EXPECT_LT(b.update(1.5 * factor), 0.05) << factor;  // the change is now older than the window
    EXPECT_EQ(b.most_likely_run(), 4) << factor;
  }
}

TEST(HealthBocpd, StepFlaggedOnAWobblingSeries) {
  std::mt19937 g(5);
  Bocpd b({});
  const auto wobble = [&] { return 1 + 0.01 * (2 * uniform(g) - 1); };
  EXPECT_LT(max_reset(b, 2000, [&](int) { return wobble(); }), 2 * kH);
  double first3 = 0;
  for (int i = 0; i < 3; ++i) first3 = std::max(first3, b.update(1.1 * wobble()));
  EXPECT_GT(first3, 0.9);
}

TEST(HealthBocpd, CappedRunKeepsTheVarianceFloor) {
  // 50 times longer than the cap: the capped run forgets what lies beyond max_run, so a 1%
  // wobble still fits and a 10% step still stands out.
  Bocpd b({250, 0.02, 3, 100});
  EXPECT_LT(max_reset(b, 5000, [](int) { return 1.0; }), 2 * kH);
  EXPECT_EQ(b.most_likely_run(), 100);
  EXPECT_LT(max_reset(b, 100, [](int i) { return i % 2 ? 1.01 : 0.99; }), 2 * kH);
  EXPECT_GT(b.update(1.1), 0.9);
}

TEST(HealthBocpd, NoUnderflowOverAHundredThousandObservations) {
  // Steps of 20% every 500 observations on a 1% wobble: every one is flagged, and nothing turns
  // to NaN or leaves [0, 1]. (max_run 200 keeps the test short; the arithmetic is the same.)
  std::mt19937 g(1);
  Bocpd b({250, 0.02, 3, 200});
  int flagged = 0;
  bool armed = false;
  for (int i = 0; i < 100000; ++i) {
    const double level = (i / 500) % 2 ? 1.2 : 1.0;
    const double p = b.update(level * (1 + 0.01 * (2 * uniform(g) - 1)));
    ASSERT_TRUE(p >= 0 && p <= 1) << i;
    if (i % 500 == 0) armed = i > 0;
    if (armed && p > 0.9) ++flagged, armed = false;
  }
  EXPECT_EQ(flagged, 199);
}

TEST(HealthBocpd, ResetForgetsTheOldLevel) {
  Bocpd b({});
  max_reset(b, 100, [](int) { return 1.0; });
  b.reset();
  EXPECT_EQ(b.observations(), 0);
  EXPECT_EQ(b.update(1.3), 1);
  // The new first observation sets the prior: 1.3 is the steady level now.
  EXPECT_LT(max_reset(b, 100, [](int) { return 1.3; }), 2 * kH);
}

TEST(HealthBocpd, RejectsBadParametersAndObservations) {
  EXPECT_THROW(Bocpd({1, 0.02, 3, 1000}), std::invalid_argument);
  EXPECT_THROW(Bocpd({250, 0, 3, 1000}), std::invalid_argument);
  EXPECT_THROW(Bocpd({250, 0.02, 0, 1000}), std::invalid_argument);
  EXPECT_THROW(Bocpd({250, 0.02, 3, 2}), std::invalid_argument);
  Bocpd b({});
  EXPECT_THROW(b.update(0), std::invalid_argument);
  EXPECT_THROW(b.update(-1), std::invalid_argument);
  EXPECT_THROW(b.update(NAN), std::invalid_argument);
}

}  // namespace test_bocpd
}  // namespace trainvp
