#pragma once
// The jobs of /jobs, elaborated on one cluster: each job's GPUs and the strategy that synchronizes
// them. Their collectives share the cluster's engine, so their traffic meets in the fabric's queues.
#include <memory>
#include <vector>

#include "models/gpu/gpu.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/cluster_builder.hpp"

namespace trainvp {

struct JobRun {
  const JobConfig* config = nullptr;
  std::vector<Gpu*> gpus;                  // by rank
  std::unique_ptr<SyncStrategy> strategy;  // null for `none`
};

// Per rank of the cluster: the job that holds its node (null: idle).
std::vector<const JobConfig*> job_of_rank(const Scenario& s);

// Builds each job's strategy over its own GPUs, from its own scenario (workload, training).
std::vector<JobRun> build_jobs(const Scenario& s, Cluster& c, RunContext& ctx);

}  // namespace trainvp
