#include "platform/system/sync/sync_setup.hpp"

namespace trainvp {

std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s, const Workload& w, const std::vector<int>& ranks) {
  auto plan = std::make_unique<DreamDdpPlan>();
  plan->workload = &w;
  plan->profile = sync_profile(s, w, ranks);
  const SyncConfig& sc = s.training.sync;
  plan->schedule = dreamddp_schedule(plan->profile.input, sc.period, sc.fill_in);
  std::int64_t sum = 0;
  for (std::size_t h = 0; h < plan->schedule.sets.size(); ++h) {
    std::int64_t extra = 0;
    for (const auto* positions : {&plan->schedule.sets[h], &plan->schedule.fill_in[h]})
      for (int pos : *positions)
        extra += plan->profile.extra_ps[static_cast<std::size_t>(plan->profile.layers[static_cast<std::size_t>(pos)])];
    plan->predicted_ps.push_back(plan->profile.iteration_compute_ps + extra + plan->schedule.wait_ps[h]);
    sum += plan->predicted_ps.back();
  }
  plan->predicted_mean_ps = sum / static_cast<std::int64_t>(plan->predicted_ps.size());
  return plan;
}

std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s) {
  std::vector<int> ranks;
  for (const GpuInstance& g : s.cluster.gpus) ranks.push_back(g.rank);
  return plan_dreamddp(s, s.workload, ranks);
}

}  // namespace trainvp
