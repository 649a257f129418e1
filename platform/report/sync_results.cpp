#include "platform/report/sync_results.hpp"

#include <algorithm>
#include <cstdio>

#include "models/collectives/strategies/unit_sync.hpp"
#include "platform/core/units.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/system/sync/registry.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

}  // namespace

void add_sync_results(ojson& j, const Simulation& sim) {
  j["sync"] = {{"strategy", sim.strategy() ? sim.strategy()->name() : "none"}};
  if (!sim.strategy()) return;
  const Scenario& s = sim.scenario();
  const SyncConfig& sc = s.training.sync;
  const int n = s.training.iterations, warm = s.training.warmup;
  ojson& sync = j["sync"];
  if (sync_strategy(sc.strategy).period) sync["period"] = sc.period;
  sim.strategy()->report(j);

  if (const DreamDdpPlan* d = sim.dreamddp()) {
    const Workload& w = *d->workload;  // hybrid parallelism: the first stage's layers
    const SyncProfile& prof = d->profile;
    ojson sets = ojson::array();
    const int H = static_cast<int>(d->schedule.sets.size());
    for (int h = 0; h < H; ++h) {
      std::vector<int> layers, fill;
      for (int pos : d->schedule.sets[static_cast<std::size_t>(h)])
        layers.push_back(prof.layers[static_cast<std::size_t>(pos)]);
      for (int pos : d->schedule.fill_in[static_cast<std::size_t>(h)])
        fill.push_back(prof.layers[static_cast<std::size_t>(pos)]);
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
    sync["schedule"] = {
        {"period", H},
        {"fill_in", sc.fill_in},
        {"total_wait_s", sec(d->schedule.total_wait_ps)},
        {"predicted_iteration_time_s", sec(d->predicted_mean_ps)},
        {"simulated_iteration_time_s", j["iteration_time_s"]},
        {"sets", sets},
        {"profile",
         {{"source", prof.source}, {"iteration_compute_s", sec(prof.iteration_compute_ps)}, {"layers", players}}}};
  }
}

std::string sync_summary(const ojson& j, const Simulation& sim) {
  const ojson& sync = j["sync"];
  if (!sync.contains("units")) return "";  // strategies without units (none, ddp) have no summary lines
  const int streams = sync["streams"].get<int>();
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf,
                "  sync             %s: %zu units, %d stream%s, %.3f MB of collectives per iteration\n",
                sync["strategy"].get<std::string>().c_str(), sync["units"].size(), streams, streams == 1 ? "" : "s",
                sync["bytes_per_iteration"].get<double>() / 1e6);
  out += buf;
  if (j["sync"].contains("compression")) {
    const ojson& c = j["sync"]["compression"];
    std::snprintf(buf, sizeof buf,
                  "  compression      %s: %d layers, %.3f MB instead of %.3f MB, %s extra compute per iteration\n",
                  c["kind"].get<std::string>().c_str(), c["compressed_layers"].get<int>(),
                  c["bytes_per_iteration"].get<double>() / 1e6,
                  c["uncompressed_bytes_per_iteration"].get<double>() / 1e6,
                  format_time_s(c["extra_compute_s"].get<double>()).c_str());
    out += buf;
  }
  if (sync.contains("elastic")) {
    const ojson& e = sync["elastic"];
    int late = 0, worst = 0, unmerged = 0;
    for (const ojson& u : e["units"]) {
      late += u["late_iterations"].get<int>() > 0;
      worst = std::max(worst, u["staleness_max"].get<int>());
      unmerged += u["unmerged"].get<int>();
    }
    const std::string timeout = e["timeout_s"].is_string() ? "none" : format_time_s(e["timeout_s"].get<double>());
    std::snprintf(
        buf, sizeof buf,
        "  elastic          timeout %s: %d weak-sync unit-iterations (%d units), staleness up to %d, %d unmerged\n",
        timeout.c_str(), e["weak_sync_unit_iterations"].get<int>(), late, worst, unmerged);
    out += buf;
  }
  if (const DreamDdpPlan* d = sim.dreamddp()) {
    const Workload& w = *d->workload;
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
