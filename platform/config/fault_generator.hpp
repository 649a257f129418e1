#pragma once
// The seeded random fault campaign (`fault_generator`, docs/faults.md#random-campaigns): per fault
// kind Poisson arrivals at a rate, a duration distribution, a severity mix with the fault keys of
// each severity, and a scope from which each event draws its target. The events become plain
// `faults` entries ("origin": "generator"), validated and injected like explicit ones and written to
// DIR/faults.json, so that `trainvp run --faults DIR/faults.json` replays the campaign exactly.
//
// Table-driven: a fault kind takes part by one entry in the table of fault_generator.cpp (its
// target type, compute or network class, default rate and severity levels).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/params.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

// Reads /fault_generator. Defaults depend on the job (`s` must have its cluster, training and seed
// loaded): rates scale with its GPUs or nodes, network events last longer at >= 512 GPUs, the
// horizon is /training/time_limit. Throws ScenarioError at /fault_generator/...
FaultGeneratorConfig load_fault_generator(const nlohmann::json& value, const Scenario& s);

// The generator's schemas, for `trainvp describe` (all_schemas()).
std::vector<SchemaInfo> fault_generator_schemas();

// "weak", "medium", "severe".
const char* severity_name(int severity);

// Exact time text: whole seconds, else microseconds as decimal seconds, else picoseconds.
std::string time_text(std::int64_t ps);

}  // namespace trainvp
