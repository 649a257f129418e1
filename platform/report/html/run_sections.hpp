#pragma once
// The sections of a run's report, each drawn from what results.json (trace.json, link_series.json) hold and
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
// Link utilization by tier: the hottest link of each, and with link_series.json (`series`, null
// without) each tier's links over time as a heat map; without it, whole-run bars.
void link_section(Page& page, const JsonView& results, const JsonView* series);
void health_sections(Page& page, const JsonView& results);
// A section per job, and the links they share (from link_series.json's job_bytes).
void job_sections(Page& page, const JsonView& results, const JsonView* series);
void train_section(Page& page, const JsonView& results);

// Index of the iteration the schedule charts show: the first one after warm-up (else the last).
// -1 without iterations.
long shown_iteration(const JsonView& run);

}  // namespace trainvp::html
