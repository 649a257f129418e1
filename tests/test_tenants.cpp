// Fail-slow from another tenant (docs/jobs.md#checkpoint-jobs, docs/health.md#with-jobs): a
// checkpoint job's bursts go through the fabric's own queues at the closed-form rate; where they
// share a leaf's uplink with a training job's ring, the ring runs at the uplink's shared rate; the
// training job's own monitor finds the slowdown, names an edge over the shared uplink, and the
// score matches it to the neighbour's bursts, not to a fault (none was injected).
//
// 8 nodes x 1 H100 with one 400 Gbit/s NIC, on a leaf-spine of 4-port leaves and one spine,
// oversubscribed 4:1, so each leaf's uplink carries 400 Gbit/s: nodes 0-3 hang off leaf 0, nodes
// 4-7 off leaf 1. Flow fidelity: max-min fair sharing, so shared rates are exact fractions.
#include <gtest/gtest.h>

#include <string>

#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_tenants {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;

constexpr double kLayerBytes = 256.0 * 1048576;  // one fp32 layer of 64 Mi parameters: one DDP bucket
constexpr int kLayers = 4, kRanks = 4;
constexpr double kGiB = 1024.0 * 1048576;

// A DDP job of 4 layers (4 buckets, 4 all-reduces an iteration after the backward), `compute`
// per layer and pass.
json training(const json& placement, int iterations, const char* compute = "2ms") {
  json layers = json::array();
  for (int i = 0; i < kLayers; ++i)
    layers.push_back({{"name", "l" + std::to_string(i)},
                      {"params", 67108864},
                      {"fwd_time", compute},
                      {"bwd_input_time", "0us"},
                      {"bwd_weight_time", compute}});
  return {
      {"name", "a"},
      {"placement", placement},
      {"workload", {{"batch", 1}, {"grad_dtype", "fp32"}, {"layers", layers}}},
      {"training",
       {{"iterations", iterations}, {"warmup", 1}, {"sync", {{"strategy", "ddp_no_overlap"}, {"bucket", "256MiB"}}}}}};
}

json checkpoint(const json& nodes, const json& storage, const char* bytes, const char* period, int bursts,
                const char* start) {
  return {{"name", "ckpt"},
          {"kind", "checkpoint"},
          {"placement", {{"nodes", nodes}}},
          {"start", start},
          {"checkpoint", {{"bytes", bytes}, {"period", period}, {"bursts", bursts}, {"storage", storage}}}};
}

json scenario(json jobs) {
  return {{"trainvp", 1},
          {"cluster",
           {{"nodes", 8},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric",
             {{"topology", "leaf-spine"},
              {"leaf_ports", 4},
              {"spines", 1},
              {"oversubscription", 4},
              {"fidelity", "flow"},
              {"nccl", {{"model", "bound"}}}}}}},
          {"jobs", std::move(jobs)},
          {"output", {{"trace", false}, {"collectives", false}}}};
}

// A ring all-reduce of one bucket over 4 ranks whose slowest hop runs at `beta`.
double ring(double beta) { return 2.0 * (kRanks - 1) * (alpha_between_nodes() + kLayerBytes / kRanks / beta); }

TEST(Tenants, ACheckpointBurstAloneRunsAtTheNicRateThroughTheSpine) {
  // Node 2 writes 4 GiB to storage node 6 (across the spine) twice, 100 ms apart; the training
  // job on nodes 0-1 shares no link with it.
  const json r = simulate(scenario({training({{"nodes", json::array({0, 1})}}, 4),
                                    checkpoint(json::array({2}), json::array({6}), "4GiB", "100ms", 2, "1ms")}));
  const json& c = r["jobs"][1];
  EXPECT_EQ(c["kind"], "checkpoint");
  EXPECT_EQ(c["storage"], json::array({6}));
  ASSERT_EQ(c["bursts"].size(), 2u);
  const double burst = 4 * kGiB / eth_beta() + alpha_between_nodes();
  for (const json& b : c["bursts"])
    EXPECT_NEAR(b["end_s"].get<double>() - b["start_s"].get<double>(), burst, 0.005 * burst);
  EXPECT_NEAR(c["bursts"][0]["start_s"].get<double>(), 1e-3, 1e-12);
  EXPECT_NEAR(c["bursts"][1]["start_s"].get<double>(), 0.101, 1e-12);  // a period after the first
  // The checkpoint job's GPUs compute nothing; its nodes are its own.
  EXPECT_EQ(r["ranks"][2]["job"], "ckpt");
  EXPECT_EQ(r["ranks"][6]["job"], "ckpt");
  EXPECT_TRUE(r["ranks"][7]["job"].is_null());
}

TEST(Tenants, ABurstLongerThanItsPeriodDelaysTheNext) {
  const json r = simulate(scenario({training({{"nodes", json::array({0, 1})}}, 4),
                                    checkpoint(json::array({2}), json::array({6}), "4GiB", "10ms", 2, "0s")}));
  const json& b = r["jobs"][1]["bursts"];
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1]["start_s"], b[0]["end_s"]);
}

// Job a spread over nodes 0, 1, 4 and 5: its ring 0 -> 1 -> 4 -> 5 -> 0 crosses leaf 0's uplink
// on the edge 1 -> 4. Nodes 2 and 3 write to storage nodes 6 and 7 through the same uplink: three
// flows share its 400 Gbit/s, so while both write, every ring step waits for a hop at beta / 3.
// 25 ms of compute per layer and pass: an iteration of 0.2 s of compute and 33 ms of all-reduce
// alone (the monitor's link probes then mostly meet the neighbour, not the job's own rings).
json neighbours(bool with_health) {
  json a = training({{"nodes", json::array({0, 1, 4, 5})}}, 80, "25ms");
  if (with_health) a["health"] = json::object();
  return scenario({a, checkpoint(json::array({2, 3}), json::array({6, 7}), "256GiB", "60s", 1, "3s")});
}

double comm_of(const json& it) { return it["comm_s"].get<double>(); }

TEST(Tenants, ANeighboursBurstsOnASharedUplinkHoldTheRingAtAThirdOfItsRate) {
  const json r = simulate(neighbours(false));
  const json& its = r["jobs"][0]["iterations"];
  const json& burst = r["jobs"][1]["bursts"][0];
  const double b0 = burst["start_s"], b1 = burst["end_s"];
  int alone = 0, shared = 0;
  for (const json& it : its) {
    if (it["warmup"].get<bool>()) continue;
    const double s = it["start_s"], e = it["end_s"];
    if (e < b0) {  // before the burst: the ring at the NIC rate, four buckets
      EXPECT_NEAR(comm_of(it), kLayers * ring(eth_beta()), 0.01 * kLayers * ring(eth_beta()));
      ++alone;
    } else if (s > b0 && e < b1) {  // inside it: each bucket's ring held at a third
      EXPECT_NEAR(comm_of(it), kLayers * ring(eth_beta() / 3), 0.02 * kLayers * ring(eth_beta() / 3));
      ++shared;
    }
  }
  EXPECT_GE(alone, 5);
  EXPECT_GE(shared, 5);
}

TEST(Tenants, TheJobsMonitorBlamesTheSharedUplinkAndTheScoreMatchesTheNeighbour) {
  const json r = simulate(neighbours(true));
  const json& h = r["jobs"][0]["health"];
  ASSERT_GE(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "communication");
  ASSERT_GE(d["links"].size(), 1u) << d.dump(1);
  EXPECT_EQ(d["links"][0]["src_rank"], 1);  // the ring's hop up leaf 0's uplink
  EXPECT_EQ(d["links"][0]["dst_rank"], 4);
  EXPECT_TRUE(d["fault"].is_null());  // no fault was injected
  EXPECT_EQ(d["neighbour"], "ckpt");
  const double b0 = r["jobs"][1]["bursts"][0]["start_s"];
  EXPECT_GE(d["change_s"].get<double>(), b0 - 0.2);
  EXPECT_EQ(h["neighbours"][0]["job"], "ckpt");
  EXPECT_TRUE(h["neighbours"][0]["detected"].get<bool>());
  EXPECT_EQ(h["score"]["neighbours_detected"], 1);
  EXPECT_EQ(h["score"]["false_positives"], 0);
  EXPECT_EQ(h["score"]["precision"], 1.0);
  EXPECT_EQ(h["score"]["faults_applied"], 0);
  // The job's own degraded-throughput report sees the slow stretch.
  EXPECT_GT(r["jobs"][0]["degradation"]["iterations_below_slo"].get<int>(), 0);
}

TEST(Tenants, ATrainingNeighbourOnTheSameUplinkIsMatchedToo) {
  // Job b spread over nodes 2, 3, 6 and 7 crosses leaf 0's uplink on its edge 3 -> 6 from 3 s on,
  // all-reducing almost all the time (1 ms of compute per layer and pass).
  json a = training({{"nodes", json::array({0, 1, 4, 5})}}, 80, "25ms");
  a["health"] = json::object();
  json b = training({{"nodes", json::array({2, 3, 6, 7})}}, 400, "1ms");
  b["name"] = "b";
  b["start"] = "3s";
  const json r = simulate(scenario({a, b}));
  const json& h = r["jobs"][0]["health"];
  ASSERT_GE(h["diagnoses"].size(), 1u) << h.dump(1);
  EXPECT_EQ(h["diagnoses"][0]["cause"], "communication");
  EXPECT_EQ(h["diagnoses"][0]["neighbour"], "b");
  EXPECT_EQ(h["neighbours"][0]["kind"], "training");
}

// Two monitors on one engine: job b on leaf 2 (nodes 8-11) shares no link with the checkpoint, so
// its own monitor sees steady iterations and diagnoses nothing, while job a's finds the burst.
TEST(Tenants, EachJobsMonitorWatchesOnlyItsOwnRanks) {
  json a = training({{"nodes", json::array({0, 1, 4, 5})}}, 80, "25ms");
  a["health"] = json::object();
  json b = training({{"nodes", json::array({8, 9, 10, 11})}}, 80, "25ms");
  b["name"] = "b";
  b["health"] = json::object();
  json doc = scenario({a, b, checkpoint(json::array({2, 3}), json::array({6, 7}), "256GiB", "60s", 1, "3s")});
  doc["cluster"]["nodes"] = 12;
  const json r = simulate(doc);
  const json& ha = r["jobs"][0]["health"];
  const json& hb = r["jobs"][1]["health"];
  EXPECT_EQ(ha["diagnoses"][0]["neighbour"], "ckpt") << ha.dump(1);
  EXPECT_EQ(hb["detector"]["period_calls"], ha["detector"]["period_calls"]);  // its own calls, as a's
  EXPECT_TRUE(hb["detector"]["changes"].empty()) << hb.dump(1);
  EXPECT_TRUE(hb["diagnoses"].empty());
  // b's neighbours are a and the checkpoint job, neither seen: neither slowed it.
  ASSERT_EQ(hb["neighbours"].size(), 2u);
  EXPECT_FALSE(hb["neighbours"][0]["detected"].get<bool>());
  // b's ring stays inside leaf 2: every measured iteration at the closed form.
  for (const json& it : r["jobs"][1]["iterations"]) {
    if (!it["warmup"].get<bool>()) {
      EXPECT_NEAR(comm_of(it), kLayers * ring(eth_beta()), 0.01 * kLayers * ring(eth_beta()));
    }
  }
}

// Twelve nodes: leaf 2 (nodes 8-11) is held by no job. The ladder's S4 restarts job a there,
// away from the leaves its slow edges cross, and from then on its ring runs inside leaf 2 at the
// NIC rate while the neighbour still writes.
TEST(Tenants, S4RestartsTheJobOnSpareNodesAwayFromTheCongestedLeavesAndItRunsAtTheNicRateAgain) {
  json a = training({{"nodes", json::array({0, 1, 4, 5})}}, 200, "25ms");
  a["health"] = {{"mitigation",
                  {{"policy", "ladder"},
                   {"steps", {"s1", "s2", "s4"}},
                   {"rebalance_pause", "1s"},
                   {"checkpoint_save", "1s"},
                   {"restart", "1s"}}}};
  json doc = scenario({a, checkpoint(json::array({2, 3}), json::array({6, 7}), "2TiB", "600s", 1, "3s")});
  doc["cluster"]["nodes"] = 12;
  const json r = simulate(doc);
  const json& m = r["jobs"][0]["health"]["mitigation"];
  const json& actions = m["actions"];
  ASSERT_FALSE(actions.empty());
  const json& s4 = actions.back();
  ASSERT_EQ(s4["step"], "s4") << m.dump(1);
  EXPECT_EQ(s4["moved_to_spares"], json::array({8, 9, 10, 11}));
  EXPECT_EQ(s4["pause_s"], 2.0);
  EXPECT_EQ(m["node_placement"], json::array({8, 9, 2, 3, 10, 11, 6, 7, 0, 1, 4, 5}));
  // After the restart, every iteration that ends before the burst does: the ring inside leaf 2.
  const double burst_end = r["jobs"][1]["bursts"][0]["end_s"];
  const int after = s4["after_iteration"].get<int>() + 2;
  int checked = 0;
  for (const json& it : r["jobs"][0]["iterations"]) {
    if (it["index"].get<int>() < after || it["end_s"].get<double>() > burst_end) continue;
    EXPECT_NEAR(comm_of(it), kLayers * ring(eth_beta()), 0.01 * kLayers * ring(eth_beta()));
    ++checked;
  }
  EXPECT_GE(checked, 10);
  EXPECT_EQ(r["jobs"][0]["health"]["diagnoses"][0]["neighbour"], "ckpt");
}

}  // namespace test_tenants
}  // namespace trainvp
