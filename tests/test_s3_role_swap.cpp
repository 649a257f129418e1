// S3's role swap on a congested link (docs/greyhound.md#s3-on-a-congested-link): in the shipped
// scenario the rank order decides which parallel dimension crosses the spine, and the bytes on the
// spine links are that dimension's closed form: a 2-way ring all-reduce sends each GPU's whole
// gradient once; the pipeline sends 16 micro-batches' boundary activations and their gradients.
// Every crossing byte counts on 2 spine links (leaf to spine, spine to leaf). Then the ladder
// making the swap mid-run (docs/greyhound.md#s3-role-swap-in-the-loop), shortened: the spine
// carries the old placement's closed form up to the move and the new one's after it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "platform/config/document.hpp"
#include "tests/full_length.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_s3_role_swap {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

constexpr int kIterations = 2;

json run(const std::string& order) {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/greyhound/s3-congested-link-32gpu.json");
  doc["training"]["iterations"] = kIterations;
  doc["training"]["parallel"]["order"] = order;
  doc["cluster"]["fabric"]["nccl"]["model"] = "bound";  // the closed forms count payload bytes only
  return test::simulate(doc);
}

TEST(S3RoleSwap, DataParallelFirstSendsEveryGradientAcrossTheSpine) {
  const json r = run("tp-pp-dp");
  const json& p = r["parallel"];
  double grads = 0;  // one GPU of each stage
  for (const json& s : p["stages"]) grads += s["memory"]["gradients_bytes"].get<double>();
  // 2 spine links x 8 TP ranks x 2 replicas of each stage, each sending its gradient once.
  const double per_iteration = 2.0 * 8 * 2 * grads;
  EXPECT_DOUBLE_EQ(r["link_tiers"]["spine_bytes"].get<double>(), kIterations * per_iteration);
}

TEST(S3RoleSwap, PipelineFirstSendsOnlyTheStageBoundaryAcrossTheSpine) {
  const json r = run("tp-dp-pp");
  const double boundary = r["parallel"]["boundary_bytes"];
  EXPECT_EQ(boundary, 2048.0 * 8192 * 2);  // seq x hidden x bf16, batch 1
  // 2 spine links x 2 replicas x 8 TP ranks x 16 micro-batches x (forward + backward).
  const double per_iteration = 2.0 * 2 * 8 * 16 * 2 * boundary;
  EXPECT_DOUBLE_EQ(r["link_tiers"]["spine_bytes"].get<double>(), kIterations * per_iteration);
}

// s3-role-swap-64gpu.json shortened: the uplinks of leaf 0 slow from 15 s (iteration ~16 of
// 0.9 s), S3's pause 1 s, so the loss of ~0.1 s an iteration pays for it some 10 iterations later
// (the swap after iteration 29), and 10 iterations at the new pace: 40 iterations, 10 s. With
// TRAINVP_TEST_FULL_LENGTH=1 (scripts/check-release), a 5 s pause over 80 iterations (the swap
// after iteration 70).
json swap_run() {
  json doc = read_json_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/greyhound/s3-role-swap-64gpu.json");
  doc["training"]["iterations"] = test::full_length() ? 80 : 40;
  doc["faults"][0]["start"] = "15s";
  doc["health"]["mitigation"]["topology_pause"] = test::full_length() ? "5s" : "1s";
  doc["cluster"]["fabric"]["nccl"]["model"] = "bound";
  doc["training"]["parallel"]["overlap_grad_reduce"] = true;  // the scenario's DDP buckets, as designed
  return test::simulate(doc);
}

TEST(S3RoleSwap, TheLadderMovesTheDataParallelPairsOffTheSlowUplinksMidRun) {
  const json r = swap_run();
  const json& m = r["health"]["mitigation"];
  const json* s3 = nullptr;
  for (const json& a : m["actions"])
    if (a["step"] == "s3") s3 = &a;
  ASSERT_NE(s3, nullptr) << m.dump(1);
  EXPECT_EQ((*s3)["move"], "role_swap");
  // The slow edges all cross leaf 0's links to the spines, both of whose directions the fault
  // halves: the fewest directions that explain them are the 8 of one orientation, leaf 0's
  // uplinks or its downlinks (which one depends on the spines ECMP gave each connection).
  std::set<std::string> uplinks, downlinks;
  for (int s = 0; s < 8; ++s) {
    uplinks.insert("leaf0>spine" + std::to_string(s));
    downlinks.insert("spine" + std::to_string(s) + ">leaf0");
  }
  const auto suspects = (*s3)["suspect_links"].get<std::set<std::string>>();
  EXPECT_TRUE(suspects == uplinks || suspects == downlinks) << (*s3)["suspect_links"].dump();
  EXPECT_LT((*s3)["suspect_share_after"].get<double>(), (*s3)["suspect_share_before"].get<double>());
  // The diagnosis is scored where its edges were when it was made, before the move.
  EXPECT_EQ(r["health"]["score"]["faults_detected"], 1) << r["health"]["diagnoses"].dump(1);
  EXPECT_EQ(r["health"]["score"]["false_positives"], 0);

  // Node slot n holds replica n / 4's stage n % 4 (tp-pp-dp); a leaf holds nodes 2l and 2l + 1.
  const std::vector<int> at = m["node_placement"];
  ASSERT_EQ(at.size(), 8u);
  std::vector<int> on_leaf0;  // the slots on the slow leaf: then one stage's two replicas
  for (int slot = 0; slot < 8; ++slot)
    if (at[static_cast<std::size_t>(slot)] / 2 == 0) on_leaf0.push_back(slot);
  ASSERT_EQ(on_leaf0.size(), 2u);
  EXPECT_EQ(on_leaf0[1] - on_leaf0[0], 4) << m["node_placement"].dump();

  // Spine bytes: per iteration, each data-parallel pair whose nodes sit on two leaves sends
  // 2 x 8 x its stage's gradient; each pipeline boundary across leaves 8 x 16 x 2 x boundary;
  // each byte on 2 spine links. The old placement up to after_iteration, the new one after it.
  std::vector<double> grads;
  for (const json& s : r["parallel"]["stages"]) grads.push_back(s["memory"]["gradients_bytes"]);
  const double boundary = r["parallel"]["boundary_bytes"];
  auto per_iteration = [&](const std::vector<int>& where) {
    auto apart = [&](int a, int b) {
      return where[static_cast<std::size_t>(a)] / 2 != where[static_cast<std::size_t>(b)] / 2;
    };
    double bytes = 0;
    for (int s = 0; s < 4; ++s) {
      if (apart(s, 4 + s)) bytes += 2.0 * 2 * 8 * grads[static_cast<std::size_t>(s)];
      for (int rep : {0, 4})
        if (s < 3 && apart(rep + s, rep + s + 1)) bytes += 2.0 * 8 * 16 * 2 * boundary;
    }
    return bytes;
  };
  const std::vector<int> before = {0, 1, 2, 3, 4, 5, 6, 7};
  const int moved_after = (*s3)["after_iteration"];
  const int iterations = static_cast<int>(r["iterations"].size());
  const double expected =
      (moved_after + 1) * per_iteration(before) + (iterations - moved_after - 1) * per_iteration(at);
  // The link probes cross the spine too: at most every probed edge's 3 repeats of 16, 32 and 64
  // MiB, twice (a slow edge is probed again), on 2 spine links.
  const double probes = r["health"]["detector"]["link_probe_edges"].get<double>() * 7 * 16 * 1048576.0 * 3 * 2 * 2;
  const double spine = r["link_tiers"]["spine_bytes"];
  EXPECT_GE(spine, expected);
  EXPECT_LE(spine, expected + probes);

  // The pace after the move is the healthy pace of the new placement: no slower than the
  // iterations before the fault (the same bytes less the pipeline's, on full-speed links).
  const json& its = r["iterations"];
  const double healthy = its[5]["duration_s"], last = its.back()["duration_s"];
  const double slow = its[static_cast<std::size_t>(moved_after)]["duration_s"];
  EXPECT_GT(slow, 1.05 * healthy);
  EXPECT_LT(last, 1.01 * healthy);
}

}  // namespace test_s3_role_swap
}  // namespace trainvp
