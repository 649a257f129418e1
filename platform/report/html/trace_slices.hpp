#pragma once
// One iteration's slices of one category (the pipeline schedule) from a run's trace.json.
#include <string>
#include <vector>

namespace trainvp::html {

struct TraceSlice {
  std::string track;  // "node0.gpu3 pipeline": the process's name, '.', the thread's name
  std::string name;   // "F0", "B3", ...
  double start_s = 0, end_s = 0;
};

// The platform writes trace.json one event per line (platform/core/trace.cpp), and traces of
// large runs reach hundreds of megabytes: the file is scanned line by line and only the
// metadata and the slices of category `category` whose args.iteration is `iteration` are parsed.
// `iteration` < 0: the slices of every iteration (network transmissions carry none). Slices come
// in file order. A file not in that form is a ScenarioError naming it and the line.
std::vector<TraceSlice> read_trace_slices(const std::string& path, const std::string& category, long iteration);

}  // namespace trainvp::html
