// The run report's charts over results.json (and link_series.json): iteration time, time split,
// links, jobs and real training.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "platform/report/html/charts.hpp"
#include "platform/report/html/run_sections.hpp"
#include "platform/report/html/svg.hpp"

namespace trainvp::html {

namespace {

constexpr const char* kFaultColor = "#D55E00";
constexpr const char* kChangeColor = "#7a4bc2";
constexpr const char* kDiagnosisColor = "#CC0000";
constexpr const char* kActionColor = "#009E73";
constexpr const char* kSloColor = "#56B4E9";

// The link tier of a link's name, as results.json's link_tiers counts bytes: NVLink (through the
// NVSwitch), PCIe (switches, root complex, CXL ports), core (a three-tier Clos's spine to core:
// before spine, whose name it also holds), spine, and the NIC tier (NICs, leaves, the single
// switch).
std::string link_tier(const std::string& name) {
  if (name.find("nvswitch") != std::string::npos) return "NVLink";
  if (name.find("core") != std::string::npos) return "core (spine to core)";
  if (name.find("spine") != std::string::npos) return "spine";
  if (name.find("pcie") != std::string::npos || name.find("cpu") != std::string::npos) return "PCIe";
  return "NIC (scale-out)";
}

// Every fault of results.json /faults (the scenario's and the generator's), as injected.
Table fault_table(const JsonView& faults) {
  Table t;
  t.id = "faults";
  t.head = {"fault", "origin", "kind", "target", "applied", "start", "end", "parameters"};
  for (const JsonView& f : faults.items()) {
    auto time = [&](const char* key) {
      return f.has(key) ? number_cell(f[key].number(), seconds(f[key].number()), f[key].pointer()) : text_cell("");
    };
    t.rows.push_back({f.has("index") ? number_cell(f["index"].number(), num(f["index"].number(), 8)) : text_cell(""),
                      text_cell(f.text_or("origin", "")), text_cell(f.text_or("kind", "")),
                      text_cell(f.text_or("target", "")),
                      text_cell(f.has("applied") ? (f["applied"].boolean() ? "yes" : "no") : ""), time("start_s"),
                      time("end_s"), text_cell(f.has("params") ? f["params"].raw().dump() : "")});
  }
  return t;
}

}  // namespace

std::string iteration_chart(const JsonView& run, const JsonView& r, const std::string& id) {
  LineChart c;
  c.id = id;
  c.title = "Iteration time over the run";
  c.x_label = "simulated time at the end of the iteration (s)";
  c.y_label = "iteration time (s)";
  Series s{"iteration time", palette(0), {}, false};
  for (const JsonView& it : run["iterations"].items())
    s.points.push_back({it["end_s"].number(), it["duration_s"].number()});
  c.series.push_back(std::move(s));
  if (r.has("faults")) {
    for (const JsonView& f : r["faults"].items()) {
      if (!f.has("start_s") || (f.has("applied") && !f["applied"].boolean())) continue;
      const double a = f["start_s"].number();
      const double b = f.number_or("end_s", a);
      c.spans.push_back({a, b,
                         "fault " + num(f.number_or("index", 0)) + ": " + f.text_or("kind", "") + " on " +
                             f.text_or("target", "") + ", " + num(a, 6) + " s to " + num(b, 6) + " s",
                         kFaultColor});
    }
    if (!c.spans.empty()) c.legend.push_back({"fault active (shaded)", kFaultColor});
  }
  if (r.has("health")) {
    const JsonView h = r["health"];
    if (h.has("detector") && h["detector"].has("changes")) {
      for (const JsonView& ch : h["detector"]["changes"].items())
        c.markers.push_back({ch["detected_s"].number(),
                             "change detected at " + num(ch["detected_s"].number(), 6) + " s (" +
                                 ch.text_or("direction", "") + ", began " + num(ch.number_or("change_s", 0), 6) + " s)",
                             kChangeColor, ""});
      if (!h["detector"]["changes"].raw().empty()) c.legend.push_back({"change detected", kChangeColor});
    }
    if (h.has("diagnoses")) {
      for (const JsonView& d : h["diagnoses"].items())
        c.markers.push_back({d["diagnosed_s"].number(),
                             "diagnosis at " + num(d["diagnosed_s"].number(), 6) + " s: " + d.text_or("cause", "") +
                                 ", slowdown " + num(d.number_or("slowdown", 0), 4),
                             kDiagnosisColor, "D"});
      if (!h["diagnoses"].raw().empty()) c.legend.push_back({"diagnosis (D)", kDiagnosisColor});
    }
    if (h.has("mitigation") && h["mitigation"].has("actions")) {
      for (const JsonView& a : h["mitigation"]["actions"].items())
        c.markers.push_back({a["at_s"].number(),
                             "action " + a.text_or("step", "") + " at " + num(a["at_s"].number(), 6) + " s, pause " +
                                 seconds(a.number_or("pause_s", 0)),
                             kActionColor, a.text_or("step", "")});
      if (!h["mitigation"]["actions"].raw().empty()) c.legend.push_back({"mitigation action", kActionColor});
    }
  }
  if (r.has("degradation") && r["degradation"].has("baseline_iteration_s") && r["degradation"].has("slo_fraction")) {
    const double base = r["degradation"]["baseline_iteration_s"].number();
    const double frac = r["degradation"]["slo_fraction"].number();
    if (frac > 0) {
      c.bands.push_back({base, base / frac,
                         "within the SLO: at least " + num(frac * 100, 3) + "% of the baseline rate (iteration time " +
                             seconds(base) + " to " + seconds(base / frac) + ")",
                         kSloColor});
      c.legend.push_back({"SLO band (baseline to baseline / " + num(frac, 3) + ")", kSloColor});
    }
  }
  return render(c);
}

void iteration_section(Page& page, const JsonView& r) {
  if (!r.has("iterations") || r["iterations"].raw().empty()) {
    page.omitted("iteration-time", "Iteration time over the run",
                 r.has("jobs") ? "each job's iterations are drawn in its own section below"
                               : "results.json lists no iterations (not a training run)");
    return;
  }
  std::string body = iteration_chart(r, r, "iteration-time");
  if (r.has("degradation")) {
    const JsonView d = r["degradation"];
    std::vector<std::pair<std::string, Cell>> rows;
    for (auto [key, name] :
         {std::pair{"time_below_slo_s", "time below the SLO"}, std::pair{"gpu_hours_lost", "GPU-hours lost"},
          std::pair{"healthy_gpu_hours_stranded", "healthy GPU-hours stranded"}})
      if (d.has(key)) rows.push_back({name, number_cell(d[key].number(), num(d[key].number(), 5), d[key].pointer())});
    if (d.has("iterations_below_slo"))
      rows.push_back({"iterations below the SLO",
                      number_cell(d["iterations_below_slo"].number(), num(d["iterations_below_slo"].number(), 8),
                                  d["iterations_below_slo"].pointer())});
    body += render(key_values("degradation", std::move(rows)));
  }
  if (r.has("faults") && !r["faults"].raw().empty())
    body += "<h3>Faults injected</h3>\n" + render(fault_table(r["faults"]));
  page.section("iteration-time", "Iteration time, faults and actions", body);
}

void time_split_section(Page& page, const JsonView& r) {
  std::string body;
  if (r.has("parallel") && r["parallel"].has("stages")) {
    BarChart c;
    c.id = "stage-split";
    c.title = "Time per iteration on each pipeline stage";
    c.value_label = "time per iteration (s)";
    c.segments = {"compute", "exposed TP communication", "exposed DP communication", "PP send/receive", "bubble"};
    for (const JsonView& s : r["parallel"]["stages"].items())
      c.bars.push_back({"stage " + num(s["stage"].number()),
                        {s["compute_s"].number(), s.number_or("tp_exposed_s", 0), s.number_or("dp_exposed_s", 0),
                         s.number_or("pp_comm_s", 0), s.number_or("bubble_s", 0)}});
    body += render(c);
  }
  if (r.has("ranks") && !r["ranks"].raw().empty() && r["ranks"][0].has("compute_s")) {
    BarChart c;
    c.id = "rank-split";
    c.title = "Time per iteration on each rank";
    c.value_label = "time per iteration (s)";
    c.segments = {"compute", "blocked (exposed communication, bubble, pauses)", "other"};
    for (const JsonView& k : r["ranks"].items()) {
      const double it = k.number_or("iteration_time_s", 0), comp = k["compute_s"].number(),
                   blocked = k.number_or("blocked_s", 0);
      c.bars.push_back({k.text_or("name", ""), {comp, blocked, std::max(it - comp - blocked, 0.0)}});
    }
    body += render(c);
  }
  if (body.empty()) {
    page.omitted("time-split", "Time split per stage or rank", "results.json has no per-rank or per-stage times");
    return;
  }
  page.section("time-split", "Time split per stage and rank", body);
}

namespace {

// The tiers of link_series.json (the keys of results.json's link_tiers), in the order drawn.
const std::vector<std::pair<std::string, std::string>>& series_tiers() {
  static const std::vector<std::pair<std::string, std::string>> t = {{"nvlink", "NVLink"},
                                                                     {"pcie", "PCIe"},
                                                                     {"cxl", "CXL"},
                                                                     {"nic", "NIC (scale-out)"},
                                                                     {"spine", "spine (leaf to spine)"},
                                                                     {"core", "core (spine to core)"}};
  return t;
}

std::string tier_title(const std::string& key) {
  for (const auto& [k, title] : series_tiers())
    if (k == key) return title;
  return key;
}

// A heat map shows the busiest kHeatRows links of its tier.
constexpr std::size_t kHeatRows = 32;

// Each link's busy share of each interval of link_series.json (the last interval counts only up
// to the end of the run), clamped to 1 against rounding.
std::vector<double> busy_shares(const JsonView& link, double interval_s, double end_s) {
  std::vector<double> out;
  std::size_t k = 0;
  for (const JsonView& b : link["busy"].items()) {
    const double from = static_cast<double>(k++) * interval_s, len = std::min(interval_s, end_s - from);
    out.push_back(len > 0 ? std::clamp(b.number() / len, 0.0, 1.0) : 0.0);
  }
  return out;
}

// The hottest link of each tier by its utilization over the run (results.json), with its busiest
// interval (link_series.json).
Table hottest_table(const std::map<std::string, std::vector<JsonView>>& tiers, const JsonView* series) {
  std::map<std::string, JsonView> by_name;  // link_series.json's entries, when there is one
  double interval = 0, end = 0;
  if (series) {
    interval = (*series)["interval_s"].number(), end = (*series)["simulated_s"].number();
    for (const JsonView& l : (*series)["links"].items()) by_name.emplace(l["name"].text(), l);
  }
  Table t;
  t.id = "hottest-links";
  t.head = {"tier", "hottest link", "utilization", "bytes", "peak queue", "busiest interval"};
  for (const auto& [tier, links] : tiers) {
    const JsonView& top = links.front();
    std::string busiest;
    if (auto it = by_name.find(top["name"].text()); it != by_name.end()) {
      const std::vector<double> shares = busy_shares(it->second, interval, end);
      const auto at = std::max_element(shares.begin(), shares.end());
      if (at != shares.end()) {
        const double from = static_cast<double>(at - shares.begin()) * interval;
        busiest = num(*at * 100, 4) + "% busy from " + seconds(from) + " to " + seconds(std::min(from + interval, end));
      }
    }
    t.rows.push_back({text_cell(tier), text_cell(top["name"].text()),
                      number_cell(top["utilization"].number(), num(top["utilization"].number() * 100, 4) + "%",
                                  top["utilization"].pointer()),
                      number_cell(top["bytes"].number(), bytes(top["bytes"].number()), top["bytes"].pointer()),
                      top.has("peak_queue_bytes")
                          ? number_cell(top["peak_queue_bytes"].number(), bytes(top["peak_queue_bytes"].number()),
                                        top["peak_queue_bytes"].pointer())
                          : text_cell(""),
                      text_cell(busiest)});
  }
  return t;
}

// Per tier of link_series.json, its links' busy share of each interval as a heat map: the
// kHeatRows busiest links (by busy time over the run, then by name).
std::string tier_heat_maps(const JsonView& series) {
  const double interval = series["interval_s"].number(), end = series["simulated_s"].number();
  const double columns = series["intervals"].number();
  std::map<std::string, std::vector<JsonView>> by_tier;
  for (const JsonView& l : series["links"].items()) by_tier[l["tier"].text()].push_back(l);
  std::string out;
  for (const auto& [key, title] : series_tiers()) {
    auto it = by_tier.find(key);
    if (it == by_tier.end()) continue;
    std::vector<JsonView>& links = it->second;
    std::stable_sort(links.begin(), links.end(), [](const JsonView& a, const JsonView& b) {
      const double x = a["busy_s"].number(), y = b["busy_s"].number();
      return x != y ? x > y : a["name"].text() < b["name"].text();
    });
    HeatMap h;
    h.id = "link-heatmap-" + key;
    h.title = title + " links over time: busy share of each of " + num(columns, 8) + " intervals of " +
              seconds(interval) + " (the " + std::to_string(std::min(kHeatRows, links.size())) + " busiest of " +
              std::to_string(links.size()) + " that carried traffic)";
    h.x_label = "simulated time (s)";
    h.x0 = 0, h.x1 = columns * interval;
    for (std::size_t i = 0; i < links.size() && i < kHeatRows; ++i) {
      h.rows.push_back(links[i]["name"].text());
      h.cells.push_back(busy_shares(links[i], interval, end));
    }
    out += render(h);
  }
  return out;
}

}  // namespace

void link_section(Page& page, const JsonView& r, const JsonView* series) {
  if (!r.has("links") || r["links"].raw().empty()) {
    page.omitted("links", "Link utilization", "results.json lists no links");
    return;
  }
  std::map<std::string, std::string> tier_of;  // link name -> tier title, from link_series.json
  if (series)
    for (const JsonView& l : (*series)["links"].items()) tier_of[l["name"].text()] = tier_title(l["tier"].text());
  std::map<std::string, std::vector<JsonView>> tiers;
  for (const JsonView& l : r["links"].items()) {
    auto it = tier_of.find(l["name"].text());
    tiers[it != tier_of.end() ? it->second : link_tier(l["name"].text())].push_back(l);
  }
  for (auto& [tier, links] : tiers)
    std::stable_sort(links.begin(), links.end(), [](const JsonView& a, const JsonView& b) {
      return a["utilization"].number() > b["utilization"].number();
    });
  std::string body = "<h3>Hottest link of each tier</h3>\n" + render(hottest_table(tiers, series));
  if (series) {
    body += paragraph(
                "Each link's busy time in each interval of the run, from link_series.json; a cell's shade is "
                "the busy share of its interval (white to the map's busiest cell in blue; the legend names the "
                "shares, hovering a cell gives its value).") +
            tier_heat_maps(*series);
  } else {
    // A run directory from before link_series.json: whole-run utilization only.
    body += paragraph(
        "The run directory has no link_series.json, which would give each tier's links over time: each "
        "tier is drawn as bars of its busiest links' utilization over the whole run (results.json).");
    std::size_t k = 0;
    for (auto& [tier, links] : tiers) {
      BarChart c;
      c.id = "links-" + std::to_string(k++);
      c.layout = BarChart::Layout::Horizontal;
      c.unit = "%";
      c.title = tier + " links: the " + std::to_string(std::min<std::size_t>(links.size(), 12)) + " busiest of " +
                std::to_string(links.size());
      c.value_label = "utilization (busy time / run time)";
      c.segments = {"utilization"};
      for (std::size_t i = 0; i < links.size() && i < 12; ++i)
        c.bars.push_back({links[i]["name"].text(), {links[i]["utilization"].number()}});
      body += render(c);
    }
  }
  if (r.has("link_tiers")) {
    BarChart c;
    c.id = "link-tiers";
    c.layout = BarChart::Layout::Horizontal;
    c.unit = "B";
    c.title = "Bytes carried by each tier (results.json /link_tiers)";
    c.value_label = "bytes";
    c.segments = {"bytes"};
    for (auto& [key, value] : r["link_tiers"].raw().items())
      if (value.is_number()) c.bars.push_back({key, {value.get<double>()}});
    body += render(c);
  }
  page.section("links", "Link utilization by tier", body);
}

namespace {

// The links that carried two jobs' traffic or more (link_series.json's job_bytes): a table of each
// one's bytes by job, the busiest first, and the 12 busiest as bars of bytes stacked by job.
void shared_links_section(Page& page, const JsonView& r, const JsonView* series) {
  const char* heading = "Links the jobs share";
  if (!series || !series->has("jobs"))
    return page.omitted("shared-links", heading,
                        "the run directory has no link_series.json with each job's bytes on each link");
  std::vector<std::string> jobs;
  for (const JsonView& j : (*series)["jobs"].items()) jobs.push_back(j.text());
  std::map<std::string, JsonView> results_link;  // results.json's entry of each link, for its pointers
  for (const JsonView& l : r["links"].items()) results_link.emplace(l["name"].text(), l);
  std::vector<JsonView> shared;
  for (const JsonView& l : (*series)["links"].items()) {
    int carrying = 0;
    for (const JsonView& b : l["job_bytes"].items()) carrying += b.number() > 0;
    if (carrying >= 2 && results_link.count(l["name"].text())) shared.push_back(l);
  }
  if (shared.empty())
    return page.section("shared-links", heading,
                        paragraph("No link carried traffic of two jobs: the jobs' traffic never met in the fabric."));
  std::stable_sort(shared.begin(), shared.end(),
                   [](const JsonView& a, const JsonView& b) { return a["busy_s"].number() > b["busy_s"].number(); });
  Table t;
  t.id = "shared-links";
  t.sortable = true;
  t.head = {"link", "tier", "utilization", "bytes"};
  for (const std::string& j : jobs) t.head.push_back(j + " bytes");
  BarChart c;
  c.id = "shared-links";
  c.layout = BarChart::Layout::Horizontal;
  c.unit = "B";
  c.title = "Bytes each job sent over the " + std::to_string(std::min<std::size_t>(shared.size(), 12)) +
            " busiest of the " + std::to_string(shared.size()) + " links two jobs or more share";
  c.value_label = "bytes";
  c.segments = jobs;
  for (std::size_t i = 0; i < shared.size(); ++i) {
    const JsonView& l = shared[i];
    const JsonView& res = results_link.at(l["name"].text());
    std::vector<Cell> row = {text_cell(l["name"].text()), text_cell(tier_title(l["tier"].text())),
                             number_cell(res["utilization"].number(), num(res["utilization"].number() * 100, 4) + "%",
                                         res["utilization"].pointer()),
                             number_cell(res["bytes"].number(), bytes(res["bytes"].number()), res["bytes"].pointer())};
    std::vector<double> by_job;
    for (const JsonView& b : l["job_bytes"].items()) {
      row.push_back(number_cell(b.number(), bytes(b.number())));
      by_job.push_back(b.number());
    }
    t.rows.push_back(std::move(row));
    if (i < 12) c.bars.push_back({l["name"].text(), by_job});
  }
  page.section("shared-links", heading,
               paragraph("Each job's bytes are those of the transfers its ranks sent (link_series.json /links/*/"
                         "job_bytes); utilization and bytes are the link's over the run, all jobs together "
                         "(results.json).") +
                   render(c) + render(t));
}

// The fleet report (results.json /fleet): per job and in all, the GPU-hours allocated, within the
// SLO, lost and stranded, and the lost ones by cause.
void fleet_section(Page& page, const JsonView& r) {
  if (!r.has("fleet")) return page.omitted("fleet", "Fleet", "results.json has no fleet report (a run before it)");
  Table t;
  t.id = "fleet";
  t.sortable = true;
  const std::vector<std::pair<const char*, const char*>> cols = {{"gpu_hours_allocated", "allocated"},
                                                                 {"gpu_hours_within_slo", "within the SLO"},
                                                                 {"gpu_hours_below_slo", "below the SLO"},
                                                                 {"gpu_hours_lost", "lost"},
                                                                 {"healthy_gpu_hours_stranded", "healthy stranded"}};
  const char* const causes[] = {"compute", "cpu", "communication", "neighbour", "unattributed"};
  t.head = {"job"};
  for (auto [key, name] : cols) t.head.push_back(std::string(name) + " (GPU-h)");
  for (const char* c : causes) t.head.push_back(std::string("lost: ") + c);
  auto row = [&](const std::string& name, const JsonView& h) {
    std::vector<Cell> cells = {text_cell(name)};
    for (auto [key, label] : cols)
      cells.push_back(number_cell(h[key].number(), num(h[key].number(), 4), h[key].pointer()));
    for (const char* c : causes) {
      const JsonView v = h["lost_by_cause"][c];
      cells.push_back(number_cell(v.number(), num(v.number(), 4), v.pointer()));
    }
    t.rows.push_back(std::move(cells));
  };
  for (const JsonView& j : r["fleet"]["jobs"].items()) row(j["job"].text(), j);
  row("all jobs", r["fleet"]["total"]);
  page.section("fleet", "Fleet: GPU-hours by job and cause",
               paragraph("Each training job's GPUs over its span, split by its throughput windows against its "
                         "SLO; the hours lost to slow windows by the cause active then (jobs.md#the-fleet-report).") +
                   render(t));
}

}  // namespace

void job_sections(Page& page, const JsonView& r, const JsonView* series) {
  if (!r.has("jobs")) return page.omitted("jobs", "Jobs", "the run is one job (the scenario has no jobs)");
  std::size_t j = 0;
  for (const JsonView& job : r["jobs"].items()) {
    std::vector<std::pair<std::string, Cell>> rows;
    rows.push_back({"model", text_cell(job.has("workload") ? job["workload"].text_or("model", "") : "")});
    if (job.has("gpus"))
      rows.push_back({"GPUs", number_cell(job["gpus"].number(), num(job["gpus"].number(), 8), job["gpus"].pointer())});
    rows.push_back(
        {"placement and strategy", text_cell(job.text_or("placement", "") + ", " + job.text_or("strategy", ""))});
    for (auto [key, name] : {std::pair{"iteration_time_s", "iteration time"}, std::pair{"compute_time_s", "compute"},
                             std::pair{"exposed_comm_s", "exposed communication"}})
      if (job.has(key))
        rows.push_back({name, number_cell(job[key].number(), seconds(job[key].number()), job[key].pointer())});
    if (job.has("throughput") && job["throughput"].has("samples_per_s")) {
      const JsonView t = job["throughput"]["samples_per_s"];
      rows.push_back({"throughput (samples/s)", number_cell(t.number(), num(t.number(), 6), t.pointer())});
    }
    std::string body = render(key_values("job-" + std::to_string(j), std::move(rows)));
    if (job.has("iterations") && !job["iterations"].raw().empty())
      body += iteration_chart(job, r, "job-" + std::to_string(j) + "-iteration-time");
    page.section("job-" + std::to_string(j), "Job " + job["name"].text(), body);
    ++j;
  }
  if (r.has("links")) shared_links_section(page, r, series);
  fleet_section(page, r);
}

void train_section(Page& page, const JsonView& r) {
  if (!r.has("train"))
    return page.omitted("train", "Loss and accuracy", "the run trains no model for real (no workload.train)");
  const JsonView t = r["train"];
  if (!t.has("evaluations") || t["evaluations"].raw().empty()) {
    page.omitted("train", "Loss and accuracy", "results.json /train holds no evaluations");
    return;
  }
  LineChart loss, acc;
  loss.id = "train-loss";
  loss.title = "Loss against simulated time";
  loss.x_label = acc.x_label = "simulated time (s)";
  loss.y_label = "loss";
  acc.id = "train-accuracy";
  acc.title = "Accuracy against simulated time";
  acc.y_label = "accuracy";
  Series train_loss{"training loss", palette(1), {}, true}, eval_loss{"evaluation loss", palette(0), {}, false},
      accuracy{"evaluation accuracy", palette(2), {}, false};
  for (const JsonView& e : t["evaluations"].items()) {
    const double x = e["time_s"].number();
    if (e.has("train_loss")) train_loss.points.push_back({x, e["train_loss"].number()});
    if (e.has("loss")) eval_loss.points.push_back({x, e["loss"].number()});
    if (e.has("accuracy")) accuracy.points.push_back({x, e["accuracy"].number()});
  }
  loss.series = {eval_loss, train_loss};
  acc.series = {accuracy};
  if (t.has("target_accuracy")) {
    const double target = t["target_accuracy"].number();
    acc.bands.push_back({target, target, "target accuracy " + num(target, 4), palette(4)});
    acc.legend.push_back({"target accuracy", palette(4)});
  }
  if (t.has("time_to_target_s")) {
    acc.markers.push_back({t["time_to_target_s"].number(),
                           "target reached at " + num(t["time_to_target_s"].number(), 6) + " s", palette(4), "target"});
  }
  std::vector<std::pair<std::string, Cell>> rows;
  for (auto [key, name] : {std::pair{"final_accuracy", "final accuracy"}, std::pair{"best_accuracy", "best accuracy"},
                           std::pair{"final_loss", "final loss"}, std::pair{"time_to_target_s", "time to target (s)"},
                           std::pair{"iterations_to_target", "iterations to target"}})
    if (t.has(key)) rows.push_back({name, number_cell(t[key].number(), num(t[key].number(), 6), t[key].pointer())});
  page.section("train", "Loss and accuracy (workload.train)",
               render(key_values("train", std::move(rows))) + render(loss) + render(acc));
}

}  // namespace trainvp::html
