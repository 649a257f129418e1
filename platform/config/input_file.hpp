#pragma once
// Files a scenario names for its workload (a Hugging Face config, a PyTorch profiler trace):
// where a relative path is looked for, and reading one as JSON with its problems located both in
// the scenario and inside the file.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/core/errors.hpp"

namespace trainvp {

// The file `given` names: an absolute path as given; a relative one in `scenario_dir` (the
// scenario file's directory; a scenario and its inputs travel together), else in the current
// directory (as --faults F and -o DIR are read). Throws ScenarioError at `pointer` naming `what`
// ("Hugging Face config") when neither holds it.
std::string find_input_file(const std::string& given, const std::string& scenario_dir, const std::string& pointer,
                            const std::string& what);

// `file` read as JSON, refused before reading when it is not a regular file or is larger than
// `max_bytes` (docs/reliability.md). Errors are at `pointer` and name the file (and the line and
// column of a syntax error).
nlohmann::json read_json_input(const std::string& file, const std::string& pointer, const std::string& what,
                               std::uintmax_t max_bytes, const std::string& size_hint);

// ScenarioError's message without its leading "pointer: ".
std::string message_of(const ScenarioError& e);

}  // namespace trainvp
