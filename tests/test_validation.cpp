// /validation (docs/validation.md): a published figure beside trainvp's, the error between them,
// for each metric; bad ones named at their pointer; the suite's scenarios each name their source.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "platform/config/document.hpp"
#include "platform/config/scenario.hpp"
#include "tests/command.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_validation {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

json small_training(const json& validation) {
  return {{"trainvp", 1},
          {"cluster", {{"nodes", 1}, {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 128}}},
          {"training", {{"iterations", 3}, {"warmup", 1}}},
          {"output", {{"trace", false}}},
          {"validation", validation}};
}

TEST(Validation, TheErrorIsTrainvpsFigureOverThePublishedOneLessOne) {
  const json r =
      test::simulate(small_training({{"metric", "iteration_s"}, {"published", 0.01}, {"source", "a paper, Table 1"}}));
  const json& v = r["validation"];
  EXPECT_EQ(v["metric"], "iteration_s");
  EXPECT_DOUBLE_EQ(v["trainvp"].get<double>(), r["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(v["error"].get<double>(), r["iteration_time_s"].get<double>() / 0.01 - 1);
  EXPECT_EQ(v["source"], "a paper, Table 1");
  const json per_min =
      test::simulate(small_training({{"metric", "iterations_per_min"}, {"published", 100}, {"source", "s"}}));
  EXPECT_DOUBLE_EQ(per_min["validation"]["trainvp"].get<double>(), 60 / per_min["iteration_time_s"].get<double>());
}

TEST(Validation, BusBandwidthIsTheBenchmarksRowOfThePublishedSize) {
  json d = small_training({{"metric", "busbw_GBps"}, {"published", 100}, {"bytes", "4MiB"}, {"source", "nccl-tests"}});
  d["workload"] = {{"kind", "collective"}, {"op", "all_reduce"}, {"min_bytes", "1MiB"}, {"max_bytes", "16MiB"},
                   {"factor", 4},          {"iterations", 2},    {"warmup", 0}};
  d.erase("training");
  const json r = test::simulate(d);
  double busbw = -1;
  for (const json& c : r["collectives"])
    if (c["bytes"] == 4u << 20) busbw = c["busbw_GBps"];
  ASSERT_GT(busbw, 0);
  EXPECT_DOUBLE_EQ(r["validation"]["trainvp"].get<double>(), busbw);
  EXPECT_EQ(r["validation"]["bytes"], 4u << 20);
}

TEST(Validation, BadEntriesNameTheirPointer) {
  struct Case {
    json validation;
    const char* pointer;
  };
  for (const Case& c : {Case{{{"metric", "speed"}, {"published", 1}, {"source", "s"}}, "/validation/metric"},
                        Case{{{"metric", "mfu"}, {"published", 0}, {"source", "s"}}, "/validation/published"},
                        Case{{{"metric", "mfu"}, {"published", 0.4}}, "/validation/source"},
                        Case{{{"metric", "busbw_GBps"}, {"published", 10}, {"source", "s"}}, "/validation/bytes"}}) {
    try {
      load_scenario(small_training(c.validation), "t");
      ADD_FAILURE() << c.validation.dump() << " accepted";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.path, c.pointer) << e.what();
    }
  }
}

TEST(Validation, EveryScenarioOfTheSuiteNamesItsSourceAndLoads) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/validation")) {
    const json d = read_json_file(e.path().string());
    ASSERT_TRUE(d.contains("validation")) << e.path();
    EXPECT_FALSE(d["validation"]["source"].get<std::string>().empty()) << e.path();
    EXPECT_NE(d["description"].get<std::string>().find(d["validation"]["source"].get<std::string>().substr(0, 20)),
              std::string::npos)
        << e.path() << ": the description names the source";
    EXPECT_NO_THROW(load_scenario(d, "t", e.path().parent_path().string())) << e.path();
    ++n;
  }
  EXPECT_GE(n, 30);
}

}  // namespace test_validation
}  // namespace trainvp
