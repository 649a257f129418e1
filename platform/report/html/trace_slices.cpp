#include "platform/report/html/trace_slices.hpp"

#include <fstream>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "platform/config/document.hpp"
#include "platform/core/errors.hpp"

namespace trainvp::html {

namespace {

nlohmann::json parse_event_line(std::string line, const std::string& path, std::size_t number) {
  while (!line.empty() && (line.back() == ',' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  try {
    // The scenario reader's strict, depth-limited parse: a hostile line is refused, not recursed into.
    return parse_json_text(line, "");
  } catch (const ScenarioError& e) {
    throw ScenarioError("", "\"" + path + "\" line " + std::to_string(number) + " is not a trace event: " + e.what());
  }
}

}  // namespace

std::vector<TraceSlice> read_trace_slices(const std::string& path, const std::string& category, long iteration) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError("", "cannot read \"" + path + "\"");
  std::string line;
  if (!std::getline(in, line) || line.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0) != 0)
    throw ScenarioError(
        "", "\"" + path + "\" line 1 does not open a trainvp trace ({\"displayTimeUnit\":\"ns\",\"traceEvents\":[)");
  const std::string cat_key = "\"cat\":\"" + category + "\"";
  const std::string it_key = "\"iteration\":" + std::to_string(iteration);
  std::map<long, std::string> processes;
  std::map<std::pair<long, long>, std::string> threads;
  struct Raw {
    long pid, tid;
    std::string name;
    double ts, dur;
  };
  std::vector<Raw> raw;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    if (line.rfind("{\"ph\":\"M\"", 0) == 0) {
      const nlohmann::json e = parse_event_line(line, path, number);
      const std::string what = e.value("name", "");
      if (what != "process_name" && what != "thread_name") continue;
      const std::string name = e.contains("args") ? e["args"].value("name", "") : "";
      if (what == "process_name") processes[e.value("pid", 0L)] = name;
      else threads[{e.value("pid", 0L), e.value("tid", 0L)}] = name;
      continue;
    }
    if (line.find(cat_key) == std::string::npos) continue;
    if (iteration >= 0) {
      const auto at = line.find(it_key);
      if (at == std::string::npos) continue;
      const char next = at + it_key.size() < line.size() ? line[at + it_key.size()] : '\0';
      if (next != ',' && next != '}') continue;  // "iteration":12 when 1 was asked for
    }
    const nlohmann::json e = parse_event_line(line, path, number);
    if (e.value("ph", "") != "X" || e.value("cat", "") != category) continue;
    if (!e["ts"].is_number() || !e["dur"].is_number())
      throw ScenarioError("", "\"" + path + "\" line " + std::to_string(number) + ": a slice without ts and dur");
    raw.push_back(
        {e.value("pid", 0L), e.value("tid", 0L), e.value("name", ""), e["ts"].get<double>(), e["dur"].get<double>()});
  }
  std::vector<TraceSlice> out;
  out.reserve(raw.size());
  for (auto& r : raw) {
    // Chrome trace times are microseconds.
    std::string track = processes.count(r.pid) ? processes[r.pid] : "pid" + std::to_string(r.pid);
    auto t = threads.find({r.pid, r.tid});
    track += "." + (t != threads.end() ? t->second : "tid" + std::to_string(r.tid));
    out.push_back({track, r.name, r.ts * 1e-6, (r.ts + r.dur) * 1e-6});
  }
  return out;
}

}  // namespace trainvp::html
