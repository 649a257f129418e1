#include "platform/trace.hpp"

#include <cinttypes>
#include <cstdio>

namespace trainvp {

int TraceRecorder::track(const std::string& process, const std::string& thread) {
  int pid = -1;
  for (std::size_t i = 0; i < processes_.size(); ++i)
    if (processes_[i] == process) pid = static_cast<int>(i);
  if (pid < 0) {
    processes_.push_back(process);
    pid = static_cast<int>(processes_.size() - 1);
  }
  int tid = 0;
  for (auto& t : tracks_)
    if (t.pid == pid) ++tid;
  tracks_.push_back({pid, tid, process, thread});
  return static_cast<int>(tracks_.size() - 1);
}

void TraceRecorder::slice(int track, std::string name, const char* category, std::int64_t start_ps,
                          std::int64_t end_ps, nlohmann::ordered_json args) {
  if (!enabled_) return;
  events_.push_back({track, 'X', category, start_ps, end_ps - start_ps, std::move(name), std::move(args)});
}

void TraceRecorder::instant(int track, std::string name, const char* category, std::int64_t at_ps,
                            nlohmann::ordered_json args) {
  if (!enabled_) return;
  events_.push_back({track, 'i', category, at_ps, 0, std::move(name), std::move(args)});
}

// Trace timestamps are microseconds; print ps exactly as a decimal so output is deterministic.
static std::string us(std::int64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%06" PRId64, ps / 1000000, ps % 1000000);
  return buf;
}

void TraceRecorder::write(std::ostream& out) const {
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (std::size_t i = 0; i < processes_.size(); ++i) {
    sep();
    out << R"({"ph":"M","name":"process_name","pid":)" << i << R"(,"args":{"name":)"
        << nlohmann::json(processes_[i]).dump() << "}}";
    sep();
    out << R"({"ph":"M","name":"process_sort_index","pid":)" << i << R"(,"args":{"sort_index":)" << i << "}}";
  }
  for (auto& t : tracks_) {
    sep();
    out << R"({"ph":"M","name":"thread_name","pid":)" << t.pid << ",\"tid\":" << t.tid << R"(,"args":{"name":)"
        << nlohmann::json(t.thread).dump() << "}}";
    sep();
    out << R"({"ph":"M","name":"thread_sort_index","pid":)" << t.pid << ",\"tid\":" << t.tid
        << R"(,"args":{"sort_index":)" << t.tid << "}}";
  }
  for (auto& e : events_) {
    const Track& t = tracks_[e.track];
    sep();
    out << "{\"ph\":\"" << e.type << "\",\"pid\":" << t.pid << ",\"tid\":" << t.tid
        << ",\"name\":" << nlohmann::json(e.name).dump() << ",\"cat\":\"" << e.category << "\",\"ts\":" << us(e.start_ps);
    if (e.type == 'X') out << ",\"dur\":" << us(e.dur_ps);
    else out << ",\"s\":\"t\"";
    if (!e.args.empty()) out << ",\"args\":" << e.args.dump();
    out << "}";
  }
  out << "\n]}\n";
}

}  // namespace trainvp
