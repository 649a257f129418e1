#pragma once
// results.json `parallel` for a hybrid-parallel run (training.parallel; docs/parallelism.md).
#include <string>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

// The layout, where each GPU sits, each stage's time split (compute, bubble, TP/PP/DP
// communication and exposure) and memory, the TP and PP traffic summed by kind (their
// collectives are too many to list one by one), and the FLOPs utilization by the model-FLOPs
// formula of Narayanan et al. `iteration_s`: the mean measured iteration time.
void add_parallel_results(nlohmann::ordered_json& j, const Simulation& sim, double iteration_s);
// The summary's lines about it.
std::string parallel_summary(const nlohmann::ordered_json& j);
// Samples per iteration of the whole job: b x m x d.
double parallel_samples(const Simulation& sim);

}  // namespace trainvp
