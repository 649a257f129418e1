#pragma once
// `trainvp report DIR` for a run directory: one self-contained HTML page of what the run wrote.
#include <string>

namespace trainvp::html {

// The page for the run in `dir` (its results.json, and trace.json when the run wrote one). Bad
// or missing input is a ScenarioError naming the file and JSON pointer.
std::string run_report_html(const std::string& dir);

// Writes `text` to `path` through a temporary file beside it renamed into place: `path` is whole
// or untouched. Throws RunError when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace trainvp::html
