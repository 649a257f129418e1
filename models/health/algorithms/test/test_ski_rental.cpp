// Ski-rental escalation with losses in quarters of a second, so every sum is exact and the
// iteration that reaches each cost is known.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/health/algorithms/ski_rental.hpp"

namespace trainvp {
namespace test_ski_rental {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(HealthSkiRental, EscalatesExactlyWhenTheLossReachesEachCost) {
  SkiRental s({0, 4, 10, 30});
  // 0.5 s lost per iteration: S2 (cost 4) at the 8th, S3 (10) 20 later, S4 (30) 60 later.
  const int reach[] = {8, 20, 60};
  for (int k = 0; k < 3; ++k) {
    for (int i = 1; i < reach[k]; ++i) {
      ASSERT_EQ(s.add(1.5, 1.0), k) << k << " " << i;
      ASSERT_EQ(s.loss(), 0.5 * i);
    }
    EXPECT_EQ(s.add(1.5, 1.0), k + 1);
    EXPECT_EQ(s.step(), k + 1);
    EXPECT_EQ(s.loss(), 0);  // the loss restarts on entering a step
  }
  // The last step has nothing to escalate to; the loss keeps counting.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(s.add(2.0, 1.0), 3);
  EXPECT_EQ(s.loss(), 100);
}

TEST(HealthSkiRental, UnevenLossesCrossOnTheIterationThatReaches) {
  SkiRental s({0, 3, 5, 8});
  EXPECT_EQ(s.add(2.25, 1), 0);  // 1.25
  EXPECT_EQ(s.add(1.5, 1), 0);   // 1.75
  EXPECT_EQ(s.add(2.0, 1), 0);   // 2.75
  EXPECT_EQ(s.add(1.25, 1), 1);  // 3.00 = cost of S2
  EXPECT_EQ(s.add(5.75, 1), 1);  // 4.75 < 5
  EXPECT_EQ(s.add(1.25, 1), 2);  // 5.00
}

TEST(HealthSkiRental, OneStepPerIterationAndTheExcessIsSpent) {
  SkiRental s({0, 1, 2, 4});
  EXPECT_EQ(s.add(101, 1), 1);  // covers every cost, moves one step
  EXPECT_EQ(s.loss(), 0);
  EXPECT_EQ(s.add(2.75, 1), 1);  // 1.75 < 2
  EXPECT_EQ(s.add(1.25, 1), 2);
}

// A step that found nothing to do (S2 on a communication fault, S3 with no move) cost nothing: the
// loss that reached it still counts, so the next step comes at the sum of the costs after S1.
TEST(HealthSkiRental, ARefundedStepLeavesItsLossTowardTheNext) {
  SkiRental s({0, 1, 2, 4});
  EXPECT_EQ(s.add(2, 1), 1);
  s.refund(1);
  EXPECT_EQ(s.loss(), 1);
  EXPECT_EQ(s.add(1.75, 1), 1);  // 1.75 < 2
  EXPECT_EQ(s.add(1.25, 1), 2);  // 2 = S2's cost: the loss since S1 (3) paid for both
}

TEST(HealthSkiRental, IterationsNoSlowerThanHealthyAddNothing) {
  SkiRental s({0, 1, 2, 4});
  EXPECT_EQ(s.add(0.5, 1), 0);
  EXPECT_EQ(s.add(1, 1), 0);
  EXPECT_EQ(s.loss(), 0);
  EXPECT_EQ(s.add(1.75, 1), 0);
  EXPECT_EQ(s.add(1.25, 1), 1);  // 0.75 + 0.25
}

TEST(HealthSkiRental, ResetReturnsToS1) {
  SkiRental s({0, 1, 2, 4});
  s.add(3, 1), s.add(3.5, 1);
  EXPECT_EQ(s.step(), 2);
  s.add(2, 1);
  s.reset();
  EXPECT_EQ(s.step(), 0);
  EXPECT_EQ(s.loss(), 0);
  EXPECT_EQ(s.add(1.5, 1), 0);
  EXPECT_EQ(s.add(1.5, 1), 1);
}

TEST(HealthSkiRental, RejectsBadCosts) {
  EXPECT_THROW(SkiRental({}), std::invalid_argument);
  EXPECT_THROW(SkiRental({1, 2}), std::invalid_argument);
  EXPECT_THROW(SkiRental({0, -1}), std::invalid_argument);
}

}  // namespace test_ski_rental
}  // namespace trainvp
