// The CXL device's data ports wired alone: a stand-in GPU (an AT initiator) writes chunks over a
// flit-framed CXL link into a port's `mem` socket (the reduction window), and the port's `dma`
// socket sends chunks over another CXL link to a sink, with a base-protocol checker on every
// socket pair. Times against the closed form of docs/cxl.md and docs/fabric.md: a chunk of b bytes
// is ceil(b / 64) whole 68-byte flits on a CXL 2.0 link; its head (first flit) reaches the far end
// one flit time plus the latency after it starts, its tail the whole wire time plus the latency;
// back-to-back chunks follow one another at the wire time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/cxl/cxl_device.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "models/link/link_dir.hpp"
#include "models/link/traffic.hpp"
#include "platform/core/test/at_modules.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/test/timing.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_cxl_port_alone {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

using test::run_to;
constexpr auto ser = test::ser_ps;
void step() { sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_PS)); }

// Records when each chunk written into the window was handed to its sink, and its tail time.
struct Recorder : ChunkSink {
  std::vector<std::int64_t> at, tail;
  void chunk_delivered(tlm::tlm_generic_payload& p) override {
    at.push_back(now_ps());
    tail.push_back(chunk_of(p)->tail_ps);
    p.release();  // the sender's reference
  }
};

tlm::tlm_generic_payload* make_chunk(PayloadPool& pool, const Route& route, std::uint32_t bytes, std::uint64_t tag,
                                     ChunkSink* sink, std::vector<unsigned char>& buffer) {
  tlm::tlm_generic_payload* p = pool.acquire();
  ChunkExt* c = chunk_of(*p);
  if (!c) {
    c = new ChunkExt;
    p->set_extension(c);
  }
  c->route = &route;
  c->hop = 0;
  c->flow = 1;
  c->payload_bytes = bytes;
  c->tail_ps = now_ps();
  c->tag = tag;
  c->sink = sink;
  if (buffer.size() < bytes) buffer.resize(bytes);
  p->set_command(tlm::TLM_WRITE_COMMAND);
  p->set_address(0);
  p->set_data_ptr(buffer.data());
  p->set_data_length(bytes);
  p->set_streaming_width(bytes);
  p->set_byte_enable_ptr(nullptr);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return p;
}

TEST(CxlPortAlone, WindowWritesAndReadBacksMoveAsWholeFlitsAtTheClosedForm) {
  TRAINVP_REQUIRE_RTL();
  in_own_process([] {
    RunContext ctx(1, false);
    CxlParams cx;
    cx.present = true;
    cx.link_lanes = 8;  // CXL 2.0: 8 x 32 GT/s x 128/130 = 252 Gbit/s; a 68-byte flit is 2158 ps
    cx.link_latency_ps = 100000;
    cx.completion = CxlCompletion::Poll;  // the driver stays idle: no start-up IRQ_EN write (no host here)
    CxlDevice dev("cxl", cx, 2, DType::FP32, ctx);
    auto link = [&](const char* name) {
      LinkDirParams p;
      p.bandwidth_bps = cx.link_bps();
      p.latency_ps = cx.link_latency_ps;
      p.mtu = static_cast<std::uint32_t>(cx.flit_payload());
      p.overhead = static_cast<std::uint32_t>(cx.flit_overhead());
      p.whole_packets = true;
      return std::make_unique<LinkDir>(name, name, p, 1 << 20, ctx);
    };
    auto in_link = link("to_p1"), out_link = link("from_p1");
    test::InitiatorModule gpu("gpu");
    TrafficSink sink("sink");
    std::vector<std::unique_ptr<ProtocolChecker>> chk;
    for (int i = 0; i < 4; ++i) chk.push_back(std::make_unique<ProtocolChecker>(("chk" + std::to_string(i)).c_str()));
    CxlPort& port = *dev.ports.at(1);  // a data port (port 0 also holds the CXL.io function)
    gpu.out.bind(chk[0]->in), chk[0]->out.bind(in_link->in);
    in_link->out.bind(chk[1]->in), chk[1]->out.bind(port.mem);
    port.dma.bind(chk[2]->in), chk[2]->out.bind(out_link->in);
    out_link->out.bind(chk[3]->in), chk[3]->out.bind(sink.in);
    // Unused sockets of port 0 stay unbound (they are optional).

    const Route route{{0}, {}};
    Recorder rec;
    std::vector<unsigned char> buffer;
    const std::uint32_t sizes[] = {4096, 1000, 64};  // 64, 16 and 1 flits
    const double bps = 8 * 32e9 * 128.0 / 130.0;     // PCIe 5.0 x8 after line coding (not cx.link_bps())
    const std::uint64_t flit = static_cast<std::uint64_t>(cx.flit_payload() + cx.flit_overhead());
    auto flits = [&](std::uint32_t b) { return (b + cx.flit_payload() - 1) / cx.flit_payload(); };
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    // Into the window: all three back to back at t = 0.
    for (std::uint32_t b : sizes) gpu.at.send(0, make_chunk(gpu.pool, route, b, 0, &rec, buffer), nullptr);
    std::int64_t start = 0;
    std::vector<std::int64_t> want_at, want_tail;
    std::uint64_t in_bytes = 0, wire_in = 0;
    for (std::uint32_t b : sizes) {
      want_at.push_back(start + ser(flit, bps) + cx.link_latency_ps);               // its first flit
      want_tail.push_back(start + ser(flits(b) * flit, bps) + cx.link_latency_ps);  // its last
      start += ser(flits(b) * flit, bps);
      in_bytes += b, wire_in += flits(b) * flit;
    }
    for (std::size_t k = 0; k < want_at.size(); ++k) {
      run_to(want_at[k]);
      EXPECT_EQ(rec.at.size(), k) << "chunk " << k << " before " << want_at[k];
      step();
      ASSERT_EQ(rec.at.size(), k + 1) << "chunk " << k << " at " << want_at[k];
      EXPECT_EQ(rec.tail[k], want_tail[k]) << "chunk " << k;
    }
    sc_core::sc_start();
    EXPECT_EQ(port.bytes_in(), in_bytes);
    EXPECT_EQ(in_link->stats().wire_bytes, wire_in);
    EXPECT_EQ(in_link->stats().busy_ps, start);

    // Out of the port (read-backs): sent at t0, each counted by the sink when its tail arrives.
    const std::int64_t t0 = now_ps() + 1000000;
    run_to(t0);
    for (std::size_t k = 0; k < 3; ++k) port.send_chunk(make_chunk(gpu.pool, route, sizes[k], k, nullptr, buffer));
    start = t0;
    for (std::size_t k = 0; k < 3; ++k) {
      const std::int64_t tail = start + ser(flits(sizes[k]) * flit, bps) + cx.link_latency_ps;
      start += ser(flits(sizes[k]) * flit, bps);
      run_to(tail);
      EXPECT_EQ(sink.delivered_bytes(k), 0u) << "chunk " << k << " before " << tail;
      step();
      EXPECT_EQ(sink.delivered_bytes(k), sizes[k]) << "chunk " << k << " at " << tail;
    }
    sc_core::sc_start();
    EXPECT_EQ(out_link->stats().wire_bytes, wire_in);
    EXPECT_EQ(out_link->stats().busy_ps, start - t0);
    for (const auto& c : chk) {
      for (const std::string& v : c->violations()) ADD_FAILURE() << c->name() << ": " << v;
      EXPECT_EQ(c->begun(), 3u) << c->name();
      EXPECT_EQ(c->in_progress(), 0u) << c->name();
    }
  });
}

}  // namespace test_cxl_port_alone
}  // namespace trainvp
