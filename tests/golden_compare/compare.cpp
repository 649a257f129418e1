#include "tests/golden_compare/compare.hpp"

#include <algorithm>
#include <cmath>

namespace trainvp::golden {

namespace {

std::string escape(const std::string& key) {  // RFC 6901
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string brief(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

bool is_float(const nlohmann::json& v) { return v.is_number_float(); }

struct Walker {
  const Options& opt;
  std::vector<std::string> out;
  std::size_t count = 0;

  void report(const std::string& ptr, const std::string& what) {
    if (++count <= opt.max_reports) out.push_back((ptr.empty() ? "/" : ptr) + ": " + what);
  }

  void walk(const nlohmann::json& e, const nlohmann::json& a, const std::string& ptr) {
    if (std::find(opt.ignored.begin(), opt.ignored.end(), ptr) != opt.ignored.end()) return;
    if (e.is_number() && a.is_number()) {
      if (!is_float(e) && !is_float(a) && !opt.integers_relative) {
        if (e != a) report(ptr, "expected " + brief(e) + ", got " + brief(a));
        return;
      }
      const double x = e.get<double>(), y = a.get<double>();
      if (x == y) return;
      if (!(std::fabs(x - y) <= opt.rel_tol * std::max(std::fabs(x), std::fabs(y))))
        report(ptr, "expected " + brief(e) + ", got " + brief(a) + " (relative difference above " +
                        brief(nlohmann::json(opt.rel_tol)) + ")");
      return;
    }
    if (e.type() != a.type()) {
      report(ptr,
             "expected " + std::string(e.type_name()) + " " + brief(e) + ", got " + a.type_name() + " " + brief(a));
      return;
    }
    if (e.is_object()) {
      for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string p = ptr + "/" + escape(it.key());
        if (auto f = a.find(it.key()); f != a.end()) walk(*it, *f, p);
        else if (std::find(opt.ignored.begin(), opt.ignored.end(), p) == opt.ignored.end()) report(p, "missing");
      }
      for (auto it = a.begin(); it != a.end(); ++it) {
        const std::string p = ptr + "/" + escape(it.key());
        if (!e.contains(it.key()) && std::find(opt.ignored.begin(), opt.ignored.end(), p) == opt.ignored.end())
          report(p, "unexpected key");
      }
      return;
    }
    if (e.is_array()) {
      if (e.size() != a.size())
        report(ptr, "expected " + std::to_string(e.size()) + " elements, got " + std::to_string(a.size()));
      for (std::size_t i = 0; i < std::min(e.size(), a.size()); ++i) walk(e[i], a[i], ptr + "/" + std::to_string(i));
      return;
    }
    if (e != a) report(ptr, "expected " + brief(e) + ", got " + brief(a));
  }
};

}  // namespace

namespace {

void widest(const nlohmann::json& e, const nlohmann::json& a, const std::string& ptr, const Options& opt,
            MaxDifference& m) {
  if (std::find(opt.ignored.begin(), opt.ignored.end(), ptr) != opt.ignored.end()) return;
  if (e.is_number() && a.is_number()) {
    const double x = e.get<double>(), y = a.get<double>(), scale = std::max(std::fabs(x), std::fabs(y));
    const double d = x == y ? 0.0 : std::fabs(x - y) / scale;
    if (d > m.relative) m = {d, ptr};
  } else if (e.is_object() && a.is_object()) {
    for (auto it = e.begin(); it != e.end(); ++it)
      if (auto f = a.find(it.key()); f != a.end()) widest(*it, *f, ptr + "/" + escape(it.key()), opt, m);
  } else if (e.is_array() && a.is_array()) {
    for (std::size_t i = 0; i < std::min(e.size(), a.size()); ++i)
      widest(e[i], a[i], ptr + "/" + std::to_string(i), opt, m);
  }
}

}  // namespace

MaxDifference max_difference(const nlohmann::json& expected, const nlohmann::json& actual, const Options& opt) {
  MaxDifference m;
  widest(expected, actual, "", opt, m);
  return m;
}

Options default_options() {
  Options o;
  // What the simulator spent, not what it simulated: counts that fast-forward or grouping change.
  o.ignored = {"/build",      "/sim/wall_s",       "/scenario/output/dir",
               "/sim/events", "/sim/delta_cycles", "/sim/grouped_ring_steps"};
  return o;
}

std::vector<std::string> compare(const nlohmann::json& expected, const nlohmann::json& actual, const Options& opt) {
  Walker w{opt, {}};
  w.walk(expected, actual, "");
  if (w.count > opt.max_reports)
    w.out.push_back("... and " + std::to_string(w.count - opt.max_reports) + " more differences");
  return w.out;
}

}  // namespace trainvp::golden
