#pragma once
// From a point to the scenario it runs: the base scenario, the SPEC's fixed "set" overrides,
// then the point's parameters, each applied exactly as `trainvp run --set P=V` applies it.
// Every point is validated in-process with load_scenario before any point runs.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/sweep/expand.hpp"
#include "platform/sweep/spec.hpp"

namespace trainvp::sweep {

// A point whose resolved scenario is invalid (exit 2). what():
// "point #3 (/cluster/nodes=0, ...): /cluster/nodes: expected an integer [1, 65536], found number 0"
struct PointError : std::runtime_error {
  PointError(std::size_t index, const std::string& params, std::string path, const std::string& message);
  std::size_t index;
  std::string path;  // JSON pointer into the scenario ("" for the root)
};

// Reads the base scenario and applies the SPEC's "set". Errors are ScenarioError with a
// pointer into the SPEC (/base, /set/...).
nlohmann::json base_document(const SweepSpec& spec);
// The second half of base_document: the SPEC's "set" applied to a base scenario already read.
nlohmann::json apply_spec_set(const SweepSpec& spec, nlohmann::json doc);

// The "P=V" assignments for `trainvp run --set`: the SPEC's set, then the point's parameters.
// V is the value's JSON text, so a string stays a string ("\"100Gbps\"").
std::vector<std::string> point_overrides(const SweepSpec& spec, const Point& point);

// base_document + the point's parameters.
nlohmann::json point_document(const nlohmann::json& base_with_set, const Point& point);

// load_scenario on every point. Returns, per point, "" when it is valid, or the error
// ("pointer: message") when it failed at or below one of the SPEC's `infeasible` pointers;
// throws PointError for the first point that fails anywhere else.
std::vector<std::string> validate_points(const SweepSpec& spec, const nlohmann::json& base_with_set,
                                         const std::vector<Point>& points);

// True when the scenario pointer `path` is `prefix` or lies below it ("/a/b" is below "/a").
bool pointer_within(const std::string& path, const std::string& prefix);

// 16 hex digits over the point's scenario document and the trainvp version: --resume reuses
// a finished point only when this is unchanged.
std::string scenario_hash(const nlohmann::json& point_doc);

// The scenario's default name, as `trainvp run BASE` derives it (the base file's stem).
std::string base_stem(const SweepSpec& spec);

}  // namespace trainvp::sweep
