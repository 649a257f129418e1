// The mitigation ladder alone, driven by a fake monitor (a DiagnosisSource whose windows the test
// closes by hand) over two idle GPUs, one per data-parallel replica. Ski rental: the ladder moves
// to its next step exactly when the loss since entering the current one, summed over windows as
// (window time - healthy time), reaches the next step's cost, a window no slower than healthy
// adding nothing. With healthy windows of 10 s, S2 costing 2 s and S4 3 s + 1 s, every crossing
// below is worked out by hand (each time is a whole number of ps and each sum exact in binary).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/gpu/gpu.hpp"
#include "models/health/diagnosis_source.hpp"
#include "models/health/monitor.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/system/health/mitigation.hpp"

namespace trainvp {
namespace test_mitigation {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

std::int64_t ps(double seconds) { return static_cast<std::int64_t>(seconds * 1e12); }

// What the monitor would have found and seen; the test decides when.
class FakeMonitor : public DiagnosisSource {
 public:
  const DetectorParams& params() const override { return params_; }
  const std::vector<ChangeEvent>& changes() const override { return changes_; }
  const std::vector<Diagnosis>& diagnoses() const override { return diagnoses_; }
  const std::vector<GemmProbeResult>& gemm_probes() const override { return gemm_; }
  const std::vector<LinkProbeResult>& link_probes() const override { return links_; }
  double last_window_s() const override { return last_s_; }
  double windows_per_iteration() const override { return 1.0; }
  void gemm_check(int, std::function<void(double)>) override { ADD_FAILURE() << "no re-check expected"; }
  void note_pause(std::int64_t) override {}

  // Simulated time runs on by `seconds` and a window of that length closes.
  void window(double seconds) {
    sc_core::sc_start(sc_core::sc_time(static_cast<double>(ps(seconds)), sc_core::SC_PS));
    MonitorWindow w;
    w.end_ps = now_ps(), w.start_ps = w.end_ps - ps(seconds);
    last_s_ = w.seconds();
    window_closed(w);
  }
  // A verified slowdown from `healthy_s` and its diagnosis: rank `gpu`'s host late by `slowdown`.
  void diagnose(double healthy_s, int gpu, double slowdown) {
    ChangeEvent c;
    c.change_ps = c.detected_ps = now_ps(), c.before_s = healthy_s, c.after_s = healthy_s * slowdown;
    changes_.push_back(c);
    Diagnosis d;
    d.change = static_cast<int>(changes_.size()) - 1;
    d.change_ps = d.detected_ps = d.diagnosed_ps = now_ps();
    d.cause = FailCause::Cpu, d.gpus = {gpu}, d.slowdown = slowdown, d.confidence = 1;
    diagnoses_.push_back(d);
    diagnosed(diagnoses_.back());
  }

 private:
  DetectorParams params_;
  std::vector<ChangeEvent> changes_;
  std::vector<Diagnosis> diagnoses_;
  std::vector<GemmProbeResult> gemm_;
  std::vector<LinkProbeResult> links_;
  double last_s_ = 0;
};

Workload one_layer() {
  Workload w;
  w.model = "custom";
  Layer l;
  l.name = "l", l.params = 1000, l.fwd_flops = 1e9, l.bwd_weight_flops = 2e9;
  w.layers = {l};
  return w;
}

GpuParams idle_gpu() {
  GpuParams g;
  g.model = "test";
  return g;
}

// The ladder s1 -> s2 -> s4 over two replicas of 3 micro-batches each, one GPU each; the GPUs run
// no iteration (the test only reads the actions the ladder decides).
struct Ladder {
  RunContext ctx{1, false};
  GpuParams g = idle_gpu();
  Workload w = one_layer();
  Gpu gpu0{"gpu0", g, 0, w, 0, ctx}, gpu1{"gpu1", g, 1, w, 0, ctx};
  FakeMonitor monitor;
  std::unique_ptr<Mitigation> m;
  Ladder() {
    Mitigation::Parts p;
    p.cfg.policy = MitigationPolicy::Ladder;
    p.cfg.steps = {MitigationStep::S1, MitigationStep::S2, MitigationStep::S4};
    p.cfg.rebalance_pause_ps = ps(2);  // S2 costs 2 s
    p.cfg.checkpoint_save_ps = ps(3);  // S4 costs 3 s + 1 s
    p.cfg.restart_ps = ps(1);
    p.monitor = &monitor;
    p.gpus = {&gpu0, &gpu1};
    p.replica_of = {0, 1};
    p.replicas = 2;
    p.units = 3;
    m = std::make_unique<Mitigation>(std::move(p), ctx);
  }
  nlohmann::ordered_json actions() const { return m->report()["actions"]; }
};

TEST(Mitigation, LadderEscalatesExactlyWhenTheLossReachesTheNextStepsCost) {
  in_own_process([] {
    Ladder l;
    // Slow windows before any diagnosis cost nothing: there is no incident yet.
    l.monitor.window(10.5), l.monitor.window(10.5);
    EXPECT_EQ(l.actions().size(), 0u);
    // t = 21 s: rank 1's host is diagnosed 2x slow against 10 s windows: the ladder enters S1.
    l.monitor.diagnose(10.0, 1, 2.0);
    ASSERT_EQ(l.actions().size(), 1u);
    EXPECT_EQ(l.actions()[0]["step"], "s1");
    EXPECT_DOUBLE_EQ(l.actions()[0]["at_s"].get<double>(), 21.0);
    // Windows of 10.5 s lose 0.5 s each: 1.5 s after three is below S2's 2 s ...
    for (int k = 1; k <= 3; ++k) {
      l.monitor.window(10.5);
      EXPECT_EQ(l.actions().size(), 1u) << "after window " << k;
    }
    // ... and the fourth reaches it exactly (2.0 >= 2): S2 at 21 + 4 x 10.5 = 63 s. Replica 1 at
    // twice the time per micro-batch: of 6, the split 4 / 2 gives both 4 units of time, the least.
    l.monitor.window(10.5);
    ASSERT_EQ(l.actions().size(), 2u);
    const auto s2 = l.actions()[1];
    EXPECT_EQ(s2["step"], "s2");
    EXPECT_DOUBLE_EQ(s2["at_s"].get<double>(), 63.0);
    EXPECT_DOUBLE_EQ(s2["loss_s"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(s2["pause_s"].get<double>(), 2.0);
    EXPECT_EQ(s2["units_per_replica"].get<std::vector<int>>(), (std::vector<int>{4, 2}));
    // The loss restarts from 0 in S2; S4 costs 4 s. Windows of 11.5, 10 (healthy: adds nothing)
    // and 8 s (faster: adds nothing, does not pay back) leave it at 1.5, then 11.5 s: 3.0 < 4.
    for (double t : {11.5, 10.0, 8.0, 11.5}) {
      l.monitor.window(t);
      EXPECT_EQ(l.actions().size(), 2u) << "after a window of " << t << " s";
    }
    // The next 11.5 s window brings it to 4.5 >= 4: S4 at 63 + 11.5 + 10 + 8 + 11.5 + 11.5 = 115.5 s,
    // pausing 3 + 1 s and replacing rank 1's node (node 0: the test's GPUs have no fabric).
    l.monitor.window(11.5);
    ASSERT_EQ(l.actions().size(), 3u);
    const auto s4 = l.actions()[2];
    EXPECT_EQ(s4["step"], "s4");
    EXPECT_DOUBLE_EQ(s4["at_s"].get<double>(), 115.5);
    EXPECT_DOUBLE_EQ(s4["loss_s"].get<double>(), 4.5);
    EXPECT_DOUBLE_EQ(s4["pause_s"].get<double>(), 4.0);
    EXPECT_EQ(s4["nodes_replaced"].get<std::vector<int>>(), std::vector<int>{0});
    // The restart closed the incident: slow windows after it buy nothing more.
    for (int k = 0; k < 10; ++k) l.monitor.window(20.0);
    EXPECT_EQ(l.actions().size(), 3u);
    EXPECT_DOUBLE_EQ(l.m->report()["paused_s"].get<double>(), 2.0 + 4.0);
  });
}

TEST(Mitigation, NoStepBelowTheThresholdHoweverLong) {
  in_own_process([] {
    Ladder l;
    l.monitor.diagnose(10.0, 1, 2.0);
    // 1.5 s of loss, just under S2's 2 s, then healthy and faster windows for good: S1 stays.
    for (int k = 0; k < 3; ++k) l.monitor.window(10.5);
    for (int k = 0; k < 100; ++k) l.monitor.window(k % 2 ? 10.0 : 9.0);
    ASSERT_EQ(l.actions().size(), 1u);
    EXPECT_EQ(l.actions()[0]["step"], "s1");
    // One more slow window of 10.5 s crosses it at last: 1.5 + 0.5 = 2.0.
    l.monitor.window(10.5);
    ASSERT_EQ(l.actions().size(), 2u);
    EXPECT_EQ(l.actions()[1]["step"], "s2");
    EXPECT_DOUBLE_EQ(l.actions()[1]["loss_s"].get<double>(), 2.0);
  });
}

// What the ladder listens to are DiagnosisSource's trace sources, named as the monitor's ModelInfo
// names them (the monitor and the fake share them).
TEST(Mitigation, ListensToTheMonitorsNamedTraceSources) {
  FakeMonitor m;
  const std::vector<TraceSourceBase*>& sources = m.trace_sources().all();
  ASSERT_EQ(sources.size(), FailSlowMonitor::info().trace_sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    EXPECT_EQ(sources[i]->name(), FailSlowMonitor::info().trace_sources[i].name);
}

}  // namespace test_mitigation
}  // namespace trainvp
