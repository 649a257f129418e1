#include "platform/report/sync_results.hpp"

#include <cstdio>

#include "platform/core/units.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;


ojson layer_names(const Workload& w, const std::vector<int>& layers) {
  ojson out = ojson::array();
  for (int l : layers) out.push_back(w.layers[static_cast<std::size_t>(l)].name);
  return out;
}

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

void add_sync_results(ojson& j, const Simulation& sim) {
  const auto* us = dynamic_cast<const UnitSync*>(sim.strategy());
  if (!us) return;
  const Scenario& s = sim.scenario();
  const Workload& w = s.workload;
  const SyncConfig& sc = s.training.sync;
  const UnitSyncConfig& cfg = us->config();
  const int n = s.training.iterations, warm = s.training.warmup;
  const double measured = n - warm;
  auto gpus = sim.gpus();
  ojson& sync = j["sync"];
  if (sc.strategy == SyncStrategyKind::LocalSgd || sc.strategy == SyncStrategyKind::Plsgd ||
      sc.strategy == SyncStrategyKind::DreamDdp)
    sync["period"] = sc.period;
  sync["synchronizes"] = cfg.parameters ? "parameters" : "gradients";
  sync["streams"] = cfg.streams;

  ojson units = ojson::array();
  for (std::size_t u = 0; u < cfg.units.size(); ++u) {
    const SyncUnit& unit = cfg.units[u];
    ojson steps = ojson::array();
    for (const SyncStep& st : unit.steps) steps.push_back({{"op", op_name(st.op)}, {"bytes", st.bytes}});
    ojson o = {{"layers", layer_names(w, unit.layers)}, {"bytes", unit.bytes}, {"collectives", steps},
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
                     {"bytes", us->plan_bytes(static_cast<int>(p))}});
  sync["plans"] = plans;

  // Per iteration: the plan, the layers synchronized, the bytes their collectives moved.
  const bool compressed = sc.compression.kind != CompressionKind::None;
  double bytes = 0, plain = 0, flops = 0, extra_s = 0;
  for (int i = 0; i < n; ++i) {
    ojson& it = j["iterations"][static_cast<std::size_t>(i)];
    const int p = us->plan_of(i);
    if (p < 0) continue;
    it["sync_plan"] = cfg.plans[static_cast<std::size_t>(p)].label;
    it["synced_layers"] = layer_names(w, plan_layers(cfg, p));
    it["sync_bytes"] = us->plan_bytes(p);
    if (cfg.adaptive.enabled && us->utilization_of(i) >= 0) it["utilization"] = us->utilization_of(i);
    double extra = 0;
    for (const Gpu* g : gpus) extra += sec(g->iterations()[static_cast<std::size_t>(i)].extra_ps);
    extra /= static_cast<double>(gpus.size());
    if (compressed) it["extra_compute_s"] = extra;
    if (i < warm) continue;
    bytes += static_cast<double>(us->plan_bytes(p));
    plain += static_cast<double>(plan_plain_bytes(cfg, p));
    flops += plan_extra_flops(cfg, p);
    extra_s += extra;
  }
  sync["bytes_per_iteration"] = bytes / measured;
  if (compressed) {
    int layers = 0;
    for (const PhaseWork& pw : cfg.layer_work) layers += pw.flops > 0 || pw.bytes > 0 || pw.kernels > 0;
    ojson c = {{"kind", compression_name(sc.compression.kind)}};
    if (sc.compression.kind == CompressionKind::TopK) c["ratio"] = sc.compression.ratio;
    if (sc.compression.kind == CompressionKind::PowerSgd) c["rank"] = sc.compression.rank;
    c["min_bytes"] = sc.compression.min_bytes;
    c["compressed_layers"] = layers;
    c["uncompressed_bytes_per_iteration"] = plain / measured;
    c["bytes_per_iteration"] = bytes / measured;
    c["extra_flops_per_iteration"] = flops / measured;
    c["extra_compute_s"] = extra_s / measured;
    sync["compression"] = c;
  }

  if (const DreamDdpPlan* d = sim.dreamddp()) {
    const SyncProfile& prof = d->profile;
    ojson sets = ojson::array();
    const int H = static_cast<int>(d->schedule.sets.size());
    for (int h = 0; h < H; ++h) {
      std::vector<int> layers, fill;
      for (int pos : d->schedule.sets[static_cast<std::size_t>(h)]) layers.push_back(prof.layers[static_cast<std::size_t>(pos)]);
      for (int pos : d->schedule.fill_in[static_cast<std::size_t>(h)]) fill.push_back(prof.layers[static_cast<std::size_t>(pos)]);
      double dur = 0, exposed = 0;
      int count = 0;
      for (int i = warm; i < n; ++i) {
        if (i % H != h) continue;
        const ojson& it = j["iterations"][static_cast<std::size_t>(i)];
        dur += it["duration_s"].get<double>();
        exposed += it["exposed_comm_s"].get<double>();
        ++count;
      }
      ojson o = {{"set", h},
                 {"layers", layer_names(w, layers)},
                 {"fill_in", layer_names(w, fill)},
                 {"predicted_wait_s", sec(d->schedule.wait_ps[static_cast<std::size_t>(h)])},
                 {"predicted_iteration_time_s", sec(d->predicted_ps[static_cast<std::size_t>(h)])}};
      o["simulated_iteration_time_s"] = count ? ojson(dur / count) : ojson(nullptr);
      o["simulated_exposed_comm_s"] = count ? ojson(exposed / count) : ojson(nullptr);
      sets.push_back(o);
    }
    ojson players = ojson::array();
    for (std::size_t l = 0; l < w.layers.size(); ++l)
      players.push_back({{"name", w.layers[l].name}, {"bwd_s", sec(prof.bwd_ps[l])}, {"comm_s", sec(prof.comm_ps[l])}});
    sync["schedule"] = {{"period", H},
                        {"fill_in", sc.fill_in},
                        {"total_wait_s", sec(d->schedule.total_wait_ps)},
                        {"predicted_iteration_time_s", sec(d->predicted_mean_ps)},
                        {"simulated_iteration_time_s", j["iteration_time_s"]},
                        {"sets", sets},
                        {"profile", {{"source", prof.source},
                                     {"iteration_compute_s", sec(prof.iteration_compute_ps)},
                                     {"layers", players}}}};
  }
}

std::string sync_summary(const ojson& j, const Simulation& sim) {
  const auto* us = dynamic_cast<const UnitSync*>(sim.strategy());
  if (!us) return "";
  const UnitSyncConfig& cfg = us->config();
  const Workload& w = sim.scenario().workload;
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf, "  sync             %s: %zu units, %d stream%s, %.3f MB of collectives per iteration\n",
                cfg.name.c_str(), cfg.units.size(), cfg.streams, cfg.streams == 1 ? "" : "s",
                j["sync"]["bytes_per_iteration"].get<double>() / 1e6);
  out += buf;
  if (j["sync"].contains("compression")) {
    const ojson& c = j["sync"]["compression"];
    std::snprintf(buf, sizeof buf, "  compression      %s: %d layers, %.3f MB instead of %.3f MB, %s extra compute per iteration\n",
                  c["kind"].get<std::string>().c_str(), c["compressed_layers"].get<int>(),
                  c["bytes_per_iteration"].get<double>() / 1e6, c["uncompressed_bytes_per_iteration"].get<double>() / 1e6,
                  format_time_s(c["extra_compute_s"].get<double>()).c_str());
    out += buf;
  }
  if (const DreamDdpPlan* d = sim.dreamddp()) {
    const SyncProfile& prof = d->profile;
    std::snprintf(buf, sizeof buf, "  schedule         H = %zu, profile %s; predicted %s per iteration, simulated %s\n",
                  d->schedule.sets.size(), prof.source.c_str(), format_time_s(sec(d->predicted_mean_ps)).c_str(),
                  format_time_s(j["iteration_time_s"].get<double>()).c_str());
    out += buf;
    for (std::size_t h = 0; h < d->schedule.sets.size(); ++h) {
      const auto& set = d->schedule.sets[h];
      std::string what = "nothing";
      if (!set.empty()) {
        what = w.layers[static_cast<std::size_t>(prof.layers[static_cast<std::size_t>(set.front())])].name;
        if (set.size() > 1)
          what += " .. " + w.layers[static_cast<std::size_t>(prof.layers[static_cast<std::size_t>(set.back())])].name;
        what += " (" + std::to_string(set.size()) + " layer" + (set.size() == 1 ? "" : "s") + ")";
      }
      if (!d->schedule.fill_in[h].empty()) what += " + " + std::to_string(d->schedule.fill_in[h].size()) + " fill-in";
      std::snprintf(buf, sizeof buf, "    set %zu: %s, predicted wait %s\n", h, what.c_str(),
                    format_time_s(sec(d->schedule.wait_ps[h])).c_str());
      out += buf;
    }
  }
  return out;
}

}  // namespace trainvp
