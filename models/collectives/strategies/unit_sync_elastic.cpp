// Elastic synchronization (docs/strategies.md#elastic): the optimizer step's per-unit deadlines,
// weak-sync units and the step that merges each one's late average.
#include <algorithm>
#include <limits>

#include "models/collectives/strategies/unit_sync.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

// The step of `iteration` may start once every unit of its plan is done on the rank or past its
// deadline. Passing the gate is where units become weak-sync and where arrived averages merge,
// so it happens once per iteration (stepped_ remembers it).
bool UnitSync::elastic_may_step(int rank, int iteration) const {
  const std::size_t k = at(rank);
  if (stepped_[k] >= iteration) return true;
  const std::vector<int>& units = cfg_.plans[static_cast<std::size_t>(plan_for(iteration))].units;
  const std::int64_t now = now_ps();
  std::int64_t wake = std::numeric_limits<std::int64_t>::max();
  for (int u : units) {
    const std::size_t ui = static_cast<std::size_t>(u);
    if (arrived_[k][ui] >= iteration) continue;
    const std::int64_t deadline = ready_at_[k][ui] + cfg_.deadline_ps;
    if (now < deadline) wake = std::min(wake, deadline);
  }
  if (wake != std::numeric_limits<std::int64_t>::max()) {
    // A completion's zero-delay notification may replace this one; the GPU then asks again and
    // the earliest deadline left is armed anew.
    changed_[k]->notify(ps_time(wake - now));
    return false;
  }
  for (int u : units) {
    const std::size_t ui = static_cast<std::size_t>(u);
    if (arrived_[k][ui] >= iteration) continue;
    open_[k][ui].push_back(late_.size());
    late_.push_back({static_cast<int>(k), iteration, u, -1});
    if (tracks_[k] >= 0)
      ctx_.trace.instant(tracks_[k], "weak-sync " + unit_label(u), "comm", now,
                         {{"iteration", iteration}, {"unit", u}});
  }
  for (std::size_t i : to_merge_[k]) late_[i].merged = iteration;
  to_merge_[k].clear();
  stepped_[k] = iteration;
  changed_[k]->cancel();  // no deadline of this iteration is waited for any more
  return true;
}

// The unit's average of `iteration` arrived on the rank; if that iteration's step went on
// without it, the next step merges it.
void UnitSync::elastic_done(int rank, int iteration, int unit) {
  const std::size_t k = at(rank), ui = static_cast<std::size_t>(unit);
  arrived_[k][ui] = iteration;
  if (iteration > stepped_[k]) return;
  std::vector<std::size_t>& open = open_[k][ui];
  // A unit's averages arrive in iteration order (one stream, first come first served).
  to_merge_[k].push_back(open.front());
  open.erase(open.begin());
}

void UnitSync::elastic_report(nlohmann::ordered_json& results) const {
  using ojson = nlohmann::ordered_json;
  const std::size_t units = cfg_.units.size();
  const double ranks = static_cast<double>(gpus_.size());
  std::vector<int> late_its(units, 0), late_rank_its(units, 0), unmerged(units, 0), max_stale(units, 0);
  std::vector<double> stale_sum(units, 0);
  std::vector<std::vector<bool>> late_in(static_cast<std::size_t>(iterations_), std::vector<bool>(units, false));
  for (const LateSync& l : late_) {
    const std::size_t u = static_cast<std::size_t>(l.unit);
    ++late_rank_its[u];
    if (l.iteration < iterations_) late_in[static_cast<std::size_t>(l.iteration)][u] = true;
    if (l.merged < 0) {
      ++unmerged[u];
      continue;
    }
    stale_sum[u] += l.merged - l.iteration;
    max_stale[u] = std::max(max_stale[u], l.merged - l.iteration);
  }
  ojson& iterations = results["iterations"];
  int total = 0;
  for (int i = 0; i < iterations_; ++i) {
    int n = 0;
    for (std::size_t u = 0; u < units; ++u) n += late_in[static_cast<std::size_t>(i)][u];
    for (std::size_t u = 0; u < units; ++u) late_its[u] += late_in[static_cast<std::size_t>(i)][u];
    total += n;
    if (static_cast<std::size_t>(i) < iterations.size()) iterations[static_cast<std::size_t>(i)]["weak_sync_units"] = n;
  }
  ojson out = ojson::object();
  if (cfg_.deadline_ps >= 0) out["timeout_s"] = sec(cfg_.deadline_ps);
  else out["timeout_s"] = "none";
  out["weak_sync_unit_iterations"] = total;
  ojson per_unit = ojson::array();
  for (std::size_t u = 0; u < units; ++u) {
    // Every gradient of the unit whose average was applied: on time (staleness 0) or merged late.
    const double applied = ranks * iterations_ - unmerged[u];
    per_unit.push_back({{"unit", static_cast<int>(u)},
                        {"label", unit_label(static_cast<int>(u))},
                        {"late_iterations", late_its[u]},
                        {"late_rank_iterations", late_rank_its[u]},
                        {"staleness_mean", applied > 0 ? stale_sum[u] / applied : 0.0},
                        {"staleness_max", max_stale[u]},
                        {"unmerged", unmerged[u]}});
  }
  out["units"] = per_unit;
  results["sync"]["elastic"] = out;
}

}  // namespace trainvp
