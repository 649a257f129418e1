#include "platform/sweep/resolve.hpp"

#include <cstdio>
#include <filesystem>

#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp::sweep {

using json = nlohmann::json;

PointError::PointError(std::size_t index, const std::string& params, std::string path, const std::string& message)
    : std::runtime_error("point #" + std::to_string(index) + " (" + params + "): " + (path.empty() ? "/" : path) +
                         ": " + message),
      index(index),
      path(std::move(path)) {}

namespace {

// ScenarioError's text without its leading "pointer: ".
std::string message_of(const ScenarioError& e) {
  std::string w = e.what();
  std::string prefix = (e.path.empty() ? std::string("/") : e.path) + ": ";
  return w.compare(0, prefix.size(), prefix) == 0 ? w.substr(prefix.size()) : w;
}

}  // namespace

json base_document(const SweepSpec& spec) {
  json doc;
  try {
    doc = read_json_file(spec.base);
  } catch (const ScenarioError& e) {
    throw ScenarioError("/base", message_of(e));
  }
  return apply_spec_set(spec, std::move(doc));
}

json apply_spec_set(const SweepSpec& spec, json doc) {
  for (auto& [path, value] : spec.set) {
    try {
      apply_override(doc, path + "=" + value.dump());
    } catch (const ScenarioError& e) {
      throw ScenarioError(ptr_join("/set", path), "cannot set " + (e.path.empty() ? std::string("/") : e.path) +
                                                      " in the base scenario: " + message_of(e));
    }
  }
  return doc;
}

std::vector<std::string> point_overrides(const SweepSpec& spec, const Point& point) {
  std::vector<std::string> out;
  for (auto& [path, value] : spec.set) out.push_back(path + "=" + value.dump());
  for (auto& [path, value] : point.params) out.push_back(path + "=" + value.dump());
  return out;
}

json point_document(const json& base_with_set, const Point& point) {
  json doc = base_with_set;
  for (auto& [path, value] : point.params) apply_override(doc, path + "=" + value.dump());
  return doc;
}

std::string base_stem(const SweepSpec& spec) {
  std::string stem = std::filesystem::path(spec.base).filename().string();
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  return stem;
}

bool pointer_within(const std::string& path, const std::string& prefix) {
  return path.compare(0, prefix.size(), prefix) == 0 && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

std::vector<std::string> validate_points(const SweepSpec& spec, const json& base_with_set,
                                         const std::vector<Point>& points) {
  const std::string stem = base_stem(spec);
  std::vector<std::string> infeasible(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    try {
      load_scenario(point_document(base_with_set, p), stem, std::filesystem::path(spec.base).parent_path().string());
    } catch (const ScenarioError& e) {
      bool within = false;
      for (auto& prefix : spec.infeasible) within = within || pointer_within(e.path, prefix);
      if (!within) throw PointError(p.index, describe_assignment(p.params), e.path, message_of(e));
      infeasible[i] = (e.path.empty() ? std::string("/") : e.path) + ": " + message_of(e);
    }
  }
  return infeasible;
}

std::string scenario_hash(const json& point_doc) {
  std::uint64_t h = fnv1a64(std::string(TRAINVP_VERSION) + "\n" + point_doc.dump());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace trainvp::sweep
