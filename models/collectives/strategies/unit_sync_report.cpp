// What results.json says about a UnitSync strategy: its units and plans, per iteration the plan
// and the layers and bytes it synchronized, and the traffic and work compression changed.
#include "models/collectives/strategies/unit_sync.hpp"

#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

std::vector<int> plan_layers(const UnitSyncConfig& cfg, int plan) {
  std::vector<int> out;
  for (int u : cfg.plans[static_cast<std::size_t>(plan)].units)
    for (int l : cfg.units[static_cast<std::size_t>(u)].layers) out.push_back(l);
  return out;
}

std::uint64_t plan_plain_bytes(const UnitSyncConfig& cfg, int plan) {
  std::uint64_t b = 0;
  for (int u : cfg.plans[static_cast<std::size_t>(plan)].units) b += cfg.units[static_cast<std::size_t>(u)].bytes;
  return b;
}

double plan_extra_flops(const UnitSyncConfig& cfg, int plan) {
  double f = 0;
  for (int l : plan_layers(cfg, plan)) f += cfg.layer_work[static_cast<std::size_t>(l)].flops;
  return f;
}

}  // namespace

nlohmann::ordered_json layer_names(const Workload& w, const std::vector<int>& layers) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int l : layers) out.push_back(w.layers[static_cast<std::size_t>(l)].name);
  return out;
}

void UnitSync::report(ojson& results) const {
  const Workload& w = workload_;
  const UnitSyncConfig& cfg = cfg_;
  ojson& iterations = results["iterations"];
  const int n = iterations_;
  int warm = 0;
  for (const ojson& it : iterations) warm += it["warmup"].get<bool>();
  const double measured = n - warm;
  ojson& sync = results["sync"];
  sync["synchronizes"] = cfg.parameters ? "parameters" : "gradients";
  sync["streams"] = cfg.streams;

  ojson units = ojson::array();
  for (std::size_t u = 0; u < cfg.units.size(); ++u) {
    const SyncUnit& unit = cfg.units[u];
    ojson steps = ojson::array();
    for (const SyncStep& st : unit.steps) steps.push_back({{"op", op_name(st.op)}, {"bytes", st.bytes}});
    ojson o = {{"layers", layer_names(w, unit.layers)},
               {"bytes", unit.bytes},
               {"collectives", steps},
               {"stream", unit.stream}};
    if (!unit.size_class.empty()) o["class"] = unit.size_class;
    units.push_back(o);
  }
  sync["units"] = units;
  ojson plans = ojson::array();
  for (std::size_t p = 0; p < cfg.plans.size(); ++p)
    plans.push_back({{"label", cfg.plans[p].label},
                     {"units", cfg.plans[p].units},
                     {"layers", plan_layers(cfg, static_cast<int>(p)).size()},
                     {"bytes", plan_bytes(static_cast<int>(p))}});
  sync["plans"] = plans;

  // Per iteration: the plan, the layers synchronized, the bytes their collectives moved.
  const CompressionConfig& cc = cfg.compression;
  const bool compressed = cc.kind != CompressionKind::None;
  double bytes = 0, plain = 0, flops = 0, extra_s = 0;
  for (int i = 0; i < n; ++i) {
    ojson& it = iterations[static_cast<std::size_t>(i)];
    const int p = plan_of(i);
    if (p < 0) continue;
    it["sync_plan"] = cfg.plans[static_cast<std::size_t>(p)].label;
    it["synced_layers"] = layer_names(w, plan_layers(cfg, p));
    it["sync_bytes"] = plan_bytes(p);
    if (cfg.adaptive.enabled && utilization_of(i) >= 0) it["utilization"] = utilization_of(i);
    double extra = 0;
    for (const Gpu* g : gpus_) extra += sec(g->iterations()[static_cast<std::size_t>(i)].extra_ps);
    extra /= static_cast<double>(gpus_.size());
    if (compressed) it["extra_compute_s"] = extra;
    if (i < warm) continue;
    bytes += static_cast<double>(plan_bytes(p));
    plain += static_cast<double>(plan_plain_bytes(cfg, p));
    flops += plan_extra_flops(cfg, p);
    extra_s += extra;
  }
  sync["bytes_per_iteration"] = bytes / measured;
  if (compressed) {
    int layers = 0;
    for (const PhaseWork& pw : cfg.layer_work) layers += pw.flops > 0 || pw.bytes > 0 || pw.kernels > 0;
    ojson c = {{"kind", compression_name(cc.kind)}};
    if (cc.kind == CompressionKind::TopK) c["ratio"] = cc.ratio;
    if (cc.kind == CompressionKind::PowerSgd) c["rank"] = cc.rank;
    c["min_bytes"] = cc.min_bytes;
    c["compressed_layers"] = layers;
    c["uncompressed_bytes_per_iteration"] = plain / measured;
    c["bytes_per_iteration"] = bytes / measured;
    c["extra_flops_per_iteration"] = flops / measured;
    c["extra_compute_s"] = extra_s / measured;
    sync["compression"] = c;
  }
  if (cfg.elastic) elastic_report(results);
  if (cfg.retry.enabled) retry_report(results);
}

}  // namespace trainvp
