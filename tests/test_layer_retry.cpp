// Transport failure and layer-granular retry (docs/faults.md#transport-failure), whole runs on 2
// nodes of one GPU: a link down over a layer's all-reduce. The engine gives up exactly
// retry_cnt x timeout after the transfer started without progress, the layer alone is relaunched
// after the backoff and then takes the closed-form ring all-reduce time; retries that never get
// through leave each rank with its own gradient, which the consistency report names. Without the
// retry object the same fault only delays the all-reduce, as before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_layer_retry {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// One layer a of 1,000,000 bf16 parameters (2 MB); p = 2 ranks.
constexpr double kP = 2, kN = 1000000 * 2.0;
constexpr double kGiveUp = 7 * 1e-3, kBackoff = 2e-3;  // retry_cnt 7 x timeout 1 ms; backoff 2 ms
// Ring all-reduce of n on p ranks: 2(p-1)(alpha + n/(p beta)).
double ring_allreduce() { return 2 * (kP - 1) * (test::alpha_between_nodes() + kN / (kP * test::eth_beta())); }

// `down`: the link's down window ("" for a permanent fault); `retry`: with the retry object.
json scenario(const std::string& down, bool retry, int attempts = 4) {
  json fault = {{"kind", "link_down"}, {"target", "link:node1.nic0-switch"}, {"start", "0s"}};
  if (!down.empty()) fault["duration"] = down;
  json sync = {{"strategy", "layerwise"}};
  if (retry) sync["retry"] = {{"retry_cnt", 7}, {"timeout", "1ms"}, {"backoff", "2ms"}, {"attempts", attempts}};
  return {{"trainvp", 1},
          {"name", "layer-retry"},
          {"cluster",
           {{"nodes", 2},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}}}}},
          {"workload",
           {{"layers", json::array({{{"name", "a"}, {"params", 1000000}, {"fwd_time", "10ms"}, {"bwd_time", "10ms"}}})},
            {"dtype", "bf16"}}},
          {"training", {{"iterations", 2}, {"warmup", 0}, {"sync", sync}}},
          {"faults", json::array({fault})},
          {"output", {{"trace", false}}}};
}

std::vector<json> of_iteration(const json& r, int it) {
  std::vector<json> out;
  for (const json& c : r["collectives"])
    if (c["label"] == "layerwise it" + std::to_string(it) + " unit0") out.push_back(c);
  return out;
}

double t(const json& c, const char* k) { return c[k].get<double>(); }

TEST(LayerRetry, AFailedLayerIsDetectedAfterTheGiveUpAndRelaunchedAfterTheBackoff) {
  // Down for the first 28 ms: a's gradient is ready at 20 ms, the give-up comes at 27 ms (inside
  // the window), the relaunch at 29 ms runs on a link that is up again.
  const json r = test::simulate(scenario("28ms", true));
  const std::vector<json> it0 = of_iteration(r, 0);
  ASSERT_EQ(it0.size(), 2u);
  EXPECT_TRUE(it0[0].value("failed", false));
  EXPECT_FALSE(it0[1].value("failed", false));
  EXPECT_NEAR(t(it0[0], "end_s") - t(it0[0], "start_s"), kGiveUp, 1e-12);       // detection
  EXPECT_NEAR(t(it0[1], "start_s") - t(it0[0], "end_s"), kBackoff, 1e-12);      // backoff
  EXPECT_NEAR(t(it0[1], "time_s"), ring_allreduce(), 0.03 * ring_allreduce());  // the layer alone
  // The layer ends at detection + backoff + its all-reduce after its first try started.
  EXPECT_NEAR(t(it0[1], "end_s") - t(it0[0], "start_s"), kGiveUp + kBackoff + ring_allreduce(),
              0.03 * ring_allreduce());
  // Iteration 1 is past the fault: one try.
  EXPECT_EQ(of_iteration(r, 1).size(), 1u);
  const json& u = r["sync"]["retry"]["units"][0];
  EXPECT_EQ(u["attempts"], 3);  // it0: 2, it1: 1
  EXPECT_EQ(u["failures"], 1);
  EXPECT_EQ(u["exhausted"], 0);
  EXPECT_EQ(u["retried_bytes"], kN);
  EXPECT_NEAR(u["time_lost_s"].get<double>(), kGiveUp + kBackoff, 1e-12);
  EXPECT_EQ(r["sync"]["retry"]["give_up_s"], kGiveUp);
  // Retries that succeed leave every rank with the same versions.
  EXPECT_TRUE(r["consistency"]["consistent"].get<bool>());
  EXPECT_EQ(r["consistency"]["unit_iterations"], 2);
  EXPECT_TRUE(r["consistency"]["divergences"].empty());
}

TEST(LayerRetry, ExhaustedRetriesOnARanksLinkAreReportedAsADivergence) {
  const json r = test::simulate(scenario("", true, 2));  // down for good; two tries per layer
  const json& u = r["sync"]["retry"]["units"][0];
  EXPECT_EQ(u["attempts"], 4);
  EXPECT_EQ(u["failures"], 4);
  EXPECT_EQ(u["exhausted"], 2);
  EXPECT_NEAR(u["time_lost_s"].get<double>(), 2 * (kGiveUp + kBackoff + kGiveUp), 1e-12);
  const std::vector<json> it0 = of_iteration(r, 0);
  ASSERT_EQ(it0.size(), 2u);
  EXPECT_NEAR(t(it0[1], "end_s") - t(it0[0], "start_s"), kGiveUp + kBackoff + kGiveUp, 1e-12);
  const json& c = r["consistency"];
  EXPECT_FALSE(c["consistent"].get<bool>());
  ASSERT_EQ(c["divergences"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const json& d = c["divergences"][static_cast<std::size_t>(i)];
    EXPECT_EQ(d["iteration"], i);
    EXPECT_EQ(d["layers"], json::array({"a"}));
    ASSERT_EQ(d["ranks"].size(), 2u);
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(d["ranks"][static_cast<std::size_t>(k)]["rank"], k);
      EXPECT_EQ(d["ranks"][static_cast<std::size_t>(k)]["version"], "local");
    }
  }
}

// A unit of two steps (PowerSGD: the P all-reduce, then the Q one) on 3 nodes, one try, node2's
// link down for good from `down`.
json two_steps(const std::string& down) {
  json s = scenario("", true, 1);
  s["cluster"]["nodes"] = 3;
  s["workload"]["layers"][0]["params"] = 4000000;
  s["training"]["iterations"] = 1;
  s["training"]["sync"]["compression"] = {{"kind", "powersgd"}, {"rank", 4}};
  if (down.empty()) s.erase("faults");
  else s["faults"] = json::array({{{"kind", "link_down"}, {"target", "link:node2.nic0-switch"}, {"start", down}}});
  return s;
}

TEST(LayerRetry, AStepThatRunsOutOfTriesEndsItsUnitsLaterStepsOnEveryRank) {
  // The link goes down just before the healthy P step ends: a rank whose last chunk of it had
  // arrived has entered the Q step, which the others, ending the unit with their own gradient,
  // will never join. Before the fix that rank waited for ever (#45, campaign 2027).
  const json healthy = test::simulate(two_steps(""));
  const double p_end = healthy["collectives"][0]["end_s"].get<double>();
  const json r = test::simulate(two_steps(std::to_string((p_end - 4e-6) * 1e3) + "ms"));
  ASSERT_EQ(r["collectives"].size(), 2u);
  const json &p = r["collectives"][0], &q = r["collectives"][1];
  EXPECT_EQ(p["label"], "layerwise it0 unit0 step0");
  EXPECT_EQ(q["label"], "layerwise it0 unit0 step1");
  EXPECT_TRUE(p.value("failed", false));
  ASSERT_LT(t(q, "start_s"), t(p, "end_s"));  // the case under test: a rank entered Q before P failed
  // Q is given up with P, and is not a failure of its own.
  EXPECT_TRUE(q.value("failed", false));
  EXPECT_TRUE(q.value("abandoned", false));
  EXPECT_FALSE(p.value("abandoned", false));
  EXPECT_EQ(t(q, "end_s"), t(p, "end_s"));
  const json& u = r["sync"]["retry"]["units"][0];
  EXPECT_EQ(u["failures"], 1);
  EXPECT_EQ(u["exhausted"], 1);
  // Every rank applied its own gradient, the one that had P's average too.
  const json& d = r["consistency"]["divergences"];
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(d[0]["ranks"].size(), 3u);
  for (const json& k : d[0]["ranks"]) EXPECT_EQ(k["version"], "local");
}

TEST(LayerRetry, WithoutTheRetryObjectALinkDownOnlyDelaysTheAllReduce) {
  const json r = test::simulate(scenario("28ms", false));
  EXPECT_FALSE(r.contains("consistency"));
  EXPECT_FALSE(r["sync"].contains("retry"));
  const std::vector<json> it0 = of_iteration(r, 0);
  ASSERT_EQ(it0.size(), 1u);
  EXPECT_FALSE(it0[0].contains("failed"));
  // It waits for the link and is done within one all-reduce after the window ends.
  EXPECT_GT(t(it0[0], "end_s"), 28e-3);
  EXPECT_LT(t(it0[0], "end_s"), 28e-3 + 1.03 * ring_allreduce());
}

TEST(LayerRetry, BadRetryObjectsAreClearErrors) {
  std::vector<test::BadCase> cases = {
      {"ddp", [](json& d) { d["training"]["sync"]["strategy"] = "ddp"; }, "/training/sync/retry"},
      {"zero timeout", [](json& d) { d["training"]["sync"]["retry"]["timeout"] = "0s"; },
       "/training/sync/retry/timeout"},
      {"retry_cnt 8", [](json& d) { d["training"]["sync"]["retry"]["retry_cnt"] = 8; },
       "/training/sync/retry/retry_cnt"},
      {"no attempts", [](json& d) { d["training"]["sync"]["retry"]["attempts"] = 0; }, "/training/sync/retry/attempts"},
      {"unknown key", [](json& d) { d["training"]["sync"]["retry"]["retries"] = 3; }, "/training/sync/retry/retries"},
  };
  test::expect_load_errors(scenario("28ms", true), cases);
}

}  // namespace test_layer_retry
}  // namespace trainvp
