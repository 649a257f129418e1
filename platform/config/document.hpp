#pragma once
// The scenario document, format version 1: reading the file, --set overrides, the --faults
// replacement, and its load, section by section, into a typed Scenario. Everything a run needs is
// decided here, before any model exists, so a bad scenario fails before anything is simulated or
// written.
#include <cstdint>
#include <string>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

constexpr int kScenarioFormatVersion = 1;

struct Scenario;

// The keys of the top level as given.
struct TopRaw {
  int version = 0;
  std::string name, description;
  std::uint64_t seed = 1;
};
const ParamSet<TopRaw>& scenario_schema();

// Reads and parses a JSON file; parse errors name the line and column.
json read_json_file(const std::string& path);

// Applies "--set /json/pointer=VALUE": VALUE is parsed as JSON, or else taken as a string.
void apply_override(json& doc, const std::string& assignment);

// Validates and resolves a scenario document. `default_name` is used when the file has no name
// (the file's stem). Throws ScenarioError naming the JSON pointer of the first problem.
Scenario load_scenario(const json& doc, const std::string& default_name);

// Convenience: read + overrides + load. A `faults_file` (a list as DIR/faults.json holds it, or an
// object with a `faults` list) replaces the scenario's faults and drops its fault_generator before
// the overrides apply: the replay of a campaign.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file = "");

}  // namespace trainvp
