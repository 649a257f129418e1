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
// and the channel goes on per transfer. What differs from never grouping is the order of
// same-time events only.
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
      g.held.push_back(x);
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
        launch_group(id, c, ch);
      }
      return true;
  }
  return false;
}

// The channel's held transfers, no longer held.
std::vector<int> CollectiveEngine::take_held(Live& c, int ch) {
  std::vector<int> held;
  held.swap(c.groups[static_cast<std::size_t>(ch)].held);
  for (int x : held) --held_from_[static_cast<std::size_t>(c.cp->at(x).src)];
  return held;
}

// A delta cycle after a channel's first transfer was held, or when a source with a held transfer
// sends another: ranks that did not join with the others leave the channel per transfer (the held
// ones leave now, at the same simulated time).
void CollectiveEngine::decide_groups() {
  std::vector<std::pair<int, int>> pending;
  pending.swap(undecided_);
  for (const auto& [id, ch] : pending) {
    Live* c = live_.find(id);
    if (!c) continue;
    Live::RingGroup& g = c->groups[static_cast<std::size_t>(ch)];
    if (g.mode != Live::RingGroup::Undecided) continue;
    g.mode = Live::RingGroup::PerTransfer;
    std::vector<int> held = take_held(*c, ch);
    for (int x : held) {
      Live* again = live_.find(id);
      if (!again) break;
      dispatch(id, *again, x);
    }
  }
}

// Whether the step's transfers are alike (the routes are every step's: a ring step sends from each
// position to the next). Sets the step's latency. Whether they are alone is asked when they start.
bool CollectiveEngine::group_alike(Live& c, int ch) {
  if (give_up_ps_ > 0 && c.on_failed) return false;  // the give-up watches each transfer's chunks
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size()), base = ch * c.cp->program.ring.per_channel(p);
  // Links and routes as when last found alike: still alike. Else the routes are asked again (ranks
  // moved, a link went down), as each transfer would.
  if (g.alike_at != flow_->links_version() || g.routes_at != routes_.routes_version()) {
    g.flow = -1;  // a kept group stays on the old links until something touches them
    g.links.clear();
    g.member_links.clear();
    for (int i = 0; i < p; ++i) {
      const Route& r = route_of(c, base + i);
      g.owner = r.owner;
      g.member_links.push_back(&r.links);
      g.links.insert(g.links.end(), r.links.begin(), r.links.end());
    }
    const CompiledProgram::Ref t = c.cp->at(base);
    const std::uint64_t wire =
        c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                            : t.bytes;
    const double first = static_cast<double>(std::min<std::uint64_t>(wire, chunk_));
    const std::int64_t latency = flow_->latency(*g.member_links[0], first), delay = hop_delay(c, t.src, t.dst);
    const double cap = flow_->bottleneck(*g.member_links[0]);
    for (int i = 1; i < p; ++i) {
      const CompiledProgram::Ref u = c.cp->at(base + i);
      const std::vector<int>& links = *g.member_links[static_cast<std::size_t>(i)];
      if (flow_->bottleneck(links) != cap || flow_->latency(links, first) != latency ||
          hop_delay(c, u.src, u.dst) != delay)
        return false;
    }
    g.latency_ps = latency;
    g.alike_at = flow_->links_version();
    g.routes_at = routes_.routes_version();
  }
  return true;
}

// The step's transfers are all ready: one flow after NCCL's latencies if they are alike (and, then,
// alone), else each its own from now on.
void CollectiveEngine::launch_group(int id, Live& c, int ch) {
  Live::RingGroup& g = c.groups[static_cast<std::size_t>(ch)];
  const int p = static_cast<int>(c.cp->program.ranks.size()), per = c.cp->program.ring.per_channel(p);
  std::vector<int> members;
  if (g.mode == Live::RingGroup::Undecided) members = take_held(c, ch);
  if (!group_alike(c, ch)) {
    if (members.empty())
      for (int i = 0; i < p; ++i) members.push_back(ch * per + g.step * p + i);
    g.mode = Live::RingGroup::PerTransfer;
    for (int x : members) {
      Live* again = live_.find(id);
      if (!again) return;
      dispatch(id, *again, x);
    }
    return;
  }
  g.mode = Live::RingGroup::Grouped;
  const CompiledProgram::Ref t = c.cp->at(ch * per + g.step * p);
  std::int64_t delay = hop_delay(c, t.src, t.dst);
  if (g.step == 0) delay += c.base_ps;
  if (delay <= 0) {
    send_group(id, c, ch);
    return;
  }
  DelayedSend* d;
  if (delayed_free_.empty()) {
    d = &delayed_pool_.emplace_back(DelayedSend{id, -1 - ch});
  } else {
    d = delayed_free_.back();
    delayed_free_.pop_back();
    *d = DelayedSend{id, -1 - ch};
  }
  delayed_.notify(d, delay);
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
  const bool kept = alike && g.flow >= 0 && flow_->kept(g.flow, g.flow_born);
  if (!alike || (!kept && !flow_->alone(g.links))) {
    g.mode = Live::RingGroup::PerTransfer;
    for (int i = 0; i < p; ++i) {
      Live* again = live_.find(id);
      if (!again) return;
      send(id, *again, base + i);
    }
    return;
  }
  const CompiledProgram::Ref t = c.cp->at(base);
  const std::uint64_t wire =
      c.wire_per_byte > 1 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes) * c.wire_per_byte))
                          : t.bytes;
  const std::uint32_t chunks = static_cast<std::uint32_t>((wire + chunk_ - 1) / chunk_);
  rec(id).chunks += static_cast<std::uint64_t>(chunks) * static_cast<std::uint64_t>(p);
  if (pair_bytes_)
    for (int i = 0; i < p; ++i) {
      const CompiledProgram::Ref u = c.cp->at(base + i);
      (*pair_bytes_)[(static_cast<std::uint64_t>(u.src) << 32) | static_cast<std::uint32_t>(u.dst)] += u.bytes;
    }
  const int step = g.step;
  ++grouped_steps_;
  grouped_transfers_ += static_cast<std::uint64_t>(p);
  // The ring's steps but its last keep the group on its links: the next step starts there
  // without a walk over them, unless something released it meanwhile (docs/fabric.md).
  const bool keep = step + 1 < per / p;
  FlowNetwork::MemberDone done = [this, id, ch, step](int member) { group_arrived(id, ch, step, member); };
  if (kept && flow_->next_step(g.flow, g.flow_born, g.member_links, static_cast<double>(wire), g.latency_ps,
                               static_cast<std::uint32_t>(chunk_), chunks, std::move(done), keep))
    return;
  if (kept) flow_->alone(g.links);  // not alike its last step after all: released, started afresh
  g.flow = flow_->start_group(g.links, g.member_links, static_cast<double>(wire), g.latency_ps,
                              static_cast<std::uint32_t>(chunk_), chunks, g.owner, std::move(done), keep);
  g.flow_born = flow_->born(g.flow);
}

// The step's data has arrived everywhere (member -1): each transfer's arrival in ring order,
// which readies (and launches) the next step. Or, the group having been split because another
// flow joined one of its links, one member's: the channel goes per transfer from here.
void CollectiveEngine::group_arrived(int id, int ch, int step, int member) {
  Live* c = live_.find(id);
  if (!c) return;
  const int p = static_cast<int>(c->cp->program.ranks.size()),
            base = ch * c->cp->program.ring.per_channel(p) + step * p;
  if (member >= 0) {
    c->groups[static_cast<std::size_t>(ch)].mode = Live::RingGroup::PerTransfer;
    arrived(id, *c, base + member);
    return;
  }
  for (int i = 0; i < p; ++i) {
    Live* again = live_.find(id);  // the last arrivals finish the collective
    if (!again) return;
    arrived(id, *again, base + i);
  }
}

}  // namespace trainvp
