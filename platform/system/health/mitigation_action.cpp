#include "platform/system/health/mitigation_action.hpp"

#include "platform/core/sim_time.hpp"

namespace trainvp {

nlohmann::ordered_json MitigationAction::to_json() const {
  using ojson = nlohmann::ordered_json;
  ojson e = {{"at_s", sec(at_ps)}, {"step", mitigation_step_name(step)}};
  e["diagnosis"] = diagnosis >= 0 ? ojson(diagnosis) : ojson(nullptr);
  if (fault >= 0) e["fault"] = fault;
  e["loss_s"] = loss_s;
  e["pause_s"] = sec(pause_ps);
  if (after_iteration >= 0) e["after_iteration"] = after_iteration;
  if (!units.empty()) e["units_per_replica"] = units;
  if (move) {
    ojson swaps = ojson::array();
    for (auto [x, y] : move->swaps) swaps.push_back({x, y});
    const bool role_swap = move->kind == MoveRecord::Kind::RoleSwap;
    e["move"] = role_swap ? "role_swap" : "consolidate";
    e["nodes_swapped"] = swaps;
    if (role_swap) {
      e["suspect_links"] = move->suspect_links;
      e["suspect_share_before"] = move->share_before;
      e["suspect_share_after"] = move->share_after;
    } else {
      e["estimate_before"] = move->estimate_before;
      e["estimate_after"] = move->estimate_after;
    }
  }
  if (restart) {
    e["nodes_replaced"] = restart->nodes;
    if (!restart->spare_nodes.empty()) e["moved_to_spares"] = restart->spare_nodes;
  }
  if (!note.empty()) e["note"] = note;
  return e;
}

}  // namespace trainvp
