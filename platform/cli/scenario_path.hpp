#pragma once
// Where `trainvp run NAME` finds NAME (trainvp --help, README.md "Installing"): a path that exists
// is used as given; otherwise NAME, then NAME.json, in each directory of $TRAINVP_PATH (':'
// separated), then in the current directory, then in the installed scenarios, <exe>/../share/trainvp/scenarios, found
// from /proc/self/exe so that a relocated prefix works.
#include <string>
#include <vector>

namespace trainvp {

// The directories searched after the path as given, in order.
std::vector<std::string> scenario_search_dirs();
// The file `name` names. Throws ScenarioError ("", "no scenario \"NAME\": ...") when none exists.
std::string find_scenario(const std::string& name);

}  // namespace trainvp
