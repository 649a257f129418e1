#include "platform/report/job_results.hpp"

#include <cstdio>
#include <sstream>

#include "platform/core/sim_time.hpp"
#include "platform/core/units.hpp"
#include "platform/report/build_record.hpp"
#include "platform/report/parallel_results.hpp"
#include "platform/report/results_parts.hpp"
#include "platform/system/sync/registry.hpp"

namespace trainvp {

using namespace report_detail;
using ojson = nlohmann::ordered_json;

namespace {

const char* placement_name(const JobConfig& j) {
  if (j.explicit_nodes) return "nodes";
  return j.policy == PlacementPolicy::Spread ? "spread" : "packed";
}

struct JobFigures {
  ojson json;
  double iter_time = 0, samples_per_s = 0;
};

// One job's entry: where it ran, its iterations (as a single training's results list them) and
// their means after its warm-up.
JobFigures job_entry(const JobRun& run, std::ostringstream& csv) {
  const JobConfig& jc = *run.config;
  const Scenario& js = *jc.scenario;
  const Workload& w = js.workload;
  const std::vector<const Gpu*> gpus(run.gpus.begin(), run.gpus.end());
  const ParallelPlan* plan = run.plan;
  const bool pipelined = plan && plan->stages.size() > 1;
  const int n = js.training.iterations, warm = js.training.warmup;
  const auto iters = cluster_iterations(gpus, n, run.strategy.get());
  const IterationMeans m = iteration_means(iters, warm, n);
  const double iter_time = m.time;
  ojson list = iteration_list(iters, warm, pipelined, csv, jc.name + ",");
  const ParallelConfig& pc = js.training.parallel;
  const double samples = plan ? static_cast<double>(w.shape.batch) * pc.micro_batches * pc.dp
                              : static_cast<double>(w.samples_per_iteration()) * static_cast<double>(gpus.size());
  double flops = flops_per_iteration(w) * static_cast<double>(gpus.size());
  if (plan) {
    flops = 0;
    for (const Gpu* g : gpus) flops += flops_per_iteration(g->workload());
  }
  JobFigures f;
  ojson& o = f.json;
  o["name"] = jc.name;
  o["nodes"] = jc.nodes;
  o["gpus"] = gpus.size();
  o["placement"] = placement_name(jc);
  o["strategy"] = sync_strategy_name(js.training.sync.strategy);
  o["start_s"] = sec(jc.start_ps);
  o["end_s"] = n > 0 ? sec(iters.back().end) : sec(jc.start_ps);
  o["iteration_time_s"] = iter_time;
  add_time_split(o, w, samples, flops, m, pipelined);
  o["workload"] = {{"model", w.model},
                   {"layers", w.layers.size()},
                   {"parameters", w.total_params()},
                   {"gradient_bytes", w.total_grad_bytes()},
                   {"global_batch", static_cast<std::uint64_t>(samples)}};
  o["iterations"] = list;
  // Its strategy's own section (`sync`: buckets, units; `parallel`: the stages' time split).
  o["sync"] = {{"strategy", run.strategy ? run.strategy->name() : "none"}};
  if (run.strategy) {
    if (sync_strategy(js.training.sync.strategy).period) o["sync"]["period"] = js.training.sync.period;
    run.strategy->report(o);
  }
  if (plan) add_parallel_section(o, *plan, js, gpus, iter_time, nullptr);
  f.iter_time = iter_time;
  f.samples_per_s = samples / iter_time;
  return f;
}

}  // namespace

RunResults job_results(const Simulation& sim) {
  const Scenario& s = sim.scenario();
  RunResults r;
  ojson& j = r.json;
  j["trainvp_version"] = TRAINVP_VERSION;
  j["build"] = build_record();
  j["scenario"] = scenario_as_run(sim);

  std::ostringstream csv, sum;
  csv << "job,iteration,warmup,start_s,end_s,duration_s,compute_s,comm_s,exposed_comm_s\n";
  sum << "trainvp: " << s.name << ": " << sim.jobs().size() << " jobs on " << s.cluster.gpus.size() << " GPUs ("
      << s.cluster.nodes << " node" << (s.cluster.nodes == 1 ? "" : "s") << " x " << s.cluster.gpus_per_node << " "
      << gpu_models(s.cluster) << ")\n";
  ojson jobs = ojson::array();
  char buf[512];
  for (const JobRun& run : sim.jobs()) {
    JobFigures f = job_entry(run, csv);
    const JobConfig& jc = *run.config;
    std::snprintf(buf, sizeof buf, "  %-16s %s on %zu node%s (%s), from %s: iteration %s, %.1f samples/s\n",
                  jc.name.c_str(), jc.scenario->workload.model.c_str(), jc.nodes.size(),
                  jc.nodes.size() == 1 ? "" : "s", placement_name(jc), format_time_s(sec(jc.start_ps)).c_str(),
                  format_time_s(f.iter_time).c_str(), f.samples_per_s);
    sum << buf;
    jobs.push_back(std::move(f.json));
  }
  j["jobs"] = jobs;

  ojson ranks = ojson::array();
  const std::vector<const JobConfig*> job_of = job_of_rank(s);
  for (const Gpu* g : sim.gpus()) {
    const JobConfig* jc = job_of[static_cast<std::size_t>(g->rank())];
    ojson o;
    if (jc) {
      g->report(o, jc->scenario->training.warmup);
      o["job"] = jc->name;
    } else {  // no job holds its node: it ran nothing
      o = {{"name", g->name()},
           {"rank", g->rank()},
           {"gpu", g->params().model},
           {"speed", g->params().speed},
           {"job", nullptr}};
    }
    ranks.push_back(o);
  }
  j["ranks"] = ranks;
  if (s.output.collectives) j["collectives"] = collective_records(sim);
  else j["collective_totals"] = collective_totals(sim);
  r.csv = csv.str();
  finish_run_results(r, sim, sum);
  return r;
}

}  // namespace trainvp
