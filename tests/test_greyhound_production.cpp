// GREYHOUND's production population (docs/greyhound.md#the-production-population,
// scenarios/sweeps/greyhound-production.json): the seed's 27 jobs of 512 to 1,024 GPUs, 16 of them
// hit by fail-slows (3 of them with GPU degradation too), events of 72 minutes on average. Checks
// what the population is (sizes, fidelity, fast-forward, the monitor), that its rates give the
// seed's expected counts in closed form, and that the fault generator's draws for it give those
// counts and the 72-minute mean within their statistical spread. Nothing is simulated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "platform/config/fault_generator.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/units.hpp"
#include "platform/system/faults/campaign.hpp"

namespace trainvp {
namespace test_greyhound_production {  // named for the file: unity builds join test files

namespace fs = std::filesystem;

json read(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

const fs::path kSpec = fs::path(TRAINVP_SOURCE_DIR) / "scenarios/sweeps/greyhound-production.json";
constexpr int kJobs = 27;
constexpr double kExposureH = 5 - 5.0 / 60;  // the generator's window: minute 5 to hour 5

// The 27 jobs of the sweep: its base with each point's values set.
std::vector<Scenario> jobs() {
  const json spec = read(kSpec);
  const fs::path base_path = kSpec.parent_path() / spec["base"].get<std::string>();
  const json base = read(base_path);
  std::vector<Scenario> out;
  for (int i = 0; i < kJobs; ++i) {
    json doc = base;
    for (const json& p : spec["parameters"])
      doc[json::json_pointer(p["path"].get<std::string>())] = p["values"].at(static_cast<std::size_t>(i));
    out.push_back(load_scenario(doc, "job", base_path.parent_path().string()));
  }
  return out;
}

const FaultGeneratorKind& kind(const Scenario& s, const std::string& name) {
  for (const FaultGeneratorKind& k : s.fault_generator.kinds)
    if (k.name == name) return k;
  throw std::runtime_error("no generator kind " + name);
}

TEST(GreyhoundProduction, TheSweepIs27JobsOf512To1024GpusInFlowFidelityWithFastForwardAndTheMonitor) {
  const json spec = read(kSpec);
  EXPECT_EQ(spec["design"], "zip");
  for (const json& p : spec["parameters"]) EXPECT_EQ(p["values"].size(), static_cast<std::size_t>(kJobs));
  std::set<std::uint64_t> seeds;
  std::size_t smallest = 1u << 30, largest = 0;
  for (const Scenario& s : jobs()) {
    const std::size_t gpus = s.cluster.gpus.size();
    EXPECT_GE(gpus, 512u);
    EXPECT_LE(gpus, 1024u);
    smallest = std::min(smallest, gpus), largest = std::max(largest, gpus);
    EXPECT_EQ(s.resolved["cluster"]["fabric"]["fidelity"], "flow");
    EXPECT_EQ(s.resolved["training"]["fast_forward"]["enabled"], true);
    EXPECT_TRUE(s.health.enabled);
    EXPECT_EQ(s.health.mitigation.policy, MitigationPolicy::None);
    ASSERT_TRUE(s.fault_generator.enabled);
    seeds.insert(s.fault_generator.seed);
    // The generator's GREYHOUND defaults for jobs of >= 512 GPUs: congestion 72 min, compute 10 min.
    EXPECT_EQ(kind(s, "link_degrade").mean_ps, parse_time_ps("72min"));
    EXPECT_EQ(kind(s, "gpu_slowdown").mean_ps, parse_time_ps("10min"));
    EXPECT_EQ(kind(s, "cpu_contention").rate_per_h, 0);
    EXPECT_EQ(s.fault_generator.start_ps, parse_time_ps("5min"));
    EXPECT_EQ(s.fault_generator.horizon_ps, parse_time_ps("5h"));
  }
  EXPECT_EQ(smallest, 512u);
  EXPECT_EQ(largest, 1024u);
  EXPECT_EQ(seeds.size(), static_cast<std::size_t>(kJobs));  // each job its own campaign
}

TEST(GreyhoundProduction, ItsRatesGiveTheSeedsCountsInClosedForm) {
  // A Poisson process of rate r per hour hits a job exposed for T hours with probability
  // 1 - exp(-r T): the 27 jobs expect 16 hit by congestion and 3 by a GPU degradation. Congestion
  // grows with the job's nodes, GPU degradation with its GPUs (one rate per node- or GPU-hour).
  double hit = 0, gpu_hit = 0;
  std::vector<double> per_node, per_gpu;
  for (const Scenario& s : jobs()) {
    const double link = kind(s, "link_degrade").rate_per_h, gpu = kind(s, "gpu_slowdown").rate_per_h;
    hit += 1 - std::exp(-link * kExposureH);
    gpu_hit += 1 - std::exp(-gpu * kExposureH);
    per_node.push_back(link / s.cluster.nodes);
    per_gpu.push_back(gpu / static_cast<double>(s.cluster.gpus.size()));
  }
  EXPECT_NEAR(hit, 16.0, 1e-4);
  EXPECT_NEAR(gpu_hit, 3.0, 1e-4);
  // One rate per node-hour and one per GPU-hour (the sweep gives each job's to 8 digits).
  for (const std::vector<double>* v : {&per_node, &per_gpu}) {
    const auto [lo, hi] = std::minmax_element(v->begin(), v->end());
    EXPECT_LT((*hi - *lo) / *lo, 1e-7);
  }
}

TEST(GreyhoundProduction, TheGeneratorsDrawsForThePopulationGiveTheSeedsCountsAndMeanDuration) {
  // The population drawn 300 times (each job's seed moved by 1000 per replica): the jobs with a
  // congestion event average 16 and those with a GPU event 3, within 4 standard errors (the
  // number hit per replica is a sum of Bernoullis, variance sum p (1 - p)); the congestion events
  // last 72 minutes on average within 4 standard errors of an exponential mean (72 / sqrt(N)).
  constexpr int kReplicas = 300;
  std::vector<Scenario> pop = jobs();
  double hit = 0, gpu_hit = 0, var_hit = 0, var_gpu = 0, duration_sum = 0;
  std::size_t durations = 0;
  for (const Scenario& s : pop) {
    const double p = 1 - std::exp(-kind(s, "link_degrade").rate_per_h * kExposureH);
    const double q = 1 - std::exp(-kind(s, "gpu_slowdown").rate_per_h * kExposureH);
    var_hit += p * (1 - p), var_gpu += q * (1 - q);
  }
  for (int r = 0; r < kReplicas; ++r) {
    for (Scenario& s : pop) {
      FaultGeneratorConfig cfg = s.fault_generator;
      cfg.seed += 1000u * static_cast<std::uint64_t>(r);
      const json ev = generate_faults(cfg, std::vector<std::vector<std::string>>(cfg.kinds.size(), {"x", "y"}));
      bool link = false, gpu = false;
      for (const json& e : ev) {
        EXPECT_GE(parse_time_ps(e["start"].get<std::string>()), cfg.start_ps);
        EXPECT_LT(parse_time_ps(e["start"].get<std::string>()), cfg.horizon_ps);
        if (e["kind"] == "link_degrade") {
          link = true;
          duration_sum += static_cast<double>(parse_time_ps(e["duration"].get<std::string>())) * 1e-12 / 60;
          ++durations;
        } else if (e["kind"] == "gpu_slowdown") gpu = true;
        else ADD_FAILURE() << "unexpected kind " << e["kind"];
      }
      hit += link, gpu_hit += gpu;
    }
  }
  EXPECT_NEAR(hit / kReplicas, 16.0, 4 * std::sqrt(var_hit / kReplicas));
  EXPECT_NEAR(gpu_hit / kReplicas, 3.0, 4 * std::sqrt(var_gpu / kReplicas));
  ASSERT_GT(durations, 1000u);
  EXPECT_NEAR(duration_sum / static_cast<double>(durations), 72.0,
              4 * 72.0 / std::sqrt(static_cast<double>(durations)));
}

}  // namespace test_greyhound_production
}  // namespace trainvp
