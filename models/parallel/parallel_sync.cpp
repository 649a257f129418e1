#include "models/parallel/parallel_sync.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "models/workload/dtype.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

constexpr int kTp = static_cast<int>(WaitKind::Tp);
constexpr int kPp = static_cast<int>(WaitKind::Pp);
constexpr int kDp = static_cast<int>(WaitKind::Dp);

// A pipeline input: (iteration, direction, the receiving GPU's virtual chunk, micro-batch).
std::uint64_t input_key(int iteration, bool backward, int chunk, int micro_batch) {
  return (static_cast<std::uint64_t>(iteration) << 32) | (static_cast<std::uint64_t>(micro_batch) << 16) |
         (static_cast<std::uint64_t>(chunk) << 1) | (backward ? 1u : 0u);
}

bool same_phase(const Phase& a, const Phase& b) { return a.kind == b.kind && a.layer == b.layer; }

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

std::size_t ParallelSync::TpKeyHash::operator()(const TpKey& k) const {
  std::uint64_t h = static_cast<std::uint64_t>(k.group);
  for (int x : {k.iteration, k.micro_batch, k.layer, k.tag}) h = h * 1000003u ^ static_cast<std::uint64_t>(x);
  return std::hash<std::uint64_t>()(h);
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
    : sc_module(name), parts_(std::move(parts)), ctx_(ctx) {
  const ParallelConfig& c = parts_.layout->config();
  t_ = c.tp, p_ = c.pp, d_ = c.dp, v_ = c.virtual_stages, m_ = c.micro_batches;
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
  if (c.zero == 3 && d_ > 1 && !dp_.empty()) {
    SC_HAS_PROCESS(ParallelSync);
    SC_METHOD(zero3_start);  // the first iteration's first gathers, at time 0
  }
}

const char* ParallelSync::name() const { return dp_.empty() ? "none" : dp_.front()->name(); }

const SyncStrategy* ParallelSync::dp_strategy(int rank) const {
  const int g = dp_of_[static_cast<std::size_t>(rank)];
  return g < 0 ? nullptr : dp_[static_cast<std::size_t>(g)].get();
}

ParallelRankIteration& ParallelSync::record(int rank, int iteration) const {
  auto& v = records_[static_cast<std::size_t>(rank)];
  if (static_cast<std::size_t>(iteration) >= v.size()) v.resize(static_cast<std::size_t>(iteration) + 1);
  return v[static_cast<std::size_t>(iteration)];
}

const ParallelRankIteration& ParallelSync::rank_iteration(int rank, int iteration) const {
  return record(rank, iteration);
}

// ---------------------------------------------------------------- the gate

bool ParallelSync::pp_ready(int rank, int iteration, const Phase& ph, std::uint64_t* key) const {
  if (p_ == 1 || ph.layer < 0) return true;
  const int s = parts_.layout->coord(rank).pp;
  const StageShape& sh = shape_[static_cast<std::size_t>(s)];
  const int k = (*parts_.stages)[static_cast<std::size_t>(s)].chunk_of[static_cast<std::size_t>(ph.layer)];
  const int g = global_chunk(s, k);
  bool backward;
  if (ph.kind == PhaseKind::Forward && ph.layer == sh.fwd_first[static_cast<std::size_t>(k)] && g > 0) backward = false;
  else if (same_phase(ph, sh.bwd_first[static_cast<std::size_t>(k)]) && g < p_ * v_ - 1) backward = true;
  else return true;
  const std::uint64_t want = input_key(iteration, backward, k, ph.micro_batch);
  if (key) *key = want;
  return state_[static_cast<std::size_t>(rank)].arrived.count(want) > 0;
}

WaitKind ParallelSync::refusal(int rank, int iteration, const Phase& ph) const {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  st.dp_gate = false;
  st.z3_gate = false;
  const ParallelConfig& cfg = parts_.layout->config();
  // A TP collective holds the next phase, but a layer's dW (Megatron overlaps it with its dX
  // all-reduce); with tp_comm_overlap only the optimizer step (pipeline sends wait in on_phase_end).
  if (st.tp_pending > 0 && ph.kind != PhaseKind::BackwardWeight &&
      (!cfg.tp_comm_overlap || ph.kind == PhaseKind::Optimizer))
    return WaitKind::Tp;
  if (!pp_ready(rank, iteration, ph, nullptr)) return WaitKind::Pp;
  if (!cfg.overlap_p2p && st.sends_in_flight > 0) return WaitKind::Pp;  // blocking sends
  const int g = dp_of_[static_cast<std::size_t>(rank)];
  if (g < 0) return WaitKind::Count;
  // ZeRO: the next iteration's first forward needs the parameters the last step updated.
  const int s = parts_.layout->coord(rank).pp;
  const int zero = parts_.layout->config().zero;
  // With overlap_param_gather the gather runs behind the forward; the next step waits for it.
  const bool param_gate = cfg.overlap_param_gather ? ph.kind == PhaseKind::Optimizer
                                                   : ph.kind == PhaseKind::Forward && ph.micro_batch == 0 &&
                                                         ph.layer == shape_[static_cast<std::size_t>(s)].fwd_first[0];
  if ((zero == 1 || zero == 2) && d_ > 1 && iteration > 0 && param_gate && st.gathered < iteration - 1)
    return WaitKind::Dp;
  if (parts_.layout->config().zero == 3 && d_ > 1) {
    const std::uint64_t need = zero3_need(rank, iteration, st.phase_index);
    if (need != 0 && !st.z3_done.count(need)) {
      st.z3_gate = true;
      return WaitKind::Dp;
    }
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
    ParallelRankIteration& r = record(rank, st.reason_iteration);
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
    case WaitKind::Tp: return "its tensor-parallel collective (" + std::to_string(st.tp_pending) + " in flight)";
    case WaitKind::Pp: {
      const bool fwd = ph.kind == PhaseKind::Forward;
      return std::string(fwd ? "activations" : "gradients") + " of micro-batch " + std::to_string(ph.micro_batch) +
             " from pipeline stage " + std::to_string((parts_.layout->coord(rank).pp + (fwd ? p_ - 1 : 1)) % p_);
    }
    case WaitKind::Dp:
      if (st.dp_gate) return dp_strategy(rank)->waiting_for(rank, iteration, ph);
      return "the ZeRO parameter all-gather of iteration " + std::to_string(iteration - 1);
    case WaitKind::Count: break;
  }
  return "nothing";
}

// ---------------------------------------------------------------- traffic

void ParallelSync::on_phase_end(int rank, int iteration, const Phase& ph) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::int64_t t = now();
  const std::uint64_t ended = st.phase_index;
  const std::uint64_t phases = parts_.gpus[static_cast<std::size_t>(rank)]->schedule().size();
  st.phase_index = ended + 1 == phases ? 0 : ended + 1;
  if (parts_.layout->config().zero == 3 && d_ > 1 && dp_of_[static_cast<std::size_t>(rank)] >= 0) {
    st.z3_done.erase(zero3_need(rank, iteration, ended));  // used: the gathered copy is freed
    // Prefetch: the gathers of the next phases (into the next iteration after the last).
    for (std::uint64_t ahead = ended + 1; ahead <= ended + static_cast<std::uint64_t>(prefetch_); ++ahead)
      zero3_join(rank, ahead < phases ? iteration : iteration + 1, ahead % phases);
  }
  if (ph.kind == PhaseKind::Optimizer) {
    // ZeRO-1 and -2 gather the updated parameters whole; ZeRO-3 keeps them sharded.
    const int zero = parts_.layout->config().zero;
    if ((zero == 1 || zero == 2) && dp_of_[static_cast<std::size_t>(rank)] >= 0 && d_ > 1) gather(rank, iteration);
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
    st.arrived.erase(input_key(iteration, bwd_first, k, ph.micro_batch));
    st.block_start = st.phase_start;
  }
  if (t_ > 1) {
    if ((ph.kind == PhaseKind::Forward && layer.tp_fwd_bytes > 0) ||
        (ph.kind == PhaseKind::BackwardInput && layer.tp_bwd_bytes > 0))
      tp_join(rank, iteration, ph, 0);
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
    if (p_ > 1 && (fwd_last ? g < p_ * v_ - 1 : g > 0)) {
      st.sends.push_back({bwd_last, k, ph.micro_batch});
      st.send_iteration.push_back(iteration);
      st.send_after.push_back(st.tp_seq);
    }
  }
  if (!st.sends.empty()) flush_sends(rank);
}

void ParallelSync::flush_sends(int rank) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  const std::uint64_t oldest_open =
      st.tp_open.empty() ? std::numeric_limits<std::uint64_t>::max() : *st.tp_open.begin();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < st.sends.size(); ++i) {
    if (st.send_after[i] <= oldest_open) {
      send(rank, st.send_iteration[i], st.sends[i]);
    } else {
      st.sends[kept] = st.sends[i], st.send_iteration[kept] = st.send_iteration[i],
      st.send_after[kept] = st.send_after[i];
      ++kept;
    }
  }
  st.sends.resize(kept), st.send_iteration.resize(kept), st.send_after.resize(kept);
}

std::shared_ptr<const CompiledProgram> ParallelSync::program(CollectiveOp op, const std::vector<int>& comm,
                                                             std::uint64_t bytes) {
  const auto key = std::make_tuple(static_cast<int>(op), bytes, comm[0], comm[1], comm.size());
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  Program pr;
  if (op == CollectiveOp::SendRecv) {  // one direction only: a pipeline send
    pr.ranks = comm;
    Transfer x;
    x.src = comm[0], x.dst = comm[1], x.bytes = bytes;
    pr.transfers.push_back(x);
  } else {
    pr = build_program(op, op == CollectiveOp::AllReduce ? parts_.tp_algorithm : CollectiveAlgo::Ring, comm, bytes,
                       parts_.engine->chunk(), parts_.nodes_of, 0, &parts_.engine->device_map(),
                       &parts_.engine->ring_layout());
  }
  auto cp = std::make_shared<const CompiledProgram>(std::move(pr));
  programs_.emplace(key, cp);
  return cp;
}

void ParallelSync::tp_join(int rank, int iteration, const Phase& ph, int part) {
  const ParallelCoord c = parts_.layout->coord(rank);
  const bool fwd = ph.kind == PhaseKind::Forward;
  const TpKey key{c.pp * d_ + c.dp, iteration, ph.micro_batch, ph.layer, (fwd ? 0 : 2) + part};
  auto [entry, fresh] = tp_live_.try_emplace(key, -1, t_);
  if (fresh) {
    const Layer& layer =
        (*parts_.stages)[static_cast<std::size_t>(c.pp)].workload.layers[static_cast<std::size_t>(ph.layer)];
    const std::uint64_t bytes = fwd ? layer.tp_fwd_bytes : layer.tp_bwd_bytes;
    const bool sp = parts_.layout->config().sequence_parallel;
    const CollectiveOp op = !sp         ? CollectiveOp::AllReduce
                            : part == 0 ? CollectiveOp::ReduceScatter
                                        : CollectiveOp::AllGather;
    const CollectiveAlgo algo = op == CollectiveOp::AllReduce ? parts_.tp_algorithm : CollectiveAlgo::Ring;
    entry->second.first = parts_.engine->launch(
        program(op, parts_.layout->tp_group(c.pp, c.dp), bytes), op, algo, bytes,
        "tp it" + std::to_string(iteration) + " mb" + std::to_string(ph.micro_batch) + " " + layer.name +
            (fwd ? " fwd" : " bwd") + " s" + std::to_string(c.pp) + "d" + std::to_string(c.dp),
        [this, iteration, ph, part](int r) { tp_done(r, iteration, ph, part); });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) tp_live_.erase(entry);
  RankState& st = state_[static_cast<std::size_t>(rank)];
  ++st.tp_pending;
  st.tp_joined = now();
  if (part == 0) {
    const std::uint64_t seq = st.tp_seq++;
    st.tp_open.insert(seq);
    st.tp_seq_of[{iteration, ph.micro_batch, ph.layer, !fwd}] = seq;
  }
  parts_.engine->join(id, rank);
}

void ParallelSync::tp_done(int rank, int iteration, const Phase& ph, int part) {
  RankState& st = state_[static_cast<std::size_t>(rank)];
  add_comm(rank, iteration, WaitKind::Tp, st.tp_joined, now());
  --st.tp_pending;
  if (part == 0 && parts_.layout->config().sequence_parallel) {  // then the all-gather
    tp_join(rank, iteration, ph, 1);
    return;
  }
  const auto key = std::make_tuple(iteration, ph.micro_batch, ph.layer, ph.kind != PhaseKind::Forward);
  if (auto it = st.tp_seq_of.find(key); it != st.tp_seq_of.end()) {
    st.tp_open.erase(it->second);
    st.tp_seq_of.erase(it);
  }
  if (!st.sends.empty()) flush_sends(rank);
  if (st.tp_pending > 0) return;
  changed_[static_cast<std::size_t>(rank)]->notify(sc_core::SC_ZERO_TIME);
}

void ParallelSync::send(int rank, int iteration, const ScheduleBlock& b) {
  const ParallelCoord c = parts_.layout->coord(rank);
  const int g = global_chunk(c.pp, b.chunk) + (b.backward ? -1 : 1);
  const int to_stage = g % p_, to_chunk = g / p_;
  const int dst = parts_.layout->rank({c.tp, to_stage, c.dp});
  const std::uint64_t bytes = parts_.boundary_bytes;
  const std::int64_t start = now();
  const int id = parts_.engine->launch(
      program(CollectiveOp::SendRecv, {rank, dst}, bytes), CollectiveOp::SendRecv, CollectiveAlgo::Ring, bytes,
      "pp it" + std::to_string(iteration) + " mb" + std::to_string(b.micro_batch) + " s" + std::to_string(c.pp) + ">s" +
          std::to_string(to_stage) + (b.backward ? " bwd" : " fwd") + " t" + std::to_string(c.tp) + "d" +
          std::to_string(c.dp),
      [this, iteration, dst, to_chunk, b, start](int r) {
        add_comm(r, iteration, WaitKind::Pp, start, now());
        if (r != dst) {
          RankState& sender = state_[static_cast<std::size_t>(r)];
          if (--sender.sends_in_flight == 0 && !parts_.layout->config().overlap_p2p)
            changed_[static_cast<std::size_t>(r)]->notify(sc_core::SC_ZERO_TIME);
          return;
        }
        state_[static_cast<std::size_t>(dst)].arrived.insert(input_key(iteration, b.backward, to_chunk, b.micro_batch));
        changed_[static_cast<std::size_t>(dst)]->notify(sc_core::SC_ZERO_TIME);
      });
  ++state_[static_cast<std::size_t>(rank)].sends_in_flight;
  parts_.engine->join(id, rank);
  parts_.engine->join(id, dst);  // the receive is posted ahead, as Megatron's batched p2p does
}

std::uint64_t ParallelSync::gather_bytes(int stage) const {
  const Workload& w = (*parts_.stages)[static_cast<std::size_t>(stage)].workload;
  return w.total_params() * dtype_bytes(w.shape.dtype);
}

void ParallelSync::gather(int rank, int iteration) {
  const ParallelCoord c = parts_.layout->coord(rank);
  const std::uint64_t key =
      (static_cast<std::uint64_t>(iteration) << 24) | static_cast<std::uint64_t>(c.pp * t_ + c.tp);
  auto [entry, fresh] = gather_live_.try_emplace(key, -1, d_);
  const std::int64_t start = now();
  if (fresh) {
    const std::uint64_t bytes = gather_bytes(c.pp);
    entry->second.first = parts_.engine->launch(
        program(CollectiveOp::AllGather, parts_.layout->dp_group(c.tp, c.pp), bytes), CollectiveOp::AllGather,
        CollectiveAlgo::Ring, bytes,
        "zero it" + std::to_string(iteration) + " params s" + std::to_string(c.pp) + "t" + std::to_string(c.tp),
        [this, iteration, start](int r) {
          add_comm(r, iteration, WaitKind::Dp, start, now());
          state_[static_cast<std::size_t>(r)].gathered = iteration;
          changed_[static_cast<std::size_t>(r)]->notify(sc_core::SC_ZERO_TIME);
        });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) gather_live_.erase(entry);
  parts_.engine->join(id, rank);
}

namespace {

// A ZeRO-3 layer gather: (iteration, micro-batch, layer, backward), never 0.
std::uint64_t zero3_key(int iteration, int micro_batch, int layer, bool backward) {
  return (static_cast<std::uint64_t>(iteration + 1) << 30) | (static_cast<std::uint64_t>(micro_batch) << 14) |
         (static_cast<std::uint64_t>(layer) << 1) | (backward ? 1u : 0u);
}

}  // namespace

std::uint64_t ParallelSync::zero3_need(int rank, int iteration, std::uint64_t index) const {
  const Gpu* gpu = parts_.gpus[static_cast<std::size_t>(rank)];
  if (iteration >= gpu->iterations_planned() || index >= gpu->schedule().size()) return 0;
  const Phase ph = gpu->schedule().at(index);
  if (ph.layer < 0) return 0;
  const Layer& l = gpu->workload().layers[static_cast<std::size_t>(ph.layer)];
  if (l.params == 0) return 0;
  // A layer's parameters are gathered before its forward and again before its backward's first phase.
  if (ph.kind == PhaseKind::Forward) return zero3_key(iteration, ph.micro_batch, ph.layer, false);
  if (ph.kind == PhaseKind::BackwardInput || !has_input_grad_phase(l))
    return zero3_key(iteration, ph.micro_batch, ph.layer, true);
  return 0;
}

void ParallelSync::zero3_start() {
  for (const Gpu* g : parts_.gpus)
    if (g && dp_of_[static_cast<std::size_t>(g->rank())] >= 0)
      for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(prefetch_); ++i) zero3_join(g->rank(), 0, i);
}

void ParallelSync::zero3_join(int rank, int iteration, std::uint64_t index) {
  const std::uint64_t need = zero3_need(rank, iteration, index);
  RankState& st = state_[static_cast<std::size_t>(rank)];
  if (need == 0 || st.z3_done.count(need) || !st.z3_joined.insert(need).second) return;
  const ParallelCoord c = parts_.layout->coord(rank);
  const std::uint64_t key = need ^ (static_cast<std::uint64_t>(c.pp * t_ + c.tp) << 53);
  auto [entry, fresh] = z3_live_.try_emplace(key, -1, d_);
  const std::int64_t start = now();
  const Gpu* gpu = parts_.gpus[static_cast<std::size_t>(rank)];
  const Phase ph = gpu->schedule().at(index);
  const Layer& l = gpu->workload().layers[static_cast<std::size_t>(ph.layer)];
  const std::uint64_t bytes = l.params * dtype_bytes(gpu->workload().shape.dtype);
  ParallelRankIteration& rec = record(rank, iteration);
  ++rec.z3_gathers;
  rec.z3_gather_bytes += bytes;
  if (fresh) {
    entry->second.first = parts_.engine->launch(
        program(CollectiveOp::AllGather, parts_.layout->dp_group(c.tp, c.pp), bytes), CollectiveOp::AllGather,
        CollectiveAlgo::Ring, bytes,
        "zero3 it" + std::to_string(iteration) + " mb" + std::to_string(ph.micro_batch) + " " + l.name +
            ((need & 1) ? " bwd" : " fwd") + " s" + std::to_string(c.pp) + "t" + std::to_string(c.tp),
        [this, iteration, need, start](int r) {
          add_comm(r, iteration, WaitKind::Dp, start, now());
          RankState& rs = state_[static_cast<std::size_t>(r)];
          record(r, iteration).z3_gather_comm += rs.z3_union.add(start, now());
          rs.z3_joined.erase(need);
          rs.z3_done.insert(need);
          changed_[static_cast<std::size_t>(r)]->notify(sc_core::SC_ZERO_TIME);
        });
  }
  const int id = entry->second.first;
  if (--entry->second.second == 0) z3_live_.erase(entry);
  parts_.engine->join(id, rank);
}

void ParallelSync::add_comm(int rank, int iteration, WaitKind kind, std::int64_t from, std::int64_t to) {
  // Completions arrive in time order: a running union in end order.
  record(rank, iteration).comm[static_cast<int>(kind)] +=
      state_[static_cast<std::size_t>(rank)].comm_union[static_cast<int>(kind)].add(from, to);
}

// ---------------------------------------------------------------- accounting

void ParallelSync::fill_comm_all() const {
  // Per rank, the union of all its collectives' [join, done] intervals, each counted in the
  // iteration during which it ended; skipped iterations repeat the period before the skip.
  comm_all_.assign(parts_.gpus.size(), {});
  for (const Gpu* g : parts_.gpus) {
    if (!g) continue;
    std::vector<std::int64_t> ends;
    ends.reserve(g->iterations().size());
    for (const RankIteration& r : g->iterations()) ends.push_back(r.end_ps);
    comm_all_[static_cast<std::size_t>(g->rank())] =
        comm_by_iteration(parts_.engine->intervals(g->rank()), ends, skips_);
  }
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
    for (int i = first; i < first + count; ++i) {
      const ParallelRankIteration copy = record(static_cast<int>(r), skip_source(first, i, period).iteration);
      record(static_cast<int>(r), i) = copy;
    }
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
