#pragma once
// Self-documenting parameters (in the manner of SST's sst-info and ns-3 attributes).
// A model declares each parameter once: name, type, unit, default, help and constraints,
// bound to a field of its typed parameter struct. The same declaration drives loading from JSON
// (with validation that names the JSON pointer), the fully resolved scenario written to
// results.json, and `trainvp describe`.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/errors.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

using json = nlohmann::json;

// What `describe` prints about one parameter.
struct ParamInfo {
  std::string name;
  std::string type;    // "integer", "number", "boolean", "string", "choice", "bandwidth", "time", ...
  std::string units;   // accepted units, for quantities
  json default_value;  // null when required (or when the default is computed; see help)
  bool required = false;
  std::string range;  // e.g. "(0, 1]", ">= 1"
  std::vector<std::string> choices;
  std::string help;
};

struct SchemaInfo {
  std::string name;   // e.g. "gpu", "workload"
  std::string where;  // the JSON location(s) it is read from, e.g. "/cluster/node/gpu"
  std::string help;
  std::vector<ParamInfo> params;
};

// Numeric bounds; open ends are exclusive.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;
  static Range positive() { return {0, std::numeric_limits<double>::infinity(), true, false}; }
  static Range non_negative() { return {0, std::numeric_limits<double>::infinity(), false, false}; }
  static Range at_least(double v) { return {v, std::numeric_limits<double>::infinity(), false, false}; }
  static Range unit_open_closed() { return {0, 1, true, false}; }  // (0, 1]
  static Range unit_closed() { return {0, 1, false, false}; }      // [0, 1]
  bool contains(double v) const;
  std::string text() const;    // "" when unbounded, "(0, 1]", ">= 1"
  std::string phrase() const;  // for messages: "in (0, 1]", ">= 1", ""
};

namespace params_detail {
double as_number(const json& v, const std::string& path, const std::string& expected);
std::int64_t as_integer(const json& v, const std::string& path, const Range& r);
double quantity(const json& v, const std::string& path, Quantity q, const Range& r);
void check_range(double v, const std::string& path, const Range& r, const std::string& what, const json& found);
std::string closest(const std::string& key, const std::vector<std::string>& candidates);
}  // namespace params_detail

template <class T>
class ParamSet {
 public:
  using Apply = std::function<void(T&, const json&, const std::string&)>;

  ParamSet(std::string name, std::string where, std::string help) {
    info_.name = std::move(name);
    info_.where = std::move(where);
    info_.help = std::move(help);
  }

  ParamSet& integer(const char* name, int T::*field, json def, const char* help, Range r = {}) {
    return add(name, "integer", "", std::move(def), help, r, {}, [field, r](T& t, const json& v, const std::string& p) {
      auto x = params_detail::as_integer(v, p, r);
      if (x > std::numeric_limits<int>::max()) fail_expected(p, "an integer below 2^31", v);
      if (x < std::numeric_limits<int>::min()) fail_expected(p, "an integer >= -2^31", v);
      t.*field = static_cast<int>(x);
    });
  }
  ParamSet& integer64(const char* name, std::uint64_t T::*field, json def, const char* help,
                      Range r = Range::non_negative()) {
    return add(name, "integer", "", std::move(def), help, r, {}, [field, r](T& t, const json& v, const std::string& p) {
      t.*field = static_cast<std::uint64_t>(params_detail::as_integer(v, p, r));
    });
  }
  ParamSet& number(const char* name, double T::*field, json def, const char* help, Range r = {}) {
    return add(name, "number", "", std::move(def), help, r, {}, [field, r](T& t, const json& v, const std::string& p) {
      double x = params_detail::as_number(v, p, "a number" + (r.text().empty() ? "" : " " + r.phrase()));
      params_detail::check_range(x, p, r, "a number", v);
      t.*field = x;
    });
  }
  ParamSet& flag(const char* name, bool T::*field, json def, const char* help) {
    return add(name, "boolean", "", def, help, {}, {}, [field](T& t, const json& v, const std::string& p) {
      if (!v.is_boolean()) fail_expected(p, "true or false", v);
      t.*field = v.get<bool>();
    });
  }
  ParamSet& text(const char* name, std::string T::*field, json def, const char* help) {
    return add(name, "string", "", std::move(def), help, {}, {}, [field](T& t, const json& v, const std::string& p) {
      if (!v.is_string()) fail_expected(p, "a string", v);
      t.*field = v.get<std::string>();
    });
  }
  // A string restricted to named values, mapped onto any field type (enums, mostly).
  template <class F>
  ParamSet& choice(const char* name, F T::*field, json def, std::vector<std::pair<std::string, F>> values,
                   const char* help) {
    std::vector<std::string> names;
    for (auto& nv : values) names.push_back(nv.first);
    return add(name, "choice", "", std::move(def), help, {}, names,
               [field, values, names](T& t, const json& v, const std::string& p) {
                 if (v.is_string())
                   for (auto& nv : values)
                     if (nv.first == v.get<std::string>()) {
                       t.*field = nv.second;
                       return;
                     }
                 std::string list;
                 for (auto& n : names) list += (list.empty() ? "" : ", ") + ("\"" + n + "\"");
                 fail_expected(p, "one of " + list, v);
               });
  }
  ParamSet& bandwidth(const char* name, double T::*field, json def, const char* help, Range r = Range::positive()) {
    return quantity(name, field, Quantity::Bandwidth, std::move(def), help, r);
  }
  ParamSet& flop_rate(const char* name, double T::*field, json def, const char* help, Range r = Range::positive()) {
    return quantity(name, field, Quantity::FlopRate, std::move(def), help, r);
  }
  ParamSet& frequency(const char* name, double T::*field, json def, const char* help, Range r = Range::positive()) {
    return quantity(name, field, Quantity::Frequency, std::move(def), help, r);
  }
  ParamSet& time(const char* name, std::int64_t T::*field, json def, const char* help,
                 Range r = Range::non_negative()) {
    return add(name, "time", units_of(Quantity::Time), std::move(def), help, r, {},
               [field, r](T& t, const json& v, const std::string& p) {
                 t.*field = static_cast<std::int64_t>(params_detail::quantity(v, p, Quantity::Time, r));
               });
  }
  ParamSet& size(const char* name, std::uint64_t T::*field, json def, const char* help,
                 Range r = Range::non_negative()) {
    return add(name, "size", units_of(Quantity::Size), std::move(def), help, r, {},
               [field, r](T& t, const json& v, const std::string& p) {
                 t.*field = static_cast<std::uint64_t>(params_detail::quantity(v, p, Quantity::Size, r));
               });
  }
  // A key whose value the owner reads itself (a nested object or list); declared here so that
  // it is documented and not rejected as unknown. `def` is what a missing key resolves to.
  ParamSet& nested(const char* name, const char* type, json def, const char* help) {
    return add(name, type, "", std::move(def), help, {}, {}, [](T&, const json&, const std::string&) {});
  }
  // Marks a declared key as required (no default).
  ParamSet& required(const char* name) {
    for (auto& d : decls_)
      if (d.info.name == name) d.info.required = true, d.info.default_value = nullptr;
    sync_info();
    return *this;
  }

  // Reads `obj` (a JSON object at `path`) into `t`. Keys missing from `obj` take the declared
  // default, or keep what `t` already holds when apply_defaults is false (presets). Returns the
  // resolved object: every declared key with the value that was used.
  json load(T& t, const json& obj, const std::string& path, bool apply_defaults = true) const {
    if (!obj.is_object()) fail_expected(path, "an object (" + info_.name + ")", obj);
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (find(it.key())) continue;
      std::vector<std::string> names;
      for (auto& d : decls_) names.push_back(d.info.name);
      std::string hint = params_detail::closest(it.key(), names);
      throw ScenarioError(ptr_join(path, it.key()), "unknown key " + quote_clipped(it.key()) + " in " + info_.name +
                                                        (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                                                        "; `trainvp describe` lists the keys");
    }
    json resolved = json::object();
    for (auto& d : decls_) {
      std::string p = ptr_join(path, d.info.name);
      auto it = obj.find(d.info.name);
      if (it != obj.end()) {
        d.apply(t, *it, p);
        resolved[d.info.name] = *it;
      } else if (d.info.required) {
        throw ScenarioError(p, "missing required key \"" + d.info.name + "\" (" + d.info.help + ")");
      } else if (apply_defaults && !d.info.default_value.is_null()) {
        d.apply(t, d.info.default_value, p);
        resolved[d.info.name] = d.info.default_value;
      }
    }
    return resolved;
  }

  const SchemaInfo& info() const { return info_; }

 private:
  struct Decl {
    ParamInfo info;
    Apply apply;
  };

  ParamSet& quantity(const char* name, double T::*field, Quantity q, json def, const char* help, Range r) {
    return add(
        name, quantity_name(q), units_of(q), std::move(def), help, r, {},
        [field, q, r](T& t, const json& v, const std::string& p) { t.*field = params_detail::quantity(v, p, q, r); });
  }

  ParamSet& add(const char* name, std::string type, std::string units, json def, const char* help, Range r,
                std::vector<std::string> choices, Apply apply) {
    Decl d;
    d.info.name = name;
    d.info.type = std::move(type);
    d.info.units = std::move(units);
    d.info.default_value = std::move(def);
    d.info.range = r.text();
    d.info.choices = std::move(choices);
    d.info.help = help;
    d.apply = std::move(apply);
    decls_.push_back(std::move(d));
    sync_info();
    return *this;
  }
  void sync_info() {
    info_.params.clear();
    for (auto& d : decls_) info_.params.push_back(d.info);
  }
  const Decl* find(const std::string& key) const {
    for (auto& d : decls_)
      if (d.info.name == key) return &d;
    return nullptr;
  }

  SchemaInfo info_;
  std::vector<Decl> decls_;
};

}  // namespace trainvp
