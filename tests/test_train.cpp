// Real training in the loop (/workload/train, docs/strategies.md#time-to-accuracy), whole runs:
// the replay synchronizes exactly what the timed run synchronized, in every iteration (fast-
// forwarded ones included), each iteration ends at the run's simulated end of it, training is off
// unless asked for, and bad input is a clear error. The semantics on the values themselves are
// models/train/test's.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/command.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_train {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

json scenario(const std::string& strategy, int iterations = 11) {
  return {{"trainvp", 1},
          {"name", "train"},
          {"cluster",
           {{"nodes", 2}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"link_bw", "25Gbps"}}}}},
          {"workload",
           {{"model", "gpt2-small"},
            {"batch", 2},
            {"seq", 512},
            {"train",
             {{"features", 16},
              {"hidden", {32}},
              {"classes", 4},
              {"clusters", 2},
              {"train_samples", 256},
              {"test_samples", 128},
              {"batch", 4},
              {"eval_every", 5},
              {"target_accuracy", 0.5}}}}},
          {"training", {{"iterations", iterations}, {"warmup", 1}, {"sync", {{"strategy", strategy}, {"period", 5}}}}},
          {"output", {{"trace", false}}}};
}

// Per layer: in how many iterations results.json says the platform synchronized it.
std::map<std::string, int> platform_syncs(const json& r) {
  std::map<std::string, int> out;
  for (auto& it : r["iterations"])
    for (auto& l : it["synced_layers"]) ++out[l.get<std::string>()];
  return out;
}

TEST(TrainInTheLoop, ReplaySynchronizesWhatTheTimedRunSynchronized) {
  for (const char* strategy : {"ddp", "asc_wfbp", "blockwise", "localsgd", "plsgd", "dreamddp"}) {
    const json r = test::simulate(scenario(strategy));
    const json& t = r["train"];
    ASSERT_TRUE(t.is_object()) << strategy;
    EXPECT_EQ(t["parameters"], 16 * 32 + 32 + 32 * 4 + 4) << strategy;
    EXPECT_EQ(t["ranks"], 4);
    ASSERT_EQ(t["slices"].size(), 26u) << strategy;  // gpt2-small: every layer but the tied head
    const bool ddp = std::string(strategy) == "ddp";
    const std::map<std::string, int> platform = ddp ? std::map<std::string, int>{} : platform_syncs(r);
    std::uint64_t values = 0;
    for (auto& s : t["slices"]) {
      const std::string layer = s["layer"];
      const int expect = ddp ? 11 : platform.count(layer) ? platform.at(layer) : 0;
      EXPECT_EQ(s["syncs"], expect) << strategy << " " << layer;
      values += s["values"].get<std::uint64_t>();
    }
    EXPECT_EQ(values, t["parameters"].get<std::uint64_t>()) << strategy;  // every value in one slice
    // Local SGD averages after iterations 4 and 9; the partial strategies each layer once per 5.
    if (std::string(strategy) == "localsgd") {
      for (auto& s : t["slices"]) EXPECT_EQ(s["syncs"], 2) << s["layer"];
    }
    if (std::string(strategy) == "plsgd" || std::string(strategy) == "dreamddp") {
      for (auto& s : t["slices"]) EXPECT_TRUE(s["syncs"] == 2 || s["syncs"] == 3) << strategy << " " << s["layer"];
    }
    // Evaluations after iterations 4, 9 and the last, each at its simulated end.
    ASSERT_EQ(t["evaluations"].size(), 3u) << strategy;
    for (auto& e : t["evaluations"]) {
      const int i = e["iteration"];
      EXPECT_EQ(e["time_s"], r["iterations"][static_cast<std::size_t>(i)]["end_s"]) << strategy << " " << i;
    }
    EXPECT_EQ(t["evaluations"][2]["iteration"], 10);
  }
}

TEST(TrainInTheLoop, FastForwardedIterationsAreTrainedAndTimed) {
  json doc = scenario("localsgd", 80);
  doc["workload"]["train"]["eval_every"] = 10;
  const json r = test::simulate(doc);
  ASSERT_GT(r["fast_forward"]["iterations_skipped"].get<int>(), 0) << r["fast_forward"].dump();
  const json& t = r["train"];
  for (auto& s : t["slices"]) EXPECT_EQ(s["syncs"], 16) << s["layer"];  // 80 / H
  ASSERT_EQ(t["evaluations"].size(), 8u);
  for (auto& e : t["evaluations"]) EXPECT_EQ(e["time_s"], r["iterations"][e["iteration"].get<std::size_t>()]["end_s"]);
}

TEST(TrainInTheLoop, LearnsAndReportsTheTimeToTheTarget) {
  json doc = scenario("ddp", 40);
  const json r = test::simulate(doc);
  const json& t = r["train"];
  const json& first = t["evaluations"][0];
  EXPECT_GT(t["final_accuracy"].get<double>(), first["accuracy"].get<double>());
  EXPECT_LT(t["final_loss"].get<double>(), first["loss"].get<double>());
  // The time to target is the first evaluation at or above it.
  ASSERT_FALSE(t["time_to_target_s"].is_null());
  for (auto& e : t["evaluations"]) {
    if (e["accuracy"].get<double>() < 0.5) continue;
    EXPECT_EQ(t["time_to_target_s"], e["time_s"]);
    EXPECT_EQ(t["iterations_to_target"], e["iteration"].get<int>() + 1);
    break;
  }
  doc["workload"]["train"]["target_accuracy"] = 1.0;  // out of reach for a noisy mixture
  EXPECT_TRUE(test::simulate(doc)["train"]["time_to_target_s"].is_null());
}

TEST(TrainInTheLoop, TopKCompressesTheSlicesOfTheLayersTheTimedRunCompressed) {
  // Equal to no compression when it keeps every value, and when no layer reaches min_bytes (so
  // none was compressed); different once layers are compressed at 1%.
  auto train_of = [](const json& compression) {
    json doc = scenario("layerwise");
    if (!compression.is_null()) doc["training"]["sync"]["compression"] = compression;
    json values = test::simulate(doc)["train"]["evaluations"];
    for (auto& e : values) e.erase("time_s");  // compression changes the timing, not only the values
    return values;
  };
  const json plain = train_of(nullptr);
  EXPECT_EQ(train_of({{"kind", "topk"}, {"ratio", 1.0}}), plain);
  EXPECT_EQ(train_of({{"kind", "topk"}, {"ratio", 0.01}, {"min_bytes", "1GB"}}), plain);
  EXPECT_NE(train_of({{"kind", "topk"}, {"ratio", 0.01}}), plain);
}

TEST(TrainInTheLoop, ElasticWithoutADeadlineTrainsAsDdpBitForBitAndWithOneStepsWithoutLateMeans) {
  auto train_of = [](const std::string& strategy, const json& timeout) {
    json doc = scenario(strategy);
    if (!timeout.is_null()) doc["training"]["sync"]["elastic"] = {{"timeout", timeout}};
    const json r = test::simulate(doc);
    json values = r["train"]["evaluations"];
    for (auto& e : values) e.erase("time_s");  // elastic (layerwise) and DDP differ in timing, not values
    return std::make_pair(values, r);
  };
  const json ddp = train_of("ddp", nullptr).first;
  EXPECT_EQ(train_of("elastic", "none").first, ddp);
  EXPECT_EQ(train_of("elastic", "1000s").first, ddp);
  // A deadline of 1 us at 25 Gbit/s: nearly every unit of every iteration is weak-sync (only one
  // whose all-reduce ends under the backward, on an idle stream, is not).
  const auto [late, r] = train_of("elastic", "1us");
  EXPECT_GT(r["sync"]["elastic"]["weak_sync_unit_iterations"].get<int>(),
            11 * static_cast<int>(r["sync"]["units"].size()) / 2);
  EXPECT_NE(late, ddp);
}

TEST(TrainInTheLoop, OffUnlessAskedFor) {
  json doc = scenario("ddp");
  doc["workload"].erase("train");
  const json r = test::simulate(doc);
  EXPECT_FALSE(r.contains("train"));
  EXPECT_FALSE(r["scenario"]["workload"].contains("train"));
}

TEST(TrainInTheLoop, BadTrainingParametersAreClearErrors) {
  std::vector<test::BadCase> cases = {
      {"unknown key", [](json& d) { d["workload"]["train"]["hiden"] = {8}; }, "/workload/train/hiden"},
      {"hidden not a list", [](json& d) { d["workload"]["train"]["hidden"] = 8; }, "/workload/train/hidden"},
      {"hidden width 0",
       [](json& d) {
         d["workload"]["train"]["hidden"] = {8, 0};
       },
       "/workload/train/hidden/1"},
      {"too many parameters",
       [](json& d) {
         d["workload"]["train"]["hidden"] = {65536, 65536};
       },
       "/workload/train/hidden"},
      {"batch 0", [](json& d) { d["workload"]["train"]["batch"] = 0; }, "/workload/train/batch"},
      {"lr 0", [](json& d) { d["workload"]["train"]["lr"] = 0; }, "/workload/train/lr"},
      {"target above 1", [](json& d) { d["workload"]["train"]["target_accuracy"] = 1.5; },
       "/workload/train/target_accuracy"},
      {"fewer samples than ranks", [](json& d) { d["workload"]["train"]["train_samples"] = 3; },
       "/workload/train/train_samples"},
      {"powersgd",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"kind", "powersgd"}};
       },
       "/training/sync/compression/kind"},
      {"hybrid parallelism",
       [](json& d) {
         d["training"]["parallel"] = {{"tp", 1}, {"pp", 2}, {"dp", 2}};
       },
       "/workload/train"},
  };
  test::expect_load_errors(scenario("plsgd"), cases);
  test::Cmd r = test::trainvp("validate scenarios/strategies/tta-dreamddp.json --set /workload/train/batch=0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/workload/train/batch"), std::string::npos) << r.out;
}

}  // namespace test_train
}  // namespace trainvp
