#pragma once
// DreamDDP's plan: profile and schedule, made before elaboration (docs/strategies.md).
#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/strategies/dreamddp_schedule.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/sync/sync_profile.hpp"

namespace trainvp {

// DreamDDP's plan: the profile it was computed from, the schedule, and what the schedule predicts.
struct DreamDdpPlan {
  const Workload* workload = nullptr;  // the layers it schedules: the scenario's or a pipeline stage's
  SyncProfile profile;
  Schedule schedule;                       // positions index profile.layers
  std::vector<std::int64_t> predicted_ps;  // per iteration of the period: compute + compression work + wait
  std::int64_t predicted_mean_ps = 0;      // their mean
};

// The profile and schedule of a dreamddp scenario for `w` synchronized over `ranks` (sync_profile).
// Measuring the profile forks a child that simulates the fabric: call it before any SystemC module
// exists in this process. `w` must outlive the plan.
std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s, const Workload& w, const std::vector<int>& ranks);
// Data parallelism: the scenario's workload over every GPU.
std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s);

}  // namespace trainvp
