// Layer-granular retry and the consistency monitor (docs/faults.md#transport-failure): a unit's
// collective the engine gave up on is relaunched for that unit alone after the backoff, while the
// other units go on; once its tries are exhausted every rank still waiting applies its own
// gradient, and the monitor reports each (iteration, unit) whose ranks applied different versions.
#include <limits>

#include "models/collectives/strategies/unit_sync.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

// Where a rank enters step `step` of a unit: the engine's collective, or, while a relaunch is
// pending, the list of ranks the relaunch takes along; exhausted, the rank's own gradient.
void UnitSync::join_step(int rank, int iteration, int unit, int step) {
  if (!cfg_.retry.enabled) {
    engine_.join(collective(iteration, unit, step), rank);
    return;
  }
  Tries& t = tries_.try_emplace(std::make_tuple(iteration, unit, step)).first->second;
  if (t.joined.empty()) t.joined.assign(gpus_.size(), 0), t.done.assign(gpus_.size(), 0);
  if (t.exhausted) {
    unit_done(rank, iteration, unit, false);
    return;
  }
  t.joined[at(rank)] = 1;
  if (!t.pending) engine_.join(collective(iteration, unit, step), rank);
}

void UnitSync::step_failed(int iteration, int unit, int step) {
  const auto key = std::make_tuple(iteration, unit, step);
  Tries& t = tries_.at(key);
  RetryStats& st = retry_stats_[static_cast<std::size_t>(unit)];
  ++st.failures;
  const std::int64_t now = now_ps();
  const std::int64_t started = engine_.record(static_cast<std::size_t>(ids_.at(key))).start_ps;
  if (tracks_[0] >= 0)
    ctx_.trace.instant(tracks_[0], "sync failed " + unit_label(unit), "comm", now,
                       {{"iteration", iteration}, {"unit", unit}, {"try", t.tries}});
  if (t.tries < cfg_.retry.attempts) {
    t.pending = true;
    st.lost_ps += now + cfg_.retry.backoff_ps - started;  // the failed try and the wait before the next
    const bool earliest = relaunches_.empty() || now + cfg_.retry.backoff_ps < relaunches_.begin()->first;
    relaunches_.emplace(now + cfg_.retry.backoff_ps, key);
    if (earliest) relaunch_ev_.notify(ps_time(cfg_.retry.backoff_ps));
    return;
  }
  // Exhausted: the ranks waiting on it step with their own gradient; later joiners do on arrival.
  ++st.exhausted;
  st.lost_ps += now - started;
  // The unit's later steps end with it: a rank that got this step's result early has already
  // entered the next step, which the ranks ending here will never join (#45, campaign 2027).
  const int steps = static_cast<int>(cfg_.units[static_cast<std::size_t>(unit)].steps.size());
  for (int s = step; s < steps; ++s) exhaust(iteration, unit, s, s > step);
}

// Ends step `step` of (iteration, unit) for good: the ranks inside it apply their own gradient,
// and a rank that arrives later does so on arrival. `abandon`: the step did not fail itself, so its
// collective, if launched, is given up without calling back.
void UnitSync::exhaust(int iteration, int unit, int step, bool abandon) {
  const auto key = std::make_tuple(iteration, unit, step);
  Tries& t = tries_.try_emplace(key).first->second;
  if (t.exhausted) return;
  if (t.joined.empty()) t.joined.assign(gpus_.size(), 0), t.done.assign(gpus_.size(), 0);
  t.exhausted = true;
  t.pending = false;  // a relaunch still due finds it exhausted and does nothing
  if (abandon)
    if (auto id = ids_.find(key); id != ids_.end()) engine_.abandon(id->second);
  const std::vector<int>& world = group_.world();
  for (std::size_t k = 0; k < world.size(); ++k)
    if (t.joined[k] && !t.done[k]) {
      t.done[k] = 1;
      unit_done(world[k], iteration, unit, false);
    }
}

void UnitSync::on_relaunch() {
  const std::int64_t now = now_ps();
  while (!relaunches_.empty() && relaunches_.begin()->first <= now) {
    const auto key = relaunches_.begin()->second;
    relaunches_.erase(relaunches_.begin());
    const auto [iteration, unit, step] = key;
    Tries& t = tries_.at(key);
    if (t.exhausted) continue;  // an earlier step of its unit ran out of tries meanwhile
    t.pending = false;
    ++t.tries;
    ids_.erase(key);
    const int id = collective(iteration, unit, step);
    RetryStats& st = retry_stats_[static_cast<std::size_t>(unit)];
    st.retried_bytes += cfg_.units[static_cast<std::size_t>(unit)].steps[static_cast<std::size_t>(step)].bytes;
    // Every rank that had entered the step joins again, those that had its result too: the
    // collective needs all of them (step_done ignores their second result).
    const std::vector<int>& world = group_.world();
    for (std::size_t k = 0; k < world.size(); ++k)
      if (t.joined[k]) engine_.join(id, world[k]);
  }
  if (!relaunches_.empty()) relaunch_ev_.notify(ps_time(relaunches_.begin()->first - now));
}

void UnitSync::retry_report(nlohmann::ordered_json& results) const {
  using ojson = nlohmann::ordered_json;
  const RetryPolicy& r = cfg_.retry;
  ojson out = {{"retry_cnt", r.retry_cnt},
               {"timeout_s", sec(r.timeout_ps)},
               {"give_up_s", sec(r.retry_cnt * r.timeout_ps)},
               {"backoff_s", sec(r.backoff_ps)},
               {"attempts", r.attempts}};
  int failures = 0, exhausted = 0;
  ojson units = ojson::array();
  for (std::size_t u = 0; u < retry_stats_.size(); ++u) {
    const RetryStats& s = retry_stats_[u];
    failures += s.failures, exhausted += s.exhausted;
    units.push_back({{"unit", static_cast<int>(u)},
                     {"label", unit_label(static_cast<int>(u))},
                     {"attempts", s.attempts},
                     {"failures", s.failures},
                     {"exhausted", s.exhausted},
                     {"retried_bytes", s.retried_bytes},
                     {"time_lost_s", sec(s.lost_ps)}});
  }
  out["failures"] = failures;
  out["exhausted"] = exhausted;
  out["units"] = units;
  results["sync"]["retry"] = out;

  // Consistency: the same averaged version on every rank, or a divergence naming who applied what.
  const std::vector<int>& world = group_.world();
  ojson divergences = ojson::array();
  for (const auto& [key, v] : versions_) {
    bool same = true;
    for (int x : v) same = same && (x == key.first || x == -2);  // -2: the run ended first
    if (same) continue;
    ojson ranks = ojson::array();
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (v[k] == -2) continue;  // the run ended before this rank applied it
      ranks.push_back({{"rank", world[k]}, {"version", v[k] >= 0 ? ojson(v[k]) : ojson("local")}});
    }
    const SyncUnit& su = cfg_.units[static_cast<std::size_t>(key.second)];
    divergences.push_back({{"iteration", key.first},
                           {"unit", key.second},
                           {"layers", layer_names(workload_, su.layers)},
                           {"ranks", ranks}});
  }
  results["consistency"] = {
      {"consistent", divergences.empty()}, {"unit_iterations", versions_.size()}, {"divergences", divergences}};
}

}  // namespace trainvp
