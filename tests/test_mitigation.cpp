// Mitigation in the loop (docs/health.md#mitigation), on the monitor's diagnoses: the ladder
// observes (S1) until the loss paid reaches S2's cost, then splits the samples so the slowest
// replica is fastest (the iteration then takes healthy x 9/8: a healthy replica holds 9 of 8), and
// returns to the even split once the GPU probes healthy; a restart (S4) pauses the job for its
// checkpoint and restart and replaces the slow node, after which the iteration is healthy again
// while the fault is still on; the oracle splits at the fault's start; S3 moves two slow
// replicas' nodes into one.
#include <gtest/gtest.h>

#include <string>

#include "tests/simulate.hpp"

namespace trainvp {
namespace test_mitigation {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

// As tests/test_health.cpp: 2 nodes x 4 H100, DDP over 4 layers in 4 buckets, ~0.62 s
// iterations, batch 8 per GPU (64 samples per iteration); node1.gpu2 (rank 6) at 0.8 from 12 s.
json scenario(const json& mitigation, const std::string& duration = "30s", int iterations = 80) {
  json layers = json::array();
  for (int i = 0; i < 4; ++i)
    layers.push_back({{"name", "block" + std::to_string(i)},
                      {"params", 100000000},
                      {"fwd_flops", 2e13},
                      {"bwd_flops", 4e13},
                      {"kernels", 2000}});
  return {{"trainvp", 1},
          {"name", "mitigation-test"},
          {"cluster",
           {{"nodes", 2},
            {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"link_bw", "100Gbps"}}}}},
          {"workload", {{"layers", layers}, {"batch", 8}}},
          {"training",
           {{"iterations", iterations},
            {"warmup", 1},
            {"sync", {{"strategy", "ddp"}, {"bucket", "150MiB"}, {"algorithm", "ring"}}}}},
          {"faults", json::array({{{"kind", "gpu_slowdown"},
                                   {"target", "node1.gpu2"},
                                   {"factor", 0.8},
                                   {"start", "12s"},
                                   {"duration", duration}}})},
          {"health", {{"mitigation", mitigation}}},
          {"output", {{"trace", false}}}};
}

// The iteration that starts first at or after t.
const json& iteration_after(const json& r, double t) {
  for (const json& it : r["iterations"])
    if (it["start_s"].get<double>() >= t) return it;
  throw std::runtime_error("no iteration after " + std::to_string(t));
}

TEST(Mitigation, TheLadderObservesUntilTheLossPaysForS2ThenSplitsAndReturnsWhenTheGpuProbesHealthy) {
  const json r = test::simulate(scenario({{"policy", "ladder"}, {"rebalance_pause", "0.5s"}}));
  const json& h = r["health"];
  const json& acts = h["mitigation"]["actions"];
  ASSERT_EQ(acts.size(), 3u) << h["mitigation"].dump(1);
  EXPECT_EQ(acts[0]["step"], "s1");
  EXPECT_EQ(acts[0]["at_s"], h["diagnoses"][0]["diagnosed_s"]);
  // S2 when the loss since S1, summed per iteration as slow - healthy, first reaches 0.5 s: not an
  // iteration early (the loss is below it one iteration's excess before).
  const double healthy = h["detector"]["changes"][0]["before_s"], slow = h["detector"]["changes"][0]["after_s"];
  EXPECT_EQ(acts[1]["step"], "s2");
  EXPECT_GE(acts[1]["loss_s"].get<double>(), 0.5);
  EXPECT_LT(acts[1]["loss_s"].get<double>(), 0.5 + (slow - healthy) + 1e-9);
  EXPECT_EQ(acts[1]["pause_s"], 0.5);
  // 64 samples: rank 6 (1.25x slower per sample) gets 7, one healthy rank 9, the rest 8; the
  // slowest replica is then a healthy one with 9 samples: compute x 9/8.
  const json units = acts[1]["units_per_replica"];
  int total = 0;
  for (const json& u : units) total += u.get<int>();
  EXPECT_EQ(total, 64);
  EXPECT_EQ(units[6], 7);
  const json& first = r["iterations"][1];
  const double t0 = first["duration_s"], compute0 = first["compute_s"];
  const json& split = iteration_after(r, acts[1]["at_s"].get<double>() + 3 * t0);
  EXPECT_NEAR(split["duration_s"].get<double>(), t0 + compute0 / 8, 0.01 * t0) << split.dump();
  // The fault ends at 42 s; the next re-check (every 20 iterations) finds the GPU healthy.
  EXPECT_EQ(acts[2]["step"], "s2");
  EXPECT_GT(acts[2]["at_s"].get<double>(), 42.0);
  EXPECT_EQ(acts[2]["units_per_replica"], json(std::vector<int>(8, 8)));
  EXPECT_NEAR(iteration_after(r, acts[2]["at_s"].get<double>() + 3 * t0)["duration_s"].get<double>(), t0, 1e-3 * t0);
}

// Two slow GPUs in two replicas, the second starting as the first ends: S2 splits around both
// once both are diagnosed, and the re-check that finds the first healthy again (the second still
// slow) gives its replica back its share: only the still-slow replica holds fewer samples.
TEST(Mitigation, AReCheckThatFindsOneOfTwoGpusHealthySplitsAroundTheOtherAlone) {
  json s = scenario({{"policy", "ladder"}, {"rebalance_pause", "0.5s"}}, "16s", 120);
  s["faults"].push_back(
      {{"kind", "gpu_slowdown"}, {"target", "node0.gpu1"}, {"factor", 0.5}, {"start", "28s"}, {"duration", "60s"}});
  s["faults"][0]["factor"] = 0.5;
  const json r = test::simulate(s);
  const json& acts = r["health"]["mitigation"]["actions"];
  ASSERT_FALSE(acts.empty());
  const json& last = acts.back();
  EXPECT_EQ(last["step"], "s2") << acts.dump(1);
  EXPECT_GT(last["at_s"].get<double>(), 28.0);
  EXPECT_NE(last["note"].get<std::string>().find("re-probed: 1 of"), std::string::npos) << last.dump();
  // Rank 1 at half speed per sample: its replica holds fewer than 8; rank 6's is back to 8 or more.
  EXPECT_LT(last["units_per_replica"][1].get<int>(), 8);
  EXPECT_GE(last["units_per_replica"][6].get<int>(), 8);
  bool both = false;  // before it, a split around both
  for (const json& a : acts)
    if (a["step"] == "s2" && a["units_per_replica"].size() == 8)
      both = both || (a["units_per_replica"][1].get<int>() < 8 && a["units_per_replica"][6].get<int>() < 8);
  EXPECT_TRUE(both) << acts.dump(1);
}

// A split held through a long fault: once a re-check has found the GPU slow after the fault's
// start, fast-forward skips over the later re-checks (each would find it slow again and do
// nothing) up to the fault's end; the first re-check after it, simulated, finds the GPU healthy.
// Every action, the score and the iteration time equal those of the full simulation, but for the
// probes' own cost, which a skip does not copy (one GEMM per re-check: under 0.1%).
TEST(Mitigation, FastForwardSkipsTheReChecksWhoseOutcomeIsKnownAndActsAsTheFullSimulation) {
  json on = scenario({{"policy", "ladder"}, {"rebalance_pause", "0.5s"}}, "150s", 320);
  json off = on;
  off["training"]["fast_forward"] = {{"enabled", false}};
  const json a = test::simulate(on), b = test::simulate(off);
  const json &ma = a["health"]["mitigation"], &mb = b["health"]["mitigation"];
  EXPECT_GT(a["fast_forward"]["iterations_skipped"].get<int>(), 150) << a["fast_forward"].dump(1);
  EXPECT_GT(ma["rechecks_fast_forwarded"].get<int>(), 5) << ma.dump(1);
  EXPECT_EQ(mb["rechecks_fast_forwarded"], 0);
  EXPECT_EQ(ma["rechecks"].get<int>() + ma["rechecks_fast_forwarded"].get<int>(), mb["rechecks"].get<int>());
  ASSERT_EQ(ma["actions"].size(), mb["actions"].size()) << ma.dump(1) << mb.dump(1);
  ASSERT_EQ(ma["actions"].size(), 3u) << ma.dump(1);
  for (std::size_t i = 0; i < ma["actions"].size(); ++i) {
    const json &x = ma["actions"][i], &y = mb["actions"][i];
    for (const char* key : {"step", "diagnosis", "units_per_replica", "pause_s", "note"})
      EXPECT_EQ(x.value(key, json()), y.value(key, json())) << key;
    EXPECT_NEAR(x["at_s"].get<double>(), y["at_s"].get<double>(), 1e-3 * y["at_s"].get<double>());
  }
  EXPECT_GT(ma["actions"][2]["at_s"].get<double>(), 162.0);  // the fault's end
  EXPECT_EQ(a["health"]["score"], b["health"]["score"]);
  EXPECT_NEAR(a["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>(),
              1e-3 * b["iteration_time_s"].get<double>());
}

TEST(Mitigation, ARestartPausesForCheckpointAndRestartAndReplacesTheSlowNode) {
  const json r = test::simulate(
      scenario({{"policy", "always_restart"}, {"checkpoint_save", "10s"}, {"restart", "20s"}}, "40s", 70));
  const json& acts = r["health"]["mitigation"]["actions"];
  ASSERT_EQ(acts.size(), 1u) << acts.dump(1);
  EXPECT_EQ(acts[0]["step"], "s4");
  EXPECT_EQ(acts[0]["nodes_replaced"], json::array({1}));
  EXPECT_EQ(acts[0]["pause_s"], 30.0);
  // One iteration holds the 30 s pause; after it the job runs at the healthy pace although the
  // fault (to 52 s) is still on: node 1 was replaced.
  const double t0 = r["iterations"][1]["duration_s"];
  int paused = 0;
  for (const json& it : r["iterations"]) paused += it["duration_s"].get<double>() > 30.0;
  EXPECT_EQ(paused, 1);
  const json& after = iteration_after(r, acts[0]["at_s"].get<double>() + 30.0 + 2 * t0);
  EXPECT_LT(after["start_s"].get<double>(), 52.0);
  EXPECT_NEAR(after["duration_s"].get<double>(), t0, 1e-3 * t0) << after.dump();
}

TEST(Mitigation, TheOracleSplitsAtTheFaultsStartAndEvenlyAtItsEnd) {
  const json r = test::simulate(scenario({{"policy", "oracle"}}, "12s", 60));
  const json& acts = r["health"]["mitigation"]["actions"];
  ASSERT_EQ(acts.size(), 2u) << acts.dump(1);
  EXPECT_EQ(acts[0]["step"], "s2");
  EXPECT_EQ(acts[0]["at_s"], 12.0);
  EXPECT_EQ(acts[0]["units_per_replica"][6], 7);
  EXPECT_EQ(acts[1]["at_s"], 24.0);
  EXPECT_EQ(acts[1]["units_per_replica"], json(std::vector<int>(8, 8)));
}

// Faults a restart in place cannot remove: another tenant's traffic between the job's NICs, and a
// spine link down. The oracle answers them with S1 and no pause; it once restarted for each (the
// checkpoint and restart, 330 s at the defaults) and replaced no node (fuzz-runs campaign 102,
// scenario 1840: 330 s of packet-level congestion simulated per pause, past 200 s of wall time).
TEST(Mitigation, TheOracleDoesNotRestartForWhatARestartCannotReplace) {
  json s = scenario({{"policy", "oracle"}}, "12s", 30);
  s["cluster"]["fabric"] = {{"nccl", {{"model", "bound"}}},
                            {"topology", "leaf-spine"},
                            {"leaf_ports", 4},
                            {"link_bw", "100Gbps"},
                            {"fidelity", "flow"}};
  s["faults"] = json::array({{{"kind", "congestion"},
                              {"source", "node0.nic0"},
                              {"destination", "node1.nic0"},
                              {"rate", "50Gbps"},
                              {"start", "5s"}},
                             {{"kind", "link_down"}, {"target", "spine0"}, {"start", "8s"}, {"duration", "1s"}}});
  const json r = test::simulate(s);
  const json& m = r["health"]["mitigation"];
  ASSERT_EQ(m["actions"].size(), 2u) << m.dump(1);
  for (const json& a : m["actions"]) {
    EXPECT_EQ(a["step"], "s1") << a.dump();
    EXPECT_EQ(a["pause_s"], 0.0) << a.dump();
  }
  EXPECT_EQ(m["paused_s"], 0.0);
  // No iteration holds a restart: none takes a second (healthy: about 0.62 s).
  for (const json& it : r["iterations"]) EXPECT_LT(it["duration_s"].get<double>(), 1.0) << it.dump();
}

// A hybrid job for S3: 4 nodes x 2 H100, GPT-2 small over tp 2 x pp 2 x dp 2 (a node is one TP
// group: node n holds replica n mod 2 of stage n / 2), 4 micro-batches per replica; GPU 0 of
// `slow_a` and of `slow_b` at half speed from 4 s to the end.
json hybrid(const json& mitigation, const std::string& slow_a, const std::string& slow_b) {
  json faults = json::array();
  for (const std::string& n : {slow_a, slow_b})
    faults.push_back({{"kind", "gpu_slowdown"}, {"target", n + ".gpu0"}, {"factor", 0.5}, {"start", "4s"}});
  return {
      {"trainvp", 1},
      {"name", "s3-test"},
      {"cluster",
       // The roofline: these tests' closed forms (S2's and S3's splits, the moved job equal to the
       // placed one) assume two pipeline stages of equal time, which its one efficiency gives and
       // the kernel model's per-shape efficiencies do not (its stage 0 is 6% slower).
       // NVLink at 94% of its line rate (framing 16): at the default 82% the TP traffic tips S2's
       // later re-check of the placed run from 6:2 to 5:3, another valid split, and these tests
       // check that the move equals the placement, not S2's choice.
       {{"nodes", 4},
        {"node",
         {{"gpus", 2},
          {"gpu", {{"preset", "H100-SXM5-80GB"}, {"kernel_model", "roofline"}}},
          {"nvlink", {{"framing", 16}}}}},
        {"fabric",
         {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"link_bw", "100Gbps"}, {"chunk", "64MiB"}}}}},
      {"workload", {{"model", "gpt2-small"}, {"batch", 32}, {"seq", 1024}, {"dtype", "bf16"}}},
      {"training",
       {{"iterations", 120},
        {"warmup", 1},
        {"optimizer", "adam"},
        {"parallel",
         {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"micro_batches", 4}, {"schedule", "1f1b"}, {"overlap_grad_reduce", true}}},
        {"sync", {{"strategy", "ddp"}, {"bucket", "64MiB"}, {"algorithm", "ring"}}}}},
      {"faults", faults},
      {"health", {{"mitigation", mitigation}}},
      {"output", {{"trace", false}}}};
}

// Two half-speed GPUs in replicas 0 and 1 (nodes 0 and 1, stage 0): S2 cannot help (both replicas
// at 2x per micro-batch keep 4 each), so the loss goes on to pay for S3. S3 moves node 0's
// hardware into replica 1's stage 1 (slot 3): replica 1 holds both slow GPUs, replica 0 none. Its
// estimate in closed form: before, max 2 x 4/4 = 2; after, speeds {1, 2} over 8 micro-batches,
// T* = 6 (6 + 3 >= 8; 5 gives 7), so 6 micro-batch times over the healthy 4: 1.5. After the move
// the job runs exactly as one whose slow GPUs were on nodes 1 and 3 from the start, split by S2.
TEST(Mitigation, TopologyAdjustmentConsolidatesTwoSlowReplicasIntoOne) {
  const json moved = test::simulate(hybrid(
      {{"policy", "ladder"}, {"steps", {"s1", "s2", "s3"}}, {"rebalance_pause", "0.2s"}, {"topology_pause", "1s"}},
      "node0", "node1"));
  const json& acts = moved["health"]["mitigation"]["actions"];
  const json* s3 = nullptr;
  for (const json& a : acts)
    if (a["step"] == "s3") s3 = &a;
  ASSERT_NE(s3, nullptr) << acts.dump(1);
  EXPECT_EQ((*s3)["nodes_swapped"], json::parse("[[0, 3]]"));
  EXPECT_EQ((*s3)["pause_s"], 1.0);
  int paused = 0;  // every rank stops at the same boundary: one iteration holds the move's pause
  for (const json& it : moved["iterations"]) paused += it["duration_s"].get<double>() > 1.0;
  EXPECT_EQ(paused, 1);
  EXPECT_LE((*s3)["estimate_before"].get<double>(), 2.0 + 0.01);
  EXPECT_GT((*s3)["estimate_before"].get<double>(), 1.9);
  EXPECT_NEAR((*s3)["estimate_after"].get<double>(), 1.5, 0.02);
  // The split after the move, S2's for speeds {1, 2}: 6 and 2 (T = 6).
  EXPECT_EQ((*s3)["units_per_replica"], json::parse("[6, 2]"));

  const json placed = test::simulate(
      hybrid({{"policy", "ladder"}, {"steps", {"s1", "s2"}}, {"rebalance_pause", "0.2s"}}, "node3", "node1"));
  const json& pacts = placed["health"]["mitigation"]["actions"];
  ASSERT_FALSE(pacts.empty());
  EXPECT_EQ(pacts.back()["units_per_replica"], (*s3)["units_per_replica"]) << pacts.dump(1);
  const double a = moved["iterations"].back()["duration_s"], b = placed["iterations"].back()["duration_s"];
  EXPECT_NEAR(a, b, 1e-6 * b);
  // And it is faster than before the move (the slow steady state, 2x the healthy micro-batches).
  const double before = iteration_after(moved, (*s3)["at_s"].get<double>() - 3 * b)["duration_s"];
  EXPECT_LT(a, before);
  // The score still matches each fault to its diagnosis, wherever the move took it.
  EXPECT_EQ(moved["health"]["score"]["faults_detected"], 2) << moved["health"]["score"].dump(1);
}

// A move that costs no pause is made all the same, at the common boundary.
TEST(Mitigation, TopologyAdjustmentWithoutAPauseStillMoves) {
  const json moved = test::simulate(hybrid(
      {{"policy", "ladder"}, {"steps", {"s1", "s2", "s3"}}, {"rebalance_pause", "0.2s"}, {"topology_pause", "0s"}},
      "node0", "node1"));
  const json placed = test::simulate(
      hybrid({{"policy", "ladder"}, {"steps", {"s1", "s2"}}, {"rebalance_pause", "0.2s"}}, "node3", "node1"));
  const double a = moved["iterations"].back()["duration_s"], b = placed["iterations"].back()["duration_s"];
  EXPECT_NEAR(a, b, 1e-6 * b) << moved["health"]["mitigation"].dump(1);
}

TEST(Mitigation, AnUnknownStepIsRefusedAtItsPointer) {
  try {
    test::simulate(scenario({{"policy", "ladder"}, {"steps", {"s1", "s5"}}}));
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/health/mitigation/steps/1"), std::string::npos) << e.what();
  }
}

}  // namespace test_mitigation
}  // namespace trainvp
