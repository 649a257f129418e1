// One iteration's schedule: the pipeline as a Gantt chart (from trace.json) and the collectives'
// timeline (from results.json /collectives).
#include <algorithm>
#include <map>
#include <regex>

#include "platform/report/html/charts.hpp"
#include "platform/report/html/run_sections.hpp"
#include "platform/report/html/svg.hpp"
#include "platform/report/html/trace_slices.hpp"

namespace trainvp::html {

namespace {

// F: forward, B: backward (or its input-gradient half), W: the weight-gradient half.
const char* phase_color(const std::string& name) {
  if (!name.empty() && name[0] == 'F') return palette(0);
  if (!name.empty() && name[0] == 'B') return palette(1);
  if (!name.empty() && name[0] == 'W') return palette(2);
  return palette(8);
}

void pipeline_section(Page& page, const JsonView& r, const std::string& trace_path, long iteration) {
  const std::string heading = "Pipeline schedule of one iteration";
  if (!r.has("parallel") || r["parallel"]["pp"].number() < 2) {
    page.omitted("pipeline", heading, "the run has no pipeline (training.parallel.pp is 1 or unset)");
    return;
  }
  if (trace_path.empty()) {
    page.omitted("pipeline", heading, "the run wrote no trace.json (output.trace is false)");
    return;
  }
  // One GPU per stage draws it: the one at tp 0, dp 0.
  std::map<std::string, int> stage_of;
  for (const JsonView& p : r["parallel"]["placement"].items())
    if (p["tp"].number() == 0 && p["dp"].number() == 0)
      stage_of[p["gpu"].text() + " pipeline"] = static_cast<int>(p["pp"].number());
  std::map<int, GanttRow> rows;
  for (auto& [track, stage] : stage_of)
    rows[stage].label = "stage " + std::to_string(stage) + " (" + track.substr(0, track.size() - 9) + ")";
  std::size_t count = 0;
  for (const TraceSlice& s : read_trace_slices(trace_path, "pipeline", iteration)) {
    auto it = stage_of.find(s.track);
    if (it == stage_of.end()) continue;
    std::string mb = s.name.size() > 1 ? s.name.substr(1) : "";
    rows[it->second].bars.push_back({s.start_s, s.end_s, mb,
                                     s.name + " on stage " + std::to_string(it->second) + ": " + num(s.start_s, 6) +
                                         " s to " + num(s.end_s, 6) + " s (" + seconds(s.end_s - s.start_s) + ")",
                                     phase_color(s.name)});
    ++count;
  }
  if (count == 0) {
    page.omitted("pipeline", heading, "trace.json holds no pipeline slices of iteration " + std::to_string(iteration));
    return;
  }
  Gantt g;
  g.id = "pipeline";
  g.title = "Iteration " + std::to_string(iteration) + ": each stage's micro-batches (number = micro-batch)";
  g.x_label = "simulated time (s)";
  for (auto& [stage, row] : rows) g.rows.push_back(std::move(row));
  g.legend = {{"forward (F)", palette(0)}, {"backward (B)", palette(1)}, {"weight gradient (W)", palette(2)}};
  page.section("pipeline", heading, render(g));
}

void collectives_section(Page& page, const JsonView& r, long iteration) {
  const std::string heading = "Collectives timeline";
  if (!r.has("collectives") || r["collectives"].raw().empty()) {
    page.omitted("collectives", heading,
                 "results.json lists no collectives (output.collectives is false, or none ran)");
    return;
  }
  // The window of the shown iteration; the whole run when there are no iterations (a benchmark).
  double lo = -1e300, hi = 1e300;
  std::string what = "the whole run";
  if (iteration >= 0) {
    for (const JsonView& it : r["iterations"].items())
      if (static_cast<long>(it["index"].number()) == iteration) {
        lo = it["start_s"].number(), hi = it["end_s"].number();
        what = "iteration " + std::to_string(iteration);
      }
  }
  // A row per collective as labelled without its iteration ("ddp it3 bucket0" -> "ddp bucket0").
  static const std::regex iteration_word(R"(\s*\bit\d+\b)");
  std::map<std::string, std::size_t> row_of;
  Gantt g;
  std::map<std::string, std::size_t> colour_of_op;
  std::size_t count = 0;
  for (const JsonView& c : r["collectives"].items()) {
    const double a = c["start_s"].number(), b = c["end_s"].number();
    if (b < lo || a > hi) continue;
    std::string label = std::regex_replace(c.text_or("label", c.text_or("op", "")), iteration_word, "");
    if (label.empty()) label = c.text_or("op", "collective");
    if (!row_of.count(label) && g.rows.size() >= 48) continue;  // a readable chart: the first 48 rows
    auto [it, fresh] = row_of.try_emplace(label, g.rows.size());
    if (fresh) g.rows.push_back({label, {}});
    const std::string op = c.text_or("op", "");
    auto [col, new_op] = colour_of_op.try_emplace(op, colour_of_op.size());
    if (new_op) g.legend.push_back({op, palette(col->second)});
    g.rows[it->second].bars.push_back({a, b, "",
                                       op + " " + c.text_or("label", "") + ": " + bytes(c.number_or("bytes", 0)) +
                                           " over " + num(c.number_or("ranks", 0)) + " ranks, " + num(a, 6) + " s to " +
                                           num(b, 6) + " s (" + seconds(b - a) + "), bus bandwidth " +
                                           num(c.number_or("busbw_GBps", 0)) + " GB/s",
                                       palette(col->second)});
    ++count;
  }
  if (count == 0) {
    page.omitted("collectives", heading, "no collective ran in " + what);
    return;
  }
  g.id = "collectives";
  g.title = "Collectives of " + what + " (" + std::to_string(count) + ")";
  g.x_label = "simulated time (s)";
  page.section("collectives", heading, render(g));
}

}  // namespace

void schedule_sections(Page& page, const JsonView& r, const std::string& trace_path) {
  const long iteration = shown_iteration(r);
  pipeline_section(page, r, trace_path, iteration);
  collectives_section(page, r, iteration);
}

}  // namespace trainvp::html
