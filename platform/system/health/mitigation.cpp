#include "platform/system/health/mitigation.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

std::int64_t step_cost_ps(const MitigationConfig& c, MitigationStep s) {
  switch (s) {
    case MitigationStep::S2: return c.rebalance_pause_ps;
    case MitigationStep::S3: return c.topology_pause_ps;
    case MitigationStep::S4: return c.checkpoint_save_ps + c.restart_ps;
    default: return 0;
  }
}

MitigationAction action(MitigationStep step, int diagnosis, const std::string& note = {}) {
  MitigationAction a;
  a.at_ps = now_ps(), a.step = step, a.diagnosis = diagnosis, a.note = note;
  return a;
}

}  // namespace

Mitigation::Mitigation(Parts parts, RunContext& ctx)
    : p_(std::move(parts)),
      ctx_(ctx),
      boundary_(p_.gpus.size(), p_.ranks),
      split_({p_.replica_of, p_.replicas, p_.units}, boundary_, p_.monitor,
             [this](std::vector<int> healed) { this->healed(std::move(healed)); }),
      move_({static_cast<int>(p_.gpus.size()), boundary_.ranks(), p_.stage_of, p_.stage_work, p_.monitor, p_.faults,
             p_.fabric, p_.engine},
            has_step(MitigationStep::S3)),
      restart_({p_.spares, p_.leaf_of, p_.faults}, move_) {
  for (int r : boundary_.ranks()) p_.gpus[static_cast<std::size_t>(r)]->set_boundary(this);
  if (p_.cfg.policy == MitigationPolicy::Oracle) {
    if (p_.faults) p_.faults->fault_changed.connect([this](const FaultTruth& f, bool started) { fault(f, started); });
  } else if (p_.cfg.policy != MitigationPolicy::None && p_.monitor) {
    p_.monitor->diagnosed.connect([this](const Diagnosis& d) { diagnosed(d); });
    p_.monitor->changed.connect([this](const ChangeEvent& e) { changed(e); });
    p_.monitor->window_closed.connect([this](const MonitorWindow& w) { window(w); });
  }
  if (p_.cfg.policy != MitigationPolicy::None) track_ = ctx_.trace.track("health", "mitigation");
}

IterationSkip Mitigation::at_boundary(int rank, int iteration) {
  boundary_.ended(rank, iteration);
  IterationSkip s = p_.next ? p_.next->at_boundary(rank, iteration) : IterationSkip{};
  if (s.iterations > 0 || iteration < boundary_.boundary()) return s;
  // A move exchanges nodes, a restart replaces them, at the common boundary.
  if (move_.take_pending(boundary_) && p_.monitor) p_.monitor->note_relayout();
  if (restart_.take_pending() && p_.monitor) p_.monitor->note_relayout();
  const bool lead = rank == boundary_.ranks().front();
  if (const std::int64_t pause = boundary_.take_pause(rank); pause > 0) {
    s.pause_ps = pause;
    if (lead && p_.monitor) p_.monitor->note_pause(pause);
    if (track_ >= 0)
      ctx_.trace.slice(track_, "pause r" + std::to_string(rank), "mitigation", now_ps(), now_ps() + pause, {});
  }
  if (const double scale = boundary_.take_scale(rank); scale >= 0) {
    p_.gpus[static_cast<std::size_t>(rank)]->set_work_scale(scale);
    // A split moves work between replicas: which ranks arrive late is its doing from here on.
    if (lead && p_.monitor) p_.monitor->note_relayout();
  }
  return s;
}

int Mitigation::skip_limit() const {
  if (split_.checking() || restart_.pending() || move_.pending() || boundary_.pending()) return 0;
  std::int64_t windows = -1;  // windows a skip may cover
  auto cap = [&](std::int64_t w) {
    windows = windows < 0 ? std::max<std::int64_t>(w, 0) : std::min(windows, std::max<std::int64_t>(w, 0));
  };
  if (incident_ && incident_->position + 1 < p_.cfg.steps.size()) {
    const double excess = p_.monitor->last_window_s() - incident_->healthy_s;
    if (excess > 0) {
      const double left = sec(step_cost_ps(p_.cfg, p_.cfg.steps[incident_->position + 1])) - incident_->ski.loss();
      // The window whose loss reaches the cost must be simulated: skip fewer than that, less one.
      cap(static_cast<std::int64_t>(std::ceil(left / excess)) - 2);
    }
  }
  const std::int64_t last_change = p_.faults ? p_.faults->last_change_ps() : -1;
  if (const std::int64_t w = split_.windows_to_recheck(p_.cfg.recheck_iterations, last_change); w >= 0) cap(w);
  if (windows < 0) return -1;
  return static_cast<int>(static_cast<double>(windows) / p_.monitor->windows_per_iteration());
}

void Mitigation::pause(MitigationAction& a, std::int64_t pause_ps) {
  a.pause_ps = pause_ps;
  a.after_iteration = boundary_.pause_all(pause_ps);
}

bool Mitigation::has_step(MitigationStep s) const {
  return std::find(p_.cfg.steps.begin(), p_.cfg.steps.end(), s) != p_.cfg.steps.end();
}

void Mitigation::diagnosed(const Diagnosis& d) {
  const int index = static_cast<int>(p_.monitor->diagnoses().size()) - 1;
  note_healthy(p_.monitor->changes()[static_cast<std::size_t>(d.change)].before_s);
  if (d.cause == FailCause::GroupWide || d.cause == FailCause::FabricWide) {
    // No healthy peer: every replica is as slow as the others (S2 has nothing to move), every node
    // alike (S3 has no better place, S4 no node to replace that would not be replaced by its
    // like). Recorded, and no incident opened: no step is paid for.
    actions_.push_back(action(
        MitigationStep::S1, index,
        d.cause == FailCause::GroupWide
            ? "group-wide slowdown: no healthy peer, every rank equally slow; nothing to move or replace"
            : "fabric-wide slowdown: no healthy peer, every communicator equally slow; nothing to move or replace"));
    return;
  }
  if (p_.cfg.policy == MitigationPolicy::AlwaysRestart) {
    MitigationAction a = action(MitigationStep::S4, index);
    restart(a, move_.nodes_of(d));
    actions_.push_back(a);
    return;
  }
  const bool more = split_.note(d);
  if (!incident_) {
    open(index, 0);
  } else if (d.cause == FailCause::Communication && !incident_->link_cause) {
    // A slow link while slow GPUs' (or hosts') incident is open: not its cause, and nothing its
    // split moves. Carried, with the loss from here on, until that incident closes.
    if (incident_->carried.empty()) incident_->carried_loss_s = 0;
    incident_->carried.push_back(index);
  } else if (more && p_.cfg.steps[incident_->position] == MitigationStep::S2) {
    enter(incident_->position, index, 0);  // a second slow replica during the incident: split again
  } else if (more && p_.cfg.steps[incident_->position] == MitigationStep::S3 && has_step(MitigationStep::S2)) {
    // After a move, a new slow replica is split around, not moved again.
    MitigationAction a = action(MitigationStep::S2, index, "another slow replica after the move");
    if (split(a)) actions_.push_back(a);
  }
}

void Mitigation::open(int diagnosis, double loss) {
  const Diagnosis& d = p_.monitor->diagnoses()[static_cast<std::size_t>(diagnosis)];
  std::vector<double> costs = {0.0};
  for (std::size_t i = 1; i < p_.cfg.steps.size(); ++i) costs.push_back(sec(step_cost_ps(p_.cfg, p_.cfg.steps[i])));
  incident_ = Incident{d.cause == FailCause::Communication, healthy_ref_s_, d.change_ps, SkiRental(costs), 0, {}, 0};
  if (loss > 0) incident_->ski.refund(loss);  // paid since the diagnosis was made: the next window may step
  enter(0, diagnosis, loss);
}

void Mitigation::note_healthy(double level_s) {
  if (level_s > 0 && (healthy_ref_s_ <= 0 || level_s < healthy_ref_s_)) healthy_ref_s_ = level_s;
}

void Mitigation::acted(std::int64_t pause_ps) {
  acted_at_ = now_ps(), acted_pause_ps_ = pause_ps;
  const double healthy_s = incident_ ? incident_->healthy_s : 0.0;
  double iteration_s = healthy_s;
  if (p_.monitor) iteration_s = std::max(healthy_s, p_.monitor->last_window_s()) * p_.monitor->windows_per_iteration();
  acted_iteration_ps_ = static_cast<std::int64_t>(iteration_s * 1e12);
}

void Mitigation::window(const MonitorWindow& w) {
  const double t = w.seconds();  // without pauses: those were paid as the steps' costs
  if (incident_ && !incident_->carried.empty()) incident_->carried_loss_s += std::max(0.0, t - healthy_ref_s_);
  split_.window(w, move_.pending(), p_.cfg.recheck_iterations, p_.faults ? p_.faults->last_change_ps() : -1);
  if (!incident_) return;  // (a re-check may have closed it)
  SkiRental& ski = incident_->ski;
  const int before = ski.step();
  const double paid = ski.loss() + std::max(0.0, t - incident_->healthy_s);
  const int after = ski.add(t, incident_->healthy_s);
  if (after > before)
    enter(static_cast<std::size_t>(after), static_cast<int>(p_.monitor->diagnoses().size()) - 1, paid);
}

void Mitigation::changed(const ChangeEvent& e) {
  note_healthy(e.before_s);
  if (e.slowdown || !incident_) return;
  // A drop that begins within a few iterations of our own split is the split working. The split
  // takes effect at the boundary after the next iteration, then pauses: counted in the iterations
  // the job ran when it was decided (slow ones), the drop it causes falls inside the pause and 3
  // of them, however long a slow iteration is.
  if (acted_at_ >= 0 && e.change_ps >= acted_at_ &&
      e.change_ps <= acted_at_ + acted_pause_ps_ + 3 * acted_iteration_ps_)
    return;
  revert(-1, "the slowdown ended: even split again");
}

// S2 stays while it helps: once the GPUs it works around probe healthy again (the fault ended
// without a drop the detector could see, since the split itself set the pace), the even split returns.
void Mitigation::healed(std::vector<int> healed) {
  if (healed.size() == split_.slow_gpus().size()) all_healthy();
  else healthy_again(std::move(healed));
}

// The GPUs S2 works around are healthy again. With the job still slow against its healthy time
// (by the detector's verify_threshold), a slow link of the incident goes on: its own incident
// stays open, the even split back; or the links carried through a GPU incident open theirs, paid
// the loss since they were diagnosed. Otherwise the incident closes.
void Mitigation::all_healthy() {
  const double last = p_.monitor->last_window_s();
  const bool slow = healthy_ref_s_ > 0 && last >= (1 + p_.monitor->params().verify_threshold) * healthy_ref_s_;
  const char* why = "re-probed: the GPUs it worked around are healthy";
  if (slow && incident_ && incident_->link_cause) {
    split_.forget();
    MitigationAction a = action(MitigationStep::S2, -1, std::string(why) + "; the link incident stays open");
    even_split(a);
    actions_.push_back(a);
    return;
  }
  const std::vector<int> carried = slow && incident_ ? incident_->carried : std::vector<int>{};
  const double loss = incident_ ? incident_->carried_loss_s : 0.0;
  revert(-1, why);
  if (!carried.empty()) open(carried.front(), loss);
}

// Some of the GPUs S2 works around probe healthy again, others not (one fault ended while another
// holds on): their replicas' shares are set from the GPUs still slow, and the split redone.
void Mitigation::healthy_again(std::vector<int> healed) {
  std::sort(healed.begin(), healed.end());  // probes finish in any order: the action lists them sorted
  split_.healed(healed);
  MitigationAction a =
      action(MitigationStep::S2, -1,
             "re-probed: " + std::to_string(healed.size()) + " of the GPUs it worked around are healthy, split again");
  if (!split(a)) even_split(a);
  actions_.push_back(a);
}

void Mitigation::revert(int diagnosis, const char* why) {
  incident_.reset();
  split_.forget();
  if (!split_.split()) return;
  MitigationAction a = action(MitigationStep::S2, diagnosis, why);
  even_split(a);
  actions_.push_back(a);
}

void Mitigation::enter(std::size_t position, int diagnosis, double loss) {
  incident_->position = position;
  MitigationAction a = action(p_.cfg.steps[position], diagnosis);
  a.loss_s = loss;
  switch (a.step) {
    case MitigationStep::S1: a.note = "observe"; break;
    case MitigationStep::S2:
      if (!split(a)) {
        a.note = "nothing to move: no replica is slower (communication)";
        incident_->ski.refund(loss);  // nothing was paid: the loss counts toward the next step
      }
      break;
    case MitigationStep::S3:
      if (!move(a)) incident_->ski.refund(loss);
      break;
    case MitigationStep::S4: {
      // Every node this incident's diagnoses named; not a group-wide or fabric-wide one's (every
      // rank: a spare would be replaced by its like, [health.md](#no-healthy-peer)).
      std::set<int> nodes;
      for (const Diagnosis& x : p_.monitor->diagnoses())
        if (x.change_ps >= incident_->since_ps && x.cause != FailCause::GroupWide && x.cause != FailCause::FabricWide)
          for (int n : move_.nodes_of(x)) nodes.insert(n);
      for (int k : incident_->carried)  // the slow links carried through it go with it
        for (int n : move_.nodes_of(p_.monitor->diagnoses()[static_cast<std::size_t>(k)])) nodes.insert(n);
      restart(a, {nodes.begin(), nodes.end()});
      break;
    }
    default: break;
  }
  actions_.push_back(a);
}

bool Mitigation::split(MitigationAction& a) {
  if (!split_.rebalance(a)) return false;
  pause(a, p_.cfg.rebalance_pause_ps);
  acted(p_.cfg.rebalance_pause_ps);
  return true;
}

void Mitigation::even_split(MitigationAction& a) {
  split_.even(a);
  pause(a, p_.cfg.rebalance_pause_ps);
  acted_at_ = -1;
}

bool Mitigation::link_incident() const {
  if (!split_.slow_gpus().empty() || !p_.monitor) return false;
  const auto& ds = p_.monitor->diagnoses();
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnosis& d) {
    return d.change_ps >= incident_->since_ps && d.cause == FailCause::Communication && !d.links.empty();
  });
}

bool Mitigation::move(MitigationAction& a) {
  if (link_incident()) {
    if (!move_.swap_roles(a, incident_->since_ps)) return false;
  } else {
    const bool resplit = has_step(MitigationStep::S2);
    if (!move_.consolidate(a, split_, resplit)) return false;
    // The split is redone for the new replicas' speeds, or undone where nothing slow is left.
    if (resplit && !split_.rebalance(a) && split_.split()) split_.even(a);
  }
  pause(a, p_.cfg.topology_pause_ps);
  acted(p_.cfg.topology_pause_ps);
  return true;
}

void Mitigation::restart(MitigationAction& a, const std::vector<int>& nodes) {
  pause(a, p_.cfg.checkpoint_save_ps + p_.cfg.restart_ps);
  if (nodes.empty()) a.note = "no node to replace: the suspect was not localized";
  // The slow edges whose leaves a restart on spares avoids: the incident's, or the diagnosis
  // that asked for it.
  std::vector<std::pair<int, int>> slow_edges;
  if (p_.monitor) {
    const std::vector<Diagnosis>& ds = p_.monitor->diagnoses();
    for (std::size_t i = 0; i < ds.size(); ++i)
      if (incident_ ? ds[i].change_ps >= incident_->since_ps : i + 1 == ds.size())
        slow_edges.insert(slow_edges.end(), ds[i].links.begin(), ds[i].links.end());
  }
  restart_.restart(a, nodes, slow_edges);
  // The restarted job splits evenly again and its incident is closed.
  split_.drop();
  split_.forget();
  acted_at_ = -1;
  incident_.reset();
}

// The oracle knows each fault as it starts: a GPU slowdown is split around at once with its exact
// factor; any other fault is restarted away from at once.
void Mitigation::fault(const FaultTruth& f, bool started) {
  MitigationAction a = action(MitigationStep::S1, -1);
  a.fault = f.index;
  if (!started) {
    if (f.kind == FaultKind::GpuSlowdown && split_.split()) {
      for (int g : f.gpus) split_.known_healthy(g);
      a.step = MitigationStep::S2;
      if (!split(a)) even_split(a);  // nothing slow left
      a.note = "the fault ended";
      actions_.push_back(a);
    }
    return;
  }
  if (f.kind == FaultKind::GpuSlowdown) {
    for (int g : f.gpus) split_.known_slow(g, f.factor);
    a.step = MitigationStep::S2;
    split(a);
  } else {
    std::set<int> nodes;
    for (int g : f.gpus) nodes.insert(move_.slot_of(g));
    for (int d : f.dirs)
      for (int dev :
           {p_.fabric->dirs()[static_cast<std::size_t>(d)].from, p_.fabric->dirs()[static_cast<std::size_t>(d)].to})
        if (int n = p_.fabric->devices()[static_cast<std::size_t>(dev)].node; n >= 0) nodes.insert(n);
    if (nodes.empty()) {
      // A congestion fault (another tenant's traffic) or a fault in the network core: a restart in
      // place replaces neither, so it would only pause the job (for the whole checkpoint and
      // restart, and again at every such fault). The oracle knows that, and waits (S1).
      a.note = "nothing a restart replaces: the fault is another tenant's traffic or in the network core";
    } else {
      a.step = MitigationStep::S4;
      pause(a, p_.cfg.checkpoint_save_ps + p_.cfg.restart_ps);
      restart_.restart_in_place(a, {nodes.begin(), nodes.end()});
    }
  }
  actions_.push_back(a);
}

nlohmann::ordered_json Mitigation::report() const {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["policy"] = name_in(mitigation_policy_names(), p_.cfg.policy);
  ojson steps = ojson::array();
  for (MitigationStep s : p_.cfg.steps) steps.push_back(mitigation_step_name(s));
  o["steps"] = steps;
  ojson list = ojson::array();
  double paused = 0;
  for (const MitigationAction& a : actions_) {
    paused += sec(a.pause_ps);
    list.push_back(a.to_json());
  }
  o["actions"] = list;
  o["paused_s"] = paused;
  o["rechecks"] = split_.rechecks();
  o["rechecks_fast_forwarded"] = split_.rechecks_fast_forwarded();
  // Where S3 left the ranks: per node slot (the ranks elaborated on node n), the node they run on.
  if (move_.moves_ranks() && p_.fabric) o["node_placement"] = p_.fabric->node_placement();
  return o;
}

}  // namespace trainvp
