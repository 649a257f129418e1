// NVLink SHARP (`nvls`) all-reduce inside one node against its closed forms
// (docs/fabric.md#nvlink-sharp-nvls). With p GPUs whose NVLink carries R payload bytes/s each
// way (450 GB/s x 256 / 312 on H100: NCCL's effective rate), an all-reduce of n bytes sends
// n (its contributions) + n/p (its store of the sum it load-reduced) up every GPU's link and
// brings n/p + n down it, so
//   bytes per GPU link direction = n (1 + 1/p), T >= n (1 + 1/p) / R,
// where a ring carries 2 (p - 1)/p n: NVLS beats the ring's time by 2 (p - 1) / (p + 1), 14/9 at
// p = 8. Under NCCL's tuner (nccl_tuner.hpp) NVLS runs at 5/6 of that bound (NCCL 2.18.3's
// busBw-to-algBw ratio for NVLS; on H100 the NVLS graph's 8 channels x 40 GB/s fill a GPU's
// 18 x 20 GB/s exactly) after a base latency of 23 us:
//   T = 23 us + 1.2 n (1 + 1/p) / R, every GPU link carrying 1.2 n (1 + 1/p).
// Plus the pipeline's drain: a step's copies come down only after its stores went up, so the last
// step of NCCL's 16 channels (16 p c bytes, c = 128 KiB at 1 GiB: NCCL's NVLS chunk) comes down
// after the uplinks are done: + 16 p c / R (x 1.2 under the tuner).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "models/collectives/nccl_tuner.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_nvls {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using namespace test;

constexpr double kGiB = 1073741824.0;
const double kR = 450e9 * 256 / 312;           // H100 NVLink 4 payload rate per direction
const double kDrain = 16.0 * 8 * 131072 / kR;  // the last step of every channel, coming down

json bench(const std::string& algo, const std::string& model, const std::string& gpu = "H100-SXM5-80GB") {
  return {
      {"trainvp", 1},
      {"name", "nvls-test"},
      {"cluster", {{"nodes", 1}, {"node", {{"gpus", 8}, {"gpu", gpu}}}, {"fabric", {{"nccl", {{"model", model}}}}}}},
      {"workload",
       {{"kind", "collective"},
        {"op", "all_reduce"},
        {"algorithm", algo},
        {"bytes", "1GiB"},
        {"iterations", 1},
        {"warmup", 0}}},
      {"output", {{"trace", false}}}};
}

double time_of(const json& r) { return r["collectives"][0]["time_s"].get<double>(); }

// Payload bytes of the link direction named `name`.
double link_bytes(const json& r, const std::string& name) {
  for (const json& l : r["links"])
    if (l["name"] == name) return l["bytes"].get<double>();
  ADD_FAILURE() << "no link direction " << name;
  return 0;
}

TEST(Nvls, AtTheBoundEveryGpuLinkCarriesOnePlusOneOverPOfTheBufferEachWay) {
  const json r = simulate(bench("nvls", "bound"));
  const double per_link = kGiB * (1 + 1.0 / 8);
  for (int g = 0; g < 8; ++g) {
    const std::string gpu = "node0.gpu" + std::to_string(g);
    EXPECT_EQ(link_bytes(r, gpu + "->node0.nvswitch"), per_link) << gpu;
    EXPECT_EQ(link_bytes(r, "node0.nvswitch->" + gpu), per_link) << gpu;
  }
  // The unit takes every contribution and store, and sends every sum and copy.
  EXPECT_EQ(link_bytes(r, "node0.nvswitch->node0.nvls"), 9 * kGiB);
  EXPECT_EQ(link_bytes(r, "node0.nvls->node0.nvswitch"), 9 * kGiB);
  EXPECT_EQ(r["nvls"][0]["bytes_reduced"].get<double>(), 8 * kGiB);
  const double bound = per_link / kR;
  EXPECT_GE(time_of(r), bound);
  EXPECT_NEAR(time_of(r), bound + kDrain, 0.002 * bound);
}

TEST(Nvls, BeatsTheRingByTwoPMinusOneOverPPlusOne) {
  const double ring = time_of(simulate(bench("ring", "bound"))), nvls = time_of(simulate(bench("nvls", "bound")));
  const double closed = 14.0 / 8 * kGiB / (9.0 / 8 * kGiB + kDrain * kR);  // 14/9 but for the drain
  EXPECT_NEAR(ring / nvls, closed, 0.005 * closed);
}

TEST(Nvls, UnderNcclsTunerRunsAtFiveSixthsOfTheBoundAfterTwentyThreeMicroseconds) {
  const json r = simulate(bench("nvls", "tuner"));
  EXPECT_EQ(r["collectives"][0]["protocol"], "Simple");
  const double wire = 1.2 * kGiB * (1 + 1.0 / 8);
  // Each transfer's bytes are rounded to whole bytes once: 16 channels x 64 steps x 32 transfers.
  EXPECT_NEAR(link_bytes(r, "node0.gpu3->node0.nvswitch"), wire, 16 * 64 * 32);
  const double closed = 23e-6 + wire / kR;
  EXPECT_GE(time_of(r), closed);
  EXPECT_NEAR(time_of(r), closed + 1.2 * kDrain, 0.002 * closed);
}

TEST(Nvls, TheTunersNvlsBandwidthIsTheNvlsGraphsOverTheFabricsBound) {
  // H100: 18 links x 20 GB/s; (p + 1) x 40 = 360 fits, 9 x 42 does not: 8 x 40 x 5/6 over 360 x 8/9.
  const NcclChoice h100 = nccl_nvls(8, 450e9, kGiB);
  EXPECT_DOUBLE_EQ(h100.bandwidth_factor, 8 * 40 * 5.0 / 6 / (360 * 8.0 / 9));
  EXPECT_DOUBLE_EQ(h100.base_latency_s, 23e-6);
  EXPECT_DOUBLE_EQ(h100.predicted_s, 23e-6 + kGiB / (8 * 40 * 5.0 / 6 * 1e9));
  // H800: 8 links x 20 GB/s = 160; 9 x 17.5 = 157.5 fits.
  EXPECT_DOUBLE_EQ(nccl_nvls(8, 200e9, kGiB).bandwidth_factor, 8 * 17.5 * 5.0 / 6 / (160 * 8.0 / 9));
}

TEST(Nvls, DdpOnOneNodeSynchronizesThroughTheSwitch) {
  json doc = {{"trainvp", 1},
              {"name", "ddp-nvls"},
              {"cluster", {{"nodes", 1}, {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}}}}},
              {"workload", {{"model", "gpt2-small"}, {"batch", 4}, {"seq", 1024}}},
              {"training", {{"iterations", 2}, {"warmup", 0}, {"sync", {{"strategy", "ddp"}, {"algorithm", "nvls"}}}}},
              {"output", {{"trace", false}}}};
  doc["training"]["fast_forward"] = {{"enabled", true}};
  const json r = simulate(doc);
  // A skip would not repeat the unit's statistics: fast-forward stays off and says why.
  EXPECT_EQ(r["fast_forward"]["enabled"], false);
  EXPECT_EQ(r["fast_forward"]["off_reason"], "NVLS units' statistics are not repeated for skipped iterations");
  double grad_bytes = 0;
  for (const json& b : r["sync"]["buckets"]) grad_bytes += b["bytes"].get<double>();
  EXPECT_GT(grad_bytes, 0);
  // Every iteration the switch sums every GPU's every gradient byte.
  EXPECT_EQ(r["nvls"][0]["bytes_reduced"].get<double>(), 4 * grad_bytes * 2);
}

TEST(Nvls, BadNvlsInputIsAClearError) {
  std::vector<BadCase> cases = {
      {"A100 (no NVLink SHARP)", [](json& d) { d["cluster"]["node"]["gpu"] = "A100-SXM4-80GB"; }, "/cluster/node/gpu"},
      {"across nodes", [](json& d) { d["cluster"]["nodes"] = 2; }, "/workload/communicator"},
      {"flow fidelity", [](json& d) { d["cluster"]["fabric"]["fidelity"] = "flow"; }, "/cluster/fabric/fidelity"},
      {"nvls for all_gather", [](json& d) { d["workload"]["op"] = "all_gather"; }, "/workload/algorithm"},
      {"ddp across nodes",
       [](json& d) {
         d["cluster"]["nodes"] = 2;
         d["workload"] = {{"model", "gpt2-small"}, {"batch", 4}, {"seq", 1024}};
         d["training"] = {{"sync", {{"strategy", "ddp"}, {"algorithm", "nvls"}}}};
       },
       "/training/sync/algorithm"},
  };
  expect_load_errors(bench("nvls", "tuner"), cases);
}

TEST(Nvls, AutoFidelityPicksPacketsForIt) {
  json doc = bench("nvls", "tuner");
  doc["cluster"]["nodes"] = 80;  // 640 GPUs: auto would pick flow
  doc["cluster"]["fabric"]["topology"] = "leaf-spine";
  doc["workload"]["communicator"] = {0, 1, 2, 3, 4, 5, 6, 7};
  const Scenario s = load_scenario(doc, "t");
  EXPECT_EQ(s.cluster.fabric.fidelity, FabricFidelity::Packet);
  EXPECT_EQ(s.resolved["cluster"]["fabric"]["fidelity"], "packet");
}

}  // namespace test_nvls
}  // namespace trainvp
