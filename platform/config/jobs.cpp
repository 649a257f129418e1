#include "platform/config/jobs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "platform/config/scenario.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<JobRaw>& job_schema() {
  static const ParamSet<JobRaw> s = [] {
    ParamSet<JobRaw> p("job", "/jobs/*",
                       "One training job of several sharing the cluster (docs/jobs.md): its own workload, training "
                       "and synchronization, on whole nodes, from its own start time.");
    p.text("name", &JobRaw::name, nullptr,
           "Job name in results.json and the trace: letters, digits, '.', '_' and '-', unique; default: jobN")
        .choice("kind", &JobRaw::kind, "training",
                {{"training", JobKind::Training}, {"checkpoint", JobKind::Checkpoint}},
                "training: trains `workload`; checkpoint: writes bursts to storage nodes (see `checkpoint`)")
        .nested("workload", "object", nullptr,
                "What the job trains, as the top-level `workload` (kind training); required for a training job")
        .nested("training", "object", json::object(), "Its iterations and synchronization, as the top-level `training`")
        .nested("health", "object", nullptr,
                "The job's own fail-slow monitor and mitigation, as the top-level `health` (docs/health.md#with-jobs)")
        .nested("slo", "object", nullptr, "The job's degraded-throughput report, as the top-level `slo`")
        .nested("checkpoint", "object", nullptr, "Kind checkpoint: its bursts (see `checkpoint`)")
        .nested("placement", "object", nullptr, "The nodes it runs on (see `placement`)")
        .time("start", &JobRaw::start_ps, "0s", "When its first iteration (or burst) starts")
        .required("placement");
    return p;
  }();
  return s;
}

const ParamSet<PlacementRaw>& placement_schema() {
  static const ParamSet<PlacementRaw> s = [] {
    ParamSet<PlacementRaw> p("placement", "/jobs/*/placement",
                             "Where a job runs: a count of whole nodes placed by a policy, or the list of its nodes. "
                             "Jobs are placed in list order, each from the nodes the earlier ones left.");
    p.nested("nodes", "integer or array", nullptr,
             "How many nodes (placed by `policy`), or the node indices themselves (then `policy` is not given)")
        .choice("policy", &PlacementRaw::policy, "packed",
                {{"packed", PlacementPolicy::Packed}, {"spread", PlacementPolicy::Spread}},
                "packed: the lowest-numbered free nodes (a job fills a leaf before the next); spread: one node per "
                "leaf in turn (round-robin over the leaves with free nodes), so the job crosses the spines")
        .required("nodes");
    return p;
  }();
  return s;
}

int placement_group(const ClusterConfig& c, int node) {
  const FabricConfig& f = c.fabric;
  if (f.topology == Topology::Switch || (f.topology == Topology::LeafSpine && f.rail_optimized)) return 0;
  if (f.rail_optimized) return node / f.leaf_ports;  // three-tier rails: the node's pod
  return node * c.nics_per_node / f.leaf_ports;      // the fabric hangs NIC k off leaf k / leaf_ports
}

namespace {

// An error from a job's own sections names /workload/... or /training/...: put it under the job.
[[noreturn]] void rethrow_under(const ScenarioError& e, const std::string& base) {
  std::string msg = e.what();
  const std::string head = (e.path.empty() ? std::string("/") : clip_pointer(e.path)) + ": ";
  if (msg.compare(0, head.size(), head) == 0) msg.erase(0, head.size());
  throw ScenarioError(base + e.path, msg);
}

// `count` free nodes by `policy`: packed takes the lowest-numbered; spread takes, leaf by leaf in
// turn, the lowest-numbered free node of each leaf that has one.
std::vector<int> place(const ClusterConfig& c, const std::vector<bool>& taken, int count, PlacementPolicy policy) {
  std::vector<int> out;
  if (policy == PlacementPolicy::Packed) {
    for (int n = 0; n < c.nodes && static_cast<int>(out.size()) < count; ++n)
      if (!taken[static_cast<std::size_t>(n)]) out.push_back(n);
    return out;
  }
  std::map<int, std::vector<int>> free_by_group;  // leaf -> free nodes, ascending
  for (int n = 0; n < c.nodes; ++n)
    if (!taken[static_cast<std::size_t>(n)]) free_by_group[placement_group(c, n)].push_back(n);
  std::map<int, std::size_t> next;
  while (static_cast<int>(out.size()) < count) {
    bool any = false;
    for (auto& [g, nodes] : free_by_group) {
      if (static_cast<int>(out.size()) >= count) break;
      std::size_t& k = next[g];
      if (k < nodes.size()) out.push_back(nodes[k++]), any = true;
    }
    if (!any) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What a job may not hold (yet), and why: each names the key that asks for it.
void check_job_features(const Scenario& js, const json& job) {
  if (js.collective_bench || js.chakra)
    fail_expected("/workload/kind", "\"training\": a job trains (a benchmark or a trace runs alone)",
                  member(job["workload"], "kind"));
  if (js.train.enabled)
    throw ScenarioError("/workload/train", "real training in the loop runs one job's training; not inside `jobs`");
  if (js.training.functional)
    throw ScenarioError("/workload/functional", "functional mode checks one job's gradient values; not inside `jobs`");
  if (js.training.sync.strategy == SyncStrategyKind::DreamDdp)
    throw ScenarioError("/training/sync/strategy",
                        "dreamddp profiles its schedule on the whole cluster before the run; not inside `jobs`");
  if (js.training.sync.retry.enabled)
    throw ScenarioError("/training/sync/retry",
                        "the transport's give-up is the fabric's, shared by every job; retries run with one job");
}

// What a job's monitor and mitigation may not do (yet) beside other jobs.
void check_job_health(const HealthConfig& h) {
  if (!h.enabled) return;
  if (h.mitigation.policy == MitigationPolicy::Oracle)
    throw ScenarioError("/health/mitigation/policy",
                        "the oracle acts on every injected fault, whichever job it touches; not inside `jobs`");
}

// A checkpoint job: its bursts' parameters and its storage nodes, taken from the free ones.
json load_checkpoint(JobConfig& jc, const json& job, const std::string& base, std::vector<bool>& taken,
                     const ClusterConfig& c) {
  for (const char* key : {"workload", "training", "health", "slo"})
    if (job.contains(key))
      throw ScenarioError(base + "/" + key, "a checkpoint job writes bursts and trains nothing; leave it out");
  const std::string cp = base + "/checkpoint";
  if (!job.contains("checkpoint"))
    throw ScenarioError(cp, "missing required key \"checkpoint\" (a checkpoint job's bursts)");
  json res = checkpoint_schema().load(jc.checkpoint, job["checkpoint"], cp);
  const json& st = job["checkpoint"]["storage"];
  if (!st.is_array() || st.empty()) fail_expected(cp + "/storage", "a non-empty list of node indices", st);
  for (std::size_t k = 0; k < st.size(); ++k) {
    const std::string np = ptr_join(cp + "/storage", k);
    const int n = static_cast<int>(
        params_detail::as_integer(st[k], np, Range{0, static_cast<double>(c.nodes - 1), false, false}));
    if (taken[static_cast<std::size_t>(n)])
      throw ScenarioError(np, "node " + std::to_string(n) + " is held by a job (or listed twice)");
    taken[static_cast<std::size_t>(n)] = true;
    jc.checkpoint.storage.push_back(n);
  }
  return res;
}

}  // namespace

json load_jobs(Scenario& top, const json& value, const std::string& scenario_dir) {
  if (!value.is_array() || value.empty()) fail_expected("/jobs", "a non-empty list of jobs", value);
  if (top.cluster.cxl.present)
    throw ScenarioError("/cluster/node/cxl", "a CXL device reduces one job's gradients; with `jobs`, leave it out");
  if (top.cluster.aggregators.count > 0)
    throw ScenarioError("/cluster/aggregators",
                        "CPU aggregator nodes serve one job's parameter server; with `jobs`, leave them out");
  std::vector<bool> taken(static_cast<std::size_t>(top.cluster.nodes), false);
  std::set<std::string> names;
  json out = json::array();
  std::int64_t horizon = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string base = ptr_join("/jobs", i);
    const json& job = value[i];
    JobRaw raw;
    json res = job_schema().load(raw, job, base);
    JobConfig jc;
    jc.name = job.contains("name") ? raw.name : "job" + std::to_string(i);
    if (!safe_name(jc.name))
      fail_expected(base + "/name", "a job name of letters, digits, '.', '_' and '-'", json(jc.name));
    if (!names.insert(jc.name).second) fail_expected(base + "/name", "a name no other job has", json(jc.name));
    res["name"] = jc.name;
    jc.start_ps = raw.start_ps;
    jc.kind = raw.kind;
    if (!job.contains("kind")) res.erase("kind");  // a training job as it always resolved
    if (jc.kind == JobKind::Training && !job.contains("workload"))
      throw ScenarioError(base + "/workload", "missing required key \"workload\" (what the job trains)");

    const std::string pp = base + "/placement";
    PlacementRaw praw;
    json pres = placement_schema().load(praw, job["placement"], pp);
    jc.policy = praw.policy;
    const json& nodes = job["placement"]["nodes"];
    if (nodes.is_array()) {
      if (job["placement"].contains("policy"))
        throw ScenarioError(pp + "/policy", "places a count of nodes; `nodes` lists them already");
      if (nodes.empty()) fail_expected(pp + "/nodes", "at least one node", nodes);
      jc.explicit_nodes = true;
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        const std::string np = ptr_join(pp + "/nodes", k);
        const int n = static_cast<int>(params_detail::as_integer(
            nodes[k], np, Range{0, static_cast<double>(top.cluster.nodes - 1), false, false}));
        if (taken[static_cast<std::size_t>(n)])
          throw ScenarioError(np, "node " + std::to_string(n) + " is held by another job (or listed twice)");
        taken[static_cast<std::size_t>(n)] = true;
        jc.nodes.push_back(n);
      }
      std::sort(jc.nodes.begin(), jc.nodes.end());
      pres.erase("policy");
    } else {
      const int count = static_cast<int>(params_detail::as_integer(
          nodes, pp + "/nodes", Range{1, static_cast<double>(top.cluster.nodes), false, false}));
      jc.nodes = place(top.cluster, taken, count, praw.policy);
      if (static_cast<int>(jc.nodes.size()) < count)
        fail_expected(pp + "/nodes",
                      "at most the " + std::to_string(jc.nodes.size()) + " nodes the earlier jobs left free", nodes);
      for (int n : jc.nodes) taken[static_cast<std::size_t>(n)] = true;
      pres["placed"] = jc.nodes;
    }
    res["placement"] = pres;
    for (const GpuInstance& g : top.cluster.gpus)
      if (std::binary_search(jc.nodes.begin(), jc.nodes.end(), g.node)) jc.ranks.push_back(g.rank);

    auto js = std::make_shared<Scenario>();
    js->name = jc.name;
    js->seed = top.seed;
    js->cluster = top.cluster;  // all of it: ranks and nodes keep their numbers
    if (jc.kind == JobKind::Checkpoint) {
      res["checkpoint"] = load_checkpoint(jc, job, base, taken, top.cluster);
      res.erase("training");
      jc.scenario = std::move(js);
      top.jobs.push_back(std::move(jc));
      out.push_back(res);
      continue;
    }
    // What the job's own checks see: its nodes and GPUs (a parallel layout counts them).
    ClusterConfig view = top.cluster;
    view.nodes = static_cast<int>(jc.nodes.size());
    view.gpus.clear();
    for (int r : jc.ranks) view.gpus.push_back(top.cluster.gpus[static_cast<std::size_t>(r)]);
    try {
      WorkloadRaw wraw;
      res["workload"] = load_workload_section(*js, wraw, job["workload"], scenario_dir);
      if (js->trains()) res["training"] = load_training(js->training, js->workload, member(job, "training"), view);
      js->training.functional = wraw.functional;
      check_job_features(*js, job);
      check_training_workload(*js, job["workload"], wraw);
      check_parallel_workload(*js, &view.gpus);
      if (json slo = load_slo(js->slo, member(job, "slo")); !slo.is_null()) res["slo"] = slo;
      if (json h = load_health(js->health, member(job, "health")); !h.is_null()) res["health"] = h;
      check_job_health(js->health);
      for (int r : jc.ranks) {  // the job's own GPUs compute in its dtype
        const GpuInstance& g = top.cluster.gpus[static_cast<std::size_t>(r)];
        if (g.params.compute_rate(js->workload.shape.dtype) <= 0)
          fail_expected("/workload/dtype",
                        std::string("a dtype that ") + g.name + " (" + g.params.model + ") computes in",
                        json(dtype_name(js->workload.shape.dtype)));
      }
    } catch (const ScenarioError& e) {
      rethrow_under(e, base);
    }
    horizon = std::max(horizon, jc.start_ps + js->training.time_limit_ps);
    jc.scenario = std::move(js);
    top.jobs.push_back(std::move(jc));
    out.push_back(res);
  }
  if (std::none_of(top.jobs.begin(), top.jobs.end(), [](const JobConfig& j) { return j.kind == JobKind::Training; }))
    throw ScenarioError("/jobs", "at least one training job (checkpoint jobs burst while training runs)");
  top.training.time_limit_ps = horizon;  // the run ends when the last job's limit is reached
  top.training.iterations = 0, top.training.warmup = 0;
  return out;
}

}  // namespace trainvp
