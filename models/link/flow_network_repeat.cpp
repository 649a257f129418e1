// What steady-state fast-forward asks of the flow network: each link direction's counters at a
// time, and the counts of skipped iterations (docs/performance.md#steady-state-fast-forward).
// Flows in flight at a skip keep their own progress, as chunks in flight do in packet fidelity:
// the skipped ranks resume later, and nothing waits for a flow it would not have waited for.
#include <algorithm>
#include <cmath>

#include "models/link/flow_network.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

LinkDirTotals FlowNetwork::totals(int link, std::int64_t now_ps) const {
  const Link& k = links_[static_cast<std::size_t>(link)];
  LinkDirTotals t{k.stats, 0.0};
  if (kept(k)) {  // a kept group's ended steps are not on the link yet: added here as flush_group would
    const Flow& g = flows_[static_cast<std::size_t>(k.flows[0].flow)];
    const double share = k.cap > 0 ? std::min(1.0, g.rate / k.cap) : 0.0;
    double busy = k.busy_ps;
    const std::size_t n = g.ended.size() / 2;
    if (share > 0)
      for (std::size_t i = 0; i < n; ++i)
        if (g.ended[2 * i + 1] != g.ended[2 * i])
          busy += share * static_cast<double>(g.ended[2 * i + 1] - g.ended[2 * i]);
    std::uint64_t steps = n;
    double open = g.live ? share * static_cast<double>(now_ps - g.step_from) : 0.0;
    if (g.ahead > 0) {  // running ahead: the steps that ended by now, and the one on the wire
      const std::int64_t period = g.drain_ps + g.latency + g.hop_ps, since_first = now_ps - g.step_from;
      const std::int64_t ran =
          since_first < g.drain_ps ? 0 : std::min<std::int64_t>(g.ahead + 1, (since_first - g.drain_ps) / period + 1);
      steps += static_cast<std::uint64_t>(ran);
      if (share > 0 && g.drain_ps > 0)  // step by step, as the ended steps' loop above adds them
        for (std::int64_t j = 0; j < ran; ++j) busy += share * static_cast<double>(g.drain_ps);
      const std::int64_t next = g.step_from + ran * period;
      open = ran <= g.ahead && next <= now_ps ? share * static_cast<double>(now_ps - next) : 0.0;
    }
    step_counts(k, g, t.stats, steps);
    t.stats.busy_ps = std::llround(busy + open);
    return t;
  }
  const double open = (k.cap > 0 ? std::min(1.0, k.load / k.cap) : 0.0) * static_cast<double>(now_ps - k.since);
  t.stats.busy_ps = std::llround(k.busy_ps + open);
  return t;
}

void FlowNetwork::add_repeats(int link, const LinkDirTotals& from, const LinkDirTotals& to, int times,
                              std::int64_t skip_from_ps, std::int64_t skip_to_ps) {
  Link& k = links_[static_cast<std::size_t>(link)];
  if (kept(k) && flows_[static_cast<std::size_t>(k.flows[0].flow)].ahead > 0)
    end_ahead(k.flows[0].flow, now_ps(), true);
  if (kept(k)) flush_group(flows_[static_cast<std::size_t>(k.flows[0].flow)]);  // its steps came first
  const auto n = static_cast<std::uint64_t>(times);
  const LinkDirStats &a = from.stats, &b = to.stats;
  k.stats.chunks += n * (b.chunks - a.chunks);
  k.stats.payload_bytes += n * (b.payload_bytes - a.payload_bytes);
  k.stats.wire_bytes += n * (b.wire_bytes - a.wire_bytes);
  k.stats.background_bytes += n * (b.background_bytes - a.background_bytes);
  const double skipped = static_cast<double>(times) * static_cast<double>(b.busy_ps - a.busy_ps);
  k.busy_ps += skipped;
  flush_pending(k);
  k.dir->busy_series().spread(skip_from_ps, skip_to_ps, skipped);
}

}  // namespace trainvp
