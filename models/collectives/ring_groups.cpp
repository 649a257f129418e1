// Ring steps as one flow (flow fidelity, docs/fabric.md#ring-steps-as-one-flow). A flat ring's
// step is p transfers, one per ring position, each waiting for the one before it in the ring. When
// the ranks start together, the transfers are alike (same bytes, bottleneck rate, path latency and
// NCCL hop latency) and nothing else crosses their links, every transfer of a step starts, drains
// and arrives at the same instants, so the network needs one flow for the step, not p: its max-min
// rate is the members' own (a link it crosses twice would be two members sharing it, which the
// check excludes), and each link counts one member's bytes, chunks and wire bytes. The engine
// then hands each member's arrival to the usual bookkeeping. A step that is not alike or not alone
// runs per transfer, and the channel with it from then on. A flow that joins a grouped step's link
// (or a change to one) splits the step into its members where they were (FlowNetwork::split),
// and the channel goes on per transfer. Same-time sends and arrivals keep the order they have per
// transfer (docs/fabric.md#same-time-order-of-grouped-steps), but where a group starting alone
// meets, in the same instant, a send of another collective that was ready between its members.
#include <algorithm>
#include <unordered_map>

#include "models/collectives/engine.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

// Only rings of GPUs whose transfers all carry the same bytes (a channel's bytes a multiple of
// the ranks) and carry no values (functional mode needs the chunks).
void CollectiveEngine::init_groups(Live& c) {
  const Program& pr = c.cp->program;
  const int p = static_cast<int>(pr.ranks.size());
  if (!c.cp->ring() || c.layout || p < 2 || pr.gpu_ranks != p) return;
  const auto channels = static_cast<std::uint64_t>(pr.ring.channels);
  for (std::uint64_t ch = 0; ch < channels; ++ch) {  // channel ch's slice, as the program splits the buffer
    const std::uint64_t slice = pr.ring.bytes / channels + (ch < pr.ring.bytes % channels ? 1 : 0);
    if (slice == 0 || slice % static_cast<std::uint64_t>(p) != 0) return;
  }
  c.groups.resize(static_cast<std::size_t>(pr.ring.channels));
}

// Transfer x is ready (counted as moving): true if the channel's grouping takes it.
bool CollectiveEngine::group_ready(int id, Live& c, int x) {
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = c.cp->program.ring.per_channel(p), ch = x / per;
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  switch (g.mode) {
    case Live::RingGroup::PerTransfer: return false;
    case Live::RingGroup::Undecided: {
      g.held.push_back({x, ready_seq_++});
      const auto src = static_cast<std::size_t>(c.cp->at(x).src);
      if (held_from_.size() <= src) held_from_.resize(src + 1, 0);
      ++held_from_[src];
      if (static_cast<int>(g.held.size()) == p) {
        launch_group(id, c, ch);
      } else if (g.held.size() == 1) {
        undecided_.emplace_back(id, ch);
        decide_.notify(sc_core::SC_ZERO_TIME);
      }
      return true;
    }
    case Live::RingGroup::Grouped:
      if (++g.ready == p) {
        g.ready = 0;
        g.step = (x % per) / p;
        if (g.step > g.ahead_until) launch_group(id, c, ch);  // else the flow network runs it ahead
      }
      return true;
  }
  return false;
}

// The channel's held transfers, no longer held.
std::vector<CollectiveEngine::HeldTransfer> CollectiveEngine::take_held(Live& c, int ch) {
  std::vector<HeldTransfer> held;
  held.swap(c.groups[static_cast<std::size_t>(ch)].held);
  for (const HeldTransfer& h : held) --held_from_[static_cast<std::size_t>(c.cp->at(h.x).src)];
  return held;
}

bool CollectiveEngine::held_before(int src, std::uint64_t seq) const {
  for (const auto& [id, ch] : undecided_) {
    const Live* c = live_.find(id);
    if (!c) continue;
    for (const HeldTransfer& h : c->groups[static_cast<std::size_t>(ch)].held)
      if (h.seq < seq && c->cp->at(h.x).src == src) return true;
  }
  return false;
}

// Channels whose transfers leave per transfer release their held ones in the order they were held,
// all channels together: a source's transfers then take capacity in the order they were ready (the
// flow network's send order), as without grouping. Released channel by channel, a source with
// transfers in two channels (two rings sharing its PCIe link) sent the later channel's first, and
// the rings ran 13.8% slower than without grouping (docs/reliability.md).
void CollectiveEngine::release_in_order(std::vector<Release> out) {
  std::unordered_map<int, std::uint64_t> latest;  // per source among `out`: its latest held number
  const auto add = [&](std::size_t from) {
    for (std::size_t i = from; i < out.size(); ++i) {
      auto [it, fresh] = latest.try_emplace(live_.find(out[i].id)->cp->at(out[i].t.x).src, out[i].t.seq);
      if (!fresh) it->second = std::max(it->second, out[i].t.seq);
    }
  };
  add(0);
  for (bool more = !undecided_.empty(); more;) {  // channels holding one that a source among `out` had first
    more = false;
    for (const auto& [id, ch] : undecided_) {
      Live* c = live_.find(id);
      if (!c || c->groups[static_cast<std::size_t>(ch)].mode != Live::RingGroup::Undecided) continue;
      bool earlier = false;
      for (const HeldTransfer& h : c->groups[static_cast<std::size_t>(ch)].held) {
        auto it = latest.find(c->cp->at(h.x).src);
        if (it != latest.end() && h.seq < it->second) earlier = true;
      }
      if (!earlier) continue;
      c->groups[static_cast<std::size_t>(ch)].mode = Live::RingGroup::PerTransfer;
      const std::size_t from = out.size();
      for (const HeldTransfer& h : take_held(*c, ch)) out.push_back({id, h});
      add(from);
      more = true;
    }
  }
  std::sort(out.begin(), out.end(), [](const Release& a, const Release& b) { return a.t.seq < b.t.seq; });
  for (const Release& r : out) {
    Live* c = live_.find(r.id);
    if (!c) continue;
    dispatch(r.id, *c, r.t.x, r.t.seq);
  }
}

// A delta cycle after a channel's first transfer was held, or when a source with a held transfer
// sends another: ranks that did not join with the others leave the channel per transfer (the held
// ones leave now, at the same simulated time, in the order they were held).
void CollectiveEngine::decide_groups() {
  std::vector<std::pair<int, int>> pending;
  pending.swap(undecided_);
  std::vector<Release> out;
  for (const auto& [id, ch] : pending) {
    Live* c = live_.find(id);
    if (!c) continue;
    Live::RingGroup& g = c->groups[static_cast<std::size_t>(ch)];
    if (g.mode != Live::RingGroup::Undecided) continue;
    g.mode = Live::RingGroup::PerTransfer;
    for (const HeldTransfer& h : take_held(*c, ch)) out.push_back({id, h});
  }
  release_in_order(std::move(out));
}

// Whether the step's transfers are alike (the routes are every step's: a ring step sends from each
// position to the next), with its routes and latency in g.shape. Whether they are alone is asked
// when they start.
bool CollectiveEngine::group_alike(Live& c, int ch) {
  if (give_up_ps_ > 0 && c.on_failed) return false;  // the give-up watches each transfer's chunks
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  // Links and routes as when last found, and the same protocol: the same answer. Else the routes
  // are asked again (ranks moved, a link went down), as each transfer would, once per program.
  const std::uint64_t lv = flow_->links_version(), rv = routes_.routes_version();
  const auto fresh = [&](const RingShape* s) {
    return s && s->links_version == lv && s->routes_version == rv && s->wire_per_byte == c.wire_per_byte &&
           s->intra_hop_ps == c.intra_hop_ps && s->inter_hop_ps == c.inter_hop_ps;
  };
  if (fresh(g.shape.get())) return g.shape->alike;
  g.flow = -1;  // a kept group stays on the old links until something touches them
  std::vector<std::shared_ptr<const RingShape>>& cache = c.cp->ring_shapes;
  if (cache.size() <= static_cast<std::size_t>(ch)) cache.resize(static_cast<std::size_t>(ch) + 1);
  std::shared_ptr<const RingShape>& cached = cache[static_cast<std::size_t>(ch)];
  if (!fresh(cached.get())) {
    auto shape = std::make_shared<RingShape>();
    shape->links_version = lv, shape->routes_version = rv;
    shape->wire_per_byte = c.wire_per_byte, shape->intra_hop_ps = c.intra_hop_ps, shape->inter_hop_ps = c.inter_hop_ps;
    const int p = static_cast<int>(c.cp->program.ranks.size()), base = ch * c.cp->program.ring.per_channel(p);
    for (int i = 0; i < p; ++i) {
      const Route& r = route_of(c, base + i);
      shape->owner = r.owner;
      shape->member_links.push_back(&r.links);
      shape->links.insert(shape->links.end(), r.links.begin(), r.links.end());
    }
    const CompiledProgram::Ref t = c.cp->at(base);
    const std::uint64_t wire =
        c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                            : t.bytes;
    const double first = static_cast<double>(std::min<std::uint64_t>(wire, chunk_));
    const std::int64_t latency = flow_->latency(*shape->member_links[0], first), delay = hop_delay(c, t.src, t.dst);
    const double cap = flow_->bottleneck(*shape->member_links[0]);
    shape->alike = true;
    for (int i = 1; i < p && shape->alike; ++i) {
      const CompiledProgram::Ref u = c.cp->at(base + i);
      const std::vector<int>& links = *shape->member_links[static_cast<std::size_t>(i)];
      shape->alike = flow_->bottleneck(links) == cap && flow_->latency(links, first) == latency &&
                     hop_delay(c, u.src, u.dst) == delay;
    }
    shape->latency_ps = latency;
    cached = std::move(shape);
  }
  g.shape = cached;
  return g.shape->alike;
}

// The step's transfers are all ready: one flow after NCCL's latencies if they are alike (and, then,
// alone), else each its own from now on.
void CollectiveEngine::launch_group(int id, Live& c, int ch) {
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = c.cp->program.ring.per_channel(p);
  const bool held = g.mode == Live::RingGroup::Undecided;
  std::vector<Release> members;
  if (held)
    for (const HeldTransfer& h : take_held(c, ch)) members.push_back({id, h});
  if (!group_alike(c, ch)) {
    g.mode = Live::RingGroup::PerTransfer;
    if (held) {
      release_in_order(std::move(members));
      return;
    }
    const int step = g.step;
    const std::int64_t resume = g.resume_ps;
    g.resume_ps = -1;
    for (int j = 0; j < p; ++j) {  // in the order they were ready
      Live* again = live_.find(id);
      if (!again) return;
      const int x = ch * per + step * p + group_position(*again, ch, step, j);
      // A run-ahead cut between steps (a link changed, which also makes the steps unlike): its
      // transfers were ready when the last step arrived (numbered as the first step's), and leave
      // when they would have then.
      if (resume < 0) {
        dispatch(id, *again, x);
        continue;
      }
      const bool keyed = g.order_seq.size() == static_cast<std::size_t>(p);
      delay_send(DelayedSend{id, x}, std::max<std::int64_t>(0, resume - now_ps()),
                 keyed ? g.order_seq[static_cast<std::size_t>(j)] : ready_seq_++);
    }
    return;
  }
  g.mode = Live::RingGroup::Grouped;
  if (held) {  // the first step, in the order its transfers were ready (take_held keeps it)
    g.order.clear();
    g.order_seq.clear();
    for (const Release& r : members) g.order.push_back(r.t.x - ch * per), g.order_seq.push_back(r.t.seq);
  }
  const CompiledProgram::Ref t = c.cp->at(ch * per + g.step * p);
  std::int64_t delay = hop_delay(c, t.src, t.dst);
  if (g.step == 0) delay += c.base_ps;
  if (g.resume_ps >= 0) {  // a run-ahead cut between steps: this step starts when it would have
    delay = g.resume_ps - now_ps();
    g.resume_ps = -1;
  }
  if (delay <= 0) {
    send_group(id, c, ch);
    return;
  }
  delay_send(DelayedSend{id, -1 - ch}, delay, ready_seq_++);
}

void CollectiveEngine::send_group(int id, Live& c, int ch) {
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = c.cp->program.ring.per_channel(p),
            base = ch * per + g.step * p;
  // Alone on their links now, after NCCL's latencies (rings launched at the same instant meet here),
  // and still alike (a fault may have changed a link meanwhile); else each transfer leaves on its
  // own now, as it would have.
  // A group kept on the links since the last step is alone there by construction (anything that
  // joined one of them released it): no walk over them.
  const bool alike = group_alike(c, ch);
  bool kept = alike && g.flow >= 0 && flow_->kept(g.flow, g.flow_born);
  bool start = alike && (kept || flow_->alone(g.shape->links));
  if (start && !group_sends_.empty()) {  // the steps merged before this one leave first, and may meet it
    flush_group_sends();
    if (!live_.find(id)) return;
    kept = g.flow >= 0 && flow_->kept(g.flow, g.flow_born);
    start = kept || flow_->alone(g.shape->links);
  }
  if (!start) {
    g.mode = Live::RingGroup::PerTransfer;
    const int step = g.step;
    const bool keyed = g.order_seq.size() == static_cast<std::size_t>(p);
    for (int j = 0; j < p; ++j) {  // in the order they were ready
      const int x = base + group_position(c, ch, step, j);
      if (in_delayed_ && keyed) {
        group_sends_.push_back({g.order_seq[static_cast<std::size_t>(j)], id, x});
        continue;
      }
      Live* again = live_.find(id);
      if (!again) return;
      send(id, *again, x);
    }
    return;
  }
  const CompiledProgram::Ref t = c.cp->at(base);
  const std::uint64_t wire =
      c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                          : t.bytes;
  const std::uint32_t chunks = static_cast<std::uint32_t>((wire + chunk_ - 1) / chunk_);
  const int step = g.step, steps = per / p;
  count_group_steps(id, c, ch, step);
  // The ring's steps but its last keep the group on its links: the next step starts there
  // without a walk over them, unless something released it meanwhile (docs/fabric.md).
  const bool keep = step + 1 < steps;
  // Its later steps are alike this one (the same routes, bytes and NCCL hop latency; the links
  // stay as they are until something touches them, which ends the run there): the flow network
  // runs them on its own. Not where a give-up watches transfers (they are not grouped then).
  FlowNetwork::Ahead ahead;
  if (keep && give_up_ps_ == 0) {
    ahead.steps = steps - 1 - step;
    ahead.hop_ps = hop_delay(c, t.src, t.dst);
    ahead.cut = [this, id, ch](int arrived, bool in_flight, std::int64_t resume_ps) {
      ahead_cut(id, ch, arrived, in_flight, resume_ps);
    };
  }
  FlowNetwork::MemberDone done = [this, id, ch](int member) { group_arrived(id, ch, member); };
  const RingShape& shape = *g.shape;
  order_members(c, ch, step);
  if (!(kept && flow_->next_step(g.flow, g.flow_born, g.sent_links, static_cast<double>(wire), shape.latency_ps,
                                 static_cast<std::uint32_t>(chunk_), chunks, done, keep, ahead))) {
    if (kept) flow_->alone(shape.links);  // not alike its last step after all: released, started afresh
    g.flow = flow_->start_group(shape.links, g.sent_links, static_cast<double>(wire), shape.latency_ps,
                                static_cast<std::uint32_t>(chunk_), chunks, shape.owner, std::move(done), keep,
                                std::move(ahead));
  }
  g.flow_born = flow_->born(g.flow);  // next_step too: each step takes its place in creation order
  // The network may decline (a run whose end would pass its clock): then step by step.
  if (flow_->running_ahead(g.flow)) g.ahead_until = steps - 1;
}

// Ring position of the j-th transfer to leave in step `step` of channel `ch`, as per transfer.
int CollectiveEngine::group_position(const Live& c, int ch, int step, int j) const {
  const Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size());
  const int first = g.order.size() == static_cast<std::size_t>(p) ? g.order[static_cast<std::size_t>(j)] : j;
  return (first + step) % p;
}

// The network's members for step `step`: routes in the order the transfers would have left.
void CollectiveEngine::order_members(Live& c, int ch, int step) {
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size());
  g.sent_pos.resize(static_cast<std::size_t>(p));
  g.sent_links.resize(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) {
    const int i = group_position(c, ch, step, j);
    g.sent_pos[static_cast<std::size_t>(j)] = i;
    g.sent_links[static_cast<std::size_t>(j)] = g.shape->member_links[static_cast<std::size_t>(i)];
  }
}

// The record's and the grouping's counts of the channel's steps after the last counted, up to
// `upto`: each step's send, counted when it leaves (or, run ahead, when the engine hears of it).
void CollectiveEngine::count_group_steps(int id, Live& c, int ch, int upto) {
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = c.cp->program.ring.per_channel(p);
  CollectiveRecord& r = rec(id);
  for (; g.counted < upto; ++g.counted) {
    const int base = ch * per + (g.counted + 1) * p;
    const CompiledProgram::Ref t = c.cp->at(base);
    const std::uint64_t wire =
        c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                            : t.bytes;
    r.chunks += (wire + chunk_ - 1) / chunk_ * static_cast<std::uint64_t>(p);
    if (pair_bytes_)
      for (int i = 0; i < p; ++i) {
        const CompiledProgram::Ref u = c.cp->at(base + i);
        (*pair_bytes_)[(static_cast<std::uint64_t>(u.src) << 32) | static_cast<std::uint32_t>(u.dst)] += u.bytes;
      }
    ++grouped_steps_;
    grouped_transfers_ += static_cast<std::uint64_t>(p);
  }
}

// The step's data has arrived everywhere (member -1): each transfer's arrival in ring order,
// which readies (and launches) the next step. Or, the group having been split because another
// flow joined one of its links, one member's: the channel goes per transfer from here.
void CollectiveEngine::group_arrived(int id, int ch, int member) {
  Live* c = live_.find(id);
  if (!c) return;
  Live::RingGroup& g = c->groups[static_cast<std::size_t>(ch)];
  if (member >= 0) {
    const int p = static_cast<int>(c->cp->program.ranks.size());
    g.mode = Live::RingGroup::PerTransfer;
    const int position =
        g.sent_pos.size() == static_cast<std::size_t>(p) ? g.sent_pos[static_cast<std::size_t>(member)] : member;
    group_tails_.push_back({id, ch, ch * c->cp->program.ring.per_channel(p) + g.flying * p + position, 0, member});
  } else {
    group_tails_.push_back({id, ch, -1, g.ahead_until >= g.flying ? g.ahead_until - g.flying + 1 : 1, -1});
  }
  if (group_tails_.size() == 1) group_tail_.notify(sc_core::SC_ZERO_TIME);
}

void CollectiveEngine::flush_group_sends() {
  if (group_sends_.empty()) return;
  std::vector<Arrival> sends;
  sends.swap(group_sends_);
  std::stable_sort(sends.begin(), sends.end(), [](const Arrival& a, const Arrival& b) { return a.key < b.key; });
  for (const Arrival& a : sends)
    if (Live* c = live_.find(a.id)) send(a.id, *c, a.x);
}

// The grouped arrivals of this instant (on_tail, a delta after the network delivered them): each
// group's steps counted, then every last step's arrivals in the order their transfers would have
// been sent, across groups. A split member's arrival takes its place among them.
void CollectiveEngine::group_tails() {
  std::vector<GroupTail> batch;
  batch.swap(group_tails_);
  arrivals_.clear();
  for (const GroupTail& t : batch) {
    Live* c = live_.find(t.id);
    if (!c) continue;
    if (t.x < 0) {
      catch_up(t.id, t.ch, t.steps, arrivals_);
      continue;
    }
    const Live::RingGroup& g = c->groups[static_cast<std::size_t>(t.ch)];
    const std::uint64_t key =
        static_cast<std::size_t>(t.member) < g.order_seq.size() ? g.order_seq[static_cast<std::size_t>(t.member)] : 0;
    arrivals_.push_back({key, t.id, t.x});
  }
  std::stable_sort(arrivals_.begin(), arrivals_.end(),
                   [](const Arrival& a, const Arrival& b) { return a.key < b.key; });
  for (const Arrival& a : arrivals_) {  // nothing arrived() calls adds to them
    Live* c = live_.find(a.id);         // the last arrivals finish a collective
    if (!c) continue;
    arrived(a.id, *c, a.x);
  }
}

// The flow network ended channel `ch`'s run-ahead early (FlowNetwork::Ahead): it runs no step past
// the one in flight, and the steps that arrived are caught up a delta cycle later (the network
// must not be called back now).
void CollectiveEngine::ahead_cut(int id, int ch, int arrived, bool in_flight, std::int64_t resume_ps) {
  Live* c = live_.find(id);
  if (!c) return;
  Live::RingGroup& g = c->groups[static_cast<std::size_t>(ch)];
  g.ahead_until = g.flying + arrived + (in_flight ? 1 : 0) - 1;
  count_group_steps(id, *c, ch, g.ahead_until);
  if (in_flight) order_members(*c, ch, g.flying + arrived);  // the step the network goes on with, split or not
  if (arrived == 0) return;
  g.resume_ps = resume_ps;
  group_tails_.push_back({id, ch, -1, arrived, -1});
  if (group_tails_.size() == 1) group_tail_.notify(sc_core::SC_ZERO_TIME);
}

// `steps` of the channel's steps arrived everywhere (one, or a run-ahead's): the steps but the
// last only count down their ranks' transfers (each rank sent one and received one per step; the
// readiness each arrival gave the next step's transfer is that step's own arrival taken back, and
// no rank ends before its last step), then the last step's arrivals, into `out` with their keys in
// the order their transfers were ready; handed to arrived(), they ready (and launch, past the
// run-ahead) the next step or end the collective.
void CollectiveEngine::catch_up(int id, int ch, int steps, std::vector<Arrival>& out) {
  Live* c = live_.find(id);
  if (!c) return;
  Live::RingGroup& g = c->groups[static_cast<std::size_t>(ch)];
  const RingForm& f = c->cp->program.ring;
  const int p = static_cast<int>(c->cp->program.ranks.size());
  count_group_steps(id, *c, ch, g.flying + steps - 1);
  if (steps > 1) {
    for (int i = 0; i < p; ++i) c->left[static_cast<std::size_t>(f.position(ch, i))] -= 2 * (steps - 1);
    g.flying += steps - 1;
  }
  const int base = ch * f.per_channel(p) + g.flying * p, step = g.flying;
  ++g.flying;
  const bool keyed = g.order_seq.size() == static_cast<std::size_t>(p);
  for (int j = 0; j < p; ++j)
    out.push_back({keyed ? g.order_seq[static_cast<std::size_t>(j)] : 0, id, base + group_position(*c, ch, step, j)});
}

}  // namespace trainvp
