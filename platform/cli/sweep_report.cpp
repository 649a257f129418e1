#include "platform/cli/sweep_report.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "platform/core/errors.hpp"
#include "platform/report/html/charts.hpp"
#include "platform/report/html/page.hpp"
#include "platform/report/html/svg.hpp"
#include "platform/sweep/spec.hpp"
#include "platform/sweep/store.hpp"

namespace trainvp {

// Named for the file, not anonymous: its using-directive must not reach the other sources of a
// unity batch.
namespace sweep_report_page {

using nlohmann::json;
using namespace trainvp::html;
using sweep::ColumnInfo;
using sweep::PointRow;

std::string value_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return num(v.get<double>(), 6);
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

Cell json_cell(const json& v) {
  if (v.is_number()) return number_cell(v.get<double>(), num(v.get<double>(), 6));
  return text_cell(value_text(v));
}

// A column's value of a row: a parameter, a metric, or one of the fixed columns.
json column_value(const sweep::Store& store, const PointRow& r, const std::string& name) {
  const auto params = store.parameters(), metrics = store.metrics();
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name && i < r.params.size()) return r.params[i];
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].name == name && i < r.metrics.size()) return r.metrics[i];
  if (name == "wall_s") return r.wall_s;
  if (name == "idx") return r.idx;
  throw ScenarioError("", "sweep.db has no column \"" + name + "\" that the SPEC's plot names");
}

// A value on a plot axis: a number, a quantity's number ("400Gbps" -> 400), else nullopt (a
// category).
std::optional<double> axis_number(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string())
    if (auto q = sweep::split_quantity(v.get<std::string>())) return q->value;
  return std::nullopt;
}

std::string plot_section(const sweep::Store& store, const sweep::SweepSpec& spec, const std::vector<PointRow>& rows) {
  std::string body;
  std::size_t k = 0;
  for (const sweep::PlotSpec& p : spec.plots) {
    LineChart c;
    c.id = "plot-" + std::to_string(k++);
    c.title = p.title.empty() ? spec.name + ": " + p.y + " vs " + p.x : p.title;
    c.x_label = p.x;
    c.y_label = p.y;
    std::string unit;
    for (auto& m : store.metrics())
      if (m.name == p.y && !m.unit.empty()) c.y_label += " (" + m.unit + ")";
    bool log_param = false;
    for (auto& q : store.parameters())
      if (q.name == p.x && q.scale == "log") log_param = true;
    // Categories (strings that are not quantities) take their order of first appearance.
    std::map<std::string, double> category;
    std::map<std::string, std::size_t> series_of;
    for (const PointRow& r : rows) {
      if (r.status != "ok") continue;
      bool keep = true;
      for (auto& [col, want] : p.where) keep = keep && column_value(store, r, col) == want;
      const json y = column_value(store, r, p.y);
      if (!keep || !y.is_number()) continue;
      const json xv = column_value(store, r, p.x);
      double x;
      if (auto n = axis_number(xv)) x = *n;
      else x = category.try_emplace(value_text(xv), static_cast<double>(category.size())).first->second;
      const std::string by = p.by.empty() ? p.y : p.by + " = " + value_text(column_value(store, r, p.by));
      auto [it, fresh] = series_of.try_emplace(by, c.series.size());
      if (fresh) c.series.push_back({by, palette(it->second), {}, false});
      c.series[it->second].points.push_back({x, y.get<double>()});
    }
    // Series in ascending order of their `by` values (numbers and quantities by value, as `trainvp
    // plot` orders them), so legends read in order.
    auto by_value = [](const Series& s) {
      const auto eq = s.name.rfind(" = ");
      const std::string v = s.name.substr(eq == std::string::npos ? 0 : eq + 3);
      char* end = nullptr;
      const double n = std::strtod(v.c_str(), &end);
      if (!v.empty() && *end == '\0') return std::pair<std::optional<double>, std::string>{n, v};
      if (auto q = sweep::split_quantity(v)) return std::pair<std::optional<double>, std::string>{q->value, v};
      return std::pair<std::optional<double>, std::string>{std::nullopt, v};
    };
    std::stable_sort(c.series.begin(), c.series.end(), [&](const Series& a, const Series& b) {
      const auto x = by_value(a), y = by_value(b);
      if (x.first && y.first) return *x.first < *y.first;
      return !x.first && !y.first ? false : x.first.has_value();  // strings keep their order, after numbers
    });
    for (std::size_t i = 0; i < c.series.size(); ++i) c.series[i].color = palette(i);
    // Points of a series that share an x (other parameters vary) are dots, not a line.
    for (auto& s : c.series) {
      std::stable_sort(s.points.begin(), s.points.end());
      for (std::size_t i = 1; i < s.points.size(); ++i) s.lines = s.lines && s.points[i].first != s.points[i - 1].first;
    }
    c.logx = p.logx.value_or(log_param && category.empty());
    c.logy = p.logy.value_or(false);
    c.y_from_zero = !c.logy;
    if (c.series.empty()) {
      body += "<p class=\"omitted\" data-omitted=\"" + escape(c.id) + "\">" + escape(c.title) +
              ": not drawn, no point finished ok with a value.</p>\n";
      continue;
    }
    if (!category.empty()) {
      std::string names;
      for (auto& [name, x] : category) names += (names.empty() ? "" : ", ") + num(x) + " = " + name;
      c.x_label += " (categories: " + names + ")";
    }
    body += render(c);
  }
  return body;
}

// Every point: a sortable row of its parameters, status, wall time and metrics.
Table points_table(const sweep::Store& store, const std::vector<PointRow>& rows) {
  Table t;
  t.id = "points";
  t.sortable = true;
  t.head = {"idx", "id"};
  for (auto& p : store.parameters()) t.head.push_back(p.name);
  t.head.push_back("status");
  t.head.push_back("wall_s");
  for (auto& m : store.metrics()) t.head.push_back(m.name + (m.unit.empty() ? "" : " (" + m.unit + ")"));
  for (const PointRow& r : rows) {
    std::vector<Cell> cells = {number_cell(static_cast<double>(r.idx), std::to_string(r.idx)), text_cell(r.id)};
    for (auto& v : r.params) cells.push_back(json_cell(v));
    cells.push_back(text_cell(r.status));
    cells.push_back(json_cell(r.wall_s));
    for (auto& v : r.metrics) cells.push_back(json_cell(v));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

// The points of one status (infeasible, failed) with their values in one cell and their error:
// what the point needed, or why it failed.
Table status_table(const sweep::Store& store, const std::vector<PointRow>& rows, const std::string& status) {
  Table t;
  t.id = status;
  t.head = {"idx", "id", "values", status == "infeasible" ? "what it needed" : "error"};
  const auto params = store.parameters();
  for (const PointRow& r : rows) {
    if (r.status != status) continue;
    std::string values;
    for (std::size_t i = 0; i < params.size() && i < r.params.size(); ++i)
      values += (values.empty() ? "" : ", ") + params[i].name + " = " + value_text(r.params[i]);
    t.rows.push_back({number_cell(static_cast<double>(r.idx), std::to_string(r.idx)), text_cell(r.id),
                      text_cell(values), text_cell(value_text(r.error))});
  }
  return t;
}

}  // namespace sweep_report_page

std::string sweep_report_html(const std::string& db_path) {
  using namespace sweep_report_page;
  std::optional<sweep::Store> opened;
  try {
    opened.emplace(sweep::Store::open(db_path));
  } catch (const std::runtime_error& e) {
    throw ScenarioError("", e.what());
  }
  const sweep::Store& store = *opened;
  auto meta = store.meta();
  sweep::SweepSpec spec;
  try {
    spec = sweep::parse_spec(json::parse(meta["spec"]), meta["spec_file"]);
  } catch (const json::exception& e) {
    throw ScenarioError("", "\"" + db_path + "\": its SPEC (sweep table, key spec) is not JSON: " + e.what());
  } catch (const ScenarioError& e) {
    throw ScenarioError(e.path, std::string("in the SPEC that \"") + db_path + "\" holds: " + e.what());
  }
  const std::vector<PointRow> rows = store.rows();
  std::map<std::string, std::size_t> by_status;
  for (auto& r : rows) ++by_status[r.status];

  Page page("trainvp sweep report: " + meta["name"],
            "sweep database " + db_path + ", trainvp " + meta["trainvp_version"] +
                ". Every figure is read from sweep.db; hover a mark for its value, click a heading to sort.");
  {
    std::vector<std::pair<std::string, Cell>> kv;
    kv.push_back({"sweep", text_cell(meta["name"])});
    if (!meta["description"].empty()) kv.push_back({"description", text_cell(meta["description"])});
    kv.push_back({"design", text_cell(meta["design"])});
    kv.push_back({"base scenario", text_cell(meta["base"])});
    kv.push_back({"shard", text_cell(meta["shard"])});
    kv.push_back({"points", number_cell(static_cast<double>(rows.size()), std::to_string(rows.size()))});
    for (auto& [status, n] : by_status)
      kv.push_back({"points " + status, number_cell(static_cast<double>(n), std::to_string(n))});
    Table params;
    params.id = "design";
    params.head = {"parameter", "values"};
    for (const sweep::ParamSpec& p : spec.params) {
      std::string values;
      if (p.has_range)
        values = "range " + num(p.lo.value, 6) + p.lo.unit + " to " + num(p.hi.value, 6) + p.hi.unit + " (" +
                 sweep::scale_name(p.scale) + (p.steps ? ", " + std::to_string(p.steps) + " steps" : "") + ")";
      else
        for (auto& v : p.values) values += (values.empty() ? "" : ", ") + value_text(v);
      params.rows.push_back({text_cell(p.path), text_cell(values)});
    }
    page.section("design", "Design", render(key_values("sweep", std::move(kv))) + render(params));
  }
  if (!meta["best"].empty()) {
    json best;
    try {
      best = json::parse(meta["best"]);
    } catch (const json::exception& e) {
      throw ScenarioError("", "\"" + db_path + "\": its best point (sweep table, key best) is not JSON: " + e.what());
    }
    std::vector<std::pair<std::string, Cell>> kv;
    kv.push_back({"point", text_cell("#" + value_text(best.value("idx", json())) + " " + best.value("id", ""))});
    kv.push_back({std::string(best.value("goal", "") == "max" ? "highest " : "lowest ") + best.value("metric", ""),
                  json_cell(best.value("value", json()))});
    if (best.contains("parameters") && best["parameters"].is_object())
      for (auto& [k, v] : best["parameters"].items()) kv.push_back({k, json_cell(v)});
    page.section("best", "Best point", render(key_values("best", std::move(kv))));
  } else {
    page.omitted("best", "Best point", spec.best ? "no point finished ok with a value" : "the SPEC names no best");
  }
  if (spec.plots.empty()) page.omitted("plots", "Plots", "the SPEC asks for no plots");
  else page.section("plots", "Plots the SPEC asks for", plot_section(store, spec, rows));
  for (auto [status, heading] : {std::pair{"infeasible", "Infeasible points"}, std::pair{"failed", "Failed points"}}) {
    if (!by_status.count(status)) {
      page.omitted(status, heading, std::string("no point is ") + status);
      continue;
    }
    page.section(status, heading, render(status_table(store, rows, status)));
  }
  page.section("points", "Every point", render(points_table(store, rows)));
  return page.render();
}

}  // namespace trainvp
