#include "models/link/pfc.hpp"

#include <algorithm>

#include "models/link/chunk.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

void PfcPort::arrive(std::uint64_t bytes, std::int64_t now_ps) {
  const std::uint64_t before = held_;
  held_ += bytes;
  if (held_ > stats_.peak_ingress_bytes) stats_.peak_ingress_bytes = held_;
  // Beyond XOFF + headroom a real switch drops; we keep the bytes (lossless) and count them.
  const std::uint64_t limit = p_.xoff + p_.headroom;
  if (held_ > limit) stats_.headroom_overflow_bytes += held_ - std::max(before, limit);
  if (p_.pause && !xoff_sent_ && held_ > p_.xoff) send(true, now_ps);
}

void PfcPort::leave(std::uint64_t bytes, std::int64_t now_ps) {
  held_ -= bytes;
  if (xoff_sent_ && held_ <= p_.xon) send(false, now_ps);
}

void PfcPort::send(bool pause, std::int64_t now_ps) {
  xoff_sent_ = pause;
  ++(pause ? stats_.pause_frames : stats_.resume_frames);
  if (pending_.empty()) wake_.notify(ps_time(p_.delay_ps));
  pending_.push_back({now_ps + p_.delay_ps, pause});
}

void PfcPort::apply_due(std::int64_t now_ps) {
  while (!pending_.empty() && pending_.front().due_ps <= now_ps) {
    const bool pause = pending_.front().pause;
    pending_.pop_front();
    if (pause && !paused_) paused_since_ = now_ps;
    if (!pause && paused_) stats_.paused_ps += now_ps - paused_since_, paused_since_ = -1;
    paused_ = pause;
  }
  // Another notification of the shared event may have overridden ours: re-arm for the next frame.
  if (!pending_.empty()) wake_.notify(ps_time(pending_.front().due_ps - now_ps));
}

void pfc_leave(ChunkExt& c, std::uint64_t bytes, std::int64_t now_ps) {
  if (!c.pfc) return;
  c.pfc->leave(bytes, now_ps);
  c.pfc = nullptr;
}

}  // namespace trainvp
