// training.parallel: loading, the errors a bad layout gets (each naming its JSON pointer, exit 2),
// the memory check against closed forms, and `trainvp describe topology`'s placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "models/parallel/plan.hpp"
#include "platform/config/scenario.hpp"
#include "tests/command.hpp"
#include "tests/scenario_cases.hpp"

namespace trainvp {
namespace test_parallel_config {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;
using test::BadCase;

// 2 nodes x 8 H100 (80 GiB): 16 GPUs.
json doc(const std::string& model = "gpt2-xl", json parallel = {{"tp", 2}, {"pp", 2}}) {
  return {{"trainvp", 1},
          {"cluster",
           {{"nodes", 2}, {"node", {{"gpus", 8}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"topology", "switch"}}}}},
          {"workload", {{"model", model}, {"batch", 1}, {"seq", 1024}}},
          {"training", {{"iterations", 2}, {"parallel", parallel}}}};
}

TEST(ParallelConfig, LoadsWithDpFromTheGpuCountAndABalancedPartition) {
  const Scenario s = load_scenario(doc(), "t");
  const ParallelConfig& p = s.training.parallel;
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.dp, 16 / (2 * 2));
  EXPECT_EQ(p.schedule, PipelineScheduleKind::OneFOneB);
  EXPECT_EQ(s.training.parallel.order[0], ParallelDim::Tp);
  EXPECT_EQ(s.resolved["training"]["parallel"]["dp"], 4);
  ASSERT_EQ(s.training.partition.chunks(), 2);
  EXPECT_EQ(s.training.partition.first.back(), static_cast<int>(s.workload.layers.size()));
  // Balanced: no other single cut makes the slower stage faster (per-layer roofline times).
  const std::vector<double> t = layer_times_ps(s.workload, p, s.cluster.gpus[0].params);
  auto slower = [&](std::size_t cut) {
    double a = 0, b = 0;
    for (std::size_t i = 0; i < t.size(); ++i) (i < cut ? a : b) += t[i];
    return std::max(a, b);
  };
  const double ours = slower(static_cast<std::size_t>(s.training.partition.end(0)));
  for (std::size_t cut = 1; cut < t.size(); ++cut) EXPECT_LE(ours, slower(cut) * (1 + 1e-12)) << cut;
  EXPECT_FALSE(load_scenario(doc("gpt2-xl", nullptr), "t").training.parallel.enabled);
}

TEST(ParallelConfig, BadLayoutsNameTheirPointer) {
  auto par = [](json& d) -> json& { return d["training"]["parallel"]; };
  test::expect_load_errors(
      doc(),
      {
          {"product", [&](json& d) { par(d)["dp"] = 3; }, "/training/parallel/tp"},
          {"dp omitted, not dividing", [&](json& d) { par(d)["tp"] = 3; }, "/training/parallel/tp"},
          {"tp zero", [&](json& d) { par(d)["tp"] = 0; }, "/training/parallel/tp"},
          {"v without interleaved", [&](json& d) { par(d)["virtual_stages"] = 2; },
           "/training/parallel/virtual_stages"},
          {"functional", [&](json& d) { d["workload"]["functional"] = true; }, "/workload/functional"},
          {"interleaved v 1", [&](json& d) { par(d)["schedule"] = "interleaved"; },
           "/training/parallel/virtual_stages"},
          {"interleaved m",
           [&](json& d) {
             par(d)["schedule"] = "interleaved", par(d)["virtual_stages"] = 2, par(d)["micro_batches"] = 3;
           },
           "/training/parallel/micro_batches"},
          {"interleaved pp 1",
           [&](json& d) {
             par(d) = {{"pp", 1}, {"schedule", "interleaved"}, {"virtual_stages", 2}};
           },
           "/training/parallel/pp"},
          {"micro_batches 0", [&](json& d) { par(d)["micro_batches"] = 0; }, "/training/parallel/micro_batches"},
          {"zero 4", [&](json& d) { par(d)["zero"] = 4; }, "/training/parallel/zero"},
          {"schedule", [&](json& d) { par(d)["schedule"] = "zb"; }, "/training/parallel/schedule"},
          {"recompute", [&](json& d) { par(d)["recompute"] = "some"; }, "/training/parallel/recompute"},
          {"order twice", [&](json& d) { par(d)["order"] = "tp-tp-pp"; }, "/training/parallel/order"},
          {"order junk", [&](json& d) { par(d)["order"] = "tp-dp-pp-"; }, "/training/parallel/order"},
          {"stage_layers count", [&](json& d) { par(d)["stage_layers"] = {99}; }, "/training/parallel/stage_layers"},
          {"stage_layers sum",
           [&](json& d) {
             par(d)["stage_layers"] = {50, 50};
           },
           "/training/parallel/stage_layers"},
          {"stage_layers zero",
           [&](json& d) {
             par(d)["stage_layers"] = {99, 0};
           },
           "/training/parallel/stage_layers/1"},
          {"rank_map shape",
           [&](json& d) {
             par(d)["rank_map"] = {{0, 0}};
           },
           "/training/parallel/rank_map/0"},
          {"rank_map size",
           [&](json& d) {
             par(d)["rank_map"] = {{0, 0, 0}};
           },
           "/training/parallel/rank_map"},
          {"rank_map duplicate",
           [&](json& d) {
             json m = json::array();
             for (int r = 0; r < 16; ++r) m.push_back({r % 2, r / 8, (r / 2) % 4});
             m[5] = m[4];
             par(d)["rank_map"] = m;
           },
           "/training/parallel/rank_map/5"},
          {"unknown key", [&](json& d) { par(d)["tpp"] = 2; }, "/training/parallel/tpp"},
          {"workload micro-batches", [&](json& d) { d["workload"]["micro_batches"] = 2; }, "/workload/micro_batches"},
          {"global_batch and micro_batches", [&](json& d) { par(d)["global_batch"] = 16, par(d)["micro_batches"] = 4; },
           "/training/parallel/global_batch"},
          {"global_batch not a multiple of b x d",
           [&](json& d) {
             d["workload"]["batch"] = 2, par(d)["global_batch"] = 12;  // b x d = 2 x 4
           },
           "/training/parallel/global_batch"},
          {"global_batch zero", [&](json& d) { par(d)["global_batch"] = 0; }, "/training/parallel/global_batch"},
      });
}

// Megatron's --global-batch-size: m = B / (b x d), so B = b x m x d holds whatever the layout.
TEST(ParallelConfig, GlobalBatchDerivesTheMicroBatchesPerPipeline) {
  for (int tp : {1, 2, 4})
    for (int b : {1, 2}) {
      json d = doc("gpt2-xl", {{"tp", tp}, {"pp", 2}, {"global_batch", 64}});
      d["workload"]["batch"] = b;
      const Scenario s = load_scenario(d, "t");
      const ParallelConfig& p = s.training.parallel;
      EXPECT_EQ(p.dp, 16 / (tp * 2));
      EXPECT_EQ(p.micro_batches, 64 / (b * p.dp)) << "tp " << tp << ", b " << b;
      EXPECT_EQ(s.resolved["training"]["parallel"]["micro_batches"], p.micro_batches);
      EXPECT_EQ(s.resolved["training"]["parallel"]["global_batch"], 64);
    }
  json d = doc("gpt2-xl", {{"tp", 2}, {"pp", 2}, {"global_batch", 6}});
  try {
    load_scenario(d, "t");
    FAIL() << "6 is not a multiple of b x d = 4";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("a multiple of workload.batch x dp = 1 x 4 = 4"), std::string::npos)
        << e.what();
  }
}

TEST(ParallelConfig, ProductMismatchSaysTheProduct) {
  json d = doc();
  d["training"]["parallel"]["dp"] = 3;
  try {
    load_scenario(d, "t");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "/training/parallel/tp: tp x pp x dp = 2 x 2 x 3 = 12, but it runs on 16 GPUs");
  }
}

// Found by scripts/fuzz-runs (#45): 3 nodes x 8 with pp 2 give each stage a DP group of 8 + 4
// ranks, which a hierarchical all-reduce cannot run; the run failed with exit 1 and no pointer.
TEST(ParallelConfig, HierarchicalWithUnevenDataParallelGroupsIsRefusedAtTheAlgorithm) {
  json d = doc("gpt2-small", {{"pp", 2}});
  d["cluster"]["nodes"] = 3;
  d["training"]["sync"] = {{"strategy", "layerwise"}, {"algorithm", "hierarchical"}};
  try {
    load_scenario(d, "t");
    FAIL() << "a DP group of 8 + 4 ranks";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/training/sync/algorithm");
    EXPECT_NE(std::string(e.what()).find("8 ranks on node 0 and 4 on node 1"), std::string::npos) << e.what();
  }
  d["cluster"]["nodes"] = 2;  // 8 + 8: runs
  EXPECT_NO_THROW(load_scenario(d, "t"));
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

TEST(ParallelConfig, ALayoutThatDoesNotFitNamesTheGpuAndTheClosedFormMemory) {
  // GPT-3 175B, t = 8, p = 2, d = 1, full recomputation, one micro-batch of b = 1, s = 2048. Stage 0
  // holds the embedding and 48 transformer layers: per TP rank (V + s) h / 8 table parameters and
  // 48 (12 h^2 / 8 + 13 h); 2 + 2 + 12 bytes each; activations 2 s b h per layer (1F1B: one in flight).
  const double h = 12288, V = 50257, s = 2048, l = 48;
  const double params = (V + s) * h / 8 + l * (12 * h * h / 8 + 13 * h);
  const double acts = l * 2 * s * 1 * h;
  json d = doc("gpt3-175b", {{"tp", 8}, {"pp", 2}, {"recompute", "full"}, {"stage_layers", {97, 98}}});
  d["workload"]["seq"] = 2048;
  try {
    load_scenario(d, "t");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/training/parallel");
    EXPECT_EQ(std::string(e.what()), "/training/parallel: GPU node0.gpu0 (stage 0) needs " + gib(16 * params + acts) +
                                         " GiB (weights " + gib(2 * params) + ", gradients " + gib(2 * params) +
                                         ", optimizer " + gib(12 * params) + ", activations " + gib(acts) +
                                         " GiB) but has 80 GiB of HBM");
  }
  // ZeRO-3 over d = 1 shards nothing; the same model over 8 stages of 8 fits.
  d["cluster"]["nodes"] = 8;
  d["training"]["parallel"] = {{"tp", 8}, {"pp", 8}, {"recompute", "full"}};
  EXPECT_NO_THROW(load_scenario(d, "t"));
}

// Every training's memory is checked, not only a layout's: Llama 2 7B with Adam on one 80 GiB GPU
// under plain DDP is refused with the message a layout gets, at /training. Per GPU: 6,738,415,616
// parameters x (2 + 2 + 12) bytes, and one micro-batch's activations: 32 layers x 34 s b h bytes
// (fused attention keeps no scores; Korthikanti et al.'s per-layer closed form), the final norm's
// input and the head's (2 s b h bytes each) and the loss's logits (2 s b V).
TEST(TrainingMemory, AWholeReplicaThatDoesNotFitIsRefusedAsALayoutIs) {
  const double s = 1024, h = 4096, V = 32000;
  const double params = 6738415616, acts = 32 * 34.0 * s * h + 2 * 2 * s * h + 2 * s * V;
  json d = {{"trainvp", 1},
            {"cluster", {{"nodes", 1}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}}},
            {"workload", {{"model", "llama2-7b"}, {"batch", 1}, {"seq", 1024}}},
            {"training", {{"iterations", 2}, {"optimizer", "adam"}, {"sync", {{"strategy", "ddp"}}}}}};
  try {
    load_scenario(d, "t");
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/training");
    EXPECT_EQ(std::string(e.what()),
              "/training: GPU node0.gpu0 (a whole replica: training.parallel can shard it) needs " +
                  gib(16 * params + acts) + " GiB (weights " + gib(2 * params) + ", gradients " + gib(2 * params) +
                  ", optimizer " + gib(12 * params) + ", activations " + gib(acts) + " GiB) but has 80 GiB of HBM");
  }
  // SGD's 8 bytes of state per parameter: 12 in all, 75.3 GiB, fits.
  d["training"]["optimizer"] = "sgd";
  EXPECT_NO_THROW(load_scenario(d, "t"));
  // The command line: exit 2, the pointer.
  const test::Cmd r =
      test::trainvp("validate scenarios/quickstart.json --set /workload/model=llama2-7b --set /workload/batch=1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/training: GPU node0.gpu0 (a whole replica: training.parallel can shard it) needs"),
            std::string::npos)
      << r.out;
}

TEST(ParallelConfig, ValidateExitsTwoWithThePointer) {
  test::Cmd r =
      test::trainvp("validate scenarios/quickstart.json --set '/training/parallel={\"tp\":2,\"pp\":2,\"dp\":3}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/training/parallel/tp: tp x pp x dp = 2 x 2 x 3 = 12, but it runs on 16 GPUs"),
            std::string::npos)
      << r.out;
  r = test::trainvp(
      "validate scenarios/quickstart.json --set /workload/model=gpt3-175b --set /workload/batch=1 "
      "--set '/training/parallel={\"tp\":8}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/training/parallel: GPU node0.gpu0 (stage 0) needs"), std::string::npos) << r.out;
}

TEST(DescribeTopology, ListsEachGpusCoordinateAndEachStagesLayers) {
  const std::string set = " --set '/training/parallel={\"tp\":2,\"pp\":2}'";
  test::Cmd r = test::trainvp("describe topology scenarios/quickstart.json --json" + set);
  ASSERT_EQ(r.code, 0) << r.out;
  const json t = json::parse(r.out);
  const json& p = t.at("parallel");
  ASSERT_EQ(p["ranks"].size(), 16u);
  for (int rank = 0; rank < 16; ++rank) {
    const json& e = p["ranks"][static_cast<std::size_t>(rank)];
    EXPECT_EQ(e["gpu"], "node" + std::to_string(rank / 8) + ".gpu" + std::to_string(rank % 8));
    EXPECT_EQ(e["tp"], rank % 2);
    EXPECT_EQ(e["dp"], (rank / 2) % 4);
    EXPECT_EQ(e["pp"], rank / 8);
  }
  // The stages cover gpt2-xl's 99 layers (embed, 48 x 2 halves, ln_f, lm_head) in order, once.
  ASSERT_EQ(p["stages"].size(), 2u);
  EXPECT_EQ(p["stages"][0]["chunks"][0]["layers"][0], "embed");
  EXPECT_EQ(p["stages"][1]["chunks"][0]["layers"].back(), "lm_head");
  EXPECT_EQ(p["stages"][0]["chunks"][0]["layers"].size() + p["stages"][1]["chunks"][0]["layers"].size(), 99u);
  EXPECT_EQ(p["stages"][1]["chunks"][0]["first_layer"], p["stages"][0]["chunks"][0]["layers"].size());
  r = test::trainvp("describe topology scenarios/quickstart.json" + set);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("parallel layout (tp 2 x pp 2 x dp 4, order tp-dp-pp)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node1.gpu7"), std::string::npos);
}

}  // namespace test_parallel_config
}  // namespace trainvp
