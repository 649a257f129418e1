#pragma once
// Timeline in the Chrome/Perfetto trace-event JSON format (ui.perfetto.dev and chrome://tracing
// open it). A track is a (process, thread) pair: a node is a process, a GPU or NIC a thread.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp {

class TraceRecorder {
 public:
  explicit TraceRecorder(bool enabled = true) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  // Returns a track id; ids (and so pids/tids) follow registration order, which elaboration fixes.
  int track(const std::string& process, const std::string& thread);

  // A complete slice ("X" event) from start to end, in picoseconds of simulated time.
  void slice(int track, std::string name, const char* category, std::int64_t start_ps, std::int64_t end_ps,
             nlohmann::ordered_json args = {});
  // A point in time ("i" event) on a track.
  void instant(int track, std::string name, const char* category, std::int64_t at_ps, nlohmann::ordered_json args = {});

  std::size_t size() const { return events_.size(); }
  void write(std::ostream& out) const;

 private:
  struct Track {
    int pid, tid;
    std::string process, thread;
  };
  struct Event {
    int track;
    char type;
    const char* category;
    std::int64_t start_ps, dur_ps;
    std::string name;
    nlohmann::ordered_json args;
  };
  bool enabled_;
  std::vector<std::string> processes_;
  std::vector<Track> tracks_;
  std::vector<Event> events_;
};

}  // namespace trainvp
