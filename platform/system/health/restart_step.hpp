#pragma once
// S4, restart (docs/health.md#mitigation): checkpoint and restart with a spare in place of each
// named node; no fault acts on a replaced node afterwards. With `jobs` (flow fidelity) the
// restarted job may be placed again: it takes nodes no job holds, away from the leaves its slow
// edges cross, where another tenant's traffic met it (spare_move.cpp).
#include <memory>
#include <utility>
#include <vector>

#include "platform/system/faults/faults.hpp"
#include "platform/system/health/mitigation_action.hpp"
#include "platform/system/health/move_step.hpp"

namespace trainvp {

class RestartStep {
 public:
  struct Parts {
    // With `jobs`: the nodes no job holds, a pool the jobs' mitigations share, and per node its
    // leaf (placement group), to pick spares away from the congested leaves.
    std::shared_ptr<std::vector<int>> spares;
    std::vector<int> leaf_of;
    FaultInjector* faults = nullptr;  // replaces the nodes there
  };
  RestartStep(Parts parts, MoveStep& moves) : p_(std::move(parts)), moves_(moves) {}

  // Records in a.restart the restart in place of `nodes`: onto spare nodes where there is a pool
  // (avoiding the leaves of `slow_edges`, source and destination ranks), in place otherwise.
  void restart(MitigationAction& a, const std::vector<int>& nodes, const std::vector<std::pair<int, int>>& slow_edges);
  // The oracle's restart: the named nodes replaced where they are, no spares taken.
  void restart_in_place(MitigationAction& a, const std::vector<int>& nodes);
  bool pending() const { return !replace_.empty(); }
  // At the common boundary, when the first rank reaches it: the nodes are replaced. True when some were.
  bool take_pending();

 private:
  // The job onto spares away from the leaves its slow edges cross, the whole job where enough
  // spares are there, else the named nodes only. Returns the named nodes it found no spare for.
  std::vector<int> move_to_spares(MitigationAction& a, const std::vector<int>& named,
                                  const std::vector<std::pair<int, int>>& slow_edges);

  Parts p_;
  MoveStep& moves_;
  std::vector<int> replace_;  // replaced when the first rank stops for the restart
};

}  // namespace trainvp
