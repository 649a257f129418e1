#pragma once
// /jobs: several training jobs on one cluster, each with its own workload, training and
// synchronization, placed on whole nodes and started at its own time; their traffic shares the
// fabric's queues (docs/jobs.md).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

struct ClusterConfig;
struct Scenario;

enum class PlacementPolicy { Packed, Spread };

struct JobConfig {
  std::string name;
  // The job as a scenario of its own: its workload and training, the shared cluster (all of it,
  // so that ranks and nodes keep their cluster-wide numbers).
  std::shared_ptr<Scenario> scenario;
  std::vector<int> nodes;     // the nodes it holds, as placed, ascending
  std::vector<int> ranks;     // their GPUs' ranks, ascending
  std::int64_t start_ps = 0;  // when its first iteration starts
  PlacementPolicy policy = PlacementPolicy::Packed;
  bool explicit_nodes = false;  // placement.nodes listed the nodes
};

// The keys of one /jobs/N and of its placement, as given.
struct JobRaw {
  std::string name;
  std::int64_t start_ps = 0;
};
struct PlacementRaw {
  PlacementPolicy policy = PlacementPolicy::Packed;
};
const ParamSet<JobRaw>& job_schema();
const ParamSet<PlacementRaw>& placement_schema();

// The group a node's placement counts it in: nodes whose first NIC hangs off the same leaf (a
// leaf-spine that is not rail-optimized); 0 for every node elsewhere, where all nodes reach one
// another through the same switches.
int placement_group(const ClusterConfig& c, int node);

// Reads /jobs into `top`'s jobs: each job's workload and training loaded as the top level's are,
// errors naming /jobs/N/...; nodes placed in list order. Returns the resolved list.
json load_jobs(Scenario& top, const json& value, const std::string& scenario_dir);

}  // namespace trainvp
