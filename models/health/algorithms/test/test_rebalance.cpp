// S2's micro-batch split against brute force (small cases) and the closed-form optimum (large).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>

#include "models/health/algorithms/rebalance.hpp"

namespace trainvp {
namespace test_rebalance {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

double slowest(const std::vector<double>& c, const std::vector<int>& m) {
  double t = 0;
  for (std::size_t j = 0; j < c.size(); ++j) t = std::max(t, c[j] * m[j]);
  return t;
}

// Every allocation with each group >= 1 summing to total: the smallest slowest-group time.
double brute_force_best(const std::vector<double>& c, int total) {
  double best = INFINITY;
  std::vector<int> m(c.size(), 1);
  std::function<void(std::size_t, int)> place = [&](std::size_t j, int left) {
    if (j + 1 == c.size()) {
      m[j] = left;
      best = std::min(best, slowest(c, m));
      return;
    }
    for (int k = 1; k <= left - static_cast<int>(c.size() - j - 1); ++k) m[j] = k, place(j + 1, left - k);
  };
  place(0, total);
  return best;
}

// The optimum in closed form: time T is feasible iff sum_j floor(T / c_j) >= total and every
// group fits one (T >= max c), so T* is the total-th smallest of {c_j * m : m >= 1}, or max c.
double closed_form_best(const std::vector<double>& c, int total) {
  std::vector<double> slots;
  for (double cj : c)
    for (int m = 1; m <= total; ++m) slots.push_back(cj * m);
  std::nth_element(slots.begin(), slots.begin() + (total - 1), slots.end());
  return std::max(slots[static_cast<std::size_t>(total - 1)], *std::max_element(c.begin(), c.end()));
}

TEST(HealthRebalance, EqualSpeedsSplitEvenlyExtraToLowerIndices) {
  EXPECT_EQ(rebalance_micro_batches({1.5, 1.5, 1.5, 1.5}, 16), (std::vector<int>{4, 4, 4, 4}));
  EXPECT_EQ(rebalance_micro_batches({1.5, 1.5, 1.5, 1.5}, 10), (std::vector<int>{3, 3, 2, 2}));
  EXPECT_EQ(rebalance_micro_batches({2, 2, 2}, 3), (std::vector<int>{1, 1, 1}));
}

TEST(HealthRebalance, SlowGroupGetsFewer) {
  // One group 25% slower, 32 micro-batches: finishing by 8.75 fits 7 + 8 + 8 + 8 = 31, so the
  // optimum is 9; the micro-batches that finish by 8.75 come first (7 to the slow group) and the
  // 32nd ends at 9 on any healthy group: the lowest index takes it.
  const auto m = rebalance_micro_batches({1.25, 1, 1, 1}, 32);
  EXPECT_EQ(m, (std::vector<int>{7, 9, 8, 8}));
  EXPECT_EQ(slowest({1.25, 1, 1, 1}, m), 9);
  EXPECT_EQ(brute_force_best({1.25, 1, 1, 1}, 32), 9);
}

TEST(HealthRebalance, MatchesBruteForceOnSmallCases) {
  std::mt19937 g(5);
  const double speeds[] = {0.5, 1, 1.25, 1.5, 2, 3, 4};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> c(2 + g() % 3);
    for (double& v : c) v = speeds[g() % 7];
    const int total = static_cast<int>(c.size()) + static_cast<int>(g() % 9);
    const auto m = rebalance_micro_batches(c, total);
    ASSERT_EQ(std::accumulate(m.begin(), m.end(), 0), total);
    EXPECT_GE(*std::min_element(m.begin(), m.end()), 1);
    EXPECT_EQ(slowest(c, m), brute_force_best(c, total)) << trial;
  }
}

TEST(HealthRebalance, LargeCasesReachTheClosedFormOptimum) {
  std::mt19937 g(9);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> c(2 + g() % 31);
    for (double& v : c) v = 1 + 2 * static_cast<double>(g()) / 4294967296.0;
    const int total = 64 * static_cast<int>(c.size()) + static_cast<int>(g() % 1000);
    const auto m = rebalance_micro_batches(c, total);
    ASSERT_EQ(std::accumulate(m.begin(), m.end(), 0), total);
    EXPECT_EQ(slowest(c, m), closed_form_best(c, total)) << trial;
    // The continuous optimum m_j = total / (c_j sum 1/c): no group below it by a whole
    // micro-batch, and the slowest time within one micro-batch of the slowest group's time
    // above its time T_c = total / sum 1/c.
    double inv = 0;
    for (double v : c) inv += 1 / v;
    const double tc = total / inv, cmax = *std::max_element(c.begin(), c.end());
    for (std::size_t j = 0; j < c.size(); ++j) EXPECT_GT(m[j], tc / c[j] - 1) << trial << " " << j;
    EXPECT_GE(slowest(c, m), tc * (1 - 1e-12));
    EXPECT_LT(slowest(c, m), tc + cmax);
  }
}

TEST(HealthRebalance, FastGroupMayExceedItsContinuousShareByMoreThanOne) {
  // Shares 1.375 x 4 and 5.5 (T_c = 5.5); the only allocation with slowest time 7 is this one.
  const std::vector<double> c = {4, 4, 1, 4, 4};
  EXPECT_EQ(rebalance_micro_batches(c, 11), (std::vector<int>{1, 1, 7, 1, 1}));
  EXPECT_EQ(brute_force_best(c, 11), 7);
}

TEST(HealthRebalance, RejectsBadInput) {
  EXPECT_THROW(rebalance_micro_batches({1, 1, 1}, 2), std::invalid_argument);
  EXPECT_THROW(rebalance_micro_batches({}, 4), std::invalid_argument);
  EXPECT_THROW(rebalance_micro_batches({1, 0}, 4), std::invalid_argument);
  EXPECT_THROW(rebalance_micro_batches({1, -2}, 4), std::invalid_argument);
}

}  // namespace test_rebalance
}  // namespace trainvp
