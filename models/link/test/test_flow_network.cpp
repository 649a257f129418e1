// The flow network (flow fidelity) against hand-worked max-min fair shares: flows sharing a
// link, three flows on two links, a degraded link, a link down and up, a paced (capped) flow,
// packet loss as an efficiency factor, and a source's send queue (transfers on one path in send
// order; the next one taking what the head leaves of the first link; one behind two frozen ones
// growing once). Times are closed forms in
// ps; rates in bytes/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "models/link/chunk.hpp"
#include "models/link/flow_network.hpp"
#include "models/link/link_state.hpp"
#include "platform/core/child_process.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/test/timing.hpp"

namespace trainvp {
namespace test_flow_network {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

LinkDirParams params(double bps, std::int64_t latency_ps, std::uint32_t overhead = 0) {
  LinkDirParams p;
  p.bandwidth_bps = bps;
  p.latency_ps = latency_ps;
  p.mtu = 4096;
  p.overhead = overhead;
  return p;
}

struct Net {
  RunContext ctx{1, false};
  std::vector<std::unique_ptr<LinkState>> links;  // as the fabric builds them in flow fidelity
  std::unique_ptr<FlowNetwork> net;
  std::vector<std::int64_t> done_at;
  explicit Net(const std::vector<LinkDirParams>& ps) {
    std::vector<LinkState*> dirs;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      links.push_back(std::make_unique<LinkState>("l" + std::to_string(i), ps[i]));
      dirs.push_back(links.back().get());
    }
    net = std::make_unique<FlowNetwork>("net", dirs, ctx.calendar());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborated: flows start during simulation
  }
  LinkState& dir(int i) { return *links[static_cast<std::size_t>(i)]; }
  // Starts a flow and records when its data has arrived in done_at[k] (k: the order of starts).
  int start(const std::vector<int>& links, double bytes, double cap = 0) {
    const std::size_t k = done_at.size();
    done_at.push_back(-1);
    return net->start(links, bytes, cap, [this, k] { done_at[k] = now_ps(); });
  }
};

// A collective engine's transfers as FlowNetwork::submit takes them: one chunk each, delivered to
// this sink, which records when (ps) by tag.
struct Transfers : ChunkSink {
  FlowNetwork& net;
  std::vector<std::unique_ptr<ChunkPayload>> chunks;
  std::vector<std::int64_t> delivered_at;
  explicit Transfers(FlowNetwork& n) : net(n) {}
  void send(const Route& route, std::uint32_t bytes) {
    chunks.push_back(std::make_unique<ChunkPayload>(nullptr));
    ChunkExt& c = chunks.back()->chunk;
    c.route = &route;
    c.sink = this;
    c.tag = chunks.size() - 1;
    c.payload_bytes = bytes;
    chunks.back()->set_data_length(bytes);
    delivered_at.push_back(-1);
    net.submit(chunks.back().get());
  }
  void chunk_delivered(tlm::tlm_generic_payload& p) override { delivered_at[chunk_of(p)->tag] = now_ps(); }
};

// 80 ps per byte at 100 Gbit/s (no framing), so times are whole picoseconds.
constexpr double kBps = 100e9;
constexpr std::int64_t kLat = 1000000;
constexpr double kBytes = 1 << 20;
constexpr std::int64_t kPsPerByte = 80;

TEST(FlowNetwork, TwoFlowsSharingALinkEachGetHalf) {
  in_own_process([] {
    Net n({params(kBps, kLat)});
    static const std::vector<int> path{0};
    n.start(path, kBytes);
    n.start(path, kBytes);
    test::run_to(1);
    EXPECT_NEAR(n.net->rate_Bps(0), kBps / 8 / 2, 1e-6 * kBps);
    EXPECT_NEAR(n.net->rate_Bps(1), kBps / 8 / 2, 1e-6 * kBps);
    sc_core::sc_start();
    // B / (C / 2) + latency: one hop, so no packet time beyond its own drain.
    const std::int64_t expected = static_cast<std::int64_t>(2 * kBytes) * kPsPerByte + kLat;
    EXPECT_EQ(n.done_at[0], expected);
    EXPECT_EQ(n.done_at[1], expected);
    n.net->settle();
    EXPECT_EQ(n.dir(0).stats().payload_bytes, static_cast<std::uint64_t>(2 * kBytes));
    EXPECT_EQ(n.dir(0).stats().busy_ps, static_cast<std::int64_t>(2 * kBytes) * kPsPerByte);
  });
}

TEST(FlowNetwork, TheBusySeriesIsTheLinksLoadOverTime) {
  in_own_process([] {
    // A paced endless flow at a fifth of the link and a transfer of B that takes the rest (10 GB/s):
    // the link is full until B / 10 GB/s = 104,857,600 ps, then a fifth busy until the end (1 ms).
    Net n({params(kBps, 0)});
    static const std::vector<int> path{0};
    n.start(path, FlowNetwork::kEndless, 2.5e9);
    n.start(path, kBytes);
    const std::int64_t full = static_cast<std::int64_t>(kBytes) * 100, end = 1000000000;
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
    n.net->stop(0);
    n.net->settle();
    const BusySeries& s = n.dir(0).busy_series();
    const std::int64_t width = std::int64_t{1000} << 13;  // 1 ns x 2^13 x 128 buckets = 1.05 ms
    ASSERT_EQ(s.width_ps(), width);
    const std::vector<double> busy = s.at_width(width, 123);  // 123 x 8.192 us > 1 ms
    const double f = static_cast<double>(full), e = static_cast<double>(end);
    for (std::size_t k = 0; k < busy.size(); ++k) {
      const double lo = static_cast<double>(k) * static_cast<double>(width), hi = lo + static_cast<double>(width);
      const double at_full = std::max(0.0, std::min(hi, f) - lo),
                   at_fifth = std::max(0.0, std::min(hi, e) - std::max(lo, f));
      // Within the picosecond the transfer's finish is rounded up to.
      EXPECT_NEAR(busy[k], at_full + 0.2 * at_fifth, 1.0) << "bucket " << k;
    }
    EXPECT_NEAR(s.total_ps(), static_cast<double>(n.dir(0).stats().busy_ps), 1.0);
    EXPECT_NEAR(s.total_ps(), f + 0.2 * (e - f), 1.0);
  });
}

TEST(FlowNetwork, ThreeFlowsOnTwoLinksGetTheirMaxMinShares) {
  in_own_process([] {
    // Link 0: 100 Gbit/s = 12.5 GB/s; link 1: 50 Gbit/s = 6.25 GB/s. f0 crosses link 0, f1 both,
    // f2 link 1. Link 1 is the bottleneck: f1 = f2 = 3.125 GB/s; f0 takes the rest of link 0, 9.375.
    Net n({params(100e9, 0), params(50e9, 0)});
    static const std::vector<int> a{0}, ab{0, 1}, b{1};
    n.start(a, kBytes);
    n.start(ab, kBytes);
    n.start(b, kBytes);
    test::run_to(1);
    EXPECT_NEAR(n.net->rate_Bps(0), 9.375e9, 1e-3);
    EXPECT_NEAR(n.net->rate_Bps(1), 3.125e9, 1e-3);
    EXPECT_NEAR(n.net->rate_Bps(2), 3.125e9, 1e-3);
    sc_core::sc_start();
    // f0 ends first (B / 9.375 GB/s); f1 stays bound by link 1, so f1 and f2 end at B / 3.125 GB/s,
    // f1 plus one packet time of its faster hop (two hops: 4096 B at 100 Gbit/s = 327,680 ps).
    EXPECT_NEAR(static_cast<double>(n.done_at[0]), kBytes / 9.375e9 * 1e12, 1.0);
    EXPECT_NEAR(static_cast<double>(n.done_at[1]), kBytes / 3.125e9 * 1e12 + 327680, 1.0);
    EXPECT_NEAR(static_cast<double>(n.done_at[2]), kBytes / 3.125e9 * 1e12, 1.0);
  });
}

TEST(FlowNetwork, ADegradedLinkSlowsTheFlowFromTheChangeOn) {
  in_own_process([] {
    Net n({params(kBps, kLat)});
    static const std::vector<int> path{0};
    n.start(path, kBytes);
    // Half the bytes at full rate, then a quarter of the bandwidth for the other half.
    const std::int64_t half = static_cast<std::int64_t>(kBytes / 2) * kPsPerByte;
    test::run_to(half);
    n.dir(0).set_bandwidth(kBps / 4);
    n.net->link_changed(0);
    sc_core::sc_start();
    EXPECT_EQ(n.done_at[0], half + 4 * half + kLat);
    n.net->settle();
    EXPECT_EQ(n.dir(0).stats().busy_ps, 5 * half);  // busy all along, at full utilization
  });
}

TEST(FlowNetwork, ALinkDownHoldsItsFlowsUntilItIsUp) {
  in_own_process([] {
    Net n({params(kBps, kLat), params(kBps, kLat)});
    static const std::vector<int> both{0, 1}, other{1};
    n.start(both, kBytes);
    const std::int64_t down = 20000000, up = 150000000;  // 20 us, 150 us: the second flow is done by then
    test::run_to(down);
    n.dir(0).set_down(true);
    n.net->link_changed(0);
    n.start(other, kBytes);  // alone on link 1 while link 0 is down: the full rate
    test::run_to(down + 1);
    EXPECT_EQ(n.net->rate_Bps(0), 0.0);
    EXPECT_NEAR(n.net->rate_Bps(1), kBps / 8, 1e-3);
    test::run_to(up);
    EXPECT_EQ(n.done_at[0], -1);
    n.dir(0).set_down(false);
    n.net->link_changed(0);
    sc_core::sc_start();
    const std::int64_t all = static_cast<std::int64_t>(kBytes) * kPsPerByte, packet = 4096 * kPsPerByte;
    EXPECT_EQ(n.done_at[1], down + all + kLat);
    // The first flow's drain time, stretched by the outage, plus two latencies and a packet time
    // (within the picosecond a finish time is rounded up to).
    EXPECT_NEAR(static_cast<double>(n.done_at[0]), static_cast<double>(all + (up - down) + 2 * kLat + packet), 1.0);
  });
}

TEST(FlowNetwork, APacedFlowKeepsItsCapAndLeavesTheRestToTheOthers) {
  in_own_process([] {
    Net n({params(kBps, 0)});
    static const std::vector<int> path{0};
    n.start(path, FlowNetwork::kEndless, 2.5e9);  // a fifth of the link
    n.start(path, kBytes);
    test::run_to(1);
    EXPECT_NEAR(n.net->rate_Bps(0), 2.5e9, 1e-3);
    EXPECT_NEAR(n.net->rate_Bps(1), 10e9, 1e-3);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
    EXPECT_NEAR(static_cast<double>(n.done_at[1]), kBytes / 10e9 * 1e12, 1.0);
    n.net->stop(0);
    EXPECT_NEAR(n.net->sent_bytes(0), 2.5e9 * (1e-3 + 1e-12), 1.0);
  });
}

TEST(FlowNetwork, PacketLossCostsTheGoBackNShareOfLinkTime) {
  in_own_process([] {
    // Loss rate r: each packet costs its own time t plus r x the recovery window 2 (t + latency).
    LinkDirParams p = params(kBps, kLat, 82);
    Net n({p});
    static const std::vector<int> path{0};
    const double r = 1e-3, t = (4096 + 82) * 8 / kBps * 1e12, window = 2 * (t + static_cast<double>(kLat));
    n.dir(0).set_loss(r, 0);
    n.net->link_changed(0);
    n.start(path, kBytes);
    test::run_to(1);
    const double payload_Bps = kBps / 8 * 4096 / (4096 + 82);
    EXPECT_NEAR(n.net->rate_Bps(0), payload_Bps * t / (t + r * window), 1e-3);
  });
}

// Two one-chunk transfers of kBytes from one source, along `first` and `second` (link ids, the
// first link shared), sent in that order at time 0: their rates just after, and when each arrived.
struct TwoSent {
  double rate[2];
  std::int64_t at[2];
};
TwoSent send_two(const std::vector<LinkDirParams>& ps, std::vector<int> first, std::vector<int> second) {
  Net n(ps);
  Route r1, r2;
  r1.links = std::move(first);
  r2.links = std::move(second);
  Transfers t(*n.net);
  t.send(r1, static_cast<std::uint32_t>(kBytes));
  t.send(r2, static_cast<std::uint32_t>(kBytes));
  test::run_to(1);
  TwoSent out{{n.net->rate_Bps(0), n.net->rate_Bps(1)}, {0, 0}};
  sc_core::sc_start();
  out.at[0] = t.delivered_at[0], out.at[1] = t.delivered_at[1];
  return out;
}

// Every route below: two hops of kLat, the faster one at 200 Gbit/s (its packet time is added).
const std::int64_t kPath = 2 * kLat + test::ser_ps(4096, 2 * kBps);
const std::int64_t kDrain = static_cast<std::int64_t>(kBytes) * kPsPerByte;  // B at 100 Gbit/s

TEST(FlowNetwork, ASourcesTransfersOnOnePathRunInSendOrder) {
  in_own_process([] {
    // Two transfers from one source along the same two links (the first twice as fast): the head
    // takes the whole bottleneck and the second nothing until the head ends, as the GPU's DMA
    // queue sends them in packet fidelity; fair sharing would end both at 2 B / C.
    const TwoSent r = send_two({params(2 * kBps, kLat), params(kBps, kLat)}, {0, 1}, {0, 1});
    EXPECT_NEAR(r.rate[0], kBps / 8, 1e-3);
    EXPECT_EQ(r.rate[1], 0);
    EXPECT_NEAR(static_cast<double>(r.at[0]), static_cast<double>(kDrain + kPath), 1.0);
    EXPECT_NEAR(static_cast<double>(r.at[1]), static_cast<double>(2 * kDrain + kPath), 2.0);
  });
}

TEST(FlowNetwork, ASourcesNextTransferTakesWhatTheHeadLeavesOfTheFirstLink) {
  in_own_process([] {
    // Link 0 (the source's, 200 Gbit/s) feeds link 1 and link 2 (100 Gbit/s each). The head, held
    // to 12.5 GB/s by link 1, leaves half of link 0 to the transfer behind it, which link 2 lets
    // run at 12.5 GB/s too: both end at B / 12.5 GB/s, as packet fidelity's queue lets the next
    // chunk in while the last waits downstream. Holding the second until the head ended (#45)
    // took 2 B / C for it.
    const TwoSent r = send_two({params(2 * kBps, kLat), params(kBps, kLat), params(kBps, kLat)}, {0, 1}, {0, 2});
    EXPECT_NEAR(r.rate[0], kBps / 8, 1e-3);
    EXPECT_NEAR(r.rate[1], kBps / 8, 1e-3);
    EXPECT_NEAR(static_cast<double>(r.at[0]), static_cast<double>(kDrain + kPath), 1.0);
    EXPECT_NEAR(static_cast<double>(r.at[1]), static_cast<double>(kDrain + kPath), 1.0);
  });
}

TEST(FlowNetwork, TheTransferBehindTakesNoMoreThanTheFirstLinkLeaves) {
  in_own_process([] {
    // The head runs alone at the first link's rate when nothing downstream holds it: the second
    // transfer, bound for an idle link, gets nothing (strict send order on the first link), and
    // then the whole first link.
    const TwoSent r = send_two({params(kBps, kLat), params(2 * kBps, kLat), params(2 * kBps, kLat)}, {0, 1}, {0, 2});
    EXPECT_NEAR(r.rate[0], kBps / 8, 1e-3);
    EXPECT_EQ(r.rate[1], 0);
    EXPECT_NEAR(static_cast<double>(r.at[0]), static_cast<double>(kDrain + kPath), 1.0);
    EXPECT_NEAR(static_cast<double>(r.at[1]), static_cast<double>(2 * kDrain + kPath), 2.0);
  });
}

TEST(FlowNetwork, ATransferBehindTwoFrozenOnesTakesOneShare) {
  in_own_process([] {
    // One source's queue on link 0 (300 Gbit/s): h over link 1 (100), g over link 2 (down), n over
    // link 3 (300); another source's transfer o over link 4 and link 3. The first round: h and o
    // grow to C (12.5 GB/s), h fills link 1, g froze at nothing on its down link, and n starts
    // behind both. Then n and o share what link 3 has left (2C), n from nothing: o 2C, n C. When
    // n started growing once for each of the two frozen ahead of it, it took two shares of link 3
    // (o 5C/3, n 4C/3).
    Net n({params(3 * kBps, kLat), params(kBps, kLat), params(kBps, kLat), params(3 * kBps, kLat),
           params(3 * kBps, kLat)});
    n.dir(2).set_down(true);
    n.net->link_changed(2);
    Route h, g, behind, other;
    h.links = {0, 1}, g.links = {0, 2}, behind.links = {0, 3}, other.links = {4, 3};
    Transfers t(*n.net);
    for (const Route* r : {&h, &g, &behind, &other}) t.send(*r, static_cast<std::uint32_t>(kBytes));
    test::run_to(1);
    const double c = kBps / 8;
    EXPECT_NEAR(n.net->rate_Bps(0), c, 1e-3);
    EXPECT_EQ(n.net->rate_Bps(1), 0);
    EXPECT_NEAR(n.net->rate_Bps(2), c, 1e-3);
    EXPECT_NEAR(n.net->rate_Bps(3), 2 * c, 1e-3);
  });
}

// A ring's steps as the collective engine sends them (ring_groups.cpp): each step `gap` after the
// last one arrived everywhere, one group when its links are alone (kept on them between steps when
// `keep`, and run ahead by the network when `ahead`), else each member its own flow; a group split
// mid-step goes per member from then on. A flow of 4 MiB along `cross` starts at `cross_at` (-1:
// none), and every link's totals() are read at each of `look_at`. Made before the network (no
// module after elaboration): `net` set after. A step whose arrival the ring was not told of one by
// one (run ahead, then caught up after a cut) has arrival -2.
struct Ring : sc_core::sc_module {
  FlowNetwork* net = nullptr;
  std::vector<std::vector<int>> routes;
  std::vector<const std::vector<int>*> members;
  std::vector<int> links;
  int steps, step = 0, left = 0, flow = -1, next_steps = 0;
  bool keep, per_member = false, ahead = false;
  int covered = -1, caught = 0;    // run ahead: the last step the network runs; steps to catch up
  std::int64_t resume = -1;        // a cut between steps: when the next starts
  std::vector<std::int64_t> cuts;  // each cut: when, steps arrived, in flight, resume
  std::uint64_t born = 0;
  double bytes;
  std::int64_t gap, latency = 0, cross_at;
  std::vector<std::int64_t> look_at;
  std::vector<int> cross;
  std::vector<std::int64_t> arrived_at;  // each step's last arrival
  std::vector<LinkDirTotals> looked;
  sc_core::sc_event go, cross_ev, look_ev;
  Ring(sc_core::sc_module_name name, std::vector<std::vector<int>> r, int steps_, bool keep_, std::int64_t gap_,
       std::int64_t cross_at_, std::vector<int> cross_, std::vector<std::int64_t> look_at_)
      : sc_module(name),
        routes(std::move(r)),
        steps(steps_),
        keep(keep_),
        bytes(kBytes),
        gap(gap_),
        cross_at(cross_at_),
        look_at(std::move(look_at_)),
        cross(std::move(cross_)) {
    for (const std::vector<int>& route : routes) {
      members.push_back(&route);
      links.insert(links.end(), route.begin(), route.end());
    }
    SC_HAS_PROCESS(Ring);
    SC_METHOD(launch);
    sensitive << go;
    dont_initialize();
    SC_METHOD(start_cross);
    sensitive << cross_ev;
    dont_initialize();
    SC_METHOD(look);
    sensitive << look_ev;
    dont_initialize();
    SC_METHOD(catch_up);
    sensitive << catch_ev;
    dont_initialize();
  }
  sc_core::sc_event catch_ev;
  void catch_up() {  // as CollectiveEngine::catch_up: the steps that arrived, then the next if between steps
    for (int k = 0; k < caught; ++k) arrived_at.push_back(-2);
    step += caught;
    if (resume >= 0) go.notify(ps_time(resume - now_ps()));
  }
  void start_cross() { net->start(cross, 4 * kBytes, 0, nullptr); }
  void look() {
    for (int l = 0; l < 4; ++l) looked.push_back(net->totals(l, now_ps()));
    const std::size_t next = looked.size() / 4;
    if (next < look_at.size()) look_ev.notify(ps_time(look_at[next] - now_ps()));
  }
  void arrived_one() {
    if (--left > 0) return;
    if (covered > step) {  // a run-ahead's last step: the ones before it were not told one by one
      for (; step < covered; ++step) arrived_at.push_back(-2);
    }
    arrived_at.push_back(now_ps());
    if (++step < steps && step > covered) go.notify(ps_time(gap));
  }
  void launch() {
    if (step == 0) {
      latency = net->latency(routes[0], bytes);
      if (cross_at >= 0) cross_ev.notify(ps_time(cross_at));
      look_ev.notify(ps_time(look_at[0]));
    }
    left = static_cast<int>(routes.size());
    const bool hold = keep && step + 1 < steps;
    const std::uint32_t chunk = 1 << 18, chunks = static_cast<std::uint32_t>(bytes) / chunk;
    if (!per_member) {
      const bool kept = flow >= 0 && net->kept(flow, born);
      if (kept || net->alone(links)) {
        auto done = [this](int m) {
          if (m < 0) left = 1;
          else per_member = true;
          arrived_one();
        };
        FlowNetwork::Ahead run;
        if (ahead && hold) {
          run.steps = steps - 1 - step;
          run.hop_ps = gap;
          const int from = step;
          run.cut = [this, from](int arrived, bool in_flight, std::int64_t resume_ps) {
            cuts.insert(cuts.end(), {now_ps(), arrived, in_flight ? 1 : 0, resume_ps});
            covered = from + arrived + (in_flight ? 1 : 0) - 1;
            caught = arrived;
            resume = resume_ps;
            catch_ev.notify(sc_core::SC_ZERO_TIME);
          };
          covered = steps - 1;
        }
        if (kept && net->next_step(flow, born, members, bytes, latency, chunk, chunks, done, hold, run)) {
          ++next_steps;
          born = net->born(flow);  // each step takes its own place in creation order
          return;
        }
        flow = net->start_group(links, members, bytes, latency, chunk, chunks, 0, done, hold, run);
        born = net->born(flow);
        return;
      }
      per_member = true;
    }
    for (const std::vector<int>& route : routes) net->start(route, bytes, 0, [this] { arrived_one(); });
  }
};

// What a run reports, exactly: arrivals, each link's counters, owner bytes and busy series, and
// the totals read mid-ring; plus how many steps next_step() started (not compared).
struct RingRun {
  std::string report;
  int next_steps = 0;
};
RingRun run_ring(bool keep, std::int64_t cross_at, const std::vector<std::int64_t>& look_at,
                 std::vector<int> cross = {0}, bool ahead = false, std::vector<std::int64_t>* cuts = nullptr) {
  const ChildResult r = run_in_child(
      [&] {
        Ring ring("ring", {{0, 1}, {2, 3}}, 6, keep, 10000000, cross_at, cross, look_at);
        ring.ahead = ahead;
        // Two members of two hops: 100 Gbit/s (their bottleneck) then 300 Gbit/s (busy a third of
        // the time: sums of thirds round, so the order of additions shows).
        Net n({params(kBps, kLat), params(3 * kBps, kLat), params(kBps, kLat), params(3 * kBps, kLat)});
        for (int l = 0; l < 4; ++l) n.dir(l).set_owners(1);
        ring.net = n.net.get();
        ring.go.notify(sc_core::SC_ZERO_TIME);
        sc_core::sc_start();
        n.net->settle();
        std::string out;
        auto put = [&out](double v) {
          char b[40];
          std::snprintf(b, sizeof b, "%.17g ", v);
          out += b;
        };
        for (std::int64_t t : ring.arrived_at) put(static_cast<double>(t));
        for (int l = 0; l < 4; ++l) {
          const LinkDirStats& s = n.dir(l).stats();
          out += "\nlink " + std::to_string(l) + ": ";
          for (std::uint64_t v : {s.payload_bytes, s.wire_bytes, s.chunks, n.dir(l).owner_bytes()[0]})
            put(static_cast<double>(v));
          put(static_cast<double>(s.busy_ps));
          const BusySeries& b = n.dir(l).busy_series();
          for (double v : b.at_width(b.width_ps(), BusySeries::kBuckets)) put(v);
        }
        out += "\nlooked: ";
        for (const LinkDirTotals& t : ring.looked)
          for (std::uint64_t v :
               {t.stats.payload_bytes, t.stats.wire_bytes, t.stats.chunks, static_cast<std::uint64_t>(t.stats.busy_ps)})
            put(static_cast<double>(v));
        out += "\ncuts: ";
        for (std::int64_t v : ring.cuts) put(static_cast<double>(v));
        return std::to_string(::testing::Test::HasFailure() ? -1 : ring.next_steps) + "|" + out;
      },
      true);
  EXPECT_TRUE(r.ok) << r.value;
  const std::size_t bar = r.value.find('|');
  if (bar == std::string::npos) return {r.value, -1};
  std::string report = r.value.substr(bar + 1);
  const std::size_t c = report.find("\ncuts: ");
  if (cuts && c != std::string::npos) {
    std::istringstream in(report.substr(c + 7));
    for (double v; in >> v;) cuts->push_back(static_cast<std::int64_t>(v));
  }
  if (c != std::string::npos) report.erase(c);
  return {report, std::stoi(r.value.substr(0, bar))};
}

// The arrivals (the report's first line) and the rest; an arrival of -2 in `masked` (a run-ahead
// step caught up after a cut) is left out of both.
std::pair<std::vector<double>, std::string> split_report(const std::string& report) {
  const std::size_t nl = report.find('\n');
  std::istringstream in(report.substr(0, nl));
  std::vector<double> at;
  for (double v; in >> v;) at.push_back(v);
  return {at, nl == std::string::npos ? "" : report.substr(nl)};
}

// A group kept on its links between a ring's steps (docs/fabric.md#ring-steps-as-one-flow) adds
// its steps to the links only when something touches them; every count, busy time and series
// bucket, the totals fast-forward reads mid-ring and every arrival must be those of starting each
// step afresh, whether nothing comes, a flow joins between two steps (the group is released) or
// during one (it splits into its members where they were).
TEST(FlowNetwork, AGroupKeptBetweenRingStepsChangesNothingItReports) {
  // 1 MiB at 100 Gbit/s per step, two hops of 1 us plus a 4 KiB packet at 300 Gbit/s, 10 us apart.
  const std::int64_t drain = kDrain, path = 2 * kLat + test::ser_ps(4096, 3 * kBps), gap = 10000000;
  const std::int64_t period = drain + path + gap;
  // Totals read between steps 1 and 2 and in the middle of step 3.
  const std::vector<std::int64_t> look{2 * period - gap / 2, 3 * period + drain / 4};
  const RingRun alone = run_ring(true, -1, look), afresh = run_ring(false, -1, look);
  EXPECT_EQ(alone.next_steps, 5);  // all but the first step went on from the kept group
  EXPECT_EQ(afresh.next_steps, 0);
  EXPECT_EQ(alone.report, afresh.report);
  // Alone, step k's data has arrived at (k + 1)(drain + path) + k gap.
  std::istringstream times(alone.report);
  for (int k = 0; k < 6; ++k) {
    double t = 0;
    times >> t;
    EXPECT_EQ(static_cast<std::int64_t>(t), (k + 1) * (drain + path) + k * gap) << "step " << k;
  }
  // A flow on the bottleneck between steps 2 and 3, during the gap; one in the middle of step 3;
  // one on a 300 Gbit/s hop (it slows nobody) between steps 1 and 2.
  for (const std::int64_t at : {3 * period - gap / 2, 3 * period + drain / 2}) {
    const RingRun a = run_ring(true, at, look), b = run_ring(false, at, look);
    EXPECT_EQ(a.next_steps, at < 3 * period ? 2 : 3) << at;  // the steps before it went on kept
    EXPECT_EQ(a.report, b.report) << "cross flow at " << at;
    EXPECT_NE(a.report, alone.report) << at;  // it did slow the ring
  }
  const RingRun a = run_ring(true, 2 * period - gap / 2, look, {1}),
                b = run_ring(false, 2 * period - gap / 2, look, {1});
  EXPECT_EQ(a.next_steps, 1);
  EXPECT_EQ(a.report, b.report);
}

// A kept group run ahead by the network (docs/fabric.md#a-ring-run-ahead) reports exactly what its
// steps one by one do: every count, busy time, series bucket and mid-ring totals, and the arrival
// of each step it was told of, whether nothing touches it, or a flow joins its bottleneck during a
// step, while a step's data is on its way, or between two steps, or one joins a hop it does not
// slow. A cut says how far it had come: the steps whose data had arrived (each at (k + 1)(drain +
// path) + k gap alone), and between steps when the next would have started.
TEST(FlowNetwork, ARingRunAheadReportsWhatItsStepsOneByOneDo) {
  const std::int64_t drain = kDrain, path = 2 * kLat + test::ser_ps(4096, 3 * kBps), gap = 10000000;
  const std::int64_t period = drain + path + gap;
  const std::vector<std::int64_t> look{2 * period - gap / 2, 3 * period + drain / 4};
  struct Case {
    std::int64_t at;
    std::vector<int> cross;
    int arrived, in_flight;
    std::int64_t resume;
  };
  const std::vector<Case> cases{
      {-1, {0}, -1, 0, 0},                             // untouched: no cut
      {3 * period + drain / 2, {0}, 3, 1, -1},         // during step 3's drain
      {3 * period + drain + path / 2, {0}, 3, 1, -1},  // step 3's data on its way
      {3 * period - gap / 2, {0}, 3, 0, 3 * period},   // between steps 2 and 3
      {2 * period - gap / 2, {1}, 2, 0, 2 * period},   // between steps 1 and 2, on a fast hop
      {5 * period + drain + path / 2, {0}, -1, 0, 0},  // the last step's data on its way: ended already
  };
  for (const Case& k : cases) {
    std::vector<std::int64_t> cuts;
    const RingRun a = run_ring(true, k.at, look, k.cross, true, &cuts), b = run_ring(true, k.at, look, k.cross);
    const auto [at_a, rest_a] = split_report(a.report);
    const auto [at_b, rest_b] = split_report(b.report);
    EXPECT_EQ(rest_a, rest_b) << "cross flow at " << k.at;
    ASSERT_EQ(at_a.size(), 6u) << k.at;
    ASSERT_EQ(at_b.size(), 6u) << k.at;
    int told = 0;
    for (std::size_t s = 0; s < 6; ++s) {
      if (at_a[s] == -2) continue;
      EXPECT_EQ(at_a[s], at_b[s]) << "step " << s << ", cross flow at " << k.at;
      ++told;
    }
    if (k.arrived < 0) {
      EXPECT_TRUE(cuts.empty());
      EXPECT_EQ(told, 1);  // the last step only
      EXPECT_EQ(static_cast<std::int64_t>(at_a[5]), 6 * (drain + path) + 5 * gap);
      continue;
    }
    ASSERT_EQ(cuts.size(), 4u) << k.at;
    EXPECT_EQ(cuts[0], k.at);
    EXPECT_EQ(cuts[1], k.arrived) << k.at;
    EXPECT_EQ(cuts[2], k.in_flight) << k.at;
    EXPECT_EQ(cuts[3], k.resume) << k.at;
    for (int s = 0; s < k.arrived; ++s)  // the plain run's steps before the cut arrived before it
      EXPECT_LE(static_cast<std::int64_t>(at_b[static_cast<std::size_t>(s)]), k.at) << s;
  }
}

}  // namespace test_flow_network
}  // namespace trainvp
