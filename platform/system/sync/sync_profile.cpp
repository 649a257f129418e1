#include "platform/system/sync/sync_profile.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "models/collectives/strategies/units.hpp"
#include "models/gpu/phase.hpp"
#include "models/gpu/roofline.hpp"
#include "platform/core/child_process.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/system/simulation.hpp"

namespace trainvp {

namespace {

// Runs each job (a layer's collectives, one after another, every rank joining at once) alone,
// back to back from t = 0, and records how long each took.
class ProfileRunner : public sc_core::sc_module {
 public:
  ProfileRunner(sc_core::sc_module_name name, CollectiveEngine& engine, std::vector<std::vector<SyncStep>> jobs,
                std::vector<int> nodes_of, std::vector<int> world, CollectiveAlgo algo)
      : sc_module(name),
        engine_(engine),
        jobs_(std::move(jobs)),
        nodes_of_(std::move(nodes_of)),
        world_(std::move(world)),
        algo_(algo) {
    SC_HAS_PROCESS(ProfileRunner);
    SC_THREAD(run);
  }
  std::vector<std::int64_t> times;

 private:
  void run() {
    const std::vector<int>& world = world_;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const std::int64_t t0 = now_ps();
      for (const SyncStep& st : jobs_[j]) {
        CollectiveAlgo algo = st.op == CollectiveOp::AllReduce ? algo_ : CollectiveAlgo::Ring;
        auto program = std::make_shared<const CompiledProgram>(
            build_program(st.op, algo, world, st.bytes, engine_.chunk(), nodes_of_, 0, &engine_.device_map(),
                          &engine_.ring_layout()));
        left_ = static_cast<int>(world.size());
        int id = engine_.launch(program, st.op, algo, st.bytes, "profile job" + std::to_string(j), [this](int) {
          if (--left_ == 0) done_.notify(sc_core::SC_ZERO_TIME);
        });
        for (int r : world) engine_.join(id, r);
        if (left_ > 0) wait(done_);
      }
      times.push_back(now_ps() - t0);
    }
  }
  CollectiveEngine& engine_;
  std::vector<std::vector<SyncStep>> jobs_;
  std::vector<int> nodes_of_;
  std::vector<int> world_;
  CollectiveAlgo algo_;
  sc_core::sc_event done_;
  int left_ = 0;
};

// Runs `fn` in a forked child (a second simulation); throws RunError with its message on failure.
// A scenario error stays one (exit 2 at its pointer): the child elaborates the fabric before the
// parent does, so it is the first to find, e.g., a fault target that matches nothing (#45).
std::string in_child(const std::function<std::string()>& fn) {
  static const std::string kScenario = "\x1fscenario error\x1f";
  ChildResult r = run_in_child(
      [&]() -> std::string {
        try {
          return fn();
        } catch (const ScenarioError& e) {
          return kScenario + e.path + '\n' + e.what();
        }
      },
      true);
  if (!r.ok) throw RunError("profiling pass: " + r.value);
  if (r.value.rfind(kScenario, 0) == 0) {
    const std::size_t nl = r.value.find('\n');
    const std::string what = r.value.substr(nl + 1);
    throw ScenarioError(r.value.substr(kScenario.size(), nl - kScenario.size()), what.substr(what.find(": ") + 2));
  }
  return r.value;
}

std::vector<std::int64_t> measure_comm(const Scenario& s, const std::vector<std::vector<SyncStep>>& jobs,
                                       const std::vector<int>& ranks) {
  std::string out = in_child([&] {
    Scenario ps = s;
    ps.collective_bench = true;
    ps.bench = CollectiveBenchConfig{};
    ps.bench.sizes.clear();
    for (std::size_t r = 0; r < s.cluster.gpus.size(); ++r) ps.bench.communicator.push_back(static_cast<int>(r));
    ps.training.sync.strategy = SyncStrategyKind::None;
    ps.train.enabled = false;  // a collective run trains nothing
    ps.output.trace = false;
    ps.output.waves = false;
    // Congestion is left out: its traffic never ends, and this run's work (the runner's jobs) is
    // not what Simulation waits for, so the run would be ended at once.
    ps.faults.erase(std::remove_if(ps.faults.begin(), ps.faults.end(),
                                   [](const FaultConfig& f) { return f.kind == FaultKind::Congestion; }),
                    ps.faults.end());
    // With a fault campaign the simulation reloads the faults from the resolved document and adds
    // the drawn events (#45: the congestion came back, and the run ended before its jobs did).
    if (ps.resolved.contains("faults")) {
      nlohmann::json& listed = ps.resolved["faults"];
      listed.erase(std::remove_if(listed.begin(), listed.end(),
                                  [](const nlohmann::json& f) { return f.value("kind", "") == "congestion"; }),
                   listed.end());
    }
    for (FaultGeneratorKind& k : ps.fault_generator.kinds)
      if (k.name == "congestion") k.rate_per_h = 0;
    std::vector<int> nodes_of;
    for (auto& g : s.cluster.gpus) nodes_of.push_back(g.node);
    Simulation sim(ps);
    ProfileRunner runner("sync_profile", sim.engine(), jobs, nodes_of, ranks, s.training.sync.algorithm);
    sim.run();
    if (runner.times.size() != jobs.size()) throw RunError("the profiling collectives did not complete");
    json t = runner.times;
    return t.dump();
  });
  return json::parse(out).get<std::vector<std::int64_t>>();
}

}  // namespace

std::vector<std::vector<SyncStep>> layer_sync_steps(const Scenario& s, const Workload& w, int world) {
  auto traffic = layer_traffics(w, w.shape.dtype, s.training.sync.compression, world);
  std::vector<std::vector<SyncStep>> out;
  for (std::size_t l = 0; l < w.layers.size(); ++l)
    out.push_back(w.layers[l].params > 0 ? sync_steps({traffic[l]}, world) : std::vector<SyncStep>{});
  return out;
}

SyncProfile sync_profile(const Scenario& s, const Workload& w, const std::vector<int>& ranks) {
  const std::size_t L = w.layers.size();
  SyncProfile p;
  p.layers = synced_layers(w);
  p.bwd_ps.assign(L, 0);
  p.comm_ps.assign(L, 0);
  p.extra_ps.assign(L, 0);

  // Compute: the roofline of the GPUs that run `w` (the slowest per layer and per iteration).
  const int world = static_cast<int>(ranks.size());
  auto traffic = layer_traffics(w, w.shape.dtype, s.training.sync.compression, world);
  const PhaseSchedule schedule = data_parallel_schedule(w);
  std::vector<std::int64_t> roofline_bwd(L, 0);
  for (int rank : ranks) {
    const GpuInstance& g = s.cluster.gpus[static_cast<std::size_t>(rank)];
    std::vector<std::int64_t> bwd(L, 0);
    std::int64_t total = 0;
    for (std::size_t slot = 0; slot < schedule.slots(); ++slot) {  // each distinct phase once, times its repeats
      const Phase& ph = schedule.slot_phase(slot);
      DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : w.shape.dtype;
      const std::int64_t t = phase_time_ps(g.params, dt, phase_work(w, ph), g.params.speed);
      total += t * schedule.repeats(slot);
      // The last micro-batch's backward is what the layer's synchronization waits for.
      if (ph.kind == PhaseKind::BackwardInput || ph.kind == PhaseKind::BackwardWeight)
        bwd[static_cast<std::size_t>(ph.layer)] += t;
    }
    p.iteration_compute_ps = std::max(p.iteration_compute_ps, total);
    for (std::size_t l = 0; l < L; ++l) {
      roofline_bwd[l] = std::max(roofline_bwd[l], bwd[l]);
      if (traffic[l].compressed)
        p.extra_ps[l] =
            std::max(p.extra_ps[l], phase_time_ps(g.params, w.shape.dtype, traffic[l].work, g.params.speed));
    }
  }

  if (!s.training.sync.profile.empty()) {
    p.source = "scenario";
    for (const ProfileEntry& e : s.training.sync.profile)
      for (std::size_t l = 0; l < L; ++l)
        if (w.layers[l].name == e.layer) p.bwd_ps[l] = e.bwd_ps, p.comm_ps[l] = e.comm_ps;
  } else {
    p.source = "measured";
    p.bwd_ps = roofline_bwd;
    // Each distinct layer synchronization once.
    auto steps = layer_sync_steps(s, w, world);
    std::vector<std::vector<SyncStep>> jobs;
    std::map<std::vector<std::pair<int, std::uint64_t>>, std::size_t> index;
    std::vector<std::size_t> job_of(L, 0);
    for (std::size_t l = 0; l < L; ++l) {
      if (steps[l].empty()) continue;
      std::vector<std::pair<int, std::uint64_t>> key;
      for (auto& st : steps[l]) key.push_back({static_cast<int>(st.op), st.bytes});
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, jobs.size()).first;
        jobs.push_back(steps[l]);
      }
      job_of[l] = it->second;
    }
    std::vector<std::int64_t> times = jobs.empty() ? std::vector<std::int64_t>{} : measure_comm(s, jobs, ranks);
    for (std::size_t l = 0; l < L; ++l)
      if (!steps[l].empty()) p.comm_ps[l] = times[job_of[l]];
  }

  // Schedule positions: parameterless layers' backward folds into the next synchronized layer.
  std::int64_t pending = 0;
  for (int l = static_cast<int>(L) - 1; l >= 0; --l) {
    pending += p.bwd_ps[static_cast<std::size_t>(l)];
    if (w.layers[static_cast<std::size_t>(l)].params == 0) continue;
    p.input.bwd_ps.push_back(pending);
    p.input.comm_ps.push_back(p.comm_ps[static_cast<std::size_t>(l)]);
    pending = 0;
  }
  p.input.tail_ps = pending;
  return p;
}

}  // namespace trainvp
