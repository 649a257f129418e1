#include "platform/system/health/move_step.hpp"

#include <algorithm>
#include <set>

#include "models/health/algorithms/consolidate.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

MoveStep::MoveStep(Parts parts, bool role_swaps) : p_(std::move(parts)) {
  for (int r = 0; r < p_.world; ++r) slot_of_.push_back(p_.fabric ? p_.fabric->elaborated_node(r) : 0);
  remap_ = p_.fabric && p_.fabric->flow();
  if (remap_ && role_swaps && p_.engine) p_.engine->count_pairs();
}

std::vector<int> MoveStep::job_slots() const {
  std::set<int> slots;
  for (int r : p_.ranks) slots.insert(slot_of(r));
  return {slots.begin(), slots.end()};
}

std::vector<int> MoveStep::nodes_of(const Diagnosis& d) const {
  std::set<int> nodes;
  // Where the hardware it named is now: a move may have taken it elsewhere since.
  auto node = [&](int rank) {
    for (const auto& [at, where] : moves_)
      if (at >= d.diagnosed_ps) rank = where[static_cast<std::size_t>(rank)];
    return slot_of(rank);
  };
  for (int g : d.gpus) nodes.insert(node(g));
  for (auto [a, b] : d.links) nodes.insert(node(a)), nodes.insert(node(b));
  return {nodes.begin(), nodes.end()};
}

// The nodes' cells (their GPUs' replica and stage, in local order) and the diagnosed factors of
// the hardware in them go to the planner; its swaps are made at the pause, and what the split
// knows of slow GPUs follows the hardware to its new ranks.
bool MoveStep::consolidate(MitigationAction& a, SplitStep& split, bool rebalance) {
  a.move.emplace().kind = MoveRecord::Kind::Consolidate;
  // The job's slots (every slot without `jobs`), each with its ranks in local order; the planner
  // counts them 0.. in that order.
  const std::vector<int> slots = job_slots();
  std::vector<std::vector<int>> ranks_of(slots.size());
  for (int r : p_.ranks) {
    const auto k = std::lower_bound(slots.begin(), slots.end(), slot_of(r)) - slots.begin();
    ranks_of[static_cast<std::size_t>(k)].push_back(r);
  }
  ConsolidationInput in;
  std::vector<int> pattern;  // cell index per local GPU: alike on every node, or nothing moves
  for (const auto& ranks : ranks_of) {
    std::vector<PlacementCell> cells;
    std::vector<double> f;
    std::vector<int> cell_of;
    for (int r : ranks) {
      const PlacementCell c{split.replica_of(r), p_.stage_of.empty() ? 0 : p_.stage_of[static_cast<std::size_t>(r)]};
      std::size_t k = 0;
      while (k < cells.size() && (cells[k].replica != c.replica || cells[k].stage != c.stage)) ++k;
      if (k == cells.size()) cells.push_back(c), f.push_back(1.0);
      f[k] = std::max(f[k], split.gpu_factor(r));
      cell_of.push_back(static_cast<int>(k));
    }
    if (&ranks == &ranks_of.front()) pattern = cell_of;
    if (cell_of != pattern) {
      a.note = "no move: the nodes hold their replicas and stages differently";
      return false;
    }
    in.cells.push_back(std::move(cells)), in.factor.push_back(std::move(f));
  }
  in.stage_work = p_.stage_work.empty() ? std::vector<double>{1.0} : p_.stage_work;
  in.replicas = split.replicas(), in.units = split.units(), in.rebalance = rebalance;
  const Consolidation c = plan_consolidation(in);
  MoveRecord& m = *a.move;
  m.estimate_before = c.before, m.estimate_after = c.after;
  if (c.swaps.empty()) {
    a.note = "no move lowers the estimate by 1% or more";
    return false;
  }
  m.swaps = c.swaps;
  for (auto& [x, y] : m.swaps) x = slots[static_cast<std::size_t>(x)], y = slots[static_cast<std::size_t>(y)];
  const std::vector<int> where = moved_ranks(m.swaps);
  moves_.emplace_back(now_ps(), where);
  split.follow(where);
  pending_.insert(pending_.end(), m.swaps.begin(), m.swaps.end());
  return true;
}

std::vector<int> MoveStep::moved_ranks(const std::vector<std::pair<int, int>>& swaps) const {
  std::vector<std::vector<int>> ranks_of;
  std::vector<int> local(slot_of_.size());
  for (std::size_t r = 0; r < slot_of_.size(); ++r) {
    const auto n = static_cast<std::size_t>(slot_of_[r]);
    if (n >= ranks_of.size()) ranks_of.resize(n + 1);
    local[r] = static_cast<int>(ranks_of[n].size());
    ranks_of[n].push_back(static_cast<int>(r));
  }
  std::vector<int> where(slot_of_.size());
  for (std::size_t r = 0; r < where.size(); ++r) where[r] = static_cast<int>(r);
  for (auto [x, y] : swaps)
    for (int& w : where) {
      const auto wr = static_cast<std::size_t>(w);
      if (slot_of_[wr] == x) w = ranks_of[static_cast<std::size_t>(y)][static_cast<std::size_t>(local[wr])];
      else if (slot_of_[wr] == y) w = ranks_of[static_cast<std::size_t>(x)][static_cast<std::size_t>(local[wr])];
    }
  return where;
}

bool MoveStep::take_pending(const CommonBoundary& boundary) {
  if (pending_.empty() || (remap_ && !boundary.all_ended())) return false;
  take(pending_);
  pending_.clear();
  return true;
}

void MoveStep::take(const std::vector<std::pair<int, int>>& swaps) {
  if (!remap_) {
    for (auto [a, b] : swaps)
      if (p_.faults) p_.faults->swap_nodes(a, b);
    return;
  }
  std::vector<int> at = p_.fabric->node_placement();
  for (auto [a, b] : swaps) {
    if (p_.faults) p_.faults->swap_nodes(a, b, false);
    std::swap(at[static_cast<std::size_t>(a)], at[static_cast<std::size_t>(b)]);
  }
  p_.fabric->place_nodes(at);
}

std::vector<int> MoveStep::planned_placement() const {
  std::vector<int> at = p_.fabric->node_placement();
  for (auto [x, y] : pending_) std::swap(at[static_cast<std::size_t>(x)], at[static_cast<std::size_t>(y)]);
  return at;
}

void MoveStep::exchange(int slot, int other) { pending_.push_back({slot, other}); }

}  // namespace trainvp
