#include "models/collectives/engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <limits>

#include "models/collectives/nccl_tuner.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

const ModelInfo& CollectiveEngine::info() {
  // Its records are listed by platform/report (collective_records); without output.collectives
  // only their totals by kind are (collective_totals).
  static const ModelInfo i{
      "collective_engine",
      "Runs collective programs (ring, double binary tree, hierarchical, ... as DAGs of transfers) as real "
      "traffic: each transfer's chunks of fabric.chunk bytes leave through its source's copy engine once its "
      "dependencies have arrived and both ranks have joined; with fabric.nccl.model tuner each pays the latency "
      "and bandwidth of the protocol NCCL 2.18.3's tuner picks (docs/fabric.md#nccls-protocols).",
      {"fabric", "nccl", "retry"},
      "collectives[*]",
      {},
      {{"bytes", "bytes", "the collective's buffer size"},
       {"time_s", "s", "from the first rank's join to the last rank done"},
       {"algbw_GBps", "GB/s", "bytes over time_s (nccl-tests' algbw)"},
       {"busbw_GBps", "GB/s", "algbw times the op's bus factor, e.g. 2(n-1)/n for all_reduce (nccl-tests' busbw)"},
       {"op", "name", "all_reduce, reduce_scatter, all_gather, ...", "a training run (the benchmark lists sizes)"},
       {"algorithm", "name", "ring, tree, hierarchical, ...", "a training run (the benchmark lists sizes)"},
       {"label", "name", "who launched it, e.g. \"ddp it3 bucket7\"", "a training run (the benchmark lists sizes)"},
       {"ranks", "count", "ranks in its communicator", "a training run (the benchmark lists sizes)"},
       {"start_s", "s", "the first rank's join", "a training run (the benchmark lists sizes)"},
       {"end_s", "s", "the last rank done", "a training run (the benchmark lists sizes)"},
       {"protocol", "name", "LL, LL128 or Simple, as NCCL's tuner picks for the size", "fabric.nccl.model tuner"},
       {"failed", "boolean", "abandoned by the transport's give-up", "training.sync.retry"},
       {"abandoned", "boolean", "failed with an earlier step of its unit, not by a give-up of its own",
        "training.sync.retry"}},
      {{"endpoints", "calls ChunkEndpoint",
        "each rank's copy engines (a GPU's dma socket, or its FlowEndpoint in flow fidelity), CXL and aggregator "
        "ports"},
       {"chunk_delivered", "serves ChunkSink", "the receiving endpoints, as each chunk arrives"},
       {"routes", "calls RouteProvider", "the fabric's source routes (ECMP by a hash of the flow)"},
       {"reducers", "calls ReduceDevice", "CXL devices and CPU aggregators, which reduce what they receive"},
       {"launch, join", "serves C++ calls", "synchronization strategies (DDP, layer-wise, hybrid parallelism)"}},
      {},
      {{"call_started", "CollectiveCall: id, rank, record, communicator, start_ps",
        "a GPU rank joined a collective, as an NCCL interposer sees the call (the fail-slow monitor listens)"},
       {"call_ended", "CollectiveCall: the same, with end_ps", "the call returned on that rank (done or given up)"}}};
  return i;
}

CollectiveEngine::CollectiveEngine(sc_core::sc_module_name name, std::vector<ChunkEndpoint*> ranks,
                                   RouteProvider& routes, std::uint64_t chunk, RunContext& ctx)
    : sc_module(name),
      world_(static_cast<int>(ranks.size())),
      routes_(routes),
      chunk_(chunk),
      ctx_(ctx),
      intervals_(ranks.size()) {
  for (ChunkEndpoint* r : ranks) endpoints_.push_back(r), reducers_.push_back(nullptr);
  SC_HAS_PROCESS(CollectiveEngine);
  SC_METHOD(on_tail);
  sensitive << tails_.event() << group_tail_;
  dont_initialize();
  SC_METHOD(on_watchdog);
  sensitive << watchdog_;
  dont_initialize();
  SC_METHOD(on_delayed);
  sensitive << delayed_.event();
  dont_initialize();
  SC_METHOD(decide_groups);
  sensitive << decide_;
  dont_initialize();
}

CompiledProgram::CompiledProgram(Program p) : program(std::move(p)) {
  const std::size_t n = program.transfers.size(), ranks = program.ranks.size();
  if (program.gpu_ranks < 0) program.gpu_ranks = static_cast<int>(ranks);
  for (std::size_t i = 0; i < ranks; ++i) pos[program.ranks[i]] = static_cast<int>(i);
  comm_key = kGoldenGamma;
  for (int r : program.ranks) comm_key = fmix64(comm_key ^ static_cast<std::uint64_t>(r));
  if (ring()) return;
  waiting0.resize(n);
  by_position.resize(ranks);
  src_pos.resize(n);
  dst_pos.resize(n);
  std::vector<int> count(n + 1, 0);
  for (std::size_t x = 0; x < n; ++x) {
    const Transfer& t = program.transfers[x];
    waiting0[x] = static_cast<int>(t.deps.size()) + 2;
    for (int d : t.deps) ++count[static_cast<std::size_t>(d) + 1];
    src_pos[x] = pos.at(t.src);
    dst_pos[x] = pos.at(t.dst);
    by_position[static_cast<std::size_t>(src_pos[x])].push_back(static_cast<int>(x));
    by_position[static_cast<std::size_t>(dst_pos[x])].push_back(static_cast<int>(x));
  }
  dep_begin.assign(n + 1, 0);
  for (std::size_t x = 0; x < n; ++x) dep_begin[x + 1] = dep_begin[x] + count[x + 1];
  dependents.resize(static_cast<std::size_t>(dep_begin[n]));
  std::vector<int> fill(dep_begin.begin(), dep_begin.end() - 1);
  for (std::size_t x = 0; x < n; ++x)
    for (int d : program.transfers[x].deps)
      dependents[static_cast<std::size_t>(fill[static_cast<std::size_t>(d)]++)] = static_cast<int>(x);
}

CompiledProgram::Ref CompiledProgram::at(int x) const {
  if (!ring()) {
    const Transfer& t = program.transfers[static_cast<std::size_t>(x)];
    return {t.src, t.dst, t.bytes, &t};
  }
  const RingTransfer r = ring_transfer(program, x);
  return {r.src, r.dst, r.bytes, nullptr};
}

int CompiledProgram::transfers_of(int position) const {
  // A ring position sends once and receives once per step of every channel.
  return ring() ? 2 * program.ring.steps * program.ring.channels
                : static_cast<int>(by_position[static_cast<std::size_t>(position)].size());
}

int CollectiveEngine::add_device_endpoint(ChunkEndpoint* ep, ReduceDevice* reducer) {
  endpoints_.push_back(ep);
  reducers_.push_back(reducer);
  return static_cast<int>(endpoints_.size() - 1);
}

int CollectiveEngine::launch(std::shared_ptr<const CompiledProgram> cp, CollectiveOp op, CollectiveAlgo algo,
                             std::uint64_t bytes, std::string label, RankDone on_rank_done,
                             std::shared_ptr<const BufferLayout> layout) {
  const int id = static_cast<int>(record_count());
  CollectiveRecord rec;
  rec.id = id;
  rec.op = op;
  rec.algo = algo;
  rec.label = std::move(label);
  rec.bytes = bytes;
  rec.ranks = static_cast<int>(cp->program.ranks.size());
  rec.transfers = cp->size();
  records_.push_back(std::move(rec));

  Live& c = live_.add(id);
  const std::size_t p = cp->program.ranks.size();
  if (cp->ring()) {
    c.join_mark.assign(p, -1);
  } else {
    c.waiting = cp->waiting0;
    c.chunks_left.assign(cp->program.transfers.size(), 0);
  }
  c.left.resize(p);
  for (std::size_t i = 0; i < p; ++i) c.left[i] = cp->transfers_of(static_cast<int>(i));
  c.joined_at.assign(p, -1);
  c.ranks_left = static_cast<int>(p);
  if (on_rank_done) c.on_rank_done = std::make_shared<const RankDone>(std::move(on_rank_done));
  if (functional_) c.layout = std::move(layout);
  c.cp = std::move(cp);
  if (nccl_.on) nccl_protocol(id, c);
  if (flow_) init_groups(c);
  // Devices take part from the start: they act when the GPUs' data reaches them.
  const auto& ranks = c.cp->program.ranks;
  for (std::size_t i = static_cast<std::size_t>(c.cp->program.gpu_ranks); i < ranks.size(); ++i) join(id, ranks[i]);
  return id;
}

void CollectiveEngine::join(int id, int rank) {
  Live* found = live_.find(id);
  if (!found) return;  // already complete everywhere
  Live& c = *found;
  const int position = c.cp->position_of(rank);
  if (c.joined_at[static_cast<std::size_t>(position)] >= 0) return;
  c.joined_at[static_cast<std::size_t>(position)] = now_ps();
  CollectiveRecord& rec = this->rec(id);
  if (rec.start_ps < 0 && position < c.cp->program.gpu_ranks) rec.start_ps = now_ps();
  if (position < c.cp->program.gpu_ranks && !call_started.empty())
    call_started({id, rank, &rec, c.cp->program.ranks.data(), c.cp->program.gpu_ranks, now_ps(), -1});
  if (c.left[static_cast<std::size_t>(position)] == 0) {  // nothing to do here (a single rank)
    finish_rank(id, c, position);
    return;
  }
  // Keep the program alive here: a transfer can finish the collective only later, via the fabric.
  std::shared_ptr<const CompiledProgram> cp = c.cp;
  if (cp->ring()) {
    join_ring(id, cp, position);
    return;
  }
  for (int x : cp->by_position[static_cast<std::size_t>(position)]) {
    Live* again = live_.find(id);  // zero-byte transfers may finish the collective synchronously
    if (!again) return;
    if (--again->waiting[static_cast<std::size_t>(x)] == 0) ready(id, *again, x);
  }
}

// The explicit form's join loop, over the ring's transfers of position `j` in index order: per
// channel (in order), at step t, (t, k - 1) (j receives) and (t, k) (j sends) for j's ring position
// k in that channel, the lower index first.
void CollectiveEngine::join_ring(int id, std::shared_ptr<const CompiledProgram> cp, int j) {
  const RingForm& f = cp->program.ring;
  const int p = static_cast<int>(cp->program.ranks.size()), steps = f.steps, per = f.per_channel(p);
  for (int ch = 0; ch < f.channels; ++ch) {
    const int k = f.ring_position(ch, j), a = (k + p - 1) % p, base = ch * per;
    for (int t = 0; t < steps; ++t) {
      for (int x : {base + t * p + std::min(a, k), base + t * p + std::max(a, k)}) {
        Live* found = live_.find(id);  // zero-byte transfers may finish the collective synchronously
        if (!found) return;
        Live& c = *found;
        c.join_mark[static_cast<std::size_t>(j)] = x;
        const int i = x % p, other = f.position(ch, i == k ? (i + 1) % p : i);
        if (c.join_mark[static_cast<std::size_t>(other)] < x) continue;
        if (t > 0 && !c.dep_arrived.erase(static_cast<std::uint64_t>(x))) continue;
        ready(id, c, x);
      }
    }
  }
  if (Live* c = live_.find(id)) c->join_mark[static_cast<std::size_t>(j)] = std::numeric_limits<int>::max();
}

// Transfer d of a ring arrived: its dependent starts if both its endpoints count as joined.
void CollectiveEngine::ring_dep_arrived(int id, Live& c, int d) {
  const RingForm& f = c.cp->program.ring;
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = f.per_channel(p), ch = d / per, y = d % per;
  const int next = y + p - y % p + (y % p + 1) % p, i = next % p;  // step + 1, ring position + 1
  if (next / p >= f.steps) return;
  const int x = ch * per + next;
  const auto from = static_cast<std::size_t>(f.position(ch, i)),
             to = static_cast<std::size_t>(f.position(ch, (i + 1) % p));
  if (c.join_mark[from] >= x && c.join_mark[to] >= x) ready(id, c, x);
  else c.dep_arrived[static_cast<std::uint64_t>(x)] = true;
}

std::uint32_t& CollectiveEngine::chunks_left(Live& c, int x) {
  return c.cp->ring() ? c.ring_chunks_left[static_cast<std::uint64_t>(x)] : c.chunks_left[static_cast<std::size_t>(x)];
}

bool CollectiveEngine::rank_done(int id, int rank) const {
  const Live* found = live_.find(id);
  if (!found) return true;
  const Live& c = *found;
  int position = c.cp->pos.at(rank);
  return c.joined_at[static_cast<std::size_t>(position)] >= 0 && c.left[static_cast<std::size_t>(position)] == 0;
}

void CollectiveEngine::set_background(int id) {
  Live* c = live_.find(id);
  if (!c || c->moving > 0) throw std::logic_error("set_background: the collective has started moving");
  c->background = true;
}

void CollectiveEngine::ready(int id, Live& c, int x) {
  if (!c.background) ++c.moving, ++moving_;
  const CompiledProgram::Ref t = c.cp->at(x);
  if (t.full && t.full->reduce_contributors > 0) {
    ReduceData data;
    if (c.layout) data = {id, t.full->data.offset, t.full->reduce_slots};
    reducers_.at(static_cast<std::size_t>(t.src))
        ->reduce(
            t.bytes, t.full->reduce_contributors,
            [this, id, x] {
              if (Live* c = live_.find(id)) arrived(id, *c, x);
            },
            std::move(data));
    return;
  }
  if (t.bytes == 0) {
    arrived(id, c, x);
    return;
  }
  if (!c.groups.empty() && group_ready(id, c, x)) return;
  dispatch(id, c, x);
}

// NCCL's per-hop latency between src and dst (0 without its costs).
std::int64_t CollectiveEngine::hop_delay(const Live& c, int src, int dst) const {
  if (c.intra_hop_ps == 0 && c.inter_hop_ps == 0) return 0;  // no NCCL costs (node_of is empty then)
  const bool same_node = src < world_ && dst < world_ &&
                         nccl_.node_of[static_cast<std::size_t>(src)] == nccl_.node_of[static_cast<std::size_t>(dst)];
  return same_node ? c.intra_hop_ps : c.inter_hop_ps;
}

void CollectiveEngine::delay_send(const DelayedSend& what, std::int64_t delay_ps, std::uint64_t seq) {
  DelayedSend* d;
  if (delayed_free_.empty()) {
    d = &delayed_pool_.emplace_back(what);
  } else {
    d = delayed_free_.back();
    delayed_free_.pop_back();
    *d = what;
  }
  delayed_.notify(d, delay_ps, seq);
}

void CollectiveEngine::dispatch(int id, Live& c, int x, std::uint64_t seq) {
  const CompiledProgram::Ref t = c.cp->at(x);
  // A transfer held for a ring step's grouping at this source was ready first: it leaves first.
  if (!undecided_.empty() && static_cast<std::size_t>(t.src) < held_from_.size() &&
      held_from_[static_cast<std::size_t>(t.src)] > 0 && (seq == kReadyNow || held_before(t.src, seq)))
    decide_groups();
  if (c.wire_per_byte > 1 || c.intra_hop_ps > 0 || c.inter_hop_ps > 0 || c.base_ps > 0) {
    // NCCL's per-hop latency of the step, and its base latency before the first step.
    std::int64_t delay = hop_delay(c, t.src, t.dst);
    const bool first_step = c.cp->ring()
                                ? (x % c.cp->program.ring.per_channel(static_cast<int>(c.cp->program.ranks.size()))) <
                                      static_cast<int>(c.cp->program.ranks.size())
                                : c.cp->waiting0[static_cast<std::size_t>(x)] == 2;
    if (first_step) delay += c.base_ps;
    if (delay > 0) {
      delay_send(DelayedSend{id, x}, delay, seq == kReadyNow ? ready_seq_++ : seq);
      return;
    }
  }
  send(id, c, x);
}

void CollectiveEngine::on_delayed() {
  in_delayed_ = true;
  while (DelayedSend* d = delayed_.get_next()) {
    const int id = d->id, x = d->x;
    delayed_free_.push_back(d);
    Live* c = live_.find(id);
    if (!(c && x < 0)) flush_group_sends();      // a run of grouped steps ends here
    if (c && x < 0) send_group(id, *c, -1 - x);  // a grouped ring step: x is -1 - its channel
    else if (c && !failed_.count(id)) send(id, *c, x);
  }
  flush_group_sends();
  in_delayed_ = false;
}

// NCCL's tuner on the collective (nccl_tuner.hpp): a ring or tree of GPUs only. Its bus bandwidth
// bound is the slowest GPU's link into the node when it stays in one, else a NIC per channel.
void CollectiveEngine::nccl_protocol(int id, Live& c) {
  CollectiveRecord& r = rec(id);
  const Program& pr = c.cp->program;
  if (r.algo == CollectiveAlgo::Nvls) {  // one node's GPUs and its NVLS unit
    double nvlink = 0;
    for (int i = 0; i < pr.gpu_ranks; ++i) {
      const double b = nccl_.nvlink_Bps[static_cast<std::size_t>(pr.ranks[static_cast<std::size_t>(i)])];
      nvlink = nvlink == 0 ? b : std::min(nvlink, b);
    }
    const NcclChoice k = nccl_nvls(pr.gpu_ranks, nvlink, static_cast<double>(r.bytes));
    r.protocol = nccl_protocol_name(k.protocol);
    c.base_ps = std::llround(k.base_latency_s * 1e12);
    c.wire_per_byte = 1.0 / k.bandwidth_factor;
    return;
  }
  if ((r.algo != CollectiveAlgo::Ring && r.algo != CollectiveAlgo::Tree) ||
      pr.gpu_ranks != static_cast<int>(pr.ranks.size()) || pr.ranks.size() < 2 || c.layout)
    return;
  if (r.op != CollectiveOp::AllReduce && r.op != CollectiveOp::ReduceScatter && r.op != CollectiveOp::AllGather &&
      r.op != CollectiveOp::Broadcast && r.op != CollectiveOp::Reduce)
    return;
  std::vector<int> nodes;
  double intra = 0;
  for (int g : pr.ranks) {
    nodes.push_back(nccl_.node_of[static_cast<std::size_t>(g)]);
    const double b = nccl_.intra_Bps[static_cast<std::size_t>(g)];
    intra = intra == 0 ? b : std::min(intra, b);
  }
  std::sort(nodes.begin(), nodes.end());
  const int n_nodes = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  NcclTunerInput in;
  in.tree = r.algo == CollectiveAlgo::Tree;
  in.all_reduce = r.op == CollectiveOp::AllReduce;
  in.ranks = static_cast<int>(pr.ranks.size());
  in.nodes = n_nodes;
  in.bytes = static_cast<double>(r.bytes);
  in.bus_bw = n_nodes == 1 ? intra : nccl_.inter_Bps * (c.cp->ring() ? pr.ring.channels : 1);
  in.channels = nccl_.channels;
  in.hopper = nccl_.hopper;
  const NcclChoice k = nccl_tune(in);
  r.protocol = nccl_protocol_name(k.protocol);
  c.base_ps = std::llround(k.base_latency_s * 1e12);
  c.intra_hop_ps = std::llround(k.intra_hop_s * 1e12);
  c.inter_hop_ps = std::llround(k.inter_hop_s * 1e12);
  c.wire_per_byte = 1.0 / k.bandwidth_factor;
}

// ECMP hashes the connection, not the collective: NCCL opens a queue pair per peer and channel
// when the communicator is created and every collective reuses it, and a RoCE switch hashes its
// 5-tuple, so a connection keeps one path for the job's life, iteration after iteration (and a
// collision between two connections persists).
const Route& CollectiveEngine::route_of(const Live& c, int x) const {
  const CompiledProgram::Ref t = c.cp->at(x);
  std::uint64_t conn =
      c.cp->comm_key ^ (static_cast<std::uint64_t>(t.src) << 40) ^ (static_cast<std::uint64_t>(t.dst) << 20);
  if (c.cp->ring() && c.cp->program.ring.channels > 1)
    conn ^=
        static_cast<std::uint64_t>(x / c.cp->program.ring.per_channel(static_cast<int>(c.cp->program.ranks.size()))) *
        kGoldenGamma;
  else if (t.full && t.full->stream > 0) conn ^= static_cast<std::uint64_t>(t.full->stream) * kGoldenGamma;
  return routes_.route(t.src, t.dst, static_cast<std::uint32_t>(fmix64(conn)));
}

void CollectiveEngine::send(int id, Live& c, int x) {
  const CompiledProgram::Ref t = c.cp->at(x);
  // One flow per (collective, src, dst): its chunks share FIFOs, and ECMP picks its path.
  std::uint64_t key = (static_cast<std::uint64_t>(id) << 40) ^ (static_cast<std::uint64_t>(t.src) << 20) ^
                      static_cast<std::uint64_t>(t.dst);
  // Channels of one ring are flows of their own (NCCL: a connection per channel); channel 0 keeps
  // the key a single ring has always had.
  if (c.cp->ring() && c.cp->program.ring.channels > 1)
    key ^=
        static_cast<std::uint64_t>(x / c.cp->program.ring.per_channel(static_cast<int>(c.cp->program.ranks.size()))) *
        kGoldenGamma;
  else if (t.full && t.full->stream > 0)  // an explicit program's channels (NVLS)
    key ^= static_cast<std::uint64_t>(t.full->stream) * kGoldenGamma;
  const std::uint32_t flow = static_cast<std::uint32_t>(fmix64(key));
  const Route* route = &route_of(c, x);
  if (pair_bytes_)
    (*pair_bytes_)[(static_cast<std::uint64_t>(t.src) << 32) | static_cast<std::uint32_t>(t.dst)] += t.bytes;
  // The protocol's bytes on the wire (LL's flags, LL128's line headers, the per-channel caps).
  const std::uint64_t wire =
      c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                          : t.bytes;
  const std::uint32_t chunks = static_cast<std::uint32_t>((wire + chunk_ - 1) / chunk_);
  chunks_left(c, x) = chunks;
  // Only a collective whose owner answers its failure is watched: the others (TP, PP and ZeRO
  // traffic, checkpoint bursts) have no retry, and failing them would stall their ranks (#45).
  if (give_up_ps_ > 0 && c.on_failed) watch(c, x);
  rec(id).chunks += chunks;
  const DataRange* range = t.full ? &t.full->data : &c.cp->no_data;
  ChunkEndpoint* src = endpoints_[static_cast<std::size_t>(t.src)];
  for (std::uint64_t off = 0; off < wire; off += chunk_) {
    ChunkPayload* p = pool_.acquire();
    ChunkExt* e = &p->chunk;
    e->route = route;
    e->hop = 0;
    e->flow = flow;
    e->payload_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_, wire - off));
    e->more = off + e->payload_bytes < wire;
    e->tag = (static_cast<std::uint64_t>(id) << 32) | static_cast<std::uint32_t>(x);
    e->tail_ps = now_ps();  // the data is all in the source GPU's memory
    e->sink = this;
    e->pfc = nullptr;  // pooled: counted at no port yet
    p->set_command(tlm::TLM_WRITE_COMMAND);
    p->set_address(off);
    // Functional mode: the chunk carries its values; a GPU's come from its gradients, a device
    // port reads its own from the device's window when it sends.
    e->data = c.layout ? range : nullptr;
    e->collective = c.layout ? id : -1;
    if (c.layout) {
      e->bytes.resize(e->payload_bytes);
      p->set_data_ptr(e->bytes.data());
      if (t.src < world_) functional_->fill(*c.layout, t.src, *range, off, e->payload_bytes, e->bytes.data());
    }
    p->set_data_length(e->payload_bytes);
    p->set_streaming_width(e->payload_bytes);
    src->send_chunk(p);
  }
}

void CollectiveEngine::chunk_delivered(tlm::tlm_generic_payload& p) {
  // The destination took the chunk when its head arrived; it is complete when its tail has.
  std::int64_t wait = chunk_of(p)->tail_ps - now_ps();
  tails_.notify(&p, std::max<std::int64_t>(0, wait));
}

void CollectiveEngine::on_tail() {
  // Grouped arrivals first, as when they reached the engine in the network's delivery itself, a
  // delta before the tails delivered in the same instant (fuzz-runs campaign 105, scenario 9858:
  // after them, a TP ring's channels arrived out of their send order).
  if (!group_tails_.empty()) group_tails();
  while (tlm::tlm_generic_payload* p = tails_.get_next()) {
    ChunkExt* e = chunk_of(*p);
    int id = static_cast<int>(e->tag >> 32), x = static_cast<int>(e->tag & 0xffffffffu);
    Live* found = live_.find(id);
    if (!found) {
      if (!failed_.count(id)) throw RunError("collective engine: a chunk arrived for a finished collective");
      p->release();  // a given-up collective's chunk drained from the fabric
      // Background collectives never fail (no retry is watched on them), so every drained chunk
      // was counted in draining_ by fail().
      if (draining_ > 0 && --draining_ == 0 && moving_ == 0) quiet_.notify(sc_core::SC_ZERO_TIME);
      continue;
    }
    Live& c = *found;
    if (e->data) {
      const int dst = c.cp->at(x).dst;
      if (dst < world_ && functional_->failure().empty() &&
          !functional_->check(*c.layout, endpoints_[static_cast<std::size_t>(dst)]->endpoint_name(), *e->data,
                              p->get_address(), e->payload_bytes, p->get_data_ptr()))
        sc_core::sc_stop();  // the run cannot be trusted past a wrong sum
    }
    p->release();  // the engine's reference; the fabric's hops released theirs
    if (give_up_ps_ > 0) progressed(c, x, chunks_left(c, x) == 1);
    if (--chunks_left(c, x) == 0) {
      if (c.cp->ring()) c.ring_chunks_left.erase(static_cast<std::uint64_t>(x));
      arrived(id, c, x);
    }
  }
}

void CollectiveEngine::arrived(int id, Live& c, int x) {
  std::shared_ptr<const CompiledProgram> cp = c.cp;  // `c` may be erased when the last rank finishes
  // Counted off first: the dependents this arrival readies count themselves on again before the
  // event's delta, so quiet_ is checked only once the delta's work is done.
  if (!c.background) {
    --c.moving;
    if (--moving_ == 0) quiet_.notify(sc_core::SC_ZERO_TIME);
  }
  if (cp->ring()) {
    ring_dep_arrived(id, c, x);  // `c` is live: callers pass it just found
  } else {
    // Zero-byte transfers arrive synchronously and may finish the collective: look it up each time.
    for (int k = cp->dep_begin[static_cast<std::size_t>(x)]; k < cp->dep_begin[static_cast<std::size_t>(x) + 1]; ++k) {
      Live* c = live_.find(id);
      if (!c) return;
      int d = cp->dependents[static_cast<std::size_t>(k)];
      if (--c->waiting[static_cast<std::size_t>(d)] == 0) ready(id, *c, d);
    }
  }
  const std::pair<int, int> ends = cp->positions(x);
  for (int position : {ends.first, ends.second}) {
    Live* c = live_.find(id);
    if (!c) return;
    if (--c->left[static_cast<std::size_t>(position)] == 0) finish_rank(id, *c, position);
  }
}

void CollectiveEngine::finish_rank(int id, Live& c, int position) {
  const int rank = c.cp->program.ranks[static_cast<std::size_t>(position)];
  const std::int64_t now = now_ps();
  const bool gpu = position < c.cp->program.gpu_ranks;
  if (gpu && keep_intervals_)
    intervals_[static_cast<std::size_t>(rank)].push_back({c.joined_at[static_cast<std::size_t>(position)], now});
  ++ctx_.events;
  std::shared_ptr<const RankDone> cb = gpu ? c.on_rank_done : nullptr;
  if (gpu && !call_ended.empty())
    call_ended({id, rank, &rec(id), c.cp->program.ranks.data(), c.cp->program.gpu_ranks,
                c.joined_at[static_cast<std::size_t>(position)], now});
  if (--c.ranks_left == 0) {
    if (c.layout)  // the devices' window data of this collective may go
      for (std::size_t i = static_cast<std::size_t>(c.cp->program.gpu_ranks); i < c.cp->program.ranks.size(); ++i)
        reducers_[static_cast<std::size_t>(c.cp->program.ranks[i])]->release(id);
    rec(id).end_ps = now;
    live_.erase(id);
  }
  if (cb) (*cb)(rank);
}

std::int64_t CollectiveEngine::earliest_open_join(int rank) const {
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  live_.for_each([&](int, const Live& c) {
    const auto p = c.cp->pos.find(rank);
    if (p == c.cp->pos.end()) return;
    const auto i = static_cast<std::size_t>(p->second);
    if (c.joined_at[i] >= 0 && c.left[i] > 0) earliest = std::min(earliest, c.joined_at[i]);
  });
  return earliest;
}

bool CollectiveEngine::rank_idle(int rank) const {
  bool idle = true;
  live_.for_each([&](int, const Live& c) {
    auto it = c.cp->pos.find(rank);
    if (it == c.cp->pos.end()) return;
    const auto p = static_cast<std::size_t>(it->second);
    if (c.joined_at[p] < 0 || c.left[p] > 0) idle = false;
  });
  return idle;
}

void CollectiveEngine::repeat_intervals(std::int64_t since_ps, int times, std::int64_t period_ps) {
  if (!keep_intervals_) return;
  for (auto& list : intervals_) {
    const std::size_t n = list.size();
    for (int m = 1; m <= times; ++m)
      for (std::size_t i = 0; i < n; ++i)
        if (list[i].start >= since_ps) list.push_back({list[i].start + m * period_ps, list[i].end + m * period_ps});
  }
}

const CollectiveRecord& CollectiveEngine::record(std::size_t id) const {
  if (id < first_) throw std::out_of_range("collective record " + std::to_string(id) + " was folded");
  return records_.at(id - first_);
}

std::size_t CollectiveEngine::fold(std::size_t upto, const std::function<bool(const std::string&)>& summed,
                                   const std::function<void(const CollectiveRecord&)>& add) {
  std::size_t n = 0;
  while (!records_.empty() && first_ < upto) {
    const CollectiveRecord& r = records_.front();
    if (r.end_ps < 0 || r.failed || !summed(r.label)) break;
    add(r);
    records_.pop_front();
    ++first_, ++n;
  }
  return n;
}

void CollectiveEngine::repeat_listed(const std::vector<std::size_t>& which, int times, std::int64_t period_ps,
                                     const std::function<std::string(const std::string&, int)>& relabel) {
  for (int m = 1; m <= times; ++m)
    for (std::size_t i : which) {
      CollectiveRecord r = record(i);
      r.id = static_cast<int>(record_count());
      r.start_ps += m * period_ps;
      r.end_ps += m * period_ps;
      r.label = relabel(r.label, m);
      records_.push_back(std::move(r));
    }
}

std::string CollectiveEngine::describe(int id, int rank) const {
  const CollectiveRecord& rec = record(static_cast<std::size_t>(id));
  std::string s = std::string(op_name(rec.op)) + " \"" + rec.label + "\"";
  const Live* found = live_.find(id);
  if (!found) return s + " (complete)";
  const Live& c = *found;
  std::string missing;
  int count = 0;
  for (std::size_t i = 0; i < c.joined_at.size(); ++i)
    if (c.joined_at[i] < 0) {
      if (count++ < 8)
        missing += (missing.empty() ? "" : ", ") +
                   std::string(endpoints_[static_cast<std::size_t>(c.cp->program.ranks[i])]->endpoint_name());
    }
  if (count) return s + ", which ranks have not joined: " + missing + (count > 8 ? " ..." : "");
  int position = c.cp->pos.at(rank);
  return s + ", " + std::to_string(c.left[static_cast<std::size_t>(position)]) + " transfers of this rank in flight";
}

void CollectiveEngine::count_pairs() {
  if (!pair_bytes_) pair_bytes_ = std::make_unique<FlatMap64<std::uint64_t>>();
}

}  // namespace trainvp
