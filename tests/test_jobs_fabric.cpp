// Several training jobs on one fabric (docs/jobs.md): each job's DDP all-reduce against the ring's
// closed form 2(p-1)(alpha + n/(p beta)), alone and beside another job. 8 nodes x 1 H100 with one
// 400 Gbit/s NIC on a leaf-spine of 4-port leaves and one spine, oversubscribed 4:1, so each
// leaf's uplink carries 400 Gbit/s: two jobs packed keep their rings inside their leaves; spread,
// each ring crosses the spine twice, and two spread jobs share each uplink (half the rate each).
#include <gtest/gtest.h>

#include <string>

#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_jobs_fabric {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;

constexpr double kGradBytes = 256.0 * 1048576;  // one fp32 layer of 64 Mi parameters: one DDP bucket
constexpr int kRanks = 4;

json job(const std::string& name, const json& placement, const char* start = "0s") {
  return {{"name", name},
          {"placement", placement},
          {"start", start},
          {"workload",
           {{"batch", 1},
            {"grad_dtype", "fp32"},
            {"layers", json::array({{{"name", "l0"},
                                     {"params", 67108864},
                                     {"fwd_time", "1ms"},
                                     {"bwd_input_time", "0us"},
                                     {"bwd_weight_time", "1ms"}}})}}},
          {"training", {{"iterations", 3}, {"warmup", 1}, {"sync", {{"strategy", "ddp_no_overlap"}}}}}};
}

json cluster(const char* topology = "leaf-spine") {
  json c = {{"nodes", 8}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}};
  c["fabric"] = {{"topology", topology}, {"nccl", {{"model", "bound"}}}};  // the closed forms
  if (std::string(topology) == "leaf-spine")
    c["fabric"].update({{"leaf_ports", 4}, {"spines", 1}, {"oversubscription", 4}});
  return c;
}

json scenario(json jobs, const char* topology = "leaf-spine") {
  return {{"trainvp", 1}, {"cluster", cluster(topology)}, {"jobs", std::move(jobs)}, {"output", {{"trace", false}}}};
}

// The ring all-reduce of the one bucket over 4 ranks at `beta` per hop.
double ring(double beta) { return 2.0 * (kRanks - 1) * (alpha_between_nodes() + kGradBytes / kRanks / beta); }

double comm(const json& r, int j) { return r["jobs"][j]["comm_time_s"].get<double>(); }

TEST(JobsFabric, PackedJobsRunTheirRingsAtTheClosedFormSideBySide) {
  const json r = simulate(scenario({job("a", {{"nodes", 4}}), job("b", {{"nodes", 4}})}));
  EXPECT_EQ(r["jobs"][0]["nodes"], json({0, 1, 2, 3}));
  EXPECT_EQ(r["jobs"][1]["nodes"], json({4, 5, 6, 7}));
  for (int j = 0; j < 2; ++j) EXPECT_NEAR(comm(r, j), ring(eth_beta()), 0.005 * ring(eth_beta())) << j;
  EXPECT_EQ(r["link_tiers"]["spine_bytes"], 0);
}

TEST(JobsFabric, ASpreadJobAloneCrossesTheSpineAtFullRate) {
  const json r = simulate(scenario({job("a", {{"nodes", 4}, {"policy", "spread"}})}));
  EXPECT_EQ(r["jobs"][0]["nodes"], json({0, 1, 4, 5}));
  EXPECT_NEAR(comm(r, 0), ring(eth_beta()), 0.005 * ring(eth_beta()));
  EXPECT_GT(r["link_tiers"]["spine_bytes"].get<double>(), 0);
}

TEST(JobsFabric, TwoSpreadJobsShareTheUplinksAtHalfTheRateEach) {
  const json r = simulate(
      scenario({job("a", {{"nodes", 4}, {"policy", "spread"}}), job("b", {{"nodes", 4}, {"policy", "spread"}})}));
  // Every step of both rings sends one transfer over each leaf's uplink: two flows share its
  // 400 Gbit/s. No more than half the rate each; a little more where one job's step ends first.
  const double shared = ring(eth_beta() / 2);
  for (int j = 0; j < 2; ++j) {
    EXPECT_LE(comm(r, j), 1.005 * shared) << j;
    EXPECT_GE(comm(r, j), 0.95 * shared) << j;
  }
}

TEST(JobsFabric, AJobThatStartsAfterTheOtherEndsRunsAsIfAlone) {
  const json r = simulate(scenario(
      {job("a", {{"nodes", 4}, {"policy", "spread"}}), job("b", {{"nodes", 4}, {"policy", "spread"}}, "100ms")}));
  const json& b = r["jobs"][1];
  EXPECT_DOUBLE_EQ(b["start_s"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(b["iterations"][0]["start_s"].get<double>(), 0.1);
  EXPECT_LT(r["jobs"][0]["end_s"].get<double>(), 0.1);
  EXPECT_NEAR(comm(r, 0), ring(eth_beta()), 0.005 * ring(eth_beta()));
  EXPECT_NEAR(comm(r, 1), ring(eth_beta()), 0.005 * ring(eth_beta()));
}

TEST(JobsFabric, AJobAloneRunsExactlyAsTheSameTrainingWithoutJobs) {
  // On one switch every pair of nodes has the same path: a job on nodes 0-3 of 8 and a training of
  // 4 nodes see the same fabric.
  const json jobs = simulate(scenario({job("a", {{"nodes", 4}})}, "switch"));
  json plain = {{"trainvp", 1}, {"cluster", cluster("switch")}, {"output", {{"trace", false}}}};
  plain["cluster"]["nodes"] = 4;
  const json one = job("a", {{"nodes", 4}});
  plain["workload"] = one["workload"];
  plain["training"] = one["training"];
  const json single = simulate(plain);
  EXPECT_EQ(jobs["jobs"][0]["iteration_time_s"], single["iteration_time_s"]);
  EXPECT_EQ(jobs["jobs"][0]["iterations"], single["iterations"]);
  // The four idle GPUs report no job and ran nothing.
  EXPECT_EQ(jobs["ranks"].size(), 8u);
  EXPECT_TRUE(jobs["ranks"][7]["job"].is_null());
  EXPECT_EQ(jobs["ranks"][0]["job"], "a");
}

TEST(JobsFabric, AHybridParallelJobOnLaterNodesRunsExactlyAsTheSameTrainingAlone) {
  // TP 2 x PP 2 x DP 2 with 1F1B on nodes 2-3 of a switch (cluster ranks 8-15): its layout,
  // pipeline, TP and DP traffic must be the same as on a cluster of its own, to the picosecond.
  json c = {{"nodes", 4},
            {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}, {"nics", 4}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}}}};
  const json workload = {{"model", "gpt2"}, {"batch", 2}, {"seq", 1024}};
  const json training = {{"iterations", 3},
                         {"warmup", 1},
                         {"sync", {{"strategy", "ddp"}}},
                         {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"micro_batches", 4}, {"schedule", "1f1b"}}}};
  json other = job("first", {{"nodes", 2}}, "10s");
  const json hybrid = {{"name", "llm"}, {"placement", {{"nodes", 2}}}, {"workload", workload}, {"training", training}};
  const json jobs =
      simulate({{"trainvp", 1}, {"cluster", c}, {"jobs", {other, hybrid}}, {"output", {{"trace", false}}}});
  c["nodes"] = 2;
  const json alone = simulate(
      {{"trainvp", 1}, {"cluster", c}, {"workload", workload}, {"training", training}, {"output", {{"trace", false}}}});
  const json& j = jobs["jobs"][1];
  EXPECT_EQ(j["nodes"], json({2, 3}));
  EXPECT_EQ(j["iterations"], alone["iterations"]);
  EXPECT_EQ(j["parallel"]["stages"], alone["parallel"]["stages"]);
  EXPECT_EQ(j["parallel"]["mfu"], alone["parallel"]["mfu"]);
  EXPECT_GT(j["bubble_s"].get<double>(), 0);
  EXPECT_EQ(j["parallel"]["placement"][0]["rank"], 8);
  EXPECT_EQ(j["parallel"]["placement"][0]["gpu"], "node2.gpu0");
}

}  // namespace test_jobs_fabric
}  // namespace trainvp
