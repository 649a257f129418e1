// The flow network (flow fidelity) against hand-worked max-min fair shares: flows sharing a
// link, three flows on two links, a degraded link, a link down and up, a paced (capped) flow,
// packet loss as an efficiency factor, and a source's send queue (transfers on one path in send
// order; the next one taking what the head leaves of the first link). Times are closed forms in
// ps; rates in bytes/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/link/chunk.hpp"
#include "models/link/flow_network.hpp"
#include "models/link/link_dir.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/checked_wiring.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/test/timing.hpp"

namespace trainvp {
namespace test_flow_network {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

// A link direction with its sockets bound to stubs through protocol checkers: the flow network
// moves its flows without the links' sockets, so no transaction may cross them (Net's destructor).
struct Wired : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Wired> to;
  tlm_utils::simple_target_socket<Wired> from;
  LinkDir dir;
  test::CheckedWiring wiring;
  Wired(sc_core::sc_module_name module, const std::string& n, const LinkDirParams& p, RunContext& ctx)
      : sc_module(module), to("to"), from("from"), dir(("d_" + n).c_str(), n, p, 1 << 20, ctx) {
    wiring.bind(to, dir.in);
    wiring.bind(dir.out, from);
  }
};

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
  std::vector<std::unique_ptr<Wired>> wired;
  std::unique_ptr<FlowNetwork> net;
  std::vector<std::int64_t> done_at;
  explicit Net(const std::vector<LinkDirParams>& ps) {
    std::vector<LinkDir*> dirs;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const std::string n = "l" + std::to_string(i);
      wired.push_back(std::make_unique<Wired>(("w_" + n).c_str(), n, ps[i], ctx));
      dirs.push_back(&wired.back()->dir);
    }
    net = std::make_unique<FlowNetwork>("net", dirs, ctx.calendar());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborated: flows start during simulation
  }
  ~Net() {
    for (const auto& w : wired)
      for (const auto& c : w->wiring.checkers())
        EXPECT_EQ(c->begun(), 0u) << c->name() << ": a chunk on a link's socket";
  }
  LinkDir& dir(int i) { return wired[static_cast<std::size_t>(i)]->dir; }
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

}  // namespace test_flow_network
}  // namespace trainvp
