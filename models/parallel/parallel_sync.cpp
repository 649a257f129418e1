#include "models/parallel/parallel_sync.hpp"

#include <algorithm>
#include <stdexcept>

#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

constexpr int kTp = static_cast<int>(WaitKind::Tp);
constexpr int kPp = static_cast<int>(WaitKind::Pp);
constexpr int kDp = static_cast<int>(WaitKind::Dp);

bool same_phase(const Phase& a, const Phase& b) { return a.kind == b.kind && a.layer == b.layer; }

std::vector<const Workload*> workloads_of(const std::vector<ParallelStage>& stages) {
  std::vector<const Workload*> w;
  for (const ParallelStage& s : stages) w.push_back(&s.workload);
  return w;
}

}  // namespace

bool summed_parallel_collective(const std::string& label) {
  return label.rfind("tp ", 0) == 0 || label.rfind("pp ", 0) == 0;
}

const char* wait_kind_name(WaitKind k) {
  switch (k) {
    case WaitKind::Tp: return "tp";
    case WaitKind::Pp: return "pp";
    case WaitKind::Dp: return "dp";
    case WaitKind::Count: break;
  }
  return "?";
}

const ModelInfo& ParallelSync::info() {
  static const ModelInfo i{
      "parallel_sync",
      "Hybrid parallelism's gates and traffic (Megatron-LM): each layer's TP all-reduces, the pipeline's "
      "activation and gradient sends between stages, one data-parallel strategy per DP group with ZeRO's "
      "reduce-scatters and parameter all-gathers; the time each GPU waits is attributed to the gate that held it "
      "(TP, PP or DP), exactly (docs/parallelism.md).",
      {"parallel"},
      "parallel.stages[*]",
      {},
      {{"stage", "index", "the pipeline stage"},
       {"layers", "names", "its first and last layer"},
       {"layer_count", "count", "layers it holds"},
       {"gpus", "count", "GPUs running it (t x d)"},
       {"compute_s", "s", "mean per GPU and measured iteration: executing phases"},
       {"model_compute_s", "s", "the same, forward and backward phases only (no optimizer step)"},
       {"bubble_s", "s", "mean per GPU and iteration: waiting for a pipeline input (the PP wait)"},
       {"bubble_fraction", "fraction", "bubble_s over model_compute_s"},
       {"tp_comm_s", "s", "time with its TP collectives in flight"},
       {"tp_exposed_s", "s", "waiting for a TP collective (the TP wait)"},
       {"pp_comm_s", "s", "time with its pipeline sends in flight"},
       {"dp_comm_s", "s", "time with its DP traffic in flight (ZeRO gathers and the DP strategy's)"},
       {"dp_exposed_s", "s", "waiting at the DP gate (the DP wait)"},
       {"comm_s", "s", "time with any of its collectives in flight"},
       {"zero3", "object", "ZeRO-3's layer all-gathers: count, bytes, time in flight and waited",
        "parallel.zero 3 with dp > 1"}},
      {{"gate", "serves PhaseGate (SyncStrategy)", "every GPU of the layout, before each phase"},
       {"phase_end", "listens to Gpu's trace source", "every GPU's phase ends: TP joins, pipeline sends"},
       {"engine", "calls CollectiveEngine (launch, join)", "TP collectives, pipeline sends, ZeRO all-gathers"},
       {"dp", "calls SyncStrategy",
        "each DP group's strategy (DDP buckets, ZeRO, layer-wise), built by the registry"}}};
  return i;
}

ParallelSync::ParallelSync(sc_core::sc_module_name name, Parts parts, RunContext& ctx)
    : sc_module(name),
      parts_(std::move(parts)),
      ctx_(ctx),
      programs_(*parts_.engine, parts_.tp_algorithm, parts_.nodes_of),
      pipeline_(*parts_.layout, *parts_.engine, programs_, *this, parts_.boundary_bytes, parts_.gpus.size()),
      tp_(*parts_.layout, *parts_.engine, programs_, *this, pipeline_, workloads_of(*parts_.stages),
          parts_.tp_algorithm, parts_.gpus.size()) {
  const ParallelConfig& c = parts_.layout->config();
  t_ = c.tp, p_ = c.pp, d_ = c.dp, v_ = c.virtual_stages, m_ = c.micro_batches;
  parts_.engine->keep_intervals();  // fill_comm_all reads them
  prefetch_ = c.zero3_prefetch;
  for (const ParallelStage& st : *parts_.stages) {
    const BlockPatterns pat = chunk_patterns(st.workload, st.chunk_of, v_);
    StageShape sh;
    for (int k = 0; k < v_; ++k) {
      const auto& f = pat.forward[static_cast<std::size_t>(k)];
      const auto& b = pat.backward[static_cast<std::size_t>(k)];
      if (f.empty() || b.empty()) throw std::logic_error("a model chunk without layers");
      sh.fwd_first.push_back(f.front().layer), sh.fwd_last.push_back(f.back().layer);
      sh.bwd_first.push_back(b.front()), sh.bwd_last.push_back(b.back());
    }
    shape_.push_back(std::move(sh));
  }
  const std::size_t n = parts_.gpus.size();
  state_.resize(n);
  records_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!parts_.gpus[r]) {  // another job's rank
      changed_.push_back(nullptr), tracks_.push_back(-1);
      continue;
    }
    changed_.push_back(std::make_unique<sc_core::sc_event>());
    parts_.gpus[r]->phase_end.connect([this](int rank, int it, const Phase& ph) { on_phase_end(rank, it, ph); });
    std::string full = parts_.gpus[r]->name();  // nodeN.gpuM
    tracks_.push_back(ctx.trace.enabled() ? ctx.trace.track(parts_.trace_group_prefix + full.substr(0, full.find('.')),
                                                            full.substr(full.find('.') + 1) + " pipeline")
                                          : -1);
  }
  dp_of_.assign(n, -1);
  if (parts_.make_dp)
    for (int pp = 0; pp < p_; ++pp)
      for (int tp = 0; tp < t_; ++tp) {
        std::vector<Gpu*> group;
        for (int r : parts_.layout->dp_group(tp, pp)) group.push_back(parts_.gpus[static_cast<std::size_t>(r)]);
        auto s = parts_.make_dp((*parts_.stages)[static_cast<std::size_t>(pp)].workload, group);
        if (!s) continue;
        for (Gpu* g : group) dp_of_[static_cast<std::size_t>(g->rank())] = static_cast<int>(dp_.size());
        dp_.push_back(std::move(s));
      }
  // Last: the DP strategies made themselves the GPUs' gates; this module stands in front of them.
  for (Gpu* g : parts_.gpus)
    if (g) g->set_gate(this);
  if ((c.zero == 1 || c.zero == 2) && d_ > 1)
    zero_ = std::make_unique<ZeroGathers>(*parts_.layout, *parts_.engine, programs_, sink(),
                                          workloads_of(*parts_.stages), n);
  if (c.zero == 3 && d_ > 1 && !dp_.empty()) {
    std::vector<const Gpu*> members(n, nullptr);
    for (std::size_t r = 0; r < n; ++r)
      if (dp_of_[r] >= 0) members[r] = parts_.gpus[r];
    zero3_ = std::make_unique<Zero3Gathers>(*parts_.layout, *parts_.engine, programs_, sink(), std::move(members),
                                            prefetch_);
    SC_HAS_PROCESS(ParallelSync);
    SC_METHOD(zero3_start);  // the first iteration's first gathers, at time 0
  }
}

const char* ParallelSync::name() const { return dp_.empty() ? "none" : dp_.front()->name(); }

const SyncStrategy* ParallelSync::dp_strategy(int rank) const {
  const int g = dp_of_[static_cast<std::size_t>(rank)];
  return g < 0 ? nullptr : dp_[static_cast<std::size_t>(g)].get();
}

const ParallelRankIteration& ParallelSync::record(int rank, int iteration) const {
  return records_[static_cast<std::size_t>(rank)].at(iteration);
}

ParallelRankIteration& ParallelSync::record(int rank, int iteration) {
  return records_[static_cast<std::size_t>(rank)][iteration];
}

const ParallelRankIteration& ParallelSync::rank_iteration(int rank, int iteration) const {
  return record(rank, iteration);
}

void ParallelSync::comm_done(int rank, int iteration, WaitKind kind, std::int64_t from, std::int64_t to) {
  // Completions arrive in time order: a running union in end order.
  record(rank, iteration).comm[static_cast<int>(kind)] +=
      state_[static_cast<std::size_t>(rank)].comm_union[static_cast<int>(kind)].add(from, to);
}

void ParallelSync::wake(int rank) { changed_[static_cast<std::size_t>(rank)]->notify(sc_core::SC_ZERO_TIME); }

// ---------------------------------------------------------------- the gate

bool ParallelSync::pp_ready(int rank, int iteration, const Phase& ph) const {
  if (p_ == 1 || ph.layer < 0) return true;
  const int s = parts_.layout->coord(rank).pp;
  const StageShape& sh = shape_[static_cast<std::size_t>(s)];
  const int k = (*parts_.stages)[static_cast<std::size_t>(s)].chunk_of[static_cast<std::size_t>(ph.layer)];
  const int g = global_chunk(s, k);
  bool backward;
  if (ph.kind == PhaseKind::Forward && ph.layer == sh.fwd_first[static_cast<std::size_t>(k)] && g > 0) backward = false;
  else if (same_phase(ph, sh.bwd_first[static_cast<std::size_t>(k)]) && g < p_ * v_ - 1) backward = true;
  else return true;
  return pipeline_.arrived(rank, {iteration, k, ph.micro_batch, backward});
}

WaitKind ParallelSync::refusal(int rank, int iteration, const Phase& ph) const {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  st.dp_gate = false;
  st.z3_gate = false;
  const ParallelConfig& cfg = parts_.layout->config();
  // A TP collective holds the next phase, but a layer's dW (Megatron overlaps it with its dX
  // all-reduce); with tp_comm_overlap only the optimizer step (pipeline sends wait in on_phase_end).
  if (tp_.pending(rank) > 0 && ph.kind != PhaseKind::BackwardWeight &&
      (!cfg.tp_comm_overlap || ph.kind == PhaseKind::Optimizer))
    return WaitKind::Tp;
  if (!pp_ready(rank, iteration, ph)) return WaitKind::Pp;
  if (!cfg.overlap_p2p && pipeline_.sends_in_flight(rank) > 0) return WaitKind::Pp;  // blocking sends
  const int g = dp_of_[static_cast<std::size_t>(rank)];
  if (g < 0) return WaitKind::Count;
  // ZeRO: the next iteration's first forward needs the parameters the last step updated.
  const int s = parts_.layout->coord(rank).pp;
  // With overlap_param_gather the gather runs behind the forward; the next step waits for it.
  const bool param_gate = cfg.overlap_param_gather ? ph.kind == PhaseKind::Optimizer
                                                   : ph.kind == PhaseKind::Forward && ph.micro_batch == 0 &&
                                                         ph.layer == shape_[static_cast<std::size_t>(s)].fwd_first[0];
  if (zero_ && iteration > 0 && param_gate && !zero_->gathered_before(rank, iteration)) return WaitKind::Dp;
  if (zero3_ && zero3_->waiting(rank, iteration)) {
    st.z3_gate = true;
    return WaitKind::Dp;
  }
  if (!dp_[static_cast<std::size_t>(g)]->may_start(rank, iteration, ph)) {
    st.dp_gate = true;
    return WaitKind::Dp;
  }
  return WaitKind::Count;
}

void ParallelSync::note_wait(int rank, int iteration, WaitKind why) const {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::int64_t t = now();
  if (st.reason != WaitKind::Count) {
    if (why == st.reason && st.z3_gate == st.z3_wait) return;
    ParallelRankIteration& r = records_[static_cast<std::size_t>(rank)][st.reason_iteration];
    r.blocked[static_cast<int>(st.reason)] += t - st.since;
    if (st.z3_wait) r.z3_gather_blocked += t - st.since;
  }
  st.reason = why, st.since = t, st.reason_iteration = iteration;
  st.z3_wait = why == WaitKind::Dp && st.z3_gate;
  if (why == WaitKind::Count) st.phase_start = t;
}

bool ParallelSync::may_start(int rank, int iteration, const Phase& ph) const {
  const WaitKind why = refusal(rank, iteration, ph);
  note_wait(rank, iteration, why);
  return why == WaitKind::Count;
}

const sc_core::sc_event& ParallelSync::changed(int rank) const {
  if (state_[static_cast<std::size_t>(rank)].dp_gate) return dp_strategy(rank)->changed(rank);
  return *changed_[static_cast<std::size_t>(rank)];
}

std::string ParallelSync::waiting_for(int rank, int iteration, const Phase& ph) const {
  const RankState& st = state_[static_cast<std::size_t>(rank)];
  switch (refusal(rank, iteration, ph)) {
    case WaitKind::Tp: return "its tensor-parallel collective (" + std::to_string(tp_.pending(rank)) + " in flight)";
    case WaitKind::Pp: {
      const bool fwd = ph.kind == PhaseKind::Forward;
      return std::string(fwd ? "activations" : "gradients") + " of micro-batch " + std::to_string(ph.micro_batch) +
             " from pipeline stage " + std::to_string((parts_.layout->coord(rank).pp + (fwd ? p_ - 1 : 1)) % p_);
    }
    case WaitKind::Dp:
      if (st.dp_gate) return dp_strategy(rank)->waiting_for(rank, iteration, ph);
      if (st.z3_gate) return zero3_->waited(rank, iteration);
      return "the ZeRO parameter all-gather of iteration " + std::to_string(iteration - 1);
    case WaitKind::Count: break;
  }
  return "nothing";
}

// ---------------------------------------------------------------- traffic

void ParallelSync::on_phase_end(int rank, int iteration, const Phase& ph) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::int64_t t = now();
  if (zero3_ && dp_of_[static_cast<std::size_t>(rank)] >= 0) zero3_->phase_ended(rank, iteration);
  if (ph.kind == PhaseKind::Optimizer) {
    // ZeRO-1 and -2 gather the updated parameters whole; ZeRO-3 keeps them sharded.
    if (zero_ && dp_of_[static_cast<std::size_t>(rank)] >= 0) zero_->gather(rank, iteration);
    if (parts_.engine->intervals(rank).size() >=
        (fold_at_.empty() ? kFoldAt : fold_at_[static_cast<std::size_t>(rank)]))
      fold_comm(rank);
    return;
  }
  record(rank, iteration).model_compute += t - st.phase_start;
  const int s = parts_.layout->coord(rank).pp;
  const ParallelStage& stage = (*parts_.stages)[static_cast<std::size_t>(s)];
  const StageShape& sh = shape_[static_cast<std::size_t>(s)];
  const Layer& layer = stage.workload.layers[static_cast<std::size_t>(ph.layer)];
  const int k = stage.chunk_of[static_cast<std::size_t>(ph.layer)];
  const bool fwd_first = ph.kind == PhaseKind::Forward && ph.layer == sh.fwd_first[static_cast<std::size_t>(k)];
  const bool bwd_first = same_phase(ph, sh.bwd_first[static_cast<std::size_t>(k)]);
  if (fwd_first || bwd_first) {
    pipeline_.consumed(rank, {iteration, k, ph.micro_batch, bwd_first});
    st.block_start = st.phase_start;
  }
  if (t_ > 1) {
    if ((ph.kind == PhaseKind::Forward && layer.tp_fwd_bytes > 0) ||
        (ph.kind == PhaseKind::BackwardInput && layer.tp_bwd_bytes > 0))
      tp_.join(rank, iteration, ph);
  }
  const bool fwd_last = ph.kind == PhaseKind::Forward && ph.layer == sh.fwd_last[static_cast<std::size_t>(k)];
  const bool bwd_last = same_phase(ph, sh.bwd_last[static_cast<std::size_t>(k)]);
  if (fwd_last || bwd_last) {
    if (tracks_[static_cast<std::size_t>(rank)] >= 0)
      ctx_.trace.slice(tracks_[static_cast<std::size_t>(rank)],
                       ctx_.trace.name(std::string(fwd_last ? "F" : "B") + std::to_string(ph.micro_batch) +
                                       (v_ > 1 ? "." + std::to_string(k) : "")),
                       "pipeline", st.block_start, t, iteration, ph.micro_batch);
    const int g = global_chunk(s, k);
    if (p_ > 1 && (fwd_last ? g < p_ * v_ - 1 : g > 0)) tp_.queue_send(rank, iteration, {bwd_last, k, ph.micro_batch});
  }
  tp_.flush_sends(rank);
}

// ---------------------------------------------------------------- accounting

namespace {
std::vector<std::int64_t> iteration_ends(const Gpu& g) {
  std::vector<std::int64_t> ends;
  ends.reserve(g.iterations().size());
  for (const RankIteration& r : g.iterations()) ends.push_back(r.end_ps);
  return ends;
}
}  // namespace

void ParallelSync::fill_comm_all() const {
  // Per rank, the union of all its collectives' [join, done] intervals, each counted in the
  // iteration during which it ended; skipped iterations repeat the period before the skip.
  comm_all_.assign(parts_.gpus.size(), {});
  for (const Gpu* g : parts_.gpus) {
    if (!g) continue;
    const auto r = static_cast<std::size_t>(g->rank());
    comm_all_[r] = folders_.empty() ? comm_by_iteration(parts_.engine->intervals(g->rank()), iteration_ends(*g), skips_)
                                    : folders_[r].sums(parts_.engine->intervals(g->rank()), iteration_ends(*g), skips_);
  }
}

// The rank's ended iterations' intervals that nothing to come can reach: every interval to come
// starts at or after the earliest open join (or now), and a skip to come (after the boundary the
// slowest rank reaches next) repeats at most max_skip_period_ iterations before it.
void ParallelSync::fold_comm(int rank) {
  if (folders_.empty()) folders_.resize(parts_.gpus.size()), fold_at_.assign(parts_.gpus.size(), kFoldAt);
  const auto r = static_cast<std::size_t>(rank);
  fold_at_[r] = 2 * parts_.engine->intervals(rank).size();  // if nothing folds now
  const Gpu& g = *parts_.gpus[r];
  std::int64_t bound = std::min(now(), parts_.engine->earliest_open_join(rank)) - 1;
  if (max_skip_period_ > 0) {
    std::size_t slowest = g.iterations().size();
    for (const Gpu* other : parts_.gpus)
      if (other) slowest = std::min(slowest, other->iterations().size());
    if (slowest < static_cast<std::size_t>(max_skip_period_) + 2) return;
    bound = std::min(bound, g.iterations()[slowest - static_cast<std::size_t>(max_skip_period_) - 2].end_ps - 1);
  }
  const std::size_t took = folders_[r].fold(parts_.engine->intervals(rank), iteration_ends(g), skips_, bound);
  parts_.engine->drop_intervals(rank, took);
  fold_at_[r] = std::max(kFoldAt, 2 * parts_.engine->intervals(rank).size());
}

std::int64_t ParallelSync::comm_ps(int rank, int iteration) const {
  if (comm_all_.empty()) fill_comm_all();
  const auto& v = comm_all_[static_cast<std::size_t>(rank)];
  return static_cast<std::size_t>(iteration) < v.size() ? v[static_cast<std::size_t>(iteration)] : 0;
}

std::int64_t ParallelSync::stage_wait_ps(int rank, int iteration) const { return record(rank, iteration).blocked[kPp]; }

std::int64_t ParallelSync::gate_comm_ps(int rank, int iteration) const {
  const ParallelRankIteration& r = record(rank, iteration);
  const SyncStrategy* d = dp_strategy(rank);
  return r.comm[kTp] + r.comm[kPp] + r.comm[kDp] + (d ? d->comm_ps(rank, iteration) : 0);
}

void ParallelSync::skip_iterations(int first, int count, int period, std::int64_t period_ps) {
  // Every GPU has ended first - 1: its records of the last period are final. What is keyed by
  // iteration (pipeline inputs, TP collectives) needs nothing: every GPU goes on at first + count.
  // (ZeRO's parameter all-gathers, launched as an iteration ends and waited for as the next
  // begins, are not skipped: Simulation gives the reason.)
  for (std::size_t r = 0; r < parts_.gpus.size(); ++r) {
    if (!parts_.gpus[r]) continue;
    records_[r].repeat(first, count, period);  // read as the period they repeat, not copied
    if (tracks_[r] >= 0) {
      const std::int64_t at = parts_.gpus[r]->iterations().at(static_cast<std::size_t>(first - 1)).end_ps;
      ctx_.trace.slice(tracks_[r], "fast-forward " + std::to_string(count) + " iterations", "fast_forward", at,
                       at + static_cast<std::int64_t>(count / period) * period_ps,
                       {{"after_iteration", first - 1}, {"iterations", count}});
    }
  }
  for (auto& s : dp_) s->skip_iterations(first, count, period, period_ps);
  skips_.push_back({first, count, period, period_ps});
  comm_all_.clear();
}

void ParallelSync::report(nlohmann::ordered_json& results) const {
  using ojson = nlohmann::ordered_json;
  if (!dp_.empty()) dp_.front()->report(results);  // the sync section: stage 0's buckets
  int n = 0, warm = 0;
  for (const auto& it : results["iterations"]) ++n, warm += it.value("warmup", false) ? 1 : 0;
  const int measured = std::max(1, n - warm);
  ojson stages = ojson::array();
  for (int s = 0; s < p_; ++s) {
    const std::vector<int> ranks = parts_.layout->stage_ranks(s);
    double compute = 0, model = 0, blocked[3] = {0, 0, 0}, comm[3] = {0, 0, 0}, all = 0;
    for (int r : ranks) {
      const Gpu* g = parts_.gpus[static_cast<std::size_t>(r)];
      for (int i = warm; i < n; ++i) {
        const RankIteration& gi = g->iterations()[static_cast<std::size_t>(i)];
        const ParallelRankIteration& pi = record(r, i);
        compute += sec(gi.compute_ps);
        model += sec(pi.model_compute);
        for (int k = 0; k < 3; ++k) blocked[k] += sec(pi.blocked[k]);
        comm[kTp] += sec(pi.comm[kTp]);
        comm[kPp] += sec(pi.comm[kPp]);
        comm[kDp] += sec(pi.comm[kDp]);
        if (const SyncStrategy* d = dp_strategy(r)) comm[kDp] += sec(d->comm_ps(r, i));
        all += sec(comm_ps(r, i));
      }
    }
    const double div = static_cast<double>(measured) * static_cast<double>(ranks.size());
    const Workload& w = (*parts_.stages)[static_cast<std::size_t>(s)].workload;
    ojson o;
    o["stage"] = s;
    o["layers"] = {w.layers.front().name, w.layers.back().name};
    o["layer_count"] = w.layers.size();
    o["gpus"] = ranks.size();
    o["compute_s"] = compute / div;
    o["model_compute_s"] = model / div;  // forward and backward phases
    o["bubble_s"] = blocked[kPp] / div;
    o["bubble_fraction"] = model > 0 ? ojson(blocked[kPp] / model) : ojson(nullptr);
    o["tp_comm_s"] = comm[kTp] / div;
    o["tp_exposed_s"] = blocked[kTp] / div;
    o["pp_comm_s"] = comm[kPp] / div;
    o["dp_comm_s"] = comm[kDp] / div;
    o["dp_exposed_s"] = blocked[kDp] / div;
    o["comm_s"] = all / div;
    if (parts_.layout->config().zero == 3 && d_ > 1 && dp_strategy(ranks.front()))
      o["zero3"] = zero3_report(s, warm, n);
    stages.push_back(o);
  }
  results["parallel"]["stages"] = stages;
}

}  // namespace trainvp
