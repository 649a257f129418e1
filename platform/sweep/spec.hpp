#pragma once
// Sweep specifications (format version 1): a base scenario, fixed overrides, and parameters
// (JSON pointers into the scenario with value lists or ranges) combined by a design: grid, zip
// or random. Parsing checks every key; errors are ScenarioError naming the JSON pointer inside
// the SPEC, like scenario errors. docs/sweeps.md documents the format key by key.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp::sweep {

using json = nlohmann::json;

constexpr int kSweepFormatVersion = 1;

enum class Design { Grid, Zip, Random };
enum class Scale { Linear, Log };

const char* design_name(Design d);
const char* scale_name(Scale s);

// A numeric range end: a plain number, or a quantity string split into number and unit
// ("100Gbps" -> 100, "Gbps"). Both ends of a range carry the same unit.
struct RangeEnd {
  double value = 0;
  std::string unit;  // empty for plain numbers
};

struct ParamSpec {
  std::string path;          // JSON pointer into the scenario
  std::vector<json> values;  // given values (grid/zip), or the choices (random)
  bool has_range = false;    // "range": [lo, hi] instead of "values"
  RangeEnd lo, hi;
  int steps = 0;  // grid/zip ranges: number of values from lo to hi
  Scale scale = Scale::Linear;
  bool integer = false;  // round range values to integers
  int digits = 6;        // significant digits of non-integer range values
};

struct MetricSpec {
  std::string name;     // column name in sweep.db
  std::string pointer;  // JSON pointer into results.json
  std::string unit;     // for plot axes ("s", "samples/s"); "" when unitless or unknown
};

struct PlotSpec {
  std::string x, y, by;                             // columns: parameter pointers or metric names
  std::vector<std::pair<std::string, json>> where;  // keep only rows whose column equals the value
  std::string file;                                 // relative to DIR/plots/
  std::string title;
  std::optional<bool> logx, logy;
};

// "best": the point a sweep names in its summary, by one metric.
struct BestSpec {
  std::string metric;     // a metric name of the SPEC
  bool maximize = false;  // "goal": "min" (default) or "max"
};

struct SweepSpec {
  std::string file;  // the SPEC file as given ("" when parsed from memory)
  std::string name;
  std::string description;
  std::string base;  // base scenario path, resolved against the SPEC's directory
  std::string base_as_written;
  std::vector<std::pair<std::string, json>> set;  // fixed overrides, in key order
  Design design = Design::Grid;
  std::vector<ParamSpec> params;
  int samples = 0;         // random
  std::uint64_t seed = 1;  // random
  std::vector<MetricSpec> metrics;
  std::vector<PlotSpec> plots;
  // Scenario pointers at which a validation error means the point cannot be built (a layout that
  // does not fit in HBM): such a point is recorded "infeasible" with the error, not run, and does
  // not stop the sweep. Errors elsewhere still do.
  std::vector<std::string> infeasible;
  std::optional<BestSpec> best;
  json doc;  // the SPEC as read
};

// Parses a SPEC document. `spec_file` resolves a relative "base" and gives the default name.
SweepSpec parse_spec(const json& doc, const std::string& spec_file);
// Reads and parses a SPEC file (malformed JSON names the line and column).
SweepSpec read_spec_file(const std::string& path);

// The default metrics when a SPEC has no "metrics" key.
std::vector<MetricSpec> default_metrics();
// The unit of a results.json field, for plot axes: known fields first, then name suffixes
// (_per_s, _s, _bytes, _bps); "" when unknown.
std::string infer_metric_unit(const std::string& pointer);

// A range value as the scenario gets it: rounded to an integer (clamped into the range) or to
// `digits` significant digits, with the range's unit appended when it has one ("250Gbps").
json range_value(const ParamSpec& p, double x);

// The file a plot is written to when none is named: "<y>-vs-<x>[-by-<by>].svg", pointers
// turned into dotted names ("iteration_time_s-vs-cluster.nodes.svg").
std::string default_plot_file(const std::string& x, const std::string& y, const std::string& by);

// Splits "100Gbps" / "1.5 us" into (100, "Gbps") / (1.5, "us"); nullopt when `text` is not a
// number followed by a unit.
std::optional<RangeEnd> split_quantity(const std::string& text);

}  // namespace trainvp::sweep
