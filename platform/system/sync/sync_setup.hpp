#pragma once
// Builds the layer-wise and partial synchronization strategies of a scenario (docs/strategies.md).
#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/strategies/builders.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/sync/sync_profile.hpp"

namespace trainvp {

// DreamDDP's plan: the profile it was computed from, the schedule, and what the schedule predicts.
struct DreamDdpPlan {
  SyncProfile profile;
  Schedule schedule;                       // positions index profile.layers
  std::vector<std::int64_t> predicted_ps;  // per iteration of the period: compute + compression work + wait
  std::int64_t predicted_mean_ps = 0;      // their mean
};

// True for the strategies UnitSync runs (every strategy but none, ddp and ddp_no_overlap).
bool is_unit_strategy(SyncStrategyKind k);

// The profile and schedule of a dreamddp scenario. Measuring the profile forks a child that
// simulates the fabric: call it before any SystemC module exists in this process.
std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s);

// The strategy's configuration (no SystemC); `dream` is required for dreamddp.
UnitSyncConfig unit_sync_config(const Scenario& s, const DreamDdpPlan* dream);

}  // namespace trainvp
