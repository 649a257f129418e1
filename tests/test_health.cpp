// The fail-slow monitor in the loop (docs/health.md), scored against faults it never sees: a
// healthy run raises nothing and its period is the closed form (one call per DDP bucket); a GPU
// 20% slower is found within a few iterations and named as compute on that GPU; a degraded link
// is communication on an edge whose route crosses it, also when it only makes its node's ranks
// late; CPU contention is the host (late kernels
// from a GPU whose GEMMs run at full speed); and with no tracking cost the monitor changes nothing
// it watches.
#include <gtest/gtest.h>

#include <string>

#include "tests/golden_compare/compare.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_health {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

// 2 nodes x 4 H100 on one 100 Gbit/s switch, DDP ring over 4 layers whose 200 MB gradients each
// exceed the 150 MiB bucket cap: 4 buckets, so 4 all-reduces per rank and iteration. Roofline:
// forward 2e13 FLOP and backward 4e13 per layer at 989.4 TFLOP/s x 0.5 (about 40 + 81 ms), so an
// iteration is about 0.5 s.
json scenario(const json& faults, bool health = true) {
  json layers = json::array();
  for (int i = 0; i < 4; ++i)
    layers.push_back({{"name", "block" + std::to_string(i)},
                      {"params", 100000000},
                      {"fwd_flops", 2e13},
                      {"bwd_flops", 4e13},
                      {"kernels", 2000}});
  json doc = {{"trainvp", 1},
              {"name", "health-test"},
              {"cluster",
               {{"nodes", 2},
                {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}}},
                {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"link_bw", "100Gbps"}}}}},
              {"workload", {{"layers", layers}, {"batch", 8}}},
              {"training",
               {{"iterations", 60},
                {"warmup", 1},
                {"sync", {{"strategy", "ddp"}, {"bucket", "150MiB"}, {"algorithm", "ring"}}}}},
              {"faults", faults},
              {"output", {{"trace", false}}}};
  if (health) doc["health"] = json::object();
  return doc;
}

double iteration_s(const json& r) { return r["iteration_time_s"].get<double>(); }

TEST(Health, AHealthyRunRaisesNoDiagnosisAndFindsOneCallPerBucketPerIteration) {
  const json r = test::simulate(scenario(json::array()));
  const json& h = r["health"];
  EXPECT_EQ(h["detector"]["period_calls"], 4);
  EXPECT_GE(h["detector"]["windows"].get<int>(), 50);
  EXPECT_TRUE(h["detector"]["changes"].empty()) << h.dump();
  EXPECT_TRUE(h["diagnoses"].empty());
  EXPECT_EQ(h["score"]["false_positives"], 0);
}

TEST(Health, WithoutTrackingCostTheMonitorChangesNothingItWatches) {
  json on = scenario(json::array());
  on["health"] = {{"detector", {{"tracking_overhead", 0}}}};
  const json a = test::simulate(on), b = test::simulate(scenario(json::array(), false));
  golden::Options opt = golden::default_options();
  opt.ignored = {"/health", "/scenario/health", "/sim", "/fast_forward"};
  for (const auto& d : golden::compare(b, a, opt)) ADD_FAILURE() << d;
}

TEST(Health, TrackingCostsItsFractionOfComputeTime) {
  const json a = test::simulate(scenario(json::array())), b = test::simulate(scenario(json::array(), false));
  const double compute_on = a["compute_time_s"], compute_off = b["compute_time_s"];
  EXPECT_NEAR(compute_on / compute_off, 1.0039, 1e-6);
}

TEST(Health, AGpuTwentyPercentSlowerIsFoundWithinAFewIterationsAndNamedAsCompute) {
  // node1.gpu2 is rank 6, slowed to 0.8 from t = 12 s for 12 s.
  const json r = test::simulate(scenario(json::array(
      {{{"kind", "gpu_slowdown"}, {"target", "node1.gpu2"}, {"factor", 0.8}, {"start", "12s"}, {"duration", "12s"}}})));
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "compute");
  EXPECT_EQ(d["gpus"], json::array({6}));
  EXPECT_EQ(d["fault"], 0);
  // Flagged when the first slow window closes, verified after the second: within 3 iterations
  // of the healthy time (a window may straddle the start).
  const json& f = h["faults"][0];
  EXPECT_TRUE(f["detected"].get<bool>());
  EXPECT_LE(f["change_detection_s"].get<double>(), 3 * 1.25 * iteration_s(r));
  EXPECT_GT(f["validation_s"].get<double>(), 0.0);  // the GEMM probes took time on the platform
  EXPECT_EQ(h["score"]["precision"], 1.0);
  EXPECT_EQ(h["score"]["recall"], 1.0);
  // The end of the slowdown is seen as a recovery, not a second fault.
  const json& changes = h["detector"]["changes"];
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[1]["direction"], "recovery");
}

// One fault ends as a lesser one begins (GREYHOUND's 256-GPU campaign has three such): rank 6 at
// 0.5 for 12 s, then rank 1 at 0.8. The iteration time drops, but stays over 10% above healthy:
// the drop is "still slow", and rank 1 is found against the healthy windows.
TEST(Health, AFaultThatBeginsAsAWorseOneEndsIsFoundAgainstTheHealthyLevel) {
  const json r = test::simulate(scenario(json::array(
      {{{"kind", "gpu_slowdown"}, {"target", "node1.gpu2"}, {"factor", 0.5}, {"start", "8s"}, {"duration", "12s"}},
       {{"kind", "gpu_slowdown"}, {"target", "node0.gpu1"}, {"factor", 0.8}, {"start", "20s"}, {"duration", "60s"}}})));
  const json& h = r["health"];
  const json& changes = h["detector"]["changes"];
  ASSERT_EQ(changes.size(), 2u) << h.dump(1);
  EXPECT_EQ(changes[0]["direction"], "slowdown");
  EXPECT_EQ(changes[1]["direction"], "still slow");
  EXPECT_EQ(changes[1]["before_s"], changes[0]["before_s"]);  // the healthy windows' mean
  ASSERT_EQ(h["diagnoses"].size(), 2u) << h.dump(1);
  EXPECT_EQ(h["diagnoses"][1]["cause"], "compute");
  EXPECT_EQ(h["diagnoses"][1]["gpus"], json::array({1}));
  EXPECT_EQ(h["diagnoses"][1]["fault"], 1);
  EXPECT_EQ(h["score"]["recall"], 1.0);
  EXPECT_EQ(h["score"]["precision"], 1.0);
}

TEST(Health, ADegradedLinkIsCommunicationOnAnEdgeItsRouteCrosses) {
  const json r = test::simulate(scenario(json::array({{{"kind", "link_degrade"},
                                                       {"target", "node1.nic0"},
                                                       {"bandwidth_factor", 0.1},
                                                       {"start", "12s"},
                                                       {"duration", "15s"}}})));
  const json& h = r["health"];
  ASSERT_GE(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "communication");
  ASSERT_FALSE(d["links"].empty()) << d.dump();
  EXPECT_EQ(d["fault"], 0) << d.dump();
  EXPECT_EQ(h["score"]["false_positives"], 0) << h.dump(1);
}

// A NIC at half bandwidth makes its node's ranks late at every collective, which is what a slow
// host looks like to the group comparison (GREYHOUND's 256-GPU campaign: it was diagnosed `cpu`).
// Their GEMMs pass, so the rings they belong to are probed: their own edges are slow against the
// same rings' other edges. 8 nodes x 4 H100 (one NIC per GPU), TP 4 inside a node, DP 8 across.
TEST(Health, ASlowNicWhoseRanksArriveLateIsCommunicationOnTheirEdgesNotTheHost) {
  json doc = scenario(json::array({{{"kind", "link_degrade"},
                                    {"target", "node2.nic*"},
                                    {"bandwidth_factor", 0.5},
                                    {"start", "0.5s"},
                                    {"duration", "1s"}}}));
  doc["cluster"]["nodes"] = 8;
  doc["workload"] = {{"model", "gpt2-small"}, {"batch", 16}, {"seq", 1024}, {"dtype", "bf16"}};
  doc["training"] = {{"iterations", 80},
                     {"warmup", 1},
                     {"parallel", {{"tp", 4}, {"pp", 1}, {"dp", 8}, {"micro_batches", 1}, {"schedule", "gpipe"}}},
                     {"sync", {{"strategy", "ddp"}}}};
  const json r = test::simulate(doc);
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "communication") << d.dump();
  EXPECT_EQ(d["fault"], 0) << d.dump();
  ASSERT_FALSE(d["links"].empty());
  for (const json& l : d["links"]) {  // node 2 holds ranks 8-11
    const int a = l["src_rank"], b = l["dst_rank"];
    EXPECT_TRUE((a >= 8 && a < 12) || (b >= 8 && b < 12)) << l.dump();
  }
  EXPECT_EQ(h["score"]["false_positives"], 0) << h.dump(1);
}

// With NCCL's topology-ordered channels every NIC carries a ring, and the probes follow those
// rings (GREYHOUND probes the edges in use): a NIC that the rank-order ring never crosses (on
// this node, the ring enters at GPU 0 and leaves from GPU 3) is found on a channel's edge, and
// only there: hops between nodes are compared with hops between nodes, not with NVLink hops.
TEST(Health, WithNcclChannelsTheProbesFollowTheChannelsRingsToADegradedNic) {
  json doc = scenario(json::array({{{"kind", "link_degrade"},
                                    {"target", "link:node1.nic2-switch"},
                                    {"bandwidth_factor", 0.1},
                                    {"start", "12s"},
                                    {"duration", "12s"}}}));
  doc["cluster"]["fabric"]["nccl"] = {{"channels", 4}, {"order", "topology"}};
  doc["cluster"]["fabric"]["link_bw"] = "25Gbps";  // communication-bound enough for a 10% change
  const json r = test::simulate(doc);
  const json& h = r["health"];
  ASSERT_FALSE(h["diagnoses"].empty()) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "communication") << d.dump();
  EXPECT_EQ(d["fault"], 0) << d.dump();
  ASSERT_FALSE(d["links"].empty());
  for (const json& l : d["links"]) {  // every slow edge is one of the rail-2 channel's hops through it
    bool crosses = false;
    for (const json& hop : l["route"]) crosses = crosses || hop.get<std::string>() == "link:node1.nic2-switch";
    EXPECT_TRUE(crosses) << l.dump();
  }
  EXPECT_EQ(h["score"]["false_positives"], 0) << h.dump(1);
}

TEST(Health, CpuContentionIsTheHostNotTheGpu) {
  const json r = test::simulate(scenario(json::array({{{"kind", "cpu_contention"},
                                                       {"target", "node0.gpu1"},
                                                       {"launch_factor", 4},
                                                       {"start", "12s"},
                                                       {"duration", "12s"}}})));
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "cpu");
  EXPECT_EQ(d["gpus"], json::array({1}));
  EXPECT_EQ(d["fault"], 0);
}

TEST(Health, InAHybridLayoutASlowGpuIsNamedAndItsOwnProbesAreNotTakenForAChange) {
  // GPT-2 small on 2 x 8 H100, TP 2, PP 2, DP 4, 1F1B over 4 micro-batches (about 16 ms
  // iterations); node1.gpu5 (rank 13) at half speed for 0.3 s. The GEMM probes of its validation
  // take several iterations' time: the windows they disturb are not read, so there is one
  // slowdown and one recovery, not a recovery from the probes.
  json doc = scenario(json::array({{{"kind", "gpu_slowdown"},
                                    {"target", "node1.gpu5"},
                                    {"factor", 0.5},
                                    {"start", "0.3s"},
                                    {"duration", "0.3s"}}}));
  doc["cluster"]["node"]["gpus"] = 8;
  doc["workload"] = {{"model", "gpt2-small"}, {"batch", 4}, {"seq", 1024}, {"dtype", "bf16"}};
  doc["training"] = {{"iterations", 60},
                     {"warmup", 1},
                     {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 4}, {"micro_batches", 4}, {"schedule", "1f1b"}}},
                     {"sync", {{"strategy", "ddp"}}}};
  const json r = test::simulate(doc);
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  EXPECT_EQ(h["diagnoses"][0]["cause"], "compute");
  EXPECT_EQ(h["diagnoses"][0]["gpus"], json::array({13}));
  EXPECT_EQ(h["diagnoses"][0]["fault"], 0);
  EXPECT_GE(h["detector"]["windows_disturbed"].get<int>(), 1);
  const json& changes = h["detector"]["changes"];
  ASSERT_EQ(changes.size(), 2u) << changes.dump(1);
  EXPECT_EQ(changes[0]["direction"], "slowdown");
  EXPECT_EQ(changes[1]["direction"], "recovery");
  EXPECT_GE(changes[1]["change_s"].get<double>(), 0.6 - 2 * iteration_s(r));
}

TEST(Health, WithFastForwardTheSkippedIterationsAreReadAsSteadyWindowsAndTheFindingsAreTheSame) {
  // 300 iterations: after the slowdown ends, fast-forward skips most of the steady rest; the
  // ladder's S1 is taken, and the diagnosis, changes and score equal those of the full run.
  json doc = scenario(json::array(
      {{{"kind", "gpu_slowdown"}, {"target", "node1.gpu2"}, {"factor", 0.8}, {"start", "12s"}, {"duration", "12s"}}}));
  doc["training"]["iterations"] = 300;
  doc["health"]["mitigation"] = {{"policy", "ladder"}};
  json off = doc;
  off["training"]["fast_forward"] = {{"enabled", false}};
  const json a = test::simulate(doc), b = test::simulate(off);
  EXPECT_GT(a["fast_forward"]["iterations_skipped"].get<int>(), 100);
  EXPECT_EQ(a["health"]["detector"]["windows_fast_forwarded"], a["fast_forward"]["iterations_skipped"]);
  EXPECT_EQ(a["health"]["detector"]["windows"], b["health"]["detector"]["windows"]);
  for (const char* key : {"diagnoses", "faults", "score", "mitigation"})
    EXPECT_EQ(a["health"][key], b["health"][key]) << key;
  EXPECT_EQ(a["health"]["detector"]["changes"], b["health"]["detector"]["changes"]);
  EXPECT_NEAR(a["iteration_time_s"].get<double>(), b["iteration_time_s"].get<double>(),
              1e-3 * b["iteration_time_s"].get<double>());
}

TEST(Health, BadDetectorParametersNameTheirPointer) {
  json doc = scenario(json::array());
  doc["health"] = {{"detector", {{"reset_threshold", 1.5}}}};
  try {
    test::simulate(doc);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/health/detector/reset_threshold"), std::string::npos) << e.what();
  }
}

}  // namespace test_health
}  // namespace trainvp
