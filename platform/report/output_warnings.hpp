#pragma once
// Outputs that a cap cut short (docs/reliability.md, "Bounded outputs"): the waveform file at
// /output/waves_max_bytes, the trace at /output/trace_max_events. Each becomes an entry of
// results.json `warnings` (absent when there is none) and a line of the summary.
#include <string>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

// The warnings of a finished run, in a fixed order (waves, then trace); empty when none.
nlohmann::ordered_json output_warnings(const Simulation& sim);

// One summary line per warning: "  warning          <message>\n".
std::string warnings_summary(const nlohmann::ordered_json& warnings);

}  // namespace trainvp
