#include "models/link/flow_network.hpp"

#include <algorithm>
#include <cmath>

#include "models/link/chunk.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

const ModelInfo& FlowNetwork::info() {
  // Its statistics are the link directions' entries, integrated from the flows' rates
  // (set_flow_stats); packet fidelity's queue and loss statistics have no counterpart here.
  static const ModelInfo i{
      "flow_network",
      "The fabric at flow fidelity (fabric.fidelity flow or auto above 512 GPUs): each transfer one flow along its "
      "route at its max-min fair share of the link directions it crosses, a source's queued transfers taking "
      "capacity in send order; a link's capacity is its payload rate, bandwidth x mtu / (mtu + framing). No queues, "
      "back-pressure or packet events (docs/fabric.md#flow-fidelity).",
      {"fabric", "nvlink", "pcie"},
      "links[*]",
      {},
      {{"bytes", "bytes", "payload bytes its flows carried over the direction"},
       {"wire_bytes", "bytes", "bytes on the wire: the payload framed into mtu-sized packets"},
       {"chunks", "count", "collective chunks carried"},
       {"busy_s", "s", "time with flows on the direction, weighted by the share of its capacity they use"},
       {"utilization", "fraction", "busy_s over the simulated time"},
       {"background_bytes", "bytes", "bytes of paced background flows (congestion faults)"}},
      {{"submit", "serves ChunkEndpoint (a FlowEndpoint per GPU)",
        "the collective engine's chunks, in place of the GPU's dma socket"},
       {"start, stop", "serves C++ calls", "paced traffic sources (congestion faults)"},
       {"link_changed", "serves C++ calls", "faults changing a direction's bandwidth, latency, loss or down state"},
       {"links", "calls LinkState (parameters, set_flow_stats)", "the fabric's link directions, which report for it"}}};
  return i;
}

FlowNetwork::FlowNetwork(sc_core::sc_module_name name, std::vector<LinkState*> links, EventCalendar& calendar)
    : sc_module(name), calendar_(calendar) {
  links_.resize(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    links_[i].dir = links[i];
    read_link(links_[i]);
  }
  SC_HAS_PROCESS(FlowNetwork);
  SC_METHOD(recompute);
  sensitive << recompute_ev_;
  dont_initialize();
}

void FlowNetwork::on_due(std::uint32_t kind, std::uint32_t tag) {
  if (kind == kFinish) {
    if (tag == finish_tag_) on_finish();
  } else if (tag == deliver_tag_) {
    on_deliver();
  }
}

// Payload bytes per ps: the wire rate less framing, less the go-back-N recoveries' share of link
// time at the loss rate (each loss costs the window LinkDir::draw_losses charges), 0 when down.
void FlowNetwork::read_link(Link& l) {
  const LinkState& d = *l.dir;
  const LinkDirParams& p = d.params();
  l.hop_latency_ps = static_cast<double>(p.latency_ps + d.extra_latency_ps());
  l.packet_ps = static_cast<double>(d.packet_wire(p.mtu)) * 8.0 / p.bandwidth_bps * 1e12;
  l.mtu = p.mtu;
  l.overhead = p.overhead;
  l.whole_packets = p.whole_packets;
  if (d.down() || p.bandwidth_bps <= 0) {
    l.cap = 0;
    return;
  }
  const double packet_ps = static_cast<double>(p.mtu + p.overhead) * 8.0 / p.bandwidth_bps * 1e12;
  const double window_ps = 2.0 * (packet_ps + static_cast<double>(p.latency_ps + d.extra_latency_ps()));
  const double efficiency = packet_ps / (packet_ps + d.loss_rate() * window_ps);
  l.cap = p.bandwidth_bps / 8.0 * 1e-12 * p.mtu / (p.mtu + p.overhead) * efficiency;
}

// Latencies plus one packet time per hop but the slowest one (that one's serialization is the
// flow's own drain time): a cut-through path's head start over store-and-forward of the bottleneck.
std::int64_t FlowNetwork::path_latency(const std::vector<int>& links, double first_bytes, double* largest_mtu) const {
  double sum = 0, slowest = 0, mtu = 0;
  for (int id : links) {
    const Link& l = links_[static_cast<std::size_t>(id)];
    mtu = std::max(mtu, static_cast<double>(l.mtu));
    double packet = l.packet_ps;  // a first chunk of a packet or more, as nearly always
    if (first_bytes < l.mtu) {
      const LinkState& d = *l.dir;
      packet = static_cast<double>(d.packet_wire(static_cast<std::uint32_t>(std::max(1.0, first_bytes)))) * 8.0 /
               d.params().bandwidth_bps * 1e12;
    }
    sum += l.hop_latency_ps + packet;
    slowest = std::max(slowest, packet);
  }
  if (largest_mtu) *largest_mtu = mtu;
  return std::llround(sum - slowest);
}

void FlowNetwork::dirty(int link) {
  dirty_links_.push_back(link);
  if (!recompute_pending_) {
    recompute_pending_ = true;
    recompute_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

int FlowNetwork::start(const std::vector<int>& links, double bytes, double rate_cap_Bps, Done done, bool background) {
  split_groups_on(links);
  const int id = create(links, bytes, rate_cap_Bps, std::move(done), background);
  activate(id);
  return id;
}

int FlowNetwork::create(const std::vector<int>& links, double bytes, double rate_cap_Bps, Done done, bool background,
                        const Route* route) {
  int id;
  if (!free_.empty()) id = free_.back(), free_.pop_back();
  else id = static_cast<int>(flows_.size()), flows_.emplace_back();
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.links = &links;
  f.born = born_++;
  f.slot.assign(links.size(), 0);
  f.remaining = f.total = bytes;
  f.sent = 0;
  f.rate = 0;
  f.cap = rate_cap_Bps > 0 ? rate_cap_Bps * 1e-12 : 0;
  if (route && route->flow_latency_version == latency_version_ && bytes >= route->flow_latency_min_bytes) {
    f.latency = route->flow_latency_ps;
  } else {
    double mtu = 0;
    f.latency = path_latency(links, bytes, &mtu);
    if (route && bytes >= mtu) {  // full packets on every hop: the same for every such transfer
      route->flow_latency_ps = f.latency;
      route->flow_latency_min_bytes = mtu;
      route->flow_latency_version = latency_version_;
    }
  }
  f.live = true;
  f.background = background;
  f.open = false;
  f.fifo = f.fifo_prev = f.fifo_next = -1;
  f.level = 0;
  f.waiting = false;
  f.group_chunks = f.group_chunk = 0;
  f.owner = route ? route->owner : -1;
  f.members = nullptr;
  f.member = -1;
  f.member_done = nullptr;
  f.held = f.keep = f.delivering = false;
  f.ended.clear();
  f.ahead = 0;
  f.cut = nullptr;
  f.own_links.reset();
  f.chunks.clear();
  f.done = std::move(done);
  ++active_;
  return id;
}

// The flow joins its links from now on.
void FlowNetwork::activate(int id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.updated = now_ps();
  const std::vector<int>& links = *f.links;
  for (std::size_t k = 0; k < links.size(); ++k) {
    Link& l = links_[static_cast<std::size_t>(links[k])];
    f.slot[k] = static_cast<int>(l.flows.size());
    l.flows.push_back({id, static_cast<int>(k)});
    dirty(links[k]);
  }
  if (links.empty()) {  // nothing to cross: done at once (as a zero-hop path)
    finishes_.set(id, now_ps(), seq_++);
    reschedule();
  }
}

int FlowNetwork::start_group(const std::vector<int>& links, const std::vector<const std::vector<int>*>& members,
                             double bytes, std::int64_t latency_ps, std::uint32_t chunk_bytes, std::uint32_t chunks,
                             int owner, MemberDone done, bool keep, Ahead ahead) {
  const int id = create(links, bytes, 0, nullptr, false);
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (keep) {  // its own copy: it stays on them after the caller's step, which may drop its vector
    f.own_links = std::make_unique<std::vector<int>>(links);
    f.links = f.own_links.get();
    f.held = f.keep = true;
  }
  f.latency = latency_ps;
  f.group_chunks = chunks;
  f.group_chunk = chunk_bytes;
  f.owner = owner;
  f.members = &members;
  f.member_done = std::move(done);
  born_ += members.size();  // its members' places in creation order, should it split (split())
  ++live_groups_;
  // Alone on its links (the engine checked): its max-min rate is its bottleneck's capacity, what a
  // recompute of its component would find, set here without one.
  f.updated = f.step_from = now_ps();
  f.rate = bottleneck(links);
  for (std::size_t k = 0; k < links.size(); ++k) {
    Link& l = links_[static_cast<std::size_t>(links[k])];
    integrate(l, f.updated);
    f.slot[k] = static_cast<int>(l.flows.size());
    l.flows.push_back({id, static_cast<int>(k)});
    l.load = f.rate;
  }
  if (keep && ahead.steps > 0) run_ahead(id, std::move(ahead));
  else if (f.rate > 0)
    finishes_.set(id, f.updated + static_cast<std::int64_t>(std::min(std::ceil(f.remaining / f.rate), 4e18)), seq_++);
  reschedule();
  return id;
}

// The kept group's next step, as start_group would start it on the same idle links: its links
// keep the rate they had (nothing joined or changed them, else it would have been released), so
// nothing but its own end is touched. Its last step's interval waits in `ended`.
bool FlowNetwork::next_step(int id, std::uint64_t born, const std::vector<const std::vector<int>*>& members,
                            double bytes, std::int64_t latency_ps, std::uint32_t chunk_bytes, std::uint32_t chunks,
                            MemberDone done, bool keep, Ahead ahead) {
  if (id < 0 || static_cast<std::size_t>(id) >= flows_.size()) return false;
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (f.born != born || !f.held || f.live || f.delivering || f.total != bytes || f.latency != latency_ps ||
      f.group_chunk != chunk_bytes || f.group_chunks != chunks || !(f.rate > 0))
    return false;
  f.live = true;
  ++active_;
  f.born = born_++;  // in creation order as this step's members would be (the caller takes the new born)
  born_ += members.size();
  f.remaining = f.total;
  f.sent = 0;
  f.updated = f.step_from = now_ps();
  f.keep = keep;
  f.members = &members;
  f.member_done = std::move(done);
  if (keep && ahead.steps > 0) run_ahead(id, std::move(ahead));
  else
    finishes_.set(id, f.updated + static_cast<std::int64_t>(std::min(std::ceil(f.remaining / f.rate), 4e18)), seq_++);
  reschedule();
  return true;
}

// The step just started (step_from) and `ahead.steps` more, alike, each as next_step would start
// it when the last one's data has arrived and NCCL's hop latency passed: the same drain, latency
// and gap every time, so the run's end is known now and is the only entry in the heap.
void FlowNetwork::run_ahead(int id, Ahead ahead) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (!(f.rate > 0)) return;  // no end until a link changes, as a step alone (no run-ahead)
  const double drain = std::ceil(f.remaining / f.rate);
  const double period = drain + static_cast<double>(f.latency) + static_cast<double>(ahead.hop_ps);
  if (drain >= 4e18 || static_cast<double>(f.updated) + static_cast<double>(ahead.steps) * period + drain >= 4e18) {
    finishes_.set(id, f.updated + static_cast<std::int64_t>(std::min(drain, 4e18)), seq_++);  // no run-ahead
    return;
  }
  f.drain_ps = static_cast<std::int64_t>(drain);
  f.ahead = ahead.steps;
  f.hop_ps = ahead.hop_ps;
  f.cut = std::move(ahead.cut);
  finishes_.set(id, f.updated + f.ahead * (f.drain_ps + f.latency + f.hop_ps) + f.drain_ps, seq_++);
}

// Group `gid` running ahead, at time t: its steps that ended by then go to `ended`, and it is left
// as the steps one by one would have left it: on the wire with step k (t before its drain's end),
// step k drained and its data on the way (then as finish() at that end left it), or between steps k
// and k + 1 (kept, idle). `tell`: the caller is told how far it came (a touch before the run's end;
// at the run's end itself the caller's done(-1) says it).
void FlowNetwork::end_ahead(int gid, std::int64_t t, bool tell) {
  Flow& f = flows_[static_cast<std::size_t>(gid)];
  const int n = f.ahead + 1;
  const std::int64_t period = f.drain_ps + f.latency + f.hop_ps, base = f.step_from;
  const int k = t <= base ? 0 : static_cast<int>(std::min<std::int64_t>(n - 1, (t - base) / period));
  for (int j = 0; j < k; ++j) {
    f.ended.push_back(base + j * period);
    f.ended.push_back(base + j * period + f.drain_ps);
  }
  const std::int64_t start = base + k * period, end = start + f.drain_ps, arrival = end + f.latency;
  auto cut = std::move(f.cut);
  f.cut = nullptr;
  f.ahead = 0;
  f.keep = k < n - 1;
  f.step_from = f.updated = start;
  f.remaining = f.total;
  f.sent = 0;
  if (t < end) {  // step k on the wire
    finishes_.set(gid, end, seq_++);
    reschedule();
    if (tell && cut) cut(k, true, -1);
  } else if (t < arrival) {  // step k drained at `end`, its data on the way
    if (tell && cut) cut(k, true, -1);
    finish(gid, end);
  } else {  // between steps k and k + 1 (k < n - 1: the run's last end is its heap entry)
    end_kept_step(gid, start, end);
    reschedule();
    if (tell && cut) cut(k + 1, false, arrival + f.hop_ps);
  }
}

// A kept group's step [from, to) ended: noted for its links, the group drained and off the heap.
void FlowNetwork::end_kept_step(int id, std::int64_t from, std::int64_t to) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.ended.push_back(from);
  f.ended.push_back(to);
  f.sent = f.total;
  f.remaining = 0;
  f.live = false;
  finishes_.erase(id);
  --active_;
}

void FlowNetwork::cut_ahead() {
  const std::int64_t now = now_ps();
  for (std::size_t i = 0; i < flows_.size(); ++i)
    if (flows_[i].ahead > 0) end_ahead(static_cast<int>(i), now, true);
}

double FlowNetwork::bottleneck(const std::vector<int>& links) const {
  double cap = std::numeric_limits<double>::infinity();
  for (int l : links) cap = std::min(cap, links_[static_cast<std::size_t>(l)].cap);
  return cap;
}

bool FlowNetwork::alone(const std::vector<int>& links) {
  ++epoch_;  // the marks recompute() uses: it moves the epoch on itself
  for (int l : links) {
    Link& k = links_[static_cast<std::size_t>(l)];
    if (kept(k) && flows_[static_cast<std::size_t>(k.flows[0].flow)].ahead > 0)
      end_ahead(k.flows[0].flow, now_ps(), true);  // a run-ahead between steps is released below, as a kept group
    if (kept(k) && !flows_[static_cast<std::size_t>(k.flows[0].flow)].live) release(k.flows[0].flow);
    if (!k.flows.empty() || k.mark == epoch_) return false;
    k.mark = epoch_;
  }
  return true;
}

void FlowNetwork::submit(tlm::tlm_generic_payload* p) {
  ChunkExt* c = chunk_of(*p);
  if (!c || !c->route || !c->sink || c->express) throw RunError(std::string(name()) + ": not a collective chunk");
  const double bytes = static_cast<double>(p->get_data_length());
  auto it = open_.find(c->tag);
  if (it != open_.end()) {
    Flow& f = flows_[static_cast<std::size_t>(it->second)];
    f.remaining += bytes;
    f.total += bytes;
    f.chunks.push_back(p);
    if (!c->more) f.open = false, open_.erase(it);
    if (!f.links->empty()) dirty((*f.links)[0]);  // its finish time moves
    return;
  }
  split_groups_on(c->route->links);
  const int id = create(c->route->links, bytes, 0, nullptr, false, c->route);
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.tag = c->tag;
  f.chunks.push_back(p);
  if (c->more) f.open = true, open_.emplace(c->tag, id);
  if (c->route->links.empty()) {
    activate(id);
    return;
  }
  enqueue(id, c->route->links[0]);
}

void FlowNetwork::enqueue(int id, int first_link) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.fifo = first_link;
  Link& src = links_[static_cast<std::size_t>(f.fifo)];
  if (src.fifo_head < 0) {
    src.fifo_head = id;
  } else {
    Flow& last = flows_[static_cast<std::size_t>(src.fifo_tail)];
    last.fifo_next = id;
    f.fifo_prev = src.fifo_tail;
    f.level = last.level + 1;
  }
  src.fifo_tail = id;
  f.waiting = f.level >= kActiveDepth;
  if (!f.waiting) activate(id);
}

// A group is alone on its links (start_group): a flow about to join one of them splits it first.
void FlowNetwork::split_groups_on(const std::vector<int>& links) {
  if (live_groups_ == 0) return;
  for (int l : links) {
    const Link& k = links_[static_cast<std::size_t>(l)];
    if (k.flows.size() == 1 && flows_[static_cast<std::size_t>(k.flows[0].flow)].members) split(k.flows[0].flow);
  }
}

// The group leaves its links now, and each member goes on alone from where the group had come:
// the same bytes left, sent and latency, queued at its source as it would have been sent (it was
// alone there), and told apart by its index when its data arrives.
void FlowNetwork::split(int gid) {
  const std::int64_t now = now_ps();
  Flow& g = flows_[static_cast<std::size_t>(gid)];
  if (g.ahead > 0) {
    end_ahead(gid, now, true);
    if (!g.held) return;  // its last step drained: it left its links, and its data is on the way
  }
  if (g.held) {
    if (!g.live) {  // between steps: the links are idle, and the next step starts afresh
      release(gid);
      return;
    }
    flush_group(g);  // its links as if this step had started them
    g.held = false;
  }
  leave_links(g, now);  // alone there: they are left idle, and the members' start recomputes them
  --live_groups_;
  finishes_.erase(gid);
  --active_;
  g.live = false;
  g.rate = 0;
  const std::vector<const std::vector<int>*>& members = *g.members;
  const double total = g.total, remaining = g.remaining, sent = g.sent;
  const std::int64_t latency = g.latency;
  const std::uint32_t chunks = g.group_chunks, chunk = g.group_chunk;
  const int owner = g.owner;
  const std::uint64_t born = g.born;
  MemberDone done = std::move(g.member_done);
  g.member_done = nullptr;
  g.members = nullptr;
  free_.push_back(gid);
  for (std::size_t m = 0; m < members.size(); ++m) {
    const int id = create(*members[m], total, 0, nullptr, false);  // may move flows_: g is not used again
    Flow& f = flows_[static_cast<std::size_t>(id)];
    f.remaining = remaining;
    f.sent = sent;
    f.latency = latency;
    f.group_chunks = chunks;
    f.group_chunk = chunk;
    f.owner = owner;
    f.member = static_cast<int>(m);
    f.born = born + 1 + m;  // created when the group was, as they would have been without it
    f.member_done = done;
    if (members[m]->empty()) activate(id);
    else enqueue(id, (*members[m])[0]);
  }
}

// A kept group between steps leaves its links (idle since its last step ended, which flush_group
// leaves them at), and is freed unless its last step's arrival is still due.
void FlowNetwork::release(int gid) {
  Flow& g = flows_[static_cast<std::size_t>(gid)];
  flush_group(g);
  const std::vector<int>& links = *g.links;
  for (std::size_t k = 0; k < links.size(); ++k) {
    Link& l = links_[static_cast<std::size_t>(links[k])];
    const Link::Member moved = l.flows.back();
    l.flows[static_cast<std::size_t>(g.slot[k])] = moved;
    l.flows.pop_back();
    flows_[static_cast<std::size_t>(moved.flow)].slot[static_cast<std::size_t>(moved.hop)] = g.slot[k];
    if (l.flows.empty()) l.load = 0;
  }
  --live_groups_;
  g.held = g.keep = false;
  g.members = nullptr;
  if (!g.delivering) free_.push_back(gid);
}

// A kept group's ended steps into each of its links, in the order they came and with the same
// operations each step's start and end would have applied (its start integrated an idle stretch:
// nothing; its end the step at the group's share, then account()): the busy time, series and
// counters are the per-step ones exactly, but each link is visited once for all the steps. Then
// the link is as if the group had just started its present step (stepping) or just ended its last.
void FlowNetwork::flush_group(Flow& g) {
  const std::size_t n = g.ended.size() / 2;
  if (n == 0) return;
  const std::int64_t last_to = g.ended.back();
  const std::uint64_t whole = static_cast<std::uint64_t>(std::llround(g.total));
  // The additions are the same on every link at the same share (a few: the ring's link kinds), so
  // they are made once per share: the busy time's, and the series' per series state.
  struct AtShare {
    double share;
    std::vector<double> busy;
    BusySeries::Steps series;
  };
  std::vector<AtShare> shares;
  for (int l : *g.links) {
    Link& k = links_[static_cast<std::size_t>(l)];
    const double share = k.cap > 0 ? std::min(1.0, g.rate / k.cap) : 0.0;
    if (share > 0) {
      AtShare* at = nullptr;
      for (AtShare& a : shares)
        if (a.share == share) at = &a;
      if (!at) {
        at = &shares.emplace_back(AtShare{share, {}, BusySeries::Steps(g.ended.data(), n, share)});
        for (std::size_t i = 0; i < n; ++i)
          if (g.ended[2 * i + 1] != g.ended[2 * i])
            at->busy.push_back(share * static_cast<double>(g.ended[2 * i + 1] - g.ended[2 * i]));
      }
      for (double b : at->busy) k.busy_ps += b;
      flush_pending(k);
      k.dir->busy_series().add(at->series);
    }
    step_counts(k, g, k.stats, n);
    std::vector<std::uint64_t>& owners = k.dir->owner_bytes();
    if (g.owner >= 0 && static_cast<std::size_t>(g.owner) < owners.size())
      owners[static_cast<std::size_t>(g.owner)] += n * whole;
    k.since = g.live ? g.step_from : last_to;
    k.load = g.live ? g.rate : 0;
  }
  g.ended.clear();
}

void FlowNetwork::step_counts(const Link& k, const Flow& g, LinkDirStats& s, std::uint64_t steps) const {
  const std::uint64_t whole = static_cast<std::uint64_t>(std::llround(g.total));
  const std::uint64_t full = g.group_chunks - 1, last = whole - full * g.group_chunk;
  s.payload_bytes += steps * whole;
  s.chunks += steps * g.group_chunks;
  s.wire_bytes += steps * (full * framed_bytes(g.group_chunk, k.mtu, k.overhead, k.whole_packets) +
                           framed_bytes(static_cast<std::uint32_t>(last), k.mtu, k.overhead, k.whole_packets));
}

// Out of its source's queue (it ended, whatever its place): the transfers behind it move up a
// place. Their component is recomputed: they cross the first link, which finish() dirties.
void FlowNetwork::leave_queue(Flow& f) {
  Link& src = links_[static_cast<std::size_t>(f.fifo)];
  if (f.fifo_prev >= 0) flows_[static_cast<std::size_t>(f.fifo_prev)].fifo_next = f.fifo_next;
  else src.fifo_head = f.fifo_next;
  if (f.fifo_next >= 0) flows_[static_cast<std::size_t>(f.fifo_next)].fifo_prev = f.fifo_prev;
  else src.fifo_tail = f.fifo_prev;
  for (int n = f.fifo_next; n >= 0; n = flows_[static_cast<std::size_t>(n)].fifo_next) {
    Flow& g = flows_[static_cast<std::size_t>(n)];
    if (--g.level == kActiveDepth - 1 && g.waiting) g.waiting = false, moved_up_.push_back(n);
  }
  f.fifo = f.fifo_prev = f.fifo_next = -1;
}

void FlowNetwork::stop(int id) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (!f.live) return;
  finish(id, now_ps());
}

void FlowNetwork::link_changed(int link) {
  split_groups_on({link});  // its members no longer alike
  Link& l = links_[static_cast<std::size_t>(link)];
  // Integrate its busy time at the old capacity before the change.
  const std::int64_t now = now_ps();
  integrate(l, now);
  read_link(l);
  ++latency_version_;
  dirty(link);
}

// The link's busy time from `since` to now at its present load (a share of its capacity), into its
// total and its LinkState's busy series.
void FlowNetwork::integrate(Link& k, std::int64_t now) { integrate_at(k, now, k.load); }

// The same at `load`, the one it had since k.since (a recompute has just set the next).
// A stretch inside the series' bucket that the last one ended in is summed in the Link (hot here)
// and reaches the series when a stretch leaves that bucket, or before anything else touches the
// series (flush_pending): the LinkState and its buckets are two cache misses per rate change
// otherwise, a fifth of a 4,096-rank leaf-spine ring's run (docs/performance.md). The bucket gets
// the same amounts summed in another order, so link_series.json can move in the last digits.
void FlowNetwork::integrate_at(Link& k, std::int64_t now, double load) {
  if (now == k.since) return;  // already: a flow's end integrates its links, and the recompute after it
  const double share = k.cap > 0 ? std::min(1.0, load / k.cap) : 0.0;
  if (share > 0) {  // an idle stretch adds nothing
    const double busy = share * static_cast<double>(now - k.since);
    k.busy_ps += busy;
    if (k.since >= k.pend_lo && now <= k.pend_hi) {
      k.pend += busy, k.pend_end = now;
    } else {
      flush_pending(k);
      BusySeries& s = k.dir->busy_series();
      s.add(k.since, now, share);
      if (!s.bucket_at(now, &k.pend_lo, &k.pend_hi)) k.pend_lo = k.pend_hi = 0;
    }
  }
  k.since = now;
}

void FlowNetwork::flush_pending(Link& k) {
  if (k.pend > 0) k.dir->busy_series().add_in_bucket(k.pend_lo, k.pend, k.pend_end);
  k.pend = 0;
  k.pend_lo = k.pend_hi = 0;
}

void FlowNetwork::advance(Flow& f, std::int64_t now) {
  const double moved = f.rate * static_cast<double>(now - f.updated);
  f.sent += moved;
  if (std::isfinite(f.remaining)) f.remaining = std::max(0.0, f.remaining - moved);
  f.updated = now;
}

// Max-min fair rates over the component of the dirty links, by progressive filling: all unfrozen
// flows grow together; the links that fill first (and flows that reach their cap) freeze theirs.
void FlowNetwork::recompute() {
  recompute_pending_ = false;
  if (dirty_links_.empty()) return;
  ++recomputes_;
  const std::int64_t now = now_ps();
  ++epoch_;
  comp_links_.clear(), comp_flows_.clear(), comp_born_.clear(), stack_.clear();
  for (int l : dirty_links_)
    if (links_[static_cast<std::size_t>(l)].mark != epoch_)
      links_[static_cast<std::size_t>(l)].mark = epoch_, stack_.push_back(l);
  dirty_links_.clear();
  while (!stack_.empty()) {
    const int l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (const Link::Member& m : links_[static_cast<std::size_t>(l)].flows) {
      const int fid = m.flow;
      Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (f.mark == epoch_) continue;
      f.mark = epoch_;
      comp_born_.push_back({f.born, fid});
      for (int l2 : *f.links) {
        Link& k = links_[static_cast<std::size_t>(l2)];
        if (k.mark != epoch_) k.mark = epoch_, stack_.push_back(l2);
      }
    }
  }
  // In creation order, not in the order the search met them (which follows the links' flow lists,
  // reordered by every departure): equal projected ends then tie in a defined order, and the
  // filling's sums round alike every time the same flows meet, so a repeating workload repeats
  // (fuzz-runs' localsgd case drifted by 2e-5 of an iteration between identical averages).
  // Sorted as (born, id) pairs gathered during the search: no flow is looked up again to compare.
  std::sort(comp_born_.begin(), comp_born_.end());
  for (const auto& b : comp_born_) comp_flows_.push_back(b.second);
  for (int l : comp_links_) {
    Link& k = links_[static_cast<std::size_t>(l)];
    k.residual = k.cap;
    k.unfrozen = 0;
    k.was = k.load;
    k.load = 0;
  }
  int deepest = 0;  // the largest place in a send queue among the component's transfers
  for (int fid : comp_flows_) {
    Flow& f = flows_[static_cast<std::size_t>(fid)];
    advance(f, now);
    f.frozen = false;
    deepest = std::max(deepest, f.level);
  }
  if (deepest == 0) fill_fair();
  else fill_in_send_order();
  // A link's busy time is settled only where its load changed: most of a large component's links
  // (a tree all-reduce's: 255 on average at 8,192 ranks) keep theirs, and the stretch at that load
  // simply goes on (docs/performance.md, "Busy time settled where the load changed").
  for (int l : comp_links_) {
    Link& k = links_[static_cast<std::size_t>(l)];
    if (k.load != k.was) integrate_at(k, now, k.was);
  }
  for (int fid : comp_flows_) {
    const Flow& f = flows_[static_cast<std::size_t>(fid)];
    if (!std::isfinite(f.remaining) || f.rate <= 0) {  // endless, or waiting for a link to come up
      finishes_.erase(fid);
      continue;
    }
    const double ps = std::ceil(f.remaining / f.rate);
    finishes_.set(fid, now + static_cast<std::int64_t>(std::min(ps, 4e18)), seq_++);
  }
  reschedule();
}

// Each of the component's links counts its flows (all unfrozen yet); returns the links they cross,
// in stack_ (empty until now), for the filling to scan.
std::vector<int>& FlowNetwork::count_unfrozen() {
  std::vector<int>& used = stack_;
  for (int fid : comp_flows_)
    for (int l : *flows_[static_cast<std::size_t>(fid)].links) {
      Link& k = links_[static_cast<std::size_t>(l)];
      if (k.unfrozen++ == 0) used.push_back(l);
    }
  return used;
}

// Progressive filling of the component's flows: all grow together; the links that fill first, and
// the flows that reach their cap, freeze theirs.
void FlowNetwork::fill_fair() {
  std::vector<int>& used = count_unfrozen();
  std::size_t left = comp_flows_.size();
  std::vector<int>& bottlenecks = bottlenecks_;
  while (left > 0) {
    double share = std::numeric_limits<double>::infinity();
    for (int l : used) {
      const Link& k = links_[static_cast<std::size_t>(l)];
      if (k.unfrozen > 0) share = std::min(share, std::max(0.0, k.residual) / k.unfrozen);
    }
    for (int fid : comp_flows_) {
      const Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (!f.frozen && f.cap > 0) share = std::min(share, f.cap);
    }
    const double tie = share * (1 + 1e-12);
    bottlenecks.clear();
    for (int l : used) {
      const Link& k = links_[static_cast<std::size_t>(l)];
      if (k.unfrozen > 0 && std::max(0.0, k.residual) / k.unfrozen <= tie) bottlenecks.push_back(l);
    }
    auto freeze = [&](Flow& f) {
      f.frozen = true;
      f.rate = share;
      --left;
      for (int l2 : *f.links) {
        Link& k = links_[static_cast<std::size_t>(l2)];
        k.residual -= share;
        k.load += share;
        --k.unfrozen;
      }
    };
    for (int l : bottlenecks)
      for (const Link::Member& m : links_[static_cast<std::size_t>(l)].flows)
        if (!flows_[static_cast<std::size_t>(m.flow)].frozen) freeze(flows_[static_cast<std::size_t>(m.flow)]);
    for (int fid : comp_flows_) {
      Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (!f.frozen && f.cap > 0 && f.cap <= tie) freeze(f);
    }
  }
  used.clear();
}

// Progressive filling where a source's queued transfers take capacity in send order: of each
// source's unfrozen transfers only the first grows, and the next starts growing (from nothing)
// once it has frozen; flows of different sources grow together. So a transfer yields to the ones
// ahead of it in its own queue on every link they share, and shares fairly with other sources'
// transfers, as packet fidelity's per-flow round-robin serves chunks of different sources while
// a GPU's DMA queue and its buffers keep its own in send order.
//
// Each round visits only the links with a growing flow (`active`), not every link of the
// component: only theirs changes, so only they can fill. A link fills in a round it grows in and
// then freezes every flow crossing it, so one that grows no more never fills later; the first
// round still looks at them all (a link that is down is full before anything grows). The values
// are those of a round over every link, to the bit: the same subtractions on the same links, and
// the order links are visited in decides nothing but the order of equal freezes. (A deep component
// of 600 transfers took about 57 rounds over its 350 links per recompute, 80% of the run: fuzz-runs
// campaign 104, scenario 9099; docs/performance.md, "Send-order filling over the growing links".)
void FlowNetwork::fill_in_send_order() {
  std::vector<int>& used = count_unfrozen();
  std::vector<int>& growing = bottlenecks_;
  std::vector<int>& active = active_links_;
  growing.clear();
  active.clear();
  for (int fid : comp_flows_)
    flows_[static_cast<std::size_t>(fid)].rate = 0, flows_[static_cast<std::size_t>(fid)].growing = false;
  auto grow = [&](int fid) {
    Flow& f = flows_[static_cast<std::size_t>(fid)];
    if (f.growing) return;  // already: two transfers ahead of it in its queue froze
    f.growing = true;
    growing.push_back(fid);
    for (int l : *flows_[static_cast<std::size_t>(fid)].links) {
      Link& k = links_[static_cast<std::size_t>(l)];
      if (k.growing++ == 0 && !k.active)
        k.active = true, active.push_back(l);  // once, though it may stop and start again
    }
  };
  for (int fid : comp_flows_)
    if (flows_[static_cast<std::size_t>(fid)].level == 0) grow(fid);
  std::size_t left = comp_flows_.size();
  std::vector<int>& frozen_now = frozen_now_;
  bool first = true;
  while (left > 0) {
    std::size_t a = 0;  // the links that grow no more leave the round
    for (int l : active) {
      Link& k = links_[static_cast<std::size_t>(l)];
      if (k.growing > 0) active[a++] = l;
      else k.active = false;
    }
    active.resize(a);
    double step = std::numeric_limits<double>::infinity();
    for (int l : active) {
      const Link& k = links_[static_cast<std::size_t>(l)];
      step = std::min(step, std::max(0.0, k.residual) / k.growing);
    }
    for (int fid : growing) {
      const Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (f.cap > 0) step = std::min(step, std::max(0.0, f.cap - f.rate));
    }
    if (!std::isfinite(step)) step = 0;  // nothing growing: the rest freeze where they are
    for (int fid : growing) flows_[static_cast<std::size_t>(fid)].rate += step;
    for (int l : active) {
      Link& k = links_[static_cast<std::size_t>(l)];
      k.residual -= step * k.growing;
    }
    frozen_now.clear();
    auto freeze = [&](int fid) {
      Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (f.frozen) return;
      f.frozen = true;
      frozen_now.push_back(fid);
      --left;
      for (int l : *f.links) --links_[static_cast<std::size_t>(l)].unfrozen;
    };
    bool any = false;
    for (int l : first ? used : active) {
      const Link& k = links_[static_cast<std::size_t>(l)];
      if (k.unfrozen > 0 && k.residual <= k.cap * 1e-12)  // full: what crosses it stays where it is
        for (const Link::Member& m : k.flows) freeze(m.flow), any = true;
    }
    first = false;
    for (int fid : growing) {
      const Flow& f = flows_[static_cast<std::size_t>(fid)];
      if (f.cap > 0 && f.rate >= f.cap * (1 - 1e-12)) freeze(fid), any = true;
    }
    if (!any)  // nothing filled (rounding, or nothing left to grow): freeze the rest where they are
      for (int fid : comp_flows_) freeze(fid);
    // The frozen stop growing; behind each frozen transfer its queue's next starts.
    std::size_t w = 0;
    for (int fid : growing) {
      if (!flows_[static_cast<std::size_t>(fid)].frozen) growing[w++] = fid;
      else {
        flows_[static_cast<std::size_t>(fid)].growing = false;
        for (int l : *flows_[static_cast<std::size_t>(fid)].links) --links_[static_cast<std::size_t>(l)].growing;
      }
    }
    growing.resize(w);
    for (std::size_t i = 0; i < frozen_now.size(); ++i) {
      int n = flows_[static_cast<std::size_t>(frozen_now[i])].fifo_next;
      while (n >= 0) {  // skip the ones a full link froze already, at nothing
        const Flow& g = flows_[static_cast<std::size_t>(n)];
        if (g.waiting || g.mark != epoch_) break;
        if (!g.frozen) {
          grow(n);
          break;
        }
        n = g.fifo_next;
      }
    }
  }
  for (int fid : comp_flows_) {
    const Flow& f = flows_[static_cast<std::size_t>(fid)];
    for (int l : *f.links) links_[static_cast<std::size_t>(l)].load += f.rate;
  }
  for (int l : used) links_[static_cast<std::size_t>(l)].growing = 0;
  used.clear();
  growing.clear();
  for (int l : active) links_[static_cast<std::size_t>(l)].active = false;
  active.clear();
}

void FlowNetwork::reschedule() {
  if (finishes_.empty()) {
    if (finish_at_ >= 0) ++finish_tag_, finish_at_ = -1;
    return;
  }
  const std::int64_t at = finishes_.top().at;
  if (at == finish_at_) return;
  finish_at_ = at;
  calendar_.at(at, this, kFinish, ++finish_tag_);
}

void FlowNetwork::on_finish() {
  const std::int64_t now = now_ps();
  finish_at_ = -1;
  while (!finishes_.empty() && finishes_.top().at <= now) {
    const int id = finishes_.top().id;
    finishes_.pop();
    // Open: drained what it has so far; more chunks of its transfer are coming this instant.
    if (!flows_[static_cast<std::size_t>(id)].open) finish(id, now);
  }
  if (!dirty_links_.empty()) recompute();  // the freed capacity, at once
  else reschedule();
}

// The flow leaves its links now, drained to now: their busy time is settled at the old load
// first. A link it leaves empty is idle, what a recompute would set, without one (a grouped ring
// step's links nearly all end so); the others are recomputed.
void FlowNetwork::leave_links(Flow& f, std::int64_t now) {
  for (int l : *f.links) integrate(links_[static_cast<std::size_t>(l)], now);
  advance(f, now);
  for (std::size_t k = 0; k < f.links->size(); ++k) {
    Link& l = links_[static_cast<std::size_t>((*f.links)[k])];
    const int slot = f.slot[k];
    const Link::Member moved = l.flows.back();
    l.flows[static_cast<std::size_t>(slot)] = moved;
    l.flows.pop_back();
    flows_[static_cast<std::size_t>(moved.flow)].slot[static_cast<std::size_t>(moved.hop)] = slot;
    if (l.flows.empty()) {
      l.load = 0;
    } else {
      l.load -= f.rate;
      dirty((*f.links)[k]);
    }
  }
}

// The flow leaves its links now; its data arrives one path latency later.
void FlowNetwork::finish(int id, std::int64_t now) {
  Flow& f = flows_[static_cast<std::size_t>(id)];
  if (f.ahead > 0) {  // the run-ahead's last step drained: its steps into `ended`, then this one as usual
    end_ahead(id, now, false);
    return;
  }
  if (f.held && f.keep) {  // a ring's step but its last: it stays on its links, its interval noted
    end_kept_step(id, f.step_from, now);
    f.delivering = true;
    deliveries_.push({now + f.latency, seq_++, id});
    calendar_.at(deliveries_.top().at, this, kDeliver, ++deliver_tag_);
    return;
  }
  if (f.held) {  // its last step: its links take the ended steps, then this one as usual
    flush_group(f);
    f.held = false;
  }
  leave_links(f, now);
  if (f.members) --live_groups_;
  if (std::isfinite(f.total)) f.sent = f.total;  // the last fraction of a byte lost to rounding
  account(f);
  if (f.fifo >= 0) leave_queue(f);
  f.live = false;
  f.rate = 0;
  finishes_.erase(id);  // stopped before its projected end
  --active_;
  deliveries_.push({now + f.latency, seq_++, id});
  calendar_.at(deliveries_.top().at, this, kDeliver, ++deliver_tag_);
  // The transfer behind it in its queue now takes part. A group may have started on its later
  // links since it was queued: it splits first (which adds flows: no reference is held here).
  std::vector<int> up;
  up.swap(moved_up_);
  for (int n : up) {
    split_groups_on(*flows_[static_cast<std::size_t>(n)].links);
    activate(n);
  }
}

void FlowNetwork::account(Flow& f) {
  const double bytes = f.sent;
  const std::uint64_t whole = static_cast<std::uint64_t>(std::llround(bytes));
  sizes_.clear();
  for (tlm::tlm_generic_payload* p : f.chunks) sizes_.push_back(p->get_data_length());  // each payload read once
  const int owner = f.owner;  // a transfer's chunks share their route
  for (int l : *f.links) {
    Link& k = links_[static_cast<std::size_t>(l)];
    LinkDirStats& s = k.stats;
    s.payload_bytes += whole;
    std::vector<std::uint64_t>& owners = k.dir->owner_bytes();
    if (owner >= 0 && static_cast<std::size_t>(owner) < owners.size()) owners[static_cast<std::size_t>(owner)] += whole;
    if (f.background) s.background_bytes += whole;
    if (!f.chunks.empty()) {
      s.chunks += f.chunks.size();
      for (std::uint32_t size : sizes_) s.wire_bytes += framed_bytes(size, k.mtu, k.overhead, k.whole_packets);
    } else if (f.group_chunks > 0) {  // one member's chunks: all full but the last
      const std::uint64_t full = f.group_chunks - 1, last = whole - full * f.group_chunk;
      s.chunks += f.group_chunks;
      s.wire_bytes += full * framed_bytes(f.group_chunk, k.mtu, k.overhead, k.whole_packets) +
                      framed_bytes(static_cast<std::uint32_t>(last), k.mtu, k.overhead, k.whole_packets);
    } else {
      const std::uint64_t packets = (whole + k.mtu - 1) / k.mtu;
      s.chunks += 1;
      s.wire_bytes += k.whole_packets ? packets * (k.mtu + k.overhead) : whole + packets * k.overhead;
    }
  }
}

void FlowNetwork::on_deliver() {
  const std::int64_t now = now_ps();
  while (!deliveries_.empty() && deliveries_.top().at <= now) {
    const int id = deliveries_.top().flow;
    deliveries_.pop();
    Flow& f = flows_[static_cast<std::size_t>(id)];
    std::vector<tlm::tlm_generic_payload*> chunks;
    chunks.swap(f.chunks);
    Done done = std::move(f.done);
    f.done = nullptr;
    MemberDone member_done = std::move(f.member_done);
    f.member_done = nullptr;
    const int member = f.member;
    f.delivering = false;
    if (!f.held) {  // a kept group stays for its next step (next_step) or release
      f.members = nullptr;
      free_.push_back(id);
    }
    for (tlm::tlm_generic_payload* p : chunks) {
      ChunkExt* c = chunk_of(*p);
      c->tail_ps = now;
      c->sink->chunk_delivered(*p);
    }
    if (done) done();
    if (member_done) member_done(member);
  }
  if (!deliveries_.empty()) calendar_.at(deliveries_.top().at, this, kDeliver, ++deliver_tag_);
}

void FlowNetwork::settle() {
  const std::int64_t now = now_ps();
  // Kept groups' ended steps into their links; one between steps leaves them (idle).
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].ahead > 0) end_ahead(static_cast<int>(i), now, true);
    if (!flows_[i].held) continue;
    if (!flows_[i].live) {
      release(static_cast<int>(i));
      continue;
    }
    flush_group(flows_[i]);  // on as an ordinary group step: its end leaves the links as usual
    flows_[i].held = flows_[i].keep = false;
  }
  // Flows still on when the run ends (endless paced traffic, or a transfer cut with the run: a
  // checkpoint burst, fuzz-runs campaign 90 scenario 120): their bytes so far, as the busy time
  // integrated so far already holds them.
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    if (f.live) advance(f, now);
  }
  for (Link& k : links_) {
    integrate(k, now);
    flush_pending(k);
    LinkDirStats s = k.stats;
    s.busy_ps = std::llround(k.busy_ps);
    for (const Link::Member& m : k.flows) {
      const Flow& f = flows_[static_cast<std::size_t>(m.flow)];
      const bool endless = !std::isfinite(f.total);
      const std::uint64_t b = static_cast<std::uint64_t>(std::llround(f.sent));
      s.payload_bytes += b;
      if (endless || f.background) s.background_bytes += b;
      std::vector<std::uint64_t>& owners = k.dir->owner_bytes();  // added to, not set: once only
      if (!owners_settled_ && f.owner >= 0 && static_cast<std::size_t>(f.owner) < owners.size())
        owners[static_cast<std::size_t>(f.owner)] += b;
      s.wire_bytes += b + (b + k.dir->params().mtu - 1) / k.dir->params().mtu * k.dir->params().overhead;
      if (endless) s.chunks += 1;  // a cut transfer's chunks did not arrive: none counts
    }
    k.dir->set_flow_stats(s);
  }
  owners_settled_ = true;
}

double FlowNetwork::rate_Bps(int flow) const { return flows_[static_cast<std::size_t>(flow)].rate * 1e12; }

double FlowNetwork::sent_bytes(int flow) const { return flows_[static_cast<std::size_t>(flow)].sent; }

FlowSource::FlowSource(sc_core::sc_module_name name, FlowNetwork& net, TrafficPattern pattern, double rate_Bps,
                       RouteFn route)
    : sc_module(name), net_(net), pattern_(pattern), rate_Bps_(rate_Bps), route_(std::move(route)) {
  SC_HAS_PROCESS(FlowSource);
  SC_METHOD(tick);  // runs once at time 0, then on wake_
  sensitive << wake_;
}

// On: one endless capped flow until the pattern's next off time; off: none until the next on.
void FlowSource::tick() {
  const std::int64_t now = now_ps();
  if (flow_ >= 0) {
    net_.stop(flow_);
    done_bytes_ += net_.sent_bytes(flow_);
    flow_ = -1;
  }
  const std::int64_t on = pattern_.next_on(now);
  if (on < 0) return;
  if (on > now) {
    wake_.notify(ps_time(on - now));
    return;
  }
  flow_ = net_.start(*route_(), FlowNetwork::kEndless, rate_Bps_, nullptr, true);
  const std::int64_t off = pattern_.next_off(now);
  if (off >= 0) wake_.notify(ps_time(off - now));
}

double FlowSource::sent_bytes() const { return done_bytes_ + (flow_ >= 0 ? net_.sent_bytes(flow_) : 0.0); }

}  // namespace trainvp
