// S4 onto spare nodes, with `jobs` (docs/health.md#with-jobs): a job restarted from its checkpoint
// may be placed again, so it takes nodes no job holds, away from the leaves its slow edges cross,
// where another tenant's traffic met it. A RestartStep member.
#include <algorithm>
#include <map>
#include <set>

#include "platform/system/health/restart_step.hpp"

namespace trainvp {

std::vector<int> RestartStep::move_to_spares(MitigationAction& a, const std::vector<int>& named,
                                             const std::vector<std::pair<int, int>>& slow_edges) {
  if (!moves_.moves_ranks()) {
    a.note = "no move to spares: moving ranks between nodes needs fabric.fidelity flow";
    return named;
  }
  std::vector<int> at = moves_.planned_placement();  // per node slot, the node it will run on
  auto leaf = [&](int slot) { return p_.leaf_of[static_cast<std::size_t>(at[static_cast<std::size_t>(slot)])]; };
  // The congested leaves: both ends of every slow edge that crosses leaves.
  std::set<int> congested;
  for (auto [x, y] : slow_edges) {
    const int lx = leaf(moves_.slot_of(x)), ly = leaf(moves_.slot_of(y));
    if (lx != ly) congested.insert(lx), congested.insert(ly);
  }
  // Spares by preference: on calm leaves first, the leaf with the most spares first (the job
  // then spans few leaves), ascending within a leaf.
  std::map<int, std::vector<int>> by_leaf;
  for (int n : *p_.spares) by_leaf[p_.leaf_of[static_cast<std::size_t>(n)]].push_back(n);
  std::vector<std::pair<int, int>> order;  // (leaf, calm first then most spares)
  for (const auto& [l, nodes] : by_leaf) order.push_back({l, static_cast<int>(nodes.size())});
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
    const bool cx = congested.count(x.first) == 0, cy = congested.count(y.first) == 0;
    return cx != cy ? cx : x.second > y.second;
  });
  std::vector<int> calm, any;
  for (const auto& [l, n] : order)
    for (int node : by_leaf[l]) (congested.count(l) ? any : calm).push_back(node);
  const std::vector<int> slots = moves_.job_slots();
  // The whole job where the calm leaves hold it; else the named nodes, calm spares first.
  std::vector<int> moving, targets;
  if (calm.size() >= slots.size()) {
    moving.assign(slots.begin(), slots.end());
    targets.assign(calm.begin(), calm.begin() + static_cast<std::ptrdiff_t>(slots.size()));
    a.note = "the whole job restarts on spare nodes away from the congested leaves";
  } else {
    moving = named;
    calm.insert(calm.end(), any.begin(), any.end());
    targets.assign(calm.begin(), calm.begin() + static_cast<std::ptrdiff_t>(std::min(calm.size(), named.size())));
    moving.resize(targets.size());
    a.note = "the named nodes restart on spare nodes";
  }
  std::sort(targets.begin(), targets.end());
  for (std::size_t i = 0; i < moving.size(); ++i) {
    const int s = moving[i], q = targets[i];
    const int t = static_cast<int>(std::find(at.begin(), at.end(), q) - at.begin());  // the idle slot on q
    moves_.exchange(s, t);
    std::vector<int>& pool = *p_.spares;
    pool.erase(std::find(pool.begin(), pool.end(), q));
    pool.insert(std::upper_bound(pool.begin(), pool.end(), at[static_cast<std::size_t>(s)]),
                at[static_cast<std::size_t>(s)]);
    std::swap(at[static_cast<std::size_t>(s)], at[static_cast<std::size_t>(t)]);
  }
  a.restart->spare_nodes = targets;
  std::vector<int> left;  // named nodes that stay where they are
  for (int n : named)
    if (std::find(moving.begin(), moving.end(), n) == moving.end()) left.push_back(n);
  return left;
}

}  // namespace trainvp
