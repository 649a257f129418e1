// What steady-state fast-forward asks of the flow network: each link direction's counters at a
// time, and the counts of skipped iterations (docs/performance.md#steady-state-fast-forward).
// Flows in flight at a skip keep their own progress, as chunks in flight do in packet fidelity:
// the skipped ranks resume later, and nothing waits for a flow it would not have waited for.
#include <algorithm>
#include <cmath>

#include "models/link/flow_network.hpp"

namespace trainvp {

LinkDirTotals FlowNetwork::totals(int link, std::int64_t now_ps) const {
  const Link& k = links_[static_cast<std::size_t>(link)];
  LinkDirTotals t{k.stats, 0.0};
  const double open = (k.cap > 0 ? std::min(1.0, k.load / k.cap) : 0.0) * static_cast<double>(now_ps - k.since);
  t.stats.busy_ps = std::llround(k.busy_ps + open);
  return t;
}

void FlowNetwork::add_repeats(int link, const LinkDirTotals& from, const LinkDirTotals& to, int times,
                              std::int64_t skip_from_ps, std::int64_t skip_to_ps) {
  Link& k = links_[static_cast<std::size_t>(link)];
  const auto n = static_cast<std::uint64_t>(times);
  const LinkDirStats &a = from.stats, &b = to.stats;
  k.stats.chunks += n * (b.chunks - a.chunks);
  k.stats.payload_bytes += n * (b.payload_bytes - a.payload_bytes);
  k.stats.wire_bytes += n * (b.wire_bytes - a.wire_bytes);
  k.stats.background_bytes += n * (b.background_bytes - a.background_bytes);
  const double skipped = static_cast<double>(times) * static_cast<double>(b.busy_ps - a.busy_ps);
  k.busy_ps += skipped;
  k.dir->busy_series().spread(skip_from_ps, skip_to_ps, skipped);
}

}  // namespace trainvp
