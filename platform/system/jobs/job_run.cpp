#include "platform/system/jobs/job_run.hpp"

#include "models/parallel/parallel_sync.hpp"
#include "platform/core/errors.hpp"
#include "platform/system/sync/registry.hpp"

namespace trainvp {

std::vector<const JobConfig*> job_of_rank(const Scenario& s) {
  std::vector<const JobConfig*> out(s.cluster.gpus.size(), nullptr);
  for (const JobConfig& j : s.jobs)
    if (j.kind == JobKind::Training)  // a checkpoint job's GPUs compute nothing: its NICs write
      for (int r : j.ranks) out[static_cast<std::size_t>(r)] = &j;
  return out;
}

std::vector<std::unique_ptr<ParallelPlan>> job_plans(const Scenario& s) {
  std::vector<std::unique_ptr<ParallelPlan>> out;
  for (const JobConfig& j : s.jobs) {
    const Scenario& js = *j.scenario;
    if (!js.training.parallel.enabled) {
      out.push_back(nullptr);
      continue;
    }
    // The config layer made the same plan and checked it (platform/config/parallel.cpp).
    out.push_back(make_parallel_plan(js.workload, js.training.parallel, static_cast<int>(j.ranks.size()),
                                     s.cluster.gpus[static_cast<std::size_t>(j.ranks.front())].params, j.ranks));
  }
  return out;
}

std::vector<const ParallelPlan*> plan_of_rank(const Scenario& s,
                                              const std::vector<std::unique_ptr<ParallelPlan>>& plans) {
  std::vector<const ParallelPlan*> out(s.cluster.gpus.size(), nullptr);
  for (std::size_t k = 0; k < s.jobs.size(); ++k)
    for (int r : s.jobs[k].ranks) out[static_cast<std::size_t>(r)] = plans[k].get();
  return out;
}

std::vector<JobRun> build_jobs(const Scenario& s, Cluster& c, const std::vector<std::unique_ptr<ParallelPlan>>& plans,
                               RunContext& ctx) {
  std::vector<JobRun> out;
  for (std::size_t k = 0; k < s.jobs.size(); ++k) {
    const JobConfig& j = s.jobs[k];
    if (j.kind != JobKind::Training) continue;
    const Scenario& js = *j.scenario;
    JobRun run;
    run.config = &j;
    run.plan = plans[k].get();
    for (int r : j.ranks) run.gpus.push_back(c.gpus[static_cast<std::size_t>(r)]);
    const SyncStrategyEntry& sync = sync_strategy(js.training.sync.strategy);
    const std::string prefix = "job" + std::to_string(k);  // job names may hold '.', which SystemC's names may not
    // The engine and the nodes are the cluster's: ranks keep their cluster-wide numbers.
    if (!run.plan) {
      SyncBuild b{js, *c.engine, run.gpus, c.nodes_of, js.training.iterations, ctx, nullptr};
      b.module_prefix = prefix;
      run.strategy = sync.make(b);
    } else {
      const ParallelConfig& pc = js.training.parallel;
      if (pc.zero > 0)
        if (const std::string why = zero_refusal(js, sync); !why.empty())
          throw ScenarioError(ptr_join("/jobs", k) + "/training/parallel/zero", why);
      ParallelSync::Parts p;
      p.layout = &run.plan->layout;
      p.stages = &run.plan->stages;
      p.gpus.assign(c.gpus.size(), nullptr);  // by cluster rank; the other jobs' stay null
      for (Gpu* g : run.gpus) p.gpus[static_cast<std::size_t>(g->rank())] = g;
      p.engine = c.engine.get();
      p.nodes_of = c.nodes_of;
      p.tp_algorithm = CollectiveAlgo::Ring;
      p.boundary_bytes = run.plan->boundary_bytes;
      p.trace_group_prefix = j.name + ": ";  // beside its GPUs' tracks
      if (pc.dp > 1 && sync.kind != SyncStrategyKind::None)
        p.make_dp = [&js, &c, &ctx, &sync, prefix](const Workload& stage, std::vector<Gpu*> group) {
          SyncBuild b{js, *c.engine, std::move(group), c.nodes_of, js.training.iterations, ctx, nullptr};
          b.workload = &stage;
          b.module_prefix = prefix;
          return sync.make(b);
        };
      run.strategy = std::make_unique<ParallelSync>((prefix + "_parallel").c_str(), std::move(p), ctx);
    }
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace trainvp
