// `trainvp convert` and `trainvp describe workload` (platform/cli/workload_file.hpp): a scenario
// converted to explicit layers runs to the same results.json as the original, field by field,
// the echo of its /workload aside (that is what convert replaces); bad input writes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/command.hpp"
#include "tests/golden_compare/compare.hpp"

namespace test_workload_convert {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using trainvp::test::Cmd;
using trainvp::test::trainvp;

class Convert : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-convert-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static json read(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
  }

  // Runs FILE and its conversion; their results.json must agree but for the workload's echo.
  void expect_convert_runs_the_same(const std::string& file, const std::string& tag) {
    const fs::path frozen = dir_ / (tag + "-frozen.json");
    Cmd c = trainvp("convert " + file + " -o " + frozen.string());
    ASSERT_EQ(c.code, 0) << c.out;
    const json doc = read(frozen);
    ASSERT_TRUE(doc["workload"].contains("layers"));
    EXPECT_FALSE(doc["workload"].contains("hf_config"));
    EXPECT_FALSE(doc["workload"].contains("torch_profile"));
    EXPECT_FALSE(doc["workload"].contains("model"));
    Cmd a = trainvp("run " + file + " -q -o " + (dir_ / (tag + "-a")).string());
    ASSERT_EQ(a.code, 0) << a.out;
    Cmd b = trainvp("run " + frozen.string() + " -q -o " + (dir_ / (tag + "-b")).string());
    ASSERT_EQ(b.code, 0) << b.out;
    const json ra = read(dir_ / (tag + "-a") / "results.json"), rb = read(dir_ / (tag + "-b") / "results.json");
    trainvp::golden::Options opt = trainvp::golden::default_options();
    opt.rel_tol = 0;  // identical, not merely close
    opt.ignored.push_back("/scenario/workload");
    const auto diffs = trainvp::golden::compare(ra, rb, opt);
    EXPECT_TRUE(diffs.empty()) << tag << ": " << (diffs.empty() ? "" : diffs.front());
    EXPECT_EQ(ra["workload"], rb["workload"]);  // the model's name included
    EXPECT_NE(ra["scenario"]["workload"], rb["scenario"]["workload"]);
  }

  fs::path dir_;
};

// Tensor and pipeline parallelism: the per-layer TP parts and the transformer dimensions travel.
TEST_F(Convert, HfLlamaWithTensorAndPipelineParallelismRunsTheSame) {
  expect_convert_runs_the_same("scenarios/workloads/llama-2-7b-tp2-pp2-8gpu.json", "llama");
}

// PowerSGD compresses each weight matrix: the matrices travel (Mixtral's experts included).
TEST_F(Convert, HfWorkloadUnderPowerSgdRunsTheSame) {
  json s = read(fs::path(TRAINVP_SOURCE_DIR) / "scenarios/workloads/gpt2-ddp-8gpu.json");
  s["workload"]["hf_config"] = std::string(TRAINVP_SOURCE_DIR) + "/scenarios/workloads/hf/gpt2/config.json";
  s["training"]["iterations"] = 3;
  s["training"]["sync"] = {{"strategy", "layerwise"}, {"compression", {{"kind", "powersgd"}, {"rank", 4}}}};
  std::ofstream(dir_ / "powersgd.json") << s.dump(2);
  expect_convert_runs_the_same((dir_ / "powersgd.json").string(), "powersgd");
}

// A zoo model converts the same way (and the quickstart keeps every other key as written).
TEST_F(Convert, ZooModelRunsTheSame) {
  json s = read(fs::path(TRAINVP_SOURCE_DIR) / "scenarios/quickstart.json");
  s["training"]["iterations"] = 3;
  s["training"]["warmup"] = 1;
  s["workload"]["model"] = "bert-base";
  s["workload"]["seq"] = 512;
  std::ofstream(dir_ / "zoo.json") << s.dump(2);
  expect_convert_runs_the_same((dir_ / "zoo.json").string(), "zoo");
}

// A profiler trace's measured layer times and optimizer step travel.
TEST_F(Convert, TorchProfileRunsTheSame) {
  expect_convert_runs_the_same("scenarios/workloads/tiny-gpt-torch-profile-ddp-8gpu.json", "torch");
}

// Every GPU's compute is the trace's step: its layers' forward and backward and its optimizer step,
// as scripts/torch-profile-sample summed them from the profiler's own events.
TEST_F(Convert, TorchProfileComputeIsTheTracesMeasuredStep) {
  const json want = read(fs::path(TRAINVP_SOURCE_DIR) / "scenarios/workloads/torch/tiny-gpt-cpu.expected.json");
  Cmd a = trainvp("run scenarios/workloads/tiny-gpt-torch-profile-ddp-8gpu.json -q -o " + (dir_ / "run").string());
  ASSERT_EQ(a.code, 0) << a.out;
  const json r = read(dir_ / "run" / "results.json");
  const double step_us =
      want["fwd_us"].get<double>() + want["bwd_us"].get<double>() + want["optimizer_us"].get<double>();
  for (const json& rank : r["ranks"])
    EXPECT_NEAR(rank["compute_s"].get<double>(), step_us * 1e-6, 1e-12) << rank["name"];
  EXPECT_EQ(r["workload"]["parameters"], want["params"]);
  EXPECT_EQ(r["workload"]["layers"], want["layers"].size());
  EXPECT_EQ(r["workload"]["model"], "torch:tiny-gpt-cpu");
}

TEST_F(Convert, BadInputExitsTwoAndWritesNothing) {
  const fs::path out = dir_ / "out.json";
  Cmd r = trainvp("convert scenarios/collectives/allreduce-64.json -o " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/workload/kind"), std::string::npos) << r.out;
  json s = read(fs::path(TRAINVP_SOURCE_DIR) / "scenarios/workloads/gpt2-ddp-8gpu.json");
  s["workload"]["hf_config"] = "nowhere/config.json";
  std::ofstream(dir_ / "bad.json") << s.dump(2);
  r = trainvp("convert " + (dir_ / "bad.json").string() + " -o " + out.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/workload/hf_config: no Hugging Face config \"nowhere/config.json\""), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  EXPECT_EQ(trainvp("convert").code, 2);
}

TEST_F(Convert, DescribeWorkloadPrintsAConfigsOrAScenariosLayerTable) {
  Cmd r = trainvp("describe workload scenarios/workloads/hf/Mixtral-8x7B-v0.1/config.json --json");
  ASSERT_EQ(r.code, 0) << r.out;
  json t = json::parse(r.out);
  EXPECT_EQ(t["model"], "hf:Mixtral-8x7B-v0.1");
  EXPECT_EQ(t["parameters"], 46702792704ULL);
  EXPECT_EQ(t["shape"]["seq"], 1024);
  EXPECT_EQ(t["layers"].size(), 67u);  // embed, 32 x (attn, mlp), norm, lm_head
  r = trainvp("describe workload scenarios/workloads/bert-base-uncased-localsgd-16gpu.json --json");
  ASSERT_EQ(r.code, 0) << r.out;
  t = json::parse(r.out);
  EXPECT_EQ(t["parameters"], 109482240ULL);
  EXPECT_EQ(t["shape"]["batch"], 32);
  r = trainvp("describe workload scenarios/workloads/hf/gpt2/config.json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("hf:gpt2: 124439808 parameters (HF GPT2LMHeadModel", 0), 0u) << r.out;
  r = trainvp("describe workload scenarios/quickstart.json --set /workload/model=gpt2-small --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(json::parse(r.out)["parameters"], 124439808ULL);

  r = trainvp("describe --json");
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(json::parse(r.out)["hf_model_types"], json({"gpt2", "bert", "llama", "mistral", "mixtral"}));
  r = trainvp("describe");
  EXPECT_NE(r.out.find("Hugging Face configs (/workload/hf_config"), std::string::npos) << r.out;

  r = trainvp("describe workload scenarios/workloads/hf/gpt2/config.json --seq 2048");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("/seq: expected at most 1024 tokens (the config's n_positions)"), std::string::npos) << r.out;
  r = trainvp("describe workload scenarios/workloads/gpt2-ddp-8gpu.json --seq 512");
  EXPECT_EQ(r.code, 2) << r.out;
  r = trainvp("describe workload scenarios/sweeps/base.json");
  EXPECT_EQ(r.code, 0) << r.out;
  r = trainvp("describe workload scenarios/sweeps/batch-scaling.json");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("neither a scenario"), std::string::npos) << r.out;

  r = trainvp("describe workload scenarios/workloads/torch/tiny-gpt-cpu.trace.json --dtype fp32 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  t = json::parse(r.out);
  EXPECT_EQ(t["model"], "torch:tiny-gpt-cpu");
  EXPECT_EQ(t["parameters"], 167680u);
  EXPECT_EQ(t["layers"][0]["gradient_bytes"], 34816u * 4);
  EXPECT_TRUE(t["layers"][0].contains("fwd_time_s"));
  EXPECT_TRUE(t.contains("optimizer_time_s"));
  r = trainvp("describe workload scenarios/workloads/torch/tiny-gpt-cpu.trace.json --batch 4");
  EXPECT_EQ(r.code, 2) << r.out;
}

}  // namespace test_workload_convert
