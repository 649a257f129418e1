#include "platform/system/health/mitigation.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "models/health/algorithms/consolidate.hpp"
#include "models/health/algorithms/rebalance.hpp"
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

}  // namespace

Mitigation::Mitigation(Parts parts, RunContext& ctx) : p_(std::move(parts)), ctx_(ctx) {
  pending_pause_.assign(p_.gpus.size(), 0);
  pending_scale_.assign(p_.gpus.size(), -1.0);
  ended_.assign(p_.gpus.size(), -1);
  factor_.assign(static_cast<std::size_t>(p_.replicas), 1.0);
  gpu_factor_.assign(p_.gpus.size(), 1.0);
  if (p_.ranks.empty())
    for (std::size_t r = 0; r < p_.gpus.size(); ++r) p_.ranks.push_back(static_cast<int>(r));
  for (int r : p_.ranks) p_.gpus[static_cast<std::size_t>(r)]->set_boundary(this);
  for (std::size_t r = 0; r < p_.gpus.size(); ++r)
    slot_of_.push_back(p_.fabric ? p_.fabric->elaborated_node(static_cast<int>(r)) : 0);
  remap_ = p_.fabric && p_.fabric->flow();
  if (remap_ && has_step(MitigationStep::S3) && p_.engine) p_.engine->count_pairs();
  if (p_.cfg.policy == MitigationPolicy::Oracle) {
    if (p_.faults) p_.faults->fault_changed.connect([this](const FaultTruth& f, bool started) { fault(f, started); });
  } else if (p_.cfg.policy != MitigationPolicy::None && p_.monitor) {
    p_.monitor->diagnosed.connect([this](const Diagnosis& d) { diagnosed(d); });
    p_.monitor->changed.connect([this](const ChangeEvent& e) { changed(e); });
    p_.monitor->window_closed.connect([this](const MonitorWindow& w) { window(w); });
  }
  if (p_.cfg.policy != MitigationPolicy::None) track_ = ctx_.trace.track("health", "mitigation");
}

std::int64_t Mitigation::now() const { return now_ps(); }

IterationSkip Mitigation::at_boundary(int rank, int iteration) {
  const auto r = static_cast<std::size_t>(rank);
  ended_[r] = iteration;
  IterationSkip s = p_.next ? p_.next->at_boundary(rank, iteration) : IterationSkip{};
  if (s.iterations > 0 || iteration < apply_after_) return s;
  // A restart replaces its nodes, a move exchanges them, when the first rank reaches the common
  // boundary (with or without a pause to take there); a move of ranks (remap_) waits for the last.
  if (!pending_swaps_.empty() && (!remap_ || std::all_of(p_.ranks.begin(), p_.ranks.end(), [&](int k) {
        return ended_[static_cast<std::size_t>(k)] >= apply_after_;
      }))) {
    take_swaps(pending_swaps_);
    pending_swaps_.clear();
    if (p_.monitor) p_.monitor->note_relayout();
  }
  if (!repair_nodes_.empty()) {
    for (int n : repair_nodes_)
      if (p_.faults) p_.faults->replace_node(n);
    repair_nodes_.clear();
    if (p_.monitor) p_.monitor->note_relayout();
  }
  if (pending_pause_[r] > 0) {
    s.pause_ps = pending_pause_[r];
    if (rank == p_.ranks.front() && p_.monitor) p_.monitor->note_pause(pending_pause_[r]);
    if (track_ >= 0)
      ctx_.trace.slice(track_, "pause r" + std::to_string(rank), "mitigation", now(), now() + s.pause_ps, {});
    pending_pause_[r] = 0;
  }
  if (pending_scale_[r] >= 0) {
    p_.gpus[r]->set_work_scale(pending_scale_[r]), pending_scale_[r] = -1;
    // A split moves work between replicas: which ranks arrive late is its doing from here on.
    if (rank == p_.ranks.front() && p_.monitor) p_.monitor->note_relayout();
  }
  return s;
}

int Mitigation::skip_limit() const {
  const bool pending =
      checking_ || !repair_nodes_.empty() || !pending_swaps_.empty() ||
      !std::all_of(pending_pause_.begin(), pending_pause_.end(), [](std::int64_t p) { return p == 0; }) ||
      !std::all_of(pending_scale_.begin(), pending_scale_.end(), [](double s) { return s < 0; });
  if (pending) return 0;
  std::int64_t windows = -1;  // windows a skip may cover
  auto cap = [&](std::int64_t w) {
    windows = windows < 0 ? std::max<std::int64_t>(w, 0) : std::min(windows, std::max<std::int64_t>(w, 0));
  };
  if (active_ && ski_ && position_ + 1 < p_.cfg.steps.size()) {
    const double excess = p_.monitor->last_window_s() - healthy_s_;
    if (excess > 0) {
      const double left = sec(step_cost_ps(p_.cfg, p_.cfg.steps[position_ + 1])) - ski_->loss();
      // The window whose loss reaches the cost must be simulated: skip fewer than that, less one.
      cap(static_cast<std::int64_t>(std::ceil(left / excess)) - 2);
    }
  }
  if (rebalanced_ && !slow_gpus_.empty() && !recheck_known()) cap(p_.cfg.recheck_iterations - since_check_ - 2);
  if (windows < 0) return -1;
  return static_cast<int>(static_cast<double>(windows) / p_.monitor->windows_per_iteration());
}

void Mitigation::pause_all(Action& a) {
  int last = -1;
  for (int r : p_.ranks) {
    pending_pause_[static_cast<std::size_t>(r)] += a.pause_ps;
    last = std::max(last, ended_[static_cast<std::size_t>(r)]);
  }
  apply_after_ = last + 1;
  a.after_iteration = apply_after_;
}

void Mitigation::scale_all(double s) {
  for (int r : p_.ranks) pending_scale_[static_cast<std::size_t>(r)] = s;
}

bool Mitigation::has_step(MitigationStep s) const {
  return std::find(p_.cfg.steps.begin(), p_.cfg.steps.end(), s) != p_.cfg.steps.end();
}

std::vector<int> Mitigation::nodes_of(const Diagnosis& d) const {
  std::set<int> nodes;
  // Where the hardware it named is now: S3 may have moved it since.
  auto node = [&](int rank) {
    for (const auto& [at, where] : moves_)
      if (at >= d.diagnosed_ps) rank = where[static_cast<std::size_t>(rank)];
    return slot_of_[static_cast<std::size_t>(rank)];
  };
  for (int g : d.gpus) nodes.insert(node(g));
  for (auto [a, b] : d.links) nodes.insert(node(a)), nodes.insert(node(b));
  return {nodes.begin(), nodes.end()};
}

void Mitigation::diagnosed(const Diagnosis& d) {
  const int index = static_cast<int>(p_.monitor->diagnoses().size()) - 1;
  note_healthy(p_.monitor->changes()[static_cast<std::size_t>(d.change)].before_s);
  if (d.cause == FailCause::GroupWide || d.cause == FailCause::FabricWide) {
    // No healthy peer: every replica is as slow as the others (S2 has nothing to move), every node
    // alike (S3 has no better place, S4 no node to replace that would not be replaced by its
    // like). Recorded, and no incident opened: no step is paid for.
    Action a;
    a.at_ps = now(), a.step = MitigationStep::S1, a.diagnosis = index;
    a.note = d.cause == FailCause::GroupWide
                 ? "group-wide slowdown: no healthy peer, every rank equally slow; nothing to move or replace"
                 : "fabric-wide slowdown: no healthy peer, every communicator equally slow; nothing to move or replace";
    actions_.push_back(a);
    return;
  }
  if (p_.cfg.policy == MitigationPolicy::AlwaysRestart) {
    Action a;
    a.at_ps = now(), a.step = MitigationStep::S4, a.diagnosis = index;
    restart(a, nodes_of(d));
    actions_.push_back(a);
    return;
  }
  // The replica's time per unit: a slow GPU's GEMM slowdown; a late host's iteration slowdown.
  bool more = false;
  for (int g : d.gpus) {
    double f = d.cause == FailCause::Cpu ? d.slowdown : 1.0;
    if (d.cause == FailCause::Compute)
      for (const GemmProbeResult& r : p_.monitor->gemm_probes())
        if (r.rank == g && r.expected_s > 0) f = std::max(f, r.measured_s / r.expected_s);
    double& cur = factor_[static_cast<std::size_t>(p_.replica_of[static_cast<std::size_t>(g)])];
    if (f > cur) cur = f, more = true;
    if (d.cause == FailCause::Compute && std::find(slow_gpus_.begin(), slow_gpus_.end(), g) == slow_gpus_.end())
      slow_gpus_.push_back(g);
    double& own = gpu_factor_[static_cast<std::size_t>(g)];
    own = std::max(own, f);
  }
  if (!active_) {
    open(index, 0);
  } else if (d.cause == FailCause::Communication && !link_cause_) {
    // A slow link while slow GPUs' (or hosts') incident is open: not its cause, and nothing its
    // split moves. Carried, with the loss from here on, until that incident closes.
    if (carried_.empty()) carried_loss_s_ = 0;
    carried_.push_back(index);
  } else if (more && p_.cfg.steps[position_] == MitigationStep::S2) {
    enter(position_, index, 0);  // a second slow replica during the incident: split again
  } else if (more && p_.cfg.steps[position_] == MitigationStep::S3 && has_step(MitigationStep::S2)) {
    Action a;  // after a move, a new slow replica is split around, not moved again
    a.at_ps = now(), a.step = MitigationStep::S2, a.diagnosis = index, a.note = "another slow replica after the move";
    if (rebalance(a, p_.cfg.rebalance_pause_ps)) actions_.push_back(a);
  }
}

void Mitigation::open(int diagnosis, double loss) {
  const Diagnosis& d = p_.monitor->diagnoses()[static_cast<std::size_t>(diagnosis)];
  active_ = true;
  link_cause_ = d.cause == FailCause::Communication;
  incident_ps_ = d.change_ps;
  healthy_s_ = healthy_ref_s_;
  std::vector<double> costs = {0.0};
  for (std::size_t i = 1; i < p_.cfg.steps.size(); ++i) costs.push_back(sec(step_cost_ps(p_.cfg, p_.cfg.steps[i])));
  ski_ = std::make_unique<SkiRental>(costs);
  if (loss > 0) ski_->refund(loss);  // paid since the diagnosis was made: the next window may step
  enter(0, diagnosis, loss);
}

void Mitigation::note_healthy(double level_s) {
  if (level_s > 0 && (healthy_ref_s_ <= 0 || level_s < healthy_ref_s_)) healthy_ref_s_ = level_s;
}

void Mitigation::acted(std::int64_t pause_ps) {
  acted_at_ = now(), acted_pause_ps_ = pause_ps;
  double iteration_s = healthy_s_;
  if (p_.monitor) iteration_s = std::max(healthy_s_, p_.monitor->last_window_s()) * p_.monitor->windows_per_iteration();
  acted_iteration_ps_ = static_cast<std::int64_t>(iteration_s * 1e12);
}

void Mitigation::window(const MonitorWindow& w) {
  const double t = w.seconds();  // without pauses: those were paid as the steps' costs
  if (!carried_.empty()) carried_loss_s_ += std::max(0.0, t - healthy_ref_s_);
  if (rebalanced_ && !slow_gpus_.empty() && !checking_ && pending_swaps_.empty() &&
      ++since_check_ >= p_.cfg.recheck_iterations) {
    // Not while a move is pending: the GPUs probed are those the hardware moves to. A skipped
    // iteration's re-check finds what the last one found (skip_limit allowed the skip only then).
    if (w.fast_forwarded && recheck_known()) since_check_ = 0, ++rechecks_fast_forwarded_;
    else recheck();
  }
  if (!active_ || !ski_) return;
  const int before = ski_->step();
  const double paid = ski_->loss() + std::max(0.0, t - healthy_s_);
  const int after = ski_->add(t, healthy_s_);
  if (after > before)
    enter(static_cast<std::size_t>(after), static_cast<int>(p_.monitor->diagnoses().size()) - 1, paid);
}

void Mitigation::changed(const ChangeEvent& e) {
  note_healthy(e.before_s);
  if (e.slowdown || !active_) return;
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
void Mitigation::recheck() {
  since_check_ = 0;
  checking_ = true;
  ++rechecks_;
  auto left = std::make_shared<int>(static_cast<int>(slow_gpus_.size()));
  auto healed = std::make_shared<std::vector<int>>();
  for (int g : slow_gpus_)
    p_.monitor->gemm_check(g, [this, g, left, healed, at = now()](double ratio) {
      if (ratio < 1 + p_.monitor->params().probe_threshold) healed->push_back(g);
      else found_slow_ps_[g] = at;
      if (--*left > 0) return;
      checking_ = false;
      if (!rebalanced_ || healed->empty()) return;
      if (healed->size() == slow_gpus_.size()) return all_healthy();
      healthy_again(*healed);
    });
}

// The GPUs S2 works around are healthy again. With the job still slow against its healthy time
// (by the detector's verify_threshold), a slow link of the incident goes on: its own incident
// stays open, the even split back; or the links carried through a GPU incident open theirs, paid
// the loss since they were diagnosed. Otherwise the incident closes.
void Mitigation::all_healthy() {
  const double last = p_.monitor->last_window_s();
  const bool slow = healthy_ref_s_ > 0 && last >= (1 + p_.monitor->params().verify_threshold) * healthy_ref_s_;
  const char* why = "re-probed: the GPUs it worked around are healthy";
  if (slow && link_cause_) {
    slow_gpus_.clear(), found_slow_ps_.clear();
    std::fill(gpu_factor_.begin(), gpu_factor_.end(), 1.0);
    std::fill(factor_.begin(), factor_.end(), 1.0);
    Action a;
    a.at_ps = now(), a.step = MitigationStep::S2, a.diagnosis = -1;
    a.note = std::string(why) + "; the link incident stays open";
    even_split(a);
    actions_.push_back(a);
    return;
  }
  const std::vector<int> carried = slow ? carried_ : std::vector<int>{};
  const double loss = carried_loss_s_;
  revert(-1, why);
  if (!carried.empty()) open(carried.front(), loss);
}

// Every GPU S2 works around was last re-probed slow after the last fault change: with no change
// inside a skip (fast-forward stops before each), each re-check there would find them slow again
// and do nothing.
bool Mitigation::recheck_known() const {
  const std::int64_t last = p_.faults ? p_.faults->last_change_ps() : -1;
  return std::all_of(slow_gpus_.begin(), slow_gpus_.end(), [&](int g) {
    auto it = found_slow_ps_.find(g);
    return it != found_slow_ps_.end() && it->second > last;
  });
}

// Some of the GPUs S2 works around probe healthy again, others not (one fault ended while another
// holds on): their replicas' shares are set from the GPUs still slow, and the split redone.
void Mitigation::healthy_again(std::vector<int> healed) {
  std::sort(healed.begin(), healed.end());  // probes finish in any order: the action lists them sorted
  std::set<int> replicas;
  for (int g : healed) {
    slow_gpus_.erase(std::find(slow_gpus_.begin(), slow_gpus_.end(), g));
    gpu_factor_[static_cast<std::size_t>(g)] = 1.0;
    replicas.insert(p_.replica_of[static_cast<std::size_t>(g)]);
  }
  for (int r : replicas) {
    double f = 1.0;
    for (int g : slow_gpus_)
      if (p_.replica_of[static_cast<std::size_t>(g)] == r) f = std::max(f, gpu_factor_[static_cast<std::size_t>(g)]);
    factor_[static_cast<std::size_t>(r)] = f;
  }
  Action a;
  a.at_ps = now(), a.step = MitigationStep::S2, a.diagnosis = -1;
  a.note = "re-probed: " + std::to_string(healed.size()) + " of the GPUs it worked around are healthy, split again";
  if (!rebalance(a, p_.cfg.rebalance_pause_ps)) even_split(a);
  actions_.push_back(a);
}

void Mitigation::revert(int diagnosis, const char* why) {
  active_ = false, link_cause_ = false;
  carried_.clear(), carried_loss_s_ = 0;
  slow_gpus_.clear(), found_slow_ps_.clear();
  std::fill(gpu_factor_.begin(), gpu_factor_.end(), 1.0);
  ski_.reset();
  std::fill(factor_.begin(), factor_.end(), 1.0);
  if (!rebalanced_) return;
  Action a;
  a.at_ps = now(), a.step = MitigationStep::S2, a.diagnosis = diagnosis, a.note = why;
  even_split(a);
  actions_.push_back(a);
}

void Mitigation::enter(std::size_t position, int diagnosis, double loss) {
  position_ = position;
  Action a;
  a.at_ps = now(), a.step = p_.cfg.steps[position], a.diagnosis = diagnosis, a.loss_s = loss;
  switch (a.step) {
    case MitigationStep::S1: a.note = "observe"; break;
    case MitigationStep::S2:
      if (!rebalance(a, p_.cfg.rebalance_pause_ps)) {
        a.note = "nothing to move: no replica is slower (communication)";
        if (ski_) ski_->refund(loss);  // nothing was paid: the loss counts toward the next step
      }
      break;
    case MitigationStep::S3:
      if (!(link_incident() ? swap_roles(a) : consolidate(a)) && ski_) ski_->refund(loss);
      break;
    case MitigationStep::S4: {
      // Every node this incident's diagnoses named; not a group-wide or fabric-wide one's (every
      // rank: a spare would be replaced by its like, [health.md](#no-healthy-peer)).
      std::set<int> nodes;
      for (const Diagnosis& x : p_.monitor->diagnoses())
        if (x.change_ps >= incident_ps_ && x.cause != FailCause::GroupWide && x.cause != FailCause::FabricWide)
          for (int n : nodes_of(x)) nodes.insert(n);
      for (int k : carried_)  // the slow links carried through it go with it
        for (int n : nodes_of(p_.monitor->diagnoses()[static_cast<std::size_t>(k)])) nodes.insert(n);
      restart(a, {nodes.begin(), nodes.end()});
      break;
    }
    default: break;
  }
  actions_.push_back(a);
}

void Mitigation::even_split(Action& a) {
  scale_all(1.0);
  a.units.assign(static_cast<std::size_t>(p_.replicas), p_.units);
  a.pause_ps = p_.cfg.rebalance_pause_ps;
  pause_all(a);
  rebalanced_ = false, acted_at_ = -1;
}

bool Mitigation::rebalance(Action& a, std::int64_t pause_ps) {
  if (std::all_of(factor_.begin(), factor_.end(), [](double f) { return f <= 1.0; })) return false;
  const std::vector<int> m = rebalance_micro_batches(factor_, p_.units * p_.replicas);
  for (int k : p_.ranks) {
    const auto r = static_cast<std::size_t>(k);
    pending_scale_[r] = static_cast<double>(m[static_cast<std::size_t>(p_.replica_of[r])]) / p_.units;
  }
  a.units = m;
  a.pause_ps = pause_ps;
  pause_all(a);
  rebalanced_ = true;
  acted(pause_ps);
  return true;
}

// S3: the nodes' cells (their GPUs' replica and stage, in local order) and the diagnosed factors
// of the hardware in them go to the planner; its swaps are made at the pause, and what this
// mitigation knows of slow GPUs follows the hardware to its new ranks.
std::vector<int> Mitigation::job_slots() const {
  std::set<int> slots;
  for (int r : p_.ranks) slots.insert(slot_of_[static_cast<std::size_t>(r)]);
  return {slots.begin(), slots.end()};
}

bool Mitigation::consolidate(Action& a) {
  // The job's slots (every slot without `jobs`), each with its ranks in local order; the planner
  // counts them 0.. in that order.
  const std::vector<int> slots = job_slots();
  std::vector<std::vector<int>> ranks_of(slots.size());
  for (int r : p_.ranks) {
    const auto k = std::lower_bound(slots.begin(), slots.end(), slot_of_[static_cast<std::size_t>(r)]) - slots.begin();
    ranks_of[static_cast<std::size_t>(k)].push_back(r);
  }
  ConsolidationInput in;
  std::vector<int> pattern;  // cell index per local GPU: alike on every node, or nothing moves
  for (const auto& ranks : ranks_of) {
    std::vector<PlacementCell> cells;
    std::vector<double> f;
    std::vector<int> cell_of;
    for (int r : ranks) {
      const PlacementCell c{p_.replica_of[static_cast<std::size_t>(r)],
                            p_.stage_of.empty() ? 0 : p_.stage_of[static_cast<std::size_t>(r)]};
      std::size_t k = 0;
      while (k < cells.size() && (cells[k].replica != c.replica || cells[k].stage != c.stage)) ++k;
      if (k == cells.size()) cells.push_back(c), f.push_back(1.0);
      f[k] = std::max(f[k], gpu_factor_[static_cast<std::size_t>(r)]);
      cell_of.push_back(static_cast<int>(k));
    }
    if (&ranks == &ranks_of.front()) pattern = cell_of;
    if (cell_of != pattern) {
      a.note = "no move: the nodes hold their replicas and stages differently";
      return false;
    }
    in.cells.push_back(std::move(cells)), in.factor.push_back(std::move(f));
  }
  in.stage_work = p_.stage_work.empty() ? std::vector<double>{1.0} : p_.stage_work;
  in.replicas = p_.replicas, in.units = p_.units, in.rebalance = has_step(MitigationStep::S2);
  const Consolidation c = plan_consolidation(in);
  a.estimate_before = c.before, a.estimate_after = c.after;
  if (c.swaps.empty()) {
    a.note = "no move lowers the estimate by 1% or more";
    return false;
  }
  a.swaps = c.swaps;
  for (auto& [x, y] : a.swaps) x = slots[static_cast<std::size_t>(x)], y = slots[static_cast<std::size_t>(y)];
  const std::vector<int> where = moved_ranks(a.swaps);
  moves_.emplace_back(now(), where);
  std::vector<double> moved(gpu_factor_.size(), 1.0);
  for (std::size_t r = 0; r < where.size(); ++r) moved[static_cast<std::size_t>(where[r])] = gpu_factor_[r];
  gpu_factor_ = moved;
  for (int& g : slow_gpus_) g = where[static_cast<std::size_t>(g)];
  found_slow_ps_.clear();  // probed where the hardware was
  std::fill(factor_.begin(), factor_.end(), 1.0);
  for (std::size_t r = 0; r < gpu_factor_.size(); ++r) {
    double& f = factor_[static_cast<std::size_t>(p_.replica_of[r])];
    f = std::max(f, gpu_factor_[r]);
  }
  pending_swaps_.insert(pending_swaps_.end(), a.swaps.begin(), a.swaps.end());
  if (in.rebalance && !rebalance(a, 0) && rebalanced_) {
    scale_all(1.0);  // nothing slow left to split around
    a.units.assign(static_cast<std::size_t>(p_.replicas), p_.units);
    rebalanced_ = false;
  }
  a.pause_ps = p_.cfg.topology_pause_ps;
  pause_all(a);
  acted(a.pause_ps);
  return true;
}

std::vector<int> Mitigation::moved_ranks(const std::vector<std::pair<int, int>>& swaps) const {
  std::vector<std::vector<int>> ranks_of;
  std::vector<int> local(p_.gpus.size());
  for (std::size_t r = 0; r < p_.gpus.size(); ++r) {
    const auto n = static_cast<std::size_t>(slot_of_[r]);
    if (n >= ranks_of.size()) ranks_of.resize(n + 1);
    local[r] = static_cast<int>(ranks_of[n].size());
    ranks_of[n].push_back(static_cast<int>(r));
  }
  std::vector<int> where(p_.gpus.size());
  for (std::size_t r = 0; r < where.size(); ++r) where[r] = static_cast<int>(r);
  for (auto [x, y] : swaps)
    for (int& w : where) {
      const auto wr = static_cast<std::size_t>(w);
      if (slot_of_[wr] == x) w = ranks_of[static_cast<std::size_t>(y)][static_cast<std::size_t>(local[wr])];
      else if (slot_of_[wr] == y) w = ranks_of[static_cast<std::size_t>(x)][static_cast<std::size_t>(local[wr])];
    }
  return where;
}

void Mitigation::take_swaps(const std::vector<std::pair<int, int>>& swaps) {
  if (!remap_) {
    for (auto [a, b] : swaps)
      if (p_.faults) p_.faults->swap_nodes(a, b);
    return;
  }
  std::vector<int> at = p_.fabric->node_placement();
  for (auto [a, b] : swaps) {
    if (p_.faults) p_.faults->swap_nodes(a, b, false);
    std::swap(at[static_cast<std::size_t>(a)], at[static_cast<std::size_t>(b)]);
  }
  p_.fabric->place_nodes(at);
}

void Mitigation::restart(Action& a, const std::vector<int>& nodes) {
  a.nodes = nodes;
  a.pause_ps = p_.cfg.checkpoint_save_ps + p_.cfg.restart_ps;
  if (nodes.empty()) a.note = "no node to replace: the suspect was not localized";
  pause_all(a);
  const std::vector<int> left = !p_.spares || nodes.empty() ? nodes : move_to_spares(a, nodes);
  repair_nodes_.insert(repair_nodes_.end(), left.begin(), left.end());
  // The restarted job splits evenly again and its incident is closed.
  if (rebalanced_) scale_all(1.0);
  rebalanced_ = false, acted_at_ = -1;
  slow_gpus_.clear(), found_slow_ps_.clear();
  std::fill(gpu_factor_.begin(), gpu_factor_.end(), 1.0);
  active_ = false, link_cause_ = false;
  carried_.clear(), carried_loss_s_ = 0;
  ski_.reset();
  std::fill(factor_.begin(), factor_.end(), 1.0);
}

// The oracle knows each fault as it starts: a GPU slowdown is split around at once with its exact
// factor; any other fault is restarted away from at once.
void Mitigation::fault(const FaultTruth& f, bool started) {
  Action a;
  a.at_ps = now(), a.fault = f.index;
  if (!started) {
    if (f.kind == FaultKind::GpuSlowdown && rebalanced_) {
      for (int g : f.gpus) factor_[static_cast<std::size_t>(p_.replica_of[static_cast<std::size_t>(g)])] = 1.0;
      a.step = MitigationStep::S2;
      if (!rebalance(a, p_.cfg.rebalance_pause_ps)) even_split(a);  // nothing slow left
      a.note = "the fault ended";
      actions_.push_back(a);
    }
    return;
  }
  if (f.kind == FaultKind::GpuSlowdown) {
    for (int g : f.gpus) {
      double& cur = factor_[static_cast<std::size_t>(p_.replica_of[static_cast<std::size_t>(g)])];
      cur = std::max(cur, 1.0 / f.factor);
    }
    a.step = MitigationStep::S2;
    rebalance(a, p_.cfg.rebalance_pause_ps);
  } else {
    std::set<int> nodes;
    for (int g : f.gpus) nodes.insert(slot_of_[static_cast<std::size_t>(g)]);
    for (int d : f.dirs)
      for (int dev :
           {p_.fabric->dirs()[static_cast<std::size_t>(d)].from, p_.fabric->dirs()[static_cast<std::size_t>(d)].to})
        if (int n = p_.fabric->devices()[static_cast<std::size_t>(dev)].node; n >= 0) nodes.insert(n);
    a.step = MitigationStep::S4;
    a.nodes = {nodes.begin(), nodes.end()};
    a.pause_ps = p_.cfg.checkpoint_save_ps + p_.cfg.restart_ps;
    if (nodes.empty()) a.note = "no node to replace: the fault is in the network core";
    pause_all(a);
    repair_nodes_.insert(repair_nodes_.end(), a.nodes.begin(), a.nodes.end());
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
  for (const Action& a : actions_) {
    ojson e = {{"at_s", sec(a.at_ps)}, {"step", mitigation_step_name(a.step)}};
    e["diagnosis"] = a.diagnosis >= 0 ? ojson(a.diagnosis) : ojson(nullptr);
    if (a.fault >= 0) e["fault"] = a.fault;
    e["loss_s"] = a.loss_s;
    e["pause_s"] = sec(a.pause_ps);
    if (a.after_iteration >= 0) e["after_iteration"] = a.after_iteration;
    if (!a.units.empty()) e["units_per_replica"] = a.units;
    if (a.step == MitigationStep::S3) {
      ojson swaps = ojson::array();
      for (auto [x, y] : a.swaps) swaps.push_back({x, y});
      e["move"] = a.role_swap ? "role_swap" : "consolidate";
      e["nodes_swapped"] = swaps;
      if (a.role_swap) {
        e["suspect_links"] = a.suspect_links;
        e["suspect_share_before"] = a.share_before;
        e["suspect_share_after"] = a.share_after;
      } else {
        e["estimate_before"] = a.estimate_before;
        e["estimate_after"] = a.estimate_after;
      }
    }
    if (a.step == MitigationStep::S4) e["nodes_replaced"] = a.nodes;
    if (!a.spare_nodes.empty()) e["moved_to_spares"] = a.spare_nodes;
    if (!a.note.empty()) e["note"] = a.note;
    paused += sec(a.pause_ps);
    list.push_back(e);
  }
  o["actions"] = list;
  o["paused_s"] = paused;
  o["rechecks"] = rechecks_;
  o["rechecks_fast_forwarded"] = rechecks_fast_forwarded_;
  // Where S3 left the ranks: per node slot (the ranks elaborated on node n), the node they run on.
  if (remap_ && p_.fabric) o["node_placement"] = p_.fabric->node_placement();
  return o;
}

}  // namespace trainvp
