#pragma once
// GREYHOUND's mitigation in the loop (docs/health.md#mitigation), answering the fail-slow
// monitor's diagnoses (or, for the `oracle` policy, the injected faults themselves):
//   S1 observe: nothing moves;
//   S2 rebalance: the data-parallel replicas' micro-batches (plain data parallelism: samples) are
//      split so the slowest replica's time is smallest (models/health/algorithms/rebalance.hpp), the total
//      fixed; a replica's GPUs then do m_j / m of their forward and backward work;
//   S3 move: whole nodes exchange places, for slow GPUs so that they sit in few replicas and on
//      the lightest pipeline stages (models/health/algorithms/consolidate.hpp), the split then redone for
//      the new replicas' speeds; for a slow link so that the fewest bytes cross it, which swaps
//      the parallel dimension that crosses it (models/health/algorithms/swap_plan.hpp, role_swap.cpp). In
//      flow fidelity the ranks move onto the other nodes' devices (Fabric::place_nodes) and the
//      GPUs' and hosts' faults stay with their hardware; packet fidelity cannot re-attach a GPU,
//      so there the nodes' hardware moves instead, with its faults (FaultInjector::swap_nodes),
//      and the network core stays: a role swap needs flow fidelity;
//   S4 restart: checkpoint and restart with a spare in place of the node of each diagnosed GPU or
//      slow edge's endpoints; no fault acts on a replaced node afterwards.
// Each step pauses the job (every rank at its next iteration boundary) for its cost. The ladder
// moves to the next step when the loss since entering the current one, summed over the monitor's
// windows as (window time - healthy time), reaches the next step's cost (ski rental).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/engine.hpp"
#include "models/health/diagnosis_source.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/iteration_boundary.hpp"
#include "models/health/algorithms/ski_rental.hpp"
#include "platform/config/health.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"

namespace trainvp {

class Mitigation : public IterationBoundary {
 public:
  struct Parts {
    MitigationConfig cfg;
    DiagnosisSource* monitor = nullptr;  // the fail-slow monitor; null for the oracle
    std::vector<Gpu*> gpus;              // by rank
    std::vector<int> ranks;              // the job's ranks it acts on, ascending (empty: every rank)
    // With `jobs`: the nodes no job holds, a pool the jobs' mitigations share (S4 restarts a job
    // on them, flow fidelity), and per node its leaf (placement group), to pick spares away from
    // the congested leaves.
    std::shared_ptr<std::vector<int>> spares;
    std::vector<int> leaf_of;
    std::vector<int> replica_of;  // per rank: its data-parallel replica (0 for others' ranks)
    int replicas = 1;
    int units = 1;                       // micro-batches (or samples) per replica and iteration
    std::vector<int> stage_of;           // per rank: its pipeline stage (empty: all 0)
    std::vector<double> stage_work;      // per stage: a micro-batch's healthy time (empty: one stage)
    FaultInjector* faults = nullptr;     // S4 replaces nodes there; the oracle listens to it
    Fabric* fabric = nullptr;            // S3 moves ranks there (flow fidelity)
    CollectiveEngine* engine = nullptr;  // S3's role swap weighs placements by its pair bytes
    IterationBoundary* next = nullptr;   // fast-forward, asked first
  };
  Mitigation(Parts parts, RunContext& ctx);
  IterationSkip at_boundary(int rank, int iteration) override;
  // The most iterations fast-forward may skip now (0: none, negative: no limit): none with a
  // pause, split, replacement or re-check pending; otherwise fewer than the windows until the
  // ladder's loss reaches its next step's cost, or until the next re-check unless its outcome is
  // known (recheck_known), so that each action happens on a simulated iteration, at its time.
  int skip_limit() const;
  // results.json `health.mitigation`.
  nlohmann::ordered_json report() const;

 private:
  struct Action {
    std::int64_t at_ps = 0;
    MitigationStep step = MitigationStep::S1;
    int diagnosis = -1;  // what it answers (-1: the oracle)
    int fault = -1;      // the oracle: the fault index
    double loss_s = 0;   // accumulated loss that paid for it (ladder)
    std::int64_t pause_ps = 0;
    int after_iteration = -1;                        // every rank stops at the end of this iteration (and moves there)
    std::vector<int> units;                          // S2: per replica
    std::vector<int> nodes;                          // S4: replaced
    std::vector<std::pair<int, int>> swaps;          // S3: node slots exchanged
    bool role_swap = false;                          // S3: for a slow link (else to consolidate slow GPUs)
    double estimate_before = 0, estimate_after = 0;  // S3: its cost model's iteration / healthy
    double share_before = 0, share_after = 0;        // S3 role swap: bytes on suspect paths / inter-node
    std::vector<std::string> suspect_links;          // S3 role swap: the directions it avoids
    std::vector<int> spare_nodes;                    // S4 on spares: the nodes the job moved to (by its slots)
    std::string note;
  };
  void diagnosed(const Diagnosis& d);
  void changed(const ChangeEvent& e);
  void window(const MonitorWindow& w);
  void fault(const FaultTruth& f, bool started);
  void enter(std::size_t position, int diagnosis, double loss);
  // Opens an incident on `diagnosis` in the first step, against the job's healthy time, with
  // `loss` already paid (a carried diagnosis's loss since it was made).
  void open(int diagnosis, double loss);
  void note_healthy(double level_s);                 // a level the job ran at: the lowest is its healthy time
  void acted(std::int64_t pause_ps);                 // a split or move decided now, pausing pause_ps
  bool rebalance(Action& a, std::int64_t pause_ps);  // false: nothing to move
  bool consolidate(Action& a);                       // S3 for slow GPUs; false: no move pays
  bool swap_roles(Action& a);                        // S3 for a slow link (role_swap.cpp); false: no move pays
  bool link_incident() const;                        // the incident's diagnoses name slow edges and no slow GPU
  std::vector<int> job_slots() const;                // the node slots of the job's ranks, ascending (S3 moves these)
  // Per rank: the rank its hardware takes after these slot swaps (whole nodes, local order kept).
  std::vector<int> moved_ranks(const std::vector<std::pair<int, int>>& swaps) const;
  void take_swaps(const std::vector<std::pair<int, int>>& swaps);  // made at the common boundary
  bool has_step(MitigationStep s) const;
  void even_split(Action& a);  // back to m units per replica, paying the re-plan pause
  void restart(Action& a, const std::vector<int>& nodes);
  // S4 with spare nodes (spare_move.cpp): the job restarts on spares away from the leaves its slow
  // edges cross, the whole job where enough spares are there, else the named nodes only. Returns
  // the named nodes it found no spare for (their faults are then cleared, as without spares).
  std::vector<int> move_to_spares(Action& a, const std::vector<int>& nodes);
  void revert(int diagnosis, const char* why);
  void recheck();
  bool recheck_known() const;  // a re-check now would find every GPU it probes slow again
  void healthy_again(std::vector<int> healed);
  void all_healthy();  // every GPU S2 works around re-probed healthy
  std::vector<int> nodes_of(const Diagnosis& d) const;
  void pause_all(Action& a);  // every rank pauses a.pause_ps after a.after_iteration
  void scale_all(double s);   // every rank of the job takes work scale s at the pause
  std::int64_t now() const;

  Parts p_;
  RunContext& ctx_;
  std::vector<std::int64_t> pending_pause_;  // per rank, taken at the boundary after apply_after_
  std::vector<double> pending_scale_;        // per rank (< 0: none), taken with it
  // Every rank stops at the same boundary, after the iteration that follows the latest one any
  // rank has ended: a pipeline's stages end an iteration at different times, and stopping each
  // at its own next boundary would stall the job once per stage.
  std::vector<int> ended_;  // per rank: the last iteration it ended
  int apply_after_ = -1;
  std::vector<int> repair_nodes_;  // replaced when the first rank stops for the restart
  // S3: made when the first rank stops for it, or, where ranks move (remap_), when the last does:
  // no rank may send from its old place once another has moved.
  std::vector<std::pair<int, int>> pending_swaps_;
  bool remap_ = false;        // flow fidelity: S3 moves ranks (Fabric::place_nodes)
  std::vector<int> slot_of_;  // per rank: its node as elaborated (S3 and S4 name these)
  // S3's moves: when, and per rank the rank its hardware then moved to (diagnoses made before a
  // move name the ranks it left).
  std::vector<std::pair<std::int64_t, std::vector<int>>> moves_;
  bool active_ = false;      // an incident is being answered (ladder)
  bool link_cause_ = false;  // the incident was opened by a communication diagnosis
  double healthy_s_ = 0;     // the incident's healthy time: the job's, healthy_ref_s_
  // The job's healthy time: the lowest level before any verified change (0: none seen yet). An
  // incident that opens while another event holds the job slow counts its loss against this, not
  // against the slow level its own change started from.
  double healthy_ref_s_ = 0;
  std::int64_t incident_ps_ = 0;  // change point of the incident's first diagnosis
  // Communication diagnoses made while an incident of slow GPUs or hosts is open: not its cause,
  // nothing its split answers. When that incident closes with the job still slow (its GPUs
  // re-probed healthy), they open their own, paid the loss since the first of them.
  std::vector<int> carried_;
  double carried_loss_s_ = 0;
  std::unique_ptr<SkiRental> ski_;
  std::size_t position_ = 0;    // index into cfg.steps
  std::vector<double> factor_;  // per replica: time per unit relative to healthy
  bool rebalanced_ = false;
  std::vector<int> slow_gpus_;      // S2 works around these (compute diagnoses)
  std::vector<double> gpu_factor_;  // per rank: its diagnosed time per unit (1: not slow)
  int since_check_ = 0;
  bool checking_ = false;
  std::map<int, std::int64_t> found_slow_ps_;  // per GPU: the start of the last re-check that found it slow
  int rechecks_ = 0, rechecks_fast_forwarded_ = 0;
  std::int64_t acted_at_ = -1, acted_pause_ps_ = 0;  // the last split or move, and its pause
  // The iteration time when it was decided (the slow one, if slower than healthy): a split takes
  // effect after the next iteration, so the drop it causes comes iterations of this length later.
  std::int64_t acted_iteration_ps_ = 0;
  std::vector<Action> actions_;
  int track_ = -1;
};

}  // namespace trainvp
