#pragma once
// What results.json (`train`), train.csv and the summary say about the real training in the loop
// (/workload/train, docs/strategies.md#time-to-accuracy).
#include <string>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

// Adds `train` to `j` when the run trained for real.
void add_train_results(nlohmann::ordered_json& j, const Simulation& sim);

// train.csv: one row per iteration (evaluated iterations with test loss and accuracy); "" without training.
std::string train_csv(const Simulation& sim);

// Summary lines (each ending in a newline), or "".
std::string train_summary(const Simulation& sim);

}  // namespace trainvp
