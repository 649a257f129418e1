// The median and the groups more than a threshold above it, on exactly representable values so
// the boundary is exact.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/health/algorithms/group_compare.hpp"

namespace trainvp {
namespace test_group_compare {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(HealthGroupCompare, MedianOddAndEven) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // mean of the middle two
  EXPECT_EQ(median({5}), 5);
  EXPECT_EQ(median({1, 1, 9, 9}), 5);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(HealthGroupCompare, StrictlyMoreThanThresholdAboveTheMedian) {
  // Median 1, threshold 1/8: 1.125 is at the limit (not above), 1.25 above.
  EXPECT_EQ(above_median({1, 1, 1.125, 1.25, 1}, 0.125), (std::vector<int>{3}));
  EXPECT_EQ(above_median({1, 1, 1.125, 1.125, 1}, 0.125), (std::vector<int>{}));
}

TEST(HealthGroupCompare, OneSlowGroupAmongEight) {
  // GREYHOUND's rule: a group 20% over the median of equal-volume groups is the suspect.
  std::vector<double> t(8, 2.0);
  t[5] = 2.4;
  EXPECT_EQ(above_median(t, 0.10), (std::vector<int>{5}));
  // Half the groups slow: the even median 2.25 puts the limit at 2.475 for 10% (2.5 above it)
  // and at 2.53125 for 12.5% (2.5 not above).
  EXPECT_EQ(above_median({2, 2, 2.5, 2.5}, 0.10), (std::vector<int>{2, 3}));
  EXPECT_EQ(above_median({2, 2, 2.5, 2.5}, 0.125), (std::vector<int>{}));
  EXPECT_EQ(above_median({2, 2, 3, 3}, 0.125), (std::vector<int>{2, 3}));  // median 2.5, limit 2.8125
}

TEST(HealthGroupCompare, EmptyGivesEmpty) { EXPECT_TRUE(above_median({}, 0.1).empty()); }

}  // namespace test_group_compare
}  // namespace trainvp
