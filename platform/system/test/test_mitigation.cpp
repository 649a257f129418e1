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
  void gemm_check(int, std::function<void(double)> done) override {
    if (!rechecks) ADD_FAILURE() << "no re-check expected";
    probes_.push_back(std::move(done));
  }
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
    Diagnosis d = change(healthy_s, healthy_s * slowdown);
    d.cause = FailCause::Cpu, d.gpus = {gpu}, d.slowdown = slowdown;
    publish(d);
  }
  // The same for rank `gpu`'s GEMMs `slowdown` times their datasheet time (compute).
  void diagnose_gpu(double healthy_s, int gpu, double slowdown) {
    GemmProbeResult g;
    g.rank = gpu, g.dtype = "fp16", g.expected_s = 1, g.measured_s = slowdown, g.slow = true;
    gemm_.push_back(g);
    Diagnosis d = change(healthy_s, healthy_s * slowdown);
    d.cause = FailCause::Compute, d.gpus = {gpu}, d.slowdown = slowdown;
    publish(d);
  }
  // A verified slowdown from `before_s` to `after_s` blamed on the edge between ranks 0 and 1
  // (not `localized`: on their communicator, no edge named).
  void diagnose_link(double before_s, double after_s, bool localized = true) {
    Diagnosis d = change(before_s, after_s);
    d.cause = FailCause::Communication;
    if (localized) d.links = {{0, 1}};
    else d.groups = {{0, 1}};
    publish(d);
  }
  // The same with no healthy peer: every rank equally slow (group_wide).
  void diagnose_group_wide(double before_s, double after_s) {
    Diagnosis d = change(before_s, after_s);
    d.cause = FailCause::GroupWide, d.gpus = {0, 1}, d.confidence = 0.5;
    publish(d);
  }
  // A verified drop of the iteration time that began at `at_s` (detected now).
  void drop(double at_s, double before_s, double after_s) {
    ChangeEvent c;
    c.change_ps = ps(at_s), c.detected_ps = now_ps(), c.slowdown = false, c.before_s = before_s, c.after_s = after_s;
    changes_.push_back(c);
    changed(changes_.back());
  }
  // The re-check probes asked for so far end, each measuring `ratio` x its datasheet time.
  void answer(double ratio) {
    std::vector<std::function<void(double)>> p;
    p.swap(probes_);
    for (auto& done : p) done(ratio);
  }
  bool rechecks = false;  // re-checks expected (answered by answer())

 private:
  DetectorParams params_;
  std::vector<ChangeEvent> changes_;
  std::vector<Diagnosis> diagnoses_;
  std::vector<GemmProbeResult> gemm_;
  std::vector<LinkProbeResult> links_;
  double last_s_ = 0;
  std::vector<std::function<void(double)>> probes_;

  Diagnosis change(double before_s, double after_s) {
    ChangeEvent c;
    c.change_ps = c.detected_ps = now_ps(), c.before_s = before_s, c.after_s = after_s;
    changes_.push_back(c);
    Diagnosis d;
    d.change = static_cast<int>(changes_.size()) - 1;
    d.change_ps = d.detected_ps = d.diagnosed_ps = now_ps();
    d.slowdown = after_s / before_s, d.confidence = 1;
    return d;
  }
  void publish(const Diagnosis& d) {
    diagnoses_.push_back(d);
    diagnosed(diagnoses_.back());
  }
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
  // `s4_save_s` + 1 s: S4's cost; `recheck`: S2 re-probes its GPUs every that many windows.
  explicit Ladder(double s4_save_s = 3, int recheck = 20) {
    Mitigation::Parts p;
    p.cfg.policy = MitigationPolicy::Ladder;
    p.cfg.steps = {MitigationStep::S1, MitigationStep::S2, MitigationStep::S4};
    p.cfg.rebalance_pause_ps = ps(2);          // S2 costs 2 s
    p.cfg.checkpoint_save_ps = ps(s4_save_s);  // S4 costs 3 s + 1 s unless told
    p.cfg.restart_ps = ps(1);
    p.cfg.recheck_iterations = recheck;
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

// A split takes effect at the boundary after the next iteration, then pauses: the drop it causes
// begins one slow iteration and the pause after it was decided. A drop within the pause and 3 of
// the iterations the job ran when it split is the split working; a later one is the fault's end.
// (The grace once counted healthy iterations: with a slow iteration 4x healthy the split's own
// drop read as the fault's end, and the split was undone.)
TEST(Mitigation, ASplitsOwnDropAfterLongSlowIterationsIsNotTheFaultsEnd) {
  in_own_process([] {
    Ladder l(300);  // S4 at 301 s: out of reach here
    const double healthy = 10, slow = 40, pause = 2;
    l.monitor.diagnose(healthy, 1, slow / healthy);  // t = 0: S1
    l.monitor.window(slow);                          // t = 40: loss 30 >= 2: S2
    ASSERT_EQ(l.actions().size(), 2u);
    const double decided = 40;
    EXPECT_DOUBLE_EQ(l.actions()[1]["at_s"].get<double>(), decided);
    // Replica 1 at 4x: of 6 micro-batches 5 / 1 gives max(5, 4) units of time, the least.
    EXPECT_EQ(l.actions()[1]["units_per_replica"].get<std::vector<int>>(), (std::vector<int>{5, 1}));
    const double effect = decided + slow + pause;         // 82 s: after the next (slow) iteration and the pause
    const double grace_end = decided + pause + 3 * slow;  // 162 s
    ASSERT_GT(effect, decided + pause + 3 * healthy);     // beyond the grace in healthy iterations (72 s)
    l.monitor.window(slow);                               // t = 80
    l.monitor.window(12);                                 // t = 92: the split's level
    l.monitor.drop(effect, slow, 12);
    EXPECT_EQ(l.actions().size(), 2u) << "the split's own drop undid it: " << l.actions().dump();
    for (int k = 0; k < 6; ++k) l.monitor.window(12);  // t = 164
    // A drop after the grace is the fault's end: the even split returns.
    l.monitor.drop(grace_end + 1, 12, healthy);
    ASSERT_EQ(l.actions().size(), 3u);
    EXPECT_EQ(l.actions()[2]["step"], "s2");
    EXPECT_EQ(l.actions()[2]["note"], "the slowdown ended: even split again");
    EXPECT_EQ(l.actions()[2]["units_per_replica"].get<std::vector<int>>(), (std::vector<int>{3, 3}));
  });
}

// A slow link diagnosed while a slow GPU's incident is open is not that incident's cause: when
// the GPU re-probes healthy with the job still slow, the link opens its own incident, paid the
// loss since its diagnosis against the job's healthy time, and ski rental reaches S4 when that
// loss reaches S4's cost: (S4 cost) / (slow - healthy) windows after the link's diagnosis. (It
// once closed with the GPU's incident, and the link was never answered.)
TEST(Mitigation, ALinkDiagnosedDuringAGpuIncidentOpensItsOwnAndReachesS4) {
  in_own_process([] {
    Ladder l(39, 2);  // S4 costs 39 + 1 = 40 s; re-checks every 2 windows
    l.monitor.rechecks = true;
    const double healthy = 10, link = 15, s4 = 40;
    l.monitor.diagnose_gpu(healthy, 1, 2.0);  // t = 0: S1
    l.monitor.window(20);                     // t = 20: loss 10 >= 2: S2, split 4 / 2
    ASSERT_EQ(l.actions().size(), 2u);
    EXPECT_EQ(l.actions()[1]["units_per_replica"].get<std::vector<int>>(), (std::vector<int>{4, 2}));
    const double link_at = 20;
    l.monitor.diagnose_link(13, link);  // carried: no step of the GPU's incident answers it
    EXPECT_EQ(l.actions().size(), 2u);
    l.monitor.window(link), l.monitor.window(link);  // t = 50: the re-check probes the GPU ...
    l.monitor.answer(1.0);                           // ... healthy; the link holds the job at 15 s
    ASSERT_EQ(l.actions().size(), 4u) << l.actions().dump();
    EXPECT_EQ(l.actions()[2]["note"], "re-probed: the GPUs it worked around are healthy");
    EXPECT_EQ(l.actions()[2]["units_per_replica"].get<std::vector<int>>(), (std::vector<int>{3, 3}));
    const auto opened = l.actions()[3];
    EXPECT_EQ(opened["step"], "s1");
    EXPECT_EQ(opened["diagnosis"], 1);
    EXPECT_DOUBLE_EQ(opened["at_s"].get<double>(), 50.0);
    EXPECT_DOUBLE_EQ(opened["loss_s"].get<double>(), 2 * (link - healthy));
    // S2 has nothing to move for a link (its loss goes on toward S4); S4 when the loss since the
    // link's diagnosis reaches 40 s: 40 / (15 - 10) = 8 windows, at 20 + 8 x 15 = 140 s.
    const int windows = static_cast<int>(s4 / (link - healthy));
    const double s4_at = link_at + windows * link;
    while (l.actions().size() < 6 && now_ps() < ps(s4_at + 100)) l.monitor.window(link);
    ASSERT_EQ(l.actions().size(), 6u) << l.actions().dump();
    EXPECT_EQ(l.actions()[4]["step"], "s2");
    EXPECT_EQ(l.actions()[4]["note"], "nothing to move: no replica is slower (communication)");
    const auto restart = l.actions()[5];
    EXPECT_EQ(restart["step"], "s4");
    EXPECT_DOUBLE_EQ(restart["at_s"].get<double>(), s4_at);
    EXPECT_DOUBLE_EQ(restart["loss_s"].get<double>(), s4);
    EXPECT_EQ(restart["nodes_replaced"].get<std::vector<int>>(), std::vector<int>{0});
  });
}

// An incident that opens while another event holds the job slow counts its loss against the
// job's healthy time, the lowest level a change started from, not against the slow level its own
// change started from: S4 after (S4 cost) / (slow - healthy) windows. (Against the slow level it
// took twice as many here, and at the campaign's rates outlasted the event.)
TEST(Mitigation, AnIncidentOpenedWhileTheJobIsSlowCountsItsLossAgainstTheHealthyTime) {
  in_own_process([] {
    Ladder l(39);  // S4 costs 40 s
    const double healthy = 10, before = 15, slow = 20, s4 = 40;
    l.monitor.diagnose(healthy, 1, 2.0);               // t = 0: S1
    l.monitor.window(slow);                            // t = 20: S2
    for (int k = 0; k < 8; ++k) l.monitor.window(10);  // t = 100
    l.monitor.drop(90, 12, healthy);                   // after the grace (20 + 2 + 3 x 20 = 82 s): the fault ended
    ASSERT_EQ(l.actions().size(), 3u);
    EXPECT_EQ(l.actions()[2]["note"], "the slowdown ended: even split again");
    // A slow link, diagnosed from a change whose level before was already 15 s (another event
    // held the job there): its incident's loss grows by 20 - 10 a window, not 20 - 15.
    const double opened_at = 100;
    l.monitor.diagnose_link(before, slow);
    ASSERT_EQ(l.actions().size(), 4u);
    EXPECT_EQ(l.actions()[3]["step"], "s1");
    const int windows = static_cast<int>(s4 / (slow - healthy));  // 4
    for (int k = 0; k < windows; ++k) l.monitor.window(slow);
    ASSERT_EQ(l.actions().size(), 6u) << l.actions().dump();
    EXPECT_EQ(l.actions()[4]["step"], "s2");  // nothing to move: its loss counts toward S4
    EXPECT_EQ(l.actions()[5]["step"], "s4");
    EXPECT_DOUBLE_EQ(l.actions()[5]["at_s"].get<double>(), opened_at + windows * slow);
    EXPECT_DOUBLE_EQ(l.actions()[5]["loss_s"].get<double>(), s4);
  });
}

// A group-wide diagnosis names every rank because it cannot name one: a restart replaces none of
// its nodes (a spare would be replaced by its like). Here the incident's own diagnosis names no
// edge either, so S4 has no node to replace; it once replaced every node the group-wide one named.
TEST(Mitigation, ARestartReplacesNoNodeForAGroupWideDiagnosisInsideItsIncident) {
  in_own_process([] {
    Ladder l;                                // S2 2 s, S4 4 s
    l.monitor.diagnose_link(10, 20, false);  // t = 0: S1 on a communicator, no edge localized
    l.monitor.diagnose_group_wide(10, 20);   // inside the incident: recorded, nothing opened
    ASSERT_EQ(l.actions().size(), 2u);
    EXPECT_EQ(l.actions()[1]["step"], "s1");
    // Windows of 20 s lose 10 s each: S2 (nothing to move) on the first, S4 on the second (10 + 10 >= 4).
    l.monitor.window(20), l.monitor.window(20);
    ASSERT_EQ(l.actions().size(), 4u) << l.actions().dump();
    EXPECT_EQ(l.actions()[2]["step"], "s2");
    const auto s4 = l.actions()[3];
    EXPECT_EQ(s4["step"], "s4");
    EXPECT_EQ(s4["nodes_replaced"].get<std::vector<int>>(), std::vector<int>{});
    EXPECT_EQ(s4["note"], "no node to replace: the suspect was not localized");
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
