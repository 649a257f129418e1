// S3's role swap against hand-computed placements: two leaves of two nodes each, every path from
// leaf 0 to leaf 1 through a slow uplink; the rank order tp-pp-dp puts a replica's two stages on
// one leaf, so its data-parallel rings (D bytes each way) cross and its pipeline (P) does not.
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/health/algorithms/swap_plan.hpp"

namespace trainvp {
namespace test_swap_plan {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

constexpr double kD = 1000, kP = 10;

// Slots: 0 = (stage 0, replica 0), 1 = (1, 0), 2 = (0, 1), 3 = (1, 1), on nodes 0..3 in order.
RoleSwapInput two_leaves() {
  RoleSwapInput in;
  in.traffic.assign(4, std::vector<double>(4, 0.0));
  auto both = [&](int a, int b, double v) {
    in.traffic[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
        in.traffic[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = v;
  };
  both(0, 2, kD), both(1, 3, kD);  // data parallel
  both(0, 1, kP), both(2, 3, kP);  // pipeline
  in.crossing.assign(4, std::vector<double>(4, 0.0));
  for (int p : {0, 1})
    for (int q : {2, 3}) in.crossing[static_cast<std::size_t>(p)][static_cast<std::size_t>(q)] = 1.0;
  in.at = {0, 1, 2, 3};
  return in;
}

TEST(RoleSwap, MovesTheDataParallelRingsOffTheSlowUplinkAndLetsThePipelineCross) {
  const RoleSwapInput in = two_leaves();
  const RoleSwap r = plan_role_swap(in);
  EXPECT_DOUBLE_EQ(r.before, 2 * kD);  // slot 0 -> 2 and 1 -> 3 go from leaf 0 to leaf 1
  EXPECT_DOUBLE_EQ(r.after, 2 * kP);   // then one stage boundary per replica crosses
  // Exchanging slots 0 and 3, or 1 and 2, both reach 2P: the lowest slots win the tie.
  ASSERT_EQ(r.swaps.size(), 1u);
  EXPECT_EQ(r.swaps[0], std::make_pair(0, 3));
  EXPECT_EQ(r.at, (std::vector<int>{3, 1, 2, 0}));
  EXPECT_DOUBLE_EQ(crossing_bytes(in, r.at), r.after);
}

TEST(RoleSwap, PlacementThatAlreadyAvoidsTheSlowPathsStays) {
  RoleSwapInput in = two_leaves();
  in.at = {0, 2, 1, 3};  // tp-dp-pp: each replica pair inside one leaf
  const RoleSwap r = plan_role_swap(in);
  EXPECT_TRUE(r.swaps.empty());
  EXPECT_DOUBLE_EQ(r.before, 2 * kP);
  EXPECT_DOUBLE_EQ(r.after, r.before);
}

TEST(RoleSwap, NoSwapWhenNothingCrossesASuspectPath) {
  RoleSwapInput in = two_leaves();
  for (auto& row : in.crossing) row.assign(4, 0.0);
  const RoleSwap r = plan_role_swap(in);
  EXPECT_TRUE(r.swaps.empty());
  EXPECT_EQ(r.before, 0.0);
}

TEST(RoleSwap, GainBelowTheBarIsNotWorthAMove) {
  RoleSwapInput in = two_leaves();
  // Equal data-parallel and pipeline traffic: every placement sends 2 x 10 bytes across.
  for (auto& row : in.traffic)
    for (double& v : row) v = v > 0 ? 10.0 : 0.0;
  EXPECT_TRUE(plan_role_swap(in).swaps.empty());
  // A 1% gain needs more than 1% of what crossed: 2D -> 2P is 99%, so a bar of 0.995 stops it.
  EXPECT_TRUE(plan_role_swap(two_leaves(), 0.995).swaps.empty());
  EXPECT_EQ(plan_role_swap(two_leaves(), 0.98).swaps.size(), 1u);
}

TEST(RoleSwap, InputsThatDoNotFitAreRejected) {
  RoleSwapInput in = two_leaves();
  in.at = {0, 1, 1, 3};
  EXPECT_THROW(plan_role_swap(in), std::invalid_argument);
  in = two_leaves();
  in.crossing.pop_back();
  EXPECT_THROW(plan_role_swap(in), std::invalid_argument);
}

}  // namespace test_swap_plan
}  // namespace trainvp
