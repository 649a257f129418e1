// The fail-slow sections (results.json /health): the detector, each diagnosis against the
// injected truth, and the mitigation ladder's losses against its costs.
#include <string>

#include "platform/report/html/charts.hpp"
#include "platform/report/html/run_sections.hpp"
#include "platform/report/html/svg.hpp"

namespace trainvp::html {

namespace {

Cell value_cell(const JsonView& v, int digits = 6) {
  return number_cell(v.number(), num(v.number(), digits), v.pointer());
}
Cell seconds_or_blank(const JsonView& o, const std::string& key) {
  return o.has(key) ? number_cell(o[key].number(), seconds(o[key].number()), o[key].pointer()) : text_cell("");
}

std::string list_text(const JsonView& a) {
  std::string out;
  if (!a.raw().is_array()) return out;
  for (auto& v : a.raw()) out += (out.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

std::string detector_body(const JsonView& d) {
  std::vector<std::pair<std::string, Cell>> rows;
  for (auto [key, name] :
       {std::pair{"windows", "windows"}, std::pair{"windows_disturbed", "windows disturbed"},
        std::pair{"windows_fast_forwarded", "windows fast-forwarded"}, std::pair{"period_calls", "calls per period"},
        std::pair{"communicators", "communicators"}, std::pair{"gemm_probes", "GEMM probes"},
        std::pair{"link_probe_edges", "link probe edges"}, std::pair{"tracking_overhead", "tracking overhead"}})
    if (d.has(key)) rows.push_back({name, value_cell(d[key])});
  std::string body = render(key_values("detector", std::move(rows)));
  if (d.has("changes") && !d["changes"].raw().empty()) {
    Table t;
    t.id = "changes";
    t.head = {"change began", "detected", "direction", "iteration before", "iteration after"};
    for (const JsonView& c : d["changes"].items())
      t.rows.push_back({seconds_or_blank(c, "change_s"), seconds_or_blank(c, "detected_s"),
                        text_cell(c.text_or("direction", "")), seconds_or_blank(c, "before_s"),
                        seconds_or_blank(c, "after_s")});
    body += "<h3>Changes the detector found</h3>\n" + render(t);
  } else {
    body += paragraph("The detector found no change.");
  }
  return body;
}

std::string truth_body(const JsonView& h) {
  std::string body;
  if (h.has("faults") && !h["faults"].raw().empty()) {
    Table t;
    t.id = "diagnosis-vs-truth";
    t.head = {"fault",   "kind", "true cause", "active", "detected", "diagnosed cause", "diagnosed GPUs / links",
              "reaction"};
    for (const JsonView& f : h["faults"].items()) {
      std::string cause, where;
      if (f.has("diagnosis") && h.has("diagnoses")) {
        const JsonView d = h["diagnoses"][static_cast<std::size_t>(f["diagnosis"].number())];
        cause = d.text_or("cause", "");
        where = list_text(d.has("gpus") ? d["gpus"] : d);
        if (d.has("links") && !d["links"].raw().empty()) where += (where.empty() ? "" : "; ") + list_text(d["links"]);
      }
      t.rows.push_back(
          {value_cell(f["index"]), text_cell(f.text_or("kind", "")), text_cell(f.text_or("cause", "")),
           text_cell(num(f.number_or("start_s", 0), 6) + " s to " + num(f.number_or("end_s", 0), 6) + " s"),
           text_cell(f.has("detected") && f["detected"].boolean() ? "yes" : "no"), text_cell(cause), text_cell(where),
           seconds_or_blank(f, "reaction_s")});
    }
    body += "<h3>Each injected fault and its diagnosis</h3>\n" + render(t);
  }
  if (h.has("diagnoses")) {
    Table t;
    t.id = "diagnoses";
    t.head = {"diagnosis", "cause", "GPUs", "links", "confidence", "slowdown", "diagnosed at", "answers fault"};
    std::size_t i = 0;
    for (const JsonView& d : h["diagnoses"].items())
      t.rows.push_back(
          {number_cell(static_cast<double>(i), std::to_string(i)), text_cell(d.text_or("cause", "")),
           text_cell(d.has("gpus") ? list_text(d["gpus"]) : ""), text_cell(d.has("links") ? list_text(d["links"]) : ""),
           d.has("confidence") ? value_cell(d["confidence"], 4) : text_cell(""),
           d.has("slowdown") ? value_cell(d["slowdown"], 4) : text_cell(""), seconds_or_blank(d, "diagnosed_s"),
           text_cell(d.has("fault") ? num(d["fault"].number()) : "none: a false positive")}),
          ++i;
    if (!t.rows.empty()) body += "<h3>Diagnoses</h3>\n" + render(t);
  }
  if (h.has("score")) {
    std::vector<std::pair<std::string, Cell>> rows;
    for (auto& [key, value] : h["score"].raw().items())
      if (value.is_number()) rows.push_back({key, value_cell(h["score"][key])});
    body += "<h3>Score against the injected truth</h3>\n" + render(key_values("score", std::move(rows)));
  }
  return body;
}

std::string ladder_body(const JsonView& m) {
  std::string body =
      paragraph("Policy " + m.text_or("policy", "") + ", steps " + list_text(m.has("steps") ? m["steps"] : m) +
                "; every rank paused " + seconds(m.number_or("paused_s", 0)) + " in all, " +
                num(m.number_or("rechecks", 0)) + " re-checks.");
  if (!m.has("actions") || m["actions"].raw().empty()) return body + paragraph("The ladder took no action.");
  Table t;
  t.id = "actions";
  t.head = {"action", "step", "at", "loss that paid for it", "pause (cost)", "after iteration", "note"};
  BarChart c;
  c.id = "ladder";
  c.layout = BarChart::Layout::Grouped;
  c.title = "Each action: the loss that paid for it against its pause";
  c.value_label = "seconds";
  c.segments = {"loss (loss_s)", "cost (pause_s)"};
  std::size_t i = 0;
  for (const JsonView& a : m["actions"].items()) {
    const std::string name = std::to_string(i) + " " + a.text_or("step", "");
    t.rows.push_back({number_cell(static_cast<double>(i), std::to_string(i)), text_cell(a.text_or("step", "")),
                      seconds_or_blank(a, "at_s"), seconds_or_blank(a, "loss_s"), seconds_or_blank(a, "pause_s"),
                      a.has("after_iteration") ? value_cell(a["after_iteration"], 10) : text_cell(""),
                      text_cell(a.text_or("note", ""))});
    c.bars.push_back({name, {a.number_or("loss_s", 0), a.number_or("pause_s", 0)}});
    ++i;
  }
  return body + render(c) + render(t);
}

}  // namespace

void health_sections(Page& page, const JsonView& r) {
  if (!r.has("health"))
    return page.omitted("health", "Fail-slow detection, diagnoses and mitigation",
                        "the scenario has no health section");
  const JsonView h = r["health"];
  if (h.has("detector")) page.section("detector", "Fail-slow detector", detector_body(h["detector"]));
  else page.omitted("detector", "Fail-slow detector", "results.json /health has no detector");
  page.section("diagnoses", "Diagnoses against the injected truth", truth_body(h));
  if (h.has("mitigation"))
    page.section("ladder", "Mitigation ladder: losses against costs", ladder_body(h["mitigation"]));
  else page.omitted("ladder", "Mitigation ladder", "results.json /health has no mitigation");
}

}  // namespace trainvp::html
