#pragma once
// Hybrid parallelism's traffic and gates (Megatron-LM; DOMAIN.md section 7). Every GPU runs its
// pipeline stage's schedule; this module is the gate each GPU consults and the source of the
// traffic between them:
//   - tensor parallelism: the TP group's all-reduce that a layer's forward ends with and the one of
//     its backward's input gradient (reduce-scatter + all-gather with sequence parallelism). The
//     next phase waits for them, except a layer's dW, which Megatron overlaps with its dX
//     all-reduce (with tp_comm_overlap, only the pipeline sends and the optimizer step wait);
//   - pipeline parallelism: a chunk's output activations (forward) and input gradients (backward)
//     sent point-to-point to the GPU with the same (tp, dp) that holds the neighbouring chunk, once
//     the block and its TP collectives are done; the receiving block waits for them;
//   - data parallelism: one strategy per DP group (a stage's layers over its d replicas), built by
//     the platform's registry; under ZeRO its buckets reduce-scatter and the updated parameters
//     are all-gathered after the optimizer step, before the next iteration's first forward.
// Time a GPU spends blocked is attributed to the gate that held it (TP, PP, DP), exactly.
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/parallel/comm_by_iteration.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/running_union.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

// One pipeline stage as its GPUs run it.
struct ParallelStage {
  Workload workload;          // stage_workload: the stage's chunks, TP-sharded
  std::vector<int> chunk_of;  // per layer of `workload`: its virtual chunk
  PhaseSchedule schedule;     // the stage's blocks (pipeline_blocks)
};

// Why a GPU waits; also the order results list them in.
enum class WaitKind { Tp, Pp, Dp, Count };

// Per GPU and iteration: time blocked at each gate, and time with collectives of each kind in
// flight (picoseconds).
struct ParallelRankIteration {
  std::int64_t blocked[static_cast<int>(WaitKind::Count)] = {0, 0, 0};
  std::int64_t comm[static_cast<int>(WaitKind::Count)] = {0, 0, 0};  // TP, PP: union; DP: see comm_of
  std::int64_t model_compute = 0;  // forward and backward phases (the optimizer step excluded)
  // ZeRO-3's layer parameter all-gathers joined for this iteration: how many, their bytes (each
  // the gathered layer's whole size n), the union of their [join, done] intervals, and the time
  // a phase waited for one (part of blocked[Dp]).
  int z3_gathers = 0;
  std::uint64_t z3_gather_bytes = 0;
  std::int64_t z3_gather_comm = 0, z3_gather_blocked = 0;
};

class ParallelSync : public sc_core::sc_module, public SyncStrategy {
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

 private:
  struct RankState {
    int tp_pending = 0;       // TP collectives this GPU joined that have not completed on it
    int sends_in_flight = 0;  // its pipeline sends not yet done on it (overlap_p2p off: it waits)
    std::int64_t tp_joined = 0;
    std::vector<ScheduleBlock> sends;  // blocks whose output waits for their TP collectives
    std::vector<int> send_iteration;
    std::vector<std::uint64_t> send_after;  // per queued send: the TP collectives before it (seq < this)
    // The TP collectives this GPU joined, numbered as joined (a reduce-scatter and its all-gather
    // share one number): those still open, and each one's number by (iteration, micro-batch,
    // layer, backward). A block's sends wait for the collectives joined before them only, so with
    // tp_comm_overlap later blocks' collectives do not hold them.
    std::uint64_t tp_seq = 0;
    std::set<std::uint64_t> tp_open;
    std::map<std::tuple<int, int, int, bool>, std::uint64_t> tp_seq_of;
    std::unordered_set<std::uint64_t> arrived;  // PP inputs: (iteration, direction, chunk, micro-batch)
    int gathered = -1;                          // ZeRO: last iteration whose parameter all-gather completed here
    // ZeRO-3: the index in the iteration's schedule of the phase to run next, and the layer
    // parameter all-gathers (zero3_key) joined and completed on this GPU.
    std::uint64_t phase_index = 0;
    std::unordered_set<std::uint64_t> z3_joined, z3_done;
    // Blocked-time attribution (mutable: may_start observes the wait it answers).
    WaitKind reason = WaitKind::Count;
    bool dp_gate = false;  // the DP strategy's gate refused (its event wakes the GPU)
    bool z3_gate = false;  // a ZeRO-3 layer all-gather refused
    bool z3_wait = false;  // the open DP wait is for a ZeRO-3 all-gather
    RunningUnion z3_union = RunningUnion(256);
    std::int64_t since = 0;
    int reason_iteration = 0;
    std::int64_t phase_start = 0;  // when the gate last let a phase start
    std::int64_t block_start = 0;  // when the running block's first phase started (trace)
    // Running unions of the waits' intervals per kind (bounded: thousands of iterations per run).
    RunningUnion comm_union[static_cast<int>(WaitKind::Count)] = {RunningUnion(256), RunningUnion(256),
                                                                  RunningUnion(256)};
  };
  struct TpKey {
    int group, iteration, micro_batch, layer, tag;
    bool operator==(const TpKey& o) const {
      return group == o.group && iteration == o.iteration && micro_batch == o.micro_batch && layer == o.layer &&
             tag == o.tag;
    }
  };
  struct TpKeyHash {
    std::size_t operator()(const TpKey& k) const;
  };
  // Per stage: what begins and ends each chunk's forward and backward blocks.
  struct StageShape {
    std::vector<int> fwd_first, fwd_last;  // per chunk: layer
    std::vector<Phase> bwd_first, bwd_last;
  };

  void on_phase_end(int rank, int iteration, const Phase& phase);
  void tp_join(int rank, int iteration, const Phase& phase, int part);
  void tp_done(int rank, int iteration, const Phase& phase, int part);
  void flush_sends(int rank);  // sends whose TP collectives are all done leave
  void send(int rank, int iteration, const ScheduleBlock& block);
  void gather(int rank, int iteration);
  // ZeRO-3: the layer all-gather phase `index` of `iteration` needs (0: none), joining it, and the
  // prefetch that joins the next zero3_prefetch phases' at every phase end (and at time 0).
  std::uint64_t zero3_need(int rank, int iteration, std::uint64_t index) const;
  void zero3_join(int rank, int iteration, std::uint64_t index);
  void zero3_start();
  bool pp_ready(int rank, int iteration, const Phase& phase, std::uint64_t* key) const;
  WaitKind refusal(int rank, int iteration, const Phase& phase) const;
  void note_wait(int rank, int iteration, WaitKind why) const;
  void add_comm(int rank, int iteration, WaitKind kind, std::int64_t from, std::int64_t to);
  void fill_comm_all() const;
  std::uint64_t gather_bytes(int stage) const;
  nlohmann::ordered_json zero3_report(int stage, int warm, int n) const;
  std::shared_ptr<const CompiledProgram> program(CollectiveOp op, const std::vector<int>& comm, std::uint64_t bytes);
  int global_chunk(int stage, int chunk) const { return chunk * p_ + stage; }
  std::int64_t now() const { return now_ps(); }
  ParallelRankIteration& record(int rank, int iteration) const;

  Parts parts_;
  RunContext& ctx_;
  int t_, p_, d_, v_, m_;
  int prefetch_ = 2;  // ZeRO-3's prefetch depth
  std::vector<StageShape> shape_;
  mutable std::vector<RankState> state_;
  std::vector<std::unique_ptr<sc_core::sc_event>> changed_;
  std::vector<std::unique_ptr<SyncStrategy>> dp_;  // per DP group
  std::vector<int> dp_of_;                         // per rank: its DP group's index in dp_, -1: none
  // Programs by (op, bytes, first two ranks, size): a pair of ranks lies along one dimension only,
  // so this names the communicator without spelling it out on every collective.
  std::map<std::tuple<int, std::uint64_t, int, int, std::size_t>, std::shared_ptr<const CompiledProgram>> programs_;
  std::unordered_map<TpKey, std::pair<int, int>, TpKeyHash> tp_live_;   // -> (collective id, joins left)
  std::unordered_map<std::uint64_t, std::pair<int, int>> gather_live_;  // (DP group, iteration) -> same
  std::unordered_map<std::uint64_t, std::pair<int, int>> z3_live_;      // (DP group, layer key) -> same
  mutable std::vector<std::vector<ParallelRankIteration>> records_;     // [rank][iteration]
  mutable std::vector<std::vector<std::int64_t>> comm_all_;             // [rank][iteration], filled on first use
  std::vector<PeriodSkip> skips_;  // fast-forward: each rank's intervals of the period before repeat
  std::vector<int> tracks_;        // per rank: its pipeline track in the trace (-1: none)
};

const char* wait_kind_name(WaitKind k);  // "tp", "pp", "dp"

// Whether a collective is a TP or pipeline one ("tp it..", "pp it.."): results sum these by kind
// (the first word of the label) instead of listing them, as they are too many.
bool summed_parallel_collective(const std::string& label);

}  // namespace trainvp
