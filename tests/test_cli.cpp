// The trainvp executable end to end: exit codes, outputs, nothing written on failure,
// determinism of results.json, and describe's JSON.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/cxl/rtl_engine.hpp"
#include "tests/command.hpp"
#include "models/workload/layer.hpp"

namespace test_cli {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;

using trainvp::test::Cmd;
using trainvp::test::trainvp;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-cli-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const std::string kQuick = "scenarios/quickstart.json";
const std::string kShort = kQuick + " --set /training/iterations=3 --set /training/warmup=1";

TEST_F(Cli, VersionAndHelpExitZero) {
  EXPECT_EQ(trainvp("version").code, 0);
  EXPECT_EQ(trainvp("--help").code, 0);
  for (const char* c : {"run", "validate", "describe"}) {
    Cmd r = trainvp(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("usage: trainvp"), std::string::npos) << c;
  }
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(trainvp("").code, 2);
  EXPECT_EQ(trainvp("frobnicate").code, 2);
  EXPECT_EQ(trainvp("run").code, 2);
  EXPECT_EQ(trainvp("run " + kQuick + " --bogus").code, 2);
  EXPECT_EQ(trainvp("describe model").code, 2);
  EXPECT_EQ(trainvp("describe model gpt2-xl --batch zero").code, 2);
}

TEST_F(Cli, ValidateAcceptsEveryShippedScenario) {
  int checked = 0;
  for (auto& e : fs::recursive_directory_iterator(fs::path(TRAINVP_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".json") continue;
    if (e.path().parent_path().filename() == "sweeps") continue;  // sweep specs: tests/test_sweep.cpp
    // Published clusters of up to 16,384 GPUs: each is its own validate.validation/* test, so ctest
    // validates them side by side instead of one after another here.
    if (e.path().parent_path().filename() == "validation") continue;
    // HF configs and profiler traces the scenarios import
    if (e.path().string().find("/workloads/hf/") != std::string::npos ||
        e.path().string().find("/workloads/torch/") != std::string::npos)
      continue;
    if (e.path().parent_path().filename() == "cxl" && !trainvp::rtl_available()) continue;  // needs the RTL build
    Cmd r = trainvp("validate " + e.path().string());
    EXPECT_EQ(r.code, 0) << e.path() << ": " << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

TEST_F(Cli, BadScenarioExitsTwoNamesThePathAndWritesNothing) {
  Cmd r = trainvp("run " + kQuick + " --set /cluster/node/gpus=0 -o " + dir_.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("/cluster/node/gpus"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_));
  fs::create_directories(dir_);
  fs::path bad = dir_ / "bad.json";
  std::ofstream(bad) << "{\"trainvp\": 1,\n \"cluster\": }";
  r = trainvp("validate " + bad.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("line 2"), std::string::npos) << r.out;
  EXPECT_EQ(trainvp("validate /nonexistent/file.json").code, 2);
}

TEST_F(Cli, ValidateChecksFaultTargetsAgainstTheElaboratedFabric) {
  const std::string fault = " --set '/faults=[{\"kind\":\"gpu_slowdown\",\"target\":\"node9.gpu0\",\"factor\":0.5}]'";
  Cmd r = trainvp("validate " + kQuick + fault);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/faults/0/target"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node9.gpu0"), std::string::npos) << r.out;
  const std::string good = " --set '/faults=[{\"kind\":\"gpu_slowdown\",\"target\":\"node1.gpu*\",\"factor\":0.5}]'";
  r = trainvp("validate " + kQuick + good);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(Cli, RunFailureExitsOneAndWritesNothing) {
  Cmd r = trainvp("run " + kQuick + " --set /training/time_limit=10ms -o " + dir_.string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("node0.gpu7"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "results.json"));
}

TEST_F(Cli, RunWritesResultsCsvAndTrace) {
  Cmd r = trainvp("run " + kShort + " -o " + dir_.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("iteration time"), std::string::npos);
  json res = json::parse(slurp(dir_ / "results.json"));
  for (const char* k : {"scenario", "iteration_time_s", "iterations", "throughput", "compute_time_s", "comm_time_s",
                        "exposed_comm_s", "overlap_ratio", "sim"})
    EXPECT_TRUE(res.contains(k)) << k;
  EXPECT_EQ(res["scenario"]["training"]["iterations"], 3);
  EXPECT_EQ(res["scenario"]["output"]["dir"], dir_.string());
  EXPECT_EQ(res["iterations"].size(), 3u);
  for (const char* k : {"start_s", "end_s", "compute_s", "comm_s", "exposed_comm_s"})
    EXPECT_TRUE(res["iterations"][0].contains(k)) << k;
  // samples/s = global batch / iteration time; tokens/s = samples/s x seq.
  double t = res["iteration_time_s"].get<double>();
  EXPECT_NEAR(res["throughput"]["samples_per_s"].get<double>(), 16 * 8 / t, 1e-6);
  EXPECT_NEAR(res["throughput"]["tokens_per_s"].get<double>(), 16 * 8 * 1024 / t, 1e-3);
  for (const char* k : {"wall_s", "events", "simulated_s"}) EXPECT_TRUE(res["sim"].contains(k)) << k;

  std::string csv = slurp(dir_ / "iterations.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);

  json trace = json::parse(slurp(dir_ / "trace.json"));
  int slices = 0, gpu_tracks = 0, nic_tracks = 0, comm_tracks = 0;
  for (auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "compute") ++slices;
    if (e["ph"] != "M" || e["name"] != "thread_name") continue;
    std::string n = e["args"]["name"];
    if (n.rfind("gpu", 0) == 0 && n.find(' ') == std::string::npos) ++gpu_tracks;
    if (n.rfind("nic", 0) == 0) ++nic_tracks;
    if (n.find("comm") != std::string::npos) ++comm_tracks;
  }
  EXPECT_EQ(gpu_tracks, 16);   // a track per GPU,
  EXPECT_EQ(nic_tracks, 16);   // per NIC,
  EXPECT_EQ(comm_tracks, 16);  // and per GPU's collective stream
  // Per GPU and iteration: a slice per forward, dX (where the layer has dX work), dW, and the step.
  trainvp::WorkloadShape shape;
  shape.batch = 8;
  auto layers = trainvp::build_zoo_model("gpt2-xl", shape);
  int dx = 0;
  for (auto& l : layers) dx += l.bwd_input_flops > 0 || l.bwd_input_bytes > 0 || l.bwd_input_kernels > 0;
  EXPECT_EQ(slices, 16 * 3 * (99 + dx + 99 + 1));
}

TEST_F(Cli, SameScenarioAndSeedGiveIdenticalResultsExceptWallTime) {
  auto run_once = [&] {
    Cmd r = trainvp("run " + kShort + " -q -o " + dir_.string());
    EXPECT_EQ(r.code, 0) << r.out;
    std::string text = slurp(dir_ / "results.json");
    return std::regex_replace(text, std::regex("\"wall_s\": [0-9.eE+-]+"), "\"wall_s\": X");
  };
  std::string first = run_once();
  std::string trace1 = slurp(dir_ / "trace.json"), csv1 = slurp(dir_ / "iterations.csv"),
              series1 = slurp(dir_ / "link_series.json");
  std::string second = run_once();
  EXPECT_EQ(first, second);
  EXPECT_EQ(trace1, slurp(dir_ / "trace.json"));
  EXPECT_EQ(csv1, slurp(dir_ / "iterations.csv"));
  EXPECT_FALSE(series1.empty());
  EXPECT_EQ(series1, slurp(dir_ / "link_series.json"));
  EXPECT_NE(first.find("\"wall_s\": X"), std::string::npos);
}

TEST_F(Cli, SetOverridesAreAppliedAndShownInTheResolvedScenario) {
  Cmd r = trainvp("validate " + kQuick + " --set /workload/model=gpt2-small --set /cluster/nodes=2 --resolved");
  ASSERT_EQ(r.code, 0) << r.out;
  json s = json::parse(r.out);
  EXPECT_EQ(s["workload"]["model"], "gpt2-small");
  EXPECT_EQ(s["cluster"]["nodes"], 2);
  EXPECT_EQ(s["cluster"]["node"]["gpu"]["mem_bw"], "3.35TB/s");  // preset values are resolved
}

TEST_F(Cli, DescribeListsEveryParameterAndModelTablesAsJson) {
  Cmd r = trainvp("describe --json");
  ASSERT_EQ(r.code, 0);
  json d = json::parse(r.out);
  EXPECT_GE(d["schemas"].size(), 8u);
  EXPECT_EQ(d["gpu_presets"].size(), 5u);
  EXPECT_EQ(d["zoo_models"].size(), 11u);

  r = trainvp("describe model gpt2-xl --batch 8 --seq 1024 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  json m = json::parse(r.out);
  EXPECT_EQ(m["parameters"].get<std::uint64_t>(), 1557611200u);
  EXPECT_EQ(m["layers"].size(), 99u);
  for (const char* k : {"name", "parameters", "fwd_flops", "bwd_flops", "activation_bytes"})
    EXPECT_TRUE(m["layers"][5].contains(k)) << k;

  r = trainvp("describe model resnet50");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("25557032"), std::string::npos);
  EXPECT_EQ(trainvp("describe model gpt5").code, 2);
}

// --kernels: every layer's kernels on one of t TP ranks of a preset, each with its time and
// efficiency, and the times add up to the layer's (docs/models.md#kernels).
TEST_F(Cli, DescribeKernelsListsEachLayersKernelsWithTimeAndEfficiency) {
  Cmd r = trainvp("describe model gpt2-medium --batch 4 --seq 1024 --kernels --gpu A100-SXM4-80GB --tp 2 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json k = json::parse(r.out);
  EXPECT_EQ(k["gpu"], "A100-SXM4-80GB");
  EXPECT_EQ(k["tp"], 2);
  const json& attn = k["layers"][1];
  ASSERT_EQ(attn["name"], "h0.attn");
  const json& qkv = attn["kernels"]["fwd"][1];  // the fused QKV GEMM, column-parallel: n = 3 x 1024 / 2
  EXPECT_EQ(qkv["kind"], "gemm");
  EXPECT_EQ(qkv["shape"], "4096 x 1536 x 1024 (m n k)");
  EXPECT_GT(qkv["efficiency"].get<double>(), 0.3);
  EXPECT_LT(qkv["efficiency"].get<double>(), 0.84);  // below the large-GEMM rate: quantization
  double sum = 0;
  for (const char* ph : {"fwd", "bwd_input", "bwd_weight"})
    for (const json& x : attn["kernels"][ph]) sum += x["time_s"].get<double>();
  EXPECT_NEAR(sum, attn["time_s"].get<double>(), 1e-15);
  r = trainvp("describe model gpt2-medium --kernels");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("H100-SXM5-80GB"), std::string::npos) << r.out;  // the default GPU
  r = trainvp("describe model gpt2-medium --kernels --gpu RTX-A6000");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("has no kernel model"), std::string::npos) << r.out;
}

}  // namespace test_cli
