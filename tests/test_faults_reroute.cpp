// link_down and routing (docs/faults.md#routing-around-down-links): on a leaf-spine, new
// transfers take the other spine when the one their route used is down, at the same speed, and
// the down links carry nothing; a transfer already routed keeps its route and waits.
#include <gtest/gtest.h>

#include <string>

#include "tests/simulate.hpp"

namespace trainvp {
namespace test_faults_reroute {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// 4 nodes of 1 GPU and 1 NIC, 2 NICs per leaf: nodes 0-1 on leaf0, 2-3 on leaf1, 2 spines; each
// leaf-spine link runs at 2 x 400 / 2 = 400 Gbit/s, the NIC rate. The sendrecv between ranks 0
// and 2 crosses a spine in each direction.
json leaf_spine(const json& faults) {
  return {{"trainvp", 1},
          {"name", "reroute-test"},
          {"cluster",
           {{"nodes", 4},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"topology", "leaf-spine"}, {"leaf_ports", 2}, {"spines", 2}}}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "sendrecv"},
            {"algorithm", "ring"},
            {"bytes", "64MiB"},
            {"communicator", {0, 2}},
            {"iterations", 1},
            {"warmup", 0}}},
          {"faults", faults},
          {"output", {{"trace", false}}}};
}

double time_s(const json& r) { return r["collectives"][0]["time_s"].get<double>(); }

// Payload bytes through the links of `device` (both directions; absent directions carried none).
double bytes_through(const json& r, const std::string& device) {
  double b = 0;
  for (const json& l : r["links"]) {
    const std::string name = l["name"];
    if (name.find(device + "->") == 0 || name.find("->" + device) != std::string::npos) b += l["bytes"].get<double>();
  }
  return b;
}

TEST(FaultsReroute, TransfersTakeTheOtherSpineWhenTheirsIsDown) {
  json base = test::simulate(leaf_spine(json::array()));
  // The spines the baseline uses; take each down in turn (both if the two directions differ).
  for (const std::string spine : {"spine0", "spine1"}) {
    if (bytes_through(base, spine) == 0) continue;
    const std::string other = spine == "spine0" ? "spine1" : "spine0";
    json r = test::simulate(leaf_spine({{{"kind", "link_down"}, {"target", spine}}}));
    EXPECT_EQ(bytes_through(r, spine), 0.0) << spine;
    // Both directions of the sendrecv now cross the other spine, at the same rate.
    EXPECT_EQ(bytes_through(r, other), 4.0 * 64 * 1048576) << other;  // leaf->spine->leaf, each way
    EXPECT_NEAR(time_s(r), time_s(base), 0.02 * time_s(base)) << spine;
    EXPECT_EQ(r["faults"][0]["matched"].size(), 2u);  // leaf0-spine and leaf1-spine
  }
  EXPECT_GT(bytes_through(base, "spine0") + bytes_through(base, "spine1"), 0.0);
}

TEST(FaultsReroute, BothSpinesDownLeavesTheTransferWaiting) {
  // No alternative: routes go through the down links and wait there, as on a single switch.
  json faults = {{{"kind", "link_down"}, {"target", "spine*"}, {"start", "0s"}, {"duration", "1ms"}}};
  json base = test::simulate(leaf_spine(json::array()));
  json r = test::simulate(leaf_spine(faults));
  EXPECT_NEAR(time_s(r), time_s(base) + 1e-3, 0.02 * (time_s(base) + 1e-3));
  // Nothing crosses a spine before 1 ms, and then all 64 MiB must (at 400 Gbit/s, 4096-byte packets
  // with 82 bytes framing).
  EXPECT_GT(time_s(r), 1e-3 + 64.0 * 1048576 * (1 + 82.0 / 4096) * 8 / 400e9);
}

TEST(FaultsReroute, ATransferAlreadyRoutedKeepsItsRouteAndWaits) {
  json base = test::simulate(leaf_spine(json::array()));
  for (const std::string spine : {"spine0", "spine1"}) {
    if (bytes_through(base, spine) == 0) continue;
    // Down from 300 us, mid-transfer, for 1 ms: the chunks were routed through it at the start.
    json r = test::simulate(
        leaf_spine({{{"kind", "link_down"}, {"target", spine}, {"start", "300us"}, {"duration", "1ms"}}}));
    EXPECT_NEAR(time_s(r), time_s(base) + 1e-3, 0.02 * (time_s(base) + 1e-3)) << spine;
    EXPECT_EQ(bytes_through(r, spine), bytes_through(base, spine)) << spine;
  }
}

TEST(FaultsReroute, RoutesComeBackWhenTheLinkIsUp) {
  // Down for the first 100 us only, then two sendrecvs: the first is routed at time 0 around the
  // down spine; the second (after the link is up) takes the baseline's paths again.
  json doc = leaf_spine(json::array());
  json first = test::simulate(doc);  // the first sendrecv alone
  doc["workload"]["iterations"] = 2;
  json base = test::simulate(doc);
  int checked = 0;
  for (const std::string spine : {"spine0", "spine1"}) {
    if (bytes_through(first, spine) == 0) continue;
    doc["faults"] = {{{"kind", "link_down"}, {"target", spine}, {"duration", "100us"}}};
    json r = test::simulate(doc);
    EXPECT_EQ(bytes_through(r, spine), bytes_through(base, spine) - bytes_through(first, spine)) << spine;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace test_faults_reroute
}  // namespace trainvp
