#pragma once
// Timeline in the Chrome/Perfetto trace-event JSON format (ui.perfetto.dev and chrome://tracing
// open it). A track is a (process, thread) pair: a node is a process, a GPU or NIC a thread.
#include <cstdint>
#include <cstddef>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp {

class TraceRecorder {
 public:
  explicit TraceRecorder(bool enabled = true) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  // At most `n` events (slices and instants; track names do not count) are kept: the first n
  // recorded, later ones are dropped and counted (a bounded file, docs/reliability.md).
  void set_max_events(std::size_t n) { max_events_ = n; }
  std::size_t max_events() const { return max_events_; }
  std::uint64_t dropped() const { return dropped_; }
  // Simulated time at which the first dropped event was recorded (its end), when dropped() > 0.
  std::int64_t first_dropped_ps() const { return first_dropped_ps_; }

  // Returns a track id; ids (and so pids/tids) follow registration order, which elaboration fixes.
  int track(const std::string& process, const std::string& thread);

  // Interns a slice name; hot paths name slices by id so recording costs no string copies.
  int name(const std::string& text);

  // A complete slice ("X" event) from start to end, in picoseconds of simulated time, with the
  // iteration (and micro-batch, when >= 0) as arguments.
  void slice(int track, int name_id, const char* category, std::int64_t start_ps, std::int64_t end_ps, int iteration,
             int micro_batch = -1);
  // The same with free-form arguments, for rare events.
  void slice(int track, const std::string& name, const char* category, std::int64_t start_ps, std::int64_t end_ps,
             nlohmann::ordered_json args);
  // A point in time ("i" event) on a track.
  void instant(int track, const std::string& name, const char* category, std::int64_t at_ps,
               nlohmann::ordered_json args = {});

  std::size_t size() const { return size_; }
  void write(std::ostream& out) const;

 private:
  struct Track {
    int pid, tid;
    std::string process, thread;
  };
  struct Event {
    std::int64_t start_ps, dur_ps;
    const char* category;
    int track;
    int name;
    int iteration;
    int micro_batch;
    int args;  // index into args_, or -1
    char type;
  };
  bool full(std::int64_t at_ps);  // counts a dropped event when the cap is reached
  void record(const Event& e);

  bool enabled_;
  std::size_t max_events_ = SIZE_MAX;
  std::uint64_t dropped_ = 0;
  std::int64_t first_dropped_ps_ = -1;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> name_ids_;
  std::vector<nlohmann::ordered_json> args_;
  std::vector<std::string> processes_;
  std::vector<Track> tracks_;
  // Events in fixed-size blocks: a growing vector of millions of events would copy them all at
  // every doubling and hold old and new copies at once (peak memory 1.5x the events).
  static constexpr std::size_t kBlock = std::size_t{1} << 16;
  std::vector<std::vector<Event>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace trainvp
