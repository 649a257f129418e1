#include "platform/system/sync/sync_setup.hpp"

#include <stdexcept>

#include "platform/core/errors.hpp"

namespace trainvp {

bool is_unit_strategy(SyncStrategyKind k) {
  return k != SyncStrategyKind::None && k != SyncStrategyKind::Ddp && k != SyncStrategyKind::DdpNoOverlap;
}

std::unique_ptr<DreamDdpPlan> plan_dreamddp(const Scenario& s) {
  auto plan = std::make_unique<DreamDdpPlan>();
  plan->profile = sync_profile(s);
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

UnitSyncConfig unit_sync_config(const Scenario& s, const DreamDdpPlan* dream) {
  const SyncConfig& sc = s.training.sync;
  const Workload& w = s.workload;
  StrategyCommon c;
  c.world = static_cast<int>(s.cluster.gpus.size());
  c.algorithm = sc.algorithm;
  c.streams = sc.comm_streams;
  c.compression = sc.compression;
  GroupingOptions g;
  g.block = 1;
  g.pack = sc.pack;
  g.large_bytes = sc.large_bytes;
  g.small_bytes = sc.small_bytes;
  g.streams = sc.comm_streams;
  if (sc.has_class_streams) g.class_streams = {sc.class_streams.large, sc.class_streams.medium, sc.class_streams.small};
  switch (sc.strategy) {
    case SyncStrategyKind::Layerwise: return grouped_config("layerwise", w, c, g);
    case SyncStrategyKind::Blockwise: g.block = sc.block; return grouped_config("blockwise", w, c, g);
    case SyncStrategyKind::Adaptive: return adaptive_config(w, c, g, sc.block, sc.util_high, sc.util_low);
    case SyncStrategyKind::AscWfbp: return asc_wfbp_config(w, c);
    case SyncStrategyKind::LocalSgd: return local_sgd_config(w, c, sc.period);
    case SyncStrategyKind::Plsgd: return partial_config("plsgd", w, c, plsgd_sets(w, sc.period));
    case SyncStrategyKind::DreamDdp:
      if (!dream) throw std::logic_error("dreamddp needs its plan");
      return partial_config("dreamddp", w, c, dream->schedule);
    default: break;
  }
  throw std::logic_error("not a unit strategy");
}

}  // namespace trainvp
