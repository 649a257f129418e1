// The ladder's parts alone: the common boundary where a job's ranks take a step's pause and
// split, and S2's split around slow replicas. Every expectation is worked out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/health/diagnosis.hpp"
#include "platform/system/health/common_boundary.hpp"
#include "platform/system/health/mitigation_action.hpp"
#include "platform/system/health/split_step.hpp"

namespace trainvp {
namespace test_mitigation_steps {  // named for the file: unity builds join test files

// Stages of a pipeline end an iteration at different times: all stop after the iteration that
// follows the latest any has ended, and each takes its pause there once.
TEST(CommonBoundary, EveryRankStopsAfterTheIterationFollowingTheLatestOneEnded) {
  CommonBoundary b(4, {1, 2, 3});  // rank 0 is another job's
  b.ended(0, 9), b.ended(1, 3), b.ended(2, 5), b.ended(3, 4);
  EXPECT_EQ(b.pause_all(7), 6);  // rank 0's iteration 9 is not the job's
  EXPECT_TRUE(b.pending());
  EXPECT_FALSE(b.all_ended());
  b.ended(1, 6), b.ended(2, 6);
  EXPECT_FALSE(b.all_ended());
  b.ended(3, 6);
  EXPECT_TRUE(b.all_ended());
  EXPECT_EQ(b.take_pause(0), 0);
  EXPECT_EQ(b.take_pause(2), 7);
  EXPECT_EQ(b.take_pause(2), 0);  // taken once
  EXPECT_EQ(b.pause_all(5), 7);   // a second pause adds to what is not yet taken
  EXPECT_EQ(b.take_pause(1), 12);
  EXPECT_EQ(b.take_pause(2), 5);
  EXPECT_EQ(b.take_pause(3), 12);
  EXPECT_FALSE(b.pending());
}

TEST(CommonBoundary, WithoutRanksNamedItIsEveryRank) {
  CommonBoundary b(3, {});
  EXPECT_EQ(b.ranks(), (std::vector<int>{0, 1, 2}));
  b.scale_all(0.5);
  EXPECT_DOUBLE_EQ(b.take_scale(1), 0.5);
  EXPECT_LT(b.take_scale(1), 0);  // none left
}

Diagnosis late_host(int rank, double slowdown) {
  Diagnosis d;
  d.cause = FailCause::Cpu, d.gpus = {rank}, d.slowdown = slowdown;
  return d;
}

struct Split {
  CommonBoundary boundary{4, {}};
  std::vector<std::vector<int>> healed;
  // Ranks 0, 1 in replica 0, ranks 2, 3 in replica 1; 6 micro-batches each.
  SplitStep split{{{0, 0, 1, 1}, 2, 6}, boundary, nullptr, [this](std::vector<int> h) { healed.push_back(h); }};
};

// Replica 0 at 2x per micro-batch: of 12, m0 = 4 and m1 = 8 make both take 8 units of time (the
// least maximum: m0 = 5 gives 10, m0 = 3 gives m1 = 9). Each rank's work scales by m_j / 6.
TEST(SplitStep, SplitsTheMicroBatchesSoTheSlowestReplicaIsFastest) {
  Split s;
  EXPECT_TRUE(s.split.note(late_host(1, 2.0)));
  EXPECT_FALSE(s.split.note(late_host(0, 1.5)));  // no slower than replica 0 already is
  MitigationAction a;
  ASSERT_TRUE(s.split.rebalance(a));
  EXPECT_EQ(a.units, (std::vector<int>{4, 8}));
  EXPECT_TRUE(s.split.split());
  for (int r : {0, 1}) EXPECT_DOUBLE_EQ(s.boundary.take_scale(r), 4.0 / 6);
  for (int r : {2, 3}) EXPECT_DOUBLE_EQ(s.boundary.take_scale(r), 8.0 / 6);
  MitigationAction back;
  s.split.even(back);
  EXPECT_EQ(back.units, (std::vector<int>{6, 6}));
  EXPECT_FALSE(s.split.split());
  EXPECT_DOUBLE_EQ(s.boundary.take_scale(3), 1.0);
}

TEST(SplitStep, NothingToSplitWhileNoReplicaIsSlower) {
  Split s;
  MitigationAction a;
  EXPECT_FALSE(s.split.rebalance(a));
  EXPECT_TRUE(a.units.empty());
  EXPECT_FALSE(s.boundary.pending());
}

// A move put rank 1's hardware at rank 3: replica 1 is now the slow one (8 and 4 of 12).
TEST(SplitStep, WhatIsKnownOfASlowGpuFollowsItsHardware) {
  Split s;
  s.split.note(late_host(1, 2.0));
  s.split.follow({0, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.split.gpu_factor(3), 2.0);
  EXPECT_DOUBLE_EQ(s.split.gpu_factor(1), 1.0);
  MitigationAction a;
  ASSERT_TRUE(s.split.rebalance(a));
  EXPECT_EQ(a.units, (std::vector<int>{8, 4}));
}

}  // namespace test_mitigation_steps
}  // namespace trainvp
