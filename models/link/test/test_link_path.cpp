// Links and a forwarder wired alone, as ns-3's point-to-point test wires two devices and a channel:
// a paced traffic source, link directions, a forwarder between them and a sink, with a base-protocol
// checker on every socket pair. Delivery times follow the closed form of docs/fabric.md: a chunk of
// b bytes is b + ceil(b / mtu) x framing on the wire at the link rate; its first packet reaches the
// far end one packet time plus the latency after it starts (cut-through), and its tail leaves a
// link at max(start + wire time, tail arrival + one last-packet time); the link's busy series holds
// each chunk's wire time in the buckets of the time it was on the wire.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/link/forwarder.hpp"
#include "models/link/link_dir.hpp"
#include "models/link/traffic.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/checked_wiring.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_link_path {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

std::int64_t ser(std::uint64_t bytes, double bps) {
  return std::llround(static_cast<double>(bytes) * 8.0 / bps * 1e12);
}
std::uint64_t packets(std::uint64_t b, std::uint32_t mtu) { return (b + mtu - 1) / mtu; }
std::uint64_t on_wire(std::uint64_t b, const LinkDirParams& p) { return b + packets(b, p.mtu) * p.overhead; }

// Head and tail arrival times (ps) at the far end of `p` of a chunk of `b` bytes that starts there
// at `start` and whose tail reached the link at `tail_in`.
struct Times {
  std::int64_t head, tail;
};
Times through(const LinkDirParams& p, std::uint64_t b, std::int64_t start, std::int64_t tail_in) {
  const std::uint64_t first = std::min<std::uint64_t>(b, p.mtu), last = b - (packets(b, p.mtu) - 1) * p.mtu;
  const std::int64_t tail_out =
      std::max(start + ser(on_wire(b, p), p.bandwidth_bps), tail_in + ser(last + p.overhead, p.bandwidth_bps));
  return {start + ser(first + p.overhead, p.bandwidth_bps) + p.latency_ps, tail_out + p.latency_ps};
}

LinkDirParams link(double bps, std::int64_t latency_ps) {
  LinkDirParams p;
  p.bandwidth_bps = bps;
  p.latency_ps = latency_ps;
  p.mtu = 4096;
  p.overhead = 82;
  return p;
}

// Every hop's checker saw `chunks` chunks through, every one completed, with no violation.
void expect_no_violations(const test::CheckedWiring& wiring, std::uint64_t chunks) {
  wiring.expect_no_violations();
  wiring.expect_all_completed();
  for (const auto& c : wiring.checkers()) EXPECT_EQ(c->begun(), chunks) << c->name();
}

// source -> link a -> forwarder -> link b -> sink: chunks of `bytes`, at most one every `interval`,
// sent from 0 until `end_ps`.
struct TwoHops {
  static constexpr std::uint64_t kTag = 7;
  RunContext ctx{1, false};
  Route route{{0, 0}, {}};  // the source's own port, then the forwarder's out-port 0
  TrafficSource src;
  LinkDir a, b;
  Forwarder fwd;
  TrafficSink sink;
  test::CheckedWiring wiring;

  TwoHops(const LinkDirParams& pa, const LinkDirParams& pb, std::uint32_t bytes, std::int64_t interval,
          std::int64_t end_ps)
      : src("src", {0, end_ps, 0, 0}, interval, bytes, 1, kTag, [this] { return &route; }),
        a("a", "a", pa, bytes, ctx),
        b("b", "b", pb, bytes, ctx),
        fwd("fwd", "fwd"),
        sink("sink") {
    wiring.bind(src.out, a.in);
    wiring.bind(a.out, fwd.in);
    wiring.bind(fwd.out, b.in);
    wiring.bind(b.out, sink.in);
  }
  std::uint64_t delivered() const { return sink.delivered_bytes(kTag); }
};

// Nothing more has arrived just before `t`, `bytes` more at `t`. sc_start(d) stops before it runs
// what is due at its end time, so running to `t` shows what arrived before it, and one more
// picosecond what arrived at it.
void expect_arrival_at(TwoHops& h, std::int64_t t, std::uint64_t before, std::uint64_t bytes) {
  sc_core::sc_start(ps_time(t - now_ps()));
  EXPECT_EQ(h.delivered(), before) << "before " << t << " ps";
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(h.delivered(), before + bytes) << "at " << t << " ps";
}

// A link's busy series holds exactly the time of `busy` (intervals, ps) in each bucket, at the
// width that covers their last end in BusySeries::kBuckets from 1 ns up.
void expect_series(const BusySeries& s, const std::vector<std::pair<std::int64_t, std::int64_t>>& busy) {
  std::int64_t width = BusySeries::kFirstWidthPs, end = 0;
  for (auto [a, b] : busy) end = std::max(end, b);
  while (width * static_cast<std::int64_t>(BusySeries::kBuckets) < end) width *= 2;
  ASSERT_EQ(s.width_ps(), width);
  const auto n = static_cast<std::size_t>((end + width - 1) / width);
  std::vector<double> expected(n, 0.0);
  for (auto [a, b] : busy)
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t lo = static_cast<std::int64_t>(k) * width, hi = lo + width;
      expected[k] += static_cast<double>(std::max<std::int64_t>(0, std::min(b, hi) - std::max(a, lo)));
    }
  EXPECT_EQ(s.at_width(width, n), expected);
}

void paced_chunks_arrive_at_the_closed_form(const LinkDirParams& pa, const LinkDirParams& pb) {
  in_own_process([&] {
    const std::uint32_t bytes = 10000;  // three packets: 4096 + 4096 + 1808
    const int chunks = 3;
    const std::int64_t interval = 10000000;  // 10 us: each chunk has the path to itself
    TwoHops h(pa, pb, bytes, interval, (chunks - 1) * interval + 1);
    std::vector<std::pair<std::int64_t, std::int64_t>> busy_a, busy_b;  // each chunk's time on the wire
    for (int k = 0; k < chunks; ++k) {
      const std::int64_t t0 = k * interval;
      const Times ta = through(pa, bytes, t0, t0);
      const Times tb = through(pb, bytes, ta.head, ta.tail);  // the forwarder hands it on at its head
      expect_arrival_at(h, tb.tail, std::uint64_t{bytes} * k, bytes);
      busy_a.push_back({t0, t0 + ser(on_wire(bytes, pa), pa.bandwidth_bps)});
      busy_b.push_back({ta.head, ta.head + ser(on_wire(bytes, pb), pb.bandwidth_bps)});
    }
    sc_core::sc_start();
    for (const LinkDir* l : {&h.a, &h.b}) {
      EXPECT_EQ(l->stats().chunks, static_cast<std::uint64_t>(chunks));
      EXPECT_EQ(l->stats().payload_bytes, std::uint64_t{bytes} * chunks);
      EXPECT_EQ(l->stats().wire_bytes, on_wire(bytes, l->params()) * chunks);
      EXPECT_EQ(l->stats().busy_ps, ser(on_wire(bytes, l->params()), l->params().bandwidth_bps) * chunks);
      EXPECT_EQ(l->busy_series().total_ps(), static_cast<double>(l->stats().busy_ps));
    }
    // Over time: each chunk's wire time in the buckets it falls in (link_series.json).
    expect_series(h.a.busy_series(), busy_a);
    expect_series(h.b.busy_series(), busy_b);
    expect_no_violations(h.wiring, chunks);
  });
}

TEST(LinkPath, ASlowSecondHopIsTheBottleneck) {
  // 100 and 50 Gbit/s: 80 and 160 ps per byte, so every time is exact.
  paced_chunks_arrive_at_the_closed_form(link(100e9, 1000000), link(50e9, 500000));
}

TEST(LinkPath, AFastSecondHopWaitsForTheTail) {
  // The second hop would finish first; the tail's arrival holds it back (cut-through).
  paced_chunks_arrive_at_the_closed_form(link(50e9, 1000000), link(200e9, 500000));
}

// The slow hop's buffer fills, the forwarder holds what does not fit, and that pushes back to
// the source; every byte still arrives, at the bottleneck's wire rate once the pipe is full.
// `end_held`: link b and the forwarder end the requests they hold (END_REQ at once, BEGIN_RESP when
// the chunk fits), as the fabric has them do between links and forwarders so that express
// messages may pass a held chunk; the times are the same.
void back_to_back_through_back_pressure(bool end_held) {
  in_own_process([end_held] {
    LinkDirParams pa = link(100e9, 1000000), pb = link(50e9, 500000);
    pb.buffer = 4 * 10000;
    const std::uint32_t bytes = 10000;
    TwoHops h(pa, pb, bytes, 0, 20000000);  // as fast as accepted, for 20 us
    if (end_held) h.b.end_held_requests(), h.fwd.end_held_requests(0);
    sc_core::sc_start();
    const std::uint64_t chunks = h.src.sent_chunks();
    EXPECT_GT(chunks, 10u);  // more than the path holds: the source was held back
    EXPECT_EQ(h.delivered(), std::uint64_t{bytes} * chunks);
    // The last chunk's tail: b is busy from the first chunk's head on, one wire time per chunk.
    const Times first = through(pa, bytes, 0, 0);
    const std::int64_t b_wire = ser(on_wire(bytes, pb), pb.bandwidth_bps);
    const std::int64_t n = static_cast<std::int64_t>(chunks);
    EXPECT_EQ(now_ps(), static_cast<std::int64_t>(first.head + n * b_wire + pb.latency_ps));
    EXPECT_GT(h.b.stats().paused_ps + h.a.stats().paused_ps, 0);
    EXPECT_EQ(h.b.stats().busy_ps, n * b_wire);
    expect_no_violations(h.wiring, chunks);
  });
}

TEST(LinkPath, BackToBackChunksStreamAtTheBottleneckRateThroughBackPressure) {
  back_to_back_through_back_pressure(false);
}

TEST(LinkPath, HeldChunksThatEndTheirRequestsStreamAtTheSameTimes) { back_to_back_through_back_pressure(true); }

}  // namespace test_link_path
}  // namespace trainvp
