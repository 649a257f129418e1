#include "platform/report/output_warnings.hpp"

#include "platform/core/sim_time.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

nlohmann::ordered_json output_warnings(const Simulation& sim) {
  using ojson = nlohmann::ordered_json;
  ojson list = ojson::array();
  const OutputConfig& o = sim.scenario().output;
  // Only the first node's device writes waves (cluster_builder.cpp).
  const auto devices = sim.cxl_devices();
  if (o.waves && !devices.empty() && devices.front()->wave_status().capped) {
    const WaveStatus& w = devices.front()->wave_status();
    const double at = sec(static_cast<std::int64_t>(w.capped_at_ps));
    list.push_back(
        {{"output", o.waves_file()},
         {"key", "/output/waves_max_bytes"},
         {"limit", o.waves_max_bytes},
         {"recorded", w.bytes},
         {"stopped_at_s", at},
         {"message", o.waves_file() + " reached /output/waves_max_bytes (" +
                         format_bytes(static_cast<double>(o.waves_max_bytes)) + ") at t = " + format_time_s(at) +
                         ": recording stopped there, the file ends cleanly at that cycle"}});
  }
  const TraceRecorder& t = sim.context().trace;
  if (t.enabled() && t.dropped() > 0) {
    const double at = sec(t.first_dropped_ps());
    list.push_back({{"output", "trace.json"},
                    {"key", "/output/trace_max_events"},
                    {"limit", t.max_events()},
                    {"recorded", t.size()},
                    {"dropped", t.dropped()},
                    {"stopped_at_s", at},
                    {"message", "trace.json reached /output/trace_max_events (" + std::to_string(t.max_events()) +
                                    " events) at t = " + format_time_s(at) + ": " + std::to_string(t.dropped()) +
                                    " later events were not recorded"}});
  }
  return list;
}

std::string warnings_summary(const nlohmann::ordered_json& warnings) {
  std::string out;
  for (auto& w : warnings) out += "  warning          " + w["message"].get<std::string>() + "\n";
  return out;
}

}  // namespace trainvp
