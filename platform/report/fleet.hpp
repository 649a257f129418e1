#pragma once
// The fleet report of a run with `jobs` (#43 item 5; docs/jobs.md#the-fleet-report): per training
// job and summed, the accelerator-hours allocated, those inside acceptable throughput, those lost
// to slowdowns and the healthy ones stranded behind a slow synchronization, and the lost hours
// split by cause. It reads each job's degraded-throughput windows (the `degradation` report's
// timeline) and the spans of the faults and neighbours that could explain them, nothing else.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp::report_detail {

// What was active over a span of simulated time that can explain a slow window: a fault's cause
// (`compute`, `cpu`, `communication`) or `neighbour` (another job's traffic).
struct CauseSpan {
  std::string cause;
  double start_s, end_s;  // end_s: +inf while it lasts to the end of the run
};

struct FleetJob {
  std::string name;
  double gpus = 0;
  double start_s = 0, end_s = 0;       // its first iteration's start, its last one's end
  nlohmann::ordered_json degradation;  // degradation_of's report (timeline, baseline, ...)
  bool sends = false;                  // it has traffic: a neighbour of the others while it runs
  std::vector<CauseSpan> causes;       // the faults touching its GPUs or links, and the checkpoint bursts
};

// The other jobs that send are each job's neighbours over their spans (added here, once).
nlohmann::ordered_json fleet_report(std::vector<FleetJob> jobs);

}  // namespace trainvp::report_detail
