#include "platform/core/trace.hpp"

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

int TraceRecorder::name(const std::string& text) {
  auto it = name_ids_.find(text);
  if (it != name_ids_.end()) return it->second;
  names_.push_back(text);
  name_ids_.emplace(text, static_cast<int>(names_.size() - 1));
  return static_cast<int>(names_.size() - 1);
}

void TraceRecorder::record(const Event& e) {
  if (blocks_.empty() || blocks_.back().size() == kBlock) {
    blocks_.emplace_back();
    blocks_.back().reserve(kBlock);
  }
  blocks_.back().push_back(e);
  ++size_;
}

bool TraceRecorder::full(std::int64_t at_ps) {
  if (size_ < max_events_) return false;
  if (dropped_++ == 0) first_dropped_ps_ = at_ps;
  return true;
}

void TraceRecorder::slice(int track, int name_id, const char* category, std::int64_t start_ps, std::int64_t end_ps,
                          int iteration, int micro_batch) {
  if (!enabled_ || full(end_ps)) return;
  record({start_ps, end_ps - start_ps, category, track, name_id, iteration, micro_batch, -1, 'X'});
}

void TraceRecorder::slice(int track, const std::string& text, const char* category, std::int64_t start_ps,
                          std::int64_t end_ps, nlohmann::ordered_json args) {
  if (!enabled_ || full(end_ps)) return;
  int a = -1;
  if (!args.is_null() && !args.empty()) args_.push_back(std::move(args)), a = static_cast<int>(args_.size() - 1);
  record({start_ps, end_ps - start_ps, category, track, name(text), -1, -1, a, 'X'});
}

void TraceRecorder::instant(int track, const std::string& text, const char* category, std::int64_t at_ps,
                            nlohmann::ordered_json args) {
  if (!enabled_ || full(at_ps)) return;
  int a = -1;
  if (!args.is_null() && !args.empty()) args_.push_back(std::move(args)), a = static_cast<int>(args_.size() - 1);
  record({at_ps, 0, category, track, name(text), -1, -1, a, 'i'});
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
  std::vector<std::string> quoted;
  for (auto& n : names_) quoted.push_back(nlohmann::json(n).dump());
  for (const auto& block : blocks_) {
    for (const Event& e : block) {
      const Track& t = tracks_[static_cast<std::size_t>(e.track)];
      sep();
      out << "{\"ph\":\"" << e.type << "\",\"pid\":" << t.pid << ",\"tid\":" << t.tid
          << ",\"name\":" << quoted[static_cast<std::size_t>(e.name)] << ",\"cat\":\"" << e.category
          << "\",\"ts\":" << us(e.start_ps);
      if (e.type == 'X') out << ",\"dur\":" << us(e.dur_ps);
      else out << ",\"s\":\"t\"";
      if (e.args >= 0) {
        out << ",\"args\":" << args_[static_cast<std::size_t>(e.args)].dump();
      } else if (e.iteration >= 0) {
        out << ",\"args\":{\"iteration\":" << e.iteration;
        if (e.micro_batch >= 0) out << ",\"micro_batch\":" << e.micro_batch;
        out << "}";
      }
      out << "}";
    }
  }
  out << "\n]}\n";
}

}  // namespace trainvp
