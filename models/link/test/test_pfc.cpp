// Ingress PFC (pfc.hpp) on links and forwarders wired alone, with small chunks (one 4 KiB packet
// each) and thresholds that are multiples of them. The oracle is the fluid model of a PAUSE/RESUME
// loop: the ingress count of a port rises at (arrival rate - drain rate) and falls at the drain
// rate, and keeps moving for tau = one chunk time + the link latency + the pause delay after each
// crossing (what was sent, and is sent until the frame lands, still arrives), so it swings between
//   hi = XOFF + C + (r_in - r_out) tau      (C: the crossing chunk; the count moves in chunks)
//   lo = XON - r_out tau
// and one PAUSE/RESUME cycle lasts (hi - lo) (1 / (r_in - r_out) + 1 / r_out). The chunk
// granularity of the count and of the drain moves hi and lo by at most one chunk each.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "models/link/forwarder.hpp"
#include "models/link/link_dir.hpp"
#include "models/link/traffic.hpp"
#include "platform/core/test/checked_wiring.hpp"
#include "platform/core/test/own_process.hpp"

namespace trainvp {
namespace test_pfc {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

constexpr std::uint32_t kChunk = 4096;        // one packet
constexpr std::uint64_t kWire = kChunk + 82;  // on the wire
constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

LinkDirParams link(double bps, std::int64_t latency_ps, std::uint64_t buffer = 1 << 20) {
  LinkDirParams p;
  p.bandwidth_bps = bps;
  p.latency_ps = latency_ps;
  p.mtu = 4096;
  p.overhead = 82;
  p.buffer = buffer;
  return p;
}

std::int64_t chunk_ps(double bps) { return std::llround(static_cast<double>(kWire) * 8.0 / bps * 1e12); }

PfcPortParams pfc(std::uint64_t xoff_chunks, std::uint64_t xon_chunks, std::int64_t delay_ps, bool pause = true) {
  PfcPortParams p;
  p.pause = pause;
  p.xoff = xoff_chunks * kChunk;
  p.xon = xon_chunks * kChunk;
  p.headroom = 64 * kChunk;
  p.delay_ps = delay_ps;
  return p;
}

sc_core::sc_time at(std::int64_t ps) { return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS); }

// source -> a (100 Gbit/s, ingress PFC at the forwarder) -> forwarder -> b (50 Gbit/s, unbounded
// queue) -> sink: the 2:1 rate step of a single flow into a slow egress.
struct RateStep {
  RunContext ctx{1, false};
  Route route{{0, 0}, {}};
  TrafficSource src;
  LinkDir a, b;
  Forwarder fwd;
  TrafficSink sink;
  test::CheckedWiring wiring;
  RateStep(std::int64_t latency_ps, const PfcPortParams& p, std::int64_t end_ps)
      : src("src", {0, end_ps, 0, 0}, 0, kChunk, 1, 1, [this] { return &route; }),
        a("a", "a", link(100e9, latency_ps), kChunk, ctx),
        b("b", "b", link(50e9, latency_ps, kUnbounded), kChunk, ctx),
        fwd("fwd", "fwd"),
        sink("sink") {
    a.set_pfc(p, false);
    wiring.bind(src.out, a.in);
    wiring.bind(a.out, fwd.in);
    wiring.bind(fwd.out, b.in);
    wiring.bind(b.out, sink.in);
  }
};

void pause_loop_follows_the_fluid_closed_form(std::int64_t latency_ps, std::int64_t propagation_ps, std::uint64_t xoff,
                                              std::uint64_t xon) {  // thresholds in chunks
  in_own_process([&] {
    const std::int64_t delay = propagation_ps + std::llround(84 * 8.0 / 100e9 * 1e12);
    const std::int64_t t_obs = 2000000000;  // 2 ms, the source saturating throughout
    RateStep h(latency_ps, pfc(xoff, xon, delay), t_obs + 1000000000);
    sc_core::sc_start(at(t_obs));
    const double C = kChunk, Ta = static_cast<double>(chunk_ps(100e9)), Tb = static_cast<double>(chunk_ps(50e9));
    const double r_in = C / Ta, r_out = C / Tb;  // bytes per ps
    const double tau = Ta + static_cast<double>(latency_ps + delay);
    const double hi = static_cast<double>(xoff) * C + C + (r_in - r_out) * tau;
    const double lo = static_cast<double>(xon) * C - r_out * tau;
    ASSERT_GT(lo, 0.0) << "the slow link must never run dry for the duty-cycle figure";
    const PfcStats& f = h.a.stats().pfc;
    // The peak: XOFF, the crossing chunk, and what arrives in the pause's round trip.
    EXPECT_NEAR(static_cast<double>(f.peak_ingress_bytes), hi, C) << "tau " << tau << " ps";
    EXPECT_EQ(f.headroom_overflow_bytes, 0u);  // headroom 64 chunks holds the excess
    // Duty cycle: a runs at the bottleneck's share of its rate. a sent what b has started plus
    // what is held and in flight (at most hi + tau / Ta chunks), so the error is bounded by that.
    const LinkDirTotals t = h.a.totals(t_obs);
    const double slack = (hi / C + tau / Ta + 2) * Ta / static_cast<double>(t_obs);
    EXPECT_NEAR(static_cast<double>(t.stats.busy_ps) / static_cast<double>(t_obs), r_out / r_in, slack);
    // Paused by PFC the rest of the time (give or take a chunk on the wire when a PAUSE lands, per cycle).
    const double cycle = (hi - lo) * (1 / (r_in - r_out) + 1 / r_out);
    const double cycles = static_cast<double>(t_obs) / cycle;
    EXPECT_NEAR(static_cast<double>(t.stats.pfc.paused_ps) / static_cast<double>(t_obs), 1 - r_out / r_in,
                slack + cycles * Ta / static_cast<double>(t_obs));
    // One PAUSE per cycle; hi and lo are each off by at most a chunk, so the cycle by 2C of (hi - lo).
    const double tol = cycles * 2 * C / (hi - lo) + 1;
    EXPECT_NEAR(static_cast<double>(f.pause_frames), cycles, tol) << "cycle " << cycle << " ps";
    std::printf("peak %.2f chunks (closed form %.2f); busy %.4f; paused %.4f; pauses %llu (closed form %.1f)\n",
                static_cast<double>(f.peak_ingress_bytes) / C, hi / C,
                static_cast<double>(t.stats.busy_ps) / static_cast<double>(t_obs),
                static_cast<double>(t.stats.pfc.paused_ps) / static_cast<double>(t_obs),
                static_cast<unsigned long long>(f.pause_frames), cycles);
    EXPECT_GE(f.pause_frames, f.resume_frames);
    EXPECT_LE(f.pause_frames, f.resume_frames + 1);
    h.wiring.expect_no_violations();
  });
}

TEST(Pfc, PauseLoopFollowsTheFluidClosedForm) { pause_loop_follows_the_fluid_closed_form(1000000, 1000000, 24, 8); }

TEST(Pfc, ALongerPauseDelayRaisesThePeakByTheRoundTrip) {
  // 3 us of latency and propagation: tau grows by 4 us, the peak by (r_in - r_out) x 4 us; xon
  // higher, so that the count does not run dry while a RESUME is on its way.
  pause_loop_follows_the_fluid_closed_form(3000000, 3000000, 40, 24);
}

TEST(Pfc, WithoutPauseTheCountGrowsWithoutBound) {
  in_own_process([] {
    // Mode off: the same rate step never pauses; a runs flat out and the count grows at r_in - r_out.
    const std::int64_t t_obs = 200000000;  // 200 us
    RateStep h(1000000, pfc(24, 8, 1000000, false), t_obs + 1000000000);
    sc_core::sc_start(at(t_obs));
    const PfcStats& f = h.a.stats().pfc;
    EXPECT_EQ(f.pause_frames, 0u);
    EXPECT_EQ(h.a.totals(t_obs).stats.pfc.paused_ps, 0);
    const double Ta = static_cast<double>(chunk_ps(100e9)), Tb = static_cast<double>(chunk_ps(50e9));
    const double first_head = Ta + 1e6;  // b starts the first chunk at its head, then one per Tb
    const double held = std::floor((static_cast<double>(t_obs) - first_head) / Ta) + 1 -
                        (std::floor((static_cast<double>(t_obs) - first_head) / Tb) + 1);
    EXPECT_NEAR(static_cast<double>(f.peak_ingress_bytes), held * kChunk, 2.0 * kChunk);
  });
}

// Head-of-line blocking. H1 and Hv on leaf L, whose uplink LX (250 Gbit/s) goes to switch X; H2
// and H3 on X. Incast: H1, H2, H3 -> D (X -> D is the one congested link). Victim: Hv -> V over
// Hv -> L, L -> X, X -> V, none of them congested (LX carries at most 200 of its 250 Gbit/s).
// All other links 100 Gbit/s, 1 us.
struct Incast {
  static constexpr std::int64_t kLat = 1000000;
  RunContext ctx{1, false};
  Route r_h1{{0, 0, 0}, {}}, r_hv{{0, 0, 1}, {}}, r_x{{0, 0}, {}};
  TrafficSource h1, hv, h2, h3;
  LinkDir h1l, hvl, lx, h2x, h3x, xd, xv;
  Forwarder leaf, sw;
  TrafficSink d, v;
  test::CheckedWiring wiring;
  Incast(bool pause, std::int64_t end_ps)
      : h1("h1", {0, end_ps, 0, 0}, 0, kChunk, 1, 1, [this] { return &r_h1; }),
        hv("hv", {0, end_ps, 0, 0}, 0, kChunk, 2, 2, [this] { return &r_hv; }),
        h2("h2", {0, end_ps, 0, 0}, 0, kChunk, 3, 1, [this] { return &r_x; }),
        h3("h3", {0, end_ps, 0, 0}, 0, kChunk, 4, 1, [this] { return &r_x; }),
        h1l("h1l", "h1->L", link(100e9, kLat), kChunk, ctx),
        hvl("hvl", "hv->L", link(100e9, kLat), kChunk, ctx),
        lx("lx", "L->X", link(250e9, kLat, kUnbounded), kChunk, ctx),
        h2x("h2x", "h2->X", link(100e9, kLat), kChunk, ctx),
        h3x("h3x", "h3->X", link(100e9, kLat), kChunk, ctx),
        xd("xd", "X->D", link(100e9, kLat, kUnbounded), kChunk, ctx),
        xv("xv", "X->V", link(100e9, kLat, kUnbounded), kChunk, ctx),
        leaf("leaf", "L"),
        sw("sw", "X"),
        d("d"),
        v("v") {
    for (LinkDir* l : {&h1l, &hvl, &lx, &h2x, &h3x}) {
      const std::int64_t delay = kLat + std::llround(84 * 8.0 / l->params().bandwidth_bps * 1e12);
      l->set_pfc(pfc(32, 16, delay, pause), false);
    }
    wiring.bind(h1.out, h1l.in), wiring.bind(hv.out, hvl.in), wiring.bind(h2.out, h2x.in), wiring.bind(h3.out, h3x.in);
    wiring.bind(h1l.out, leaf.in), wiring.bind(hvl.out, leaf.in);
    wiring.bind(leaf.out, lx.in);  // L's port 0
    wiring.bind(lx.out, sw.in), wiring.bind(h2x.out, sw.in), wiring.bind(h3x.out, sw.in);
    wiring.bind(sw.out, xd.in), wiring.bind(sw.out, xv.in);  // X's ports 0 (D) and 1 (V)
    wiring.bind(xd.out, d.in), wiring.bind(xv.out, v.in);
  }
};

// Victim chunks whose tail has reached V before `t` on an idle path: the k-th leaves Hv at k x Ta
// (back to back at 100 Gbit/s); cut-through, a one-packet chunk's tail leaves each link one
// packet time after reaching it, so it reaches V at k Ta + (Ta + Lat) + (T_LX + Lat) + (Ta + Lat),
// T_LX its packet time at LX's 250 Gbit/s.
std::uint64_t victim_closed_form(std::int64_t t) {
  const double Ta = static_cast<double>(chunk_ps(100e9));
  const double path = 3.0 * Incast::kLat + static_cast<double>(chunk_ps(250e9)) + 2 * Ta;
  return static_cast<std::uint64_t>(std::floor((static_cast<double>(t) - path) / Ta)) + 1;
}

TEST(Pfc, PauseOffWithDeepBuffersLeavesTheVictimAtItsClosedForm) {
  in_own_process([] {
    const std::int64_t t_obs = 300000000;  // 300 us
    Incast h(false, t_obs + 1000000000);
    sc_core::sc_start(at(t_obs));
    const std::uint64_t chunks = h.v.delivered_bytes(2) / kChunk;
    std::printf("victim: %llu chunks, closed form %llu\n", static_cast<unsigned long long>(chunks),
                static_cast<unsigned long long>(victim_closed_form(t_obs)));
    // Within one chunk: the victim may wait behind one H1 chunk on LX (a 250 Gbit/s chunk time).
    EXPECT_NEAR(static_cast<double>(chunks), static_cast<double>(victim_closed_form(t_obs)), 1.0);
    for (LinkDir* l : {&h.h1l, &h.hvl, &h.lx, &h.h2x, &h.h3x}) EXPECT_EQ(l->stats().pfc.pause_frames, 0u) << l->label();
    // The incast piles up at X instead: D drains 100 of the 300 Gbit/s sent to it.
    EXPECT_GT(h.xd.queued_bytes(), 1000u * kChunk);
    h.wiring.expect_no_violations();
  });
}

TEST(Pfc, IngressPauseSpreadsToTheVictimThatSharesNoCongestedLink) {
  in_own_process([] {
    const std::int64_t t_obs = 300000000;
    Incast h(true, t_obs + 1000000000);
    sc_core::sc_start(at(t_obs));
    const std::uint64_t chunks = h.v.delivered_bytes(2) / kChunk, ideal = victim_closed_form(t_obs);
    // X's port from L holds H1's chunks bound for D: it pauses LX, which carries the victim too.
    EXPECT_GT(h.lx.stats().pfc.pause_frames, 0u);
    EXPECT_GT(h.lx.totals(t_obs).stats.pfc.paused_ps, t_obs / 10);
    // The pause spreads upstream: L's egress to X stops, L's ports from H1 and Hv fill and pause them.
    EXPECT_GT(h.h1l.stats().pfc.pause_frames, 0u);
    EXPECT_GT(h.hvl.stats().pfc.pause_frames, 0u);
    // Measurably slower than its uncongested closed form (which mode off reproduces, above).
    EXPECT_LT(static_cast<double>(chunks), 0.8 * static_cast<double>(ideal)) << chunks << " of " << ideal;
    std::printf("victim: %llu chunks of %llu; LX paused %.3f of the time\n", static_cast<unsigned long long>(chunks),
                static_cast<unsigned long long>(ideal),
                static_cast<double>(h.lx.totals(t_obs).stats.pfc.paused_ps) / static_cast<double>(t_obs));
    // The incast's own ports are paused as well, and D's link stays busy.
    EXPECT_GT(h.h2x.stats().pfc.pause_frames, 0u);
    EXPECT_GT(static_cast<double>(h.xd.totals(t_obs).stats.busy_ps), 0.95 * static_cast<double>(t_obs));
    h.wiring.expect_no_violations();
  });
}

}  // namespace test_pfc
}  // namespace trainvp
