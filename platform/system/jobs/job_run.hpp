#pragma once
// The jobs of /jobs, elaborated on one cluster: each job's hybrid-parallel plan (when it has one),
// its GPUs and the strategy that synchronizes them. Their collectives share the cluster's engine,
// so their traffic meets in the fabric's queues.
#include <memory>
#include <vector>

#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/parallel/plan.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/cluster_builder.hpp"

namespace trainvp {

struct JobRun {
  const JobConfig* config = nullptr;
  const ParallelPlan* plan = nullptr;      // training.parallel (null without)
  std::vector<Gpu*> gpus;                  // by rank
  std::unique_ptr<SyncStrategy> strategy;  // null for `none` without hybrid parallelism
};

// Per rank of the cluster: the training job that holds its node (null: idle, or a checkpoint job's).
std::vector<const JobConfig*> job_of_rank(const Scenario& s);

// Per job, its hybrid-parallel plan on its own ranks (null without training.parallel).
std::vector<std::unique_ptr<ParallelPlan>> job_plans(const Scenario& s);
// Per rank of the cluster: the plan of its job (null: none).
std::vector<const ParallelPlan*> plan_of_rank(const Scenario& s,
                                              const std::vector<std::unique_ptr<ParallelPlan>>& plans);

// Builds each training job's strategy over its own GPUs, from its own scenario (workload, training): its
// sync strategy, or under hybrid parallelism a ParallelSync with a DP strategy per stage.
// Throws ScenarioError naming /jobs/N/... where a job's strategy cannot run.
std::vector<JobRun> build_jobs(const Scenario& s, Cluster& c, const std::vector<std::unique_ptr<ParallelPlan>>& plans,
                               RunContext& ctx);

}  // namespace trainvp
