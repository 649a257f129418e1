#pragma once
// What results.json and the summary say about the synchronization strategy: what the strategy
// reports of itself (SyncStrategy::report), its period, and DreamDDP's schedule with its
// prediction beside the simulation.
#include <string>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

// Adds `sync` and per-iteration fields to `j` (results.json being built, with `iterations` and
// `iteration_time_s` already in it).
void add_sync_results(nlohmann::ordered_json& j, const Simulation& sim);

// Summary lines (each ending in a newline), or "".
std::string sync_summary(const nlohmann::ordered_json& j, const Simulation& sim);

}  // namespace trainvp
