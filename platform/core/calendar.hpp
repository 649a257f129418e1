#pragma once
// One timed-notification queue for many small objects that each wake often (link directions).
//
// Why: SystemC wakes a method process per notification, and at 1,024 ranks the kernel's cost is a
// cache miss on each woken process and on the timed events its heap compares through pointers
// (docs/performance.md#round-3-the-models-own-event-calendar). Here a notification is 16 bytes in
// its time's bucket, and the due ones are dispatched by a single method process straight to their
// client, which is touched anyway.
//
// Order: entries run by time, then in the order they were made (first come, first served), so
// same-time events have a defined order of their own rather than the kernel heap's. An entry made
// for the current time while the calendar runs is dispatched in that same run; otherwise the
// calendar's event is notified for the next delta cycle, as a zero-delay notify would be.
// A client drops a superseded entry itself (a tag it compares), as there is no cancel.
#include <cstdint>
#include <limits>
#include <vector>

#include <systemc>

#include "platform/core/flat_map.hpp"

namespace trainvp {

class EventCalendar {
 public:
  struct Client {
    virtual void on_due(std::uint32_t kind, std::uint32_t tag) = 0;
    virtual ~Client() = default;
  };

  // Spawns the dispatching method process: construct during elaboration.
  EventCalendar();
  EventCalendar(const EventCalendar&) = delete;
  EventCalendar& operator=(const EventCalendar&) = delete;

  // Calls c->on_due(kind, tag) at `t_ps` (not before the current time).
  void at(std::int64_t t_ps, Client* c, std::uint32_t kind, std::uint32_t tag = 0);
  std::size_t pending() const { return pending_; }

 private:
  struct Entry {
    Client* c;
    std::uint32_t kind, tag;
  };
  // Entries are kept per distinct time, in the order they were made: a collective's ranks act in
  // lock-step, so many entries share a time and a bucket costs one hash lookup where a heap of
  // entries costs a logarithm of cache misses.
  struct Bucket {
    std::int64_t t;
    std::vector<Entry> entries;
  };
  struct Time {
    std::int64_t t;
    std::uint32_t bucket;
  };
  static bool later(const Time& a, const Time& b) { return a.t > b.t; }
  void run();
  void arm(std::int64_t now);

  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> free_;   // buckets not in use (capacity kept)
  std::vector<Time> times_;           // min-heap of the buckets' times
  FlatMap64<std::uint32_t> by_time_;  // a time's bucket + 1
  std::size_t pending_ = 0;
  std::int64_t armed_ = std::numeric_limits<std::int64_t>::max();  // when event_ is notified for
  bool running_ = false;
  sc_core::sc_event event_;
};

}  // namespace trainvp
