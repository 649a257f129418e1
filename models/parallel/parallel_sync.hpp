#pragma once
// Hybrid parallelism's traffic and gates (Megatron-LM; DOMAIN.md section 7). Every GPU runs its
// pipeline stage's schedule; this module is the gate each GPU consults and wires the traffic
// between them, each kind its own object:
//   - tensor parallelism (TpTraffic): the TP group's all-reduce that a layer's forward ends with
//     and the one of its backward's input gradient (reduce-scatter + all-gather with sequence
//     parallelism). The next phase waits for them, except a layer's dW, which Megatron overlaps
//     with its dX all-reduce (with tp_comm_overlap, only the pipeline sends and the optimizer step
//     wait);
//   - pipeline parallelism (PipelineTraffic): a chunk's output activations (forward) and input
//     gradients (backward) sent point-to-point to the GPU with the same (tp, dp) that holds the
//     neighbouring chunk, once the block and its TP collectives are done; the receiving block
//     waits for them;
//   - data parallelism: one strategy per DP group (a stage's layers over its d replicas), built by
//     the platform's registry; under ZeRO its buckets reduce-scatter and the updated parameters
//     are all-gathered after the optimizer step, before the next iteration's first forward
//     (ZeroGathers), or under ZeRO-3 each layer's before its forward and backward (Zero3Gathers).
// Time a GPU spends blocked is attributed to the gate that held it (TP, PP, DP), exactly.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/parallel/comm_by_iteration.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/parallel_traffic_sink.hpp"
#include "models/parallel/pipeline_traffic.hpp"
#include "models/parallel/program_cache.hpp"
#include "models/parallel/running_union.hpp"
#include "models/parallel/tp_traffic.hpp"
#include "models/parallel/zero3_gathers.hpp"
#include "models/parallel/zero_gathers.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/per_iteration.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

// One pipeline stage as its GPUs run it.
struct ParallelStage {
  Workload workload;          // stage_workload: the stage's chunks, TP-sharded
  std::vector<int> chunk_of;  // per layer of `workload`: its virtual chunk
  PhaseSchedule schedule;     // the stage's blocks (pipeline_blocks)
};

class ParallelSync : public sc_core::sc_module, public SyncStrategy, private ParallelTrafficSink {
 public:
  using MakeDp = std::function<std::unique_ptr<SyncStrategy>(const Workload& stage, std::vector<Gpu*> group)>;
  struct Parts {
    const ParallelLayout* layout;
    const std::vector<ParallelStage>* stages;  // per pipeline stage
    // By global rank, built with their stage's workload and schedule; null for a rank of another
    // job (several jobs on one cluster: only the layout's ranks are this module's).
    std::vector<Gpu*> gpus;
    CollectiveEngine* engine;
    std::vector<int> nodes_of;
    CollectiveAlgo tp_algorithm = CollectiveAlgo::Ring;
    std::uint64_t boundary_bytes = 0;  // PP: bytes one TP rank sends per micro-batch and boundary
    MakeDp make_dp;                    // null: no DP synchronization (d = 1 or strategy none)
    std::string trace_group_prefix;    // before "nodeN" in its trace tracks' group ("JOB: " for a job)
  };
  ParallelSync(sc_core::sc_module_name name, Parts parts, RunContext& ctx);
  static const ModelInfo& info();

  const char* name() const override;
  bool may_start(int rank, int iteration, const Phase& phase) const override;
  const sc_core::sc_event& changed(int rank) const override;
  std::string waiting_for(int rank, int iteration, const Phase& phase) const override;
  std::int64_t comm_ps(int rank, int iteration) const override;
  std::int64_t stage_wait_ps(int rank, int iteration) const override;
  void report(nlohmann::ordered_json& results) const override;
  void skip_iterations(int first, int count, int period, std::int64_t period_ps) override;

  const ParallelRankIteration& rank_iteration(int rank, int iteration) const;
  // Steady-state fast-forward's period test: a GPU's communication time in an iteration as the
  // gates count it (TP, PP, ZeRO and its DP strategy's), known as soon as the iteration ends.
  std::int64_t gate_comm_ps(int rank, int iteration) const;
  // The DP strategy of a GPU's group (null without one).
  const SyncStrategy* dp_strategy(int rank) const;
  // Steady-state fast-forward is on and repeats periods of at most `iterations`: a rank's
  // communication intervals are folded (fold_comm) only where no later skip can repeat them.
  void set_max_skip_period(int iterations) { max_skip_period_ = iterations; }

 private:
  // Per GPU: the wait its gate answers last, for the attribution (mutable: may_start observes it).
  struct RankState {
    WaitKind reason = WaitKind::Count;
    bool dp_gate = false;  // the DP strategy's gate refused (its event wakes the GPU)
    bool z3_gate = false;  // a ZeRO-3 layer all-gather refused
    bool z3_wait = false;  // the open DP wait is for a ZeRO-3 all-gather
    std::int64_t since = 0;
    int reason_iteration = 0;
    std::int64_t phase_start = 0;  // when the gate last let a phase start
    std::int64_t block_start = 0;  // when the running block's first phase started (trace)
    // Running unions of the waits' intervals per kind (bounded: thousands of iterations per run).
    RunningUnion comm_union[static_cast<int>(WaitKind::Count)] = {RunningUnion(256), RunningUnion(256),
                                                                  RunningUnion(256)};
  };
  // Per stage: what begins and ends each chunk's forward and backward blocks.
  struct StageShape {
    std::vector<int> fwd_first, fwd_last;  // per chunk: layer
    std::vector<Phase> bwd_first, bwd_last;
  };

  // ParallelTrafficSink: the traffic objects' completions, attributed here (record: the const
  // one below, which the const gate also writes through).
  ParallelRankIteration& record(int rank, int iteration) final;
  void comm_done(int rank, int iteration, WaitKind kind, std::int64_t from, std::int64_t to) final;
  void wake(int rank) final;
  ParallelTrafficSink& sink() { return *this; }  // for make_unique, outside this class's access

  void on_phase_end(int rank, int iteration, const Phase& phase);
  void zero3_start() { zero3_->start(); }
  bool pp_ready(int rank, int iteration, const Phase& phase) const;
  WaitKind refusal(int rank, int iteration, const Phase& phase) const;
  void note_wait(int rank, int iteration, WaitKind why) const;
  void fill_comm_all() const;
  void fold_comm(int rank);
  nlohmann::ordered_json zero3_report(int stage, int warm, int n) const;
  int global_chunk(int stage, int chunk) const { return chunk * p_ + stage; }
  std::int64_t now() const { return now_ps(); }
  const ParallelRankIteration& record(int rank, int iteration) const;

  Parts parts_;
  RunContext& ctx_;
  int t_, p_, d_, v_, m_;
  int prefetch_ = 2;  // ZeRO-3's prefetch depth
  std::vector<StageShape> shape_;
  mutable std::vector<RankState> state_;
  std::vector<std::unique_ptr<sc_core::sc_event>> changed_;
  std::vector<std::unique_ptr<SyncStrategy>> dp_;  // per DP group
  std::vector<int> dp_of_;                         // per rank: its DP group's index in dp_, -1: none
  ProgramCache programs_;
  PipelineTraffic pipeline_;
  TpTraffic tp_;
  std::unique_ptr<ZeroGathers> zero_;    // ZeRO-1/2 with d > 1
  std::unique_ptr<Zero3Gathers> zero3_;  // ZeRO-3 with d > 1 and a DP strategy
  // [rank][iteration]; skipped ones not copied. Mutable: the const gate (may_start) notes waits.
  mutable std::vector<PerIteration<ParallelRankIteration>> records_;
  mutable std::vector<std::vector<std::int64_t>> comm_all_;  // [rank][iteration], filled on first use
  // Per rank: its engine intervals folded into per-iteration sums once nothing can reach them
  // (a 256-GPU campaign kept 2 GB of them), tried when it holds fold_at_ of them: kFoldAt, or
  // twice what a try left (a try that folds little is not repeated at every iteration).
  std::vector<CommFolder> folders_;
  std::vector<std::size_t> fold_at_;
  static constexpr std::size_t kFoldAt = std::size_t{1} << 15;
  int max_skip_period_ = 0;        // 0: no skips
  std::vector<PeriodSkip> skips_;  // fast-forward: each rank's intervals of the period before repeat
  std::vector<int> tracks_;        // per rank: its pipeline track in the trace (-1: none)
};

const char* wait_kind_name(WaitKind k);  // "tp", "pp", "dp"

// Whether a collective is a TP or pipeline one ("tp it..", "pp it.."): results sum these by kind
// (the first word of the label) instead of listing them, as they are too many.
bool summed_parallel_collective(const std::string& label);

}  // namespace trainvp
