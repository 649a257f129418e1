#include "models/collectives/strategies/builders.hpp"

#include <algorithm>
#include <stdexcept>

namespace trainvp {

namespace {

std::vector<PhaseWork> work_of(const std::vector<LayerTraffic>& traffic) {
  std::vector<PhaseWork> out;
  for (const LayerTraffic& t : traffic) out.push_back(t.compressed ? t.work : PhaseWork{});
  return out;
}

SyncPlan all_units(const char* label, std::size_t units) {
  SyncPlan p{label, {}};
  for (std::size_t u = 0; u < units; ++u) p.units.push_back(static_cast<int>(u));
  return p;
}

}  // namespace

UnitSyncConfig grouped_config(const char* name, const Workload& w, const StrategyCommon& c,
                              const GroupingOptions& opt) {
  UnitSyncConfig cfg;
  cfg.name = name;
  auto traffic = layer_traffics(w, w.shape.grad_dtype, c.compression, c.world);
  cfg.units = grouped_units(w, traffic, c.world, opt);
  cfg.plans = {all_units(name, cfg.units.size())};
  cfg.algorithm = c.algorithm;
  cfg.streams = opt.streams;
  cfg.layer_work = work_of(traffic);
  cfg.compression = c.compression;
  return cfg;
}

UnitSyncConfig elastic_config(const Workload& w, const StrategyCommon& c, GroupingOptions opt,
                              std::int64_t deadline_ps) {
  opt.block = 1;
  UnitSyncConfig cfg = grouped_config("elastic", w, c, opt);
  cfg.elastic = true;
  cfg.deadline_ps = deadline_ps;
  return cfg;
}

UnitSyncConfig adaptive_config(const Workload& w, const StrategyCommon& c, GroupingOptions opt, int block, double high,
                               double low) {
  opt.block = 1;
  UnitSyncConfig cfg = grouped_config("adaptive", w, c, opt);
  cfg.plans[0].label = "layerwise";
  opt.block = block;
  auto traffic = layer_traffics(w, w.shape.grad_dtype, c.compression, c.world);
  std::vector<SyncUnit> coarse = grouped_units(w, traffic, c.world, opt);
  SyncPlan p{"blockwise", {}};
  for (SyncUnit& u : coarse) {
    p.units.push_back(static_cast<int>(cfg.units.size()));
    cfg.units.push_back(std::move(u));
  }
  cfg.plans.push_back(std::move(p));
  cfg.adaptive = {true, 0, 1, high, low};
  return cfg;
}

UnitSyncConfig asc_wfbp_config(const Workload& w, const StrategyCommon& c) {
  UnitSyncConfig cfg;
  cfg.name = "asc_wfbp";
  auto traffic = layer_traffics(w, w.shape.grad_dtype, c.compression, c.world);
  cfg.units = per_layer_units(w, traffic, c.world, 1);
  for (std::size_t u = 0; u < cfg.units.size(); ++u) cfg.units[u].stream = static_cast<int>(u);
  cfg.plans = {all_units("every layer", cfg.units.size())};
  cfg.algorithm = c.algorithm;
  cfg.streams = std::max<int>(1, static_cast<int>(cfg.units.size()));
  cfg.layer_work = work_of(traffic);
  cfg.compression = c.compression;
  return cfg;
}

UnitSyncConfig local_sgd_config(const Workload& w, const StrategyCommon& c, int H) {
  if (H < 1) throw std::invalid_argument("localsgd: the period H must be >= 1");
  UnitSyncConfig cfg;
  cfg.name = "localsgd";
  cfg.parameters = true;
  cfg.trigger = SyncTrigger::AfterStep;
  auto traffic = layer_traffics(w, w.shape.dtype, c.compression, c.world);
  const std::vector<int> layers = synced_layers(w);
  if (!layers.empty()) cfg.units = {make_unit(layers, traffic, c.world)};
  cfg.plans = {SyncPlan{"average", {}}, SyncPlan{"local", {}}};
  if (!layers.empty()) cfg.plans[0].units = {0};  // nothing to average without parameters
  cfg.cycle.assign(static_cast<std::size_t>(H), 1);
  cfg.cycle.back() = 0;
  cfg.algorithm = c.algorithm;
  cfg.streams = 1;
  cfg.layer_work = work_of(traffic);
  cfg.compression = c.compression;
  return cfg;
}

UnitSyncConfig partial_config(const char* name, const Workload& w, const StrategyCommon& c, const Schedule& schedule) {
  UnitSyncConfig cfg;
  cfg.name = name;
  cfg.parameters = true;
  auto traffic = layer_traffics(w, w.shape.dtype, c.compression, c.world);
  cfg.units = per_layer_units(w, traffic, c.world, c.streams);
  cfg.cycle.clear();
  for (std::size_t h = 0; h < schedule.sets.size(); ++h) {
    SyncPlan p{"set " + std::to_string(h), {}};
    // Fill-in positions come first in backward order: their gradients are ready first.
    for (int pos : schedule.fill_in[h]) p.units.push_back(pos);
    for (int pos : schedule.sets[h]) p.units.push_back(pos);
    cfg.plans.push_back(std::move(p));
    cfg.cycle.push_back(static_cast<int>(h));
  }
  cfg.algorithm = c.algorithm;
  cfg.streams = c.streams;
  cfg.layer_work = work_of(traffic);
  cfg.compression = c.compression;
  return cfg;
}

Schedule plsgd_sets(const Workload& w, int H) {
  if (H < 1) throw std::invalid_argument("plsgd: the period H must be >= 1");
  Schedule s;
  for (auto& set : even_sets(static_cast<int>(synced_layers(w).size()), H)) {
    s.sets.push_back(set);
    s.fill_in.emplace_back();
    s.wait_ps.push_back(0);
  }
  return s;
}

}  // namespace trainvp
