#include "platform/sweep/spec.hpp"

#include <cctype>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "platform/config/document.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/params.hpp"

namespace trainvp::sweep {

namespace fs = std::filesystem;

const char* design_name(Design d) {
  switch (d) {
    case Design::Grid: return "grid";
    case Design::Zip: return "zip";
    case Design::Random: return "random";
  }
  return "?";
}

const char* scale_name(Scale s) { return s == Scale::Log ? "log" : "linear"; }

std::optional<RangeEnd> split_quantity(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  while (*s == ' ') ++s;
  if (!(std::isdigit(static_cast<unsigned char>(*s)) || *s == '.' || *s == '+' || *s == '-')) return std::nullopt;
  double v = std::strtod(s, &end);
  if (end == s || !std::isfinite(v)) return std::nullopt;
  while (*end == ' ') ++end;
  std::string unit(end);
  if (unit.empty()) return std::nullopt;
  for (char c : unit)
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '/')) return std::nullopt;
  return RangeEnd{v, unit};
}

json range_value(const ParamSpec& p, double x) {
  if (p.integer) {
    double lo = std::ceil(p.lo.value), hi = std::floor(p.hi.value);
    long long v = std::llround(std::min(std::max(x, lo), hi));
    if (p.lo.unit.empty()) return json(static_cast<std::int64_t>(v));
    return json(std::to_string(v) + p.lo.unit);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", p.digits, x);
  if (!p.lo.unit.empty()) return json(std::string(buf) + p.lo.unit);
  return json(std::strtod(buf, nullptr));
}

std::vector<MetricSpec> default_metrics() {
  std::vector<MetricSpec> m = {{"iteration_time_s", "/iteration_time_s", ""},
                               {"samples_per_s", "/throughput/samples_per_s", ""},
                               {"model_flops_per_s", "/throughput/model_flops_per_s", ""},
                               {"exposed_comm_s", "/exposed_comm_s", ""}};
  for (auto& x : m) x.unit = infer_metric_unit(x.pointer);
  return m;
}

std::string infer_metric_unit(const std::string& pointer) {
  static const std::vector<std::pair<std::string, std::string>> known = {
      {"/iteration_time_s", "s"},
      {"/compute_time_s", "s"},
      {"/comm_time_s", "s"},
      {"/exposed_comm_s", "s"},
      {"/overlap_ratio", "fraction"},
      {"/throughput/samples_per_s", "samples/s"},
      {"/throughput/tokens_per_s", "tokens/s"},
      {"/throughput/model_flops_per_s", "FLOP/s"},
      {"/workload/layers", "layers"},
      {"/workload/parameters", "parameters"},
      {"/workload/gradient_bytes", "bytes"},
      {"/workload/flops_per_gpu_iteration", "FLOPs"},
      {"/workload/global_batch", "samples"},
      {"/sim/wall_s", "s"},
      {"/sim/events", "events"},
      {"/sim/delta_cycles", "delta cycles"},
      {"/sim/simulated_s", "s"},
  };
  for (auto& [p, u] : known)
    if (p == pointer) return u;
  std::string last = pointer.substr(pointer.find_last_of('/') + 1);
  auto ends = [&](const std::string& suffix) {
    return last.size() > suffix.size() && last.compare(last.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends("_per_s")) {
    std::string what = last.substr(0, last.size() - 6);
    if (what.size() >= 5 && what.compare(what.size() - 5, 5, "flops") == 0) return "FLOP/s";
    std::string word = what.substr(what.find_last_of('_') == std::string::npos ? 0 : what.find_last_of('_') + 1);
    return word + "/s";
  }
  if (ends("_s")) return "s";
  if (ends("_bytes")) return "bytes";
  if (ends("_bps")) return "bit/s";
  return "";
}

std::string default_plot_file(const std::string& x, const std::string& y, const std::string& by) {
  auto clean = [](const std::string& c) {
    std::string out;
    for (char ch : c) {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-') out += ch;
      else if (ch == '/' || ch == '.') out += out.empty() ? "" : ".";
      else out += '_';
    }
    return out.empty() ? std::string("root") : out;
  };
  std::string f = clean(y) + "-vs-" + clean(x);
  if (!by.empty()) f += "-by-" + clean(by);
  return f + ".svg";
}

namespace {

using params_detail::closest;

void check_keys(const json& obj, const std::string& path, const std::vector<std::string>& allowed,
                const std::string& what) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (auto& a : allowed) ok = ok || a == it.key();
    if (ok) continue;
    std::string hint = closest(it.key(), allowed);
    std::string list;
    for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    throw ScenarioError(ptr_join(path, it.key()), "unknown key \"" + it.key() + "\" in " + what +
                                                      (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                                                      "; allowed: " + list);
  }
}

const json& require_object(const json& v, const std::string& path, const std::string& what) {
  if (!v.is_object()) fail_expected(path, what, v);
  return v;
}

std::string get_string(const json& v, const std::string& path) {
  if (!v.is_string()) fail_expected(path, "a string", v);
  return v.get<std::string>();
}

bool get_bool(const json& v, const std::string& path) {
  if (!v.is_boolean()) fail_expected(path, "true or false", v);
  return v.get<bool>();
}

std::int64_t get_int(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
  std::string expected = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number()) fail_expected(path, expected, v);
  double d = v.get<double>();
  if (v.is_number_float() && (d != std::floor(d) || !std::isfinite(d))) fail_expected(path, expected, v);
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) fail_expected(path, expected, v);
  return v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>())
                                : (v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(d));
}

// A JSON pointer naming a value inside the scenario (not the root).
std::string get_pointer(const json& v, const std::string& path, const std::string& what) {
  std::string p = get_string(v, path);
  if (p.empty() || p[0] != '/') fail_expected(path, what + ": a JSON pointer starting with \"/\"", v);
  try {
    json::json_pointer jp(p);
    (void)jp;
  } catch (const json::exception&) {
    fail_expected(path, what + ": a valid JSON pointer (RFC 6901; write ~0 for ~ and ~1 for /)", v);
  }
  return p;
}

RangeEnd range_end(const json& v, const std::string& path) {
  if (v.is_number()) return {v.get<double>(), ""};
  if (v.is_string())
    if (auto q = split_quantity(v.get<std::string>())) return *q;
  fail_expected(path, "a number or a quantity string such as \"100Gbps\"", v);
}

bool is_metric_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

ParamSpec parse_param(const json& v, const std::string& path, Design design) {
  require_object(v, path,
                 "a parameter object {\"path\": ..., \"values\": [...]} or {\"path\": ..., \"range\": [lo, hi]}");
  check_keys(v, path, {"path", "values", "range", "steps", "scale", "integer", "digits"}, "a parameter");
  ParamSpec p;
  if (!v.contains("path"))
    throw ScenarioError(ptr_join(path, "path"), "missing required key \"path\" (the JSON pointer to vary)");
  p.path = get_pointer(v["path"], ptr_join(path, "path"), "the scenario value to vary");
  const bool has_values = v.contains("values"), has_range = v.contains("range");
  if (has_values == has_range)
    throw ScenarioError(path,
                        std::string("give exactly one of \"values\" and \"range\"") + (has_values ? ", not both" : ""));
  auto only_with_range = [&](const char* key) {
    if (v.contains(key) && !has_range)
      throw ScenarioError(ptr_join(path, key), std::string("\"") + key + "\" applies only to a \"range\"");
  };
  for (const char* k : {"steps", "scale", "integer", "digits"}) only_with_range(k);

  if (has_values) {
    const std::string vp = ptr_join(path, "values");
    const json& vals = v["values"];
    if (!vals.is_array() || vals.empty()) fail_expected(vp, "a non-empty array of values", vals);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      if (vals[i].is_null())
        fail_expected(ptr_join(vp, i), "a value (number, string, boolean, object or array)", vals[i]);
      if (!seen.insert(vals[i].dump()).second)
        throw ScenarioError(ptr_join(vp, i), "duplicate value " + vals[i].dump() + ": every value must differ");
      p.values.push_back(vals[i]);
    }
    return p;
  }

  const std::string rp = ptr_join(path, "range");
  const json& r = v["range"];
  if (!r.is_array() || r.size() != 2) fail_expected(rp, "[lo, hi]: two numbers or two quantity strings", r);
  p.has_range = true;
  p.lo = range_end(r[0], ptr_join(rp, 0));
  p.hi = range_end(r[1], ptr_join(rp, 1));
  if (p.lo.unit != p.hi.unit)
    throw ScenarioError(rp, "both ends need the same unit, found \"" + p.lo.unit + "\" and \"" + p.hi.unit + "\"");
  if (!(p.lo.value < p.hi.value)) fail_expected(rp, "lo < hi", r);
  if (v.contains("scale")) {
    std::string s = get_string(v["scale"], ptr_join(path, "scale"));
    if (s == "linear") p.scale = Scale::Linear;
    else if (s == "log") p.scale = Scale::Log;
    else fail_expected(ptr_join(path, "scale"), "one of \"linear\", \"log\"", v["scale"]);
  }
  if (p.scale == Scale::Log && p.lo.value <= 0) fail_expected(ptr_join(rp, 0), "a value > 0 for a log scale", r[0]);
  if (v.contains("integer")) p.integer = get_bool(v["integer"], ptr_join(path, "integer"));
  if (p.integer && std::ceil(p.lo.value) > std::floor(p.hi.value))
    fail_expected(rp, "a range that holds at least one integer", r);
  // Values are computed in doubles: a range wider than a double holds (or a log range whose ratio
  // is) made the inner values infinite, written as null into the scenario; integers beyond 2^53
  // are not exact and beyond 2^63 rounded to garbage (docs/reliability.md, "Sweep ranges").
  if (!std::isfinite(p.hi.value - p.lo.value) || (p.scale == Scale::Log && !std::isfinite(p.hi.value / p.lo.value)))
    fail_expected(rp,
                  std::string("a range whose ") + (p.scale == Scale::Log ? "ratio hi / lo" : "width hi - lo") +
                      " is below the largest double (about 1.8e308)",
                  r);
  constexpr double kExactInteger = 9007199254740992.0;  // 2^53: every integer up to it is exact in a double
  if (p.integer && (p.lo.value < -kExactInteger || p.hi.value > kExactInteger))
    fail_expected(rp, "an integer range within [-2^53, 2^53] (9007199254740992), where every integer is exact", r);
  if (v.contains("digits")) p.digits = static_cast<int>(get_int(v["digits"], ptr_join(path, "digits"), 1, 17));
  if (design == Design::Random) {
    if (v.contains("steps"))
      throw ScenarioError(ptr_join(path, "steps"),
                          "\"steps\" applies to grid and zip designs; a random design samples the range");
    return p;
  }
  if (!v.contains("steps"))
    throw ScenarioError(ptr_join(path, "steps"), std::string("missing required key \"steps\": a ") +
                                                     design_name(design) +
                                                     " design needs the number of values to take from the range");
  p.steps = static_cast<int>(get_int(v["steps"], ptr_join(path, "steps"), 2, 100000));
  std::set<std::string> seen;
  for (int k = 0; k < p.steps; ++k) {
    double t = static_cast<double>(k) / (p.steps - 1);
    double x = p.scale == Scale::Log ? p.lo.value * std::pow(p.hi.value / p.lo.value, t)
                                     : p.lo.value + (p.hi.value - p.lo.value) * t;
    if (k == p.steps - 1) x = p.hi.value;
    json val = range_value(p, x);
    if (!seen.insert(val.dump()).second)
      throw ScenarioError(ptr_join(path, "steps"), "the range gives the value " + val.dump() + " twice after rounding" +
                                                       (p.integer ? " to integers" : "") + "; use fewer steps");
    p.values.push_back(val);
  }
  return p;
}

MetricSpec parse_metric(const std::string& name, const json& v, const std::string& path) {
  if (!is_metric_name(name))
    throw ScenarioError(
        path, "metric name \"" + name + "\" must be a letter or _ followed by letters, digits or _ (at most 64)");
  static const std::vector<std::string> reserved = {"id", "idx", "status", "exit_code", "wall_s", "error"};
  for (auto& r : reserved)
    if (lower(name) == r)
      throw ScenarioError(path, "metric name \"" + name + "\" is a fixed column of sweep.db; choose another");
  MetricSpec m;
  m.name = name;
  if (v.is_string()) {
    m.pointer = get_pointer(v, path, "a results.json value");
    m.unit = infer_metric_unit(m.pointer);
  } else if (v.is_object()) {
    check_keys(v, path, {"path", "unit"}, "a metric");
    if (!v.contains("path"))
      throw ScenarioError(ptr_join(path, "path"), "missing required key \"path\" (a pointer into results.json)");
    m.pointer = get_pointer(v["path"], ptr_join(path, "path"), "a results.json value");
    m.unit = v.contains("unit") ? get_string(v["unit"], ptr_join(path, "unit")) : infer_metric_unit(m.pointer);
  } else {
    fail_expected(path, "a JSON pointer into results.json, or {\"path\": ..., \"unit\": ...}", v);
  }
  return m;
}

PlotSpec parse_plot(const json& v, const std::string& path, const SweepSpec& s) {
  require_object(v, path, "a plot object {\"x\": ..., \"y\": ...}");
  check_keys(v, path, {"x", "y", "by", "where", "file", "title", "logx", "logy"}, "a plot");
  std::vector<std::string> params, metrics;
  for (auto& p : s.params) params.push_back(p.path);
  for (auto& m : s.metrics) metrics.push_back(m.name);
  auto is_in = [](const std::vector<std::string>& v, const std::string& x) {
    for (auto& e : v)
      if (e == x) return true;
    return false;
  };
  auto column = [&](const char* key, bool allow_metric) {
    std::string kp = ptr_join(path, key);
    if (!v.contains(key)) throw ScenarioError(kp, std::string("missing required key \"") + key + "\"");
    std::string c = get_string(v[key], kp);
    if (is_in(params, c) || (allow_metric && is_in(metrics, c))) return c;
    std::string list;
    for (auto& p : params) list += (list.empty() ? "" : ", ") + p;
    if (allow_metric)
      for (auto& m : metrics) list += (list.empty() ? "" : ", ") + m;
    throw ScenarioError(kp, "\"" + c + "\" is not a " +
                                (allow_metric ? "parameter path or metric name" : "parameter path") +
                                " of this sweep; expected one of " + list);
  };
  PlotSpec p;
  p.x = column("x", true);
  p.y = column("y", true);
  if (v.contains("by")) p.by = column("by", false);
  if (v.contains("where")) {
    const std::string wp = ptr_join(path, "where");
    require_object(v["where"], wp, "an object {\"/parameter/path\": value}");
    for (auto it = v["where"].begin(); it != v["where"].end(); ++it) {
      if (!is_in(params, it.key()))
        throw ScenarioError(ptr_join(wp, it.key()), "\"" + it.key() + "\" is not a parameter path of this sweep");
      p.where.emplace_back(it.key(), it.value());
    }
  }
  if (v.contains("title")) p.title = get_string(v["title"], ptr_join(path, "title"));
  if (v.contains("logx")) p.logx = get_bool(v["logx"], ptr_join(path, "logx"));
  if (v.contains("logy")) p.logy = get_bool(v["logy"], ptr_join(path, "logy"));
  p.file = v.contains("file") ? get_string(v["file"], ptr_join(path, "file")) : default_plot_file(p.x, p.y, p.by);
  const std::string fp = ptr_join(path, "file");
  fs::path f(p.file);
  std::string ext = f.extension().string();
  if (ext != ".svg" && ext != ".png" && ext != ".pdf")
    fail_expected(fp, "a file name ending in .svg, .png or .pdf", v.value("file", json(p.file)));
  if (f.is_absolute() || p.file.find("..") != std::string::npos)
    fail_expected(fp, "a file name relative to DIR/plots/ (no absolute path, no ..)", v["file"]);
  return p;
}

}  // namespace

SweepSpec parse_spec(const json& doc, const std::string& spec_file) {
  SweepSpec s;
  s.file = spec_file;
  s.doc = doc;
  require_object(doc, "", "a sweep spec object {\"sweep\": 1, \"base\": ..., \"parameters\": [...]}");
  check_keys(doc, "",
             {"sweep", "name", "description", "base", "set", "design", "parameters", "samples", "seed", "metrics",
              "plots", "infeasible", "best"},
             "a sweep spec");
  if (!doc.contains("sweep"))
    throw ScenarioError("/sweep", "missing required key \"sweep\" (the sweep format version, 1)");
  if (!doc["sweep"].is_number_integer() || doc["sweep"].get<std::int64_t>() != kSweepFormatVersion)
    fail_expected("/sweep", "sweep format version 1 (the only version this build of trainvp reads)", doc["sweep"]);

  std::string stem = fs::path(spec_file).stem().string();
  s.name = doc.contains("name") ? get_string(doc["name"], "/name") : (stem.empty() ? "sweep" : stem);
  if (s.name.empty()) fail_expected("/name", "a non-empty string", doc["name"]);
  if (doc.contains("description")) s.description = get_string(doc["description"], "/description");

  if (!doc.contains("base"))
    throw ScenarioError("/base", "missing required key \"base\" (the scenario file every point starts from)");
  s.base_as_written = get_string(doc["base"], "/base");
  if (s.base_as_written.empty()) fail_expected("/base", "a scenario file path", doc["base"]);
  fs::path base(s.base_as_written);
  if (base.is_relative()) base = fs::path(spec_file).parent_path() / base;
  std::error_code ec;
  fs::path abs = fs::absolute(base, ec);
  s.base = (ec ? base : abs).lexically_normal().string();

  if (doc.contains("set")) {
    require_object(doc["set"], "/set", "an object {\"/json/pointer\": value} of fixed overrides");
    for (auto it = doc["set"].begin(); it != doc["set"].end(); ++it) {
      std::string kp = ptr_join("/set", it.key());
      get_pointer(json(it.key()), kp, "a scenario value to fix");
      s.set.emplace_back(it.key(), it.value());
    }
  }

  if (doc.contains("design")) {
    std::string d = get_string(doc["design"], "/design");
    if (d == "grid") s.design = Design::Grid;
    else if (d == "zip") s.design = Design::Zip;
    else if (d == "random") s.design = Design::Random;
    else fail_expected("/design", "one of \"grid\", \"zip\", \"random\"", doc["design"]);
  }

  if (!doc.contains("parameters"))
    throw ScenarioError("/parameters", "missing required key \"parameters\" (what the sweep varies)");
  const json& ps = doc["parameters"];
  if (!ps.is_array() || ps.empty()) fail_expected("/parameters", "a non-empty array of parameter objects", ps);
  for (std::size_t i = 0; i < ps.size(); ++i) {
    std::string pp = ptr_join("/parameters", i);
    ParamSpec p = parse_param(ps[i], pp, s.design);
    for (auto& q : s.params) {
      if (q.path == p.path) throw ScenarioError(ptr_join(pp, "path"), "\"" + p.path + "\" is already a parameter");
      if (lower(q.path) == lower(p.path))
        throw ScenarioError(ptr_join(pp, "path"), "\"" + p.path + "\" and \"" + q.path +
                                                      "\" differ only in case, and sweep.db column names ignore case");
    }
    for (auto& [k, v] : s.set)
      if (k == p.path)
        throw ScenarioError(ptr_join(pp, "path"), "\"" + p.path + "\" is also fixed in /set; a value cannot be both");
    s.params.push_back(std::move(p));
  }
  if (s.design == Design::Zip)
    for (std::size_t i = 1; i < s.params.size(); ++i)
      if (s.params[i].values.size() != s.params[0].values.size())
        throw ScenarioError(ptr_join("/parameters", i),
                            "a zip design needs every parameter to have as many values as /parameters/0 (" +
                                std::to_string(s.params[0].values.size()) + "), found " +
                                std::to_string(s.params[i].values.size()));

  if (s.design == Design::Random) {
    if (!doc.contains("samples"))
      throw ScenarioError("/samples",
                          "missing required key \"samples\": a random design needs the number of points to draw");
    s.samples = static_cast<int>(get_int(doc["samples"], "/samples", 1, 1000000));
    if (doc.contains("seed")) s.seed = static_cast<std::uint64_t>(get_int(doc["seed"], "/seed", 0, INT64_MAX));
  } else {
    for (const char* k : {"samples", "seed"})
      if (doc.contains(k))
        throw ScenarioError(std::string("/") + k, std::string("\"") + k + "\" applies only to \"design\": \"random\"");
    double total = 1;
    for (auto& p : s.params) total = s.design == Design::Grid ? total * p.values.size() : p.values.size();
    if (total > 1000000)
      throw ScenarioError("/parameters", "the " + std::string(design_name(s.design)) + " has " +
                                             std::to_string(static_cast<long long>(total)) +
                                             " points; at most 1000000 are allowed");
  }

  if (doc.contains("metrics")) {
    require_object(doc["metrics"], "/metrics", "an object {\"name\": \"/pointer/in/results.json\"}");
    std::set<std::string> seen;
    for (auto it = doc["metrics"].begin(); it != doc["metrics"].end(); ++it) {
      std::string mp = ptr_join("/metrics", it.key());
      if (!seen.insert(lower(it.key())).second)
        throw ScenarioError(
            mp, "metric \"" + it.key() + "\" differs from another only in case (sweep.db columns ignore case)");
      s.metrics.push_back(parse_metric(it.key(), it.value(), mp));
    }
  } else {
    s.metrics = default_metrics();
  }

  if (doc.contains("infeasible")) {
    const json& inf = doc["infeasible"];
    if (!inf.is_array() || inf.empty())
      fail_expected("/infeasible", "a non-empty array of scenario pointers (e.g. [\"/training/parallel\"])", inf);
    for (std::size_t i = 0; i < inf.size(); ++i)
      s.infeasible.push_back(
          get_pointer(inf[i], ptr_join("/infeasible", i), "a scenario value whose errors mark a point infeasible"));
  }

  if (doc.contains("best")) {
    const json& b = doc["best"];
    require_object(b, "/best", "an object {\"metric\": name, \"goal\": \"min\" or \"max\"}");
    check_keys(b, "/best", {"metric", "goal"}, "best");
    if (!b.contains("metric"))
      throw ScenarioError("/best/metric", "missing required key \"metric\" (a metric name of this sweep)");
    BestSpec bs;
    bs.metric = get_string(b["metric"], "/best/metric");
    bool known = false;
    std::string list;
    for (auto& m : s.metrics) {
      known = known || m.name == bs.metric;
      list += (list.empty() ? "" : ", ") + m.name;
    }
    if (!known)
      throw ScenarioError("/best/metric",
                          "\"" + bs.metric + "\" is not a metric of this sweep; expected one of " + list);
    if (b.contains("goal")) {
      std::string g = get_string(b["goal"], "/best/goal");
      if (g == "max") bs.maximize = true;
      else if (g != "min") fail_expected("/best/goal", "one of \"min\", \"max\"", b["goal"]);
    }
    s.best = bs;
  }

  if (doc.contains("plots")) {
    const json& pl = doc["plots"];
    if (!pl.is_array()) fail_expected("/plots", "an array of plot objects", pl);
    std::set<std::string> files;
    for (std::size_t i = 0; i < pl.size(); ++i) {
      std::string pp = ptr_join("/plots", i);
      s.plots.push_back(parse_plot(pl[i], pp, s));
      if (!files.insert(s.plots.back().file).second)
        throw ScenarioError(ptr_join(pp, "file"), "another plot already writes \"" + s.plots.back().file + "\"");
    }
  }
  return s;
}

SweepSpec read_spec_file(const std::string& path) {
  // The messages leave the file's name to the CLI, which prefixes every SPEC error with it.
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ScenarioError("", "cannot read sweep spec \"" + path + "\": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ScenarioError("", "cannot read sweep spec \"" + path + "\"" + (fs::exists(path, ec) ? "" : ": no such file"));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_spec(parse_json_text(ss.str(), ""), path);
}

}  // namespace trainvp::sweep
