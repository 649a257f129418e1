// The three-tier Clos (cluster.fabric.topology "three-tier", docs/fabric.md#three-tier-clos)
// against closed forms: its devices and links counted from the keys, where traffic turns (a leaf,
// a spine, one core), a transfer between pods timed by alpha-beta at the rate the two
// oversubscriptions leave it, ECMP over every core, and bad three-tier fabrics.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "platform/config/scenario.hpp"
#include "platform/report/results.hpp"
#include "platform/system/simulation.hpp"
#include "tests/command.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_fabric_three_tier {  // named for the file: unity builds join test files

using namespace test;

// `nodes` nodes of one H100 and one NIC each, a collective benchmark of sendrecv between `comm`.
json three_tier(int nodes, const json& fabric, const json& comm = {0, 1}, const std::string& bytes = "1MiB") {
  json f = fabric;
  f["topology"] = "three-tier";
  f["nccl"] = {{"model", "bound"}};
  return {{"trainvp", 1},
          {"name", "three-tier-test"},
          {"cluster", {{"nodes", nodes}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", f}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "sendrecv"},
            {"algorithm", "ring"},
            {"bytes", bytes},
            {"communicator", comm},
            {"iterations", 1},
            {"warmup", 0}}},
          {"output", {{"trace", false}}}};
}

// (a) 10 NICs on 3 pods of 2 leaves x 2 ports (ceil(10 / 4)), 2 spines and 4 cores in 2 planes.
TEST(ThreeTier, DevicesAndLinksAreTheClosedCount) {
  const int nodes = 10, P = 3, L = 2, S = 2, C = 4, ports = 2;
  const double over = 2, core_over = 1.5;
  json doc = three_tier(nodes, {{"leaf_ports", ports},
                                {"pod_leaves", L},
                                {"pod_spines", S},
                                {"cores", C},
                                {"oversubscription", over},
                                {"core_oversubscription", core_over}});
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    return sim.fabric().describe().dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  json t = json::parse(r.value);
  std::map<std::string, int> kinds;
  for (auto& d : t["devices"]) ++kinds[d["kind"].get<std::string>()];
  EXPECT_EQ(kinds["leaf"], P * L);
  EXPECT_EQ(kinds["spine"], P * S);
  EXPECT_EQ(kinds["core"], C);
  EXPECT_EQ(kinds["nic"], nodes);
  // Network links: one per NIC, every leaf of a pod to every spine of it, and one per pod to each
  // core (spine S to the C / S cores of plane S).
  const double up = kEthBps * ports / (S * over), core_up = kEthBps * ports * L / (C * over * core_over);
  int nic_links = 0, leaf_spine = 0, spine_core = 0, eth = 0;
  std::map<std::string, int> core_links;
  for (auto& l : t["links"]) {
    if (l["kind"] != "ethernet") continue;
    ++eth;
    const std::string a = l["a"], b = l["b"];
    const double bw = l["bandwidth_bps"];
    if (a.find(".nic") != std::string::npos) {
      ++nic_links;
      EXPECT_DOUBLE_EQ(bw, kEthBps) << a;
      const int n = std::stoi(a.substr(4)), leaf = n / ports;  // NICs fill the leaves in order
      EXPECT_EQ(b, "pod" + std::to_string(leaf / L) + ".leaf" + std::to_string(leaf % L)) << a;
    } else if (b.rfind("core", 0) == 0) {
      ++spine_core, ++core_links[b];
      EXPECT_DOUBLE_EQ(bw, core_up) << a << "-" << b;
      const int spine = a.back() - '0', core = std::stoi(b.substr(4));
      EXPECT_EQ(core / (C / S), spine) << a << "-" << b << ": a spine reaches the cores of its plane only";
    } else {
      ++leaf_spine;
      EXPECT_DOUBLE_EQ(bw, up) << a << "-" << b;
      EXPECT_EQ(a.substr(0, a.find('.')), b.substr(0, b.find('.'))) << "leaf and spine of one pod";
    }
  }
  EXPECT_EQ(nic_links, nodes);
  EXPECT_EQ(leaf_spine, P * L * S);
  EXPECT_EQ(spine_core, P * C);
  EXPECT_EQ(eth, nodes + P * L * S + P * C);
  EXPECT_EQ(core_links.size(), static_cast<std::size_t>(C));
  for (auto& [core, n] : core_links) EXPECT_EQ(n, P) << core << ": one link per pod";
  // Per node (1 GPU): GPU-NVSwitch, GPU-PCIe switch, NIC-PCIe switch, PCIe switch-root complex.
  EXPECT_EQ(t["links"].size(), static_cast<std::size_t>(4 * nodes + nodes + P * L * S + P * C));
}

// Rails inside pods: NIC I of each node on its pod's leaf I, leaf_ports nodes per pod.
TEST(ThreeTier, RailOptimizedPutsNicIOfEveryNodeOnItsPodsLeafI) {
  json doc = three_tier(6, {{"leaf_ports", 4}, {"rail_optimized", true}, {"pod_spines", 2}});
  doc["cluster"]["node"] = {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    return sim.fabric().describe().dump() + "|" + json(s.cluster.pods).dump() + " " + json(s.cluster.cores).dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  const auto nl = r.value.rfind('|');
  EXPECT_EQ(r.value.substr(nl + 1), "2 2") << "ceil(6 nodes / 4 per pod) pods; cores = pod_spines";
  int rails = 0;
  const json t = json::parse(r.value.substr(0, nl));
  for (auto& l : t["links"]) {
    const std::string a = l["a"], b = l["b"];
    if (a.find(".nic") == std::string::npos || l["kind"] != "ethernet") continue;
    const int node = std::stoi(a.substr(4));
    EXPECT_EQ(b, "pod" + std::to_string(node / 4) + ".leaf" + a.substr(a.find(".nic") + 4)) << a;
    ++rails;
  }
  EXPECT_EQ(rails, 12);
}

// 8 nodes on 2 pods of 2 leaves x 2 ports; 2 spines per pod, 4 cores at 1:4 above the pods:
// spine-core links of 400 x 2 x 2 / (4 x 4) = 100 Gbit/s, the bottleneck between pods.
const json kSmall = {
    {"leaf_ports", 2}, {"pod_leaves", 2}, {"pod_spines", 2}, {"cores", 4}, {"core_oversubscription", 4}};
constexpr double kCoreBps = kEthBps * 2 * 2 / (4 * 1.0 * 4);

int count_kind(const Fabric& f, const Route& r, DeviceKind k) {
  int n = 0;
  for (int d : r.links) n += f.devices()[static_cast<std::size_t>(f.dirs()[static_cast<std::size_t>(d)].to)].kind == k;
  return n;
}

// For each (src, dst) rank pair, the distinct "leaves/spines/cores entered" of its routes over
// all 64 ECMP buckets, pairs separated by "| ".
std::string tiers_entered(const json& doc, const std::vector<std::pair<int, int>>& pairs) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    Fabric& f = sim.fabric();
    std::string out;
    for (auto [a, b] : pairs) {
      std::set<std::string> counts;
      for (std::uint32_t flow = 0; flow < 64; ++flow) {
        const Route& rt = f.route(a, b, flow);
        counts.insert(std::to_string(count_kind(f, rt, DeviceKind::Leaf)) + "/" +
                      std::to_string(count_kind(f, rt, DeviceKind::Spine)) + "/" +
                      std::to_string(count_kind(f, rt, DeviceKind::Core)));
      }
      for (const std::string& c : counts) out += c + " ";
      out += "| ";
    }
    return out;
  });
  EXPECT_TRUE(r.ok) << r.value;
  return r.value;
}

// (b) Where traffic turns, in every ECMP bucket: on its leaf, on a spine of its pod, or through
// exactly one core.
TEST(ThreeTier, TrafficClimbsOnlyAsHighAsItMust) {
  const std::string tiers = tiers_entered(three_tier(8, kSmall), {std::pair{0, 1}, {0, 2}, {3, 6}, {6, 1}});
  // leaves/spines/cores entered: same leaf 1/0/0; same pod 2/1/0; across pods 2/2/1 (both ways).
  EXPECT_EQ(tiers, "1/0/0 | 2/1/0 | 2/2/1 | 2/2/1 | ");
}

double sendrecv_time(const json& doc) { return simulate(doc)["collectives"][0]["time_s"].get<double>(); }

// alpha + n / beta at the path's bottleneck: every link's and device's latency, one packet time per
// cut-through hop but the bottleneck's, the framed bytes at the bottleneck rate.
double closed_form(double n, const std::vector<double>& eth_hops) {
  double bottleneck = eth_hops[0], packets = 0;
  for (double bps : eth_hops) bottleneck = std::min(bottleneck, bps), packets += (kMtu + kFraming) * 8 / bps;
  packets -= (kMtu + kFraming) * 8 / bottleneck;
  const double pcie_packet = (kPcieMtu + kPcieFraming) * 8 / kPcieBps;
  // latency_between_nodes holds two Ethernet hops (NIC to switch, switch to NIC); each further
  // switch-to-switch hop adds a link and a switch.
  const double latency = latency_between_nodes() + (eth_hops.size() - 2.0) * (kEthLat + kSwitchLat);
  return latency + 4 * pcie_packet + packets + n * (1 + kFraming / kMtu) * 8 / bottleneck;
}

TEST(ThreeTier, TransferTimesAreAlphaBetaAtTheBottleneckTheOversubscriptionSets) {
  const double n = 64.0 * 1048576;
  for (const char* fidelity : {"packet", "flow"}) {
    json fabric = kSmall;
    fabric["fidelity"] = fidelity;
    // Same leaf: NIC, leaf, NIC. Same pod: up to a spine at 400 Gbit/s (2 ports x 400 / 2 spines).
    // Across pods: through a core, twice over the 100 Gbit/s spine-core links.
    const double leaf = sendrecv_time(three_tier(8, fabric, {0, 1}, "64MiB"));
    const double pod = sendrecv_time(three_tier(8, fabric, {0, 2}, "64MiB"));
    const double cross = sendrecv_time(three_tier(8, fabric, {0, 4}, "64MiB"));
    const double e_leaf = closed_form(n, {kEthBps, kEthBps});
    const double e_pod = closed_form(n, {kEthBps, kEthBps, kEthBps, kEthBps});
    const double e_cross = closed_form(n, {kEthBps, kEthBps, kCoreBps, kCoreBps, kEthBps, kEthBps});
    EXPECT_NEAR(leaf, e_leaf, 0.01 * e_leaf) << fidelity;
    EXPECT_NEAR(pod, e_pod, 0.01 * e_pod) << fidelity;
    EXPECT_NEAR(cross, e_cross, 0.01 * e_cross) << fidelity;
    EXPECT_GT(cross, 3.9 * pod) << fidelity << ": 1:4 above the pods";
  }
}

// (c) ECMP between pods: each of the 16 pairs of pod 0 and pod 1 reaches every core over its 64
// buckets (spine S, then a core of plane S, each chosen by the hash), and an all-to-all, whose
// connections hash as NCCL's do (communicator, channel, source, destination), crosses every core.
TEST(ThreeTier, EcmpSpreadsPairsOverEveryCore) {
  auto r = in_child([&] {
    Scenario s = load_scenario(three_tier(8, kSmall), "t");
    Simulation sim(s);
    Fabric& f = sim.fabric();
    std::string out;
    for (int a = 0; a < 4; ++a)
      for (int b = 4; b < 8; ++b) {
        std::set<std::string> cores;
        for (std::uint32_t flow = 0; flow < 64; ++flow)
          for (int d : f.route(a, b, flow).links) {
            const FabricDevice& to = f.devices()[static_cast<std::size_t>(f.dirs()[static_cast<std::size_t>(d)].to)];
            if (to.kind == DeviceKind::Core) cores.insert(to.name);
          }
        if (cores.size() != 4) out += std::to_string(a) + "->" + std::to_string(b) + " ";
      }
    return out;
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_EQ(r.value, "") << "pairs that miss a core";

  json doc = three_tier(8, kSmall, json::array({0, 1, 2, 3, 4, 5, 6, 7}), "8MiB");
  doc["workload"].erase("communicator");
  doc["workload"]["op"] = "all_to_all";
  auto links = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json.dump();
  });
  ASSERT_TRUE(links.ok) << links.value;
  const json res = json::parse(links.value);
  std::map<std::string, double> into_core;  // payload bytes into each core
  for (auto& l : res["links"]) {
    const std::string name = l["name"];
    const auto arrow = name.find("->");
    if (name.compare(arrow + 2, 4, "core") == 0) into_core[name.substr(arrow + 2)] += l["bytes"].get<double>();
  }
  EXPECT_EQ(into_core.size(), 4u) << res["links"].dump();
  // 4 x 4 pairs each way between the pods, 1 MiB each (8 MiB over 8 ranks): every byte between
  // pods enters exactly one core.
  double total = 0;
  for (auto& [core, bytes] : into_core) total += bytes;
  EXPECT_DOUBLE_EQ(total, 2 * 16 * 1048576.0);
  EXPECT_DOUBLE_EQ(res["link_tiers"]["core_bytes"].get<double>(), 2 * total);  // into and out of the cores
}

// Rails within pods: equal-numbered NICs of one pod meet on their leaf; other rails of the pod
// turn at a spine, and any pair of two pods crosses one core.
TEST(ThreeTier, RailAlignedTrafficInAPodStaysOnItsLeaf) {
  json doc = three_tier(4, {{"leaf_ports", 2}, {"rail_optimized", true}, {"pod_spines", 2}, {"cores", 4}});
  doc["cluster"]["node"] = {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}};  // ranks 2N and 2N + 1, NICs 0 and 1
  const std::string tiers = tiers_entered(doc, {std::pair{0, 2}, {1, 3}, {0, 3}, {0, 4}, {3, 5}});
  // node0 and node1 in pod 0, node2 and node3 in pod 1: rail 0 on a leaf, rail 1 on a leaf, rail 0
  // to rail 1 through a spine, and between pods through one core.
  EXPECT_EQ(tiers, "1/0/0 | 1/0/0 | 2/1/0 | 2/2/1 | 2/2/1 | ");
}

// A down spine-core link is routed around (docs/faults.md#routing-around-down-links): the other
// core of its plane, or the other plane, carries what it would have.
TEST(ThreeTier, ADownSpineCoreLinkIsRoutedAround) {
  json doc = three_tier(8, kSmall, json::array(), "8MiB");
  doc["workload"].erase("communicator");
  doc["workload"]["op"] = "all_to_all";
  doc["faults"] = {{{"kind", "link_down"}, {"target", "link:pod0.spine0-core0"}, {"start", "0s"}, {"duration", "1s"}}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json.dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  const json res = json::parse(r.value);
  std::set<std::string> used;
  for (auto& l : res["links"]) used.insert(l["link"].get<std::string>());
  EXPECT_FALSE(used.count("link:pod0.spine0-core0"));
  EXPECT_FALSE(used.count("link:pod1.spine0-core0")) << "core0 leads to pod 0 only over the down link";
  EXPECT_TRUE(used.count("link:pod0.spine0-core1"));
  EXPECT_DOUBLE_EQ(res["link_tiers"]["core_bytes"].get<double>(), 2 * 2 * 16 * 1048576.0);
}

// (d) Bad three-tier fabrics name their key.
TEST(ThreeTier, BadThreeTierFabricsAreClearErrors) {
  auto set = [](const char* key, json v) { return [key, v](json& d) { d["cluster"]["fabric"][key] = v; }; };
  std::vector<BadCase> cases = {
      {"too few pods for the NICs", set("pods", 1), "/cluster/fabric/pods"},
      {"cores not a multiple of pod_spines", set("cores", 3), "/cluster/fabric/cores"},
      {"leaves with three-tier", set("leaves", 4), "/cluster/fabric/leaves"},
      {"spines with three-tier", set("spines", 4), "/cluster/fabric/spines"},
      {"core oversubscription below 1", set("core_oversubscription", 0.5), "/cluster/fabric/core_oversubscription"},
      {"rail leaves not one per NIC",
       [](json& d) { d["cluster"]["fabric"]["rail_optimized"] = true, d["cluster"]["fabric"]["pod_leaves"] = 2; },
       "/cluster/fabric/pod_leaves"},
      {"too few rail pods",
       [](json& d) {
         d["cluster"]["fabric"]["rail_optimized"] = true, d["cluster"]["fabric"]["pods"] = 3;
         d["cluster"]["fabric"].erase("pod_leaves");  // 1: one rail
       },
       "/cluster/fabric/pods"},  // 8 nodes at 2 (leaf_ports) per pod: 4 pods
      {"too large to elaborate",
       [](json& d) { d["cluster"]["fabric"]["pods"] = 4096, d["cluster"]["fabric"]["pod_leaves"] = 4096; },
       "/cluster/fabric/pods"},
      {"pods with leaf-spine",
       [](json& d) {
         d["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"pods", 2}};
       },
       "/cluster/fabric/pods"},
      {"unknown topology", set("topology", "three-tiers"), "/cluster/fabric/topology"},
  };
  expect_load_errors(three_tier(8, kSmall), cases);
  // From the command line: exit status 2, the pointer and what it needs.
  Cmd c = trainvp(
      "validate scenarios/quickstart.json --set /cluster/nodes=8 --set "
      "'/cluster/fabric={\"topology\":\"three-tier\",\"leaf_ports\":2,\"pod_leaves\":2,\"pods\":1}'");
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_NE(c.out.find("/cluster/fabric/pods"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("at least 16 pods for 64 NICs"), std::string::npos) << c.out;
}

}  // namespace test_fabric_three_tier
}  // namespace trainvp
