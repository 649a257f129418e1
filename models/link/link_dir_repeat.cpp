// What steady-state fast-forward asks of a link direction: is it drained, what has it counted,
// and the counts of skipped iterations (docs/performance.md#steady-state-fast-forward).
#include "models/link/link_dir.hpp"

#include <algorithm>

namespace trainvp {

bool LinkDir::idle() const {
  if (busy_ || on_wire_ || queued_bytes_ || pending_in_ || delivering_ || unaccepted_ > 0) return false;
  if (!express_.empty() || !propagating_.empty() || !arrived_.empty()) return false;
  if (pfc_ && !pfc_->idle()) return false;
  for (const FlowQueue& f : flows_)
    if (!f.empty()) return false;
  return true;
}

// Open queue and pause intervals count up to now_ps, so that totals taken at equal points of two
// periods differ by exactly one period's worth. Busy time does not: a chunk on the wire counts
// when it is serialized, with its bytes, so that a period's busy time is its chunks' wire time
// even when the snapshots fall at slightly different points of their periods (fast-forward
// tolerates that; a part of a chunk counted would be added once per skipped period: #45,
// fuzz-runs campaign 108's scenario 3253).
LinkDirTotals LinkDir::totals(std::int64_t now_ps) const {
  LinkDirTotals t{stats_,
                  queue_byte_ps_ + static_cast<double>(queued_bytes_) * static_cast<double>(now_ps - queue_since_)};
  if (paused_since_ >= 0) t.stats.paused_ps += now_ps - paused_since_;
  if (pfc_) t.stats.pfc.paused_ps = pfc_->paused_ps(now_ps);
  return t;
}

void LinkDir::add_repeats(const LinkDirTotals& from, const LinkDirTotals& to, int times, std::int64_t skip_from_ps,
                          std::int64_t skip_to_ps) {
  const auto n = static_cast<std::uint64_t>(times);
  const LinkDirStats &a = from.stats, &b = to.stats;
  stats_.chunks += n * (b.chunks - a.chunks);
  stats_.payload_bytes += n * (b.payload_bytes - a.payload_bytes);
  stats_.wire_bytes += n * (b.wire_bytes - a.wire_bytes);
  stats_.busy_ps += times * (b.busy_ps - a.busy_ps);
  series_.spread(skip_from_ps, skip_to_ps, static_cast<double>(times * (b.busy_ps - a.busy_ps)));
  stats_.paused_ps += times * (b.paused_ps - a.paused_ps);
  stats_.lost_packets += n * (b.lost_packets - a.lost_packets);
  stats_.retransmitted_bytes += n * (b.retransmitted_bytes - a.retransmitted_bytes);
  stats_.background_bytes += n * (b.background_bytes - a.background_bytes);
  stats_.pauses += n * (b.pauses - a.pauses);
  PfcStats& f = stats_.pfc;  // peaks kept, as the queue's
  f.pause_frames += n * (b.pfc.pause_frames - a.pfc.pause_frames);
  f.resume_frames += n * (b.pfc.resume_frames - a.pfc.resume_frames);
  f.paused_ps += times * (b.pfc.paused_ps - a.pfc.paused_ps);
  f.headroom_overflow_bytes += n * (b.pfc.headroom_overflow_bytes - a.pfc.headroom_overflow_bytes);
  queue_byte_ps_ += times * (to.queue_byte_ps - from.queue_byte_ps);
}

}  // namespace trainvp
