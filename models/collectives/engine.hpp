#pragma once
// Runs collective programs as chunked transfers through the GPUs' DMA ports and the fabric (the
// role NCCL plays). Several collectives may be in flight; each rank joins a collective when its
// data is ready (a DDP bucket's gradients, a benchmark iteration's start), and a transfer starts
// only when its source and destination have joined and its dependencies have arrived.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <systemc>

#include "models/collectives/functional.hpp"
#include "models/collectives/collective_call.hpp"
#include "models/collectives/program.hpp"
#include "models/link/chunk.hpp"
#include "models/link/endpoint.hpp"
#include "models/link/flow_network.hpp"
#include "models/link/route_provider.hpp"
#include "platform/core/flat_map.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/slot_table.hpp"
#include "platform/core/tlm/payload_pool.hpp"
#include "platform/core/tlm/timed_queue.hpp"
#include "platform/core/trace_source.hpp"

namespace trainvp {

// NCCL's protocol costs on the collectives NCCL would run (fabric.nccl.model "tuner";
// nccl_tuner.hpp): what the engine needs to estimate a collective's bus bandwidth as NCCL does.
struct NcclCosts {
  bool on = false;
  std::vector<int> node_of;        // per GPU rank
  std::vector<double> intra_Bps;   // per GPU rank: the payload rate of its link into the node (NVLink, else PCIe)
  std::vector<double> nvlink_Bps;  // per GPU rank: its NVLink line rate per direction (0: none), for NVLS
  double inter_Bps = 0;            // a NIC's payload rate
  bool hopper = false;             // sm90's per-channel caps
  int channels = 24;               // NCCL's channels, for the per-channel caps
};

struct CollectiveRecord {
  int id = 0;
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algo = CollectiveAlgo::Ring;
  std::string label;               // e.g. "ddp it3 bucket7"
  const char* protocol = nullptr;  // NCCL's protocol under fabric.nccl.model "tuner"; null: the fabric's bound
  std::uint64_t bytes = 0;
  int ranks = 0;
  std::int64_t start_ps = -1;  // first join
  std::int64_t end_ps = -1;    // last rank done
  std::uint64_t transfers = 0;
  std::uint64_t chunks = 0;
  bool failed = false;     // abandoned by the transport give-up (end_ps: when)
  bool abandoned = false;  // failed: given up by its owner (abandon), not by a give-up of its own
};

// A ring channel's routes as a grouped step sees them (ring_groups.cpp): found once per program,
// link and route version and NCCL protocol, since every collective of a TP group reuses its
// program (hundreds of thousands per iteration, each walking its members' routes before).
struct RingShape {
  std::uint64_t links_version = 0, routes_version = 0;
  double wire_per_byte = 1;
  std::int64_t intra_hop_ps = 0, inter_hop_ps = 0;
  bool alike = false;  // the members' bottleneck, path latency and hop latency are equal
  int owner = -1;      // the routes' owner (one job's ranks)
  std::int64_t latency_ps = 0;
  std::vector<int> links;                             // the routes' links, concatenated
  std::vector<const std::vector<int>*> member_links;  // each route's links, by ring position
};

// A program with the bookkeeping the engine needs precomputed once (collectives repeat every
// iteration): dependents of each transfer, each rank's transfers, positions of ranks. An implicit
// ring (Program::ring) needs none of it: its structure is arithmetic.
struct CompiledProgram {
  explicit CompiledProgram(Program p);
  Program program;
  std::vector<int> waiting0;                  // per transfer: dependencies + 2 (both endpoints join)
  std::vector<int> dep_begin, dependents;     // CSR: dependents of transfer x
  std::vector<std::vector<int>> by_position;  // transfers with the position's rank as an endpoint
  std::unordered_map<int, int> pos;           // global rank -> position (a repeated rank: its last)
  std::vector<int> src_pos, dst_pos;          // per transfer (explicit form): its endpoints' positions
  // The communicator (its ranks in order): with a transfer's channel and endpoints it names the
  // connection ECMP hashes (CollectiveEngine::send).
  std::uint64_t comm_key = 0;
  mutable std::vector<std::shared_ptr<const RingShape>> ring_shapes;  // per channel, CollectiveEngine's cache

  // pos.at(rank), without the hash for a small communicator (TP groups: millions of joins per
  // iteration, each on a cold bucket); the last of a repeated rank, as pos holds.
  int position_of(int rank) const {
    const std::vector<int>& r = program.ranks;
    if (r.size() > 16) return pos.at(rank);
    for (std::size_t i = r.size(); i-- > 0;)
      if (r[i] == rank) return static_cast<int>(i);
    throw std::out_of_range("CompiledProgram::position_of: rank not in the communicator");
  }
  bool ring() const { return program.ring.steps > 0; }
  std::size_t size() const {
    return ring() ? static_cast<std::size_t>(program.ring.channels) * static_cast<std::size_t>(program.ring.steps) *
                        program.ranks.size()
                  : program.transfers.size();
  }
  // What the engine needs of transfer x; `full` is null for a ring's (no reduction, default data).
  struct Ref {
    int src, dst;
    std::uint64_t bytes;
    const Transfer* full;
  };
  Ref at(int x) const;
  int transfers_of(int position) const;  // transfers with the position's rank as an endpoint
  // Positions of transfer x's source and destination (pos of its ranks, without a hash lookup).
  std::pair<int, int> positions(int x) const {
    if (!ring()) return {src_pos[static_cast<std::size_t>(x)], dst_pos[static_cast<std::size_t>(x)]};
    const RingForm& f = program.ring;  // a ring's ranks are distinct
    const int p = static_cast<int>(program.ranks.size()), per = f.per_channel(p), c = x / per, i = x % per % p;
    return {f.position(c, i), f.position(c, (i + 1) % p)};
  }
  const DataRange no_data{};
};

class CollectiveEngine : public sc_core::sc_module, public ChunkSink {
 public:
  using RankDone = std::function<void(int rank)>;

  // `ranks`: the GPUs' endpoints, by rank.
  CollectiveEngine(sc_core::sc_module_name name, std::vector<ChunkEndpoint*> ranks, RouteProvider& routes,
                   std::uint64_t chunk, RunContext& ctx);
  static const ModelInfo& info();

  // Registers a collective; nothing moves until ranks join. `on_rank_done` runs when all of a
  // rank's transfers (sent and received) have arrived. Returns the collective's id.
  // In functional mode, `layout` says what the buffer holds: its values then travel in the chunks
  // and are checked where they arrive at GPUs (null: timing only).
  int launch(std::shared_ptr<const CompiledProgram> program, CollectiveOp op, CollectiveAlgo algo, std::uint64_t bytes,
             std::string label, RankDone on_rank_done, std::shared_ptr<const BufferLayout> layout = nullptr);
  int launch(Program program, CollectiveOp op, CollectiveAlgo algo, std::uint64_t bytes, std::string label,
             RankDone on_rank_done) {
    return launch(std::make_shared<const CompiledProgram>(std::move(program)), op, algo, bytes, std::move(label),
                  std::move(on_rank_done));
  }
  // Functional mode: the generator and checker of the values (null: off).
  void set_functional(FunctionalData* f) { functional_ = f; }
  const FunctionalData* functional() const { return functional_; }
  void join(int id, int rank);
  bool rank_done(int id, int rank) const;

  // Transport failure (docs/faults.md#transport-failure), off (0) by default: a transfer in
  // flight whose chunks make no progress for give_up_ps (RDMA: retry_cnt x transport timeout)
  // fails its collective. Every rank's part is abandoned (chunks still in the fabric are dropped
  // where they arrive), the record is marked failed, and the collective's `on_failed` runs.
  void set_give_up(std::int64_t give_up_ps) { give_up_ps_ = give_up_ps; }
  std::int64_t give_up_ps() const { return give_up_ps_; }
  void on_failed(int id, std::function<void(int id)> f);
  // The owner gives up a live collective it no longer needs (an earlier step of its unit ran out
  // of tries, so the ranks that entered this one will never be joined by the rest): it ends as a
  // failure does, but the owner is not called back.
  void abandon(int id) {
    if (live_.contains(id)) fail(id, false);
  }

  // Registers a device port as a fabric endpoint (returns its endpoint id, after the GPUs'
  // ranks); `reducer` runs the reduce steps addressed to it.
  int add_device_endpoint(ChunkEndpoint* ep, ReduceDevice* reducer);
  int world() const { return world_; }
  // Where reduction devices sit, for programs that use them (cxl_allreduce).
  void set_device_map(DeviceMap m) { device_map_ = std::move(m); }
  const DeviceMap& device_map() const { return device_map_; }
  // How programs built for this engine lay out flat rings (fabric.nccl).
  void set_ring_layout(RingLayout l) { ring_layout_ = std::move(l); }
  const RingLayout& ring_layout() const { return ring_layout_; }
  // NCCL's protocol costs on ring and tree collectives of GPUs (off: the fabric's bound).
  void set_nccl_costs(NcclCosts c) { nccl_ = std::move(c); }
  // Flow fidelity: the network a ring step whose transfers are alike and cross idle links goes to
  // as one flow (ring_groups.cpp, docs/fabric.md#ring-steps-as-one-flow); null: none.
  void set_flow_network(FlowNetwork* f) { flow_ = f; }
  // Ring steps that went as one flow, and ring transfers they stood for.
  std::uint64_t grouped_steps() const { return grouped_steps_; }
  std::uint64_t grouped_transfers() const { return grouped_transfers_; }

  // The records not folded yet (fold): collective ids first_record() to record_count() - 1.
  const std::deque<CollectiveRecord>& records() const { return records_; }
  std::size_t first_record() const { return first_; }
  std::size_t record_count() const { return first_ + records_.size(); }
  const CollectiveRecord& record(std::size_t id) const;  // throws std::out_of_range once folded
  // Long runs keep memory bounded: drops records from the front while they are below `upto`,
  // complete, not failed and of a kind the report only sums (`summed`, by label), handing each to
  // `add` in id order; stops at the first that is not. Returns how many it dropped.
  std::size_t fold(std::size_t upto, const std::function<bool(const std::string&)>& summed,
                   const std::function<void(const CollectiveRecord&)>& add);
  // Per rank, the [join, done] intervals of every collective, for communication-time accounting.
  struct Interval {
    std::int64_t start, end;
  };
  const std::vector<Interval>& intervals(int rank) const { return intervals_[static_cast<std::size_t>(rank)]; }
  // Only a reader of intervals() (ParallelSync's accounting) asks for them: a run without one keeps
  // none (16 bytes per rank and collective, and fast-forward's copies of every skipped period).
  void keep_intervals() { keep_intervals_ = true; }
  // The reader has folded the first `n` of `rank`'s intervals (CommFolder): they go.
  void drop_intervals(int rank, std::size_t n) {
    auto& list = intervals_[static_cast<std::size_t>(rank)];
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(n));
  }
  // When `rank` joined the earliest of the collectives it joined and is not done with (INT64_MAX:
  // none): every interval still to come for it starts there or later.
  std::int64_t earliest_open_join(int rank) const;
  std::uint64_t chunk() const { return chunk_; }
  std::size_t in_flight() const { return live_.size(); }
  // Transfers ready and not yet arrived (waiting out NCCL's latencies, on the wire, or reducing),
  // and the chunks of failed collectives still draining from the fabric:
  // while any moves, the engine has work of its own that needs no rank to act. `quiet_event`
  // fires when the count falls to 0 (RunEnd waits for it: #45, a run with background traffic
  // ends when the GPUs are done and nothing moves, as a run without starves then).
  std::size_t moving() const { return moving_ + draining_; }
  // Collective `id`'s transfers do not count in moving(): background work the run may end with
  // still under way (an unbounded checkpoint job's burst). Call before any rank joins.
  void set_background(int id);
  const sc_core::sc_event& quiet_event() const { return quiet_; }
  // No collective in flight has `rank` still to join or still moving its transfers.
  bool rank_idle(int rank) const;
  // Steady-state fast-forward: appends `times` copies of each rank's intervals that start at or
  // after since_ps, copy m shifted by m x period_ps (the ranks' communication time of skipped
  // iterations).
  void repeat_intervals(std::int64_t since_ps, int times, std::int64_t period_ps);
  // Told of every GPU rank's call start and return (the fail-slow monitors: one per job that has
  // `health`), in the order they were added.
  // Its trace sources: each GPU rank's call of a collective and its return, as an NCCL
  // interposer sees them (the fail-slow monitor listens).
  TraceSource<const CollectiveCall&> call_started{"call_started"}, call_ended{"call_ended"};
  const TraceSources& trace_sources() const { return trace_sources_; }
  // Steady-state fast-forward: appends `times` copies of the complete records `which` (in that
  // order), copy m shifted by m x period_ps and labelled relabel(label, m), so that results list
  // the collectives of skipped iterations.
  void repeat_listed(const std::vector<std::size_t>& which, int times, std::int64_t period_ps,
                     const std::function<std::string(const std::string&, int)>& relabel);
  // Bytes each endpoint sent to each other since count_pairs() (S3's role swap weighs placements
  // by them), keyed src << 32 | dst; null until then, since it costs a table add per transfer.
  void count_pairs();
  const FlatMap64<std::uint64_t>* pair_bytes() const { return pair_bytes_.get(); }
  // For stall reports: what a collective is waiting for on a rank.
  std::string describe(int id, int rank) const;

  void chunk_delivered(tlm::tlm_generic_payload& p) override;

 private:
  // A transfer held for its ring step's grouping, numbered in the order transfers were held: held
  // ones that leave per transfer after all leave in that order, as they would have without grouping.
  struct HeldTransfer {
    int x;
    std::uint64_t seq;
  };
  struct Live {
    std::shared_ptr<const CompiledProgram> cp;
    std::vector<int> waiting;                // per transfer: unmet dependencies + unjoined endpoints
    std::vector<std::uint32_t> chunks_left;  // per transfer in flight
    // An implicit ring keeps O(ranks) state instead: transfer x counts position j as joined once
    // j's join has reached it (x <= join_mark[j]: -1 before the join, INT_MAX after), and
    // `dep_arrived` holds the transfers whose dependency arrived before one of their endpoints
    // had joined. A transfer is ready when its dependency has arrived and both endpoints count as
    // joined: the moment the explicit form's `waiting` reaches 0.
    std::vector<int> join_mark;
    // Flat tables: both are touched once per transfer.
    FlatMap64<bool> dep_arrived;
    FlatMap64<std::uint32_t> ring_chunks_left;
    std::vector<int> left;                // per position: transfers not yet arrived
    std::vector<std::int64_t> joined_at;  // per position, -1 before joining
    int ranks_left = 0;
    std::size_t moving = 0;   // its transfers ready and not arrived (the engine's moving_ sums them)
    bool background = false;  // set_background: not counted in moving_
    // Shared, so that each rank's done copies a pointer, not the owner's closure (a heap copy).
    std::shared_ptr<const RankDone> on_rank_done;
    std::shared_ptr<const BufferLayout> layout;      // functional mode only
    std::unordered_map<int, std::int64_t> progress;  // give-up on: transfer in flight -> its last progress
    std::function<void(int)> on_failed;
    // NCCL's protocol (set_nccl_costs): latencies before a transfer's chunks leave, and the bytes
    // they put on the wire per payload byte (>= 1).
    std::int64_t base_ps = 0, intra_hop_ps = 0, inter_hop_ps = 0;
    double wire_per_byte = 1;
    // A ring channel's steps as one flow each (ring_groups.cpp), per channel; empty: never.
    // Undecided until its first step's transfers are ready: all in the same delta cycle makes it
    // Grouped, else PerTransfer. Grouped holds while each step's transfers are alike and cross
    // links nothing else uses; the first step that is not goes PerTransfer for good.
    struct RingGroup {
      enum Mode : std::uint8_t { Undecided, Grouped, PerTransfer } mode = Undecided;
      std::vector<HeldTransfer> held;          // Undecided: the first step's transfers ready so far
      int ready = 0, step = 0;                 // Grouped: the step collected (or in flight) and its count
      std::shared_ptr<const RingShape> shape;  // its routes as last found (group_alike)
      // The flow network's group its last step ran as, kept on its links for the next (-1: none).
      int flow = -1;
      std::uint64_t flow_born = 0;
      // Run-ahead (docs/fabric.md#a-ring-run-ahead): the flow network runs steps up to
      // `ahead_until` on its own; `flying` is the next step whose data is to arrive, `counted` the
      // last whose send is counted in the record; `resume_ps` >= 0: when the next step starts
      // (the run-ahead was cut between steps).
      int flying = 0, ahead_until = -1, counted = -1;
      std::int64_t resume_ps = -1;
      // The ring positions of the first step in the order their transfers were ready. Per transfer,
      // step s's transfers leave and arrive in that order shifted by s (an arrival at position i
      // readies position i's next send): the group hands its members to the network and their
      // arrivals to the engine in it, so that same-time events keep the order they would have had.
      std::vector<int> order;
      std::vector<std::uint64_t> order_seq;             // and their ready numbers (ready_seq_)
      std::vector<int> sent_pos;                        // this step's members: their ring positions
      std::vector<const std::vector<int>*> sent_links;  // and routes, in send order (the network's members)
    };
    std::vector<RingGroup> groups;
  };
  struct DelayedSend {
    int id, x;
  };
  void ready(int id, Live& c, int x);
  // `what` runs `delay_ps` from now (on_delayed), in a DelayedSend of the pool.
  // Sends due at the same time leave in the order of `seq`: the ready number (ready_seq_) of what
  // they send, so that held transfers released late keep their place.
  void delay_send(const DelayedSend& what, std::int64_t delay_ps, std::uint64_t seq);
  // After NCCL's latencies, send. `seq`: a held transfer's number (a transfer ready now: none).
  void dispatch(int id, Live& c, int x, std::uint64_t seq = kReadyNow);
  static constexpr std::uint64_t kReadyNow = ~std::uint64_t{0};
  void send(int id, Live& c, int x);  // transfer x's chunks leave its source
  const Route& route_of(const Live& c, int x) const;
  std::int64_t hop_delay(const Live& c, int src, int dst) const;
  // Grouped ring steps (ring_groups.cpp).
  void init_groups(Live& c);
  bool group_ready(int id, Live& c, int x);
  void launch_group(int id, Live& c, int ch);
  bool group_alike(Live& c, int ch);
  void send_group(int id, Live& c, int ch);
  void group_arrived(int id, int ch, int member);
  void ahead_cut(int id, int ch, int arrived, bool in_flight, std::int64_t resume_ps);
  // Grouped arrivals wait a delta, as a transfer's tail does (on_tail, before the tails), and
  // leave merged across groups in the order their transfers would have been sent (Arrival::key):
  // per transfer, rings that arrive at the same instant interleave their members, and the ranks
  // they finish wake in that order.
  struct GroupTail {
    int id, ch;
    int x;       // a split member's transfer, or -1: the group's last steps
    int steps;   // x < 0: how many steps arrived
    int member;  // x >= 0: the member's place in its step's send order
  };
  struct Arrival {
    std::uint64_t key;
    int id, x;
  };
  // Grouped steps that leave per transfer in one on_delayed pass, merged by the same keys: per
  // transfer, rings whose steps become ready together interleave their sends.
  std::vector<Arrival> group_sends_;
  bool in_delayed_ = false;
  void flush_group_sends();
  std::vector<GroupTail> group_tails_;
  std::vector<Arrival> arrivals_;  // group_tails' scratch
  sc_core::sc_event group_tail_;
  void group_tails();
  // Steps but the last of a catch-up counted off; the last step's arrivals appended with their keys.
  void catch_up(int id, int ch, int steps, std::vector<Arrival>& out);
  void count_group_steps(int id, Live& c, int ch, int upto);
  int group_position(const Live& c, int ch, int step, int j) const;  // the j-th to leave in step `step`
  void order_members(Live& c, int ch, int step);                     // sent_pos and sent_links for it
  void decide_groups();
  std::vector<HeldTransfer> take_held(Live& c, int ch);
  struct Release {
    int id;
    HeldTransfer t;
  };
  // Held transfers leaving per transfer: with every undecided channel's that a source among them
  // had ready earlier, all in the order they were held.
  void release_in_order(std::vector<Release> out);
  bool held_before(int src, std::uint64_t seq) const;  // src holds a transfer held before `seq`
  void nccl_protocol(int id, Live& c);
  void on_delayed();
  std::uint32_t& chunks_left(Live& c, int x);
  void join_ring(int id, std::shared_ptr<const CompiledProgram> cp, int position);
  void ring_dep_arrived(int id, Live& c, int x);
  void on_tail();  // a delivered chunk's last byte has arrived
  void arrived(int id, Live& c, int x);
  void finish_rank(int id, Live& c, int position);
  void watch(Live& c, int x);  // transfer x is in flight: its give-up clock starts
  void progressed(Live& c, int x, bool last);
  void on_watchdog();
  void fail(int id, bool tell_owner = true);

  std::vector<ChunkEndpoint*> endpoints_;  // GPUs by rank, then device ports
  std::vector<ReduceDevice*> reducers_;    // per endpoint; null for GPUs
  int world_ = 0;
  DeviceMap device_map_;
  RingLayout ring_layout_;
  RouteProvider& routes_;
  std::uint64_t chunk_;
  RunContext& ctx_;
  BasicPayloadPool<ChunkPayload> pool_;         // chunks: payload and extension in one allocation
  TimedQueue<tlm::tlm_generic_payload> tails_;  // delivered chunks, due when their tails arrive
  TimedQueue<DelayedSend> delayed_;             // transfers waiting out NCCL's latencies
  // Every DelayedSend lives here (delivered ones are reused), so one still queued when a run ends
  // early (RunEnd, with congestion) goes with the engine instead of leaking (#45).
  std::deque<DelayedSend> delayed_pool_;
  std::vector<DelayedSend*> delayed_free_;
  NcclCosts nccl_;
  SlotTable<Live> live_;                  // collectives in flight, by id (dense and increasing: no hash per chunk)
  std::deque<CollectiveRecord> records_;  // by id - first_ (a deque: pointers handed out stay valid)
  std::size_t first_ = 0;                 // records folded so far
  CollectiveRecord& rec(int id) { return records_[static_cast<std::size_t>(id) - first_]; }
  std::vector<std::vector<Interval>> intervals_;
  bool keep_intervals_ = false;
  FunctionalData* functional_ = nullptr;
  TraceSources trace_sources_{{&call_started, &call_ended}};
  std::int64_t give_up_ps_ = 0;
  std::size_t moving_ = 0;          // transfers ready and not arrived, over all live collectives
  std::size_t draining_ = 0;        // chunks of failed collectives still crossing the fabric
  sc_core::sc_event quiet_;         // moving_ fell to 0
  std::size_t watched_ = 0;         // transfers in flight with a give-up clock
  sc_core::sc_event watchdog_;      // armed only while watched_ > 0, so idle runs still end
  std::unordered_set<int> failed_;  // collectives given up: their late chunks are dropped
  std::unique_ptr<FlatMap64<std::uint64_t>> pair_bytes_;
  FlowNetwork* flow_ = nullptr;
  std::uint64_t grouped_steps_ = 0, grouped_transfers_ = 0;
  std::vector<std::pair<int, int>> undecided_;  // (collective, channel) with a first step held
  // Per endpoint, its transfers held there: another transfer it sends first lets them go, so that
  // they leave in the order they were ready (a source's transfers take capacity in send order).
  std::vector<int> held_from_;
  std::uint64_t ready_seq_ = 0;  // the next ready transfer's number (held or dispatched)
  sc_core::sc_event decide_;     // a delta after the first is held: decide them
};

}  // namespace trainvp
