#pragma once
// Draws the seeded fault campaign configured by /fault_generator (platform/config/fault_generator.hpp)
// against the elaborated fabric's names.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/scenario.hpp"

namespace trainvp {

class Fabric;

// Candidate targets per kind of cfg.kinds (empty for a kind that is off), as fault targets: GPU
// names, "nodeN.gpu*" for host-wide kinds, link names. Throws ScenarioError at
// /fault_generator/<kind>/scope when a scope matches nothing the kind applies to.
std::vector<std::vector<std::string>> fault_generator_targets(const FaultGeneratorConfig& cfg, const Scenario& s,
                                                              const Fabric& fabric);

// Draws the campaign: fault objects in order of start time. Pure: the same config, targets and
// seed give the same events.
nlohmann::json generate_faults(const FaultGeneratorConfig& cfg, const std::vector<std::vector<std::string>>& targets);

}  // namespace trainvp
