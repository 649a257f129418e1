// The CXL device with the Verilated grad_reduce: both fidelities agree, the RTL variant changes
// results, cxl_allreduce runs in benchmarks and under DDP, and bad CXL scenarios are errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/self_exe.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/command.hpp"
#include "tests/cxl_bench.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_cxl {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::cxl_bench;
using test::in_child;

json run(const json& doc) { return test::simulate(doc); }

TEST(Cxl, RtlAndCalibratedFidelityAgreeOnTimingWithinFivePercent) {
  TRAINVP_REQUIRE_RTL();
  for (const char* bytes : {"64KiB", "3MiB"}) {
    json rtl = run(cxl_bench("rtl", 16, bytes)), cal = run(cxl_bench("calibrated", 16, bytes));
    double tr = rtl["collectives"][0]["time_s"].get<double>(), tc = cal["collectives"][0]["time_s"].get<double>();
    EXPECT_NEAR(tc, tr, 0.05 * tr) << bytes;
    EXPECT_EQ(rtl["cxl"][0]["engine_cycles"], cal["cxl"][0]["engine_cycles"]) << bytes;
  }
}

TEST(Cxl, EngineCyclesFollowTheRtlThroughputOfOneContributionPerCycle) {
  TRAINVP_REQUIRE_RTL();
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
  TRAINVP_REQUIRE_RTL();
  double t8 = run(cxl_bench("calibrated", 8, "64MiB"))["collectives"][0]["time_s"].get<double>();
  double t32 = run(cxl_bench("calibrated", 32, "64MiB"))["collectives"][0]["time_s"].get<double>();
  EXPECT_LT(t32, 0.6 * t8) << "LANES 8: " << t8 << " s, LANES 32: " << t32 << " s";
}

TEST(Cxl, DdpCanAllReduceThroughTheDevice) {
  TRAINVP_REQUIRE_RTL();
  json doc = {
      {"trainvp", 1},
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
  TRAINVP_REQUIRE_RTL();
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
  json multi = {
      {"trainvp", 1},
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

}  // namespace test_cxl
}  // namespace trainvp

namespace trainvp {
namespace test_cxl {

TEST(Cxl, FunctionalModeChecksEveryEngineLineAgainstTheReference) {
  TRAINVP_REQUIRE_RTL();
  json doc = cxl_bench("rtl", 16, "256KiB");
  doc["workload"]["functional"] = true;
  json r = run(doc);
  // 4 contributors, one 256 KiB segment (the chunk is 1 MiB): one job of 256 KiB / 64 B lines.
  EXPECT_EQ(r["cxl"][0]["jobs"], 1);
  EXPECT_EQ(r["cxl"][0]["functional_lines_checked"].get<std::uint64_t>(), 256u * 1024 / 64);
}

TEST(Cxl, FunctionalModeNeedsACxlAlgorithmAndRespectsItsCap) {
  TRAINVP_REQUIRE_RTL();
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

// The Verilated variants are modules loaded on first use (models/cxl/rtl_engine.cpp): a missing one
// is a failed run (exit 1) that says how to build it, a module of another variant is refused, and
// an installed binary looks beside its prefix before the build tree.
TEST(Cxl, AMissingRtlModuleFailsTheRunAndNamesTheTargetThatBuildsIt) {
  TRAINVP_REQUIRE_RTL();
  const std::string empty = ::testing::TempDir() + "trainvp-no-rtl";
  std::filesystem::create_directories(empty);
  const test::Cmd c = test::trainvp("run scenarios/cxl/pcie-node-ring-vs-cxl.json -q -o " + empty + "/out");
  EXPECT_EQ(c.code, 0) << c.out;  // the build tree's modules
  const test::Cmd miss =
      test::run_command("cd " TRAINVP_SOURCE_DIR " && TRAINVP_RTL_DIR=" + empty +
                        " " TRAINVP_BINARY " run scenarios/cxl/pcie-node-ring-vs-cxl.json -q -o " + empty + "/miss");
  EXPECT_EQ(miss.code, 1) << miss.out;
  EXPECT_NE(miss.out.find("no grad_reduce_l16.so in " + empty), std::string::npos) << miss.out;
  EXPECT_NE(miss.out.find("--target trainvp_rtl"), std::string::npos) << miss.out;
  EXPECT_FALSE(std::filesystem::exists(empty + "/miss/results.json"));
}

TEST(Cxl, AModuleOfAnotherVariantIsRefused) {
  TRAINVP_REQUIRE_RTL();
  const std::string dir = ::testing::TempDir() + "trainvp-wrong-rtl";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::string(TRAINVP_RTL_BUILD_DIR) + "/" + rtl_module_name(8, WaveFormat::Vcd),
                             dir + "/" + rtl_module_name(16, WaveFormat::Vcd),
                             std::filesystem::copy_options::overwrite_existing);
  const test::Cmd c =
      test::run_command("cd " TRAINVP_SOURCE_DIR " && TRAINVP_RTL_DIR=" + dir +
                        " " TRAINVP_BINARY " run scenarios/cxl/pcie-node-ring-vs-cxl.json -q -o " + dir + "/out");
  EXPECT_EQ(c.code, 1) << c.out;
  EXPECT_NE(c.out.find("is not a grad_reduce LANES 16 module"), std::string::npos) << c.out;
}

TEST(Cxl, RtlModulesAreFoundBesideAnInstalledBinaryBeforeTheBuildTree) {
  const auto dirs = rtl_module_dirs();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs.back(), TRAINVP_RTL_BUILD_DIR);
  // This test binary stands for an installed PREFIX/bin/trainvp: PREFIX/lib/trainvp/rtl.
  const std::filesystem::path prefix = std::filesystem::path(self_executable()).parent_path().parent_path();
  EXPECT_EQ(dirs[dirs.size() - 2], (prefix / "lib" / "trainvp" / "rtl").string());
  EXPECT_EQ(rtl_module_name(16, WaveFormat::Fst), "grad_reduce_l16_fst.so");
}

TEST(Cxl, HierarchicalReducesInEveryNodesDeviceAndRingsBetweenThem) {
  TRAINVP_REQUIRE_RTL();
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
    EXPECT_EQ(d["bytes_reduced"].get<std::uint64_t>(), 8 * (4 * seg + 2 * (part[(i + 2) % 3] + part[(i + 1) % 3])))
        << i;
  }
  EXPECT_GT(r["collectives"][0]["busbw_GBps"].get<double>(), 0);
}

}  // namespace test_cxl
}  // namespace trainvp
