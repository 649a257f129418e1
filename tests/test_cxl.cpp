// The CXL device with the Verilated grad_reduce: both fidelities agree, the RTL variant changes
// results, cxl_allreduce runs in benchmarks and under DDP, and bad CXL scenarios are errors.
#include <gtest/gtest.h>

#include "models/cxl/rtl_engine.hpp"
#include "platform/core/errors.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/cxl_bench.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace {

using test::cxl_bench;
using test::in_child;

json run(const json& doc) { return test::simulate(doc); }

#define REQUIRE_RTL() \
  if (!rtl_available()) GTEST_SKIP() << "built without the RTL (-DTRAINVP_RTL=OFF)"

TEST(Cxl, RtlAndCalibratedFidelityAgreeOnTimingWithinFivePercent) {
  REQUIRE_RTL();
  for (const char* bytes : {"64KiB", "3MiB"}) {
    json rtl = run(cxl_bench("rtl", 16, bytes)), cal = run(cxl_bench("calibrated", 16, bytes));
    double tr = rtl["collectives"][0]["time_s"].get<double>(), tc = cal["collectives"][0]["time_s"].get<double>();
    EXPECT_NEAR(tc, tr, 0.05 * tr) << bytes;
    EXPECT_EQ(rtl["cxl"][0]["engine_cycles"], cal["cxl"][0]["engine_cycles"]) << bytes;
  }
}

TEST(Cxl, EngineCyclesFollowTheRtlThroughputOfOneContributionPerCycle) {
  REQUIRE_RTL();
  // N contributors of L lines: the engine takes one contribution per cycle (docs/rtl.md), so its
  // cycles grow by N per line.
  auto e = make_rtl_engine(16);
  for (int n : {2, 4, 8}) {
    RtlJob a{n, 100, false, false}, b{n, 300, false, false};
    std::uint64_t ca = e->run(a).cycles, cb = e->run(b).cycles;
    EXPECT_EQ(cb - ca, static_cast<std::uint64_t>(200 * n)) << n;
  }
}

TEST(Cxl, AWiderEngineVariantReducesFaster) {
  REQUIRE_RTL();
  double t8 = run(cxl_bench("calibrated", 8, "64MiB"))["collectives"][0]["time_s"].get<double>();
  double t32 = run(cxl_bench("calibrated", 32, "64MiB"))["collectives"][0]["time_s"].get<double>();
  EXPECT_LT(t32, 0.6 * t8) << "LANES 8: " << t8 << " s, LANES 32: " << t32 << " s";
}

TEST(Cxl, DdpCanAllReduceThroughTheDevice) {
  REQUIRE_RTL();
  json doc = {{"trainvp", 1},
              {"name", "ddp-cxl"},
              {"cluster", {{"nodes", 1}, {"node", {{"gpus", 4}, {"gpu", "RTX-A6000"}, {"cxl", {{"present", true}}}}}}},
              {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 512}}},
              {"training", {{"iterations", 2}, {"warmup", 1}, {"sync", {{"strategy", "ddp"}, {"algorithm", "cxl_allreduce"}}}}},
              {"output", {{"trace", false}}}};
  json r = run(doc);
  EXPECT_GT(r["comm_time_s"].get<double>(), 0);
  EXPECT_EQ(r["collectives"][0]["algorithm"], "cxl_allreduce");
  // Every bucket of both iterations was reduced in the device, from 4 contributors.
  std::uint64_t grad = r["workload"]["gradient_bytes"].get<std::uint64_t>();
  EXPECT_EQ(r["cxl"][0]["bytes_reduced"].get<std::uint64_t>(), 2 * 4 * grad);
}

TEST(Cxl, ABuildWithoutTheRtlRejectsTheDevice) {
  if (rtl_available()) GTEST_SKIP() << "this build has the RTL";
  try {
    load_scenario(cxl_bench("calibrated", 16, "1MiB"), "t");
    ADD_FAILURE() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/cluster/node/cxl/engine_lanes") << e.what();
  }
}

TEST(Cxl, BadCxlScenariosAreClearErrors) {
  REQUIRE_RTL();
  std::vector<test::BadCase> cases = {
      {"no device", [](json& d) { d["cluster"]["node"]["cxl"]["present"] = false; }, "/cluster/node/cxl/present"},
      {"variant not compiled", [](json& d) { d["cluster"]["node"]["cxl"]["engine_lanes"] = 12; },
       "/cluster/node/cxl/engine_lanes"},
      {"odd interleave", [](json& d) { d["cluster"]["node"]["cxl"]["interleave_granularity"] = "300B"; },
       "/cluster/node/cxl/interleave_granularity"},
      {"waves without rtl", [](json& d) { d["output"]["waves"] = true; }, "/output/waves"},
      {"bad clock", [](json& d) { d["cluster"]["node"]["cxl"]["rtl_clock"] = "1GHzz"; }, "/cluster/node/cxl/rtl_clock"},
      {"cxl for all_gather", [](json& d) { d["workload"]["op"] = "all_gather"; }, "/workload/algorithm"},
  };
  test::expect_load_errors(cxl_bench("calibrated", 16, "1MiB"), cases);
  json multi = {{"trainvp", 1},
                {"name", "x"},
                {"cluster", {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "RTX-A6000"}, {"cxl", {{"present", true}}}}}}},
                {"workload", {{"model", "gpt2-small"}}},
                {"training", {{"sync", {{"strategy", "ddp"}, {"algorithm", "cxl_allreduce"}}}}}};
  try {
    load_scenario(multi, "t");
    ADD_FAILURE() << "multi-node cxl_allreduce accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/training/sync/algorithm") << e.what();
  }
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

TEST(Cxl, FunctionalModeChecksEveryEngineLineAgainstTheReference) {
  REQUIRE_RTL();
  json doc = cxl_bench("rtl", 16, "256KiB");
  doc["workload"]["functional"] = true;
  json r = run(doc);
  // 4 contributors, one 256 KiB segment (the chunk is 1 MiB): one job of 256 KiB / 64 B lines.
  EXPECT_EQ(r["cxl"][0]["jobs"], 1);
  EXPECT_EQ(r["cxl"][0]["functional_lines_checked"].get<std::uint64_t>(), 256u * 1024 / 64);
}

TEST(Cxl, FunctionalModeNeedsACxlAlgorithmAndRespectsItsCap) {
  REQUIRE_RTL();
  json doc = cxl_bench("calibrated", 16, "1MiB");
  doc["workload"]["functional"] = true;
  doc["workload"]["algorithm"] = "ring";
  try {
    load_scenario(doc, "t");
    ADD_FAILURE() << "functional ring accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/workload/functional");
  }
  doc["workload"]["algorithm"] = "cxl_allreduce";
  doc["workload"]["functional_max_bytes"] = "512KiB";
  try {
    load_scenario(doc, "t");
    ADD_FAILURE() << "size above the cap accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/workload/functional_max_bytes");
  }
}

TEST(Cxl, HierarchicalReducesInEveryNodesDeviceAndRingsBetweenThem) {
  REQUIRE_RTL();
  json doc = cxl_bench("calibrated", 32, "8MiB");
  doc["cluster"]["nodes"] = 3;
  doc["workload"]["algorithm"] = "cxl_hierarchical";
  json r = run(doc);
  ASSERT_EQ(r["cxl"].size(), 3u);
  // Per 1 MiB segment: each device reduces its 4 GPUs' copies (4 MiB of contributions), then in
  // the ring's 2 reduce-scatter steps adds a received part to its own (2 contributors each). The
  // parts split 262,144 4-byte elements in three: 87,382, 87,381, 87,381; device i receives parts
  // i - 1 and i - 2 (mod 3).
  const std::uint64_t seg = 1 << 20, part[3] = {4 * 87382, 4 * 87381, 4 * 87381};
  for (int i = 0; i < 3; ++i) {
    const json& d = r["cxl"][static_cast<std::size_t>(i)];
    EXPECT_EQ(d["jobs"].get<int>(), 8 * (1 + 2));
    EXPECT_EQ(d["bytes_reduced"].get<std::uint64_t>(), 8 * (4 * seg + 2 * (part[(i + 2) % 3] + part[(i + 1) % 3]))) << i;
  }
  EXPECT_GT(r["collectives"][0]["busbw_GBps"].get<double>(), 0);
}

}  // namespace
}  // namespace trainvp
