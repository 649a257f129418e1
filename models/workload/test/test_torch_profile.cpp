// PyTorch profiler traces as workloads (models/workload/torch_profile.hpp): the shipped real trace
// against what its model and the profiler said when it was recorded (scripts/torch-profile-sample
// wrote both), and small traces in Kineto's event shape whose sums are worked out by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <string>

#include <nlohmann/json.hpp>

#include "models/workload/torch_profile.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {
namespace test_torch_profile {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

json read(const std::string& name) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/workloads/torch/" + name);
  EXPECT_TRUE(in) << name;
  return json::parse(in);
}

json op(const std::string& name, double ts, double dur, json args = json::object(), const char* cat = "cpu_op") {
  if (args.is_null()) args = json::object();
  return {{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 7}, {"tid", 1}, {"ts", ts}, {"dur", dur}, {"args", args}};
}

std::string error_path(const json& trace) {
  try {
    parse_torch_profile(trace);
  } catch (const ScenarioError& e) {
    return e.path;
  }
  return "(no error)";
}

TEST(TorchProfile, TheShippedCpuTraceHasTheModelsLayersParametersAndProfiledTimes) {
  const json expected = read("tiny-gpt-cpu.expected.json");
  const TorchProfile p = parse_torch_profile(read("tiny-gpt-cpu.trace.json"));
  EXPECT_EQ(p.layers_from, "record_function");
  EXPECT_FALSE(p.gpu_kernels);
  ASSERT_EQ(p.layers.size(), expected["layers"].size());
  std::uint64_t params = 0;
  std::int64_t fwd = 0, bwd = 0;
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const auto& l = p.layers[i];
    EXPECT_EQ(l.name, expected["layers"][i].get<std::string>());
    EXPECT_EQ(l.params, expected["layer_params"][l.name].get<std::uint64_t>()) << l.name;  // model.parameters()
    EXPECT_GT(l.bwd_ops, 0) << l.name;
    params += l.params, fwd += l.fwd_ps, bwd += l.bwd_ps;
  }
  EXPECT_EQ(params, expected["params"].get<std::uint64_t>());
  EXPECT_EQ(fwd, expected["fwd_us"].get<std::int64_t>() * 1000000);
  EXPECT_EQ(bwd, expected["bwd_us"].get<std::int64_t>() * 1000000);
  EXPECT_EQ(p.optimizer_ps, expected["optimizer_us"].get<std::int64_t>() * 1000000);
  // Linear weights are in x out matrices; the embeddings' tables rows x width.
  EXPECT_EQ(p.layers[0].matrices.size(), 2u);
  EXPECT_EQ(p.layers[0].matrices[0].rows, 512u);
  EXPECT_EQ(p.layers[0].matrices[0].cols, 64u);
}

TEST(TorchProfile, LayersFromRangesTheirBackwardBySequenceNumberAndTheOptimizerStep) {
  json ev = json::array();
  ev.push_back(op("layer:fc1", 0, 10, {}, "user_annotation"));
  ev.push_back(op("aten::linear", 1, 8, {{"Input Dims", {{8, 16}, {32, 16}, {32}}}, {"Sequence number", 5}}));
  ev.push_back(op("aten::addmm", 2, 6, {{"Input Dims", {{32}, {8, 16}, {16, 32}}}, {"Sequence number", 6}}));
  ev.push_back(op("layer:act", 10, 3, {}, "user_annotation"));
  ev.push_back(op("aten::relu", 10.5, 2, {{"Input Dims", {{8, 32}}}, {"Sequence number", 7}}));
  ev.push_back(op("aten::expand", 11, 0.5, {{"Sequence number", 9}, {"Fwd thread id", 0}}));
  // An operator that records no autograd node carries the next node's number: the loss's, here.
  ev.push_back(op("aten::empty", 12, 0.5, {{"Sequence number", 8}}));
  ev.push_back(op("aten::mse_loss", 14, 1, {{"Sequence number", 8}}));  // outside every layer
  ev.push_back(op("autograd::engine::evaluate_function: MseLossBackward0", 20, 2, {{"Sequence number", 8}}));
  ev.push_back(op("autograd::engine::evaluate_function: ReluBackward0", 22, 4, {{"Sequence number", 7}}));
  ev.push_back(op("ReluBackward0", 22.5, 3, {{"Sequence number", 7}}));
  ev.push_back(op("autograd::engine::evaluate_function: AddmmBackward0", 26, 9, {{"Sequence number", 6}}));
  ev.push_back(
      op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 35, 1, {{"Sequence number", -1}}));
  // Rounded to microseconds, a backward operator may start where its function ends: it is still
  // backward work ("Fwd thread id" > 0), not the last forward operator with its number.
  ev.push_back(op("autograd::engine::evaluate_function: ExpandBackward0", 36, 1,
                  {{"Sequence number", 9}, {"Fwd thread id", 1}}));
  ev.push_back(op("ExpandBackward0", 37, 0, {{"Sequence number", 9}, {"Fwd thread id", 1}}));
  ev.push_back(op("Optimizer.step#SGD.step", 40, 5, {}, "user_annotation"));
  ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 7}, {"tid", 1}});  // metadata: skipped
  const TorchProfile p = parse_torch_profile({{"traceEvents", ev}});
  ASSERT_EQ(p.layers.size(), 2u);
  EXPECT_EQ(p.layers[0].name, "fc1");
  EXPECT_EQ(p.layers[0].params, 32u * 16 + 32);  // aten::linear's weight and bias; addmm inside it not again
  ASSERT_EQ(p.layers[0].matrices.size(), 1u);
  EXPECT_EQ(p.layers[0].matrices[0].rows, 16u);
  EXPECT_EQ(p.layers[0].matrices[0].cols, 32u);
  EXPECT_EQ(p.layers[0].fwd_ps, 10000000);
  EXPECT_EQ(p.layers[0].bwd_ps, 9000000);
  EXPECT_EQ(p.layers[1].params, 0u);
  EXPECT_EQ(p.layers[1].bwd_ps, 5000000);     // the functions only, not their ReluBackward0 again
  EXPECT_EQ(p.unattributed_bwd_ps, 3000000);  // the loss's backward and AccumulateGrad
  EXPECT_EQ(p.optimizer_ps, 5000000);
  const auto layers = torch_profile_layers(p, DType::BF16);
  EXPECT_EQ(layers[0].grad_bytes, (32u * 16 + 32) * 2);
  EXPECT_EQ(layers[0].bwd_input_time_ps + layers[0].bwd_weight_time_ps, 9000000);
  EXPECT_EQ(layers[1].fwd_time_ps, 3000000);
}

TEST(TorchProfile, GpuKernelsTimesReplaceTheCpuRangesByExternalId) {
  json ev = json::array();
  ev.push_back(op("layer:conv", 0, 50, {{"External id", 1}}, "user_annotation"));
  ev.push_back(op("aten::conv2d", 1, 40,
                  {{"Input Dims", {{2, 3, 8, 8}, {16, 3, 3, 3}, {16}}}, {"Sequence number", 3}, {"External id", 2}}));
  ev.push_back(op("aten::convolution", 2, 30,
                  {{"Input Dims", {{2, 3, 8, 8}, {16, 3, 3, 3}, {16}}}, {"Sequence number", 4}, {"External id", 3}}));
  ev.push_back(op("autograd::engine::evaluate_function: ConvolutionBackward0", 60, 20,
                  {{"Sequence number", 4}, {"External id", 4}}));
  ev.push_back(op("aten::convolution_backward", 61, 15, {{"External id", 5}}));
  ev.push_back(op("Optimizer.step#Adam.step", 90, 10, {{"External id", 6}}, "user_annotation"));
  ev.push_back(op("aten::_foreach_add_", 91, 5, {{"External id", 7}}));
  // Kernels on a GPU stream, launched by the operators of the same External id.
  ev.push_back({{"ph", "X"},
                {"cat", "kernel"},
                {"name", "implicit_gemm"},
                {"pid", 0},
                {"tid", 7},
                {"ts", 5},
                {"dur", 4.5},
                {"args", {{"External id", 3}}}});
  ev.push_back({{"ph", "X"},
                {"cat", "kernel"},
                {"name", "bias"},
                {"pid", 0},
                {"tid", 7},
                {"ts", 12},
                {"dur", 0.5},
                {"args", {{"External id", 3}}}});
  ev.push_back({{"ph", "X"},
                {"cat", "kernel"},
                {"name", "dgrad"},
                {"pid", 0},
                {"tid", 7},
                {"ts", 65},
                {"dur", 7},
                {"args", {{"External id", 5}}}});
  ev.push_back({{"ph", "X"},
                {"cat", "kernel"},
                {"name", "adam"},
                {"pid", 0},
                {"tid", 7},
                {"ts", 95},
                {"dur", 2},
                {"args", {{"External id", 7}}}});
  ev.push_back({{"ph", "X"},
                {"cat", "kernel"},
                {"name", "memset"},
                {"pid", 0},
                {"tid", 7},
                {"ts", 99},
                {"dur", 1},
                {"args", {{"External id", 99}}}});
  const TorchProfile p = parse_torch_profile(ev);
  ASSERT_TRUE(p.gpu_kernels);
  ASSERT_EQ(p.layers.size(), 1u);
  EXPECT_EQ(p.layers[0].params, 16u * 3 * 3 * 3 + 16);  // conv2d's; its inner convolution not again
  ASSERT_EQ(p.layers[0].matrices.size(), 1u);
  EXPECT_EQ(p.layers[0].matrices[0].rows, 27u);
  EXPECT_EQ(p.layers[0].fwd_ps, 5000000);  // 4.5 + 0.5 us of kernels, not the 50 us range
  EXPECT_EQ(p.layers[0].fwd_ops, 2);
  EXPECT_EQ(p.layers[0].bwd_ps, 7000000);
  EXPECT_EQ(p.optimizer_ps, 2000000);
  EXPECT_EQ(p.unattributed_bwd_ps, 1000000);  // the memset no operator of ours launched
}

TEST(TorchProfile, WithoutRangesTheModulesJustInsideTheModelAreTheLayers) {
  json ev = json::array();
  ev.push_back(op("nn.Module: Net_0", 0, 100, {}, "python_function"));
  ev.push_back(op("nn.Module: Linear_0", 1, 20, {}, "python_function"));
  ev.push_back(op("aten::linear", 2, 10, {{"Input Dims", {{4, 8}, {8, 8}, {}}}, {"Sequence number", 1}}));
  ev.push_back(op("nn.Module: Block_0", 30, 40, {}, "python_function"));
  ev.push_back(op("nn.Module: Linear_1", 31, 10, {}, "python_function"));  // inside Block_0: part of it
  ev.push_back(op("aten::linear", 32, 5, {{"Input Dims", {{4, 8}, {8, 8}, {8}}}, {"Sequence number", 2}}));
  ev.push_back(op("nn.Module: Linear_0", 80, 10, {}, "python_function"));  // called again (shared weights)
  const TorchProfile p = parse_torch_profile(ev);
  EXPECT_EQ(p.layers_from, "nn.Module");
  ASSERT_EQ(p.layers.size(), 3u);
  EXPECT_EQ(p.layers[0].name, "Linear_0");
  EXPECT_EQ(p.layers[0].params, 64u);  // no bias: its Input Dims entry is empty
  EXPECT_EQ(p.layers[1].name, "Block_0");
  EXPECT_EQ(p.layers[1].params, 72u);
  EXPECT_EQ(p.layers[1].fwd_ps, 40000000);
  EXPECT_EQ(p.layers[2].name, "Linear_0.2");
}

TEST(TorchProfile, MalformedTracesAreErrorsAtTheirPointer) {
  EXPECT_EQ(error_path(json(3)), "");
  EXPECT_EQ(error_path(json{{"events", json::array()}}), "/traceEvents");
  json ev = json::array({op("layer:a", 0, 1), op("aten::mm", 0, 1)});
  ev[1].erase("ts");
  EXPECT_EQ(error_path({{"traceEvents", ev}}), "/traceEvents/1/ts");
  ev[1]["ts"] = 0;
  ev[1]["dur"] = -2;
  EXPECT_EQ(error_path(ev), "/1/dur");
  ev[1]["dur"] = 1;
  ev[1]["args"] = {{"Sequence number", "five"}};
  EXPECT_EQ(error_path(ev), "/1/args/Sequence number");
  EXPECT_EQ(error_path(json::array({op("aten::mm", 0, 1)})), "");                         // no layers at all
  EXPECT_EQ(error_path(json::array({op("layer:a", 0, 1), op("layer:a", 2, 1)})), "/1");   // one step, once each
  EXPECT_EQ(error_path(json::array({op("layer:a", 0, 10), op("layer:b", 2, 1)})), "/1");  // nested layers
  EXPECT_EQ(error_path(json::array({op("layer:a", 0, 1), op("layer:b", 2, 1)})), "(no error)");
}

}  // namespace test_torch_profile
}  // namespace trainvp
