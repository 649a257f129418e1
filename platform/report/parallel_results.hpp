#pragma once
// results.json `parallel` for a hybrid-parallel run (training.parallel; docs/parallelism.md).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

// The layout, where each GPU sits, each stage's time split (compute, bubble, TP/PP/DP
// communication and exposure) and memory, the TP and PP traffic summed by kind (their
// collectives are too many to list one by one), and the FLOPs utilization by the model-FLOPs
// formula of Narayanan et al. `iteration_s`: the mean measured iteration time.
void add_parallel_results(nlohmann::ordered_json& j, const Simulation& sim, double iteration_s);
// The same for one training on `gpus` (a job of /jobs: its plan, scenario and GPUs); `sums`: the
// collectives by kind for `traffic` (null: no `traffic`, where several jobs' collectives mix).
void add_parallel_section(nlohmann::ordered_json& j, const ParallelPlan& plan, const Scenario& s,
                          const std::vector<const Gpu*>& gpus, double iteration_s,
                          const std::map<std::string, FastForward::Sum>* sums);
// Every completed collective's count, bytes and summed duration by kind (the label's first word:
// ddp, tp, pp, probe, ...), with fast-forward's summed copies of skipped iterations: parallel.traffic
// (tp, pp) and, with /output/collectives false, results' collective_totals.
std::map<std::string, FastForward::Sum> collective_sums(const Simulation& sim);
// The summary's lines about it.
std::string parallel_summary(const nlohmann::ordered_json& j);
// Samples per iteration of the whole job: b x m x d.
double parallel_samples(const Simulation& sim);

}  // namespace trainvp
