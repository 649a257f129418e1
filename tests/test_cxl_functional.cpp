// Functional training through the CXL devices (gradients' values travel in the chunks, the device
// reduces what arrived, every GPU checks what it receives against the reference sum), and the HDM
// decoder's interleaving of the reduction window over the device's ports.
#include <gtest/gtest.h>

#include "models/collectives/functional.hpp"
#include "models/collectives/program.hpp"
#include "models/cxl/reduce_ref.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "platform/core/errors.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/cxl_bench.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_cxl_functional {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// A small explicit model (three parameter layers, 96,004 parameters) trained with DDP through the
// devices; small buckets and chunks so several buckets, segments and stripes are in flight.
json functional_training(const std::string& algorithm, const std::string& fidelity, int nodes, int gpus,
                         const std::string& dtype = "fp32") {
  json layers = json::array();
  const std::vector<std::pair<std::string, long>> sizes = {{"embed", 60000}, {"mlp", 36000}, {"head", 4}};
  for (auto& [name, params] : sizes)
    layers.push_back({{"name", name}, {"params", params}, {"fwd_time", "20us"}, {"bwd_time", "40us"}});
  return {
      {"trainvp", 1},
      {"name", "fn"},
      {"seed", 7},
      {"cluster",
       {{"nodes", nodes},
        {"fabric", {{"chunk", "64KiB"}}},
        {"node",
         {{"gpus", gpus},
          {"gpu", "RTX-A6000"},
          {"cxl", {{"present", true}, {"fidelity", fidelity}, {"ports", 2}, {"interleave_granularity", "1KiB"}}}}}}},
      {"workload", {{"layers", layers}, {"grad_dtype", dtype}, {"functional", true}}},
      {"training",
       {{"iterations", 2},
        {"warmup", 1},
        {"sync", {{"strategy", "ddp"}, {"algorithm", algorithm}, {"bucket", "128KiB"}, {"first_bucket", "16KiB"}}}}},
      {"output", {{"trace", false}}}};
}

// Every GPU received every element of every bucket once per iteration, and each was checked.
void expect_all_checked(const json& r, int gpus, std::uint64_t elements) {
  ASSERT_TRUE(r.contains("functional")) << r.dump();
  EXPECT_EQ(r["functional"]["elements_checked"].get<std::uint64_t>(), 2u * static_cast<std::uint64_t>(gpus) * elements);
  EXPECT_EQ(r["functional"]["mismatches"], 0);
}

TEST(CxlFunctional, CxlAllReduceTrainingGradientsArriveAsTheReferenceSumInBothFidelities) {
  TRAINVP_REQUIRE_RTL();
  for (const char* fidelity : {"rtl", "calibrated"}) {
    json r = test::simulate(functional_training("cxl_allreduce", fidelity, 1, 4));
    expect_all_checked(r, 4, 96004);
    // The device reduced the real data: in rtl fidelity every line was also checked in the device.
    if (std::string(fidelity) == "rtl") {
      EXPECT_GT(r["cxl"][0]["functional_lines_checked"].get<std::uint64_t>(), 0u);
    }
  }
}

TEST(CxlFunctional, Bf16GradientsAreReducedAndCheckedToo) {
  TRAINVP_REQUIRE_RTL();
  json r = test::simulate(functional_training("cxl_allreduce", "rtl", 1, 3, "bf16"));
  expect_all_checked(r, 3, 96004);
}

TEST(CxlFunctional, CxlHierarchicalCarriesPartialSumsThroughTheDevicesRingInBothFidelities) {
  TRAINVP_REQUIRE_RTL();
  for (const char* fidelity : {"rtl", "calibrated"}) {
    json r = test::simulate(functional_training("cxl_hierarchical", fidelity, 3, 2));
    expect_all_checked(r, 6, 96004);
    ASSERT_EQ(r["cxl"].size(), 3u);
    // Each device received its 2 GPUs' gradients and 2 ring parts per segment from its neighbour.
    for (auto& d : r["cxl"]) EXPECT_GT(d["jobs"].get<int>(), 0);
  }
}

TEST(CxlFunctional, CarryingTheValuesChangesNoTiming) {
  TRAINVP_REQUIRE_RTL();
  json on = functional_training("cxl_hierarchical", "calibrated", 2, 2), off = on;
  off["workload"]["functional"] = false;
  json a = test::simulate(on), b = test::simulate(off);
  EXPECT_EQ(a["iterations"], b["iterations"]);
  EXPECT_EQ(a["collectives"], b["collectives"]);
  EXPECT_FALSE(b.contains("functional"));
}

TEST(CxlFunctional, TheReferenceFollowsTheEngineOrder) {
  // cxl_allreduce: one job, contributors in communicator order from -0; a different order gives
  // different bits for some element (so the order is really what is checked).
  BufferLayout l;
  l.layers = {{0, 4096}};
  FunctionalData f(3, DType::FP32, false, CollectiveAlgo::CxlAllReduce, {0, 1, 2, 3}, {0, 0, 0, 0}, 1 << 20, {"x"});
  bool order_matters = false;
  for (std::uint64_t e = 0; e < 1024; ++e) {
    std::uint32_t fwd = kFp32NegZero, rev = kFp32NegZero;
    for (int r = 0; r < 4; ++r) fwd = fp32_add(fwd, synthetic_gradient(3, 0, r, 0, e, false), false);
    for (int r = 3; r >= 0; --r) rev = fp32_add(rev, synthetic_gradient(3, 0, r, 0, e, false), false);
    EXPECT_EQ(f.reference(l, e), fwd) << e;
    order_matters |= fwd != rev;
  }
  EXPECT_TRUE(order_matters);
}

TEST(CxlFunctional, AFlippedBitInTheDeviceFailsTheRunNamingGpuIterationLayerAndElement) {
  TRAINVP_REQUIRE_RTL();
  auto r = test::in_child([] {
    Scenario s = load_scenario(functional_training("cxl_allreduce", "calibrated", 1, 4), "t");
    Simulation sim(s);
    sim.cxl_device(0).flip_result_bit(5, 3);  // first job: the first bucket's first segment (layer "head" first)
    return test::run_or_error(sim);
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_NE(r.value.find("RunError: functional check failed: node0.gpu"), std::string::npos) << r.value;
  EXPECT_NE(r.value.find("iteration 0"), std::string::npos) << r.value;
  EXPECT_NE(r.value.find("buffer element 5"), std::string::npos) << r.value;
  EXPECT_NE(r.value.find("reference 0x"), std::string::npos) << r.value;
}

TEST(CxlFunctional, BadFunctionalTrainingScenariosAreClearErrors) {
  TRAINVP_REQUIRE_RTL();
  std::vector<test::BadCase> cases = {
      {"ring", [](json& d) { d["training"]["sync"]["algorithm"] = "ring"; }, "/workload/functional"},
      {"layerwise", [](json& d) { d["training"]["sync"]["strategy"] = "layerwise"; }, "/workload/functional"},
      {"over the cap", [](json& d) { d["workload"]["functional_max_bytes"] = "256KiB"; },
       "/workload/functional_max_bytes"},
      {"odd chunk", [](json& d) { d["cluster"]["fabric"]["chunk"] = "65538B"; }, "/cluster/fabric/chunk"},
  };
  test::expect_load_errors(functional_training("cxl_allreduce", "calibrated", 1, 4), cases);
}

// ---- HDM decoding ----

TEST(CxlHdm, StripeBytesPerWayMatchACountOfEveryByte) {
  for (std::uint64_t g : {256u, 1024u, 4096u})
    for (int ways : {1, 2, 3, 4})
      for (std::uint64_t off : {0u, 256u, 1000u, 65536u})
        for (std::uint64_t n : {1u, 255u, 4096u, 10000u, 65536u}) {
          std::vector<std::uint64_t> count(static_cast<std::size_t>(ways), 0);
          for (std::uint64_t a = off; a < off + n; ++a) ++count[(a / g) % static_cast<std::uint64_t>(ways)];
          for (int k = 0; k < ways; ++k)
            EXPECT_EQ(hdm_bytes(off, n, g, ways, k), count[static_cast<std::size_t>(k)])
                << g << " " << ways << " " << off << " " << n;
        }
}

TEST(CxlHdm, DataRangePiecesCoverExactlyTheStripesOfTheirWay) {
  DataRange d;
  d.offset = 1000, d.span = 9000, d.stripe = 1024, d.ways = 3, d.way = 1;
  const std::uint64_t total = hdm_bytes(d.offset, d.span, d.stripe, d.ways, d.way);
  std::vector<std::uint64_t> seen;
  // In two calls, as two chunks of the transfer would ask.
  for (auto [o, n] : {std::pair<std::uint64_t, std::uint64_t>{0, 1500}, {1500, total - 1500}})
    d.pieces(o, n, [&](std::uint64_t addr, std::uint64_t at, std::uint64_t len) {
      EXPECT_EQ(at, seen.size());  // pieces come in transfer order, without gaps
      for (std::uint64_t i = 0; i < len; ++i) seen.push_back(addr + i);
    });
  std::vector<std::uint64_t> expected;
  for (std::uint64_t a = d.offset; a < d.offset + d.span; ++a)
    if ((a / d.stripe) % 3 == 1) expected.push_back(a);
  EXPECT_EQ(seen, expected);
}

json hdm_bench(int ports, const std::string& granularity, const std::string& bytes, int link_lanes = 16) {
  json d = test::cxl_bench("calibrated", 32, bytes);
  d["name"] = "hdm";
  json& cxl = d["cluster"]["node"]["cxl"];
  cxl.erase("fidelity");  // the default
  cxl["ports"] = ports, cxl["interleave_granularity"] = granularity, cxl["link_lanes"] = link_lanes;
  cxl["rtl_clock"] = "4GHz";
  return d;
}

TEST(CxlHdm, EachPortReceivesItsStripesBytes) {
  TRAINVP_REQUIRE_RTL();
  // The window's addresses are the buffer's, whatever the segments: over b bytes, port k of W
  // receives (b / (G W)) G + min(G, max(0, b mod (G W) - k G)) from each of the 4 GPUs.
  struct Case {
    int ports;
    const char* granularity;
    std::uint64_t g, bytes;
  };
  for (const Case& c : {Case{4, "256B", 256, 1000000}, Case{4, "4KiB", 4096, 3000000}, Case{3, "16KiB", 16384, 2500000},
                        Case{2, "1KiB", 1024, 1048576}}) {
    json r = test::simulate(hdm_bench(c.ports, c.granularity, std::to_string(c.bytes) + "B"));
    const std::uint64_t round = c.g * static_cast<std::uint64_t>(c.ports), rem = c.bytes % round;
    for (int k = 0; k < c.ports; ++k) {
      const std::uint64_t first = c.g * static_cast<std::uint64_t>(k);
      const std::uint64_t expected = c.bytes / round * c.g + (rem > first ? std::min(c.g, rem - first) : 0);
      EXPECT_EQ(r["cxl"][0]["port_bytes_in"][k].get<std::uint64_t>(), 4 * expected)
          << c.ports << " ports, " << c.granularity << ", " << c.bytes << " B, port " << k;
    }
  }
}

TEST(CxlHdm, StripingOverAllPortsBeatsOnePortsLinkRateWhenTheLinksAreTheBottleneck) {
  TRAINVP_REQUIRE_RTL();
  // One-lane CXL 2.0 links (32 Gb/s raw, 64 of 68 flit bytes data) and a fast engine: the 4 GPUs'
  // 16 MiB of contributions need at least 16 MiB / rate through one link.
  const double n = 4 << 20, rate = 32e9 / 8 * 64 / 68;
  const double one_link = 4 * n / rate;
  double t4 = test::simulate(hdm_bench(4, "256B", "4MiB", 1))["collectives"][0]["time_s"].get<double>();
  double t1 = test::simulate(hdm_bench(1, "256B", "4MiB", 1))["collectives"][0]["time_s"].get<double>();
  EXPECT_LT(t4, one_link) << "4 ports: " << t4 << " s; one link needs " << one_link << " s";
  EXPECT_GT(t1, one_link) << "1 port: " << t1 << " s";
  EXPECT_LT(t4, 0.5 * t1);
}

}  // namespace test_cxl_functional
}  // namespace trainvp
