#include "platform/system/health/restart_step.hpp"

namespace trainvp {

void RestartStep::restart(MitigationAction& a, const std::vector<int>& nodes,
                          const std::vector<std::pair<int, int>>& slow_edges) {
  a.restart.emplace().nodes = nodes;
  const std::vector<int> left = !p_.spares || nodes.empty() ? nodes : move_to_spares(a, nodes, slow_edges);
  replace_.insert(replace_.end(), left.begin(), left.end());
}

void RestartStep::restart_in_place(MitigationAction& a, const std::vector<int>& nodes) {
  a.restart.emplace().nodes = nodes;
  replace_.insert(replace_.end(), nodes.begin(), nodes.end());
}

bool RestartStep::take_pending() {
  if (replace_.empty()) return false;
  for (int n : replace_)
    if (p_.faults) p_.faults->replace_node(n);
  replace_.clear();
  return true;
}

}  // namespace trainvp
