// The engine's transport failure (docs/faults.md#transport-failure): a transfer whose chunks make
// no progress for give_up_ps fails its collective, as an RDMA QP errors out after retry_cnt
// transport timeouts and NCCL then fails the collective on every rank.
#include <algorithm>
#include <limits>

#include "models/collectives/engine.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

void CollectiveEngine::on_failed(int id, std::function<void(int)> f) {
  if (Live* c = live_.find(id)) c->on_failed = std::move(f);
}

void CollectiveEngine::watch(Live& c, int x) {
  if (c.progress.emplace(x, now_ps()).second) ++watched_;
  // An earlier pending notification wins, and it re-arms for the rest when it fires.
  watchdog_.notify(ps_time(give_up_ps_));
}

// A chunk of transfer x arrived: its clock restarts, or stops with its last chunk.
void CollectiveEngine::progressed(Live& c, int x, bool last) {
  auto it = c.progress.find(x);
  if (it == c.progress.end()) return;
  if (!last) {
    it->second = now_ps();
    return;
  }
  c.progress.erase(it);
  if (--watched_ == 0) watchdog_.cancel();  // nothing in flight must keep the run alive
}

void CollectiveEngine::on_watchdog() {
  const std::int64_t now = now_ps();
  std::vector<int> expired;
  live_.for_each([&](int id, const Live& c) {
    for (const auto& [x, t] : c.progress)
      if (now - t >= give_up_ps_) {
        expired.push_back(id);
        break;
      }
  });
  std::sort(expired.begin(), expired.end());  // deterministic order of the owners' callbacks
  for (int id : expired)
    if (live_.contains(id)) fail(id);
  std::int64_t next = std::numeric_limits<std::int64_t>::max();
  live_.for_each([&](int, const Live& c) {
    for (const auto& [x, t] : c.progress) next = std::min(next, t + give_up_ps_);
  });
  if (next != std::numeric_limits<std::int64_t>::max())
    watchdog_.notify(ps_time(std::max<std::int64_t>(0, next - now)));
}

void CollectiveEngine::fail(int id, bool tell_owner) {
  const std::unique_ptr<Live> taken = live_.take(id);
  Live& c = *taken;
  for (std::size_t ch = 0; ch < c.groups.size(); ++ch) take_held(c, static_cast<int>(ch));  // never to leave
  watched_ -= c.progress.size();
  if (watched_ == 0) watchdog_.cancel();
  failed_.insert(id);
  // Its transfers in motion are abandoned, but their chunks already sent still cross the fabric
  // and drain where they arrive (on_tail): the engine counts as moving until they have.
  if (!c.background) {
    moving_ -= c.moving;
    std::size_t sent = 0;
    if (c.cp->ring()) c.ring_chunks_left.for_each([&sent](std::uint64_t, std::uint32_t n) { sent += n; });
    else
      for (std::uint32_t n : c.chunks_left) sent += n;
    draining_ += sent;
    if (moving() == 0 && c.moving > 0) quiet_.notify(sc_core::SC_ZERO_TIME);
  }
  const std::int64_t now = now_ps();
  CollectiveRecord& rec = this->rec(id);
  rec.failed = true;
  rec.abandoned = !tell_owner;
  rec.end_ps = now;
  const auto& ranks = c.cp->program.ranks;
  for (int position = 0; position < c.cp->program.gpu_ranks; ++position) {
    const auto p = static_cast<std::size_t>(position);
    if (c.joined_at[p] < 0 || c.left[p] == 0) continue;
    if (keep_intervals_) intervals_[static_cast<std::size_t>(ranks[p])].push_back({c.joined_at[p], now});
    if (!call_ended.empty())
      call_ended({id, ranks[p], &rec, ranks.data(), c.cp->program.gpu_ranks, c.joined_at[p], now});
  }
  if (c.layout)
    for (std::size_t i = static_cast<std::size_t>(c.cp->program.gpu_ranks); i < ranks.size(); ++i)
      reducers_[static_cast<std::size_t>(ranks[i])]->release(id);
  ++ctx_.events;
  if (tell_owner && c.on_failed) c.on_failed(id);
}

}  // namespace trainvp
