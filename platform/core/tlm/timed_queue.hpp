#pragma once
// tlm_utils::peq_with_get's behaviour (notify with a delay; a process sensitive to event() drains
// get_next() until null; equal times come out in notification order) on a binary heap instead of
// a std::multimap: no node allocated and freed per transaction, which showed as malloc, free and
// tree rebalancing once per chunk in the collective engine.
#include <cstdint>
#include <queue>
#include <vector>

#include <systemc>

#include "platform/core/sim_time.hpp"

namespace trainvp {

template <class T>
class TimedQueue {
 public:
  // `item` comes out of get_next() `delay_ps` from now.
  void notify(T* item, std::int64_t delay_ps) { notify(item, delay_ps, seq_++); }
  // The same, with items due at the same time coming out in the order of `seq` (the caller's own
  // numbering: use one or the other on a queue, not both).
  void notify(T* item, std::int64_t delay_ps, std::uint64_t seq) {
    heap_.push({now_ps() + delay_ps, seq, item});
    ev_.notify(ps_time(delay_ps));
  }
  // The next item due now, or null; when none is due, the event is notified for the next one.
  T* get_next() {
    if (heap_.empty()) return nullptr;
    const std::int64_t now = now_ps();
    const Entry& e = heap_.top();
    if (e.at_ps <= now) {
      T* item = e.item;
      heap_.pop();
      return item;
    }
    ev_.notify(ps_time(e.at_ps - now));
    return nullptr;
  }
  const sc_core::sc_event& event() const { return ev_; }

 private:
  struct Entry {
    std::int64_t at_ps;
    std::uint64_t seq;
    T* item;
    bool operator<(const Entry& o) const {  // std::priority_queue pops the greatest: the earliest here
      return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq;
    }
  };
  std::priority_queue<Entry> heap_;
  std::uint64_t seq_ = 0;
  sc_core::sc_event ev_;
};

}  // namespace trainvp
