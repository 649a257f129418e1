// The fabric against closed forms: a single transfer, ring all-reduce (alpha-beta), fair sharing
// of a link, hierarchical vs flat rings, DDP overlap, ECMP, and bad fabrics.
#include <gtest/gtest.h>

#include <cmath>

#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/report/results.hpp"
#include "platform/system/simulation.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_fabric {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using namespace test;  // in_child, the closed forms

json bench_scenario(int nodes, int gpus, const std::string& op, const std::string& algo, const std::string& bytes) {
  return {
      {"trainvp", 1},
      {"name", "fabric-test"},
      {"cluster",
       {{"nodes", nodes},
        {"node", {{"gpus", gpus}, {"gpu", "H100-SXM5-80GB"}}},
        {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"switch_ports", 128}}}}},
      {"workload",
       {{"kind", "collective"}, {"op", op}, {"algorithm", algo}, {"bytes", bytes}, {"iterations", 1}, {"warmup", 0}}},
      {"output", {{"trace", false}}}};
}

double bench_time(const json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json["collectives"][0]["time_s"].dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return std::stod(r.value);
}

TEST(Fabric, SingleTransferTakesLatencyPlusFramedBytesOverBandwidth) {
  for (double n : {1048576.0, 64.0 * 1048576}) {
    // sendrecv over two ranks: each sends n bytes to the other, on independent directions.
    double t = bench_time(bench_scenario(2, 1, "sendrecv", "ring", std::to_string(static_cast<long long>(n)) + "B"));
    double expected = alpha_between_nodes() + n * (1 + kFraming / kMtu) * 8 / kEthBps;
    EXPECT_NEAR(t, expected, 0.01 * expected) << n;
  }
}

TEST(Fabric, RingAllReduceMatchesAlphaBetaWithinThreePercent) {
  const double alpha = alpha_between_nodes(), beta = eth_beta();
  for (int p : {2, 4, 8, 16, 32, 64})
    for (double n : {1048576.0, 16.0 * 1048576, 256.0 * 1048576, 1024.0 * 1048576}) {
      double t =
          bench_time(bench_scenario(p, 1, "all_reduce", "ring", std::to_string(static_cast<long long>(n)) + "B"));
      double expected = 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * n / beta;
      EXPECT_NEAR(t, expected, 0.03 * expected) << "p=" << p << " n=" << n;
    }
}

TEST(Fabric, HierarchicalBeatsFlatRingWhenNvlinkIsMuchFasterThanTheNic) {
  double ring = bench_time(bench_scenario(2, 8, "all_reduce", "ring", "256MiB"));
  double hier = bench_time(bench_scenario(2, 8, "all_reduce", "hierarchical", "256MiB"));
  EXPECT_LT(hier, ring * 0.8) << "ring " << ring << " s, hierarchical " << hier << " s";
}

// Launches transfers at t = 0 and records when each receiving rank is done.
class Injector : public sc_core::sc_module {
 public:
  // stagger_ps > 0: ranks join one after the other, the last first, that far apart.
  Injector(sc_core::sc_module_name n, CollectiveEngine& e, Program p, std::int64_t stagger_ps = 0)
      : sc_module(n), engine_(e), program_(std::move(p)), stagger_ps_(stagger_ps) {
    SC_HAS_PROCESS(Injector);
    SC_THREAD(go);
  }
  std::map<int, double> done;

 private:
  void go() {
    int id = engine_.launch(program_, CollectiveOp::SendRecv, CollectiveAlgo::Ring, 0, "test",
                            [this](int r) { done[r] = sec(now_ps()); });
    if (stagger_ps_ <= 0) {
      for (int r : program_.ranks) engine_.join(id, r);
      return;
    }
    for (auto it = program_.ranks.rbegin(); it != program_.ranks.rend(); ++it) {
      engine_.join(id, *it);
      wait(ps_time(stagger_ps_));
    }
  }
  CollectiveEngine& engine_;
  Program program_;
  std::int64_t stagger_ps_;
};

json idle_training(int nodes, int gpus) {
  return {{"trainvp", 1},
          {"name", "idle"},
          {"cluster", {{"nodes", nodes}, {"node", {{"gpus", gpus}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"layers", {{{"name", "x"}, {"fwd_time", "1ns"}, {"bwd_time", "2ns"}}}}}},
          {"training", {{"iterations", 1}, {"warmup", 0}, {"optimizer", "none"}}},
          {"output", {{"trace", false}}}};
}

std::map<int, double> inject(const json& doc, const Program& p, std::int64_t stagger_ps = 0) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    Injector inj("injector", sim.engine(), p, stagger_ps);
    sim.run();
    json out = json::object();
    for (auto& [rank, t] : inj.done) out[std::to_string(rank)] = t;
    return out.dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  std::map<int, double> m;
  const json done = json::parse(r.value);  // items() of a temporary would dangle
  for (auto& [k, v] : done.items()) m[std::stoi(k)] = v.get<double>();
  return m;
}

TEST(Fabric, TwoFlowsSharingALinkEachGetHalf) {
  const double n = 64.0 * 1048576;
  Program alone{{{0, 2, static_cast<std::uint64_t>(n), {}}}, {0, 1, 2}};
  Program both{{{0, 2, static_cast<std::uint64_t>(n), {}}, {1, 2, static_cast<std::uint64_t>(n), {}}}, {0, 1, 2}};
  double t1 = inject(idle_training(3, 1), alone).at(0);
  auto t2 = inject(idle_training(3, 1), both);
  // The switch's port towards node2 is shared: both flows finish together, at twice the time.
  EXPECT_NEAR(t2.at(0), 2 * t1, 0.02 * 2 * t1);
  EXPECT_NEAR(t2.at(1), 2 * t1, 0.02 * 2 * t1);
  EXPECT_NEAR(t1, alpha_between_nodes() + n * (1 + kFraming / kMtu) * 8 / kEthBps, 0.01 * t1);
}

// Flat rings run from an implicit program (O(p) memory); spelled out, the same transfers must
// give the same times to the picosecond, whatever the segment sizes (empty ones included) and
// however the ranks join (a dependency may arrive before an endpoint has joined).
TEST(Fabric, ImplicitRingsRunExactlyAsTheirExplicitForm) {
  const std::vector<int> comm = {2, 0, 3, 1};
  const std::vector<int> nodes_of = {0, 0, 1, 1};
  // One ring, and two topology channels (no rank pair shared between them, so one flow each
  // either way): the engine's arithmetic over channels must match the spelled-out DAG.
  const RingLayout two_channels{2, RingOrder::Topology, {0, 1, 0, 1}};
  for (const RingLayout* layout : {static_cast<const RingLayout*>(nullptr), &two_channels})
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather})
      for (std::uint64_t bytes : {3ull, 5ull << 20})
        for (std::int64_t stagger : {0ll, 7000000ll}) {
          Program implicit =
              build_program(op, CollectiveAlgo::Ring, comm, bytes, 1 << 20, nodes_of, 0, nullptr, layout);
          ASSERT_GT(implicit.ring.steps, 0);
          ASSERT_TRUE(implicit.transfers.empty());
          Program spelled = explicit_program(implicit);
          ASSERT_EQ(spelled.transfers.size(),
                    static_cast<std::size_t>(implicit.ring.channels * implicit.ring.steps) * comm.size());
          auto a = inject(idle_training(2, 2), implicit, stagger), b = inject(idle_training(2, 2), spelled, stagger);
          ASSERT_EQ(a.size(), comm.size()) << op_name(op) << " " << bytes;
          for (int r : comm)
            EXPECT_EQ(a.at(r), b.at(r)) << op_name(op) << " " << bytes << " B, rank " << r << ", stagger " << stagger
                                        << (layout ? ", 2 channels" : "");
        }
}

TEST(Fabric, FlowsBetweenDisjointPairsDoNotInterfere) {
  const std::uint64_t n = 32ull << 20;
  Program pairs{{{0, 1, n, {}}, {2, 3, n, {}}}, {0, 1, 2, 3}};
  Program single{{{0, 1, n, {}}}, {0, 1, 2, 3}};
  double alone = inject(idle_training(4, 1), single).at(0);
  auto both = inject(idle_training(4, 1), pairs);
  EXPECT_NEAR(both.at(0), alone, 1e-9);
  EXPECT_NEAR(both.at(2), alone, 1e-9);
}

json ddp_training(const std::string& strategy) {
  return {{"trainvp", 1},
          {"name", "ddp"},
          {"cluster", {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"model", "gpt2-small"}, {"batch", 4}, {"seq", 1024}}},
          {"training", {{"iterations", 3}, {"warmup", 1}, {"sync", {{"strategy", strategy}}}}},
          {"output", {{"trace", false}}}};
}

json run_training(const json& doc) { return test::simulate(doc); }

TEST(Fabric, DdpBucketsExposeLessCommunicationThanOneAllReduceAfterBackward) {
  json ddp = run_training(ddp_training("ddp")), late = run_training(ddp_training("ddp_no_overlap"));
  EXPECT_GT(ddp["sync"]["buckets"].size(), 2u);
  EXPECT_EQ(late["sync"]["buckets"].size(), 1u);
  double e1 = ddp["exposed_comm_s"].get<double>(), e2 = late["exposed_comm_s"].get<double>();
  // The embedding's gradient (31% of GPT-2 small) is ready last, so even DDP exposes its all-reduce.
  EXPECT_LT(e1, 0.8 * e2) << "ddp exposed " << e1 << " s, ddp_no_overlap " << e2 << " s";
  EXPECT_LT(ddp["iteration_time_s"].get<double>(), late["iteration_time_s"].get<double>());
  // Without overlap every byte of communication is exposed.
  EXPECT_NEAR(late["exposed_comm_s"].get<double>(), late["comm_time_s"].get<double>(), 1e-6);
  EXPECT_GT(ddp["overlap_ratio"].get<double>(), late["overlap_ratio"].get<double>());
}

TEST(Fabric, NoSyncMovesNoBytes) {
  json r = run_training(ddp_training("none"));
  EXPECT_EQ(r["links"].size(), 0u);
  EXPECT_EQ(r["comm_time_s"].get<double>(), 0.0);
}

TEST(Fabric, LeafSpineSpreadsFlowsOverSpinesByEcmp) {
  json doc = bench_scenario(16, 1, "all_reduce", "ring", "64MiB");
  doc["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"leaf_ports", 4}, {"spines", 4}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json["links"].dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  std::set<std::string> spines_used;
  for (auto& l : json::parse(r.value)) {
    std::string name = l["name"];
    auto pos = name.find("spine");
    if (pos != std::string::npos) spines_used.insert(name.substr(pos, 6));
  }
  EXPECT_GE(spines_used.size(), 2u);
}

TEST(Fabric, RailOptimizedPutsNicIOfEveryNodeOnLeafI) {
  json doc = idle_training(4, 4);
  doc["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"rail_optimized", true}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    return sim.fabric().describe()["links"].dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  int rails = 0;
  for (auto& l : json::parse(r.value)) {
    std::string a = l["a"], b = l["b"];
    if (a.find(".nic") == std::string::npos || b.rfind("leaf", 0) != 0) continue;
    EXPECT_EQ(a.substr(a.find(".nic") + 4), b.substr(4)) << a << " - " << b;
    ++rails;
  }
  EXPECT_EQ(rails, 16);
}

// S3's role swap (flow fidelity): once node slots 0 and 1 trade places, rank 0's route leaves
// from node 1's GPU and rank 2's from node 0's; the paths as elaborated stay where they were.
// Packet fidelity refuses: a GPU's chunks leave by its own bound port.
TEST(Fabric, PlacedNodesRouteFromTheNodesTheyMovedTo) {
  json doc = idle_training(4, 2);
  doc["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"leaf_ports", 4}, {"fidelity", "flow"}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    Fabric& f = sim.fabric();
    auto ends = [&](const std::vector<int>& links) {
      return f.devices()[static_cast<std::size_t>(f.dirs()[static_cast<std::size_t>(links.front())].from)].name + ">" +
             f.devices()[static_cast<std::size_t>(f.dirs()[static_cast<std::size_t>(links.back())].to)].name;
    };
    std::string out = ends(f.route(0, 7, 0).links);
    f.place_nodes({1, 0, 2, 3});
    out += " " + ends(f.route(0, 7, 0).links) + " " + ends(f.route(2, 0, 0).links) + " " +
           ends(f.elaborated_path(0, 7, 0));
    out += " " + json(f.node_placement()).dump();
    return out;
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_EQ(r.value,
            "node0.gpu0>node3.gpu1 node1.gpu0>node3.gpu1 node0.gpu0>node1.gpu0 node0.gpu0>node3.gpu1 [1,0,2,3]");

  doc["cluster"]["fabric"]["fidelity"] = "packet";
  auto p = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    try {
      sim.fabric().place_nodes({1, 0, 2, 3});
    } catch (const RunError& e) {
      return std::string(e.what());
    }
    return std::string("moved");
  });
  ASSERT_TRUE(p.ok) << p.value;
  EXPECT_NE(p.value.find("needs fabric.fidelity \"flow\""), std::string::npos) << p.value;
}

TEST(Fabric, BadFabricsAreClearErrors) {
  std::vector<test::BadCase> cases = {
      {"zero bandwidth", [](json& d) { d["cluster"]["fabric"]["link_bw"] = "0Gbps"; }, "/cluster/fabric/link_bw"},
      {"repeated rank",
       [](json& d) {
         d["workload"]["communicator"] = {0, 1, 1};
       },
       "/workload/communicator/2"},
      {"rank out of range",
       [](json& d) {
         d["workload"]["communicator"] = {0, 9};
       },
       "/workload/communicator/1"},
      {"more NICs than switch ports", [](json& d) { d["cluster"]["fabric"]["switch_ports"] = 3; },
       "/cluster/fabric/switch_ports"},
      {"more NICs than GPUs", [](json& d) { d["cluster"]["node"]["nics"] = 2; }, "/cluster/node/nics"},
      {"tree for all_gather", [](json& d) { d["workload"]["op"] = "all_gather", d["workload"]["algorithm"] = "tree"; },
       "/workload/algorithm"},
      {"unknown topology", [](json& d) { d["cluster"]["fabric"]["topology"] = "torus"; }, "/cluster/fabric/topology"},
      {"too few leaves",
       [](json& d) {
         d["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"leaf_ports", 1}, {"leaves", 2}};
       },
       "/cluster/fabric/leaves"},
      {"zero chunk", [](json& d) { d["cluster"]["fabric"]["chunk"] = "0B"; }, "/cluster/fabric/chunk"},
      {"min above max",
       [](json& d) {
         d["workload"].erase("bytes"), d["workload"]["min_bytes"] = "2MiB", d["workload"]["max_bytes"] = "1MiB";
       },
       "/workload/max_bytes"},
  };
  test::expect_load_errors(bench_scenario(4, 1, "all_reduce", "ring", "1MiB"), cases);
}

}  // namespace test_fabric
}  // namespace trainvp

namespace trainvp {
namespace test_fabric {

TEST(Fabric, CollectivesSmallerThanTheRankCountComplete) {
  // 3 bytes over 8 ranks: most ring segments are empty, and empty transfers complete at once.
  for (const char* algo : {"ring", "tree", "hierarchical"}) {
    json doc = bench_scenario(2, 4, "all_reduce", algo, "3B");
    double t = bench_time(doc);
    EXPECT_GT(t, 0) << algo;
    EXPECT_LT(t, 1e-3) << algo;
  }
}

TEST(Fabric, EveryCollectiveOfTheBenchmarkRunsOverEveryAlgorithmItSupports) {
  for (const char* op : {"reduce_scatter", "all_gather", "broadcast", "sendrecv"})
    EXPECT_GT(bench_time(bench_scenario(2, 2, op, "ring", "8MiB")), 0) << op;
  // A broadcast pipelines chunks down a chain: about n/beta plus a latency per hop, not p x n/beta.
  double t = bench_time(bench_scenario(4, 1, "broadcast", "ring", "64MiB"));
  double once = 64.0 * 1048576 * (1 + kFraming / kMtu) * 8 / kEthBps;
  EXPECT_LT(t, 1.2 * once);
  EXPECT_GT(t, once);
}

TEST(Fabric, DescribeTopologyNamesEveryDeviceAndLink) {
  json doc = idle_training(2, 8);
  doc["cluster"]["fabric"] = {{"topology", "leaf-spine"}, {"rail_optimized", true}, {"spines", 2}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    return sim.fabric().describe().dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  json t = json::parse(r.value);
  std::set<std::string> names;
  for (auto& d : t["devices"]) names.insert(d["name"].get<std::string>());
  for (const char* n :
       {"node0.gpu0", "node1.gpu7", "node0.nic3", "node1.nvswitch", "node0.pcie3", "node0.cpu", "leaf7", "spine1"})
    EXPECT_TRUE(names.count(n)) << n;
  // Per node: 8 NVLink + 4 PCIe uplinks + 8 GPU PCIe + 8 NIC PCIe links; 16 NIC links; 8 leaves x 2 spines.
  EXPECT_EQ(t["links"].size(), 2u * (8 + 4 + 8 + 8) + 16 + 8 * 2);
  bool found = false;
  for (auto& l : t["links"]) found |= l["name"] == "link:node1.nic2-leaf2";
  EXPECT_TRUE(found);
  EXPECT_EQ(t["gpus"][10]["nic"], "node1.nic2");
}

}  // namespace test_fabric
}  // namespace trainvp
