// Fault injection (docs/faults.md) against closed forms: a degraded link slows a bandwidth-bound
// transfer by 1/f, a link that is down delays it by the window, one slow GPU sets the pace of
// every rank under synchronous DDP, CPU contention scales the launch overhead, S3's node swap
// moves a node's faults to the other slot and leaves the core's; and bad faults
// are errors naming /faults/<i>/...
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "platform/core/errors.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_faults {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_child;

// Defaults of the fabric (docs/scenario-format.md): 400 Gbit/s RoCE, 4096-byte MTU, 82 bytes framing.
constexpr double kEthBps = 400e9, kMtu = 4096, kFraming = 82;
constexpr double kBytes = 64.0 * 1048576;

json sendrecv_scenario(const json& faults) {
  return {{"trainvp", 1},
          {"name", "faults-test"},
          {"cluster",
           {{"nodes", 2}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"topology", "switch"}}}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "sendrecv"},
            {"algorithm", "ring"},
            {"bytes", "64MiB"},
            {"iterations", 1},
            {"warmup", 0}}},
          {"faults", faults},
          {"output", {{"trace", true}}}};
}

// Runs a scenario in a child process and returns its results.json (plus the trace's fault slices).
json run_results(const json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    json j = json::parse(collect_results(sim).json.dump());
    std::ostringstream trace;
    sim.context().trace.write(trace);
    json events = json::array();
    const json all = json::parse(trace.str());
    for (auto& e : all["traceEvents"])
      if (e.contains("cat") && e["cat"] == "fault") events.push_back(e);
    j["fault_slices"] = events;
    return j.dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return json::parse(r.value);
}

double serialization_s(double bps) { return kBytes * (1 + kFraming / kMtu) * 8 / bps; }

TEST(Faults, DegradedLinkSlowsABandwidthBoundTransferByOneOverTheFactor) {
  const double base = run_results(sendrecv_scenario(json::array()))["collectives"][0]["time_s"];
  const double alpha = base - serialization_s(kEthBps);  // latency part, unchanged by the fault
  for (double f : {0.5, 0.25}) {
    json faults = {{{"kind", "link_degrade"}, {"target", "link:node0.nic0-switch"}, {"bandwidth_factor", f}}};
    json r = run_results(sendrecv_scenario(faults));
    const double t = r["collectives"][0]["time_s"];
    EXPECT_NEAR(t, alpha + serialization_s(f * kEthBps), 0.02 * t) << f;
    EXPECT_NEAR(t / base, 1 / f, 0.02 / f) << f;
    // results.json lists it with what it matched and when it was in effect.
    const json& e = r["faults"][0];
    EXPECT_EQ(e["index"], 0);
    EXPECT_EQ(e["kind"], "link_degrade");
    EXPECT_EQ(e["matched"], json({"link:node0.nic0-switch"}));
    EXPECT_EQ(e["applied"], true);
    EXPECT_DOUBLE_EQ(e["start_s"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(e["end_s"].get<double>(), r["sim"]["simulated_s"].get<double>());
    EXPECT_EQ(e["params"]["bandwidth_factor"], f);
    ASSERT_EQ(r["fault_slices"].size(), 1u);
    EXPECT_EQ(r["fault_slices"][0]["name"], "link_degrade link:node0.nic0-switch");
  }
}

TEST(Faults, AddedLatencyAddsToTheTransferOnce) {
  const double base = run_results(sendrecv_scenario(json::array()))["collectives"][0]["time_s"];
  json faults = {{{"kind", "link_degrade"}, {"target", "link:node1.nic0-switch"}, {"added_latency", "50us"}}};
  json r = run_results(sendrecv_scenario(faults));
  EXPECT_NEAR(r["collectives"][0]["time_s"].get<double>(), base + 50e-6, 1e-3 * base);
}

TEST(Faults, LinkDownForAWindowDelaysTheTransferByTheWindow) {
  const double base = run_results(sendrecv_scenario(json::array()))["collectives"][0]["time_s"];
  json faults = {
      {{"kind", "link_down"}, {"target", "link:node0.nic0-switch"}, {"start", "300us"}, {"duration", "1ms"}}};
  json r = run_results(sendrecv_scenario(faults));
  const double t = r["collectives"][0]["time_s"];
  EXPECT_NEAR(t, base + 1e-3, 0.02 * (base + 1e-3));
  EXPECT_GT(t, base + 1e-3 - 1e-6);  // nothing moves while it is down
  const json& e = r["faults"][0];
  EXPECT_NEAR(e["start_s"].get<double>(), 300e-6, 1e-15);
  EXPECT_NEAR(e["end_s"].get<double>(), 1.3e-3, 1e-15);
  ASSERT_EQ(r["fault_slices"].size(), 1u);
  EXPECT_NEAR(r["fault_slices"][0]["dur"].get<double>(), 1000.0, 1e-6);  // microseconds
}

TEST(Faults, LinkDownForTheRestOfTheRunStallsIt) {
  json faults = {{{"kind", "link_down"}, {"target", "node1.nic0"}, {"start", "100us"}}};
  auto r = in_child([&] {
    Scenario s = load_scenario(sendrecv_scenario(faults), "t");
    Simulation sim(s);
    return test::run_or_error(sim);
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_NE(r.value.find("RunError: simulation stalled"), std::string::npos) << r.value;
}

TEST(Faults, FaultAfterTheEndOfTheRunIsListedButNotApplied) {
  json faults = {{{"kind", "link_down"}, {"target", "switch"}, {"start", "1s"}, {"duration", "1s"}}};
  json r = run_results(sendrecv_scenario(faults));
  EXPECT_LT(r["sim"]["simulated_s"].get<double>(), 0.01);  // the pending fault does not extend the run
  EXPECT_EQ(r["faults"][0]["applied"], false);
  EXPECT_TRUE(r["faults"][0]["start_s"].is_null());
  EXPECT_EQ(r["faults"][0]["matched"].size(), 2u);  // both NIC links of the switch
  EXPECT_TRUE(r["fault_slices"].empty());
}

// Explicit layers with measured times: compute per iteration is known exactly.
constexpr int kLayers = 4;
constexpr double kFwd = 1e-3, kBwdIn = 1.5e-3, kBwdW = 1.5e-3;

json layers_json(bool measured, int kernels) {
  json layers = json::array();
  for (int i = 0; i < kLayers; ++i) {
    json l = {{"name", "l" + std::to_string(i)}, {"params", 1000000}};
    if (measured) {
      l["fwd_time"] = "1ms", l["bwd_input_time"] = "1.5ms", l["bwd_weight_time"] = "1.5ms";
    } else {
      l["fwd_flops"] = 1e11, l["bwd_flops"] = 2e11, l["kernels"] = kernels;
    }
    layers.push_back(l);
  }
  return layers;
}

json ddp_scenario(const json& faults) {
  return {{"trainvp", 1},
          {"name", "faults-ddp"},
          {"cluster",
           {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"topology", "switch"}}}}},
          {"workload", {{"layers", layers_json(true, 1)}}},
          {"training", {{"iterations", 4}, {"warmup", 1}, {"optimizer", "sgd"}, {"sync", {{"strategy", "ddp"}}}}},
          {"faults", faults},
          {"output", {{"trace", false}}}};
}

TEST(Faults, OneSlowGpuSetsThePaceOfEveryRankUnderDdp) {
  const double f = 0.8;
  json base = run_results(ddp_scenario(json::array()));
  json slow = run_results(ddp_scenario({{{"kind", "gpu_slowdown"}, {"target", "node1.gpu1"}, {"factor", f}}}));
  const double compute = base["ranks"][0]["compute_s"];
  // Closed form: the layers' measured times plus the optimizer step (roofline, same on every GPU).
  EXPECT_GT(compute, kLayers * (kFwd + kBwdIn + kBwdW));
  const double increase = compute / f - compute;
  EXPECT_NEAR(slow["ranks"][3]["compute_s"].get<double>(), compute / f, 1e-9);
  for (int r = 0; r < 4; ++r) {
    const double grow =
        slow["ranks"][r]["iteration_time_s"].get<double>() - base["ranks"][r]["iteration_time_s"].get<double>();
    EXPECT_NEAR(grow, increase, 0.03 * increase) << "rank " << r;
    if (r != 3) {
      EXPECT_NEAR(slow["ranks"][r]["compute_s"].get<double>(), compute, 1e-9) << r;  // it waits, not computes
    }
  }
  EXPECT_NEAR(slow["iteration_time_s"].get<double>() - base["iteration_time_s"].get<double>(), increase,
              0.03 * increase);
}

// Per rank, per iteration: [compute_s, blocked_s, duration_s] from the GPUs' records.
json rank_iterations(const json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    json out = json::array();
    for (const Gpu* g : sim.gpus()) {
      json its = json::array();
      for (const RankIteration& it : g->iterations())
        its.push_back({static_cast<double>(it.compute_ps) * 1e-12, static_cast<double>(it.blocked_ps) * 1e-12,
                       static_cast<double>(it.end_ps - it.start_ps) * 1e-12});
      out.push_back(its);
    }
    return out.dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return json::parse(r.value);
}

TEST(Faults, UnderLocalSgdTheOthersWaitForASlowGpuOnlyAtSynchronizationPoints) {
  const int H = 4, iterations = 8;
  const double f = 0.5;
  json doc = ddp_scenario(json::array());
  doc["training"] = {{"iterations", iterations},
                     {"warmup", 0},
                     {"optimizer", "sgd"},
                     {"sync", {{"strategy", "localsgd"}, {"period", H}}}};
  json base = rank_iterations(doc);
  doc["faults"] = {{{"kind", "gpu_slowdown"}, {"target", "node1.gpu1"}, {"factor", f}}};
  json slow = rank_iterations(doc);
  const int slow_rank = 3;
  for (int i = 0; i < iterations; ++i) {
    // Parameters are averaged after the step of every H-th iteration; a rank waits for the
    // average at the start of the next iteration (the last average ends the run).
    const bool waits = i > 0 && i % H == 0;
    // The slow GPU's compute is divided by f in every iteration.
    EXPECT_NEAR(slow[slow_rank][i][0].get<double>(), base[slow_rank][i][0].get<double>() / f, 1e-9) << i;
    for (int r = 0; r < 3; ++r) {
      const json& b = base[r][i];
      const json& s = slow[r][i];
      EXPECT_NEAR(s[0].get<double>(), b[0].get<double>(), 1e-9) << "rank " << r << " it " << i;  // unaffected compute
      if (!waits) {
        // Between synchronizations a healthy rank runs at its own pace: no wait, same iteration time.
        EXPECT_EQ(s[1].get<double>(), 0.0) << "rank " << r << " it " << i;
        EXPECT_NEAR(s[2].get<double>(), b[2].get<double>(), 1e-9) << "rank " << r << " it " << i;
      } else {
        // At the synchronization it waits for the slow GPU's accumulated lag over the period.
        double lag = 0;
        for (int k = i - H; k < i; ++k)
          lag += slow[slow_rank][k][0].get<double>() - base[slow_rank][k][0].get<double>();
        EXPECT_NEAR(s[1].get<double>() - b[1].get<double>(), lag, 0.02 * lag) << "rank " << r << " it " << i;
      }
    }
  }
}

TEST(Faults, GpuSlowdownRampsInTenStepsAndEndsWithItsWindow) {
  // One GPU, no sync: iteration i's compute shows the factor in effect while it ran.
  json doc = ddp_scenario(json::array());
  doc["cluster"]["nodes"] = 1, doc["cluster"]["node"]["gpus"] = 1;
  doc["training"] = {{"iterations", 6}, {"warmup", 1}, {"optimizer", "none"}};
  const double it = kLayers * (kFwd + kBwdIn + kBwdW);  // 20 ms
  doc["faults"] = {{{"kind", "gpu_slowdown"},
                    {"target", "node0.*"},
                    {"factor", 0.5},
                    {"start", "20ms"},
                    {"ramp", "10ms"},
                    {"duration", "60ms"}}};
  json r = run_results(doc);
  auto dur = [&](int i) { return r["iterations"][i]["duration_s"].get<double>(); };
  EXPECT_NEAR(dur(0), it, 1e-9);
  // Iteration 1 starts with the ramp: its phases run at 1, 0.95, ... as the steps pass.
  EXPECT_GT(dur(1), it * 1.2);
  EXPECT_LT(dur(1), it / 0.5);
  EXPECT_NEAR(dur(2), it / 0.5, 1e-3 * it);  // fully throttled
  EXPECT_NEAR(r["faults"][0]["end_s"].get<double>(), 0.08, 1e-12);
  // After 80 ms the GPU is back at full rate.
  EXPECT_NEAR(dur(5), it, 1e-9);
}

TEST(Faults, CpuContentionMultipliesTheLaunchOverhead) {
  const int kernels = 5;
  const double lf = 3.0, launch = 4e-6, rate = 989e12 * 0.5;  // H100 bf16 peak x default efficiency
  json doc = {{"trainvp", 1},
              {"name", "faults-cpu"},
              {"cluster", {{"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}}},
              {"workload", {{"layers", layers_json(false, kernels)}}},
              {"training", {{"iterations", 3}, {"warmup", 1}, {"optimizer", "none"}}},
              {"output", {{"trace", false}}}};
  json base = run_results(doc);
  doc["faults"] = {{{"kind", "cpu_contention"}, {"target", "node0.gpu0"}, {"launch_factor", lf}}};
  json cont = run_results(doc);
  // Per iteration: every layer runs fwd, dX and dW, each `kernels` launches.
  const double launches = 3.0 * kLayers * kernels;
  const double flops_s = kLayers * 3e11 / rate;
  EXPECT_NEAR(base["compute_time_s"].get<double>(), flops_s + launches * launch, 1e-9);
  EXPECT_NEAR(cont["compute_time_s"].get<double>(), flops_s + launches * launch * lf, 1e-9);
  EXPECT_EQ(cont["faults"][0]["params"]["launch_factor"], lf);
}

// ---- validation ----

std::string load_error(const json& faults, std::string* path = nullptr) {
  try {
    load_scenario(sendrecv_scenario(faults), "t");
  } catch (const ScenarioError& e) {
    if (path) *path = e.path;
    return e.what();
  }
  return "no error";
}

TEST(FaultsValidation, BadFaultsNameTheirIndex) {
  const json ok = {{"kind", "link_down"}, {"target", "switch"}, {"duration", "1ms"}};
  struct Case {
    json fault;
    std::string path, text;
  } cases[] = {
      {{{"kind", "meteor"}, {"target", "switch"}}, "/faults/1/kind", "a fault kind"},
      {{{"target", "switch"}}, "/faults/1/kind", "missing required key \"kind\""},
      {{{"kind", "link_down"}, {"target", "switch"}, {"duration", "-1ms"}}, "/faults/1/duration", "expected"},
      {{{"kind", "link_down"}, {"target", "switch"}, {"duration", "0s"}}, "/faults/1/duration", "greater than zero"},
      {{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}, {"factor", 0}}, "/faults/1/factor", "(0, 1]"},
      {{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}, {"factor", 1.5}}, "/faults/1/factor", "(0, 1]"},
      {{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}}, "/faults/1/factor", "missing required key"},
      {{{"kind", "link_degrade"}, {"target", "switch"}, {"bandwidth_factor", 1.5}},
       "/faults/1/bandwidth_factor",
       "(0, 1]"},
      {{{"kind", "link_degrade"}, {"target", "switch"}}, "/faults/1", "bandwidth_factor"},
      {{{"kind", "cpu_contention"}, {"target", "node0.gpu0"}, {"launch_factor", 0.5}},
       "/faults/1/launch_factor",
       ">= 1"},
      {{{"kind", "link_down"}, {"target", "switch"}, {"factor", 0.5}}, "/faults/1/factor", "unknown key"},
      {{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}, {"factor", 0.5}, {"ramp", "2ms"}, {"duration", "1ms"}},
       "/faults/1/ramp",
       "no longer than the duration"},
  };
  for (const Case& c : cases) {
    std::string path;
    std::string msg = load_error(json::array({ok, c.fault}), &path);
    EXPECT_EQ(path, c.path) << msg;
    EXPECT_NE(msg.find(c.text), std::string::npos) << msg;
  }
  EXPECT_EQ(load_error(json::array({ok})), "no error");
}

TEST(FaultsValidation, TargetMatchingNothingIsAScenarioErrorBeforeTheRun) {
  struct Case {
    json fault;
    std::string text;
  } cases[] = {
      {{{"kind", "link_degrade"}, {"target", "link:node7.*"}, {"bandwidth_factor", 0.5}}, "applies to links"},
      {{{"kind", "gpu_slowdown"}, {"target", "node0.nic0"}, {"factor", 0.5}}, "applies to GPUs"},
      {{{"kind", "cpu_contention"}, {"target", "node3.*"}, {"launch_factor", 2}}, "node1.gpu0"},
  };
  for (const Case& c : cases) {
    const std::string err = test::elaboration_error(
        sendrecv_scenario(json::array({json{{"kind", "link_down"}, {"target", "switch"}}, c.fault})));
    EXPECT_EQ(err.substr(0, err.find('|')), "/faults/1/target") << err;
    EXPECT_NE(err.find(c.text), std::string::npos) << err;
  }
}

}  // namespace test_faults
}  // namespace trainvp

namespace trainvp {
namespace test_faults {

TEST(FaultReport, DegradationReportMeasuresAgainstTheFaultFreePrefix) {
  // The shipped scenario: a GPU at 80% for 100 ms from 85 ms, in 12 iterations of about 20.8 ms.
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/faults/slow-gpu-ddp.json");
  doc["output"]["trace"] = false;
  json r = test::simulate(doc);
  const json& d = r["degradation"];
  ASSERT_EQ(d["baseline_source"], "fault-free prefix");
  // Recompute every figure from the iteration list.
  std::vector<double> prefix, measured;
  double base_end = 0.085;
  for (auto& it : r["iterations"]) {
    if (it["warmup"].get<bool>()) continue;
    measured.push_back(it["duration_s"].get<double>());
    if (it["end_s"].get<double>() <= base_end) prefix.push_back(it["duration_s"].get<double>());
  }
  ASSERT_FALSE(prefix.empty());
  std::sort(prefix.begin(), prefix.end());
  const double base = prefix[prefix.size() / 2];
  EXPECT_DOUBLE_EQ(d["baseline_iteration_s"].get<double>(), base);
  double lost = 0, below = 0;
  int below_n = 0;
  for (double m : measured) {
    lost += std::max(0.0, m - base);
    if (60 / m < 0.9 * 60 / base) below += m, ++below_n;
  }
  EXPECT_NEAR(d["gpu_hours_lost"].get<double>(), lost * 16 / 3600, 1e-15);
  EXPECT_NEAR(d["healthy_gpu_hours_stranded"].get<double>(), lost * 15 / 3600, 1e-15);
  EXPECT_NEAR(d["time_below_slo_s"].get<double>(), below, 1e-12);
  EXPECT_EQ(d["iterations_below_slo"].get<int>(), below_n);
  EXPECT_GT(below_n, 0);
  EXPECT_EQ(d["ranks_affected"], json::array({"node1.gpu3"}));
  EXPECT_LT(d["p5_iterations_per_min"].get<double>(), d["p50_iterations_per_min"].get<double>());
  EXPECT_EQ(d["timeline"].size(), measured.size());
}

TEST(FaultReport, DeclaredBaselineAndFractionAreUsed) {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/faults/slow-gpu-ddp.json");
  doc["output"]["trace"] = false;
  doc["slo"] = {{"fraction", 0.5}, {"baseline", "10ms"}};
  json d = test::simulate(doc)["degradation"];
  EXPECT_EQ(d["baseline_source"], "declared");
  EXPECT_DOUBLE_EQ(d["baseline_iteration_s"].get<double>(), 0.010);
  EXPECT_EQ(d["iterations_below_slo"].get<int>(), 11);  // every measured iteration is over 20 ms
  try {
    doc["slo"] = {{"fraction", 1.5}};
    load_scenario(doc, "t");
    ADD_FAILURE() << "fraction 1.5 accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/slo/fraction");
  }
}

TEST(FaultReport, PeriodicStrategiesAreMeasuredOverWholePeriods) {
  // localsgd's averaging iterations are longer by design: over windows of one period a healthy run
  // never falls below its SLO, and each window's rate is W iterations over their summed time.
  const int H = 4;
  json doc = ddp_scenario(json::array());
  doc["training"] = {
      {"iterations", 13}, {"warmup", 1}, {"optimizer", "sgd"}, {"sync", {{"strategy", "localsgd"}, {"period", H}}}};
  doc["slo"] = {{"fraction", 0.99}};
  json r = test::simulate(doc);
  const json& d = r["degradation"];
  EXPECT_EQ(d["window_iterations"].get<int>(), H);
  const json& it = r["iterations"];
  // Windows start at the first multiple of H at or after the warm-up: iterations 4..7 and 8..11.
  ASSERT_EQ(d["timeline"].size(), 2u);
  for (int w = 0; w < 2; ++w) {
    double sum = 0;
    for (int k = 4 + w * H; k < 8 + w * H; ++k) sum += it[k]["duration_s"].get<double>();
    EXPECT_NEAR(d["timeline"][w]["iterations_per_min"].get<double>(), 60.0 * H / sum, 1e-9);
    EXPECT_NEAR(d["timeline"][w]["end_s"].get<double>(), it[7 + w * H]["end_s"].get<double>(), 1e-12);
  }
  // The averaging iteration is longer than the others, yet no window is below 99% of the baseline.
  EXPECT_GT(it[4]["duration_s"].get<double>(), 1.01 * it[5]["duration_s"].get<double>());
  EXPECT_EQ(d["iterations_below_slo"].get<int>(), 0);
  EXPECT_DOUBLE_EQ(d["time_below_slo_s"].get<double>(), 0.0);
}

// S3's move (FaultInjector::swap_nodes): node slots 0 and 2 exchange their hardware, so a GPU
// fault on node 0 then slows node 2's GPU of the same local index, a fault on node 0's NIC uplink
// acts on node 2's NIC uplink (to node 2's own leaf), and a fault on a leaf's uplink to a spine
// stays where it is.
TEST(Faults, ANodeSwapMovesItsGpuAndLinkFaultsAndLeavesTheCoreAlone) {
  const json doc = {
      {"trainvp", 1},
      {"name", "swap-test"},
      {"cluster",
       {{"nodes", 4},
        {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}, {"nics", 2}}},
        {"fabric", {{"topology", "leaf-spine"}, {"leaf_ports", 4}, {"link_bw", "100Gbps"}}}}},
      {"workload", {{"kind", "collective"}, {"op", "all_reduce"}, {"bytes", "1MiB"}, {"iterations", 1}, {"warmup", 0}}},
      {"faults",
       json::array({{{"kind", "gpu_slowdown"}, {"target", "node0.gpu1"}, {"factor", 0.5}},
                    {{"kind", "link_degrade"}, {"target", "link:node0.nic1-*"}, {"bandwidth_factor", 0.25}},
                    {{"kind", "link_degrade"}, {"target", "link:leaf0-spine0"}, {"bandwidth_factor", 0.5}}})}};
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    FaultInjector& f = *sim.faults();
    const Fabric& fab = sim.fabric();
    auto speed = [&](int rank) { return sim.gpus()[static_cast<std::size_t>(rank)]->speed(); };
    // The slowest direction of the links whose name starts with `prefix`, over 100 Gbit/s.
    auto link = [&](const std::string& prefix) {
      double bw = 1e300;
      for (const FabricDir& d : fab.dirs())
        if (fab.links()[static_cast<std::size_t>(d.link)].name.rfind(prefix, 0) == 0)
          bw = std::min(bw, d.dir->params().bandwidth_bps / 100e9);
      return bw;
    };
    auto state = [&] {
      return json{{"r1", speed(1)},
                  {"r5", speed(5)},
                  {"nic0_1", link("link:node0.nic1")},
                  {"nic2_1", link("link:node2.nic1")},
                  {"nic2_0", link("link:node2.nic0")},
                  {"core", link("link:leaf0-spine0")}};
    };
    f.apply_due(0);
    json out = {{"before", state()}};
    f.swap_nodes(0, 2);
    out["swapped"] = state();
    f.swap_nodes(0, 2);
    out["back"] = state();
    return out.dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  const json o = json::parse(r.value);
  const double full = o["before"]["r5"];
  EXPECT_DOUBLE_EQ(o["before"]["r1"].get<double>(), full * 0.5);
  EXPECT_DOUBLE_EQ(o["before"]["nic0_1"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(o["before"]["nic2_1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(o["swapped"]["r1"].get<double>(), full);
  EXPECT_DOUBLE_EQ(o["swapped"]["r5"].get<double>(), full * 0.5);  // node2.gpu1
  EXPECT_DOUBLE_EQ(o["swapped"]["nic0_1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(o["swapped"]["nic2_1"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(o["swapped"]["nic2_0"].get<double>(), 1.0);
  // A leaf-spine link runs at 4 ports x 100 Gbit/s over 2 spines; the fault halves it, before and after.
  EXPECT_DOUBLE_EQ(o["before"]["core"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(o["swapped"]["core"].get<double>(), 1.0);
  EXPECT_EQ(o["back"], o["before"]);
}

}  // namespace test_faults
}  // namespace trainvp
