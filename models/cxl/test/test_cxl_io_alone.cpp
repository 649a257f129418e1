// The CXL device's CXL.io wired alone, without platform/system: the host's driver (CxlDriver) on a
// stand-in root complex, a PCIe link to a stand-in PCIe switch, a flit-framed CXL link to the
// device's port 0 (CxlPort, whose CXL.io function is the CSR target CxlCsrTarget), and the way
// back, with a base-protocol checker on every socket pair:
//
//   driver.mmio -> rc -> pcie link -> sw -> cxl link -> p0.mem  (CONFIG, LEN, BASE, CTRL.START, reads)
//   p0.dma -> cxl link -> sw -> pcie link -> rc -> driver.host  (MSIs, read completions)
//
// rc and sw are models/link Forwarders and the links LinkDirs, parameterized as the fabric does
// (docs/cxl.md, "CXL.io"): a link adds its sending device's forwarding latency, a CXL link carries
// whole 68-byte flits, the root complex's latency towards the CPU is paid by TLPs from the device.
// Checked against closed forms computed here, hop by hop: when each MMIO write reaches the CSR
// block and what it programs (read back through the RTL's APB port in rtl fidelity, from the
// register file in calibrated fidelity), when the engine runs (the RTL's cycle count of
// docs/rtl.md), when the MSI reaches the CPU or which STATUS poll sees DONE, when the job is done,
// and each link's and checker's traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/cxl/cxl_device.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "models/link/forwarder.hpp"
#include "models/link/link_dir.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/core/test/timing.hpp"
#include "platform/core/tlm/protocol_checker.hpp"

namespace trainvp {
namespace test_cxl_io_alone {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

constexpr auto ser = test::ser_ps;

// The host side's stand-in parameters: a PCIe 4.0 x16 link (256 Gbit/s raw: 31.25 ps a byte, so
// 28- and 24-byte TLPs are whole picoseconds) with 24 bytes of framing per TLP, 300 ns of link
// latency, 150 ns through the root complex or a PCIe switch.
struct HostSide {
  double pcie_bps = 256e9;
  std::uint32_t pcie_mtu = 256, pcie_framing = 24;
  std::int64_t pcie_latency_ps = 300000, switch_latency_ps = 150000;
};

// The device: CXL 2.0 on 8 lanes (256 Gbit/s: a 68-byte flit is 2125 ps), the engine's LANES 16
// variant at 1 GHz (64-byte fp32 lines), 64 GB/s and 250 ns device memory, 200 ns per MMIO access.
CxlParams device_params(CxlFidelity fidelity, CxlCompletion completion, std::int64_t completion_ps) {
  CxlParams p;
  p.present = true;
  p.generation = CxlGeneration::Cxl2;
  p.link_lanes = 8;
  p.link_latency_ps = 100000;
  p.engine_lanes = 16;
  p.rtl_clock_hz = 1e9;
  p.fidelity = fidelity;
  p.mem_latency_ps = 250000;
  p.mem_bw = 64e9 * 8;
  p.mmio_latency_ps = 200000;
  p.completion = completion;
  p.completion_latency_ps = completion_ps;
  return p;
}

// ---- Closed forms ----

// One-way times (ps) of a TLP carrying `data` bytes, hop by hop, on idle links. Down: root complex
// -> switch (the TLP's bytes plus framing at the PCIe rate; link latency plus the root complex's
// forwarding latency), switch -> port 0 (one whole flit however little it carries; the CXL link's
// latency plus the switch's). Up: port 0 -> switch (a flit; the port adds no latency), switch ->
// root complex (PCIe), then the root complex's latency towards the CPU.
struct Paths {
  std::int64_t write, read_request, to_host;
};
Paths paths(const HostSide& h, const CxlParams& cx) {
  const std::uint64_t flit = static_cast<std::uint64_t>(cx.flit_payload() + cx.flit_overhead());
  const double cxl = 32e9 * cx.link_lanes * 128.0 / 130.0;  // CXL 2.0: 32 GT/s a lane, 128b/130b coding
  auto down = [&](std::uint64_t data) {
    return ser(data + h.pcie_framing, h.pcie_bps) + h.pcie_latency_ps + h.switch_latency_ps  // rc -> sw
           + ser(flit, cxl) + cx.link_latency_ps + h.switch_latency_ps;                      // sw -> p0
  };
  const std::int64_t up = ser(flit, cxl) + cx.link_latency_ps                                              // p0 -> sw
                          + ser(4 + h.pcie_framing, h.pcie_bps) + h.pcie_latency_ps + h.switch_latency_ps  // sw -> rc
                          + h.switch_latency_ps;                                                           // rc -> CPU
  return {down(4), down(0), up};
}

// The engine (docs/rtl.md): L lines of N contributors take L N + N + 3 cycles from START to the
// last output; the job's count adds the START write's APB transfer (2 cycles: setup, access) and the
// STATUS read that sees DONE (2 cycles), DONE rising the cycle after the last output.
std::uint64_t engine_cycles(int n, std::uint64_t lines) { return lines * n + n + 3 + 2 + 2; }
// Doorbell to DONE: the cycles at the engine clock, overlapped with writing the lines into device
// memory, then the memory latency.
std::int64_t engine_ps(const CxlParams& cx, int n, std::uint64_t lines, std::uint64_t line_bytes) {
  const double e = static_cast<double>(engine_cycles(n, lines)) * 1e12 / cx.rtl_clock_hz;
  const double m = static_cast<double>(lines * line_bytes) * 8.0 / cx.mem_bw * 1e12;
  return std::llround(std::max(e, m)) + cx.mem_latency_ps;
}

constexpr std::uint64_t kLineBytes = 16 * 4;              // LANES 16, fp32
constexpr std::uint64_t kResultBase = 0x10'0000'0000ull;  // the driver's result ring
std::uint64_t lines_of(std::uint64_t bytes) { return (bytes + kLineBytes - 1) / kLineBytes; }

// ---- The wiring ----

struct Wired {
  RunContext ctx{1, false};
  HostSide h;
  CxlParams cx;
  CxlDevice dev;
  Forwarder rc, sw;
  LinkDir rc_sw, sw_p0, p0_sw, sw_rc;
  // Routes: entry 0 is the sender's own socket, then one out-port per forwarder.
  // rc.out[0]: to sw; rc.out[1]: to the driver. sw.out[0]: to p0; sw.out[1]: to rc.
  Route to_device{{0, 0, 0}, {}}, to_host{{0, 1, 1}, {}};
  std::vector<std::unique_ptr<ProtocolChecker>> checkers;
  std::map<std::string, ProtocolChecker*> by_hop;

  static LinkDirParams link(double bps, std::int64_t latency_ps, std::uint32_t mtu, std::uint32_t overhead,
                            bool whole) {
    LinkDirParams p;
    p.bandwidth_bps = bps;
    p.latency_ps = latency_ps;
    p.mtu = mtu;
    p.overhead = overhead;
    p.whole_packets = whole;
    return p;
  }
  template <class I, class T>
  void bind(const std::string& hop, I& initiator, T& target) {
    checkers.push_back(std::make_unique<ProtocolChecker>(("chk" + std::to_string(checkers.size())).c_str()));
    ProtocolChecker* c = checkers.back().get();
    initiator.bind(c->in);
    c->out.bind(target);
    by_hop[hop] = c;
  }

  explicit Wired(const CxlParams& p)
      : cx(p),
        dev("cxl", cx, 1, DType::FP32, ctx),
        rc("rc", "rc"),
        sw("sw", "sw"),
        rc_sw("rc_sw", "rc->sw",
              link(h.pcie_bps, h.pcie_latency_ps + h.switch_latency_ps, h.pcie_mtu, h.pcie_framing, false), 1 << 20,
              ctx),
        sw_p0(
            "sw_p0", "sw->p0",
            link(cx.link_bps(), cx.link_latency_ps + h.switch_latency_ps, cx.flit_payload(), cx.flit_overhead(), true),
            1 << 20, ctx),
        p0_sw("p0_sw", "p0->sw", link(cx.link_bps(), cx.link_latency_ps, cx.flit_payload(), cx.flit_overhead(), true),
              1 << 20, ctx),
        sw_rc("sw_rc", "sw->rc",
              link(h.pcie_bps, h.pcie_latency_ps + h.switch_latency_ps, h.pcie_mtu, h.pcie_framing, false), 1 << 20,
              ctx) {
    CxlPort& p0 = *dev.ports.at(0);
    bind("driver->rc", dev.driver().mmio, rc.in);
    bind("rc->link", rc.out, rc_sw.in);
    bind("link->sw", rc_sw.out, sw.in);
    bind("sw->link", sw.out, sw_p0.in);
    bind("link->p0", sw_p0.out, p0.mem);
    bind("p0->link", p0.dma, p0_sw.in);
    bind("link->sw'", p0_sw.out, sw.in);
    bind("sw->link'", sw.out, sw_rc.in);
    bind("link->rc", sw_rc.out, rc.in);
    bind("rc->driver", rc.out, dev.driver().host);
    dev.set_host_paths(&to_device, &to_host, 0xC5100000u, h.switch_latency_ps);
  }

  // Runs to just before `t` (ps): what is due at `t` has not happened yet.
  static void run_to(std::int64_t t) {
    ASSERT_GE(t, now_ps());
    test::run_to(t);
  }
  static void step() { sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_PS)); }  // runs what is due now

  // Every checker: no violation, `begun` TLPs through (by hop), none left open.
  void expect_protocol(const std::map<std::string, std::uint64_t>& begun) {
    for (const auto& [hop, c] : by_hop) {
      for (const std::string& v : c->violations()) ADD_FAILURE() << hop << ": " << v;
      EXPECT_EQ(c->begun(), begun.at(hop)) << hop;
      EXPECT_EQ(c->in_progress(), 0u) << hop;
    }
  }
};

struct JobSpec {
  std::uint64_t bytes;
  int contributors;
};

// The CSR values a job's programming writes, in the driver's order (docs/cxl.md).
struct Write {
  std::uint32_t offset, value;
};
std::vector<Write> job_writes(const JobSpec& j, std::uint64_t base) {
  return {{csr::kConfig, static_cast<std::uint32_t>(j.contributors)},  // fp32, no FTZ
          {csr::len(0), static_cast<std::uint32_t>(lines_of(j.bytes))},
          {csr::base_lo(0), static_cast<std::uint32_t>(base)},
          {csr::base_hi(0), static_cast<std::uint32_t>(base >> 32)},
          {csr::kCtrl, csr::kStart}};
}

const char* fidelity_name(CxlFidelity f) { return f == CxlFidelity::Rtl ? "rtl" : "calibrated"; }

// Interrupt completion: jobs submitted together at `t_sub` (after the start-up IRQ_EN write has
// arrived) run one after the other. For each, hop by hop: write k of the job reaches the CSRs at
// t0 + k m + W and programs its register; the doorbell starts the engine (STATUS reads RUNNING),
// DONE comes engine_ps later; the MSI reaches the CPU U after DONE; the job is done C after that,
// and the driver takes the next one then.
void interrupt_jobs(CxlFidelity fidelity, double mem_bytes_per_s, const std::vector<JobSpec>& jobs) {
  in_own_process([&] {
    CxlParams cx0 = device_params(fidelity, CxlCompletion::Interrupt, 1000000);
    cx0.mem_bw = mem_bytes_per_s * 8;
    Wired w(cx0);
    const CxlParams& cx = w.cx;
    const Paths P = paths(w.h, cx);
    const std::int64_t m = cx.mmio_latency_ps, C = cx.completion_latency_ps;
    const std::string f = fidelity_name(fidelity);

    // Start-up: IRQ_EN.DONE, written m after 0, programs IRQ_EN at m + W.
    Wired::run_to(m + P.write);
    EXPECT_EQ(w.dev.read_csr(csr::kIrqEn) & csr::kIrqDone, 0u) << f;
    Wired::step();
    EXPECT_EQ(w.dev.read_csr(csr::kIrqEn) & csr::kIrqDone, csr::kIrqDone) << f;

    const std::int64_t t_sub = 10000000;  // 10 us: the driver is idle
    Wired::run_to(t_sub);
    std::vector<std::int64_t> done_at(jobs.size(), -1);
    for (std::size_t i = 0; i < jobs.size(); ++i)
      w.dev.reduce(jobs[i].bytes, jobs[i].contributors, [&done_at, i] { done_at[i] = now_ps(); });

    std::int64_t t0 = t_sub;
    std::uint64_t base = kResultBase;
    std::map<std::uint32_t, std::uint32_t> before;  // what the previous job wrote
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobSpec& j = jobs[i];
      const std::uint64_t lines = lines_of(j.bytes);
      const std::vector<Write> writes = job_writes(j, base);
      for (std::size_t k = 0; k < writes.size(); ++k) {
        const std::int64_t at = t0 + static_cast<std::int64_t>(k + 1) * m + P.write;
        Wired::run_to(at);
        if (writes[k].offset == csr::kCtrl) {
          EXPECT_EQ(w.dev.read_csr(csr::kStatus) & csr::kRunning, 0u)
              << f << " job " << i << ": running before its doorbell";
        } else if (writes[k].value != (before.count(writes[k].offset) ? before[writes[k].offset] : 0u)) {
          EXPECT_NE(w.dev.read_csr(writes[k].offset), writes[k].value)
              << f << " job " << i << " CSR " << writes[k].offset << " before " << at;
        }
        Wired::step();
        if (writes[k].offset == csr::kCtrl) {
          EXPECT_EQ(w.dev.read_csr(csr::kStatus) & (csr::kRunning | csr::kDone), csr::kRunning)
              << f << " job " << i << " at its doorbell";
        } else {
          EXPECT_EQ(w.dev.read_csr(writes[k].offset), writes[k].value)
              << f << " job " << i << " CSR " << writes[k].offset << " at " << at;
        }
      }
      const std::int64_t t_start = t0 + 5 * m + P.write;
      const std::int64_t t_done = t_start + engine_ps(cx, j.contributors, lines, kLineBytes);
      Wired::run_to(t_done);
      EXPECT_EQ(w.dev.read_csr(csr::kStatus) & (csr::kRunning | csr::kDone), csr::kRunning)
          << f << " job " << i << " before DONE";
      EXPECT_EQ(w.dev.stats().jobs, i) << f;
      Wired::step();
      EXPECT_EQ(w.dev.read_csr(csr::kStatus) & (csr::kRunning | csr::kDone), csr::kDone)
          << f << " job " << i << " at DONE";
      EXPECT_EQ(w.dev.stats().jobs, i + 1) << f;
      EXPECT_EQ(w.dev.csr().stats().msis, i + 1) << f << ": the MSI leaves at DONE";
      const std::int64_t t_msi = t_done + P.to_host;
      Wired::run_to(t_msi);
      EXPECT_EQ(w.dev.driver().stats().msis, i) << f << " job " << i << ": MSI at the CPU before " << t_msi;
      Wired::step();
      EXPECT_EQ(w.dev.driver().stats().msis, i + 1) << f << " job " << i << ": MSI at the CPU at " << t_msi;
      const std::int64_t t_end = t_msi + C;
      Wired::run_to(t_end);
      EXPECT_EQ(done_at[i], -1) << f << " job " << i;
      Wired::step();
      EXPECT_EQ(done_at[i], t_end) << f << " job " << i << ": off by " << done_at[i] - t_end << " ps";
      t0 = t_end;
      base += lines * kLineBytes;
      for (const Write& wr : writes) before[wr.offset] = wr.value;
    }
    EXPECT_FALSE(sc_core::sc_pending_activity()) << f << ": nothing after the last job";

    // Totals against the closed forms.
    std::uint64_t cycles = 0, lines = 0;
    std::int64_t busy = 0, driver_busy = 0;
    for (const JobSpec& j : jobs) {
      cycles += engine_cycles(j.contributors, lines_of(j.bytes));
      lines += lines_of(j.bytes);
      busy += engine_ps(cx, j.contributors, lines_of(j.bytes), kLineBytes);
      driver_busy += 5 * m + P.write + engine_ps(cx, j.contributors, lines_of(j.bytes), kLineBytes) + P.to_host + C;
    }
    const std::uint64_t n = jobs.size(), writes = 1 + 5 * n;
    EXPECT_EQ(w.dev.stats().engine_cycles, cycles) << f;
    EXPECT_EQ(w.dev.stats().lines, lines) << f;
    EXPECT_EQ(w.dev.stats().busy_ps, busy) << f;
    EXPECT_EQ(w.dev.driver().stats().busy_ps, driver_busy) << f;
    EXPECT_EQ(w.dev.driver().stats().jobs, n) << f;
    EXPECT_EQ(w.dev.driver().stats().mmio_writes, writes) << f;
    EXPECT_EQ(w.dev.driver().stats().mmio_reads, 0u) << f;
    EXPECT_EQ(w.dev.csr().stats().writes, writes) << f;
    EXPECT_EQ(w.dev.csr().stats().reads, 0u) << f;
    // The last job's programming is what the CSR block holds, and what the driver says it wrote.
    for (const Write& wr : job_writes(jobs.back(), base - lines_of(jobs.back().bytes) * kLineBytes)) {
      if (wr.offset == csr::kCtrl) continue;  // CTRL reads 0
      EXPECT_EQ(w.dev.read_csr(wr.offset), wr.value) << f << " CSR " << wr.offset;
      EXPECT_EQ(w.dev.driver().written().at(wr.offset), wr.value) << f << " CSR " << wr.offset;
    }
    // Links: the writes go down as 28-byte TLPs and single flits; the MSIs come up the same way.
    const std::uint64_t flit = static_cast<std::uint64_t>(cx.flit_payload() + cx.flit_overhead());
    struct Expect {
      const LinkDir* l;
      std::uint64_t tlps, wire;
      double bps;
    };
    for (const Expect& e :
         {Expect{&w.rc_sw, writes, 4 + w.h.pcie_framing, w.h.pcie_bps}, Expect{&w.sw_p0, writes, flit, cx.link_bps()},
          Expect{&w.p0_sw, n, flit, cx.link_bps()}, Expect{&w.sw_rc, n, 4 + w.h.pcie_framing, w.h.pcie_bps}}) {
      EXPECT_EQ(e.l->stats().chunks, e.tlps) << f << " " << e.l->label();
      EXPECT_EQ(e.l->stats().payload_bytes, 4 * e.tlps) << f << " " << e.l->label();
      EXPECT_EQ(e.l->stats().wire_bytes, e.wire * e.tlps) << f << " " << e.l->label();
      EXPECT_EQ(e.l->stats().busy_ps, ser(e.wire, e.bps) * static_cast<std::int64_t>(e.tlps))
          << f << " " << e.l->label();
    }
    w.expect_protocol({{"driver->rc", writes},
                       {"rc->link", writes},
                       {"link->sw", writes},
                       {"sw->link", writes},
                       {"link->p0", writes},
                       {"p0->link", n},
                       {"link->sw'", n},
                       {"sw->link'", n},
                       {"link->rc", n},
                       {"rc->driver", n}});
  });
}

// Two jobs submitted together: 3 contributors of 64 KiB (1024 lines), then 1 contributor of
// 40,000 bytes (625 lines), the second programmed once the first is done. At 64 GB/s the engine
// sets the pace of both (3079 and 633 cycles against 1024 and 625 ns of memory); at 32 GB/s the
// second job's memory writes (1250 ns) outlast its engine.
TEST(CxlIoAlone, InterruptJobsCalibrated) {
  TRAINVP_REQUIRE_RTL();
  interrupt_jobs(CxlFidelity::Calibrated, 64e9, {{64 * 1024, 3}, {40000, 1}});
}

TEST(CxlIoAlone, InterruptJobsRtl) {
  TRAINVP_REQUIRE_RTL();
  interrupt_jobs(CxlFidelity::Rtl, 64e9, {{64 * 1024, 3}, {40000, 1}});
}

TEST(CxlIoAlone, InterruptJobsMemoryBoundCalibrated) {
  TRAINVP_REQUIRE_RTL();
  interrupt_jobs(CxlFidelity::Calibrated, 32e9, {{64 * 1024, 3}, {40000, 1}});
}

// Polling: the driver reads STATUS at each tick of the period after the doorbell leaves (one
// access overhead after its tick; a tick passing while a read is outstanding is skipped); the first
// read reaching the CSRs after DONE sees it, and the job is done when its completion is back.
struct Polled {
  std::int64_t seen_ps;
  int reads;
  std::vector<std::int64_t> at_device;
};
Polled polled(std::int64_t t_db, std::int64_t m, std::int64_t period, const Paths& p, std::int64_t done) {
  Polled out{0, 0, {}};
  std::int64_t now = t_db, j = 0;  // the last tick used
  for (;;) {
    std::int64_t next = j + 1;  // the first tick at or after now, later than the last one used
    while (t_db + next * period < now) ++next;
    j = next;
    const std::int64_t tick = t_db + j * period;
    const std::int64_t at_device = tick + m + p.read_request;
    EXPECT_NE(at_device, done) << "a read ties with DONE: pick other parameters";
    out.at_device.push_back(at_device);
    ++out.reads;
    now = at_device + p.to_host;
    if (at_device > done) return {now, out.reads, out.at_device};
  }
}

void polled_job(CxlFidelity fidelity, std::int64_t period) {
  in_own_process([&] {
    Wired w(device_params(fidelity, CxlCompletion::Poll, period));
    const CxlParams& cx = w.cx;
    const Paths P = paths(w.h, cx);
    const std::int64_t m = cx.mmio_latency_ps;
    const std::string f = std::string(fidelity_name(fidelity)) + " period " + std::to_string(period);
    const JobSpec j{64 * 1024, 4};
    const std::uint64_t lines = lines_of(j.bytes);
    const std::int64_t t_sub = 1000000;
    Wired::run_to(t_sub);
    std::int64_t done_at = -1;
    w.dev.reduce(j.bytes, j.contributors, [&done_at] { done_at = now_ps(); });
    const std::int64_t t_db = t_sub + 5 * m;
    const std::int64_t t_done = t_db + P.write + engine_ps(cx, j.contributors, lines, kLineBytes);
    const Polled want = polled(t_db, m, period, P, t_done);
    // Each read reaches the CSR block at its closed-form time.
    for (std::size_t r = 0; r < want.at_device.size(); ++r) {
      Wired::run_to(want.at_device[r]);
      EXPECT_EQ(w.dev.csr().stats().reads, r) << f << " read " << r;
      Wired::step();
      EXPECT_EQ(w.dev.csr().stats().reads, r + 1) << f << " read " << r << " at " << want.at_device[r];
    }
    Wired::run_to(want.seen_ps);
    EXPECT_EQ(done_at, -1) << f;
    Wired::step();
    EXPECT_EQ(done_at, want.seen_ps) << f << ": off by " << done_at - want.seen_ps << " ps";
    EXPECT_FALSE(sc_core::sc_pending_activity()) << f << ": nothing after the job";
    const std::uint64_t reads = static_cast<std::uint64_t>(want.reads);
    EXPECT_EQ(w.dev.driver().stats().mmio_reads, reads) << f;
    EXPECT_EQ(w.dev.driver().stats().mmio_writes, 5u) << f;  // no IRQ_EN when polling
    EXPECT_EQ(w.dev.driver().stats().msis, 0u) << f;
    EXPECT_EQ(w.dev.csr().stats().msis, 0u) << f;
    EXPECT_EQ(w.dev.driver().stats().busy_ps, want.seen_ps - t_sub) << f;
    EXPECT_EQ(w.dev.stats().engine_cycles, engine_cycles(j.contributors, lines)) << f;
    for (const Write& wr : job_writes(j, kResultBase)) {
      if (wr.offset != csr::kCtrl) {
        EXPECT_EQ(w.dev.read_csr(wr.offset), wr.value) << f << " CSR " << wr.offset;
      }
    }
    EXPECT_EQ(w.dev.read_csr(csr::kStatus) & (csr::kRunning | csr::kDone), csr::kDone) << f;
    // Reads are 24-byte TLPs (a header) down the PCIe link and a flit on the CXL link; completions
    // 28-byte TLPs up.
    const std::uint64_t flit = static_cast<std::uint64_t>(cx.flit_payload() + cx.flit_overhead());
    const std::int64_t pcie_down =
        5 * ser(4 + w.h.pcie_framing, w.h.pcie_bps) + want.reads * ser(w.h.pcie_framing, w.h.pcie_bps);
    EXPECT_EQ(w.rc_sw.stats().chunks, 5 + reads) << f;
    EXPECT_EQ(w.rc_sw.stats().busy_ps, pcie_down) << f;
    EXPECT_EQ(w.sw_p0.stats().wire_bytes, (5 + reads) * flit) << f;
    EXPECT_EQ(w.p0_sw.stats().wire_bytes, reads * flit) << f;
    EXPECT_EQ(w.sw_rc.stats().wire_bytes, reads * (4 + w.h.pcie_framing)) << f;
    const std::uint64_t down = 5 + reads;
    w.expect_protocol({{"driver->rc", down},
                       {"rc->link", down},
                       {"link->sw", down},
                       {"sw->link", down},
                       {"link->p0", down},
                       {"p0->link", reads},
                       {"link->sw'", reads},
                       {"sw->link'", reads},
                       {"link->rc", reads},
                       {"rc->driver", reads}});
  });
}

TEST(CxlIoAlone, PolledJobCalibratedShortPeriodSkipsTicks) {
  TRAINVP_REQUIRE_RTL();
  polled_job(CxlFidelity::Calibrated, 1000000);  // 1 us: shorter than a read's round trip
}

TEST(CxlIoAlone, PolledJobRtlLongPeriod) {
  TRAINVP_REQUIRE_RTL();
  polled_job(CxlFidelity::Rtl, 3000000);  // 3 us: every tick is used
}

}  // namespace test_cxl_io_alone
}  // namespace trainvp
