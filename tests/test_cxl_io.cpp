// CXL.io between the host's driver and the device: a job's time is the closed form of its MMIO
// writes' fabric path, the engine and memory, and the completion path (MSI or STATUS polls), every
// hop counted from the fabric's own link parameters; the RTL's CSR block holds what the driver
// wrote; the calibrated register file behaves as the RTL's does.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "models/cxl/cxl_csr.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/cxl_bench.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_cxl_io {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::int64_t ser(double bytes, double bps) { return std::llround(bytes * 8.0 / bps * 1e12); }

// One-way times (ps) of a small TLP between the driver on the root complex and the device's port 0
// (on PCIe switch 0), hop by hop. A link adds its sending device's forwarding latency to its own;
// a CXL flit is 68 bytes however little it carries; the root complex's latency towards the CPU is
// paid by TLPs from the device.
struct IoPaths {
  std::int64_t write, read_request, to_host;
};
IoPaths io_paths(const Scenario& s) {
  const PcieConfig& pc = s.cluster.pcie;
  const CxlParams& cx = s.cluster.cxl;
  const double pcie = pc.bandwidth_bps(), cxl = cx.link_bps();
  const int flit = cx.flit_payload() + cx.flit_overhead();
  auto down = [&](int data) {
    return ser(data + pc.framing, pcie) + pc.latency_ps + pc.switch_latency_ps  // root complex -> switch 0
           + ser(flit, cxl) + cx.link_latency_ps + pc.switch_latency_ps;        // switch 0 -> port 0
  };
  const std::int64_t up = ser(flit, cxl) + cx.link_latency_ps  // port 0 -> switch 0 (no device latency)
                          + ser(4 + pc.framing, pcie) + pc.latency_ps +
                          pc.switch_latency_ps     // switch 0 -> root complex
                          + pc.switch_latency_ps;  // root complex -> CPU
  return {down(4), down(0), up};
}

// The engine's part of a job: its cycles at rtl_clock, overlapped with writing the lines to memory,
// then the memory latency.
std::int64_t engine_ps(const CxlParams& cx, std::uint64_t cycles, std::uint64_t lines, std::uint64_t line_bytes) {
  const double e = static_cast<double>(cycles) * 1e12 / cx.rtl_clock_hz;
  const double m = static_cast<double>(lines * line_bytes) * 8.0 / cx.mem_bw * 1e12;
  return std::llround(std::max(e, m) + static_cast<double>(cx.mem_latency_ps));
}

constexpr int kWritesPerJob = 5;  // CONFIG, LEN[0], BASE_LO[0], BASE_HI[0], CTRL.START

// A polled job, from the driver taking it: the doorbell leaves after the five writes' overheads;
// a STATUS read is due at each tick of the period after it (a tick passing while a read is
// outstanding is skipped) and leaves one overhead after its tick; the first read reaching the
// device once the job is done sees DONE, and the job is seen when its completion is back.
struct Polled {
  std::int64_t seen_ps;
  int reads;
};
Polled polled(std::int64_t m, std::int64_t period, const IoPaths& p, std::int64_t engine) {
  const std::int64_t t_db = kWritesPerJob * m, done = t_db + p.write + engine;
  std::int64_t now = t_db, k = 1;
  for (int reads = 1;; ++reads) {
    k = std::max(k, (now - t_db + period - 1) / period);
    now = std::max(now, t_db + k++ * period);
    const std::int64_t at_device = now + m + p.read_request;
    EXPECT_NE(at_device, done) << "a tie between a read and DONE: pick other parameters";
    now = at_device + p.to_host;
    if (at_device > done) return {now, reads};
  }
}

json one_job(const std::string& completion, const std::string& period) {
  json doc = test::cxl_bench("calibrated", 16, "256KiB");  // one segment (the chunk is 1 MiB): one job
  doc["cluster"]["node"]["cxl"]["completion"] = completion;
  doc["cluster"]["node"]["cxl"]["completion_latency"] = period;
  return doc;
}

TEST(CxlIo, InterruptJobTimeIsWritesPathEngineMemoryMsiPathAndHandling) {
  TRAINVP_REQUIRE_RTL();
  for (const char* fidelity : {"calibrated", "rtl"}) {
    json doc = one_job("interrupt", "1us");
    doc["cluster"]["node"]["cxl"]["fidelity"] = fidelity;
    const Scenario s = load_scenario(doc, "t");
    const CxlParams& cx = s.cluster.cxl;
    const json r = test::simulate(doc);
    const json& d = r["cxl"][0];
    ASSERT_EQ(d["jobs"], 1) << fidelity;
    const std::uint64_t lines = 256 * 1024 / 64;
    const IoPaths p = io_paths(s);
    const std::int64_t engine = engine_ps(cx, d["engine_cycles"].get<std::uint64_t>(), lines, 64);
    EXPECT_NEAR(d["busy_s"].get<double>(), engine * 1e-12, 1e-12) << fidelity;
    const std::int64_t expected =
        kWritesPerJob * cx.mmio_latency_ps + p.write + engine + p.to_host + cx.completion_latency_ps;
    EXPECT_NEAR(d["driver_s"].get<double>(), expected * 1e-12, 1e-12)
        << fidelity << ": off by " << d["driver_s"].get<double>() * 1e12 - static_cast<double>(expected) << " ps";
    EXPECT_EQ(d["mmio_writes"], 1 + kWritesPerJob) << fidelity;  // IRQ_EN once, then the job's
    EXPECT_EQ(d["mmio_reads"], 0) << fidelity;
    EXPECT_EQ(d["msis"], 1) << fidelity;
  }
}

TEST(CxlIo, PolledJobTimeIsQuantizedToThePollTicksPlusTheReadRoundTrip) {
  TRAINVP_REQUIRE_RTL();
  const json intr = test::simulate(one_job("interrupt", "1us"));
  // 1 us: shorter than a read's round trip, so ticks are skipped; 5 us: every tick is used.
  for (const char* period : {"1us", "5us"}) {
    json doc = one_job("poll", period);
    const Scenario s = load_scenario(doc, "t");
    const CxlParams& cx = s.cluster.cxl;
    const json r = test::simulate(doc);
    const json& d = r["cxl"][0];
    ASSERT_EQ(d["jobs"], 1);
    const IoPaths p = io_paths(s);
    const std::int64_t engine = engine_ps(cx, d["engine_cycles"].get<std::uint64_t>(), 256 * 1024 / 64, 64);
    const Polled want = polled(cx.mmio_latency_ps, cx.completion_latency_ps, p, engine);
    EXPECT_NEAR(d["driver_s"].get<double>(), want.seen_ps * 1e-12, 1e-12) << period;
    EXPECT_EQ(d["mmio_reads"], want.reads) << period;
    EXPECT_EQ(d["mmio_writes"], kWritesPerJob) << period;
    EXPECT_EQ(d["msis"], 0) << period;
    // Everything else in the collective is the same: it differs from the interrupt run by the job,
    // and by the interrupt run's IRQ_EN write at start-up, which delays the contributions crossing
    // the same links by at most its TLP and its flit.
    const double dt = r["collectives"][0]["time_s"].get<double>() - intr["collectives"][0]["time_s"].get<double>();
    const double irq_en = (ser(4 + s.cluster.pcie.framing, s.cluster.pcie.bandwidth_bps()) +
                           ser(cx.flit_payload() + cx.flit_overhead(), cx.link_bps()) + 2) *
                          1e-12;
    EXPECT_NEAR(dt, d["driver_s"].get<double>() - intr["cxl"][0]["driver_s"].get<double>(), irq_en) << period;
  }
}

TEST(CxlIo, TheRtlCsrBlockHoldsWhatTheDriverWrote) {
  TRAINVP_REQUIRE_RTL();
  for (const char* fidelity : {"rtl", "calibrated"}) {
    json doc = test::cxl_bench(fidelity, 16, "3MiB");  // three jobs of 1 MiB
    auto got = test::in_child([&] {
      Scenario s = load_scenario(doc, "t");
      Simulation sim(s);
      sim.run();
      CxlDevice* dev = &sim.cxl_device(0);
      json out = json::object();
      for (auto [offset, value] : dev->driver().written())
        if (offset != csr::kCtrl) out[std::to_string(offset)] = {value, dev->read_csr(offset)};  // CTRL reads 0
      out["status"] = dev->read_csr(csr::kStatus);
      return out.dump();
    });
    ASSERT_TRUE(got.ok) << got.value;
    const json regs = json::parse(got.value);
    for (auto& [offset, pair] : regs.items()) {
      if (offset != "status") {
        EXPECT_EQ(pair[0], pair[1]) << fidelity << " CSR " << offset;
      }
    }
    // The last job's programming: 4 FP32 contributors, 1 MiB of 64-byte lines, at its result buffer.
    EXPECT_EQ(regs[std::to_string(csr::kConfig)][1], 4) << fidelity;
    EXPECT_EQ(regs[std::to_string(csr::len(0))][1], (1 << 20) / 64) << fidelity;
    EXPECT_EQ(regs[std::to_string(csr::base_lo(0))][1], 2u << 20) << fidelity;  // the third 1 MiB buffer
    EXPECT_EQ(regs[std::to_string(csr::base_hi(0))][1], 0x10) << fidelity;
    EXPECT_EQ(regs[std::to_string(csr::kIrqEn)][1], csr::kIrqDone) << fidelity;
    EXPECT_EQ(regs["status"].get<std::uint32_t>() & (csr::kDone | csr::kRunning), csr::kDone) << fidelity;
  }
}

TEST(CxlIo, CalibratedRegistersMatchTheRtlUnderRandomWrites) {
  TRAINVP_REQUIRE_RTL();
  auto got = test::in_child([] {
    RunContext ctx(1, false);
    auto engine = make_rtl_engine(16);
    std::vector<std::pair<int, std::uint64_t>> starts[2];
    CxlCsrTarget rtl(
        "rtl", engine.get(), engine->max_contributors(),
        [&](int c, std::uint64_t l) {
          starts[0].push_back({c, l});
        },
        ctx);
    CxlCsrTarget cal(
        "cal", nullptr, engine->max_contributors(),
        [&](int c, std::uint64_t l) {
          starts[1].push_back({c, l});
        },
        ctx);
    std::vector<std::uint32_t> offsets = {csr::kId, csr::kCtrl, csr::kConfig, csr::kStatus, csr::kError, csr::kIrqEn};
    for (std::uint32_t s = 0; s < 4; ++s)
      for (std::uint32_t o : {csr::len(s), csr::base_lo(s), csr::base_hi(s)}) offsets.push_back(o);
    std::mt19937_64 rng(7);
    std::string diff;
    auto compare = [&](int step) {
      for (std::uint32_t o : offsets)
        if (rtl.read(o) != cal.read(o) && diff.empty())
          diff = "step " + std::to_string(step) + " offset " + std::to_string(o) + ": rtl " +
                 std::to_string(rtl.read(o)) + ", calibrated " + std::to_string(cal.read(o));
    };
    for (int step = 0; step < 2000; ++step) {
      std::uint32_t o = offsets[rng() % offsets.size()], v = static_cast<std::uint32_t>(rng());
      if (o == csr::kCtrl) {
        // START only with a configuration the engine refuses (no contributors, too many, no lines):
        // a valid one would hand a job to the device, which this test has none of.
        if (v & csr::kStart) {
          const std::uint32_t bad = static_cast<std::uint32_t>(rng() % 3);
          const std::uint32_t too_many = 9 + static_cast<std::uint32_t>(rng() % 200);
          for (CxlCsrTarget* t : {&rtl, &cal}) {
            if (bad == 0) t->write(csr::kConfig, 0);
            if (bad == 1) t->write(csr::kConfig, too_many);
            if (bad == 2)
              for (std::uint32_t s = 0; s < 4; ++s) t->write(csr::len(s), 0);
          }
        }
        v &= csr::kStart | csr::kDoneClr;
      }
      rtl.write(o, v);
      cal.write(o, v);
      compare(step);
    }
    // A valid START hands both the same job.
    for (CxlCsrTarget* t : {&rtl, &cal}) {
      t->write(csr::kConfig, 3);
      t->write(csr::len(0), 77);
      for (std::uint32_t s = 1; s < 4; ++s) t->write(csr::len(s), 0);
      t->write(csr::kCtrl, csr::kStart);
    }
    compare(-1);
    json out = {{"diff", diff},
                {"rtl", starts[0].size() == 1 ? json{starts[0][0].first, starts[0][0].second} : json()},
                {"cal", starts[1].size() == 1 ? json{starts[1][0].first, starts[1][0].second} : json()}};
    return out.dump();
  });
  ASSERT_TRUE(got.ok) << got.value;
  const json r = json::parse(got.value);
  EXPECT_EQ(r["diff"], "");
  EXPECT_EQ(r["rtl"], json({3, 77}));
  EXPECT_EQ(r["cal"], json({3, 77}));
}

}  // namespace test_cxl_io
}  // namespace trainvp

namespace trainvp {
namespace test_cxl_io {

TEST(CxlIo, MmioAndMsisDoNotQueueBehindGradientChunks) {
  TRAINVP_REQUIRE_RTL();
  // 8 jobs of 1 MiB: while a job is programmed and completes, earlier results stream from the
  // ports to the GPUs over the same links. TLPs go between the chunks' packets (at most a packet
  // time per hop), so each job's CXL.io part stays the idle-fabric closed form within 1%.
  json doc = test::cxl_bench("calibrated", 16, "8MiB");
  const Scenario s = load_scenario(doc, "t");
  const CxlParams& cx = s.cluster.cxl;
  const json r = test::simulate(doc);
  const json& d = r["cxl"][0];
  ASSERT_EQ(d["jobs"], 8);
  const IoPaths p = io_paths(s);
  const double per_job = (d["driver_s"].get<double>() - d["busy_s"].get<double>()) / 8;
  const double idle = (kWritesPerJob * cx.mmio_latency_ps + p.write + p.to_host + cx.completion_latency_ps) * 1e-12;
  EXPECT_NEAR(per_job, idle, 0.01 * idle);
}

}  // namespace test_cxl_io
}  // namespace trainvp
