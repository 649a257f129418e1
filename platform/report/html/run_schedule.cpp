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
  // The legend names the phases drawn: W only under a schedule that splits the backward.
  for (auto [letter, name] :
       {std::pair{'F', "forward (F)"}, std::pair{'B', "backward (B)"}, std::pair{'W', "weight gradient (W)"}})
    for (auto& row : g.rows)
      if (std::any_of(row.bars.begin(), row.bars.end(), [&](const GanttBar& b) { return b.tip[0] == letter; })) {
        g.legend.push_back({name, phase_color(std::string(1, letter))});
        break;
      }
  page.section("pipeline", heading, render(g));
}

// A collective benchmark's results (sizes, no times on the run's axis): bandwidth by size, and
// the published measurement it is validated against.
void benchmark_section(Page& page, const JsonView& r) {
  LineChart c;
  c.id = "collective-bandwidth";
  c.title = "Bandwidth by message size";
  c.x_label = "bytes per rank";
  c.y_label = "bandwidth (GB/s)";
  c.logx = true;
  Series bus{"bus bandwidth", palette(0), {}, false}, alg{"algorithm bandwidth", palette(1), {}, true};
  Table t;
  t.id = "collective-sizes";
  t.head = {"bytes", "time", "algbw (GB/s)", "busbw (GB/s)", "protocol"};
  for (const JsonView& k : r["collectives"].items()) {
    const JsonView b = k["bytes"], time = k["time_s"], algbw = k["algbw_GBps"], busbw = k["busbw_GBps"];
    bus.points.push_back({b.number(), busbw.number()});
    alg.points.push_back({b.number(), algbw.number()});
    t.rows.push_back({number_cell(b.number(), bytes(b.number()), b.pointer()),
                      number_cell(time.number(), seconds(time.number()), time.pointer()),
                      number_cell(algbw.number(), num(algbw.number(), 5), algbw.pointer()),
                      number_cell(busbw.number(), num(busbw.number(), 5), busbw.pointer()),
                      text_cell(k.text_or("protocol", ""))});
  }
  c.series = {bus, alg};
  std::string body = render(c) + render(t);
  if (r.has("validation")) {
    const JsonView v = r["validation"];
    std::vector<std::pair<std::string, Cell>> rows;
    rows.push_back({"source", text_cell(v.text_or("source", ""))});
    rows.push_back({"metric", text_cell(v.text_or("metric", ""))});
    for (const char* key : {"published", "trainvp", "error"})
      if (v.has(key)) rows.push_back({key, number_cell(v[key].number(), num(v[key].number(), 5), v[key].pointer())});
    body += "<h3>Against the published measurement (results.json /validation)</h3>\n" +
            render(key_values("validation", std::move(rows)));
  }
  page.section("collectives", "Collective benchmark", body);
}

void collectives_section(Page& page, const JsonView& r, long iteration) {
  const std::string heading = "Collectives timeline";
  if (!r.has("collectives") || r["collectives"].raw().empty()) {
    page.omitted("collectives", heading,
                 "results.json lists no collectives (output.collectives is false, or none ran)");
    return;
  }
  // A benchmark's collectives are sizes, not times on the run's axis.
  if (!r["collectives"][0].has("start_s")) {
    if (r["collectives"][0].has("busbw_GBps")) return benchmark_section(page, r);
    page.omitted("collectives", heading, "results.json's collectives carry no start and end times");
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
