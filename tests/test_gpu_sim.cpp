// The GPU model in simulation: iteration times against hand-computed roofline sums, speed
// factors, gradient-ready order and times, gates, stalls, and AT DMA timing into GPU memory.
#include <gtest/gtest.h>

#include <systemc>

#include "models/gpu/gpu.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/report/results.hpp"
#include "platform/system/simulation.hpp"
#include "tests/sim_child.hpp"

namespace trainvp {
namespace test_gpu_sim {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_child;

// A GPU with round numbers: 100 TFLOPS x 0.5 = 5e13 FLOP/s, 8 Tbps = 1e12 B/s x 0.8 = 8e11 B/s.
const json kGpu = {{"model", "test-gpu"},      {"peak_fp32", "10TFLOPS"},  {"peak_tf32", "50TFLOPS"},
                   {"peak_bf16", "100TFLOPS"}, {"peak_fp16", "100TFLOPS"}, {"mem_bw", "8Tbps"},
                   {"mem_capacity", "16GiB"},  {"efficiency", 0.5},        {"mem_efficiency", 0.8},
                   {"kernel_launch", "5us"},   {"mem_latency", "1us"}};
constexpr double kRate = 5e13, kMem = 8e11, kLaunch = 5e-6;

// Layer a: compute-bound. Layer b: memory-bound forward, 2 kernels. Layer c: measured times.
json scenario(int gpus = 1, const std::string& optimizer = "none") {
  return {{"trainvp", 1},
          {"name", "gpu-test"},
          {"cluster", {{"nodes", 1}, {"node", {{"gpus", gpus}, {"gpu", kGpu}}}}},
          {"workload",
           {{"layers",
             {{{"name", "a"},
               {"params", 1000},
               {"fwd_flops", 1e11},
               {"fwd_bytes", "1GB"},
               {"bwd_input_flops", 0},
               {"bwd_weight_flops", 2e11},
               {"kernels", 1}},
              {{"name", "b"},
               {"params", 500},
               {"fwd_flops", 1e10},
               {"fwd_bytes", "1GB"},
               {"bwd_flops", 4e10},
               {"kernels", 2}},
              {{"name", "c"}, {"fwd_time", "3ms"}, {"bwd_time", "5ms"}}}}}},
          {"training", {{"iterations", 3}, {"warmup", 1}, {"optimizer", optimizer}}},
          {"output", {{"trace", false}}}};
}

// Hand computation of one iteration of scenario(): forward a, b, c; backward c (dX, dW), b (dX, dW),
// a (dX: no FLOPs but one kernel launch; dW).
double expected_iteration_s() {
  double fwd_a = std::max(1e11 / kRate, 1e9 / kMem) + kLaunch;
  double fwd_b = std::max(1e10 / kRate, 1e9 / kMem) + 2 * kLaunch;
  double fwd_c = 3e-3;
  double bwd_c = 5e-3;
  double bwd_b = 2 * (2e10 / kRate + 2 * kLaunch);
  double bwd_a = kLaunch + 2e11 / kRate + kLaunch;
  return fwd_a + fwd_b + fwd_c + bwd_c + bwd_b + bwd_a;
}

std::string run_json(const json& doc) {
  Scenario s = load_scenario(doc, "t");
  Simulation sim(s);
  sim.run();
  return collect_results(sim).json.dump();
}

TEST(GpuSim, IterationTimeEqualsHandComputedRooflineSum) {
  auto r = in_child([] { return run_json(scenario()); });
  ASSERT_TRUE(r.ok) << r.value;
  auto j = json::parse(r.value);
  EXPECT_NEAR(j["iteration_time_s"].get<double>(), expected_iteration_s(), 1e-12);
  EXPECT_NEAR(j["compute_time_s"].get<double>(), expected_iteration_s(), 1e-12);
  EXPECT_EQ(j["exposed_comm_s"].get<double>(), 0.0);
  EXPECT_TRUE(j["overlap_ratio"].is_null());
  EXPECT_EQ(j["iterations"].size(), 3u);
  EXPECT_NEAR(j["sim"]["simulated_s"].get<double>(), 3 * expected_iteration_s(), 1e-12);
}

TEST(GpuSim, AdamStepIsMemoryBoundOnStateTraffic) {
  json doc = scenario(1, "adam");
  doc["workload"]["layers"][0]["params"] = 1000000000;
  auto r = in_child([&] { return run_json(doc); });
  ASSERT_TRUE(r.ok) << r.value;
  double params = 1e9 + 500;
  // bf16 weights and gradients: fp32 w, m, v read and written (24 B) + gradient (2 B) + bf16 copy (2 B).
  double step = std::max(params * 28 / kMem, params * 12 / (10e12 * 0.5)) + 3 * kLaunch;
  EXPECT_NEAR(json::parse(r.value)["iteration_time_s"].get<double>(), expected_iteration_s() + step, 1e-9);
}

TEST(GpuSim, SlowGpuRunsAtItsSpeedFactorAndSetsTheClusterPace) {
  json doc = scenario(2);
  doc["cluster"]["gpu_overrides"] = {{{"target", "node0.gpu1"}, {"speed", 0.5}}};
  auto r = in_child([&] { return run_json(doc); });
  ASSERT_TRUE(r.ok) << r.value;
  auto j = json::parse(r.value);
  EXPECT_NEAR(j["ranks"][0]["iteration_time_s"].get<double>(), expected_iteration_s(), 1e-9);
  EXPECT_NEAR(j["ranks"][1]["iteration_time_s"].get<double>(), 2 * expected_iteration_s(), 1e-9);
  EXPECT_NEAR(j["iteration_time_s"].get<double>(), 2 * expected_iteration_s(), 1e-9);
  EXPECT_DOUBLE_EQ(j["ranks"][1]["speed"].get<double>(), 0.5);
}

TEST(GpuSim, MicroBatchesRepeatForwardAndBackwardBeforeOneStep) {
  json doc = scenario();
  doc["workload"]["micro_batches"] = 3;
  auto r = in_child([&] { return run_json(doc); });
  ASSERT_TRUE(r.ok) << r.value;
  auto j = json::parse(r.value);
  EXPECT_NEAR(j["iteration_time_s"].get<double>(), 3 * expected_iteration_s(), 1e-9);
  EXPECT_EQ(j["workload"]["global_batch"].get<int>(), 3 * 8);
}

TEST(GpuSim, GradientReadyFiresPerLayerInReverseOrderWhenDwEnds) {
  auto r = in_child([] {
    Scenario s = load_scenario(scenario(), "t");
    RunContext ctx(1, false);
    Gpu gpu("gpu", s.cluster.gpus[0].params, 0, s.workload, 1, ctx);
    std::string log;
    gpu.gradient_ready.connect(
        [&](const GradientReady& g) { log += std::to_string(g.layer) + "@" + std::to_string(now_ps()) + " "; });
    sc_core::sc_start();
    return log;
  });
  ASSERT_TRUE(r.ok) << r.value;
  auto ps = [](double s) { return std::to_string(static_cast<long long>(std::llround(s * 1e12))); };
  double fwd = std::max(1e11 / kRate, 1e9 / kMem) + kLaunch + std::max(1e10 / kRate, 1e9 / kMem) + 2 * kLaunch + 3e-3;
  double c_ready = fwd + 5e-3;
  double b_ready = c_ready + 2 * (2e10 / kRate + 2 * kLaunch);
  double a_ready = b_ready + kLaunch + 2e11 / kRate + kLaunch;
  EXPECT_EQ(r.value, "2@" + ps(c_ready) + " 1@" + ps(b_ready) + " 0@" + ps(a_ready) + " ");
}

// Holds the optimizer until `open_at`, or forever when open_at is negative.
class OptimizerGate : public sc_core::sc_module, public PhaseGate {
 public:
  OptimizerGate(sc_core::sc_module_name n, double open_at_s) : sc_module(n), open_at_(open_at_s) {
    SC_HAS_PROCESS(OptimizerGate);
    SC_THREAD(opener);
  }
  bool may_start(int, int, const Phase& ph) const override { return ph.kind != PhaseKind::Optimizer || open_; }
  const sc_core::sc_event& changed(int) const override { return ev_; }
  std::string waiting_for(int, int, const Phase&) const override { return "the test's gradient all-reduce"; }

 private:
  void opener() {
    if (open_at_ < 0) return;
    wait(sc_core::sc_time(open_at_, sc_core::SC_SEC));
    open_ = true;
    ev_.notify(sc_core::SC_ZERO_TIME);
  }
  double open_at_;
  bool open_ = false;
  sc_core::sc_event ev_;
};

TEST(GpuSim, TimeBlockedAtTheGateIsCountedAsExposedCommunication) {
  auto r = in_child([] {
    Scenario s = load_scenario(scenario(1, "sgd"), "t");
    RunContext ctx(1, false);
    Gpu gpu("gpu", s.cluster.gpus[0].params, 0, s.workload, 1, ctx);
    OptimizerGate gate("gate", 0.050);
    gpu.set_gate(&gate);
    sc_core::sc_start();
    const RankIteration& it = gpu.iterations().at(0);
    return std::to_string(it.blocked_ps) + " " + std::to_string(it.end_ps);
  });
  ASSERT_TRUE(r.ok) << r.value;
  long long blocked = 0, end = 0;
  sscanf(r.value.c_str(), "%lld %lld", &blocked, &end);
  EXPECT_EQ(blocked, std::llround((0.050 - expected_iteration_s()) * 1e12));
  EXPECT_GT(end, 50000000000LL);
}

TEST(GpuSim, GateThatNeverOpensLeavesTheGpuBlockedWithAReason) {
  auto r = in_child([] {
    Scenario s = load_scenario(scenario(1, "sgd"), "t");
    RunContext ctx(1, false);
    Gpu gpu("gpu", s.cluster.gpus[0].params, 0, s.workload, 1, ctx);
    OptimizerGate gate("gate", -1);
    gpu.set_gate(&gate);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
    return std::string(gpu.finished() ? "finished" : "") + "|" + gpu.state();
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_EQ(r.value, "|iteration 0, blocked before optimizer: waiting for the test's gradient all-reduce");
}

TEST(GpuSim, TimeLimitEndsTheRunWithAnErrorNamingEachGpusState) {
  json doc = scenario(2);
  doc["training"]["time_limit"] = "10ms";
  auto r = in_child([&] { return run_json(doc); });
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.value.find("time limit"), std::string::npos) << r.value;
  EXPECT_NE(r.value.find("node0.gpu0: iteration 0, in "), std::string::npos) << r.value;
  EXPECT_NE(r.value.find("node0.gpu1: iteration 0, in "), std::string::npos) << r.value;
}

// Issues DMA writes from one GPU into another's memory at t = 0 and records completion times.
class DmaDriver : public sc_core::sc_module {
 public:
  DmaDriver(sc_core::sc_module_name n, Gpu& g, int count, std::uint32_t bytes)
      : sc_module(n), gpu_(g), count_(count), bytes_(bytes) {
    SC_HAS_PROCESS(DmaDriver);
    SC_THREAD(go);
  }
  std::vector<std::int64_t> done;

 private:
  void go() {
    for (int i = 0; i < count_; ++i)
      gpu_.dma_transfer(0, tlm::TLM_WRITE_COMMAND, static_cast<std::uint64_t>(i) * bytes_, bytes_,
                        [this] { done.push_back(now_ps()); });
  }
  Gpu& gpu_;
  int count_;
  std::uint32_t bytes_;
};

TEST(GpuSim, DmaIntoPeerMemoryPipelinesAtMemoryBandwidthPlusLatency) {
  auto r = in_child([] {
    Scenario s = load_scenario(scenario(2), "t");
    RunContext ctx(1, false);
    Workload idle = s.workload;
    Gpu a("a", s.cluster.gpus[0].params, 0, idle, 0, ctx), b("b", s.cluster.gpus[1].params, 1, idle, 0, ctx);
    a.dma.bind(b.mem);
    DmaDriver d("driver", a, 4, 1 << 20);
    sc_core::sc_start();
    std::string out;
    for (auto t : d.done) out += std::to_string(t) + " ";
    return out + "| " + std::to_string(b.hbm_bytes_served());
  });
  ASSERT_TRUE(r.ok) << r.value;
  // 1 MiB at 8e11 B/s = 1,310,720 ps each, back to back; each response 1 us after its data.
  std::string expected;
  for (int k = 1; k <= 4; ++k) expected += std::to_string(k * 1310720LL + 1000000LL) + " ";
  EXPECT_EQ(r.value, expected + "| " + std::to_string(4 << 20));
}

}  // namespace test_gpu_sim
}  // namespace trainvp
