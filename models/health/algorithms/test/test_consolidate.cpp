// S3's node consolidation against hand-computed optima (S2's split in closed form: the slowest
// replica's time T* is the smallest T with sum_j floor(T / c_j) >= total).
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/health/algorithms/consolidate.hpp"

namespace trainvp {
namespace test_consolidate {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// Megatron's order with one TP group per node: node n holds replica n mod d of stage n / d.
ConsolidationInput hybrid(int d, int p, std::vector<double> stage_work, int units) {
  ConsolidationInput in;
  for (int n = 0; n < d * p; ++n) in.cells.push_back({{n % d, n / d}}), in.factor.push_back({1.0});
  in.stage_work = std::move(stage_work);
  in.replicas = d, in.units = units;
  return in;
}

// Nodes 0 and 1 at 1.5x per micro-batch: replicas 0 and 1 slow in stage 0.
ConsolidationInput two_slow_replicas() {
  ConsolidationInput in = hybrid(4, 2, {1, 1}, 8);
  in.factor[0] = {1.5}, in.factor[1] = {1.5};
  return in;
}

TEST(Consolidation, HealthyJobStaysWhereItIs) {
  const ConsolidationInput in = hybrid(4, 2, {1, 1}, 8);
  const Consolidation c = plan_consolidation(in);
  EXPECT_TRUE(c.swaps.empty());
  EXPECT_DOUBLE_EQ(c.before, 1.0);
  EXPECT_DOUBLE_EQ(c.after, 1.0);
}

// Two slow nodes in replicas 0 and 1 (stage 0). S2 alone: 32 micro-batches over speeds
// {1.5, 1.5, 1, 1}: T* = 10 (6 + 6 + 10 + 10), 10/8 = 1.25 of healthy. Moving node 0's hardware
// into replica 1's stage 1 leaves one slow replica: T* = 9 (6 + 9 + 9 + 9 >= 32; 7.5 gives 26),
// 9/8 = 1.125. The first such swap in slot order is (0, 5).
TEST(Consolidation, TwoSlowReplicasBecomeOne) {
  const ConsolidationInput in = two_slow_replicas();
  const Consolidation c = plan_consolidation(in);
  EXPECT_DOUBLE_EQ(c.before, 1.25);
  EXPECT_DOUBLE_EQ(c.after, 1.125);
  ASSERT_EQ(c.swaps.size(), 1u);
  EXPECT_EQ(c.swaps[0], std::make_pair(0, 5));
}

// Without S2 the job waits for its slowest replica wherever the slow nodes sit: no move pays.
TEST(Consolidation, WithoutRebalanceConsolidatingGainsNothing) {
  ConsolidationInput in = two_slow_replicas();
  in.rebalance = false;
  const Consolidation c = plan_consolidation(in);
  EXPECT_TRUE(c.swaps.empty());
  EXPECT_DOUBLE_EQ(c.before, 1.5);
}

// A GPU 1.2x slow on a full stage (work 1) sets the pace at 1.2; on the interior stage with work
// 0.8 it takes 0.96, under the full stages' 1.
TEST(Consolidation, SlowNodeMovesToTheLighterStage) {
  ConsolidationInput in = hybrid(1, 3, {1.0, 0.8, 1.0}, 4);
  in.factor[0] = {1.2};
  for (bool rebalance : {true, false}) {
    in.rebalance = rebalance;
    const Consolidation c = plan_consolidation(in);
    EXPECT_DOUBLE_EQ(c.before, 1.2);
    EXPECT_DOUBLE_EQ(c.after, 1.0);
    ASSERT_EQ(c.swaps.size(), 1u);
    EXPECT_EQ(c.swaps[0], std::make_pair(0, 1));
  }
}

// Under plain data parallelism each GPU is a replica: a node's move keeps its slow GPU's replica
// slow, so nothing moves.
TEST(Consolidation, PlainDataParallelHasNothingToConsolidate) {
  ConsolidationInput in;
  in.cells = {{{0, 0}, {1, 0}}, {{2, 0}, {3, 0}}};
  in.factor = {{2.0, 1.0}, {1.0, 1.0}};
  in.stage_work = {1.0};
  in.replicas = 4, in.units = 4;
  EXPECT_TRUE(plan_consolidation(in).swaps.empty());
}

// The smaller gain a move must bring: 1.25 -> 1.125 is 10%.
TEST(Consolidation, MinimumGainIsRespected) {
  const ConsolidationInput in = two_slow_replicas();
  EXPECT_TRUE(plan_consolidation(in, 0.11).swaps.empty());
  EXPECT_EQ(plan_consolidation(in, 0.09).swaps.size(), 1u);
}

TEST(Consolidation, MismatchedInputsThrow) {
  ConsolidationInput in = hybrid(2, 1, {1}, 2);
  in.factor[1] = {1.0, 1.0};
  EXPECT_THROW(placement_cost(in, {0, 1}), std::invalid_argument);
  in = hybrid(2, 1, {1}, 2);
  in.cells[0][0].replica = 5;
  EXPECT_THROW(placement_cost(in, {0, 1}), std::invalid_argument);
}

}  // namespace test_consolidate
}  // namespace trainvp
