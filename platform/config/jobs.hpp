#pragma once
// /jobs: several training jobs on one cluster, each with its own workload, training and
// synchronization, placed on whole nodes and started at its own time; their traffic shares the
// fabric's queues (docs/jobs.md).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/config/checkpoint_job.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct ClusterConfig;
struct Scenario;

enum class PlacementPolicy { Packed, Spread };
// training: a workload trained for its iterations; checkpoint: bursts of writes to storage nodes.
enum class JobKind { Training, Checkpoint };

struct JobConfig {
  std::string name;
  JobKind kind = JobKind::Training;
  CheckpointParams checkpoint;  // kind checkpoint
  // The job as a scenario of its own: its workload and training, its `health` and `slo`, the
  // shared cluster (all of it, so that ranks and nodes keep their cluster-wide numbers).
  std::shared_ptr<Scenario> scenario;
  std::vector<int> nodes;     // the nodes it holds, as placed, ascending
  std::vector<int> ranks;     // their GPUs' ranks, ascending (a checkpoint job's: its writers')
  std::int64_t start_ps = 0;  // when its first iteration starts
  PlacementPolicy policy = PlacementPolicy::Packed;
  bool explicit_nodes = false;  // placement.nodes listed the nodes
};

// The keys of one /jobs/N and of its placement, as given.
struct JobRaw {
  std::string name;
  JobKind kind = JobKind::Training;
  std::int64_t start_ps = 0;
};
struct PlacementRaw {
  PlacementPolicy policy = PlacementPolicy::Packed;
};
const ParamSet<JobRaw>& job_schema();
const ParamSet<PlacementRaw>& placement_schema();

// The group a node's placement counts it in: nodes whose first NIC hangs off the same leaf (a
// leaf-spine or three-tier that is not rail-optimized), the node's pod (a rail-optimized
// three-tier); 0 for every node elsewhere, where all nodes reach one another through the same
// switches.
int placement_group(const ClusterConfig& c, int node);

// Reads /jobs into `top`'s jobs: each job's workload, training, health and slo loaded as the top
// level's are, errors naming /jobs/N/...; nodes placed in list order (a checkpoint job's storage
// nodes right after its placement). Returns the resolved list.
json load_jobs(Scenario& top, const json& value, const std::string& scenario_dir);

}  // namespace trainvp
