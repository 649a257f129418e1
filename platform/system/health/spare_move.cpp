// S4 onto spare nodes, with `jobs` (docs/health.md#with-jobs): a job restarted from its checkpoint
// may be placed again, so it takes nodes no job holds, away from the leaves its slow edges cross,
// where another tenant's traffic met it. A Mitigation member, beside role_swap.cpp.
#include <algorithm>
#include <map>
#include <set>

#include "platform/system/health/mitigation.hpp"

namespace trainvp {

std::vector<int> Mitigation::move_to_spares(Action& a, const std::vector<int>& named) {
  if (!remap_) {
    a.note = "no move to spares: moving ranks between nodes needs fabric.fidelity flow";
    return named;
  }
  std::vector<int> at = p_.fabric->node_placement();  // per node slot, the node it runs on
  for (auto [x, y] : pending_swaps_) std::swap(at[static_cast<std::size_t>(x)], at[static_cast<std::size_t>(y)]);
  auto leaf = [&](int slot) { return p_.leaf_of[static_cast<std::size_t>(at[static_cast<std::size_t>(slot)])]; };
  // The congested leaves: both ends of every slow edge of the incident that crosses leaves.
  std::set<int> congested;
  const std::vector<Diagnosis>& ds = p_.monitor->diagnoses();
  for (std::size_t i = 0; i < ds.size(); ++i) {
    if (active_ ? ds[i].change_ps < incident_ps_ : i + 1 < ds.size()) continue;
    for (auto [x, y] : ds[i].links) {
      const int lx = leaf(slot_of_[static_cast<std::size_t>(x)]), ly = leaf(slot_of_[static_cast<std::size_t>(y)]);
      if (lx != ly) congested.insert(lx), congested.insert(ly);
    }
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
  std::set<int> slots;
  for (int r : p_.ranks) slots.insert(slot_of_[static_cast<std::size_t>(r)]);
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
    pending_swaps_.push_back({s, t});
    std::vector<int>& pool = *p_.spares;
    pool.erase(std::find(pool.begin(), pool.end(), q));
    pool.insert(std::upper_bound(pool.begin(), pool.end(), at[static_cast<std::size_t>(s)]),
                at[static_cast<std::size_t>(s)]);
    std::swap(at[static_cast<std::size_t>(s)], at[static_cast<std::size_t>(t)]);
  }
  a.spare_nodes = targets;
  std::vector<int> left;  // named nodes that stay where they are
  for (int n : named)
    if (std::find(moving.begin(), moving.end(), n) == moving.end()) left.push_back(n);
  return left;
}

}  // namespace trainvp
