// Elastic synchronization for weak networks (docs/strategies.md#elastic), whole runs: with no
// deadline it is layerwise to the picosecond; a deadline below a unit's closed-form ring
// all-reduce time makes exactly that unit weak-sync in every iteration, one above it none; the
// staleness of those late averages, counted by hand; the trace shows them; bad timeouts are clear
// errors. The semantics on the real values are models/train/test's and test_train's.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/report/results.hpp"
#include "platform/system/simulation.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_elastic {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

json gpt2(const std::string& strategy, const json& timeout) {
  json doc = {{"trainvp", 1},
              {"name", "elastic"},
              {"cluster",
               {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"link_bw", "25Gbps"}}}}},
              {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 512}}},
              {"training", {{"iterations", 4}, {"warmup", 1}, {"sync", {{"strategy", strategy}, {"comm_streams", 2}}}}},
              {"output", {{"trace", false}}}};
  if (!timeout.is_null()) doc["training"]["sync"]["elastic"] = {{"timeout", timeout}};
  return doc;
}

TEST(Elastic, WithoutADeadlineOrWithOneNeverReachedItIsLayerwiseToThePicosecond) {
  const json lw = test::simulate(gpt2("layerwise", nullptr));
  for (const json& timeout : {json("none"), json("1000s")}) {
    const json el = test::simulate(gpt2("elastic", timeout));
    ASSERT_EQ(el["iterations"].size(), lw["iterations"].size());
    for (std::size_t i = 0; i < lw["iterations"].size(); ++i)
      for (const char* k : {"start_s", "end_s", "comm_s", "exposed_comm_s", "sync_bytes"})
        EXPECT_EQ(el["iterations"][i][k], lw["iterations"][i][k]) << timeout << " " << i << " " << k;
    ASSERT_EQ(el["collectives"].size(), lw["collectives"].size());
    for (std::size_t c = 0; c < lw["collectives"].size(); ++c)
      for (const char* k : {"start_s", "end_s", "bytes"})
        EXPECT_EQ(el["collectives"][c][k], lw["collectives"][c][k]) << timeout << " " << c << " " << k;
    EXPECT_EQ(el["iteration_time_s"], lw["iteration_time_s"]);
    EXPECT_EQ(el["sync"]["units"], lw["sync"]["units"]);
    EXPECT_EQ(el["sync"]["elastic"]["weak_sync_unit_iterations"], 0);
  }
}

// Two layers on 4 nodes of one GPU: a (81,920,000 bf16 parameters, 163.84 MB) and b (1,000,000,
// 2 MB, a `medium` unit of its own). b's gradient is ready first and its all-reduce ends long before
// a's is ready, so a's all-reduce runs alone: 2(p-1)/p n/B + 2(p-1) alpha.
constexpr double kP = 4, kA = 81920000 * 2.0;
double closed_form_a() {
  return 2 * (kP - 1) / kP * kA / test::eth_beta() + 2 * (kP - 1) * test::alpha_between_nodes();
}

json two_layers(double timeout_s, int iterations) {
  json layers = json::array();
  for (auto [name, params] : {std::pair<const char*, int>{"a", 81920000}, {"b", 1000000}})
    layers.push_back({{"name", name}, {"params", params}, {"fwd_time", "10ms"}, {"bwd_time", "10ms"}});
  return {{"trainvp", 1},
          {"name", "elastic-closed-form"},
          {"cluster", {{"nodes", 4}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"layers", layers}, {"dtype", "bf16"}}},
          {"training",
           {{"iterations", iterations},
            {"warmup", 1},
            {"sync",
             {{"strategy", "elastic"},
              {"elastic", {{"timeout", std::to_string(std::llround(timeout_s * 1e12)) + "ps"}}}}}}},
          {"output", {{"trace", false}}}};
}

const json& unit_of(const json& r, const std::string& label) {
  for (const json& u : r["sync"]["elastic"]["units"])
    if (u["label"] == label) return u;
  throw std::runtime_error("no unit " + label);
}

TEST(Elastic, ADeadlineBelowTheClosedFormAllReduceMakesExactlyThatUnitLateEveryIteration) {
  const double t = closed_form_a();  // 5.0 ms; the simulation matches it within 3% (test_fabric)
  const int n = 6;
  const json below = test::simulate(two_layers(0.9 * t, n)), above = test::simulate(two_layers(1.1 * t, n));
  // Below: a late in every iteration on every rank, b never.
  EXPECT_EQ(unit_of(below, "a")["late_iterations"], n);
  EXPECT_EQ(unit_of(below, "a")["late_rank_iterations"], n * kP);
  EXPECT_EQ(unit_of(below, "b")["late_iterations"], 0);
  EXPECT_EQ(below["sync"]["elastic"]["weak_sync_unit_iterations"], n);
  for (int i = 0; i < n; ++i) {
    const json& it = below["iterations"][static_cast<std::size_t>(i)];
    EXPECT_EQ(it["weak_sync_units"], 1) << i;
    // The step waited exactly the deadline after a's gradient was ready.
    EXPECT_NEAR(it["exposed_comm_s"].get<double>(), 0.9 * t, 1e-9) << i;
  }
  // Staleness by hand: a's average of iteration r arrives T after a is ready, past the deadline
  // (0.9 T) but long before r + 1's step (40 ms of forward and backward later): merged in r + 1,
  // one iteration stale. The last iteration's arrives after the run's last step: unmerged.
  EXPECT_EQ(unit_of(below, "a")["staleness_max"], 1);
  EXPECT_DOUBLE_EQ(unit_of(below, "a")["staleness_mean"].get<double>(), 1.0);
  EXPECT_EQ(unit_of(below, "a")["unmerged"], kP);
  EXPECT_EQ(unit_of(below, "b")["staleness_max"], 0);
  // Above: nobody late, the step waits for a's all-reduce itself.
  EXPECT_EQ(above["sync"]["elastic"]["weak_sync_unit_iterations"], 0);
  EXPECT_EQ(unit_of(above, "a")["staleness_mean"].get<double>(), 0.0);
  for (int i = 1; i < n; ++i)
    EXPECT_NEAR(above["iterations"][static_cast<std::size_t>(i)]["exposed_comm_s"].get<double>(), t, 0.03 * t) << i;
  // A weak-sync iteration is shorter by what the step did not wait for.
  EXPECT_LT(below["iteration_time_s"].get<double>(), above["iteration_time_s"].get<double>());
}

TEST(Elastic, StalenessGrowsWhenLateAveragesQueueBehindEachOther) {
  // Forward and backward of 100 us per layer and a deadline of T / 2: an iteration lasts about
  // T / 2 + 0.4 ms + the optimizer, less than T, so a's averages (one stream, one at a time) fall
  // further behind every iteration: a(r) arrives about (r + 1) T after a(0) was ready, and the
  // step of r + 1 comes before that. Late every iteration, stale by more than one.
  json doc = two_layers(0.5 * closed_form_a(), 8);
  for (auto& l : doc["workload"]["layers"]) l["fwd_time"] = "100us", l["bwd_time"] = "100us";
  const json r = test::simulate(doc);
  const json& a = unit_of(r, "a");
  EXPECT_EQ(a["late_iterations"], 8);
  EXPECT_GE(a["staleness_max"].get<int>(), 2);
  EXPECT_GT(a["unmerged"].get<int>(), static_cast<int>(kP));  // more than the last iteration's
}

TEST(Elastic, TheTraceShowsWeakSyncUnits) {
  json doc = two_layers(0.9 * closed_form_a(), 3);
  doc["output"]["trace"] = true;
  auto r = test::in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    std::ostringstream trace;
    sim.context().trace.write(trace);
    return trace.str();
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_NE(r.value.find("\"weak-sync a\""), std::string::npos);
  EXPECT_NE(r.value.find("\"all_reduce a (weak-sync)\""), std::string::npos);
  EXPECT_EQ(r.value.find("\"weak-sync b\""), std::string::npos);
}

TEST(Elastic, BadTimeoutsAreClearErrors) {
  std::vector<test::BadCase> cases = {
      {"zero",
       [](json& d) {
         d["training"]["sync"]["elastic"] = {{"timeout", "0s"}};
       },
       "/training/sync/elastic/timeout"},
      {"number",
       [](json& d) {
         d["training"]["sync"]["elastic"] = {{"timeout", 5}};
       },
       "/training/sync/elastic/timeout"},
      {"word",
       [](json& d) {
         d["training"]["sync"]["elastic"] = {{"timeout", "never"}};
       },
       "/training/sync/elastic/timeout"},
      {"not an object", [](json& d) { d["training"]["sync"]["elastic"] = "500ms"; }, "/training/sync/elastic"},
      {"unknown key",
       [](json& d) {
         d["training"]["sync"]["elastic"] = {{"timeouts", "1ms"}};
       },
       "/training/sync/elastic/timeouts"},
  };
  test::expect_load_errors(gpt2("elastic", nullptr), cases);
}

}  // namespace test_elastic
}  // namespace trainvp
