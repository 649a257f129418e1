#pragma once
// S3, move (docs/health.md#mitigation): whole nodes exchange places, for slow GPUs so that they
// sit in few replicas and on the lightest pipeline stages (models/health/algorithms/consolidate.hpp),
// for a slow link so that the fewest bytes cross it, which swaps the parallel dimension that
// crosses it (models/health/algorithms/swap_plan.hpp, role_swap.cpp). In flow fidelity the ranks
// move onto the other nodes' devices (Fabric::place_nodes) and the GPUs' and hosts' faults stay
// with their hardware; packet fidelity cannot re-attach a GPU, so there the nodes' hardware moves
// instead, with its faults (FaultInjector::swap_nodes), and the network core stays: a role swap
// needs flow fidelity. It also keeps where each rank's hardware went, so that a diagnosis made
// before a move still names the right node.
#include <cstdint>
#include <utility>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/health/diagnosis_source.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"
#include "platform/system/health/common_boundary.hpp"
#include "platform/system/health/mitigation_action.hpp"
#include "platform/system/health/split_step.hpp"

namespace trainvp {

class MoveStep {
 public:
  struct Parts {
    int world = 0;                   // ranks of the run
    std::vector<int> ranks;          // the job's, ascending
    std::vector<int> stage_of;       // per rank: its pipeline stage (empty: all 0)
    std::vector<double> stage_work;  // per stage: a micro-batch's healthy time (empty: one stage)
    DiagnosisSource* monitor = nullptr;
    FaultInjector* faults = nullptr;
    Fabric* fabric = nullptr;
    CollectiveEngine* engine = nullptr;  // a role swap weighs placements by its pair bytes
  };
  // `role_swaps`: S3 is on the ladder, so the engine counts the bytes between endpoints.
  MoveStep(Parts parts, bool role_swaps);

  bool moves_ranks() const { return remap_; }  // flow fidelity: ranks move, not hardware
  // S3 for slow GPUs: plans the swaps (weighing a later split when `rebalance`), records them in
  // a.move, and carries what `split` knows of slow GPUs to their hardware's new ranks. False: no
  // move pays (a.move says why).
  bool consolidate(MitigationAction& a, SplitStep& split, bool rebalance);
  // S3 for a slow link, the incident's since `incident_ps` (role_swap.cpp). False: no move pays.
  bool swap_roles(MitigationAction& a, std::int64_t incident_ps);

  bool pending() const { return !pending_.empty(); }
  // At a boundary of the common one: the swaps are made when the first rank reaches it, or,
  // where ranks move, when the last does (no rank may send from its old place once another has
  // moved). True when it made them.
  bool take_pending(const CommonBoundary& boundary);
  // The node slots whose hardware a diagnosis named, where that hardware is now.
  std::vector<int> nodes_of(const Diagnosis& d) const;
  int slot_of(int rank) const { return slot_of_[static_cast<std::size_t>(rank)]; }
  std::vector<int> job_slots() const;  // the node slots of the job's ranks, ascending
  // Per node slot, the node it will run on once the pending swaps are made.
  std::vector<int> planned_placement() const;
  void exchange(int slot, int other);  // one more pending swap (S4 onto a spare)

 private:
  // Per rank: the rank its hardware takes after these slot swaps (whole nodes, local order kept).
  std::vector<int> moved_ranks(const std::vector<std::pair<int, int>>& swaps) const;
  void take(const std::vector<std::pair<int, int>>& swaps);

  Parts p_;
  bool remap_ = false;
  std::vector<int> slot_of_;  // per rank: its node as elaborated (S3 and S4 name these)
  std::vector<std::pair<int, int>> pending_;
  // The moves made: when, and per rank the rank its hardware then moved to.
  std::vector<std::pair<std::int64_t, std::vector<int>>> moves_;
};

}  // namespace trainvp
