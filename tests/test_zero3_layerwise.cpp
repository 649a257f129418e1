// ZeRO-3 with layer-wise synchronization (docs/parallelism.md#zero-3-layer-wise), whole runs
// against closed forms: wire bytes per rank (each gather and reduce-scatter moves (d-1)/d of its
// buffer), the same as ZeRO-3 over DDP's buckets; with compute dominating, every reduce-scatter
// but the last layer's hidden under the backward and every prefetched gather under the phase
// before its own, so the iteration is compute + one ring reduce-scatter (d-1)(alpha + n/(d beta));
// the gathered-parameter and in-flight gradient buffers; and the refused combinations.
#include <gtest/gtest.h>

#include <string>

#include "platform/config/scenario.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_zero3_layerwise {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// GPT-2 small over 4 GPUs of one node as 1 x 1 x 4, ZeRO stage `zero`, one micro-batch.
json gpt2(const std::string& strategy, int zero) {
  return {{"trainvp", 1},
          {"name", "zero3-gpt2"},
          {"cluster",
           {{"nodes", 1},
            {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}}}}},
          {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 128}, {"dtype", "bf16"}}},
          {"training",
           {{"iterations", 3},
            {"warmup", 1},
            {"sync", {{"strategy", strategy}}},
            {"parallel", {{"dp", 4}, {"zero", zero}}}}},
          {"output", {{"trace", false}}}};
}

// Bytes each rank sends over all collectives of a run: all-reduce 2(d-1)/d n, reduce-scatter and
// all-gather (d-1)/d n.
double ring_wire_bytes(const json& r) {
  double total = 0;
  for (const json& c : r["collectives"]) {
    const double n = c["bytes"].get<double>(), d = c["ranks"].get<double>();
    total += (c["op"] == "all_reduce" ? 2 : 1) * (d - 1) / d * n;
  }
  return total;
}

TEST(Zero3LayerWise, WireBytesAreTwoGathersPerLayerAndOneReduceScatter) {
  const json doc = gpt2("layerwise", 3);
  const Scenario s = load_scenario(doc, "t");
  const double d = 4, iterations = 3;
  const double P = static_cast<double>(s.workload.total_params() * dtype_bytes(s.workload.shape.dtype));
  const double G = static_cast<double>(s.workload.total_params() * dtype_bytes(s.workload.shape.grad_dtype));
  int param_layers = 0;
  for (const Layer& l : s.workload.layers) param_layers += l.params > 0 ? 1 : 0;
  const json lw = test::simulate(doc), ddp = test::simulate(gpt2("ddp", 3)), plain = test::simulate(gpt2("ddp", 0));
  // m = 1: every layer gathered before its forward and its backward, every gradient reduce-scattered once.
  const double closed = iterations * (d - 1) / d * (2 * P + G);
  EXPECT_NEAR(ring_wire_bytes(lw), closed, 1e-9 * closed);
  EXPECT_NEAR(ring_wire_bytes(ddp), closed, 1e-9 * closed);  // the same bytes as over DDP's buckets
  EXPECT_NEAR(ring_wire_bytes(lw), 1.5 * ring_wire_bytes(plain), 1e-9 * closed);
  for (const json& c : lw["collectives"]) EXPECT_NE(c["op"], "all_reduce") << c["label"];
  const json& z = lw["parallel"]["stages"][0]["zero3"];
  EXPECT_EQ(z["prefetch"], 2);
  EXPECT_DOUBLE_EQ(z["all_gather"]["count"].get<double>(), 2.0 * param_layers);
  EXPECT_NEAR(z["all_gather"]["wire_bytes"].get<double>(), (d - 1) / d * 2 * P, 1e-9 * P);
  EXPECT_NEAR(z["reduce_scatter"]["wire_bytes"].get<double>(), (d - 1) / d * G, 1e-9 * G);
}

// Layer "in" (no parameters, 2 ms forward, free backward) then four layers of kN bf16 parameters
// with 2 ms forward, dX and dW each, on 4 nodes of one GPU (one switch), no optimizer work.
constexpr double kN = 20000000, kD = 4, kPhase = 2e-3;
// A ring reduce-scatter or all-gather of one layer (n = 2 kN bytes): (d-1)(alpha + n/(d beta)).
double ring_time() { return (kD - 1) * (test::alpha_between_nodes() + 2 * kN / (kD * test::eth_beta())); }

json compute_bound(int prefetch) {
  json layers = json::array();
  layers.push_back(
      {{"name", "in"}, {"params", 0}, {"fwd_time", "2ms"}, {"bwd_input_time", "0ms"}, {"bwd_weight_time", "0ms"}});
  for (int i = 1; i <= 4; ++i)
    layers.push_back({{"name", "l" + std::to_string(i)},
                      {"params", kN},
                      {"fwd_time", "2ms"},
                      {"bwd_input_time", "2ms"},
                      {"bwd_weight_time", "2ms"}});
  return {{"trainvp", 1},
          {"name", "zero3-closed-form"},
          {"cluster",
           {{"nodes", 4},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}}}}},
          {"workload", {{"layers", layers}, {"dtype", "bf16"}}},
          {"training",
           {{"iterations", 4},
            {"warmup", 1},
            {"optimizer", "none"},
            {"sync", {{"strategy", "layerwise"}}},
            {"parallel", {{"dp", 4}, {"zero", 3}, {"zero3_prefetch", prefetch}}}}},
          {"output", {{"trace", false}}}};
}

TEST(Zero3LayerWise, ComputeHidesEveryReduceScatterButTheLastLayers) {
  const double t = ring_time();  // about 0.6 ms, under one 2 ms phase
  ASSERT_LT(t, kPhase);
  const json r = test::simulate(compute_bound(2));
  // 5 forwards and 4 x (dX + dW): 13 phases of 2 ms; then the optimizer waits for l1's reduce-scatter.
  const double compute = 13 * kPhase;
  EXPECT_NEAR(r["iteration_time_s"].get<double>(), compute + t, 0.03 * t);
  const json& z = r["parallel"]["stages"][0]["zero3"];
  EXPECT_NEAR(z["reduce_scatter"]["exposed_s"].get<double>(), t, 0.03 * t);
  EXPECT_NEAR(z["reduce_scatter"]["comm_s"].get<double>(), 4 * t, 0.03 * 4 * t);
  // Every gather starts one phase ahead of its own and ends within it.
  EXPECT_NEAR(z["all_gather"]["exposed_s"].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(z["all_gather"]["comm_s"].get<double>(), 8 * t, 0.03 * 8 * t);
  // Memory: two gathered layers; one layer's gradient in flight at a time (each reduce-scatter
  // ends before the next layer's dW does).
  EXPECT_EQ(z["memory"]["gathered_params_bytes"].get<double>(), 2 * 2 * kN);
  EXPECT_EQ(z["memory"]["grads_in_flight_peak_bytes"].get<double>(), 2 * kN);
}

TEST(Zero3LayerWise, PrefetchOneGathersJustInTime) {
  const double t = ring_time();
  const json r2 = test::simulate(compute_bound(2)), r1 = test::simulate(compute_bound(1));
  const json& z = r1["parallel"]["stages"][0]["zero3"];
  // At least the four forward gathers wait whole (nothing else is in flight then).
  EXPECT_GE(z["all_gather"]["exposed_s"].get<double>(), 0.97 * 4 * t);
  EXPECT_GT(r1["iteration_time_s"].get<double>(), r2["iteration_time_s"].get<double>() + 0.97 * 4 * t);
  EXPECT_EQ(z["memory"]["gathered_params_bytes"].get<double>(), 2 * kN);
}

void expect_refused(const json& doc, const std::string& why) {
  try {
    test::simulate(doc);
    ADD_FAILURE() << "ran: " << doc["training"].dump();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("/training/parallel/zero"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
  }
}

TEST(Zero3LayerWise, PeriodicAveragingElasticAndCompressionAreRefusedAtZero) {
  for (const char* strategy : {"plsgd", "localsgd"}) {
    json doc = gpt2(strategy, 3);
    doc["training"]["sync"]["period"] = 2;
    expect_refused(doc, "once every H iterations");
  }
  expect_refused(gpt2("elastic", 3), "its own gradient");
  json topk = gpt2("layerwise", 3);
  topk["training"]["sync"]["compression"] = {{"kind", "topk"}};
  expect_refused(topk, "compression \"topk\"");
  json retry = gpt2("layerwise", 3);
  retry["training"]["sync"]["retry"] = json::object();
  expect_refused(retry, "retries are exhausted");
}

}  // namespace test_zero3_layerwise
}  // namespace trainvp
