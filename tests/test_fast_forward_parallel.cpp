// Steady-state fast-forward of hybrid-parallel runs (docs/performance.md#steady-state-fast-forward):
// a 16-GPU TP x PP x DP campaign run with it on and off gives the same results, every field within
// 0.1 %, and the run with it on really skipped iterations between the faults. Simulations run in
// forked children.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <tuple>

#include "platform/config/document.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/golden_compare/compare.hpp"
#include "tests/fast_forward_checks.hpp"
#include "tests/full_length.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_fast_forward_parallel {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

// bench/fast-forward-hybrid-16gpu.json (2 nodes of 8 H100, GPT-2 small over tp 2 x pp 2 x dp 4
// with 1F1B, ~1.9 s iterations, 900 of them with 8 faults drawn over 25 minutes: 10 s a run
// without fast-forward), shortened to a third with the same assertions: 300 iterations (~9.5
// minutes), GPU slowdowns and link degradations drawn twice as often over 8 minutes (6 faults, 6
// skips between them). At full length with TRAINVP_TEST_FULL_LENGTH=1 (scripts/check-release).
const int kIterations = test::full_length() ? 900 : 300;

json hybrid_campaign(const std::string& strategy, bool fast_forward, const char* fidelity = "packet") {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/bench/fast-forward-hybrid-16gpu.json");
  if (!test::full_length()) {
    doc["training"]["iterations"] = kIterations;
    doc["fault_generator"]["start"] = "1min";
    doc["fault_generator"]["horizon"] = "8min";
    doc["fault_generator"]["gpu_slowdown"]["rate"] = 4;
    doc["fault_generator"]["link_degrade"]["rate"] = 8;
  }
  doc["training"]["sync"]["strategy"] = strategy;
  doc["training"]["fast_forward"] = {{"enabled", fast_forward}};
  doc["cluster"]["fabric"]["fidelity"] = fidelity;
  return doc;
}

// Collectives that start at the same picosecond are listed in the order the kernel ran their
// launchers, which a skip may change (it schedules the GPUs' resumption differently): compare them
// in (start, label, end) order.
json with_sorted_collectives(json r) {
  auto& c = r["collectives"];
  std::stable_sort(c.begin(), c.end(), [](const json& a, const json& b) {
    return std::make_tuple(a["start_s"].get<double>(), a["label"].get<std::string>(), a["end_s"].get<double>()) <
           std::make_tuple(b["start_s"].get<double>(), b["label"].get<std::string>(), b["end_s"].get<double>());
  });
  return r;
}

void expect_same_results(const std::string& strategy, const char* fidelity = "packet") {
  const json on = with_sorted_collectives(test::simulate(hybrid_campaign(strategy, true, fidelity)));
  const json off = with_sorted_collectives(test::simulate(hybrid_campaign(strategy, false, fidelity)));
  test::expect_skips_between_faults(on, off, kIterations);
  // Every result field, integers included, within 0.1 %: the iteration list, per-rank and per-link
  // statistics (back-pressure included), the per-stage pipeline figures (bubble, TP, PP and DP
  // communication), the TP and PP traffic, the DP collectives, the degradation report.
  golden::Options opt = golden::default_options();
  opt.rel_tol = 1e-3;
  opt.integers_relative = true;
  opt.ignored.push_back("/fast_forward");
  opt.ignored.push_back("/scenario/training/fast_forward");
  for (const auto& d : golden::compare(off, on, opt)) ADD_FAILURE() << d;
  ASSERT_TRUE(on["degradation"]["gpu_hours_lost"].is_number());
  EXPECT_EQ(on["iterations"].size(), static_cast<std::size_t>(kIterations));
  EXPECT_GT(on["parallel"]["traffic"]["tp"]["collectives"].get<int>(), 0);
}

TEST(FastForwardParallel, HybridDdpCampaignGivesTheResultsOfAFullSimulation) { expect_same_results("ddp"); }

TEST(FastForwardParallel, HybridLayerwiseCampaignGivesTheResultsOfAFullSimulation) { expect_same_results("layerwise"); }

// In flow fidelity (the GREYHOUND 256-GPU campaign's) the flow network keeps the link counters.
TEST(FastForwardParallel, HybridDdpCampaignInFlowFidelityGivesTheResultsOfAFullSimulation) {
  expect_same_results("ddp", "flow");
}

// /output/collectives false: results sum the collectives by kind instead of listing them, and a
// skip adds its copies to the sums rather than to the engine's records (a 2-hour 256-GPU campaign
// listed 3.5 million). The totals equal the full simulation's list, summed by kind.
TEST(FastForwardParallel, CollectiveTotalsWithoutTheListEqualTheFullSimulationsList) {
  json doc = hybrid_campaign("ddp", true);
  doc["output"]["collectives"] = false;
  const json on = test::simulate(doc);
  const json off = test::simulate(hybrid_campaign("ddp", false));
  EXPECT_FALSE(on.contains("collectives"));
  EXPECT_GT(on["fast_forward"]["iterations_skipped"].get<int>(), 0);
  // The full simulation's DP collectives, summed; its TP and PP ones are in parallel.traffic.
  std::uint64_t n = 0, bytes = 0;
  double time = 0;
  for (const json& c : off["collectives"]) {
    ASSERT_EQ(c["label"].get<std::string>().rfind("ddp ", 0), 0u) << c.dump();
    ++n, bytes += c["bytes"].get<std::uint64_t>(), time += c["time_s"].get<double>();
  }
  const json& t = on["collective_totals"];
  EXPECT_EQ(t["ddp"]["collectives"].get<std::uint64_t>(), n);
  EXPECT_EQ(t["ddp"]["bytes"].get<std::uint64_t>(), bytes);
  EXPECT_NEAR(t["ddp"]["time_s"].get<double>(), time, 1e-3 * time);
  for (const char* kind : {"tp", "pp"}) {
    const json& full = off["parallel"]["traffic"][kind];
    EXPECT_EQ(t[kind]["collectives"], full["collectives"]) << kind;
    EXPECT_EQ(t[kind]["bytes"], full["bytes"]) << kind;
    EXPECT_NEAR(t[kind]["time_s"].get<double>(), full["time_s"].get<double>(), 1e-3 * full["time_s"].get<double>())
        << kind;
    // parallel.traffic says the same (summed in another order).
    EXPECT_EQ(on["parallel"]["traffic"][kind]["collectives"], t[kind]["collectives"]) << kind;
    EXPECT_EQ(on["parallel"]["traffic"][kind]["bytes"], t[kind]["bytes"]) << kind;
    EXPECT_NEAR(on["parallel"]["traffic"][kind]["time_s"].get<double>(), t[kind]["time_s"].get<double>(),
                1e-9 * t[kind]["time_s"].get<double>())
        << kind;
  }
  EXPECT_EQ(t.size(), 3u) << t.dump();
  // Everything else as the full simulation's, within 0.1 %.
  golden::Options opt = golden::default_options();
  opt.rel_tol = 1e-3;
  opt.integers_relative = true;
  for (const char* p : {"/fast_forward", "/scenario/training/fast_forward", "/scenario/output/collectives",
                        "/collectives", "/collective_totals"})
    opt.ignored.push_back(p);
  for (const auto& d : golden::compare(off, on, opt)) ADD_FAILURE() << d;
}

// A long run keeps memory bounded: the records of the kinds results only sum are folded into
// their sums as the run goes, once no later skip can repeat them. At the end the engine holds
// under a quarter of them (about the last 16 simulated iterations': 66,221 of 73,248 folded
// when written), and the totals are exact (the test above compares them with the
// full simulation's list; these runs are the same).
TEST(FastForwardParallel, SummedCollectivesAreFoldedAsTheRunGoes) {
  json doc = hybrid_campaign("ddp", true);
  doc["output"]["collectives"] = false;
  const test::ChildResult r = test::in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return std::to_string(sim.engine().first_record()) + " " + std::to_string(sim.engine().record_count());
  });
  ASSERT_TRUE(r.ok) << r.value;
  std::size_t folded = 0, all = 0;
  std::sscanf(r.value.c_str(), "%zu %zu", &folded, &all);
  EXPECT_GT(all, 0u);
  EXPECT_GT(folded, all * 3 / 4) << folded << " of " << all;
  const json on = test::simulate(doc);
  const json& t = on["collective_totals"];
  std::uint64_t counted = 0;
  for (const char* kind : {"ddp", "tp", "pp"}) counted += t[kind]["collectives"].get<std::uint64_t>();
  EXPECT_GE(counted, all);  // every record, folded or not, and the skipped iterations' copies
}

// ZeRO's parameter all-gather runs across the iteration boundary and the next iteration waits for
// it: a skip cannot stand one gather for another without moving that wait, so it does not skip.
TEST(FastForwardParallel, ZeroRunsSayWhyTheyAreNotSkipped) {
  json doc = hybrid_campaign("ddp", true);
  doc["training"]["iterations"] = 30;
  doc["training"]["parallel"]["zero"] = 1;
  doc.erase("fault_generator");
  const json r = test::simulate(doc);
  EXPECT_FALSE(r["fast_forward"]["enabled"].get<bool>());
  EXPECT_NE(r["fast_forward"]["off_reason"].get<std::string>().find("ZeRO"), std::string::npos);
  EXPECT_EQ(r["fast_forward"]["iterations_skipped"].get<int>(), 0);
}

}  // namespace test_fast_forward_parallel
}  // namespace trainvp
