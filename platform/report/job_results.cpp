#include "platform/report/job_results.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

#include "platform/core/sim_time.hpp"
#include "platform/core/units.hpp"
#include "platform/report/build_record.hpp"
#include "platform/config/faults.hpp"
#include "platform/core/name_table.hpp"
#include "platform/report/fleet.hpp"
#include "platform/report/parallel_results.hpp"
#include "platform/report/results_parts.hpp"
#include "platform/system/health/score.hpp"
#include "platform/system/sync/registry.hpp"

namespace trainvp {

using namespace report_detail;
using ojson = nlohmann::ordered_json;

namespace {

// GPU-hours as the summary prints them: three significant digits.
std::string format_hours(double h) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", h);
  return b;
}

const char* placement_name(const JobConfig& j) {
  if (j.explicit_nodes) return "nodes";
  return j.policy == PlacementPolicy::Spread ? "spread" : "packed";
}

struct JobFigures {
  ojson json;
  double iter_time = 0, samples_per_s = 0;
  FleetJob fleet;
};

// The job's own degraded-throughput report (with its `slo`, faults or `health`) and its health
// section: its monitor scored against the faults touching it and the other jobs' traffic.
// Its degradation is computed for every job (the fleet report reads it) and listed where asked.
void add_job_health(ojson& o, const Simulation& sim, const JobRun& run, const std::vector<ClusterIteration>& iters,
                    FleetJob& fleet) {
  const JobConfig& jc = *run.config;
  const Scenario& js = *jc.scenario;
  const FailSlowMonitor* monitor = sim.job_monitor(jc);
  const ojson faults = sim.faults() ? ojson(sim.faults()->results()) : ojson::array();
  std::vector<std::string> affected;
  for (const std::string& n : ranks_affected(sim, faults))
    for (const Gpu* g : run.gpus)
      if (n == g->name()) affected.push_back(n);
  const auto period = sync_strategy(js.training.sync.strategy).period;
  const int window = period ? period(js, nullptr) : 1;
  // Its healthy baseline is taken before any other job's traffic began.
  std::int64_t neighbours_from = INT64_MAX;
  for (const JobConfig& other : sim.scenario().jobs)
    if (&other != &jc && other.kind == JobKind::Training) neighbours_from = std::min(neighbours_from, other.start_ps);
  for (const CheckpointJob* c : sim.checkpoints())
    if (!c->bursts().empty()) neighbours_from = std::min(neighbours_from, c->bursts().front().start_ps);
  fleet.degradation =
      degradation_of(js, window, iters, faults, affected, static_cast<double>(run.gpus.size()), neighbours_from);
  if (js.slo.given || sim.faults() || monitor) o["degradation"] = fleet.degradation;
  if (monitor) o["health"] = sim.job_health_results(jc);

  // What could explain its slow windows: the faults that touch its GPUs (or touch no GPU at all:
  // the shared network's links), and the checkpoint jobs' bursts.
  constexpr double kOpen = std::numeric_limits<double>::infinity();
  for (const ojson& f : faults) {
    if (!f.value("applied", false)) continue;
    const FailCause cause = cause_of(*value_in(fault_kind_names(), f["kind"].get<std::string>()));
    const std::vector<std::string> touched = ranks_affected(sim, ojson::array({f}));
    bool ours = touched.empty() && cause == FailCause::Communication;
    for (const std::string& n : touched)
      ours = ours || std::find(affected.begin(), affected.end(), n) != affected.end();
    if (!ours) continue;
    const double end = f.contains("end_s") && f["end_s"].is_number() ? f["end_s"].get<double>() : kOpen;
    fleet.causes.push_back({cause_name(cause), f["start_s"].get<double>(), end});
  }
  fleet.sends = run.strategy || run.plan;  // the other training jobs' spans are added by fleet_report
  for (const CheckpointJob* c : sim.checkpoints())
    for (const CheckpointJob::Burst& b : c->bursts())
      fleet.causes.push_back({"neighbour", sec(b.start_ps), b.end_ps >= 0 ? sec(b.end_ps) : kOpen});
}

// One job's entry: where it ran, its iterations (as a single training's results list them) and
// their means after its warm-up.
JobFigures job_entry(const Simulation& sim, const JobRun& run, std::ostringstream& csv) {
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
  f.fleet.name = jc.name;
  f.fleet.gpus = static_cast<double>(gpus.size());
  f.fleet.start_s = n > 0 ? sec(iters.front().start) : sec(jc.start_ps);
  f.fleet.end_s = n > 0 ? sec(iters.back().end) : sec(jc.start_ps);
  add_job_health(o, sim, run, iters, f.fleet);
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
  sum << "trainvp: " << s.name << ": " << s.jobs.size() << " jobs on " << s.cluster.gpus.size() << " GPUs ("
      << s.cluster.nodes << " node" << (s.cluster.nodes == 1 ? "" : "s") << " x " << s.cluster.gpus_per_node << " "
      << gpu_models(s.cluster) << ")\n";
  ojson jobs = ojson::array();
  std::vector<FleetJob> fleet;
  char buf[512];
  for (const JobConfig& jc : s.jobs) {
    if (jc.kind == JobKind::Checkpoint) {
      for (const CheckpointJob* c : sim.checkpoints()) {
        if (&c->config() != &jc) continue;
        ojson o = c->report();
        std::snprintf(buf, sizeof buf, "  %-16s checkpoint from %zu node%s, from %s: %zu burst%s\n", jc.name.c_str(),
                      jc.nodes.size(), jc.nodes.size() == 1 ? "" : "s", format_time_s(sec(jc.start_ps)).c_str(),
                      c->bursts().size(), c->bursts().size() == 1 ? "" : "s");
        sum << buf;
        jobs.push_back(std::move(o));
      }
      continue;
    }
    const JobRun* found = nullptr;
    for (const JobRun& r : sim.jobs())
      if (r.config == &jc) found = &r;
    const JobRun& run = *found;
    JobFigures f = job_entry(sim, run, csv);
    std::snprintf(buf, sizeof buf, "  %-16s %s on %zu node%s (%s), from %s: iteration %s, %.1f samples/s\n",
                  jc.name.c_str(), jc.scenario->workload.model.c_str(), jc.nodes.size(),
                  jc.nodes.size() == 1 ? "" : "s", placement_name(jc), format_time_s(sec(jc.start_ps)).c_str(),
                  format_time_s(f.iter_time).c_str(), f.samples_per_s);
    sum << buf;
    if (const FailSlowMonitor* m = sim.job_monitor(jc)) {
      const ojson& h = sim.job_health_results(jc);
      std::snprintf(buf, sizeof buf, "  %-16s health: %zu diagnos%s, %d true, %d of %zu neighbours seen\n", "",
                    m->diagnoses().size(), m->diagnoses().size() == 1 ? "is" : "es",
                    h["score"]["true_positives"].get<int>(), h["score"].value("neighbours_detected", 0),
                    h.contains("neighbours") ? h["neighbours"].size() : 0);
      sum << buf;
    }
    jobs.push_back(std::move(f.json));
    fleet.push_back(std::move(f.fleet));
  }
  j["jobs"] = jobs;
  j["fleet"] = fleet_report(fleet);
  {
    const ojson& t = j["fleet"]["total"];
    std::string causes;
    for (auto& [k, v] : t["lost_by_cause"].items())
      if (v.get<double>() > 0) causes += (causes.empty() ? " (" : ", ") + k + " " + format_hours(v.get<double>());
    if (!causes.empty()) causes += ")";
    std::snprintf(buf, sizeof buf,
                  "  %-16s %s GPU-h allocated, %s within the SLO, %s lost%s, %s of healthy GPUs stranded\n", "fleet",
                  format_hours(t["gpu_hours_allocated"].get<double>()).c_str(),
                  format_hours(t["gpu_hours_within_slo"].get<double>()).c_str(),
                  format_hours(t["gpu_hours_lost"].get<double>()).c_str(), causes.c_str(),
                  format_hours(t["healthy_gpu_hours_stranded"].get<double>()).c_str());
    sum << buf;
  }

  ojson ranks = ojson::array();
  const std::vector<const JobConfig*> job_of = job_of_rank(s);
  for (const Gpu* g : sim.gpus()) {
    const JobConfig* jc = job_of[static_cast<std::size_t>(g->rank())];
    ojson o;
    if (jc) {
      g->report(o, jc->scenario->training.warmup);
      o["job"] = jc->name;
    } else {  // no job holds its node: it ran nothing
      o = {{"name", g->name()},           {"rank", g->rank()},
           {"gpu", g->params().model},    {"speed", g->params().speed},
           {"iteration_time_s", nullptr}, {"compute_s", nullptr},
           {"blocked_s", nullptr},        {"job", nullptr}};
      for (const JobConfig& c : s.jobs) {  // a checkpoint job's writers and storage nodes compute nothing
        const int node = s.cluster.gpus[static_cast<std::size_t>(g->rank())].node;
        const auto& st = c.checkpoint.storage;
        if (c.kind == JobKind::Checkpoint && (std::find(c.nodes.begin(), c.nodes.end(), node) != c.nodes.end() ||
                                              std::find(st.begin(), st.end(), node) != st.end()))
          o["job"] = c.name;
      }
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
