#include "platform/system/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "models/parallel/parallel_sync.hpp"
#include "platform/core/asan_stack.hpp"
#include "platform/core/errors.hpp"
#include "platform/system/faults/campaign.hpp"
#include "platform/system/health/score.hpp"
#include "platform/core/units.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

static double wall_now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

Simulation::Simulation(const Scenario& s, bool progress, bool elaborate_only)
    : scenario_(s), ctx_(s.seed, s.output.trace) {
  ctx_.trace.set_max_events(s.output.trace_max_events);
  const SyncStrategyEntry& sync = sync_strategy(s.training.sync.strategy);
  const bool planned = s.trains() && sync.planned;
  // The first CXL device's waveforms go to a temporary file that becomes DIR/waves.vcd (or .fst)
  // only if the run succeeds.
  if (s.cluster.cxl.present && s.output.waves && !elaborate_only) {  // validate writes nothing
    std::filesystem::create_directories(s.output.dir);
    waves_tmp_ = (std::filesystem::path(s.output.dir) / ("." + s.output.waves_file() + ".tmp")).string();
  }
  if (s.training.parallel.enabled && s.trains()) {
    try {
      parallel_ = make_parallel_plan(s.workload, s.training.parallel, static_cast<int>(s.cluster.gpus.size()),
                                     s.cluster.gpus.front().params);
    } catch (const LayoutError& e) {  // the config layer checks the same plan; kept for direct callers
      throw ScenarioError("/training/parallel/" + e.field, e.what());
    }
  }
  // DreamDDP's profiling pass simulates the fabric in a child process: before any module exists.
  // Hybrid parallelism: one plan per stage, its layers over its first DP group (the others alike);
  // none with d = 1, where nothing synchronizes.
  if (planned && !elaborate_only) {
    if (!parallel_) {
      dreamddp_.push_back(plan_dreamddp(s));
    } else if (s.training.parallel.dp > 1) {
      for (int pp = 0; pp < s.training.parallel.pp; ++pp)
        dreamddp_.push_back(plan_dreamddp(s, parallel_->stages[static_cast<std::size_t>(pp)].workload,
                                          parallel_->layout.dp_group(0, pp)));
    }
  }
  if (!s.jobs.empty()) {
    job_of_ = job_of_rank(s);
    job_plans_ = job_plans(s);
    plan_of_ = plan_of_rank(s, job_plans_);
  }
  cluster_ = build_cluster(s, ctx_, {waves_tmp_, s.output.waves_format, s.output.waves_max_bytes}, parallel_.get(),
                           s.jobs.empty() ? nullptr : &job_of_, s.jobs.empty() ? nullptr : &plan_of_);
  const std::vector<Gpu*>& all = cluster_.gpus;
  const std::vector<int>& nodes_of = cluster_.nodes_of;
  if (!s.jobs.empty()) {  // each link counts every job's bytes (link_series.json)
    std::vector<int> owner(s.cluster.gpus.size(), -1);
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
      for (int r : s.jobs[i].ranks) owner[static_cast<std::size_t>(r)] = static_cast<int>(i);
    cluster_.fabric->set_owners(std::move(owner), s.jobs.size());
  }
  if (s.training.functional) {
    std::vector<int> world;
    std::vector<std::string> names;
    for (auto& g : s.cluster.gpus) world.push_back(g.rank);
    for (auto& l : s.workload.layers) names.push_back(l.name);
    functional_ =
        std::make_unique<FunctionalData>(s.seed, s.workload.shape.grad_dtype, s.cluster.cxl.ftz,
                                         s.training.sync.algorithm, world, nodes_of, s.cluster.fabric.chunk, names);
    cluster_.engine->set_functional(functional_.get());
  }
  if (s.collective_bench)
    bench_ = std::make_unique<CollectiveBench>("collective_bench", s.bench, *cluster_.engine, nodes_of, ctx_);
  else if (s.chakra)
    chakra_ = std::make_unique<ChakraRun>("chakra", s.chakra_workload, all, *cluster_.engine, nodes_of, ctx_);
  else if (!s.jobs.empty()) {
    jobs_ = build_jobs(s, cluster_, job_plans_, ctx_);
    for (const JobConfig& j : s.jobs)
      if (j.kind == JobKind::Checkpoint)
        checkpoints_.push_back(
            std::make_unique<CheckpointJob>(("checkpoint" + std::to_string(checkpoints_.size())).c_str(), j, s.cluster,
                                            *cluster_.engine, nodes_of, [this] {
                                              for (const JobRun& r : jobs_)
                                                for (const Gpu* g : r.gpus)
                                                  if (!g->finished()) return false;
                                              return true;
                                            }));
  } else if (parallel_) strategy_ = make_parallel_sync(s, sync, nodes_of);
  else if (!(planned && elaborate_only))
    strategy_ = sync.make({s, *cluster_.engine, all, nodes_of, s.training.iterations, ctx_, dreamddp()});
  // Transfers may fail only where a strategy retries them (docs/faults.md#transport-failure).
  if (strategy_ && s.training.sync.retry.enabled) cluster_.engine->set_give_up(s.training.sync.retry.give_up_ps());
  // The fault campaign is drawn against the fabric's names and validated like explicit faults;
  // fault targets are checked against the names here, before anything runs.
  fault_list_ = s.faults;
  fault_list_json_ = s.resolved.value("faults", nlohmann::json::array());
  if (s.fault_generator.enabled) {
    nlohmann::json drawn =
        generate_faults(s.fault_generator, fault_generator_targets(s.fault_generator, s, *cluster_.fabric));
    generated_ = drawn.size();
    for (auto& f : drawn) fault_list_json_.push_back(std::move(f));
    nlohmann::json resolved;
    fault_list_ = load_fault_list(fault_list_json_, resolved);
    fault_list_json_ = std::move(resolved);
  }
  if (s.health.enabled && s.trains() && !(planned && elaborate_only)) {
    FailSlowMonitor::Parts mp;
    mp.params = s.health.detector;
    mp.gpus = all;
    mp.engine = cluster_.engine.get();
    mp.nodes_of = nodes_of;
    monitor_ = std::make_unique<FailSlowMonitor>("health_monitor", std::move(mp), ctx_);
  }
  if (!s.jobs.empty() && !elaborate_only) build_job_monitors(s);
  if (!fault_list_.empty())
    faults_ = std::make_unique<FaultInjector>(fault_list_, *cluster_.fabric, all, ctx_, s.cluster.fabric.chunk);
  // Several jobs: one job's skip would take away traffic the others compete with (docs/jobs.md).
  if (s.trains() && s.jobs.empty() && !(planned && elaborate_only)) {
    FastForwardParts ff;
    ff.cfg = s.training.fast_forward;
    ff.iterations = s.training.iterations;
    ff.warmup = s.training.warmup;
    ff.cycle = sync.period ? sync.period(s, dreamddp()) : 1;
    ff.gpus = all;
    ff.strategy = strategy_.get();
    ff.engine = cluster_.engine.get();
    ff.fabric = cluster_.fabric.get();
    ff.faults = faults_.get();
    // What a skip cannot account: values checked as they travel, clocked devices, traffic on its own clock.
    if (s.training.functional) ff.off_reason = "functional mode checks every value that travels";
    else if (parallel_ && s.training.parallel.zero > 0 && s.training.parallel.dp > 1 && strategy_)
      ff.off_reason =
          "ZeRO's parameter all-gathers run across the iteration boundary (an iteration waits for the last one's)";
    else if (!cluster_.cxl.empty()) ff.off_reason = "CXL devices run on their own clock";
    else if (!cluster_.aggregators.empty())
      ff.off_reason = "CPU aggregators' statistics are not repeated for skipped iterations";
    else if (!cluster_.nvls.empty()) ff.off_reason = "NVLS units' statistics are not repeated for skipped iterations";
    else if (faults_ && faults_->has_background()) ff.off_reason = "congestion traffic runs on its own clock";
    else if (s.training.sync.retry.enabled) ff.off_reason = "transport failures and retries are not periodic";
    else if (s.training.sync.strategy == SyncStrategyKind::Elastic && s.training.sync.elastic_timeout_ps >= 0)
      ff.off_reason = "elastic's weak-sync averages run across iteration boundaries";
    if (parallel_ && strategy_) {
      static_cast<ParallelSync*>(strategy_.get())->set_max_skip_period(s.training.fast_forward.max_period);
      ff.by_iteration = true;
      ff.summed = summed_parallel_collective;
      ff.comm = [ps = parallel_sync()](int r, int i) { return ps->gate_comm_ps(r, i); };
    }
    if (!s.output.collectives) ff.summed = [](const std::string&) { return true; };  // results list none
    // The fail-slow monitor and its mitigation let a skip happen only between their own actions,
    // and the monitor reads the skipped iterations as steady windows.
    if (monitor_) {
      ff.skip_limit = [this] {
        if (!monitor_->may_skip()) return 0;
        return mitigation_ ? mitigation_->skip_limit() : -1;
      };
      ff.on_skip = [this](int boundary, const IterationSkip& k) {
        monitor_->skipped(boundary, k.iterations, k.delay_ps());
      };
    }
    fast_forward_ = std::make_unique<FastForward>(std::move(ff), ctx_);
  }
  if (monitor_ && s.health.mitigation.policy != MitigationPolicy::None) {
    Mitigation::Parts mp;
    mp.cfg = s.health.mitigation;
    mp.monitor = monitor_.get();
    mp.gpus = all;
    // S2 moves micro-batches between data-parallel replicas (samples, without hybrid parallelism).
    for (const Gpu* g : all) mp.replica_of.push_back(parallel_ ? parallel_->layout.coord(g->rank()).dp : g->rank());
    mp.replicas = parallel_ ? s.training.parallel.dp : static_cast<int>(all.size());
    mp.units = parallel_ ? s.training.parallel.micro_batches : static_cast<int>(s.workload.samples_per_iteration());
    // S3 weighs stages by a micro-batch's healthy time there, as the partition balanced them.
    if (parallel_) {
      for (const Gpu* g : all) mp.stage_of.push_back(parallel_->layout.coord(g->rank()).pp);
      mp.stage_work = stage_work_ps(*parallel_, s.workload, s.training.parallel, s.cluster.gpus.front().params);
    }
    mp.faults = faults_.get();
    mp.fabric = cluster_.fabric.get();
    mp.engine = cluster_.engine.get();
    mp.next = fast_forward_.get();
    mitigation_ = std::make_unique<Mitigation>(std::move(mp), ctx_);
  }
  if (!job_health_.empty()) build_job_mitigations(s);
  // Training runs only: a collective benchmark has no iterations to count.
  if (progress && !elaborate_only && s.trains() && s.jobs.empty() && !all.empty()) {
    progress_ = std::make_unique<RunProgress>(stderr, s.training.iterations, static_cast<int>(all.size()),
                                              all.front()->phases_per_iteration());
    ctx_.on_iteration_end = [this](int it) { progress_->iteration_end(it); };
    all.front()->phase_end.connect([this](int, int it, const Phase&) { progress_->phase_end(it); });
  }
  // Background traffic (and a checkpoint job's next burst) never lets the kernel starve: end the
  // run when the work is done.
  if ((faults_ && faults_->has_background()) || !checkpoints_.empty()) {
    std::vector<const sc_core::sc_event*> also;
    if (bench_) also.push_back(&bench_->finished_event());
    if (chakra_) also.push_back(&chakra_->finished_event());
    for (const auto& c : checkpoints_) also.push_back(&c->changed_event());
    // A collective no rank waits for (localsgd's last average) still completes, as it would in a
    // run with no background traffic, which ends by starving only once it has (#45).
    also.push_back(&cluster_.engine->quiet_event());
    run_end_ = std::make_unique<RunEnd>(
        "run_end", [this] { return work_done() && cluster_.engine->moving() == 0; }, also);
    const int last = s.training.iterations - 1;
    ctx_.on_iteration_end = [this, last](int it) {
      if (progress_) progress_->iteration_end(it);
      if (it >= last) run_end_->poke();
    };
  }
}

// One monitor per training job with `health`, watching the job's ranks only. Built before the
// fault injector, as the single monitor is: each charges its tracking cost to its GPUs' base speed.
void Simulation::build_job_monitors(const Scenario& s) {
  for (std::size_t k = 0; k < s.jobs.size(); ++k) {
    const JobConfig& j = s.jobs[k];
    if (j.kind != JobKind::Training || !j.scenario->health.enabled) continue;
    FailSlowMonitor::Parts mp;
    mp.params = j.scenario->health.detector;
    mp.gpus = cluster_.gpus;
    mp.ranks = j.ranks;
    mp.engine = cluster_.engine.get();
    mp.nodes_of = cluster_.nodes_of;
    JobHealth h;
    h.job = &j;
    h.monitor =
        std::make_unique<FailSlowMonitor>(("health_monitor_job" + std::to_string(k)).c_str(), std::move(mp), ctx_);
    job_health_.push_back(std::move(h));
  }
}

// Each job's mitigation acts within the job's means: its own ranks' pauses and splits, and
// restarts that replace its own nodes. S3 and the oracle are refused with `jobs` (config).
void Simulation::build_job_mitigations(const Scenario& s) {
  // The nodes no job holds: every job's S4 restarts on them (a pool they share).
  std::vector<bool> held(static_cast<std::size_t>(s.cluster.nodes), false);
  for (const JobConfig& j : s.jobs) {
    for (int n : j.nodes) held[static_cast<std::size_t>(n)] = true;
    for (int n : j.checkpoint.storage) held[static_cast<std::size_t>(n)] = true;
  }
  auto spares = std::make_shared<std::vector<int>>();
  std::vector<int> leaf_of;
  for (int n = 0; n < s.cluster.nodes; ++n) {
    if (!held[static_cast<std::size_t>(n)]) spares->push_back(n);
    leaf_of.push_back(placement_group(s.cluster, n));
  }
  for (JobHealth& h : job_health_) {
    const Scenario& js = *h.job->scenario;
    if (js.health.mitigation.policy == MitigationPolicy::None) continue;
    const ParallelPlan* plan = nullptr;
    for (const JobRun& r : jobs_)
      if (r.config == h.job) plan = r.plan;
    Mitigation::Parts mp;
    mp.cfg = js.health.mitigation;
    mp.monitor = h.monitor.get();
    mp.gpus = cluster_.gpus;
    mp.ranks = h.job->ranks;
    mp.replica_of.assign(cluster_.gpus.size(), 0);
    for (std::size_t i = 0; i < h.job->ranks.size(); ++i) {
      const int r = h.job->ranks[i];
      mp.replica_of[static_cast<std::size_t>(r)] = plan ? plan->layout.coord(r).dp : static_cast<int>(i);
    }
    mp.replicas = plan ? js.training.parallel.dp : static_cast<int>(h.job->ranks.size());
    mp.units = plan ? js.training.parallel.micro_batches : static_cast<int>(js.workload.samples_per_iteration());
    if (plan) {  // S3 weighs the job's stages by a micro-batch's healthy time there
      mp.stage_of.assign(cluster_.gpus.size(), 0);
      for (int r : h.job->ranks) mp.stage_of[static_cast<std::size_t>(r)] = plan->layout.coord(r).pp;
      mp.stage_work = stage_work_ps(*plan, js.workload, js.training.parallel,
                                    s.cluster.gpus[static_cast<std::size_t>(h.job->ranks.front())].params);
    }
    mp.faults = faults_.get();
    mp.fabric = cluster_.fabric.get();
    mp.engine = cluster_.engine.get();
    mp.spares = spares;
    mp.leaf_of = leaf_of;
    h.mitigation = std::make_unique<Mitigation>(std::move(mp), ctx_);
  }
}

// Each job's monitor scored against the faults that may touch it (a GPU or host fault on its own
// ranks; every link and congestion fault) and against the other jobs' traffic.
void Simulation::score_jobs() {
  if (job_health_.empty()) return;
  Fabric& fabric = *cluster_.fabric;
  const std::vector<FaultTruth> all = faults_ ? faults_->truth() : std::vector<FaultTruth>{};
  // Where the pairs were at their job's start and where they are now (its own S4 may move it).
  auto dirs_of = [&](const std::vector<std::pair<int, int>>& pairs, std::int64_t start_ps) {
    std::set<int> dirs;
    for (auto [a, b] : pairs) {
      for (const std::vector<int>& hop : fabric.layers_at(a, b, start_ps)) dirs.insert(hop.begin(), hop.end());
      for (const std::vector<int>& hop : fabric.route_layers(a, b)) dirs.insert(hop.begin(), hop.end());
    }
    return std::vector<int>(dirs.begin(), dirs.end());
  };
  std::vector<NeighbourTruth> everyone;  // per job of the scenario, in list order
  for (const JobConfig& j : scenario_.jobs) {
    NeighbourTruth n;
    n.job = j.name;
    if (j.kind == JobKind::Checkpoint) {
      n.kind = "checkpoint";
      for (const auto& c : checkpoints_) {
        if (&c->config() != &j) continue;
        for (const CheckpointJob::Burst& b : c->bursts())
          n.spans.push_back({b.start_ps, b.end_ps >= 0 ? b.end_ps : now_ps()});
        n.dirs = dirs_of(c->transfers(), j.start_ps);
      }
    } else {
      // A training job may send between any two of its nodes on a rail (NIC k to NIC k).
      n.kind = "training";
      n.spans.push_back({j.start_ps, now_ps()});
      std::vector<std::pair<int, int>> pairs;
      for (int a : j.ranks)
        for (int b : j.ranks) {
          const GpuInstance& ga = scenario_.cluster.gpus[static_cast<std::size_t>(a)];
          const GpuInstance& gb = scenario_.cluster.gpus[static_cast<std::size_t>(b)];
          if (ga.node != gb.node && ga.local == gb.local) pairs.push_back({a, b});
        }
      n.dirs = dirs_of(pairs, j.start_ps);
    }
    everyone.push_back(std::move(n));
  }
  for (JobHealth& h : job_health_) {
    std::vector<FaultTruth> mine;
    for (const FaultTruth& f : all)
      if (f.gpus.empty() || std::any_of(f.gpus.begin(), f.gpus.end(), [&](int g) {
            return std::binary_search(h.job->ranks.begin(), h.job->ranks.end(), g);
          }))
        mine.push_back(f);
    std::vector<NeighbourTruth> others;
    for (std::size_t k = 0; k < scenario_.jobs.size(); ++k)
      if (&scenario_.jobs[k] != h.job) others.push_back(everyone[k]);
    h.results = score_health(*h.monitor, mine, fabric, &others);
    if (h.mitigation) h.results["mitigation"] = h.mitigation->report();
  }
}

std::vector<const CheckpointJob*> Simulation::checkpoints() const {
  std::vector<const CheckpointJob*> out;
  for (const auto& c : checkpoints_) out.push_back(c.get());
  return out;
}

const FailSlowMonitor* Simulation::job_monitor(const JobConfig& j) const {
  for (const JobHealth& h : job_health_)
    if (h.job == &j) return h.monitor.get();
  return nullptr;
}

const nlohmann::ordered_json& Simulation::job_health_results(const JobConfig& j) const {
  static const nlohmann::ordered_json none;
  for (const JobHealth& h : job_health_)
    if (h.job == &j) return h.results;
  return none;
}

std::unique_ptr<SyncStrategy> Simulation::make_parallel_sync(const Scenario& s, const SyncStrategyEntry& sync,
                                                             const std::vector<int>& nodes_of) {
  if (s.training.parallel.zero > 0)
    if (const std::string why = zero_refusal(s, sync); !why.empty())
      throw ScenarioError("/training/parallel/zero", why);
  ParallelSync::Parts p;
  p.layout = &parallel_->layout;
  p.stages = &parallel_->stages;
  p.gpus = cluster_.gpus;
  p.engine = cluster_.engine.get();
  p.nodes_of = nodes_of;
  p.tp_algorithm = CollectiveAlgo::Ring;
  p.boundary_bytes = parallel_->boundary_bytes;
  // A planned strategy without its plans (validate skips the profiling run) elaborates no DP sync.
  if (s.training.parallel.dp > 1 && sync.kind != SyncStrategyKind::None && !(sync.planned && dreamddp_.empty()))
    p.make_dp = [this, &s, &sync, nodes_of](const Workload& stage, std::vector<Gpu*> group) {
      const int pp = parallel_->layout.coord(group.front()->rank()).pp;
      const DreamDdpPlan* plan = dreamddp_.empty() ? nullptr : dreamddp_[static_cast<std::size_t>(pp)].get();
      SyncBuild b{s, *cluster_.engine, std::move(group), nodes_of, s.training.iterations, ctx_, plan};
      b.workload = &stage;
      return sync.make(b);
    };
  return std::make_unique<ParallelSync>("parallel", std::move(p), ctx_);
}

Simulation::~Simulation() {
  cluster_.cxl.clear();  // closes the waveform file
  std::error_code ec;
  if (!waves_tmp_.empty() && !kept_) std::filesystem::remove(waves_tmp_, ec);
}

std::vector<const CxlDevice*> Simulation::cxl_devices() const {
  std::vector<const CxlDevice*> out;
  for (auto& d : cluster_.cxl) out.push_back(d.get());
  return out;
}

std::vector<const Aggregator*> Simulation::aggregators() const {
  std::vector<const Aggregator*> out;
  for (auto& a : cluster_.aggregators) out.push_back(a.get());
  return out;
}

std::vector<const NvlsUnit*> Simulation::nvls_units() const {
  std::vector<const NvlsUnit*> out;
  for (auto& u : cluster_.nvls) out.push_back(u.get());
  return out;
}

void Simulation::keep_waves() {
  cluster_.cxl.clear();  // flush and close before the file is renamed
  kept_ = true;
}

std::vector<const Gpu*> Simulation::gpus() const { return {cluster_.gpus.begin(), cluster_.gpus.end()}; }

void Simulation::run() {
  wall_start_ = wall_now();
  const std::int64_t limit_ps = scenario_.training.time_limit_ps;
  auto ps = ps_time;
  // Faults: run to each change time, apply it, go on. A run that starves before a change with
  // its work done has ended; one that starves with work pending (e.g. behind a link that is down)
  // is advanced to the change, which may let it go on.
  bool started = false;
  // Each return from sc_start gives ASan the main stack's bounds back (platform/core/asan_stack.hpp),
  // so a RunError thrown below and the destructors after it are checked without false reports.
  auto start = [](const sc_core::sc_time& d, sc_core::sc_starvation_policy p) {
    sc_core::sc_start(d, p);
    reannounce_stack_to_asan();
  };
  auto stopped = [] { return sc_core::sc_get_status() == sc_core::SC_STOPPED; };  // a failed check stops the run
  auto run_until = [&](std::int64_t t) {  // to t, or until nothing is left to do
    if (stopped() || t <= now_ps() || (started && !sc_core::sc_pending_activity()) || (run_end_ && run_end_->ended()))
      return;
    // With activity pending beyond t, time passes t anyway: run to t (SC_EXIT_ON_STARVATION would
    // warn (W571) that the call saw no activity).
    const bool beyond = started && sc_core::sc_time_to_pending_activity() > ps(t - now_ps());
    start(ps(t - now_ps()), beyond ? sc_core::SC_RUN_TO_TIME : sc_core::SC_EXIT_ON_STARVATION);
    started = true;
  };
  while (faults_ && !stopped() && faults_->next_change_ps() <= limit_ps) {
    const std::int64_t t = faults_->next_change_ps();
    run_until(t);
    if (now_ps() < t) {
      // Done only once nothing of the engine moves either: chunks held behind a link that is down
      // (a given-up collective's among them) cross when it comes back, as the fabric would carry them.
      if ((work_done() && cluster_.engine->moving() == 0) || stopped()) break;
      if (run_end_ && run_end_->ended()) break;
      start(ps(t - now_ps()), sc_core::SC_RUN_TO_TIME), started = true;
    }
    faults_->apply_due(now_ps());
  }
  run_until(limit_ps);
  if (fast_forward_) fast_forward_->finish();
  if (faults_) faults_->finish(now_ps());
  if (monitor_) {
    health_ = score_health(*monitor_, faults_ ? faults_->truth() : std::vector<FaultTruth>{}, *cluster_.fabric);
    if (mitigation_) health_["mitigation"] = mitigation_->report();
  }
  score_jobs();
  cluster_.fabric->flush_trace();
  stats_.wall_s = wall_now() - wall_start_;
  stats_.events = ctx_.events;
  stats_.delta_cycles = sc_core::sc_delta_count();
  stats_.simulated_ps = now_ps();
  // Work left with events still scheduled means the time limit cut the run; without, a stall.
  hit_limit_ = sc_core::sc_pending_activity();
  std::string failure;
  for (auto& d : cluster_.cxl)
    if (failure.empty()) failure = d->failure();
  if (failure.empty() && functional_) failure = functional_->failure();
  // TRAINVP_CHECK_TLM: a violation fails the run, as a broken contract would fail a model's unit test.
  // Reported by rule (a broken rule breaks on most hops), each with its first occurrence.
  if (const auto& checkers = cluster_.fabric->protocol_checkers(); !checkers.empty() && failure.empty()) {
    std::uint64_t begun = 0;
    std::map<std::string, std::pair<std::size_t, std::string>> by_rule;
    for (const auto& c : checkers) {
      begun += c->begun();
      for (const std::string& v : c->violations()) {
        const std::size_t from = v.find(": ") + 2, to = v.find(" (IEEE");
        auto& r = by_rule[v.substr(from, to == std::string::npos ? std::string::npos : to - from)];
        if (r.first++ == 0) r.second = v;
      }
    }
    if (!by_rule.empty()) {
      failure = "TRAINVP_CHECK_TLM: base-protocol violations on the fabric's sockets:";
      for (const auto& [rule, r] : by_rule)
        failure += "\n  " + std::to_string(r.first) + " x " + rule + ", first " + r.second;
    } else {
      std::cerr << "tlm check: " << begun << " transactions on " << checkers.size()
                << " socket pairs, none against the base protocol\n";
    }
  }
  if (failure.empty() && !work_done()) failure = stall_report();
  // The final line only for a run that did all its iterations; a failed one ends the line it drew.
  if (progress_) failure.empty() ? progress_->finish() : progress_->stop();
  if (!failure.empty()) throw RunError(failure);
  // The real training follows the finished run: its plans and iteration ends are all known now.
  if (scenario_.train.enabled && scenario_.trains())
    train_ = std::make_unique<TrainRun>(run_training(scenario_.train.params,
                                                     schedule_of_run(scenario_, strategy_.get(), gpus()),
                                                     static_cast<int>(cluster_.gpus.size())));
}

bool Simulation::work_done() const {
  bool done = (!bench_ || bench_->finished()) && (!chakra_ || chakra_->finished());
  for (const Gpu* g : cluster_.gpus) done = done && g->finished();
  for (const auto& c : checkpoints_) done = done && c->done();
  return done;
}

std::string Simulation::stall_report() const {
  std::string msg = hit_limit_ ? "the simulated-time limit (/training/time_limit) was reached with work pending"
                               : "simulation stalled: work is pending but no event can make progress";
  // At the limit, simulated time stands at the last event before it (SystemC does not advance
  // to a time nothing happens at), which may be t = 0: the limit is the time that was reached.
  const std::int64_t at_ps = hit_limit_ ? scenario_.training.time_limit_ps : stats_.simulated_ps;
  msg += " at t = " + format_time_s(static_cast<double>(at_ps) * 1e-12);
  if (bench_ && !bench_->finished()) msg += "\n  collective benchmark: " + bench_->state();
  if (chakra_ && !chakra_->finished()) msg += "\n  Chakra traces:" + chakra_->state();
  int listed = 0, unfinished = 0;
  for (const Gpu* g : cluster_.gpus) {
    if (g->finished()) continue;
    ++unfinished;
    if (listed < 16) msg += "\n  " + std::string(g->name()) + ": " + g->state(), ++listed;
  }
  if (unfinished > listed) msg += "\n  ... and " + std::to_string(unfinished - listed) + " more GPUs";
  return msg;
}

}  // namespace trainvp
