#pragma once
// The synchronization strategy every layer-wise and partial scheme runs on: units of layers
// (units.hpp), a plan per iteration saying which units are synchronized, and one of two triggers:
//
// - GradientReady (layerwise, blockwise, adaptive, asc_wfbp, plsgd, dreamddp): a unit is ready on
//   a rank when the last micro-batch's dW of each of its layers has ended there; the optimizer
//   step of the iteration waits until every unit of the iteration's plan is done on the rank.
// - AfterStep (localsgd): the plan's units are ready when the iteration's optimizer step ends;
//   the first forward of the next iteration waits for them.
//
// Elastic (deadline_ps >= 0, GradientReady only): the optimizer step waits for a unit only until
// deadline_ps after the unit became ready on the rank. A unit not done by then is weak-sync for
// that iteration on that rank: the rank steps with its own gradient for the unit's layers, the
// unit's collectives go on (its traffic is not cancelled), and when they complete the average is
// merged into the rank's first optimizer step that starts after (late_syncs()).
//
// A ready unit queues on its stream; a stream synchronizes one unit at a time per rank, in the
// order they became ready. A unit's collectives (compression may make two or three) run one after
// another on its stream. Every collective is real chunked traffic over the fabric.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/collectives/group_ranks.hpp"
#include "models/collectives/strategies/units.hpp"
#include "models/collectives/stream_queues.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/per_iteration.hpp"

namespace trainvp {

enum class SyncTrigger { GradientReady, AfterStep };

// Switches between a fine and a coarse plan from the GPUs' observed compute utilization.
struct AdaptivePolicy {
  bool enabled = false;
  int fine_plan = 0, coarse_plan = 1;  // layer-wise and block-wise
  double high = 0.9, low = 0.7;        // > high: fine; < low: coarse; in between: keep
};

// Layer-granular retry (unit_sync_retry.cpp, docs/faults.md#transport-failure): a unit's
// collective that the engine gives up on is relaunched for that unit alone after `backoff_ps`, up
// to `attempts` tries; then each rank still waiting applies its own gradient for the unit (a
// divergence the consistency report names). The engine's give-up is set by the simulation.
struct RetryPolicy {
  bool enabled = false;
  std::int64_t backoff_ps = 0;
  int attempts = 1;
  int retry_cnt = 0;  // for the report: the engine gives up after retry_cnt x timeout_ps
  std::int64_t timeout_ps = 0;
};

struct UnitSyncConfig {
  std::string name;  // the strategy's name in results ("layerwise", ...)
  std::vector<SyncUnit> units;
  std::vector<SyncPlan> plans;
  std::vector<int> cycle{0};  // plan of iteration r: cycle[r mod size] (unless adaptive)
  AdaptivePolicy adaptive;
  SyncTrigger trigger = SyncTrigger::GradientReady;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;  // of all-reduces (all-gathers use ring)
  int streams = 1;
  bool parameters = false;            // averages parameters (trace: "average") instead of gradients
  std::vector<PhaseWork> layer_work;  // per layer: the GPU work of compressing its synchronization
  CompressionConfig compression;      // what layer_work compresses with, for the report
  bool elastic = false;               // reports weak-sync statistics (sync.elastic)
  std::int64_t deadline_ps = -1;      // elastic: the step's wait per unit from its readiness; -1: none
  RetryPolicy retry;
};

// Elastic: a unit that missed its deadline on a rank, and the iteration whose optimizer step
// merged its average there (-1: it arrived after the run's last step).
struct LateSync {
  int rank = 0;  // position in the communicator
  int iteration = 0;
  int unit = 0;
  int merged = -1;
};

class UnitSync : public sc_core::sc_module, public SyncStrategy {
 public:
  UnitSync(sc_core::sc_module_name name, UnitSyncConfig cfg, const Workload& w, std::vector<Gpu*> gpus,
           CollectiveEngine& engine, std::vector<int> nodes_of, int iterations, RunContext& ctx);

  const char* name() const override { return cfg_.name.c_str(); }
  bool may_start(int rank, int iteration, const Phase& phase) const override;
  const sc_core::sc_event& changed(int rank) const override { return *changed_[at(rank)]; }
  std::string waiting_for(int rank, int iteration, const Phase& phase) const override;
  std::int64_t comm_ps(int rank, int iteration) const override;
  // Units, plans, each iteration's plan and bytes, compression (unit_sync_report.cpp).
  void report(nlohmann::ordered_json& results) const override;
  std::uint64_t peak_in_flight_bytes(int rank) const override { return peak_in_flight_[at(rank)]; }
  void skip_iterations(int first, int count, int period, std::int64_t period_ps) override;

  const UnitSyncConfig& config() const { return cfg_; }
  // The plan an iteration used (-1 if no rank reached it), and for adaptive the utilization that
  // chose it (-1 when it was not a decision from utilization).
  int plan_of(int iteration) const { return plan_of_.at(iteration); }
  double utilization_of(int iteration) const { return util_.at(iteration); }
  // Bytes of the collectives of a plan (all steps of all its units).
  std::uint64_t plan_bytes(int plan) const;
  // Elastic: every weak-sync (rank, iteration, unit), in the order the ranks' steps passed them.
  const std::vector<LateSync>& late_syncs() const { return late_; }
  // The label of a unit for traces and messages: "h3.mlp", "h3.mlp..h2.attn (4 layers)".
  std::string unit_label(int unit) const;

 private:
  int plan_for(int iteration) const;  // decides (and remembers) the plan of an iteration
  void on_gradient(const GradientReady& g);
  void on_phase_end(int rank, int iteration, const Phase& phase);
  PhaseWork extra_work(int iteration, const Phase& phase) const;
  void unit_ready(int rank, int iteration, int unit);
  void try_join(int rank, int stream);
  void step_done(int rank, int iteration, int unit, int step);
  int collective(int iteration, int unit, int step);
  bool elastic_may_step(int rank, int iteration) const;  // the deadlines of unit_sync_elastic.cpp
  void elastic_done(int rank, int iteration, int unit);
  void elastic_report(nlohmann::ordered_json& results) const;
  // Layer-granular retry and the consistency monitor (unit_sync_retry.cpp).
  void join_step(int rank, int iteration, int unit, int step);
  void unit_done(int rank, int iteration, int unit, bool averaged);
  void step_failed(int iteration, int unit, int step);
  void exhaust(int iteration, int unit, int step, bool abandon);
  void on_relaunch();
  void retry_report(nlohmann::ordered_json& results) const;

  UnitSyncConfig cfg_;
  const Workload& workload_;
  std::vector<Gpu*> gpus_;
  GroupRanks group_;  // the communicator; per-rank state below is indexed by position in it
  std::size_t at(int rank) const { return group_.at(rank); }
  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  int iterations_;
  RunContext& ctx_;
  std::vector<std::vector<std::shared_ptr<const CompiledProgram>>> programs_;  // [unit][step]
  std::vector<std::vector<int>> unit_of_layer_;  // [plan][layer] -> unit, -1 when not synchronized
  mutable PerIteration<int> plan_of_{-1};        // per iteration, -1 before it is chosen
  mutable PerIteration<double> util_{-1.0};
  std::vector<std::vector<int>> layers_left_;                  // [rank][unit]
  std::vector<PerIteration<int>> done_;                        // [rank][iteration] units done
  std::vector<PerIteration<std::vector<TimeInterval>>> busy_;  // [rank][iteration]
  StreamQueues streams_;  // per rank and stream: units ready but not yet joined, in order; when each joined
  std::map<std::tuple<int, int, int>, int> ids_;  // (iteration, unit, step) -> collective id
  std::vector<std::unique_ptr<sc_core::sc_event>> changed_;
  std::vector<std::uint64_t> in_flight_, peak_in_flight_;  // [rank]: bytes of units ready, not done
  std::vector<int> tracks_;                                // per rank: its communication track
  int plan_track_ = -1;
  // Elastic (empty otherwise), per rank: when each unit last became ready, the last iteration
  // whose average of it arrived, the last iteration whose step passed the gate, the open
  // weak-sync entries of late_ by unit, and the arrived ones waiting for the next step.
  std::vector<std::vector<std::int64_t>> ready_at_;
  std::vector<std::vector<int>> arrived_;
  mutable std::vector<int> stepped_;
  mutable std::vector<std::vector<std::vector<std::size_t>>> open_;  // [rank][unit] -> indices into late_
  mutable std::vector<std::vector<std::size_t>> to_merge_;           // [rank] -> indices into late_
  mutable std::vector<LateSync> late_;
  // Retry (empty unless cfg_.retry.enabled). Per (iteration, unit, step): its tries so far, whether
  // a relaunch is pending or the tries are exhausted, and which ranks joined it and got its result.
  struct Tries {
    int tries = 1;
    bool pending = false, exhausted = false;
    std::vector<char> joined, done;
  };
  std::map<std::tuple<int, int, int>, Tries> tries_;
  struct RetryStats {
    int attempts = 0, failures = 0, exhausted = 0;
    std::uint64_t retried_bytes = 0;
    std::int64_t lost_ps = 0;
  };
  std::vector<RetryStats> retry_stats_;                                // per unit
  std::multimap<std::int64_t, std::tuple<int, int, int>> relaunches_;  // due time -> step
  sc_core::sc_event relaunch_ev_;
  // The consistency monitor: per (iteration, unit), the version each rank applied (the iteration
  // of the average; -1: its own gradient; -2: not applied yet).
  std::map<std::pair<int, int>, std::vector<int>> versions_;
};

// The names of `layers` (indices into w.layers), as results.json lists them.
nlohmann::ordered_json layer_names(const Workload& w, const std::vector<int>& layers);

}  // namespace trainvp
