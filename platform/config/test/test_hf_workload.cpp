// /workload/hf_config: the config is found beside the scenario file, then in the current
// directory; problems in it are errors at /workload/hf_config naming the key's pointer in the
// config; and an explicit layer list written by layer_json/frozen_workload (`trainvp convert`)
// loads back into the very layers it was written from.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/workload/test/expect_same_layers.hpp"
#include "platform/config/hf_workload.hpp"
#include "platform/config/scenario.hpp"
#include "platform/config/test/workload_doc.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {
namespace test_hf_workload {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::doc_with;
using test::error_of;
using test::kWorkloads;

// A temporary directory holding one config.json, removed at the end of the test.
struct TempConfig : test::TempJsonFile {
  explicit TempConfig(const json& config) : TempJsonFile("trainvp-hf-", "m/config.json", config) {}
};

json gpt2_config() {
  std::ifstream in(kWorkloads + "/hf/gpt2/config.json");
  return json::parse(in);
}

TEST(HfWorkload, ShippedScenarioFindsItsConfigBesideIt) {
  const Scenario s = load_scenario_file(kWorkloads + "/gpt2-ddp-8gpu.json", {});
  EXPECT_EQ(s.workload.model, "hf:gpt2");
  EXPECT_EQ(s.workload.total_params(), 124439808ULL);
  EXPECT_TRUE(s.workload.sequence_model);
  EXPECT_EQ(s.workload.dims.hidden, 768);
  EXPECT_EQ(s.resolved["workload"]["hf_config"], "hf/gpt2/config.json");  // as written: results stay portable
}

TEST(HfWorkload, RelativePathsTryTheScenarioDirectoryThenTheCurrentOne) {
  const json doc = doc_with({{"hf_config", "hf/gpt2/config.json"}, {"seq", 512}});
  EXPECT_EQ(load_scenario(doc, "t", kWorkloads).workload.model, "hf:gpt2");
  const fs::path cwd = fs::current_path();
  fs::current_path(kWorkloads);
  const std::string model = load_scenario(doc, "t", "/nonexistent").workload.model;
  fs::current_path(cwd);
  EXPECT_EQ(model, "hf:gpt2");
  const ScenarioError e = error_of(doc, "/nonexistent");
  EXPECT_EQ(e.path, "/workload/hf_config");
  EXPECT_NE(std::string(e.what()).find("no Hugging Face config \"hf/gpt2/config.json\""), std::string::npos)
      << e.what();
}

TEST(HfWorkload, ProblemsNameTheScenarioPointerAndTheConfigKey) {
  json bad = gpt2_config();
  bad["n_head"] = 7;
  TempConfig t(bad);
  const std::string file = (t.dir / "m" / "config.json").string();
  ScenarioError e = error_of(doc_with({{"hf_config", file}}));
  EXPECT_EQ(e.path, "/workload/hf_config");
  EXPECT_NE(std::string(e.what()).find("at /n_head: expected a divisor of n_embd (768)"), std::string::npos)
      << e.what();

  std::ofstream(file) << "{\"model_type\": \"gpt2\",";
  e = error_of(doc_with({{"hf_config", file}}));
  EXPECT_EQ(e.path, "/workload/hf_config");
  EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();

  e = error_of(doc_with({{"hf_config", "/dev/zero"}}));  // never read: it has no end
  EXPECT_EQ(e.path, "/workload/hf_config");
  EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  std::ofstream(file) << std::string((1 << 20) + 1, ' ');
  e = error_of(doc_with({{"hf_config", file}}));
  EXPECT_NE(std::string(e.what()).find("larger than 1 MiB"), std::string::npos) << e.what();

  const std::string gpt2 = kWorkloads + "/hf/gpt2/config.json";
  e = error_of(doc_with({{"hf_config", gpt2}, {"seq", 2048}}));
  EXPECT_EQ(e.path, "/workload/seq");
  EXPECT_NE(std::string(e.what()).find("at most 1024 tokens (the config's n_positions)"), std::string::npos)
      << e.what();
  EXPECT_EQ(error_of(doc_with({{"hf_config", gpt2}, {"model", "gpt2"}})).path, "/workload");
  EXPECT_EQ(error_of(doc_with({{"hf_config", gpt2}, {"sequence", true}})).path, "/workload/sequence");
  EXPECT_EQ(error_of(doc_with({{"hf_config", 5}})).path, "/workload/hf_config");
  EXPECT_EQ(error_of(doc_with({{"model", "gpt2"}, {"name", "x"}})).path, "/workload/name");
}

TEST(HfWorkload, NamesComeFromTheConfigsDirectory) {
  EXPECT_EQ(hf_model_name("models/Qwen-7B/config.json"), "hf:Qwen-7B");
  EXPECT_EQ(hf_model_name("config.json"), "hf:config");
  EXPECT_EQ(hf_model_name("/x/tiny-llama.json"), "hf:tiny-llama");
}

void expect_same(const Workload& a, const Workload& b) {
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.sequence_model, b.sequence_model);
  EXPECT_EQ(a.dims.layers, b.dims.layers);
  EXPECT_EQ(a.dims.hidden, b.dims.hidden);
  EXPECT_EQ(a.dims.heads, b.dims.heads);
  EXPECT_EQ(a.dims.vocab, b.dims.vocab);
  EXPECT_EQ(a.optimizer_time_ps, b.optimizer_time_ps);
  test::expect_same_layers(a.layers, b.layers);
}

// Frozen, a zoo model, an HF import (Mixtral's experts: 25 matrices a layer), a profiler trace's
// import (measured times, its optimizer step) and a list with measured times each load back into
// the same workload.
TEST(HfWorkload, FrozenWorkloadsLoadBackUnchanged) {
  const json workloads[] = {
      {{"model", "gpt2-medium"}, {"batch", 2}, {"seq", 256}, {"dtype", "fp16"}, {"grad_dtype", "fp32"}},
      {{"hf_config", kWorkloads + "/hf/Mixtral-8x7B-v0.1/config.json"}, {"batch", 1}, {"seq", 128}},
      {{"model", "resnet50"}, {"batch", 4}},
      {{"torch_profile", kWorkloads + "/torch/tiny-gpt-cpu.trace.json"}, {"batch", 4}, {"seq", 32}, {"dtype", "fp32"}},
      {{"batch", 8},
       {"layers",
        {{{"name", "a"}, {"params", 1000}, {"fwd_time", "10us"}, {"bwd_time", "21us"}},
         {{"name", "b"}, {"params", 10}, {"fwd_flops", 1e9}, {"bwd_flops", 3e9}, {"kernels", 3}}}}},
  };
  for (const json& w : workloads) {
    SCOPED_TRACE(w.dump().substr(0, 80));
    const Scenario original = load_scenario(doc_with(w), "t");
    nlohmann::ordered_json frozen_doc = nlohmann::ordered_json::parse(doc_with(w).dump());
    frozen_doc["workload"] = frozen_workload(original.workload, frozen_doc["workload"]);
    const Scenario frozen = load_scenario(json::parse(frozen_doc.dump()), "t");
    expect_same(original.workload, frozen.workload);
    EXPECT_EQ(frozen.resolved["workload"]["batch"], original.resolved["workload"]["batch"]);
    EXPECT_FALSE(frozen_doc["workload"].contains("model"));
    EXPECT_FALSE(frozen_doc["workload"].contains("hf_config"));
    EXPECT_FALSE(frozen_doc["workload"].contains("torch_profile"));
  }
}

TEST(HfWorkload, LayerMatricesAreCheckedAgainstParams) {
  json w = {{"layers",
             {{{"name", "a"},
               {"params", 100},
               {"fwd_flops", 1},
               {"bwd_flops", 1},
               {"matrices", json::array({json::array({10, 11})})}}}}};
  EXPECT_EQ(error_of(doc_with(w)).path, "/workload/layers/0/matrices/0");
  w["layers"][0]["matrices"] = json::parse("[[10, 0]]");
  EXPECT_EQ(error_of(doc_with(w)).path, "/workload/layers/0/matrices/0/1");
  w["layers"][0]["matrices"] = json::parse("[[10, 10]]");
  EXPECT_EQ(load_scenario(doc_with(w), "t").workload.layers[0].matrices.size(), 1u);
  w["transformer"] = {{"layers", 1}, {"hidden", 0}, {"heads", 1}};
  EXPECT_EQ(error_of(doc_with(w)).path, "/workload/transformer/hidden");
}

}  // namespace test_hf_workload
}  // namespace trainvp
