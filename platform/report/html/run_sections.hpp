#pragma once
// The sections of a run's report, each drawn from what results.json (and trace.json) hold and
// omitted with a one-line note when the run has no data for it. run_report.cpp puts them in order.
#include <string>

#include "platform/report/html/json_view.hpp"
#include "platform/report/html/page.hpp"

namespace trainvp::html {

void summary_section(Page& page, const JsonView& results);
// Iteration time over simulated time of `run` (the results or one job of them) with the run's
// faults, detections, diagnoses and mitigation actions on the same axis, and the SLO band.
std::string iteration_chart(const JsonView& run, const JsonView& results, const std::string& id);
void iteration_section(Page& page, const JsonView& results);
void time_split_section(Page& page, const JsonView& results);
void schedule_sections(Page& page, const JsonView& results, const std::string& trace_path);
// Link utilization by tier; with a trace, the NIC links' busy share over time as a heat map.
void link_section(Page& page, const JsonView& results, const std::string& trace_path);
void health_sections(Page& page, const JsonView& results);
void job_sections(Page& page, const JsonView& results);
void train_section(Page& page, const JsonView& results);

// Index of the iteration the schedule charts show: the first one after warm-up (else the last).
// -1 without iterations.
long shown_iteration(const JsonView& run);

}  // namespace trainvp::html
