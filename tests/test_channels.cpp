// NCCL's channels and ring order as whole scenarios (docs/fabric.md#channels-and-ring-order):
// channels on one switch keep the ring's closed form, rank order reproduces the single ring
// exactly, and topology rings on a rail-optimized leaf-spine keep every byte off the spines and
// reach the per-NIC bound.
#include <gtest/gtest.h>

#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_channels {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;

json all_reduce(int nodes, int gpus, const std::string& bytes, json fabric) {
  fabric["nccl"]["model"] = "bound";  // the closed forms: the fabric's own rates
  return {{"trainvp", 1},
          {"name", "channels-test"},
          {"cluster", {{"nodes", nodes}, {"node", {{"gpus", gpus}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", fabric}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "all_reduce"},
            {"algorithm", "ring"},
            {"bytes", bytes},
            {"iterations", 1},
            {"warmup", 0}}},
          {"output", {{"trace", false}}}};
}

json rail_optimized(const std::string& order) {
  return {{"topology", "leaf-spine"},
          {"rail_optimized", true},
          {"leaf_ports", 8},
          {"spines", 4},
          {"nccl", {{"order", order}}}};
}

TEST(Channels, ChannelsSharingOneSwitchKeepTheRingClosedForm) {
  // C rings over the same ranks share every NIC direction round-robin: each step moves C slices of
  // n / (C p) through each NIC, so the ring keeps T = 2(p-1) alpha + 2(p-1)/p x n/beta.
  const int p = 8;
  const double n = 256.0 * 1048576, alpha = alpha_between_nodes(), beta = eth_beta();
  for (int channels : {2, 4}) {
    json fabric = {{"topology", "switch"}, {"switch_ports", 64}, {"nccl", {{"channels", channels}}}};
    const json r = simulate(all_reduce(p, 1, "256MiB", fabric));
    const double t = r["collectives"][0]["time_s"], expected = 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * n / beta;
    EXPECT_NEAR(t, expected, 0.03 * expected) << channels << " channels";
  }
}

TEST(Channels, RankOrderWithOneChannelReproducesTheSingleRingExactly) {
  json plain = all_reduce(4, 8, "64MiB",
                          {{"topology", "leaf-spine"}, {"rail_optimized", true}, {"leaf_ports", 8}, {"spines", 4}});
  json ranked = plain;
  ranked["cluster"]["fabric"]["nccl"] = {{"order", "rank"}, {"channels", 1}, {"model", "bound"}};
  const json a = simulate(plain), b = simulate(ranked);
  EXPECT_EQ(a["collectives"], b["collectives"]);
  EXPECT_EQ(a["links"], b["links"]);
  EXPECT_EQ(a["link_tiers"], b["link_tiers"]);
}

TEST(Channels, TopologyRingsKeepRailAlignedTrafficOffTheSpines) {
  const json rank = simulate(all_reduce(4, 8, "256MiB", rail_optimized("rank")));
  const json topo = simulate(all_reduce(4, 8, "256MiB", rail_optimized("topology")));
  // A rank-order ring leaves node k from GPU 7 (rail 7) for node k+1's GPU 0 (rail 0): a spine.
  EXPECT_GT(rank["link_tiers"]["spine_bytes"].get<double>(), 0);
  EXPECT_EQ(topo["link_tiers"]["spine_bytes"], 0);
  // Every NIC carries its channel both ways: 2 x 8 x 4 NIC-leaf directions.
  int nic_dirs = 0;
  for (const json& l : topo["links"])
    if (l["link"].get<std::string>().find(".nic") != std::string::npos &&
        l["link"].get<std::string>().find("leaf") != std::string::npos)
      ++nic_dirs;
  EXPECT_EQ(nic_dirs, 64);
}

TEST(Channels, RailAlignedRingReachesThePerNicBound) {
  // Eight channels, each NIC sending one and receiving one: every NIC direction carries
  // 2(p-1) transfers of n / (8 p) back to back while NVLink (9x faster) keeps up, so
  // busbw = 2(p-1)/p x n / T approaches 8 x beta.
  const json topo = simulate(all_reduce(4, 8, "256MiB", rail_optimized("topology")));
  const double busbw = topo["collectives"][0]["busbw_GBps"].get<double>() * 1e9, bound = 8 * eth_beta();
  EXPECT_LT(busbw, bound);
  EXPECT_GT(busbw, 0.95 * bound);
}

TEST(Channels, BadNcclSettingsAreClearErrors) {
  std::vector<BadCase> cases = {
      {"unknown order", [](json& d) { d["cluster"]["fabric"]["nccl"]["order"] = "random"; },
       "/cluster/fabric/nccl/order"},
      {"negative channels", [](json& d) { d["cluster"]["fabric"]["nccl"]["channels"] = -1; },
       "/cluster/fabric/nccl/channels"},
      {"unknown key", [](json& d) { d["cluster"]["fabric"]["nccl"]["rings"] = 2; }, "/cluster/fabric/nccl/rings"},
  };
  expect_load_errors(all_reduce(2, 2, "1MiB", {{"topology", "switch"}}), cases);
}

}  // namespace test_channels
}  // namespace trainvp
