#pragma once
// GREYHOUND's fail-slow monitor and detector running inside the platform (docs/health.md). It
// sees only what a collective-call interposer sees: each rank's call starts and returns (with the
// communicator and size), and rank 0's iteration ends. From those it
//   1. finds the iteration period: the first lag at which the autocorrelation of rank 0's gaps
//      between calls reaches `period_threshold` (calls per iteration);
//   2. cuts the run into windows of one period of rank 0's calls and, per window, sums each
//      rank's lateness in its collectives and each communicator's transfer time;
//   3. runs the Detector (change point, verification, group comparison) on the windows;
//   4. validates suspects with probes run as real work: GEMMs (FP8, FP16, FP32) on suspect GPUs,
//      link probes over the edges of suspect communicators; then, for late ranks whose GEMMs
//      passed, link probes over the rings they belong to (a slow NIC makes its ranks late);
//   5. records the diagnosis (cause, suspect, confidence, reaction split into detection and
//      validation) and tells its listeners (mitigation).
// It never reads the injected faults; platform/system/health scores it against them.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/health/detector.hpp"
#include "models/health/diagnosis.hpp"
#include "models/health/diagnosis_source.hpp"
#include "models/health/link_prober.hpp"
#include "models/gpu/gpu.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

class FailSlowMonitor : public sc_core::sc_module, public DiagnosisSource {
 public:
  struct Parts {
    DetectorParams params;
    std::vector<Gpu*> gpus;  // by rank
    // The ranks it watches, ascending (one job's of several; empty: every rank). Their first is
    // its "rank 0"; calls of communicators outside them are another job's and are not read.
    std::vector<int> ranks;
    CollectiveEngine* engine = nullptr;
    std::vector<int> nodes_of;
  };
  // Attaches itself to the engine and to its rank 0, and charges the tracking overhead to every GPU
  // it watches (construct it before anything reads the GPUs' base speed, such as the fault injector).
  FailSlowMonitor(sc_core::sc_module_name name, Parts parts, RunContext& ctx);
  static const ModelInfo& info();

  // Re-validation (a mitigation checking whether a GPU it works around is still slow): one FP16
  // GEMM probe on `rank`; `done` gets measured / datasheet time.
  void gemm_check(int rank, std::function<void(double ratio)> done) override;

  // A mitigation paused rank 0 for `ps` (checkpoint, restart, re-plan): the time is its cost, not
  // the job's pace, so the open window does not count it.
  void note_pause(std::int64_t ps) override { paused_ps_ += ps; }
  void note_relayout() override { detector_.relayout(); }

  // Steady-state fast-forward: the monitor lets a skip happen only while nothing of its own is
  // under way (period known, a window open, no probe running, no change waiting for its
  // verification windows), and accounts a skip of `iterations` that delays every rank by
  // `delay_ps` after iteration `boundary` as that many steady windows: copies of the last window,
  // read by the detector and the listeners as if they had been seen. The delay is left out of the
  // window open when rank 0 ends `boundary` (now, if it already has).
  bool may_skip() const;
  void skipped(int boundary, int iterations, std::int64_t delay_ps);
  // The last window read (its time without pauses), and windows per rank-0 iteration so far.
  double last_window_s() const override { return last_ ? last_->seconds() : 0.0; }
  double windows_per_iteration() const override;

  int period_calls() const { return period_; }
  int lead_rank() const { return p_.ranks.front(); }  // the rank whose calls cut the windows
  const DetectorParams& params() const override { return p_.params; }
  const std::vector<ChangeEvent>& changes() const override { return changes_; }
  const std::vector<Diagnosis>& diagnoses() const override { return diagnoses_; }
  const std::vector<GemmProbeResult>& gemm_probes() const override { return gemm_results_; }
  const std::vector<LinkProbeResult>& link_probes() const override { return link_results_; }
  int windows() const { return windows_; }
  // results.json `health.detector`.
  nlohmann::ordered_json report() const;

 private:
  // What it hears of the engine's trace sources call_started and call_ended.
  void call_started(const CollectiveCall& c);
  void call_ended(const CollectiveCall& c);
  struct Instance {  // one collective in flight, as the interposers of its ranks saw it
    int group = 0, size = 0, joined = 0, ended = 0;
    std::int64_t min_start = 0, max_start = 0, max_end = 0;
    std::vector<std::pair<int, std::int64_t>> starts;
  };
  struct Validation;
  void rank0_phase_end();
  void try_period();
  void close_window(std::int64_t now);
  void read(const MonitorWindow& w, std::int64_t at);
  void handle(const ChangeFinding& f, std::int64_t now);
  void validate(const ChangeFinding& f, int change);
  void queue_gemms(int rank, const std::shared_ptr<Validation>& v);
  std::vector<Diagnosis> no_peer(const Validation& v, const std::function<Diagnosis()>& base) const;
  bool fabric_wide(const ChangeFinding& f) const;
  std::vector<int> crossing(const ChangeFinding& f) const;
  bool paces(const Validation& v, const LinkProbeResult& l) const;
  Diagnosis fabric_diagnosis(const ChangeFinding& f, Diagnosis d) const;
  void probe_groups(std::vector<int> groups, const std::vector<int>& avoid, const std::shared_ptr<Validation>& v);
  // The edges a ring collective over communicator `m` runs on: NCCL's topology-ordered channels
  // when the engine builds them, else the rank-order ring (GREYHOUND probes the edges in use).
  std::vector<std::pair<int, int>> ring_edges(const std::vector<int>& m) const;
  void step(const std::shared_ptr<Validation>& v);
  void finish(const std::shared_ptr<Validation>& v);
  PhaseWork gemm_work(DType dt) const;
  int group_of(const CollectiveCall& c);
  void defer(std::function<void()> f);
  void run_deferred();
  std::int64_t now() const { return now_ps(); }

  Parts p_;
  RunContext& ctx_;
  Detector detector_;
  LinkProber prober_;
  // Period estimate: rank 0's call starts after its first iteration.
  std::size_t phases_ = 0;
  int rank0_iterations_ = 0;
  std::vector<std::int64_t> rank0_starts_;
  bool collecting_ = false;
  int period_ = 0;  // calls per window (0: not found yet)
  std::string period_note_;
  std::int64_t rank0_calls_ = 0;    // since collecting began
  std::int64_t window_start_ = -1;  // -1: no window open
  std::int64_t paused_ps_ = 0;      // in the open window
  int probing_ = 0;                 // validations and re-checks running
  bool disturbed_ = false;          // a probe ran in the open window
  int windows_ = 0, disturbed_windows_ = 0;
  int windows_skipped_ = 0;
  std::int64_t skip_delay_ps_ = 0;     // to leave the open window at rank 0's next iteration end
  int first_window_iteration_ = -1;    // rank 0's iterations when the first window opened
  std::optional<MonitorWindow> last_;  // the last window read (fast-forward copies it)
  // The open window's sums.
  std::vector<double> lateness_, transfer_, bytes_;  // lateness_ by position in p_.ranks
  std::vector<int> local_;                           // per cluster rank: its position in p_.ranks (-1: not watched)
  std::unordered_map<std::uint64_t, int> groups_;    // communicator key -> index
  std::vector<std::vector<int>> group_ranks_;
  std::vector<int> group_size_;
  std::unordered_map<int, Instance> live_;
  std::vector<ChangeEvent> changes_;
  std::vector<Diagnosis> diagnoses_;
  std::vector<GemmProbeResult> gemm_results_;
  std::vector<LinkProbeResult> link_results_;
  int track_ = -1;  // the trace's health track, once a diagnosis is marked
  std::deque<std::function<void()>> deferred_;
  sc_core::sc_event deferred_event_;
};

}  // namespace trainvp
