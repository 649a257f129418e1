#pragma once
// `trainvp report DIR [-o FILE]` (docs/report.md): one self-contained HTML page of a run
// directory (results.json, trace.json) or a sweep directory (sweep.db), written to FILE or
// DIR/report.html. Prints its own errors and returns the exit code: 0, 1 (cannot write), 2 (bad
// input or usage).
#include <string>
#include <vector>

namespace trainvp {

int cli_report(const std::vector<std::string>& args);

// `trainvp run --report`: writes DIR/report.html of the run just written; returns its path.
// Throws ScenarioError or RunError as the report command reports them.
std::string write_run_report(const std::string& dir);

}  // namespace trainvp
