// sc_spawn is declared only with dynamic processes on, before SystemC is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/core/calendar.hpp"

#include <algorithm>

#include "platform/core/sim_time.hpp"

namespace trainvp {

EventCalendar::EventCalendar() {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.set_sensitivity(&event_);
  o.dont_initialize();
  sc_core::sc_spawn([this] { run(); }, nullptr, &o);  // unnamed: unique in any hierarchy
}

void EventCalendar::at(std::int64_t t_ps, Client* c, std::uint32_t kind, std::uint32_t tag) {
  std::uint32_t& slot = by_time_[static_cast<std::uint64_t>(t_ps)];  // the bucket + 1; 0: none yet
  if (slot == 0) {
    std::uint32_t b;
    if (free_.empty()) {
      b = static_cast<std::uint32_t>(buckets_.size());
      buckets_.push_back({t_ps, {}});
    } else {
      b = free_.back();
      free_.pop_back();
      buckets_[b].t = t_ps;
    }
    slot = b + 1;
    times_.push_back({t_ps, b});
    std::push_heap(times_.begin(), times_.end(), later);
  }
  buckets_[slot - 1].entries.push_back({c, kind, tag});
  ++pending_;
  if (!running_ && t_ps < armed_) arm(now_ps());
}

// Notifies event_ for the earliest time; an earlier notification overrides a pending later one.
void EventCalendar::arm(std::int64_t now) {
  armed_ = times_.front().t;
  event_.notify(ps_time(std::max<std::int64_t>(armed_ - now, 0)));
}

void EventCalendar::run() {
  const std::int64_t now = now_ps();
  running_ = true;
  while (!times_.empty() && times_.front().t <= now) {
    const std::uint32_t b = times_.front().bucket;
    // By index: an entry made for now while this runs joins this bucket, and may reallocate it.
    for (std::size_t i = 0; i < buckets_[b].entries.size(); ++i) {
      const Entry e = buckets_[b].entries[i];
      --pending_;
      e.c->on_due(e.kind, e.tag);
    }
    by_time_.erase(static_cast<std::uint64_t>(buckets_[b].t));
    buckets_[b].entries.clear();
    free_.push_back(b);
    std::pop_heap(times_.begin(), times_.end(), later);
    times_.pop_back();
  }
  running_ = false;
  armed_ = std::numeric_limits<std::int64_t>::max();
  if (!times_.empty()) arm(now);
}

}  // namespace trainvp
