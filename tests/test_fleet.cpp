// The fleet report (docs/jobs.md#the-fleet-report, #43 item 5) against hand-computed hours: two
// jobs of 2 H100 each that compute without communicating (measured layers: 300 us an iteration),
// one GPU of job a at half speed for the whole run. Job a's iteration follows its slow GPU
// (600 us), so each of its 9 measured iterations loses 300 us on both GPUs against its declared
// baseline, all of it on the slowdown (compute), half of it on the healthy GPU (stranded); job b
// loses nothing. The fleet sums the two.
#include <gtest/gtest.h>

#include <string>

#include "platform/config/document.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_fleet {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

json two_jobs() {
  const json job = {
      {"workload", {{"layers", json::array({{{"name", "l0"}, {"fwd_time", "100us"}, {"bwd_time", "200us"}}})}}},
      {"training", {{"iterations", 10}, {"warmup", 1}, {"optimizer", "none"}}},
      {"slo", {{"baseline", "300us"}}}};
  json a = job, b = job;
  a["name"] = "a", a["placement"] = {{"nodes", json::array({0})}};
  b["name"] = "b", b["placement"] = {{"nodes", json::array({1})}};
  return {
      {"trainvp", 1},
      {"name", "fleet"},
      {"cluster", {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}}},
      {"jobs", json::array({a, b})},
      {"faults", json::array({{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}, {"factor", 0.5}, {"start", "0s"}}})},
      {"output", {{"trace", false}}}};
}

TEST(Fleet, HoursAllocatedWithinTheSloLostAndStrandedAreTheClosedForms) {
  const json r = test::simulate(two_jobs());
  const json& f = r["fleet"];
  ASSERT_EQ(f["jobs"].size(), 2u);
  const double h = 1.0 / 3600.0, T = 300e-6;
  const json& a = f["jobs"][0];
  EXPECT_EQ(a["job"], "a");
  EXPECT_NEAR(a["gpu_hours_allocated"].get<double>(), 2 * 10 * 2 * T * h, 1e-15);
  EXPECT_NEAR(a["gpu_hours_measured"].get<double>(), 2 * 9 * 2 * T * h, 1e-15);
  EXPECT_NEAR(a["gpu_hours_within_slo"].get<double>(), 0.0, 1e-15);
  EXPECT_NEAR(a["gpu_hours_lost"].get<double>(), 2 * 9 * T * h, 1e-15);
  EXPECT_NEAR(a["healthy_gpu_hours_stranded"].get<double>(), 9 * T * h, 1e-15);
  EXPECT_NEAR(a["lost_by_cause"]["compute"].get<double>(), 2 * 9 * T * h, 1e-15);
  EXPECT_EQ(a["lost_by_cause"]["neighbour"].get<double>(), 0.0);  // b sends nothing
  const json& b = f["jobs"][1];
  EXPECT_NEAR(b["gpu_hours_allocated"].get<double>(), 2 * 10 * T * h, 1e-15);
  EXPECT_NEAR(b["gpu_hours_within_slo"].get<double>(), 2 * 9 * T * h, 1e-15);
  EXPECT_EQ(b["gpu_hours_lost"].get<double>(), 0.0);
  for (const char* k : {"gpu_hours_allocated", "gpu_hours_measured", "gpu_hours_within_slo", "gpu_hours_lost",
                        "healthy_gpu_hours_stranded"})
    EXPECT_DOUBLE_EQ(f["total"][k].get<double>(), a[k].get<double>() + b[k].get<double>()) << k;
  // The job's own degradation report (its slo) counts the same loss.
  EXPECT_NEAR(r["jobs"][0]["degradation"]["gpu_hours_lost"].get<double>(), a["gpu_hours_lost"].get<double>(), 1e-15);
}

// A neighbour whose traffic is the only thing active while a job is slow takes the blame; without
// faults or neighbours the loss is unattributed. The neighbour-checkpoint scenario: no fault is
// injected, the checkpoint bursts from 5 s, and every hour the training job loses is the neighbour's.
TEST(Fleet, ANeighboursBurstTakesTheLossWhenNoFaultIsActive) {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/jobs/neighbour-checkpoint.json");
  doc["jobs"][0]["training"]["iterations"] = 400;  // 5 s healthy, then 5 s beside the burst
  doc["jobs"][0]["health"]["mitigation"]["policy"] = "none";
  const json r = test::simulate(doc);
  const json& t = r["fleet"]["total"];
  EXPECT_GT(t["gpu_hours_lost"].get<double>(), 0.0);
  EXPECT_NEAR(t["lost_by_cause"]["neighbour"].get<double>(), t["gpu_hours_lost"].get<double>(),
              1e-9 * t["gpu_hours_lost"].get<double>());
  EXPECT_EQ(t["healthy_gpu_hours_stranded"], t["gpu_hours_lost"]);  // no fault: every GPU is healthy
}

}  // namespace test_fleet
}  // namespace trainvp
