#pragma once
// `trainvp plot` and a SPEC's default plots: one metric against a parameter (or another
// metric) from sweep.db, one series per value of a `by` parameter, rendered by gnuplot into
// SVG, PNG or PDF. Quantity strings ("100Gbps", "1.5us", "80GiB", "989TFLOPS") are plotted as
// numbers in a fixed display unit (Gbps, an auto-chosen s/ms/us/ns, B/KB/MB/GB/TB, TFLOPS) and
// the axis label names it; metric axes carry the metric's unit; other strings become
// categories in order of first appearance. Only points with status "ok" are drawn.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/sweep/store.hpp"

namespace trainvp::sweep {

struct PlotRequest {
  std::string x, y, by;                             // column names (parameter pointer or metric name)
  std::vector<std::pair<std::string, json>> where;  // keep rows whose column equals the value
  std::string output;                               // .svg, .png or .pdf
  std::string title;                                // "" = "<sweep>: <y> vs <x>"
  std::optional<bool> logx, logy;                   // unset: log when the column's range is log-scaled
};

struct PlotResult {
  std::string output;  // the image
  std::string script;  // the gnuplot script beside it (data inline): `gnuplot FILE.gp` redraws
  std::size_t points = 0, series = 0;
  bool scatter = false;  // random design, or points sharing an x in a series: drawn unconnected
};

// Throws SweepInputError for unknown columns, a non-numeric y, nothing to plot or a bad file
// extension; std::runtime_error when gnuplot is missing or fails.
PlotResult draw_plot(const Store& store, const PlotRequest& req);

// Parses "VALUE" of --where P=VALUE like --set does: JSON if it parses, else a string.
json parse_cli_value(const std::string& text);

}  // namespace trainvp::sweep
