#include "models/collectives/strategies/unit_sync.hpp"
#include "platform/core/sim_time.hpp"

#include <algorithm>
#include <stdexcept>

namespace trainvp {

namespace {

bool first_forward(const Phase& ph) { return ph.kind == PhaseKind::Forward && ph.layer == 0 && ph.micro_batch == 0; }

}  // namespace

UnitSync::UnitSync(sc_core::sc_module_name name, UnitSyncConfig cfg, const Workload& w, std::vector<Gpu*> gpus,
                   CollectiveEngine& engine, std::vector<int> nodes_of, int iterations, RunContext& ctx)
    : sc_module(name),
      cfg_(std::move(cfg)),
      workload_(w),
      gpus_(std::move(gpus)),
      group_(gpus_),
      engine_(engine),
      nodes_of_(std::move(nodes_of)),
      iterations_(iterations),
      ctx_(ctx) {
  const std::size_t n = gpus_.size(), units = cfg_.units.size();
  const std::vector<int>& world = group_.world();
  for (const SyncUnit& u : cfg_.units) {
    programs_.emplace_back();
    for (const SyncStep& s : u.steps) {
      CollectiveAlgo algo = s.op == CollectiveOp::AllReduce ? cfg_.algorithm : CollectiveAlgo::Ring;
      programs_.back().push_back(std::make_shared<const CompiledProgram>(build_program(
          s.op, algo, world, s.bytes, engine.chunk(), nodes_of_, 0, &engine.device_map(), &engine.ring_layout())));
    }
  }
  for (const SyncPlan& p : cfg_.plans) {
    unit_of_layer_.emplace_back(w.layers.size(), -1);
    for (int u : p.units)
      for (int l : cfg_.units[static_cast<std::size_t>(u)].layers)
        unit_of_layer_.back()[static_cast<std::size_t>(l)] = u;
  }
  layers_left_.assign(n, std::vector<int>(units));
  for (auto& left : layers_left_)
    for (std::size_t u = 0; u < units; ++u) left[u] = static_cast<int>(cfg_.units[u].layers.size());
  done_.assign(n, PerIteration<int>(0));
  busy_.assign(n, PerIteration<std::vector<TimeInterval>>());
  streams_.reset(n, cfg_.streams, units);
  in_flight_.assign(n, 0);
  peak_in_flight_.assign(n, 0);
  if (cfg_.deadline_ps >= 0) {
    if (cfg_.trigger != SyncTrigger::GradientReady)
      throw std::logic_error("elastic deadlines need gradient-ready units");
    ready_at_.assign(n, std::vector<std::int64_t>(units, -1));
    arrived_.assign(n, std::vector<int>(units, -1));
    stepped_.assign(n, -1);
    open_.assign(n, std::vector<std::vector<std::size_t>>(units));
    to_merge_.assign(n, {});
  }
  for (std::size_t r = 0; r < n; ++r) {
    changed_.push_back(std::make_unique<sc_core::sc_event>());
    Gpu* g = gpus_[r];
    if (cfg_.trigger == SyncTrigger::GradientReady)
      g->gradient_ready.connect([this](const GradientReady& e) { on_gradient(e); });
    else g->phase_end.connect([this](int rank, int it, const Phase& ph) { on_phase_end(rank, it, ph); });
    bool any_work = false;
    for (const PhaseWork& pw : cfg_.layer_work) any_work = any_work || pw.flops > 0 || pw.bytes > 0 || pw.kernels > 0;
    if (any_work) g->set_extra_work([this](int it, const Phase& ph) { return extra_work(it, ph); });
    g->set_gate(this);
    std::string full = g->name();  // nodeN.gpuM
    tracks_.push_back(ctx.trace.enabled()
                          ? ctx.trace.track(full.substr(0, full.find('.')), full.substr(full.find('.') + 1) + " comm")
                          : -1);
  }
  if (ctx.trace.enabled()) plan_track_ = ctx.trace.track("sync", cfg_.name + " plan");
  if (cfg_.retry.enabled) {
    retry_stats_.assign(units, {});
    SC_HAS_PROCESS(UnitSync);
    SC_METHOD(on_relaunch);
    sensitive << relaunch_ev_;
    dont_initialize();
  }
}

std::string UnitSync::unit_label(int unit) const {
  const SyncUnit& u = cfg_.units[static_cast<std::size_t>(unit)];
  if (u.layers.empty()) return "(no layers)";
  const std::string& first = workload_.layers[static_cast<std::size_t>(u.layers.front())].name;
  if (u.layers.size() == 1) return first;
  return first + ".." + workload_.layers[static_cast<std::size_t>(u.layers.back())].name + " (" +
         std::to_string(u.layers.size()) + " layers)";
}

std::uint64_t UnitSync::plan_bytes(int plan) const {
  std::uint64_t b = 0;
  for (int u : cfg_.plans[static_cast<std::size_t>(plan)].units)
    b += steps_bytes(cfg_.units[static_cast<std::size_t>(u)].steps);
  return b;
}

int UnitSync::plan_for(int iteration) const {
  // A skipped iteration repeats its period's plan (the period is whole cycles of plans).
  if (const int from = plan_of_.source(iteration); from != iteration) return plan_for(from);
  int& p = plan_of_[iteration];  // stays valid: recursion only reads earlier iterations
  if (p >= 0) return p;
  const AdaptivePolicy& a = cfg_.adaptive;
  if (!a.enabled) {
    p = cfg_.cycle[static_cast<std::size_t>(iteration) % cfg_.cycle.size()];
  } else if (iteration < 2) {
    p = a.fine_plan;
  } else {
    // Iteration r's plan is needed once some rank is in r's backward; it has passed r-1's
    // optimizer, which waited for every rank's r-1 gradients, so every rank has finished r-2:
    // its utilization is known everywhere, and the choice is the same whoever asks first.
    const std::size_t seen = static_cast<std::size_t>(iteration - 2);
    double busy = 0, span = 0;
    bool complete = true;
    for (const Gpu* g : gpus_) {
      if (g->iterations().size() <= seen) {
        complete = false;
        break;
      }
      const RankIteration& ri = g->iterations()[seen];
      busy += static_cast<double>(ri.compute_ps);
      span += static_cast<double>(ri.end_ps - ri.start_ps);
    }
    const int previous = plan_for(iteration - 1);
    if (!complete || span <= 0) {
      p = previous;
    } else {
      const double u = busy / span;
      util_[iteration] = u;
      p = u > a.high ? a.fine_plan : u < a.low ? a.coarse_plan : previous;
    }
  }
  if (plan_track_ >= 0) {
    const SyncPlan& plan = cfg_.plans[static_cast<std::size_t>(p)];
    std::size_t layers = 0;
    for (int u : plan.units) layers += cfg_.units[static_cast<std::size_t>(u)].layers.size();
    ctx_.trace.instant(plan_track_, "iteration " + std::to_string(iteration) + ": " + plan.label, "sync", now_ps(),
                       {{"iteration", iteration}, {"units", plan.units.size()}, {"layers", layers}});
  }
  return p;
}

PhaseWork UnitSync::extra_work(int iteration, const Phase& ph) const {
  PhaseWork w;
  auto add = [&w](const PhaseWork& x) {
    w.flops += x.flops;
    w.bytes += x.bytes;
    w.kernels += x.kernels;
  };
  if (cfg_.trigger == SyncTrigger::GradientReady) {
    if (ph.kind != PhaseKind::BackwardWeight || ph.micro_batch != workload_.micro_batches - 1) return w;
    if (unit_of_layer_[static_cast<std::size_t>(plan_for(iteration))][static_cast<std::size_t>(ph.layer)] >= 0)
      add(cfg_.layer_work[static_cast<std::size_t>(ph.layer)]);
  } else if (ph.kind == PhaseKind::Optimizer) {
    for (int u : cfg_.plans[static_cast<std::size_t>(plan_for(iteration))].units)
      for (int l : cfg_.units[static_cast<std::size_t>(u)].layers) add(cfg_.layer_work[static_cast<std::size_t>(l)]);
  }
  return w;
}

void UnitSync::on_gradient(const GradientReady& g) {
  const int u = unit_of_layer_[static_cast<std::size_t>(plan_for(g.iteration))][static_cast<std::size_t>(g.layer)];
  if (u < 0) return;
  int& left = layers_left_[at(g.rank)][static_cast<std::size_t>(u)];
  if (--left == 0) {
    left = static_cast<int>(cfg_.units[static_cast<std::size_t>(u)].layers.size());  // for its next iteration
    unit_ready(g.rank, g.iteration, u);
  }
}

void UnitSync::on_phase_end(int rank, int iteration, const Phase& ph) {
  if (ph.kind != PhaseKind::Optimizer) return;
  for (int u : cfg_.plans[static_cast<std::size_t>(plan_for(iteration))].units) unit_ready(rank, iteration, u);
}

int UnitSync::collective(int iteration, int unit, int step) {
  auto key = std::make_tuple(iteration, unit, step);
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  const SyncStep& s = cfg_.units[static_cast<std::size_t>(unit)].steps[static_cast<std::size_t>(step)];
  std::string label = cfg_.name + " it" + std::to_string(iteration) + " unit" + std::to_string(unit);
  if (cfg_.units[static_cast<std::size_t>(unit)].steps.size() > 1) label += " step" + std::to_string(step);
  CollectiveAlgo algo = s.op == CollectiveOp::AllReduce ? cfg_.algorithm : CollectiveAlgo::Ring;
  int id =
      engine_.launch(programs_[static_cast<std::size_t>(unit)][static_cast<std::size_t>(step)], s.op, algo, s.bytes,
                     label, [this, iteration, unit, step](int rank) { step_done(rank, iteration, unit, step); });
  ids_.emplace(key, id);
  if (cfg_.retry.enabled) {
    engine_.on_failed(id, [this, iteration, unit, step](int) { step_failed(iteration, unit, step); });
    ++retry_stats_[static_cast<std::size_t>(unit)].attempts;
  }
  return id;
}

void UnitSync::unit_ready(int rank, int iteration, int unit) {
  if (!ready_at_.empty()) ready_at_[at(rank)][static_cast<std::size_t>(unit)] = now_ps();
  in_flight_[at(rank)] += cfg_.units[static_cast<std::size_t>(unit)].bytes;
  peak_in_flight_[at(rank)] = std::max(peak_in_flight_[at(rank)], in_flight_[at(rank)]);
  collective(iteration, unit, 0);
  const int stream = cfg_.units[static_cast<std::size_t>(unit)].stream;
  streams_.push(at(rank), stream, {iteration, unit});
  try_join(rank, stream);
}

void UnitSync::try_join(int rank, int stream) {
  if (const std::optional<StreamQueues::Work> next = streams_.start_next(at(rank), stream, now_ps()))
    join_step(rank, next->iteration, next->index, 0);
}

void UnitSync::step_done(int rank, int iteration, int unit, int step) {
  if (cfg_.retry.enabled) {
    std::vector<char>& done = tries_.at(std::make_tuple(iteration, unit, step)).done;
    if (done[at(rank)]) return;  // a rank that had its result rejoined a relaunch only to serve the others
    done[at(rank)] = 1;
  }
  const SyncUnit& u = cfg_.units[static_cast<std::size_t>(unit)];
  if (step + 1 < static_cast<int>(u.steps.size())) {
    join_step(rank, iteration, unit, step + 1);
    return;
  }
  unit_done(rank, iteration, unit, true);
}

void UnitSync::unit_done(int rank, int iteration, int unit, bool averaged) {
  const SyncUnit& u = cfg_.units[static_cast<std::size_t>(unit)];
  if (cfg_.retry.enabled) {
    std::vector<int>& v = versions_.try_emplace({iteration, unit}, gpus_.size(), -2).first->second;
    v[at(rank)] = averaged ? iteration : -1;
  }
  const std::int64_t now = now_ps();
  const std::int64_t joined = streams_.started_ps(at(rank), unit);
  busy_[at(rank)][iteration].push_back({joined, now});
  in_flight_[at(rank)] -= u.bytes;
  const bool weak = !stepped_.empty() && iteration <= stepped_[at(rank)];
  if (!arrived_.empty()) elastic_done(rank, iteration, unit);
  if (tracks_[at(rank)] >= 0)
    ctx_.trace.slice(tracks_[at(rank)],
                     std::string(cfg_.parameters                                     ? "average "
                                 : u.steps.front().op == CollectiveOp::ReduceScatter ? "reduce_scatter "
                                                                                     : "all_reduce ") +
                         unit_label(unit) + (weak ? " (weak-sync)" : "") + (averaged ? "" : " (retries exhausted)"),
                     "comm", joined, now,
                     {{"iteration", iteration}, {"unit", unit}, {"bytes", steps_bytes(u.steps)}, {"stream", u.stream}});
  ++done_[at(rank)][iteration];
  streams_.finished(at(rank), u.stream);
  changed_[at(rank)]->notify(sc_core::SC_ZERO_TIME);
  try_join(rank, u.stream);
}

bool UnitSync::may_start(int rank, int iteration, const Phase& phase) const {
  int it = iteration;
  if (cfg_.trigger == SyncTrigger::GradientReady) {
    if (phase.kind != PhaseKind::Optimizer) return true;
    if (cfg_.deadline_ps >= 0) return elastic_may_step(rank, iteration);
  } else {
    if (!first_forward(phase) || iteration == 0) return true;
    it = iteration - 1;
  }
  const std::size_t need = cfg_.plans[static_cast<std::size_t>(plan_for(it))].units.size();
  return done_[at(rank)].at(it) == static_cast<int>(need);
}

std::string UnitSync::waiting_for(int rank, int iteration, const Phase& phase) const {
  if (cfg_.trigger == SyncTrigger::AfterStep) --iteration;
  if (iteration < 0) return "nothing";
  for (int u : cfg_.plans[static_cast<std::size_t>(plan_for(iteration))].units) {
    for (std::size_t s = 0; s < cfg_.units[static_cast<std::size_t>(u)].steps.size(); ++s) {
      auto it = ids_.find(std::make_tuple(iteration, u, static_cast<int>(s)));
      if (it == ids_.end())
        return "unit " + std::to_string(u) + " (" + unit_label(u) + ") of iteration " + std::to_string(iteration) +
               (s == 0 ? " (not ready on any rank)" : " (an earlier step is not done)");
      if (!engine_.rank_done(it->second, rank)) return engine_.describe(it->second, rank);
    }
  }
  return "nothing (all units done)";
}

void UnitSync::skip_iterations(int first, int count, int period, std::int64_t) {
  // The skipped iterations read as those of the period they repeat (PerIteration::repeat): the
  // plan, the units done and the busy intervals, whose union's length does not move with them.
  plan_of_.repeat(first, count, period);
  util_.repeat(first, count, period);
  for (std::size_t r = 0; r < gpus_.size(); ++r)
    done_[r].repeat(first, count, period), busy_[r].repeat(first, count, period);
}

std::int64_t UnitSync::comm_ps(int rank, int iteration) const { return union_length(busy_[at(rank)].at(iteration)); }

}  // namespace trainvp
