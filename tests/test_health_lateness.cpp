// What the iteration time hides, and slowdowns with no healthy peer (docs/health.md#late-ranks,
// docs/health.md#no-healthy-peer), on the shipped scenarios/greyhound/ runs: a fault that begins
// under another of equal effect and outlasts it is found by the late ranks while the first is
// still on (and missed without them); every GPU slowed is `group_wide`, every switch link slowed
// (under TP 4 x DP 4: four data-parallel communicators slowing alike) `fabric_wide`, each matched to its fault, and the
// ladder acts on neither. Times are bounded from the fault schedule and the detector's windows: a window may straddle a
// fault's start, the change point verifies after verify_iterations windows, and a newly late rank is named once its
// lateness averaged over lateness_windows windows reaches lateness_threshold of the window.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "platform/config/document.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_health_lateness {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

json shipped(const std::string& name) {
  return read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/greyhound/" + name + ".json");
}

// The detector's defaults (docs/health.md).
constexpr int kVerifyIterations = 2;
constexpr double kLatenessThreshold = 0.10;
constexpr int kLatenessWindows = 3;

double seconds(const json& t) {  // "16s" -> 16
  const std::string s = t.get<std::string>();
  EXPECT_EQ(s.back(), 's');
  return std::stod(s.substr(0, s.size() - 1));
}

TEST(HealthLateness, AFaultThatBeginsUnderAnotherOfEqualEffectIsFoundByTheLateRanks) {
  const json doc = shipped("late-rank-under-another-8gpu");
  const json& f0 = doc["faults"][0];
  const json& f1 = doc["faults"][1];
  const double first_end = seconds(f0["start"]) + seconds(f0["duration"]), start = seconds(f1["start"]);
  ASSERT_LT(seconds(f0["start"]), start);
  ASSERT_GT(start + seconds(f1["duration"]), first_end);  // it begins under the first and outlasts it
  const json r = test::simulate(doc);
  const json& h = r["health"];
  const json& changes = h["detector"]["changes"];
  ASSERT_EQ(h["diagnoses"].size(), 2u) << h.dump(1);
  EXPECT_EQ(h["diagnoses"][0]["cause"], "compute");
  EXPECT_EQ(h["diagnoses"][0]["gpus"], json::array({6}));  // node1.gpu2
  const json& d = h["diagnoses"][1];
  EXPECT_EQ(d["cause"], "compute");
  EXPECT_EQ(d["gpus"], json::array({1}));  // node0.gpu1
  EXPECT_EQ(d["fault"], 1);
  ASSERT_GE(changes.size(), 2u);
  EXPECT_EQ(changes[1]["direction"], "late rank");
  EXPECT_EQ(h["score"]["recall"], 1.0);
  EXPECT_EQ(h["score"]["precision"], 1.0);
  // The job waits for node1.gpu2 all along, so the second slow GPU arrives as late as it: by the
  // iteration's growth at least, a share g = (slow - healthy) / slow of each window. Averaged over
  // lateness_windows windows that reaches the threshold after ceil(threshold x windows / g) whole
  // windows, one more where the window straddles the start.
  const double healthy = changes[0]["before_s"], slow = changes[0]["after_s"];
  const double g = (slow - healthy) / slow;
  const int windows = static_cast<int>(std::ceil(kLatenessThreshold * kLatenessWindows / g)) + 1;
  EXPECT_GE(d["change_s"].get<double>(), start - slow);
  EXPECT_LE(d["change_s"].get<double>(), start + slow);
  EXPECT_LE(h["faults"][1]["change_detection_s"].get<double>(), windows * slow);
  EXPECT_LT(d["diagnosed_s"].get<double>(), first_end);  // found under the first, not at its end

  // Without the late ranks (a threshold no rank reaches) the iteration time alone misses it.
  json off = doc;
  off["health"]["detector"]["lateness_threshold"] = 100;
  const json m = test::simulate(off)["health"];
  EXPECT_FALSE(m["faults"][1]["detected"].get<bool>()) << m.dump(1);
  EXPECT_EQ(m["score"]["recall"], 0.5);
}

// The change point's bound: flagged on the first slow window, verified verify_iterations windows
// later, one more where a window straddles the start.
void expect_found_in_time(const json& h, double start) {
  const json& c = h["detector"]["changes"][0];
  const double healthy = c["before_s"], slow = c["after_s"];
  const json& d = h["diagnoses"][0];
  EXPECT_GE(d["change_s"].get<double>(), start - healthy);
  EXPECT_LE(h["faults"][0]["change_detection_s"].get<double>(), (kVerifyIterations + 1) * slow);
}

// The ladder acts on no phantom rank: one S1 record that says why, no pause, no split.
void expect_nothing_moved(const json& mitigation, const std::string& what) {
  ASSERT_EQ(mitigation["actions"].size(), 1u) << mitigation.dump(1);
  const json& a = mitigation["actions"][0];
  EXPECT_EQ(a["step"], "s1");
  EXPECT_EQ(a["diagnosis"], 0);
  EXPECT_NE(a["note"].get<std::string>().find(what + " slowdown: no healthy peer"), std::string::npos) << a.dump();
  EXPECT_FALSE(a.contains("units_per_replica"));
  EXPECT_EQ(mitigation["paused_s"], 0.0);
}

TEST(HealthLateness, EveryGpuSlowedIsAGroupWideSlowdownAndNothingMoves) {
  json doc = shipped("group-wide-slowdown-8gpu");
  ASSERT_EQ(doc["faults"][0]["target"], "node*.gpu*");
  doc["health"]["mitigation"] = {{"policy", "ladder"}};
  const json r = test::simulate(doc);
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "group_wide");
  EXPECT_EQ(d["gpus"], json::array({0, 1, 2, 3, 4, 5, 6, 7}));  // the whole group, no one rank
  EXPECT_EQ(d["confidence"], 1.0);                              // every sampled GEMM slow
  EXPECT_EQ(d["fault"], 0);
  EXPECT_EQ(h["score"]["precision"], 1.0);
  EXPECT_EQ(h["score"]["recall"], 1.0);
  expect_found_in_time(h, seconds(doc["faults"][0]["start"]));
  expect_nothing_moved(h["mitigation"], "group-wide");
}

TEST(HealthLateness, EverySwitchLinkSlowedIsAFabricWideSlowdownAndNothingMoves) {
  json doc = shipped("fabric-wide-slowdown-16gpu");
  ASSERT_EQ(doc["faults"][0]["target"], "switch");
  doc["health"]["mitigation"] = {{"policy", "ladder"}};
  const json r = test::simulate(doc);
  const json& h = r["health"];
  ASSERT_EQ(h["diagnoses"].size(), 1u) << h.dump(1);
  const json& d = h["diagnoses"][0];
  EXPECT_EQ(d["cause"], "fabric_wide");
  EXPECT_TRUE(d["gpus"].empty());
  EXPECT_TRUE(d["links"].empty());  // no edge slower than its peers
  // The four data-parallel communicators (TP 4 inside a node: rank r's group is r mod 4 across the
  // nodes), every one that crosses nodes; not the TP groups, whose NVLink is not the switch's.
  ASSERT_EQ(d["groups"].size(), 4u) << d.dump();
  for (const json& g : d["groups"]) {
    ASSERT_EQ(g.size(), 4u) << g.dump();
    for (int i = 1; i < 4; ++i) EXPECT_EQ(g[i].get<int>(), g[0].get<int>() + 4 * i) << g.dump();
  }
  EXPECT_EQ(d["fault"], 0);
  EXPECT_EQ(h["score"]["precision"], 1.0);
  EXPECT_EQ(h["score"]["recall"], 1.0);
  expect_found_in_time(h, seconds(doc["faults"][0]["start"]));
  expect_nothing_moved(h["mitigation"], "fabric-wide");
}

}  // namespace test_health_lateness
}  // namespace trainvp
