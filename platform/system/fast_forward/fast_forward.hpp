#pragma once
// Steady-state fast-forward (docs/performance.md#steady-state-fast-forward). SystemC cannot shift
// its event queue, so the skip happens at an iteration boundary: when the first rank ends an
// iteration B with none of its own collectives in flight, no fault change inside the last
// `repeats` periods and no packet loss active, and every rank's last periods and the traffic of
// the last two periods repeat (period.hpp), each rank starts iteration B + n + 1 at its own natural
// start of B + 1 plus n / L periods, with n the largest whole number of periods that leaves
// `margin` periods before the next fault change and before the end of the run. Nothing waits for
// anything it would not have waited for: ranks still finishing B (and their traffic) do so at
// their own time, and are delayed at their own boundary.
//
// Each model accounts the skipped iterations through a narrow hook: the GPUs copy their records
// (IterationBoundary), each link direction adds n / L x its counters over the last period (at the
// decision: counters between equal points of two periods), the strategy its per-iteration state
// (SyncStrategy::skip_iterations) and the engine its collective records (both once the last rank
// has ended B, when B's collectives are complete everywhere). Hybrid-parallel runs
// (FastForwardParts::by_iteration) pick the engine's records by the iteration their label names
// and let ParallelSync account each rank's intervals over its own last period, since pipeline
// stages end an iteration at different times.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/engine.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/iteration_boundary.hpp"
#include "platform/config/training.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"
#include "platform/system/fast_forward/period.hpp"

namespace trainvp {

struct FastForwardParts {
  FastForwardConfig cfg;
  int iterations = 0, warmup = 0;
  int cycle = 1;  // the strategy's own period (iterations)
  std::vector<Gpu*> gpus;
  SyncStrategy* strategy = nullptr;  // null: no synchronization
  CollectiveEngine* engine = nullptr;
  Fabric* fabric = nullptr;
  const FaultInjector* faults = nullptr;
  std::string off_reason;  // non-empty: never skip, and why (reported)
  // Null, or the most iterations a skip may take now (0: none; negative: no limit): the fail-slow
  // monitor and its mitigation, whose next action must happen on a simulated iteration.
  std::function<int()> skip_limit;
  std::function<void(int boundary, const IterationSkip&)> on_skip;  // told of each skip as it is decided
  // Hybrid parallelism: pipeline stages end an iteration at different times, so the engine's
  // records to repeat are picked by the iteration their label names, and the strategy accounts
  // each rank's collective intervals itself (ParallelSync::skip_iterations).
  bool by_iteration = false;
  // Collectives results only sum by kind (the label's first word): a skip adds their copies to
  // per-kind sums (FastForward::summed) instead of the engine's records, which would otherwise hold
  // tens of thousands of them per skipped iteration (null: none). Hybrid runs sum their TP and PP
  // collectives; with /output/collectives false every kind is summed.
  std::function<bool(const std::string&)> summed;
  CommOf comm;  // the period test's communication time (null: the strategy's)
};

class FastForward : public IterationBoundary {
 public:
  FastForward(FastForwardParts parts, RunContext& ctx);
  IterationSkip at_boundary(int rank, int iteration) override;
  // results.json `fast_forward`.
  nlohmann::ordered_json report() const;
  int skipped() const { return skipped_; }
  struct Sum {
    std::uint64_t collectives = 0, bytes = 0;
    double time_s = 0;  // sum of their durations
  };
  // The skipped iterations' collectives of each summed kind (FastForwardParts::summed).
  const std::map<std::string, Sum>& summed() const { return summed_; }
  // The simulated collectives of summed kinds folded out of the engine's records (fold), by kind,
  // summed in id order: the report starts each kind's sum from these.
  const std::map<std::string, Sum>& folded() const { return folded_; }
  // After the run: what waited for a collective to complete is accounted.
  void finish() { flush_pending(); }

 private:
  struct Snapshot {
    std::int64_t at_ps = 0;
    bool idle = false;  // the arriving rank had no collective in flight
    std::vector<LinkDirTotals> links;
    std::size_t records = 0;
  };
  struct Done {
    std::int64_t at_ps;
    int after;  // the boundary iteration
    IterationSkip skip;
  };
  Snapshot snapshot(int rank) const;
  IterationSkip decide(int rank, int boundary);
  bool traffic_repeats(int boundary, int length, std::int64_t period_ps) const;
  void apply(int boundary, const IterationSkip& skip);     // at the first rank's boundary
  void complete(int boundary, const IterationSkip& skip);  // at the last rank's
  // Hybrid parallelism: repeats the records listed once they are all complete (a ZeRO parameter
  // all-gather launched as its stage ended the boundary may still be in flight when the last rank ends it).
  void flush_pending();
  void fold(int boundary);
  // Repeats the complete records `which` `times` times, summing the kinds p_.summed names.
  void repeat(const std::vector<std::size_t>& which, int times, int period, std::int64_t period_ps);

  FastForwardParts p_;
  RunContext& ctx_;
  std::map<int, Snapshot> snaps_;  // by boundary, at its first arrival
  std::map<int, IterationSkip> decided_;
  std::map<int, std::size_t> arrived_;  // ranks that have ended a decided boundary
  int seen_ = -1;                       // highest boundary any rank has reached
  int resume_ = 0;                      // first iteration after the last skip
  int skipped_ = 0;
  std::vector<Done> done_;
  struct Pending {
    std::vector<std::size_t> which;
    int times, period;
    std::int64_t period_ps;
  };
  std::vector<Pending> pending_;
  std::map<std::string, Sum> summed_, folded_;
  int track_ = -1;
};

// "ddp it12 bucket3" with the iteration number moved on by `by`: collective labels name their
// iteration as a token "it<N>".
std::string shift_iteration_label(const std::string& label, int by);
// The N of a label's "it<N>" token (-1: none).
int label_iteration(const std::string& label);

}  // namespace trainvp
