// Fabric routing alone on the smallest leaf-spine that has a choice: 4 nodes of one GPU and one NIC,
// 2 leaves of 2 NIC ports, 2 spines. A pair on one leaf turns at its leaf and never climbs; a pair
// across leaves climbs to a spine and comes down on the other leaf, with both spines equal-cost
// choices; ECMP spreads its 64 buckets over both (a fair coin's share within 4 standard
// deviations), and a flow keeps its bucket's path.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/scenario.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/simulation.hpp"

namespace trainvp {
namespace test_fabric_routing {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

nlohmann::json two_by_two() {
  return {{"trainvp", 1},
          {"name", "leaf-spine-2x2"},
          {"cluster",
           {{"nodes", 4},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}, {"nics", 1}}},
            {"fabric",
             {{"topology", "leaf-spine"}, {"leaves", 2}, {"spines", 2}, {"leaf_ports", 2}, {"link_bw", "400Gbps"}}}}},
          {"workload", {{"kind", "collective"}, {"op", "all_reduce"}, {"bytes", "1MiB"}, {"iterations", 1}}}};
}

// The devices a path visits after its source, by kind and name.
std::vector<const FabricDevice*> hops(const Fabric& f, const std::vector<int>& path) {
  std::vector<const FabricDevice*> out;
  for (int d : path) out.push_back(&f.devices()[static_cast<std::size_t>(f.dirs()[static_cast<std::size_t>(d)].to)]);
  return out;
}

int count_kind(const std::vector<const FabricDevice*>& h, DeviceKind k) {
  int n = 0;
  for (const FabricDevice* d : h) n += d->kind == k;
  return n;
}

TEST(FabricRouting, OneLeafTurnsAtTheLeafAcrossLeavesEcmpSpreadsOverBothSpines) {
  test::in_own_process([] {
    Simulation sim(load_scenario(two_by_two(), "t"));
    Fabric& f = sim.fabric();
    // Ranks 0 and 1 sit on one leaf, 2 and 3 on the other (leaf_ports 2, NICs in node order).
    const std::vector<int> same = f.elaborated_path(0, 1, 0);
    const std::vector<const FabricDevice*> hs = hops(f, same);
    EXPECT_EQ(count_kind(hs, DeviceKind::Leaf), 1) << "one leaf: turns there";
    EXPECT_EQ(count_kind(hs, DeviceKind::Spine), 0) << "one leaf: never climbs";
    EXPECT_EQ(hs.back()->kind, DeviceKind::Gpu);
    EXPECT_EQ(f.device_of_rank(1), f.dirs()[static_cast<std::size_t>(same.back())].to);
    // Across leaves: NIC, leaf, spine, leaf, NIC, then the GPU; every hop but the spine's has one
    // direction, the climb two (one per spine) and the descent two (one from each spine).
    for (std::uint32_t flow = 0; flow < 8; ++flow) {
      const std::vector<const FabricDevice*> hx = hops(f, f.elaborated_path(0, 2, flow));
      EXPECT_EQ(count_kind(hx, DeviceKind::Leaf), 2);
      EXPECT_EQ(count_kind(hx, DeviceKind::Spine), 1);
      EXPECT_EQ(hx.back()->kind, DeviceKind::Gpu);
    }
    const Fabric::Layers layers = f.elaborated_layers(0, 2);
    int choices = 0;
    for (const std::vector<int>& l : layers) {
      EXPECT_LE(l.size(), 2u);
      if (l.size() == 2) {
        ++choices;
        std::set<int> spines;
        for (int d : l) {
          const FabricDir& dir = f.dirs()[static_cast<std::size_t>(d)];
          spines.insert(f.devices()[static_cast<std::size_t>(dir.to)].kind == DeviceKind::Spine ? dir.to : dir.from);
        }
        EXPECT_EQ(spines.size(), 2u) << "the two choices are the two spines";
      }
    }
    EXPECT_EQ(choices, 2);
    // ECMP hashes flows into 64 buckets (FabricRouter::kEcmpBuckets): over the buckets, each spine's
    // share is a fair coin's within 4 sigma (32 +- 16), and flow f + 64 is bucket f again.
    int first = 0;
    std::string spine0;
    for (std::uint32_t flow = 0; flow < 64; ++flow) {
      const std::vector<int> path = f.elaborated_path(0, 2, flow);
      for (const FabricDevice* d : hops(f, path))
        if (d->kind == DeviceKind::Spine) {
          if (spine0.empty()) spine0 = d->name;
          first += d->name == spine0;
        }
      EXPECT_EQ(path, f.elaborated_path(0, 2, flow + 64)) << "flow " << flow;
    }
    EXPECT_NEAR(first, 32, 16);
    EXPECT_GT(first, 0);
    EXPECT_LT(first, 64);
  });
}

// The devices a path visits after its source, by name.
std::vector<std::string> names(const Fabric& f, const std::vector<int>& path) {
  std::vector<std::string> out;
  for (const FabricDevice* d : hops(f, path)) out.push_back(d->name);
  return out;
}

// Next hops by name: each node's GPU reaches its NIC through its PCIe switch, the NIC its leaf
// (ranks 0 and 1 on leaf0, 2 and 3 on leaf1), a leaf the other leaf through either spine; a path
// is the shortest there is, and its way back visits the same devices in reverse.
TEST(FabricRouting, NextHopsOnTheTwoByTwoAreEachPairsShortestByName) {
  test::in_own_process([] {
    Simulation sim(load_scenario(two_by_two(), "t"));
    Fabric& f = sim.fabric();
    auto up = [](int n) {  // a GPU's way out to its NIC
      const std::string node = "node" + std::to_string(n);
      return std::vector<std::string>{node + ".pcie0", node + ".nic0"};
    };
    auto down = [](int n) {  // and in from its NIC
      const std::string node = "node" + std::to_string(n);
      return std::vector<std::string>{node + ".nic0", node + ".pcie0", node + ".gpu0"};
    };
    auto join = [](std::vector<std::vector<std::string>> parts) {
      std::vector<std::string> out;
      for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
      return out;
    };
    for (std::uint32_t flow = 0; flow < 64; ++flow) {
      EXPECT_EQ(names(f, f.elaborated_path(0, 1, flow)), join({up(0), {"leaf0"}, down(1)}));
      EXPECT_EQ(names(f, f.elaborated_path(3, 2, flow)), join({up(3), {"leaf1"}, down(2)}));
    }
    const std::vector<std::pair<int, int>> across = {{0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 0}, {3, 1}};
    for (auto [a, b] : across) {
      const std::string from_leaf = a < 2 ? "leaf0" : "leaf1", to_leaf = b < 2 ? "leaf0" : "leaf1";
      std::set<std::string> spines;
      for (std::uint32_t flow = 0; flow < 64; ++flow) {
        const std::vector<std::string> got = names(f, f.elaborated_path(a, b, flow));
        ASSERT_EQ(got.size(), 8u) << a << " -> " << b;
        spines.insert(got[3]);
        EXPECT_EQ(got, join({up(a), {from_leaf, got[3], to_leaf}, down(b)})) << a << " -> " << b;
      }
      EXPECT_EQ(spines, (std::set<std::string>{"spine0", "spine1"})) << a << " -> " << b << ": ECMP uses both";
    }
  });
}

}  // namespace test_fabric_routing
}  // namespace trainvp
