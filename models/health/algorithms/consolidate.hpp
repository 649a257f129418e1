#pragma once
// GREYHOUND's S3 (DOMAIN.md section 3), its compute half: re-place a job's nodes so that its slow
// GPUs cost least, consolidated into few data-parallel replicas (S2 then moves work away from
// fewer of them) and onto the pipeline stages with the least work. A node moves whole: its GPUs
// keep their local order, so a TP group inside a node stays inside one.
#include <utility>
#include <vector>

namespace trainvp {

struct PlacementCell {
  int replica = 0, stage = 0;
};

struct ConsolidationInput {
  // Per node slot: the (replica, stage) cells its GPUs hold, in local GPU order (a node holding
  // one TP group holds one cell; under plain data parallelism each GPU is a cell). Every node has
  // as many cells: cell k of one node's hardware lands on cell k of the slot it moves to.
  std::vector<std::vector<PlacementCell>> cells;
  // Per node's hardware and cell: time per unit of work relative to healthy (>= 1).
  std::vector<std::vector<double>> factor;
  std::vector<double> stage_work;  // per stage: a micro-batch's healthy time there (> 0)
  int replicas = 1;
  int units = 1;          // micro-batches (or samples) per replica and iteration
  bool rebalance = true;  // S2 splits the units by the replicas' speeds after the move
};

// The iteration time relative to healthy when slot n holds node host[n]'s hardware. A replica
// runs at the pace of its slowest stage: max_s stage_work[s] x (the slowest factor among its
// cells at s), over max_s stage_work[s]. The job waits for its slowest replica: with `rebalance`
// after S2's optimal split of replicas x units (rebalance_micro_batches), else with `units` each.
// Throws std::invalid_argument on inputs that do not fit together.
double placement_cost(const ConsolidationInput& in, const std::vector<int>& host);

struct Consolidation {
  std::vector<std::pair<int, int>> swaps;  // node slots exchanged, in order
  double before = 1, after = 1;            // placement_cost of the order before and after
};

// Greedy: while some swap of a node whose hardware is slow with any other node lowers the cost
// by more than `min_gain` (relative), take the one that lowers it most (ties: the lowest slots).
Consolidation plan_consolidation(const ConsolidationInput& in, double min_gain = 0.01);

}  // namespace trainvp
