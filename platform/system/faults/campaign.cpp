#include "platform/system/faults/campaign.hpp"

#include <algorithm>
#include <cmath>

#include "platform/config/fault_generator.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/glob.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"

namespace trainvp {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Draws from one stream: uniform in [0, 1) from the top 53 bits (portable, unlike the standard
// distributions, whose algorithms differ between libraries).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
double exponential(std::mt19937_64& rng, double mean) { return -mean * std::log1p(-uniform(rng)); }
double standard_normal(std::mt19937_64& rng) {  // Box-Muller
  const double u1 = 1.0 - uniform(rng), u2 = uniform(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

}  // namespace

std::vector<std::vector<std::string>> fault_generator_targets(const FaultGeneratorConfig& cfg, const Scenario& s,
                                                              const Fabric& fabric) {
  std::vector<std::vector<std::string>> out(cfg.kinds.size());
  for (std::size_t i = 0; i < cfg.kinds.size(); ++i) {
    const FaultGeneratorKind& g = cfg.kinds[i];
    if (g.rate_per_h <= 0) continue;
    const std::string scope = g.scope.empty() && g.targets != GeneratorTargets::Link ? "*" : g.scope;
    std::vector<std::string>& t = out[i];
    if (g.targets == GeneratorTargets::Gpu) {
      for (const GpuInstance& gi : s.cluster.gpus)
        if (glob_match(scope, gi.name)) t.push_back(gi.name);
    } else if (g.targets == GeneratorTargets::Host) {
      for (int n = 0; n < s.cluster.nodes; ++n)
        for (int l = 0; l < s.cluster.gpus_per_node; ++l)
          if (glob_match(scope, s.cluster.gpus[static_cast<std::size_t>(n * s.cluster.gpus_per_node + l)].name)) {
            t.push_back("node" + std::to_string(n) + ".gpu*");
            break;
          }
    } else if (g.targets == GeneratorTargets::NicPair) {
      for (const FabricDevice& d : fabric.devices())
        if (d.kind == DeviceKind::Nic && glob_match(scope.empty() ? "*" : scope, d.name)) t.push_back(d.name);
      if (t.size() == 1) t.clear();  // a pair needs two NICs
    } else {
      for (const FabricLink& l : fabric.links())
        if (scope.empty() ? l.kind == LinkKind::Ethernet : link_matches(fabric, l, scope)) t.push_back(l.name);
    }
    if (t.empty()) {
      const std::string where = ptr_join(ptr_join("/fault_generator", g.name), "scope");
      if (g.targets == GeneratorTargets::NicPair)
        fail_expected(where, "a NIC name or glob matching at least two NICs (an event runs from one to another)",
                      scope.empty() ? json("(default: every NIC)") : json(scope));
      if (g.targets != GeneratorTargets::Link)
        fail_expected(where, "a GPU name or glob matching at least one of node0.gpu0 .. " + s.cluster.gpus.back().name,
                      json(scope));
      fail_expected(where,
                    "a link or device name or glob matching at least one link (`trainvp describe topology` lists "
                    "them)",
                    scope.empty() ? json("(default: every network link)") : json(scope));
    }
  }
  return out;
}

json generate_faults(const FaultGeneratorConfig& cfg, const std::vector<std::vector<std::string>>& targets) {
  struct Event {
    std::int64_t start_ps;
    std::size_t kind, seq;
    json fault;
  };
  std::vector<Event> events;
  for (std::size_t i = 0; i < cfg.kinds.size(); ++i) {
    const FaultGeneratorKind& g = cfg.kinds[i];
    if (g.rate_per_h <= 0) continue;
    // One stream per kind and quantity: changing a kind's severity mix or scope leaves its
    // arrival times alone, and adding a kind changes nothing of the others.
    auto stream = [&](const char* what) { return seeded_stream(cfg.seed, "fault_generator:" + g.name + ":" + what); };
    auto arrivals = stream("arrivals"), durations = stream("durations"), severities = stream("severity"),
         picks = stream("targets");
    const double gap_s = 3600.0 / g.rate_per_h, mean_s = static_cast<double>(g.mean_ps) * 1e-12;
    const double mu = std::log(mean_s) - g.sigma * g.sigma / 2;  // lognormal with mean mean_s
    double t_s = static_cast<double>(cfg.start_ps) * 1e-12;
    for (std::size_t seq = 0;; ++seq) {
      t_s += exponential(arrivals, gap_s);
      const std::int64_t start_ps = static_cast<std::int64_t>(std::floor(t_s * 1e6)) * 1000000;
      if (t_s * 1e12 >= static_cast<double>(cfg.horizon_ps) || start_ps >= cfg.horizon_ps) break;
      double d_s = mean_s;
      if (g.distribution == DurationDist::Exponential) d_s = exponential(durations, mean_s);
      if (g.distribution == DurationDist::Lognormal) d_s = std::exp(mu + g.sigma * standard_normal(durations));
      const double u = uniform(severities);
      int sev = -1;
      double below = 0;
      for (int k = 0; k < kSeverities && sev < 0; ++k)
        if (below += g.mix[k]; g.mix[k] > 0 && u < below) sev = k;
      if (sev < 0)  // rounding left u above the sum: the last class that can occur
        for (sev = kSeverities - 1; sev > 0 && g.mix[sev] <= 0;) --sev;
      const std::vector<std::string>& cand = targets[i];
      const std::size_t pick = std::min(cand.size() - 1, static_cast<std::size_t>(uniform(picks) * cand.size()));
      std::int64_t dur_us = std::max<std::int64_t>(1, std::llround(d_s * 1e6));
      dur_us = std::max(dur_us, (g.min_duration_ps[sev] + 999999) / 1000000);
      json f = g.levels[sev];
      f["kind"] = g.name;
      if (g.targets == GeneratorTargets::NicPair) {
        // A destination other than the source, uniformly: draw among the others and skip the source.
        std::size_t to = std::min(cand.size() - 2, static_cast<std::size_t>(uniform(picks) * (cand.size() - 1)));
        if (to >= pick) ++to;
        f["source"] = cand[pick];
        f["destination"] = cand[to];
      } else {
        f["target"] = cand[pick];
      }
      f["start"] = time_text(start_ps);
      f["duration"] = time_text(dur_us * 1000000);
      f["origin"] = "generator";
      f["severity"] = severity_name(sev);
      events.push_back({start_ps, i, seq, std::move(f)});
    }
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.start_ps != b.start_ps) return a.start_ps < b.start_ps;
    return a.kind != b.kind ? a.kind < b.kind : a.seq < b.seq;
  });
  json out = json::array();
  for (Event& e : events) out.push_back(std::move(e.fault));
  return out;
}

}  // namespace trainvp
