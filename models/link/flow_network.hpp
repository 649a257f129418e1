#pragma once
// The flow-level fidelity of the fabric (fabric.fidelity "flow", docs/fabric.md#flow-fidelity).
// Every transfer is one flow along its route's link directions. Active flows get the max-min fair
// share of the links they cross (progressive filling), recomputed only when a flow starts or ends
// or a link changes, and only over the flows and links connected to the change (the component),
// which gives the same rates as recomputing everything. A flow drains at its rate; its data has
// arrived one path latency after its last byte left: the links' latencies (with the sending
// devices' forwarding) plus one packet time per hop but the slowest, as cut-through does.
//
// A link's capacity is its payload rate, bandwidth x mtu / (mtu + framing), times the go-back-N
// efficiency under packet loss (expected link time per packet: packet + rate x recovery window),
// and 0 while it is down (its flows wait). There are no queues, no back-pressure and no packet
// events: what those cost in packet fidelity (incast queueing, PFC pauses) is not modelled.
//
// The collective engine's chunks come in through FlowEndpoint: the chunks of one transfer (same
// tag, sent back to back, `more` set on all but the last) make one flow, and each is handed to its
// sink once the flow's data has arrived. A source's copy engine sends its transfers in order, as
// the GPU's DMA port does in packet fidelity (one queue per port, AtInitiator): the transfers
// leaving by the same first link take capacity in the order they were sent: in the progressive
// filling only a source's first unfrozen transfer grows, and the next starts once it has frozen;
// different sources grow together (fill_in_send_order). So the head runs at its bottleneck's rate,
// and the next takes what the head cannot use (its route diverges after the NIC and the head is
// held by a slower link elsewhere), as packet fidelity's next chunk enters the first link while the
// last waits downstream. Fair sharing instead slows both of two collectives in flight at once at
// every step (quickstart: +9% iteration time); holding the next until the head ends puts
// transfers to different peers in series (#45: +38% on asc_wfbp, +55% on a tree all-reduce).
// Link statistics go to the links' LinkStates (set_flow_stats).
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>

#include "models/link/completion_heap.hpp"
#include "models/link/endpoint.hpp"
#include "models/link/link_state.hpp"
#include "models/link/traffic.hpp"
#include "platform/core/calendar.hpp"
#include "platform/core/model_info.hpp"

namespace trainvp {

// FlowNetwork::Ahead (start_group): a kept group's run-ahead, outside the class for its defaults.
struct FlowAhead {
  int steps = 0;
  std::int64_t hop_ps = 0;
  std::function<void(int arrived, bool in_flight, std::int64_t resume_ps)> cut;
};

class FlowNetwork : public sc_core::sc_module, private EventCalendar::Client {
 public:
  static constexpr double kEndless = std::numeric_limits<double>::infinity();
  // How many of a source's queued transfers take capacity at once; the ones behind wait off their
  // links. Each one can cost a round of the filling per recompute: asc_wfbp on 32 GPUs (a queue of
  // one transfer per layer) takes 0.35 s of CPU at 16, 1.2 s at 64 and 3.8 s with no limit (0.18 s
  // before transfers behind the head took any capacity). What transfers deeper than 16 would get is
  // next to nothing where chunks are 1 MiB (fuzz-runs campaign 77: no flow time moved over 0.6%
  // against no limit at 8); a 128 MiB tree in 64 KiB chunks, 64 per connection, is the exception
  // (docs/fabric.md#where-flow-fidelity-is-wrong).
  static constexpr int kActiveDepth = 16;
  using Done = std::function<void()>;

  // `links`: the fabric's link directions by id (Route::links indexes them).
  FlowNetwork(sc_core::sc_module_name name, std::vector<LinkState*> links, EventCalendar& calendar);
  static const ModelInfo& info();

  // Starts a flow of `bytes` (kEndless: until stop()) along `links` (ids; the vector must outlive
  // the flow). A positive `rate_cap_Bps` caps its rate (a paced source). `done` runs when its data
  // has arrived. Returns its id.
  int start(const std::vector<int>& links, double bytes, double rate_cap_Bps, Done done, bool background = false);
  // Ends an endless flow now (its bytes so far are counted).
  void stop(int flow);
  // A collective chunk (ChunkExt with route and sink): merged into its transfer's flow.
  void submit(tlm::tlm_generic_payload* chunk);
  // A group of alike transfers moving in lock-step (one step of a ring channel, the collective
  // engine's grouping: docs/fabric.md#ring-steps-as-one-flow) as one flow: `links` concatenates
  // the members' routes (`members`, one per member), each member `bytes` in `chunks` chunks of
  // `chunk_bytes` (the last one the rest), all of it arriving `latency_ps` after the last byte
  // left. The links count what the members' own flows would have: bytes, chunks and wire bytes per
  // member crossing them, `owner`'s bytes (route owner, -1: none). `links` must be alone() now:
  // the flow starts at its bottleneck's rate without a recompute. `done(-1)`: every member's data
  // has arrived. Until then the group stays alone: a flow that would join one of its links, or a
  // change of one, first splits it into a flow per member, each as far as the group had come and
  // queued at its source as if sent alone, and each calls `done(member)` when its data arrives.
  // The vectors must outlive the group's step.
  //
  // `keep` (a ring's steps but its last, docs/fabric.md#ring-steps-as-one-flow): when the step
  // ends the group stays on its links, and next_step() starts the ring's next step from there
  // without a walk over them; their busy time and counters take its steps when something else
  // touches them (a flow joining one of them releases the group, in a gap or mid-step as above),
  // at its last step's end, or at settle(), exactly as each step's own start and end would have.
  using MemberDone = std::function<void(int member)>;
  // Run-ahead (docs/fabric.md#a-ring-run-ahead): a kept group whose later steps are all alike this
  // one runs `steps` more of them on its own, each starting `hop_ps` after the last one's data
  // arrived (NCCL's per-hop latency), the last of them not kept: no event per step, and one
  // done(-1) when the last step's data has arrived. What touches it earlier (a flow joining one of
  // its links, a change of one, a release, the run's end) ends the run-ahead there first, as the
  // steps would have left it, and `cut` says how far it had come: `arrived` steps whose data had
  // arrived by then, whether the next is on the wire or on its way (`in_flight`: the group goes on
  // with it as an ordinary step, done(-1) or its members' done as usual), and, when it is between
  // steps (`in_flight` false), when the next step would have started (`resume_ps`). `cut` must not
  // call back into the network.
  using Ahead = FlowAhead;
  int start_group(const std::vector<int>& links, const std::vector<const std::vector<int>*>& members, double bytes,
                  std::int64_t latency_ps, std::uint32_t chunk_bytes, std::uint32_t chunks, int owner, MemberDone done,
                  bool keep = false, Ahead ahead = {});
  // Group `group` (born `born`: the id is not reused meanwhile) is still kept on its links, its
  // last step has arrived and this step is alike it (bytes, latency, chunks): starts it now and
  // returns true. Else false: the caller starts the step afresh (alone(), start_group()). A step
  // takes a new place in creation order (born(), which the caller keeps for the next), as its
  // members would have without grouping; start_group reserves a place for each member, which a
  // split gives them.
  bool next_step(int group, std::uint64_t born, const std::vector<const std::vector<int>*>& members, double bytes,
                 std::int64_t latency_ps, std::uint32_t chunk_bytes, std::uint32_t chunks, MemberDone done, bool keep,
                 Ahead ahead = {});
  // Every group running ahead ends its run-ahead now (cut): the fabric's routes are about to change.
  void cut_ahead();
  bool running_ahead(int group) const { return flows_[static_cast<std::size_t>(group)].ahead > 0; }
  std::uint64_t born(int flow) const { return flows_[static_cast<std::size_t>(flow)].born; }
  // Group `group` (born `born`) is kept on its links between steps, its last step arrived: no other
  // flow is on them, as alone() would find.
  bool kept(int group, std::uint64_t born) const {
    if (group < 0 || static_cast<std::size_t>(group) >= flows_.size()) return false;
    const Flow& f = flows_[static_cast<std::size_t>(group)];
    return f.born == born && f.held && !f.live && !f.delivering;
  }
  // What a transfer alone on `links` would see: its path latency with a first chunk of
  // `first_bytes` and its bottleneck's payload rate (bytes per ps).
  std::int64_t latency(const std::vector<int>& links, double first_bytes) const {
    return path_latency(links, first_bytes);
  }
  double bottleneck(const std::vector<int>& links) const;
  // No flow crosses any of `links` now, and none of them is listed twice. A group kept between its
  // steps on one of them is released first: its links are idle.
  bool alone(const std::vector<int>& links);
  // Moves whenever a link's parameters change (what latency() and bottleneck() answer).
  std::uint64_t links_version() const { return latency_version_; }
  // Link direction `link`'s bandwidth, latency, down state or loss rate changed: re-read it.
  void link_changed(int link);
  // Statistics up to now into the LinkStates (call at the end of the run).
  void settle();
  // Steady-state fast-forward (flow_network_repeat.cpp), as LinkDir::totals and add_repeats: link
  // `link`'s counters up to `now_ps` (its busy time integrated to then), and `times` x their growth
  // from `from` to `to` for skipped iterations. Endless (background) flows are not accounted:
  // fast-forward is off while they run.
  LinkDirTotals totals(int link, std::int64_t now_ps) const;  // a kept group's steps included
  void add_repeats(int link, const LinkDirTotals& from, const LinkDirTotals& to, int times, std::int64_t skip_from_ps,
                   std::int64_t skip_to_ps);

  double rate_Bps(int flow) const;    // current rate, payload bytes per second
  double sent_bytes(int flow) const;  // payload bytes drained so far (as of the last recompute)
  std::size_t active_flows() const { return active_; }
  std::uint64_t recomputes() const { return recomputes_; }

 private:
  struct Link {
    LinkState* dir;
    double cap = 0;  // payload bytes per ps available to flows
    // What path_latency needs of it, read with cap: a flow's start looks at no LinkState.
    double hop_latency_ps = 0;            // latency with the sender's forwarding
    double packet_ps = 0;                 // a full packet's time on the wire
    std::uint32_t mtu = 0, overhead = 0;  // framing, for the wire bytes of what it carried
    bool whole_packets = false;
    double load = 0;         // sum of the rates of its flows
    double was = 0;          // recompute: the load before it
    std::int64_t since = 0;  // busy time integrated up to here
    double busy_ps = 0;
    // Busy time not yet in the LinkState's series: what fell in its bucket [pend_lo, pend_hi),
    // summed here, so that a rate change costs no cache miss on the series (integrate_at; pend_hi
    // 0: no bucket open). pend_end: the end of the last stretch summed.
    std::int64_t pend_lo = 0, pend_hi = 0, pend_end = 0;
    double pend = 0;
    // Active flows crossing it, each with the index of this link on its route: a flow leaving
    // moves the last one into its place and tells it its new slot without searching its route.
    struct Member {
      int flow, hop;
    };
    std::vector<Member> flows;
    int fifo_head = -1, fifo_tail = -1;  // transfers leaving by it in send order
    // Progressive filling scratch.
    double residual = 0;
    int unfrozen = 0;
    int growing = 0;      // fill_in_send_order: flows crossing it that grow this round
    bool active = false;  // fill_in_send_order: in its list of links that grow
    std::uint32_t mark = 0;
    LinkDirStats stats;
  };
  struct Flow {
    const std::vector<int>* links = nullptr;
    std::vector<int> slot;  // index of this flow in each link's `flows`
    double remaining = 0, total = 0, sent = 0;
    double rate = 0;           // bytes per ps
    double cap = 0;            // bytes per ps, 0: none
    std::int64_t updated = 0;  // remaining/sent are as of this time
    std::int64_t latency = 0;
    std::uint32_t mark = 0;
    std::uint64_t born = 0;  // creation order: the order a component's flows are filled and projected in
    bool frozen = false, live = false, background = false;
    bool growing = false;  // fill_in_send_order: growing this round
    std::uint64_t tag = 0;
    bool open = false;                   // still taking chunks of its transfer
    int fifo = -1;                       // the first link whose send queue it is in (engine transfers)
    int fifo_prev = -1, fifo_next = -1;  // the transfers ahead of and behind it there
    int level = 0;                       // its place in that queue (0: the head, which grows first)
    bool waiting = false;                // deeper than kActiveDepth: not on its links yet
    // A group (start_group): each member's chunks (0: not a group) and their full size, and the
    // route owner the members' bytes count for.
    std::uint32_t group_chunks = 0, group_chunk = 0;
    int owner = -1;
    const std::vector<const std::vector<int>*>* members = nullptr;  // a group's, until split
    int member = -1;                                                // a split group's member
    MemberDone member_done;                                         // a group's or its members'
    // A group kept on its links between steps (start_group's `keep`): its links' since and load
    // are not kept up to date meanwhile; flush_group() adds its ended steps to them.
    bool held = false;        // on its links, stepping or between steps
    bool keep = false;        // this step is not the last: stays on its links when it ends
    bool delivering = false;  // a step's arrival is due: the id is freed after it unless held
    std::int64_t step_from = 0;
    std::vector<std::int64_t> ended;              // ended steps not yet on its links: from, to, from, to...
    std::unique_ptr<std::vector<int>> own_links;  // held: its links, which the caller may drop
    // Running ahead (start_group's `ahead`): `ahead` more steps after the one that started at
    // step_from, each drain_ps on the wire and starting latency + hop_ps after the last one's end.
    int ahead = 0;
    std::int64_t drain_ps = 0, hop_ps = 0;
    std::function<void(int, bool, std::int64_t)> cut;
    std::vector<tlm::tlm_generic_payload*> chunks;
    Done done;
  };
  struct Due {  // a finished flow's data arriving
    std::int64_t at;
    std::uint64_t seq;  // ties in finish order: runs are deterministic
    int flow;
    bool operator>(const Due& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  using MinHeap = std::priority_queue<Due, std::vector<Due>, std::greater<Due>>;

  int create(const std::vector<int>& links, double bytes, double rate_cap_Bps, Done done, bool background,
             const Route* route = nullptr);
  void activate(int id);
  void read_link(Link& l);
  void dirty(int link);
  void integrate(Link& k, std::int64_t now);
  void integrate_at(Link& k, std::int64_t now, double load);
  void flush_pending(Link& k);  // the summed busy time into the series, and the bucket closed
  void advance(Flow& f, std::int64_t now);
  void recompute();
  std::vector<int>& count_unfrozen();
  void fill_fair();
  void fill_in_send_order();
  void leave_queue(Flow& f);
  void leave_links(Flow& f, std::int64_t now);
  void enqueue(int id, int first_link);  // at the tail of the send queue of its first link
  void split_groups_on(const std::vector<int>& links);
  void split(int group);
  void run_ahead(int id, Ahead ahead);                   // start_group and next_step: sets up the run and its end
  void end_ahead(int group, std::int64_t t, bool tell);  // the run-ahead as the steps would have left it at t
  void end_kept_step(int id, std::int64_t from, std::int64_t to);
  void release(int group);          // a kept group between steps leaves its links
  void flush_group(Flow& g);        // a kept group's ended steps into its links
  bool kept(const Link& k) const {  // a kept group is on it (alone, as groups are)
    return k.flows.size() == 1 && flows_[static_cast<std::size_t>(k.flows[0].flow)].held;
  }
  // What one ended step of group `g` adds to link `k`'s counters, as account() would.
  void step_counts(const Link& k, const Flow& g, LinkDirStats& s, std::uint64_t steps) const;
  void on_finish();
  void on_deliver();
  void finish(int id, std::int64_t now);
  void account(Flow& f);
  void reschedule();
  // `largest_mtu`, if given, receives the path's largest MTU: from that first-chunk size on the
  // latency no longer depends on it (Route's cache).
  std::int64_t path_latency(const std::vector<int>& links, double first_bytes, double* largest_mtu = nullptr) const;

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<int> free_;
  std::size_t active_ = 0;
  std::unordered_map<std::uint64_t, int> open_;  // transfer tag -> flow taking its chunks
  std::vector<int> dirty_links_;
  std::vector<int> moved_up_;
  std::size_t live_groups_ = 0;  // groups on their links: none, and a new flow has nothing to split  // leave_queue:
                                 // transfers that left waiting, for finish to activate
  std::uint32_t epoch_ = 0;
  std::vector<int> comp_links_, comp_flows_, stack_, bottlenecks_, frozen_now_, active_links_;
  std::vector<std::pair<std::uint64_t, int>> comp_born_;  // recompute: its flows by creation order
  std::vector<std::uint32_t> sizes_;                      // account's scratch: the chunk sizes of the flow ending
  CompletionHeap finishes_;                               // projected ends of the flows with a rate, one entry each
  MinHeap deliveries_;
  std::uint64_t seq_ = 0, recomputes_ = 0, born_ = 0;
  std::uint64_t latency_version_ = 1;  // moves when a link changes: routes' cached latencies are stale
  sc_core::sc_event recompute_ev_;
  // Projected ends and deliveries are entries in the run's calendar, so that they take their turn
  // among the GPUs' and links' same-time events first come, first served, not in the SystemC
  // kernel's heap order (platform/core/calendar.hpp). A tag drops a superseded entry.
  enum DueKind : std::uint32_t { kFinish, kDeliver };
  void on_due(std::uint32_t kind, std::uint32_t tag) override;
  EventCalendar& calendar_;
  // When the finish entry is due (-1: none). Moved, not left early, when the first projected end
  // moves later: a wake that finds nothing due would still take a turn in that instant.
  std::int64_t finish_at_ = -1;
  std::uint32_t finish_tag_ = 0, deliver_tag_ = 0;
  bool recompute_pending_ = false;
  bool owners_settled_ = false;  // settle() has added the cut flows' bytes to their owners
};

// A GPU's copy engines as the engine sees them in flow fidelity: chunks go to the flow network.
class FlowEndpoint : public ChunkEndpoint {
 public:
  FlowEndpoint(FlowNetwork& net, std::string name) : net_(net), name_(std::move(name)) {}
  void send_chunk(tlm::tlm_generic_payload* chunk) override { net_.submit(chunk); }
  const char* endpoint_name() const override { return name_.c_str(); }

 private:
  FlowNetwork& net_;
  std::string name_;
};

// A paced background source in flow fidelity (congestion faults): one endless flow at most
// `rate_Bps`, on while `pattern` allows, along the route `route` gives when it turns on.
class FlowSource : public sc_core::sc_module {
 public:
  using RouteFn = std::function<const std::vector<int>*()>;
  FlowSource(sc_core::sc_module_name name, FlowNetwork& net, TrafficPattern pattern, double rate_Bps, RouteFn route);
  double sent_bytes() const;

 private:
  void tick();
  FlowNetwork& net_;
  TrafficPattern pattern_;
  double rate_Bps_;
  RouteFn route_;
  int flow_ = -1;
  double done_bytes_ = 0;
  sc_core::sc_event wake_;
};

}  // namespace trainvp
