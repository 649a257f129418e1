// /jobs (platform/config/jobs.hpp): placement of whole nodes by count and policy or by list, each
// job's sections loaded as the top level's with errors named under /jobs/N, and what a job may
// not hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {
namespace test_jobs {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// 8 nodes x 1 GPU with one NIC each on a leaf-spine of 4-port leaves: nodes 0-3 hang off leaf 0,
// nodes 4-7 off leaf 1.
json two_jobs(const char* placement_a, const char* placement_b) {
  json d = json::parse(R"({
    "trainvp": 1, "name": "jobs",
    "cluster": { "nodes": 8, "node": { "gpus": 1, "gpu": "H100-SXM5-80GB" },
                 "fabric": { "topology": "leaf-spine", "leaf_ports": 4, "spines": 1 } },
    "jobs": [
      { "name": "a", "workload": { "model": "gpt2", "batch": 1, "seq": 128 }, "training": { "iterations": 3 } },
      { "name": "b", "workload": { "model": "gpt2", "batch": 1, "seq": 128 }, "training": { "iterations": 4 }, "start": "5ms" }
    ]
  })");
  d["jobs"][0]["placement"] = json::parse(placement_a);
  d["jobs"][1]["placement"] = json::parse(placement_b);
  return d;
}

std::string error_path(const json& doc) {
  try {
    load_scenario(doc, "t");
  } catch (const ScenarioError& e) {
    return e.path;
  }
  return "(loaded)";
}

TEST(JobsConfig, PackedTakesTheLowestFreeNodesSoEachJobFillsALeaf) {
  Scenario s = load_scenario(two_jobs(R"({"nodes": 4})", R"({"nodes": 4})"), "t");
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.jobs[1].nodes, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(s.jobs[1].ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(s.jobs[1].start_ps, 5'000'000'000);
  EXPECT_EQ(s.jobs[1].scenario->training.iterations, 4);
  EXPECT_EQ(s.resolved["jobs"][0]["placement"]["placed"], json({0, 1, 2, 3}));
}

TEST(JobsConfig, SpreadTakesOneNodePerLeafInTurn) {
  Scenario s =
      load_scenario(two_jobs(R"({"nodes": 4, "policy": "spread"})", R"({"nodes": 3, "policy": "spread"})"), "t");
  EXPECT_EQ(s.jobs[0].nodes, (std::vector<int>{0, 1, 4, 5}));  // leaf 0, leaf 1, leaf 0, leaf 1
  EXPECT_EQ(s.jobs[1].nodes, (std::vector<int>{2, 3, 6}));
  EXPECT_EQ(placement_group(s.cluster, 3), 0);
  EXPECT_EQ(placement_group(s.cluster, 4), 1);
}

TEST(JobsConfig, ListedNodesAreTakenAsGivenAndTheNextJobPlacesAroundThem) {
  Scenario s = load_scenario(two_jobs(R"({"nodes": [6, 1]})", R"({"nodes": 2})"), "t");
  EXPECT_EQ(s.jobs[0].nodes, (std::vector<int>{1, 6}));
  EXPECT_TRUE(s.jobs[0].explicit_nodes);
  EXPECT_EQ(s.jobs[1].nodes, (std::vector<int>{0, 2}));
}

TEST(JobsConfig, EachBadPlacementNamesItsPointer) {
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": [1, 2]})", R"({"nodes": [2]})")), "/jobs/1/placement/nodes/0");
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": 6})", R"({"nodes": 3})")), "/jobs/1/placement/nodes");
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": [8]})", R"({"nodes": 1})")), "/jobs/0/placement/nodes/0");
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": 0})", R"({"nodes": 1})")), "/jobs/0/placement/nodes");
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": [0], "policy": "spread"})", R"({"nodes": 1})")),
            "/jobs/0/placement/policy");
  EXPECT_EQ(error_path(two_jobs(R"({"nodes": 1, "policy": "scattered"})", R"({"nodes": 1})")),
            "/jobs/0/placement/policy");
  EXPECT_EQ(error_path(two_jobs(R"({})", R"({"nodes": 1})")), "/jobs/0/placement/nodes");
}

TEST(JobsConfig, AJobsOwnSectionsReportTheirErrorsUnderTheJob) {
  json d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][1]["training"]["iterations"] = "many";
  EXPECT_EQ(error_path(d), "/jobs/1/training/iterations");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][0]["workload"]["bacth"] = 2;
  EXPECT_EQ(error_path(d), "/jobs/0/workload/bacth");
  try {
    load_scenario(d, "t");
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/jobs/0/workload/bacth: unknown key", 0), 0u) << e.what();
  }
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][1]["name"] = "a";
  EXPECT_EQ(error_path(d), "/jobs/1/name");
}

TEST(JobsConfig, WhatAJobMayNotHoldIsRefusedWithItsReason) {
  json d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][0]["training"] = {{"iterations", 10}, {"sync", {{"strategy", "dreamddp"}}}};
  EXPECT_EQ(error_path(d), "/jobs/0/training/sync/strategy");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][1]["workload"] = {{"kind", "collective"}, {"op", "all_reduce"}, {"bytes", "1MiB"}};
  EXPECT_EQ(error_path(d), "/jobs/1/workload/kind");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["workload"] = {{"model", "gpt2"}};
  EXPECT_EQ(error_path(d), "/workload");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["health"] = json::object();
  EXPECT_EQ(error_path(d), "/health");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"] = json::array();
  EXPECT_EQ(error_path(d), "/jobs");
  d.erase("jobs");
  EXPECT_EQ(error_path(d), "/workload");
}

TEST(JobsConfig, AJobsParallelLayoutCountsItsOwnGpus) {
  // 3 nodes x 1 GPU: tp 1 x pp 3 x dp 1 fits job a's three nodes, not the cluster's eight.
  json d = two_jobs(R"({"nodes": 3})", R"({"nodes": 1})");
  d["jobs"][0]["training"]["parallel"] = {{"pp", 3}, {"micro_batches", 3}};
  Scenario s = load_scenario(d, "t");
  EXPECT_TRUE(s.jobs[0].scenario->training.parallel.enabled);
  EXPECT_EQ(s.jobs[0].scenario->training.partition.chunks(), 3);
  d["jobs"][0]["training"]["parallel"]["pp"] = 2;
  EXPECT_EQ(error_path(d), "/jobs/0/training/parallel/tp");
}

TEST(JobsConfig, TheRunsTimeLimitIsTheLatestJobsStartPlusItsLimit) {
  json d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][0]["training"]["time_limit"] = "1h";
  d["jobs"][1]["training"]["time_limit"] = "10s";
  Scenario s = load_scenario(d, "t");
  EXPECT_EQ(s.training.time_limit_ps, 3600'000'000'000'000);
}

// A checkpoint neighbour: nodes 2 and 3 write to storage nodes 6 and 7 (docs/jobs.md#checkpoint-jobs).
json with_checkpoint(const json& checkpoint) {
  json d = two_jobs(R"({"nodes": [0, 1]})", R"({"nodes": 1})");
  d["jobs"][1] = {
      {"name", "ckpt"}, {"kind", "checkpoint"}, {"placement", {{"nodes", {2, 3}}}}, {"checkpoint", checkpoint}};
  return d;
}

TEST(JobsConfig, ACheckpointJobReadsItsBurstsWithUnitsAndHoldsItsStorageNodes) {
  Scenario s = load_scenario(with_checkpoint({{"bytes", "25GiB"}, {"period", "30s"}, {"storage", {6, 7}}}), "t");
  const JobConfig& c = s.jobs[1];
  EXPECT_EQ(c.kind, JobKind::Checkpoint);
  EXPECT_EQ(c.checkpoint.bytes, 25ull << 30);
  EXPECT_EQ(c.checkpoint.period_ps, 30'000'000'000'000);
  EXPECT_EQ(c.checkpoint.bursts, 0);  // one per period while training runs
  EXPECT_EQ(c.checkpoint.storage, (std::vector<int>{6, 7}));
  EXPECT_EQ(c.nodes, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.resolved["jobs"][1]["kind"], "checkpoint");
  EXPECT_FALSE(s.resolved["jobs"][1].contains("training"));
  EXPECT_FALSE(s.resolved["jobs"][0].contains("kind"));  // a training job resolves as it always did
  // The storage nodes are held: a later job cannot take them.
  json d = with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6}}});
  d["jobs"].push_back(d["jobs"][0]);
  d["jobs"][2]["name"] = "c";
  d["jobs"][2]["placement"] = {{"nodes", {6}}};
  EXPECT_EQ(error_path(d), "/jobs/2/placement/nodes/0");
}

TEST(JobsConfig, EachBadCheckpointParameterNamesItsPointer) {
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "lots"}, {"period", "1s"}, {"storage", {6}}})),
            "/jobs/1/checkpoint/bytes");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "0B"}, {"period", "1s"}, {"storage", {6}}})),
            "/jobs/1/checkpoint/bytes");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"period", "0s"}, {"storage", {6}}})),
            "/jobs/1/checkpoint/period");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"storage", {6}}})), "/jobs/1/checkpoint/period");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {1}}})),
            "/jobs/1/checkpoint/storage/0");  // job a holds node 1
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {8}}})),
            "/jobs/1/checkpoint/storage/0");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", json::array()}})),
            "/jobs/1/checkpoint/storage");
  EXPECT_EQ(error_path(with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6}}, {"bursts", -1}})),
            "/jobs/1/checkpoint/bursts");
  json d = with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6}}});
  d["jobs"][1]["workload"] = {{"model", "gpt2"}};
  EXPECT_EQ(error_path(d), "/jobs/1/workload");
  d = with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6}}});
  d["jobs"][1].erase("checkpoint");
  EXPECT_EQ(error_path(d), "/jobs/1/checkpoint");
  d = with_checkpoint({{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6}}});
  d["jobs"].erase(0);  // nothing trains
  EXPECT_EQ(error_path(d), "/jobs");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][1].erase("workload");
  EXPECT_EQ(error_path(d), "/jobs/1/workload");
}

TEST(JobsConfig, HealthAndSloAreEachJobsOwn) {
  json d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["jobs"][0]["health"] = {{"mitigation", {{"policy", "ladder"}}}};
  d["jobs"][0]["slo"] = {{"fraction", 0.8}, {"baseline", "10ms"}};
  Scenario s = load_scenario(d, "t");
  EXPECT_TRUE(s.jobs[0].scenario->health.enabled);
  EXPECT_EQ(s.jobs[0].scenario->health.mitigation.policy, MitigationPolicy::Ladder);
  EXPECT_TRUE(s.jobs[0].scenario->slo.given);
  EXPECT_EQ(s.jobs[0].scenario->slo.baseline_ps, 10'000'000'000);
  EXPECT_FALSE(s.jobs[1].scenario->health.enabled);
  EXPECT_FALSE(s.health.enabled);
  EXPECT_TRUE(s.resolved["jobs"][0].contains("health"));
  // Their errors name the job's pointer; what a job's mitigation cannot do beside others is refused.
  d["jobs"][0]["health"] = {{"detector", {{"noise", -1}}}};
  EXPECT_EQ(error_path(d), "/jobs/0/health/detector/noise");
  d["jobs"][0]["health"] = {{"mitigation", {{"policy", "ladder"}, {"steps", {"s1", "s4", "s3"}}}}};
  EXPECT_EQ(error_path(d), "/jobs/0/health/mitigation/steps/2");
  d["jobs"][0]["health"] = {{"mitigation", {{"policy", "oracle"}}}};
  EXPECT_EQ(error_path(d), "/jobs/0/health/mitigation/policy");
  d["jobs"][0].erase("health");
  d["jobs"][0]["slo"] = {{"fraction", 2}};
  EXPECT_EQ(error_path(d), "/jobs/0/slo/fraction");
  d = two_jobs(R"({"nodes": 1})", R"({"nodes": 1})");
  d["slo"] = json::object();
  EXPECT_EQ(error_path(d), "/slo");
}

}  // namespace test_jobs
}  // namespace trainvp
