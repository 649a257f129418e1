#include "platform/system/jobs/job_run.hpp"

#include "platform/system/sync/registry.hpp"

namespace trainvp {

std::vector<const JobConfig*> job_of_rank(const Scenario& s) {
  std::vector<const JobConfig*> out(s.cluster.gpus.size(), nullptr);
  for (const JobConfig& j : s.jobs)
    for (int r : j.ranks) out[static_cast<std::size_t>(r)] = &j;
  return out;
}

std::vector<JobRun> build_jobs(const Scenario& s, Cluster& c, RunContext& ctx) {
  std::vector<JobRun> out;
  for (const JobConfig& j : s.jobs) {
    JobRun run;
    run.config = &j;
    for (int r : j.ranks) run.gpus.push_back(c.gpus[static_cast<std::size_t>(r)]);
    const Scenario& js = *j.scenario;
    const SyncStrategyEntry& sync = sync_strategy(js.training.sync.strategy);
    // The engine and the nodes are the cluster's: ranks keep their cluster-wide numbers.
    SyncBuild b{js, *c.engine, run.gpus, c.nodes_of, js.training.iterations, ctx, nullptr};
    b.module_prefix = "job" + std::to_string(out.size());  // job names may hold '.', which SystemC's names may not
    run.strategy = sync.make(b);
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace trainvp
