#pragma once
// Writing a run's files into DIR all-or-nothing: each file goes to a temporary name first and
// is renamed into place only when every file has been written.
#include <string>

#include "platform/report/results.hpp"
#include "platform/core/trace.hpp"

namespace trainvp {

// Writes results.json, iterations.csv, link_series.json, trace.json (when enabled) and faults.json
// (with faults). Throws std::runtime_error.
void write_run_outputs(const std::string& dir, const RunResults& results, const TraceRecorder& trace);

}  // namespace trainvp
