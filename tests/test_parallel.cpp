// Hybrid parallelism run end to end (docs/parallelism.md) against closed forms: the pipeline
// bubble (p-1)/m (and (p-1)(tf+tb) of idle time per rank, reported as the bubble rather than as
// exposed communication) for GPipe and 1F1B and (p-1)/(m v) interleaved with uniform stages and free
// communication (Narayanan et al.), Megatron's TP collectives per layer and their bytes, the
// point-to-point sends per stage boundary, ZeRO-1's bytes against DDP's, and a 1 x 1 x d layout
// reproducing plain data parallelism bit for bit. Simulations run in forked children.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/report/results.hpp"
#include "platform/system/simulation.hpp"
#include "tests/sim_child.hpp"

namespace trainvp {
namespace test_parallel {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// Runs `doc` with `edit` applied to the loaded scenario (the parallel layout is set in code, so
// these tests check execution, not the JSON keys, which tests/test_parallel_config.cpp covers).
json run(const json& doc, const std::function<void(Scenario&)>& edit) {
  auto r = test::in_child([&] {
    Scenario s = load_scenario(doc, "t");
    edit(s);
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json.dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return json::parse(r.value);
}

// `layers` identical layers of 1 ms forward, dX and dW each (measured times: exact), on one node
// of `gpus` GPUs whose NVLink is free (1000 Tbit/s, no latency), no optimizer work.
json uniform_doc(int gpus, int layers, int iterations) {
  json ls = json::array();
  for (int i = 0; i < layers; ++i)
    ls.push_back({{"name", "l" + std::to_string(i)},
                  {"params", 1000},
                  {"fwd_time", "1ms"},
                  {"bwd_input_time", "1ms"},
                  {"bwd_weight_time", "1ms"}});
  return {{"trainvp", 1},
          {"name", "uniform"},
          {"cluster",
           {{"nodes", 1},
            {"node",
             {{"gpus", gpus},
              {"gpu", {{"preset", "H100-SXM5-80GB"}, {"nvlink_bw", "1000Tbps"}}},
              {"nvlink", {{"latency", "0ns"}, {"switch_latency", "0ns"}, {"framing", 0}}}}}}},
          {"workload", {{"batch", 1}, {"seq", 1}, {"dtype", "bf16"}, {"layers", ls}}},
          {"training", {{"iterations", iterations}, {"warmup", 1}, {"optimizer", "none"}}}};
}

void pipeline(Scenario& s, int p, int m, PipelineScheduleKind kind, int v) {
  ParallelConfig& c = s.training.parallel;
  c.enabled = true;
  c.pp = p, c.dp = static_cast<int>(s.cluster.gpus.size()) / p, c.micro_batches = m;
  c.schedule = kind, c.virtual_stages = v;
  // A transformer's shape for the b·s·h boundary tensor: 1 x 1 x 8 bf16 = 16 bytes.
  s.workload.dims = {static_cast<int>(s.workload.layers.size()), 8, 1, 0};
}

double bubble_fraction(const json& r, int stage) {
  return r["parallel"]["stages"][static_cast<std::size_t>(stage)]["bubble_fraction"].get<double>();
}

TEST(ParallelPipeline, OneFOneBAndGPipeBubbleIsPMinusOneOverM) {
  for (PipelineScheduleKind kind : {PipelineScheduleKind::OneFOneB, PipelineScheduleKind::GPipe})
    for (int m : {4, 8}) {
      const int p = 4;
      json r = run(uniform_doc(p, 8, 3), [&](Scenario& s) { pipeline(s, p, m, kind, 1); });
      for (int k = 0; k < p; ++k)
        EXPECT_NEAR(bubble_fraction(r, k), static_cast<double>(p - 1) / m, 1e-9) << "m " << m << " stage " << k;
      // Every stage computes m x (tf + tb) = m x 2 layers x 3 ms, and the iteration adds the
      // bubble: (m + p - 1) x 6 ms.
      EXPECT_NEAR(r["iteration_time_s"].get<double>(), (m + p - 1) * 6e-3, 1e-12);
      // Each rank idles (p - 1) x 6 ms waiting for its neighbour stages: the bubble, not exposed
      // communication (which is free here).
      EXPECT_NEAR(r["bubble_s"].get<double>(), (p - 1) * 6e-3, 1e-12);
      EXPECT_NEAR(r["exposed_comm_s"].get<double>(), 0.0, 1e-12);
    }
}

TEST(ParallelPipeline, InterleavedBubbleIsPMinusOneOverMV) {
  const int p = 4, v = 2, m = 8;
  json r = run(uniform_doc(p, 8, 3), [&](Scenario& s) { pipeline(s, p, m, PipelineScheduleKind::Interleaved, v); });
  for (int k = 0; k < p; ++k)
    EXPECT_NEAR(bubble_fraction(r, k), static_cast<double>(p - 1) / (m * v), 1e-9) << "stage " << k;
}

TEST(ParallelPipeline, EachBoundarySendsEveryMicroBatchForwardAndBack) {
  const int p = 4, m = 4, iterations = 3;
  json r =
      run(uniform_doc(8, 8, iterations), [&](Scenario& s) { pipeline(s, p, m, PipelineScheduleKind::OneFOneB, 1); });
  const json& pp = r["parallel"]["traffic"]["pp"];
  const int d = 2;
  // (p - 1) boundaries x m micro-batches x 2 directions per pipeline (one per DP replica).
  const std::uint64_t sends = static_cast<std::uint64_t>((p - 1) * m * 2 * d * iterations);
  EXPECT_EQ(pp["collectives"].get<std::uint64_t>(), sends);
  EXPECT_EQ(pp["bytes"].get<std::uint64_t>(), sends * 16);  // b·s·h bf16
}

// With tp_comm_overlap a block's TP collectives run behind the phases after it, and its pipeline
// sends wait for its own collectives only, never for those of the blocks computed after it: a GPU
// that keeps computing always has a later collective open, and sends held for all of them starve
// the next stage (the overlap then ran slower than no overlap). 8 uniform layers over p = 4 stages
// and t = 2 (each phase 0.5 ms once split), m = 8 micro-batches, each layer's forward and dX
// all-reducing 32 MB over NVLink at 64 Gbit/s: each collective outlasts the phase after it.
TEST(ParallelTensor, OverlappedTpCollectivesHoldOnlyTheirOwnBlocksSends) {
  const int p = 4, t = 2, m = 8, layers = 8;
  json doc = uniform_doc(p * t, layers, 3);
  doc["cluster"]["node"]["gpu"]["nvlink_bw"] = "64Gbps";
  doc["cluster"]["fabric"] = {{"nccl", {{"model", "bound"}}}};
  for (json& l : doc["workload"]["layers"]) l["tp_fwd_bytes"] = l["tp_bwd_bytes"] = "32MB";
  auto layout = [&](bool overlap) {
    return [=](Scenario& s) {
      pipeline(s, p, m, PipelineScheduleKind::OneFOneB, 1);
      s.training.parallel.tp = t, s.training.parallel.dp = 1;
      s.training.parallel.tp_comm_overlap = overlap;
    };
  };
  const json overlapped = run(doc, layout(true)), waited = run(doc, layout(false));
  const json& tp = overlapped["parallel"]["traffic"]["tp"];
  // The premise: a collective lasts longer than a split phase (0.5 ms).
  EXPECT_GT(tp["time_s"].get<double>() / tp["collectives"].get<double>(), 0.5e-3);
  const double phase = 1e-3 / t, per_micro_batch = (layers / p) * 3 * phase;
  // No faster than the bubble's (m + p - 1) micro-batch slots with free communication, and faster
  // than waiting every collective out.
  EXPECT_GE(overlapped["iteration_time_s"].get<double>(), (m + p - 1) * per_micro_batch - 1e-12);
  EXPECT_LT(overlapped["iteration_time_s"].get<double>(), waited["iteration_time_s"].get<double>());
}

// GPT-2 small, 2 GPUs of one node, TP 2.
json gpt2_doc(int gpus, int iterations) {
  return {{"trainvp", 1},
          {"name", "gpt2-tp"},
          {"cluster",
           {{"nodes", 1},
            {"node", {{"gpus", gpus}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}}}}},
          {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 128}, {"dtype", "bf16"}}},
          {"training", {{"iterations", iterations}, {"warmup", 1}, {"sync", {{"strategy", "ddp"}}}}}};
}

TEST(ParallelTensor, FourActivationAllReducesPerTransformerLayerOfBshBytes) {
  const int m = 2, iterations = 2;
  json r = run(gpt2_doc(2, iterations), [&](Scenario& s) {
    ParallelConfig& c = s.training.parallel;
    c.enabled = true, c.tp = 2, c.micro_batches = m;
  });
  const std::uint64_t bsh = 2ull * 128 * 768 * 2;  // b·s·h bf16
  // Engine records are not in results (too many); the per-kind sums are.
  const json& tp = r["parallel"]["traffic"]["tp"];
  // Per micro-batch: 2 forward + 2 backward per transformer layer (12), the vocabulary-parallel
  // embedding's forward and the LM head's input gradient.
  const std::uint64_t count = static_cast<std::uint64_t>((4 * 12 + 2) * m * iterations);
  EXPECT_EQ(tp["collectives"].get<std::uint64_t>(), count);
  EXPECT_EQ(tp["bytes"].get<std::uint64_t>(), count * bsh);
}

TEST(ParallelData, OneByOneByDReproducesDataParallelismExactly) {
  json doc = gpt2_doc(8, 4);
  doc["workload"]["micro_batches"] = 1;
  json plain = run(doc, [](Scenario&) {});
  json hybrid = run(doc, [](Scenario& s) {
    ParallelConfig& c = s.training.parallel;
    c.enabled = true, c.dp = 8;
    c.overlap_grad_reduce = true;  // DDP's buckets overlap the backward (Megatron's default would not)
  });
  EXPECT_EQ(plain["iteration_time_s"], hybrid["iteration_time_s"]);
  EXPECT_EQ(plain["iterations"], hybrid["iterations"]);
  EXPECT_EQ(plain["ranks"], hybrid["ranks"]);
  EXPECT_EQ(plain["collectives"], hybrid["collectives"]);
  EXPECT_EQ(plain["links"], hybrid["links"]);
}

// Bytes each rank sends in a ring: all-reduce 2(d-1)/d n, reduce-scatter and all-gather (d-1)/d n.
double ring_wire_bytes(const json& r) {
  double total = 0;
  for (const json& c : r["collectives"]) {
    const double n = c["bytes"].get<double>(), d = c["ranks"].get<double>();
    const std::string op = c["op"];
    total += (op == "all_reduce" ? 2 : 1) * (d - 1) / d * n;
  }
  return total;
}

// GPT-2 small over 4 GPUs as 1 x 1 x 4 at ZeRO stage `zero`.
json data_parallel(int zero) {
  return run(gpt2_doc(4, 3), [zero](Scenario& s) {
    s.training.parallel.enabled = true, s.training.parallel.dp = 4, s.training.parallel.zero = zero;
  });
}

TEST(ParallelData, ZeroOneMovesTheBytesOfDdp) {
  const json ddp = data_parallel(0), zero = data_parallel(1);
  EXPECT_NEAR(ring_wire_bytes(zero), ring_wire_bytes(ddp), 1e-9 * ring_wire_bytes(ddp));
  bool gathered = false;
  for (const json& c : zero["collectives"]) gathered |= c["op"] == "all_gather";
  EXPECT_TRUE(gathered);
}

TEST(ParallelData, ZeroThreeMovesOneAndAHalfTimesTheBytesOfDdp) {
  // One micro-batch: each layer's parameters are gathered before its forward and its backward,
  // and its gradients reduce-scattered once: 3 x (d-1)/d n against all-reduce's 2 x (d-1)/d n.
  const json ddp = data_parallel(0), zero = data_parallel(3);
  EXPECT_NEAR(ring_wire_bytes(zero), 1.5 * ring_wire_bytes(ddp), 1e-9 * ring_wire_bytes(ddp));
}

// Every strategy that synchronizes whole layers runs within the DP groups too: 1 x 1 x d is plain
// data parallelism under it, to the bit. Only where communication time is counted may differ:
// hybrid runs count a collective in the iteration it ends in, and Local SGD's averaging after a
// step ends in the next iteration (plain runs count it in the step's).
TEST(ParallelData, LayerWiseAndPeriodicStrategiesInOneByOneByDReproduceDataParallelism) {
  for (const char* strategy : {"layerwise", "localsgd", "dreamddp"}) {
    json doc = gpt2_doc(4, 4);
    doc["workload"]["micro_batches"] = 1;
    doc["training"]["sync"] = {{"strategy", strategy}, {"period", 2}};
    if (std::string(strategy) == "layerwise") doc["training"]["sync"].erase("period");
    if (std::string(strategy) == "dreamddp") doc["training"]["sync"]["fill_in"] = false;
    json plain = run(doc, [](Scenario&) {});
    json hybrid = run(doc, [](Scenario& s) { s.training.parallel.enabled = true, s.training.parallel.dp = 4; });
    EXPECT_EQ(plain["iteration_time_s"], hybrid["iteration_time_s"]) << strategy;
    double plain_comm = 0, hybrid_comm = 0;
    for (std::size_t i = 0; i < plain["iterations"].size(); ++i) {
      json a = plain["iterations"][i], b = hybrid["iterations"][i];
      plain_comm += a["comm_s"].get<double>(), hybrid_comm += b["comm_s"].get<double>();
      a.erase("comm_s"), b.erase("comm_s");
      EXPECT_EQ(a, b) << strategy << " iteration " << i;
    }
    EXPECT_NEAR(plain_comm, hybrid_comm, 1e-12) << strategy;
    EXPECT_EQ(plain["collectives"], hybrid["collectives"]) << strategy;
    EXPECT_EQ(plain["sync"], hybrid["sync"]) << strategy;
  }
}

TEST(ParallelData, LayerWiseSynchronizesEachStagesLayersInItsDpGroup) {
  // 8 layers of 1,000 bf16 parameters over p = 2 stages and d = 2 replicas: each stage's group
  // all-reduces its 4 layers, 4 x 1,000 x 2 bytes, every iteration.
  const int iterations = 3;
  json doc = uniform_doc(4, 8, iterations);
  doc["training"]["sync"] = {{"strategy", "layerwise"}};
  json r = run(doc, [](Scenario& s) { pipeline(s, 2, 4, PipelineScheduleKind::OneFOneB, 1); });
  EXPECT_EQ(r["sync"]["bytes_per_iteration"].get<std::uint64_t>(), 4u * 1000 * 2);
  // The collectives list holds the DP groups' (TP and PP traffic is summed apart): 2 groups,
  // whose small layers layerwise may pack into fewer collectives, never into other bytes.
  std::uint64_t bytes = 0;
  for (const json& c : r["collectives"]) {
    EXPECT_EQ(c["op"], "all_reduce");
    EXPECT_EQ(c["ranks"].get<int>(), 2);
    bytes += c["bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(bytes, 2u * 4 * 1000 * 2 * iterations);
}

TEST(ParallelData, DreamDdpSynchronizesEveryLayerOfEachStageOncePerPeriod) {
  // DreamDDP's schedule (period H, no fill-in) synchronizes each layer exactly once per H
  // iterations; each stage is planned from its own profile over its DP group. 8 layers of 1,000
  // bf16 parameters, p = 2, d = 2, H = 2, 4 iterations: each of the 2 groups moves its 4 layers'
  // 8,000 bytes twice.
  json doc = uniform_doc(4, 8, 4);
  doc["training"]["sync"] = {{"strategy", "dreamddp"}, {"period", 2}, {"fill_in", false}};
  json r = run(doc, [](Scenario& s) { pipeline(s, 2, 4, PipelineScheduleKind::OneFOneB, 1); });
  std::uint64_t bytes = 0;
  for (const json& c : r["collectives"]) {
    EXPECT_EQ(c["ranks"].get<int>(), 2);
    bytes += c["bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(bytes, 2u * 4 * 1000 * 2 * 2);
  EXPECT_EQ(r["sync"]["schedule"]["period"].get<int>(), 2);
  EXPECT_EQ(r["sync"]["schedule"]["profile"]["layers"].size(), 4u);  // the first stage's layers
}

TEST(ParallelData, DreamDdpWithoutDataParallelismPlansNothing) {
  // p = 2, d = 1: no DP group to synchronize, so no profile, no schedule, and the run goes on.
  json doc = uniform_doc(2, 4, 3);
  doc["training"]["sync"] = {{"strategy", "dreamddp"}, {"period", 2}};
  json r = run(doc, [](Scenario& s) { pipeline(s, 2, 2, PipelineScheduleKind::OneFOneB, 1); });
  EXPECT_EQ(r["sync"]["strategy"], "none");
  EXPECT_FALSE(r["sync"].contains("schedule"));
  EXPECT_TRUE(r["collectives"].empty());
}

TEST(ParallelData, ZeroWithAPeriodicStrategyIsRefusedAtItsPointer) {
  // (layer-wise strategies reduce-scatter under ZeRO: tests/test_zero3_layerwise.cpp)
  json doc = gpt2_doc(4, 3);
  doc["training"]["sync"] = {{"strategy", "plsgd"}, {"period", 2}};
  try {
    run(doc, [](Scenario& s) {
      s.training.parallel.enabled = true, s.training.parallel.dp = 4, s.training.parallel.zero = 1;
    });
    ADD_FAILURE() << "zero 1 with plsgd ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/training/parallel/zero"), std::string::npos) << e.what();
  }
}

}  // namespace test_parallel
}  // namespace trainvp
