// A job's own health (docs/health.md#with-jobs) acts exactly as the same training's health without
// `jobs`: S3's role swap and S3's consolidation move the job's own node slots, only those, and the
// job then runs as the same training does. The references are the single-training runs of
// tests/test_s3_role_swap.cpp and tests/test_mitigation.cpp, whose closed forms those tests check.
#include <gtest/gtest.h>

#include <string>

#include "platform/config/document.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_jobs_health {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

// The same training as the only job, on `nodes`, its workload, training, health and slo moved
// into the job.
json as_job(json doc, const json& nodes) {
  json job = {{"name", "a"}, {"placement", {{"nodes", nodes}}}};
  for (const char* key : {"workload", "training", "health", "slo"})
    if (doc.contains(key)) job[key] = doc[key], doc.erase(key);
  doc["jobs"] = json::array({job});
  return doc;
}

const json* s3_action(const json& health) {
  for (const json& a : health["mitigation"]["actions"])
    if (a["step"] == "s3") return &a;
  return nullptr;
}

// s3-role-swap-64gpu.json shortened as in tests/test_s3_role_swap.cpp (leaf 0's uplinks slow from
// 15 s, S3's pause 1 s, 40 iterations), without fast-forward (off with `jobs`).
TEST(JobsHealth, S3sRoleSwapInAJobMovesItsNodesAsTheSameTrainingWithoutJobs) {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/greyhound/s3-role-swap-64gpu.json");
  doc["training"]["iterations"] = 40;
  doc["training"]["fast_forward"] = {{"enabled", false}};
  doc["faults"][0]["start"] = "15s";
  doc["health"]["mitigation"]["topology_pause"] = "1s";
  doc["cluster"]["fabric"]["nccl"]["model"] = "bound";
  doc["training"]["parallel"]["overlap_grad_reduce"] = true;
  const json alone = test::simulate(doc);
  const json r = test::simulate(as_job(doc, json::array({0, 1, 2, 3, 4, 5, 6, 7})));
  const json& job = r["jobs"][0];
  const json *a = s3_action(alone["health"]), *b = s3_action(job["health"]);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr) << job["health"]["mitigation"].dump(1);
  EXPECT_EQ((*b)["move"], "role_swap");
  for (const char* key :
       {"nodes_swapped", "suspect_links", "after_iteration", "suspect_share_before", "suspect_share_after", "at_s"})
    EXPECT_EQ((*b)[key], (*a)[key]) << key;
  EXPECT_EQ(job["health"]["mitigation"]["node_placement"], alone["health"]["mitigation"]["node_placement"]);
  EXPECT_EQ(job["health"]["score"]["faults_detected"], 1);
  ASSERT_EQ(job["iterations"].size(), alone["iterations"].size());
  for (std::size_t i = 0; i < alone["iterations"].size(); ++i) {
    const double x = alone["iterations"][i]["duration_s"], y = job["iterations"][i]["duration_s"];
    EXPECT_NEAR(y, x, 1e-9 * x) << i;
  }
}

// tests/test_mitigation.cpp's hybrid job (4 nodes x 2 H100, GPT-2 small over tp 2 x pp 2 x dp 2,
// GPU 0 of its first two nodes at half speed from 4 s), placed on nodes 2-5 of 6 on one switch:
// S3 consolidates as the job alone does, node slots 2 and 5 (its 0 and 3) exchanging their nodes.
json hybrid(const std::string& slow_a, const std::string& slow_b, int nodes) {
  json faults = json::array();
  for (const std::string& n : {slow_a, slow_b})
    faults.push_back({{"kind", "gpu_slowdown"}, {"target", n + ".gpu0"}, {"factor", 0.5}, {"start", "4s"}});
  return {
      {"trainvp", 1},
      {"name", "s3-test"},
      {"cluster",
       {{"nodes", nodes},
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
        {"fast_forward", {{"enabled", false}}},
        {"parallel",
         {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"micro_batches", 4}, {"schedule", "1f1b"}, {"overlap_grad_reduce", true}}},
        {"sync", {{"strategy", "ddp"}, {"bucket", "64MiB"}, {"algorithm", "ring"}}}}},
      {"faults", faults},
      {"health",
       {{"mitigation",
         {{"policy", "ladder"},
          {"steps", {"s1", "s2", "s3"}},
          {"rebalance_pause", "0.2s"},
          {"topology_pause", "1s"}}}}},
      {"output", {{"trace", false}}}};
}

TEST(JobsHealth, S3sConsolidationInAJobOnLaterNodesExchangesItsOwnSlotsAsTheJobAloneDoes) {
  const json alone = test::simulate(hybrid("node0", "node1", 4));
  const json r = test::simulate(as_job(hybrid("node2", "node3", 6), json::array({2, 3, 4, 5})));
  const json& job = r["jobs"][0];
  const json *a = s3_action(alone["health"]), *b = s3_action(job["health"]);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr) << job["health"]["mitigation"].dump(1);
  EXPECT_EQ((*a)["nodes_swapped"], json::parse("[[0, 3]]"));
  EXPECT_EQ((*b)["nodes_swapped"], json::parse("[[2, 5]]"));  // the same cells, two slots later
  for (const char* key : {"estimate_before", "estimate_after", "units_per_replica", "after_iteration", "at_s"})
    EXPECT_EQ((*b)[key], (*a)[key]) << key;
  EXPECT_EQ(job["health"]["score"]["faults_detected"], 2) << job["health"]["score"].dump(1);
  const double x = alone["iterations"].back()["duration_s"], y = job["iterations"].back()["duration_s"];
  EXPECT_NEAR(y, x, 1e-9 * x);
}

}  // namespace test_jobs_health
}  // namespace trainvp
