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

// Every JSON input (a scenario, a --faults file, a --set value, a sweep SPEC) is read by the
// functions below, so all are held to the same limits (docs/reliability.md): nesting at most
// kMaxJsonDepth containers deep, no key twice in one object, no number beyond the range of a
// double, no NUL byte. Each problem is a ScenarioError naming where it is: the JSON pointer, and
// the line and column (or byte offset) in the text.
constexpr int kMaxJsonDepth = 64;

// Checks `text` for the problems above without building a value; throws on the first. `source`
// names the text in messages ("\"s.json\"", "--set /a/b"; "" when the caller prefixes it),
// `base` is the pointer the text's root will sit at and `base_depth` the containers above it there.
// Malformed JSON is left to the parser (check_json_text stops where it cannot follow the text).
void check_json_text(const std::string& text, const std::string& source, const std::string& base = "",
                     int base_depth = 0);

// check_json_text, then the parse; malformed JSON names the line and column.
json parse_json_text(const std::string& text, const std::string& source);

// Reads and parses a JSON file as above. `role` names what the file is in messages: "scenario
// file", "faults file", "sweep spec". A missing file, an unreadable one and a directory each get
// their own message.
json read_json_file(const std::string& path, const std::string& role = "scenario file");

// Applies "--set /json/pointer=VALUE": VALUE is parsed as JSON, or else taken as a string.
void apply_override(json& doc, const std::string& assignment);

// What `--faults F` does to a document: F's content (`faults`, a list as DIR/faults.json holds it,
// or an object whose only key is `faults`) replaces the document's faults and drops its
// fault_generator. `faults_file` names F in messages.
void apply_faults_document(json& doc, json faults, const std::string& faults_file);

// Validates and resolves a scenario document. `default_name` is used when the file has no name
// (the file's stem); `scenario_dir` is the file's directory, where relative paths in it
// (/workload/hf_config) are looked for first ("" for a document without a file). Throws
// ScenarioError naming the JSON pointer of the first problem.
Scenario load_scenario(const json& doc, const std::string& default_name, const std::string& scenario_dir = "");

// Convenience: read + overrides + load. A `faults_file` is applied (apply_faults_document) before
// the overrides: the replay of a campaign.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file = "");

}  // namespace trainvp
