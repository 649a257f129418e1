#pragma once
// The schema registry: every schema of the scenario format, once, in one list. The list feeds
// `trainvp describe` (all_schemas) and the generated key table of docs/scenario-format.md
// (schema_key_table), so a key declared in a section's ParamSet is listed in both.
#include <string>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

// Every schema, in the order `trainvp describe` prints them.
std::vector<SchemaInfo> all_schemas();

// The key table of docs/scenario-format.md: one Markdown row per key of every schema, in registry
// order. `trainvp describe --markdown` prints it; scripts/update-docs writes it into the docs
// between these two marker lines.
std::string schema_key_table();
constexpr const char* kKeyTableBegin = "<!-- keys:begin -->";
constexpr const char* kKeyTableEnd = "<!-- keys:end -->";

}  // namespace trainvp
