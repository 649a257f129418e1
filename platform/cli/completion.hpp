#pragma once
// The bash completion script (`trainvp completion bash`): commands, each command's options as its
// --help names them, and, after --set, the JSON pointer of every key of the schema registry.
#include <string>
#include <vector>

namespace trainvp {

// The options a help text names ("-o", "--output", ...), in order of first mention.
std::vector<std::string> options_in_help(const std::string& help);
// Every scenario key as a JSON pointer ("/cluster/nodes"); an array's elements as index 0.
std::vector<std::string> scenario_pointers();
std::string bash_completion();

}  // namespace trainvp
