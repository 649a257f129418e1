// The flow fidelity (fabric.fidelity "flow") against the closed forms the packet fidelity is held
// to (alpha-beta ring all-reduce, one transfer), faults as capacity changes (degrade, down,
// congestion as a capped flow), link statistics, and shipped scenarios against packet fidelity.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_flow_fidelity {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using namespace test;  // simulate, the closed forms

json bench(int nodes, const std::string& op, const std::string& bytes, const json& faults = json::array()) {
  return {
      {"trainvp", 1},
      {"name", "flow-test"},
      {"cluster",
       {{"nodes", nodes},
        {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
        {"fabric",
         {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"switch_ports", 128}, {"fidelity", "flow"}}}}},
      {"workload",
       {{"kind", "collective"}, {"op", op}, {"algorithm", "ring"}, {"bytes", bytes}, {"iterations", 1}, {"warmup", 0}}},
      {"faults", faults},
      {"output", {{"trace", false}}}};
}

double time_of(const json& results) { return results["collectives"][0]["time_s"].get<double>(); }

std::string mib(double n) { return std::to_string(static_cast<long long>(n)) + "B"; }

TEST(FlowFidelity, SingleTransferTakesLatencyPlusFramedBytesOverBandwidth) {
  for (double n : {1048576.0, 64.0 * 1048576}) {
    const double t = time_of(simulate(bench(2, "sendrecv", mib(n))));
    const double expected = alpha_between_nodes() + n / eth_beta();
    EXPECT_NEAR(t, expected, 1e-3 * expected) << n;
  }
}

TEST(FlowFidelity, RingAllReduceOnOneSwitchMatchesAlphaBeta) {
  for (int p : {2, 4, 16, 64})
    for (double n : {1048576.0, 256.0 * 1048576}) {
      const double t = time_of(simulate(bench(p, "all_reduce", mib(n))));
      const double expected = 2 * (p - 1) * alpha_between_nodes() + 2.0 * (p - 1) / p * n / eth_beta();
      EXPECT_NEAR(t, expected, 0.01 * expected) << "p=" << p << " n=" << n;
    }
}

// Two ranks: each step sends n/2 each way; degrading node0's link to half slows both (one way in,
// one way out). The slower link's packet time is the flow's own, so alpha does not move.
TEST(FlowFidelity, ADegradedLinkHalvesTheRingsRate) {
  const double n = 256.0 * 1048576;
  const json degrade =
      json::array({{{"kind", "link_degrade"}, {"target", "link:node0.nic0-switch"}, {"bandwidth_factor", 0.5}}});
  const double t = time_of(simulate(bench(2, "all_reduce", mib(n), degrade)));
  const double expected = 2 * (alpha_between_nodes() + n / 2 / (eth_beta() / 2));
  EXPECT_NEAR(t, expected, 1e-3 * expected);
}

// Added latency on a link, from 10 us (during the first of two back-to-back transfers): the first
// keeps the latency it started with, the second pays 10 us more. Each route caches its flows' path
// latency (Route::flow_latency_ps); a link's change must reach the transfers that start after it.
TEST(FlowFidelity, AddedLatencyReachesTransfersThatStartAfterIt) {
  const double n = 1048576.0;
  json s = bench(2, "sendrecv", mib(n),
                 json::array({{{"kind", "link_degrade"},
                               {"target", "link:node0.nic0-switch"},
                               {"added_latency", "10us"},
                               {"start", "10us"}}}));
  s["workload"]["iterations"] = 2;
  const json r = simulate(s);
  const double expected = alpha_between_nodes() + n / eth_beta();
  ASSERT_GT(expected, 10e-6);             // the fault starts while the first transfer is in flight
  const json& row = r["collectives"][0];  // the size's row: the fastest and slowest of its iterations
  EXPECT_NEAR(row["min_time_s"].get<double>(), expected, 1e-3 * expected);
  EXPECT_NEAR(row["max_time_s"].get<double>(), expected + 10e-6, 1e-3 * expected);
}

// A link down from the start for 1 ms (one switch: no way around): the flows wait, then go on.
TEST(FlowFidelity, ALinkDownHoldsTheFlowsUntilItComesBack) {
  const double n = 64.0 * 1048576, d = 1e-3;
  const json down = json::array(
      {{{"kind", "link_down"}, {"target", "link:node0.nic0-switch"}, {"start", "0s"}, {"duration", "1ms"}}});
  const double t = time_of(simulate(bench(2, "all_reduce", mib(n), down)));
  const double expected = d + 2 * (alpha_between_nodes() + n / 2 / eth_beta());
  EXPECT_NEAR(t, expected, 1e-3 * expected);
}

// Two ranks; 100 Gbit/s of cross-traffic each way between the two NICs shares both network links
// of each of the ring's flows, which get the rest of those links (the capped flow keeps its cap).
TEST(FlowFidelity, CongestionIsACappedFlowThatLeavesTheRestToTheRing) {
  const double n = 256.0 * 1048576, bg = 100e9 / 8;
  const json congestion = json::array(
      {{{"kind", "congestion"}, {"source", "node0.nic0"}, {"destination", "node1.nic0"}, {"rate", "100Gbps"}},
       {{"kind", "congestion"}, {"source", "node1.nic0"}, {"destination", "node0.nic0"}, {"rate", "100Gbps"}}});
  const json r = simulate(bench(2, "all_reduce", mib(n), congestion));
  const double t = time_of(r);
  const double expected = 2 * (alpha_between_nodes() + n / 2 / (eth_beta() - bg));
  EXPECT_NEAR(t, expected, 1e-3 * expected);
  const double run = r["sim"]["simulated_s"].get<double>();
  for (const json& f : r["faults"]) EXPECT_NEAR(f["sent_bytes"].get<double>(), bg * run, 1e-3 * bg * run);
}

TEST(FlowFidelity, LinksReportBytesAndBusyTimeButNoQueues) {
  const double n = 256.0 * 1048576;
  const json r = simulate(bench(2, "all_reduce", mib(n)));
  bool found = false;
  for (const json& l : r["links"]) {
    if (l["name"] != "node0.nic0->switch") continue;
    found = true;
    EXPECT_EQ(l["bytes"].get<double>(), n);  // two steps of n / 2
    EXPECT_NEAR(l["busy_s"].get<double>(), n / eth_beta(), 1e-6 * n / eth_beta());
    EXPECT_FALSE(l.contains("peak_queue_bytes"));
    EXPECT_FALSE(l.contains("paused_s"));
  }
  EXPECT_TRUE(found);
}

TEST(FlowFidelity, NodesWithACxlDeviceNeedPacketFidelity) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/cxl/pcie-node-ring-vs-cxl.json");
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str());
  doc["cluster"]["fabric"]["fidelity"] = "flow";
  try {
    load_scenario(doc, "t");
    ADD_FAILURE() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/cluster/fabric/fidelity") << e.what();
  }
}

// Shipped scenarios at both fidelities: the flow model's time within 3% of the packet model's
// (docs/fabric.md#flow-fidelity has the whole table, bench/fidelity.sh).
json shipped(const std::string& rel, bool flow) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/" + rel);
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str());
  if (flow) doc["cluster"]["fabric"]["fidelity"] = "flow";
  doc["output"]["trace"] = false;
  return simulate(doc);
}

TEST(FlowFidelity, ShippedScenariosAgreeWithPacketFidelityWithinThreePercent) {
  for (const char* rel : {"collectives/allreduce-8.json", "collectives/allgather-64-ring.json"}) {
    const json p = shipped(rel, false), f = shipped(rel, true);
    ASSERT_EQ(p["collectives"].size(), f["collectives"].size());
    for (std::size_t k = 0; k < p["collectives"].size(); ++k) {
      const double tp = p["collectives"][k]["time_s"], tf = f["collectives"][k]["time_s"];
      EXPECT_NEAR(tf, tp, 0.03 * tp) << rel << " size " << p["collectives"][k]["bytes"];
    }
  }
  for (const char* rel : {"quickstart.json", "clusters/gpt2xl-8node-ddp.json"}) {
    const double tp = shipped(rel, false)["iteration_time_s"], tf = shipped(rel, true)["iteration_time_s"];
    EXPECT_NEAR(tf, tp, 0.03 * tp) << rel;
  }
}

}  // namespace test_flow_fidelity
}  // namespace trainvp
