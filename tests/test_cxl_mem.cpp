// CXL.mem: the host's loads and stores to the device's HDM range. A load's and a store's latency
// and a streaming read's bandwidth are the closed forms of their messages' fabric paths (every hop
// from the scenario's link parameters, a message's bytes its 16-byte flit slots in whole 68-byte
// flits), device memory's bandwidth and latency; stores are read back; in functional mode the
// host reads back exactly the reference sums; bad keys name their JSON pointer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "models/cxl/cxl_device.hpp"
#include "models/cxl/cxl_mem.hpp"
#include "models/cxl/reduce_ref.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "platform/core/errors.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/command.hpp"
#include "tests/cxl_bench.hpp"
#include "tests/sim_child.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_cxl_mem {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::int64_t ser(double bytes, double bps) { return std::llround(bytes * 8.0 / bps * 1e12); }

// One link direction: its rate, its latency (the link's plus its sending device's forwarding
// latency), and its framing: packets of `mtu` payload bytes plus `overhead`, whole (CXL flits,
// a partial last one padded) or not (PCIe TLPs).
struct Hop {
  double bps;
  std::int64_t latency;
  std::uint32_t mtu, overhead;
  bool whole;
  std::uint64_t packet(std::uint32_t payload) const { return (whole ? mtu : payload) + overhead; }
  std::uint64_t framed(std::uint32_t b) const {
    const std::uint64_t packets = b == 0 ? 1 : (b + mtu - 1) / mtu;
    return whole ? packets * (mtu + overhead) : b + packets * overhead;
  }
};

// When the tail of a message of `b` bytes, made at t0, reaches the end of an idle path. Each hop
// sends it cut-through: it starts when the head arrives, is busy for its framed bytes, and its
// tail leaves no earlier than a last packet after the tail arrived.
std::int64_t tail_after(const std::vector<Hop>& path, std::uint32_t b, std::int64_t t0) {
  std::int64_t start = t0, tail = t0;
  for (const Hop& h : path) {
    const std::uint32_t last = b == 0 ? 0 : (b - 1) % h.mtu + 1, first = std::min(b, h.mtu);
    const std::int64_t wire_end = start + ser(static_cast<double>(h.framed(b)), h.bps);
    tail = std::max(wire_end, tail + ser(static_cast<double>(h.packet(last)), h.bps)) + h.latency;
    start += ser(static_cast<double>(h.packet(first)), h.bps) + h.latency;
  }
  return tail;
}

// The host (on the root complex) to a device port and back: root complex -> PCIe switch (PCIe)
// -> port (CXL, flits of 64 B + 4 B), and the reverse; the root complex hands what arrives to the
// CPU one forwarding latency after its tail (its `to_cpu`).
struct Paths {
  std::vector<Hop> down, up;
  std::int64_t to_cpu;
};
Paths paths(const Scenario& s) {
  const PcieConfig& pc = s.cluster.pcie;
  const CxlParams& cx = s.cluster.cxl;
  const Hop pcie_down{pc.bandwidth_bps(), pc.latency_ps + pc.switch_latency_ps, static_cast<std::uint32_t>(pc.mtu),
                      static_cast<std::uint32_t>(pc.framing), false};
  const Hop cxl_down{cx.link_bps(), cx.link_latency_ps + pc.switch_latency_ps,
                     static_cast<std::uint32_t>(cx.flit_payload()), static_cast<std::uint32_t>(cx.flit_overhead()),
                     true};
  Hop cxl_up = cxl_down, pcie_up = pcie_down;
  cxl_up.latency = cx.link_latency_ps;  // a port forwards in no time
  return {{pcie_down, cxl_down}, {cxl_up, pcie_up}, pc.switch_latency_ps};
}

// Device memory's time for `bytes`, then its latency.
std::int64_t mem_ps(const CxlParams& cx, std::uint64_t bytes) {
  return ser(static_cast<double>(bytes), cx.mem_bw) + cx.mem_latency_ps;
}

// Message bytes in flit slots: 16 B per line's header, 64 B per line's data.
constexpr std::uint32_t kReq = 16, kDataMsg = 80;

// A load of one line: M2S MemRd (one slot) down, device memory, S2M MemData (five slots: two
// flits) up. A store: M2S MemWr (five slots) down, memory, S2M Cmp (one slot) up.
std::int64_t load_ps(const Scenario& s) {
  const Paths p = paths(s);
  return tail_after(p.up, kDataMsg, tail_after(p.down, kReq, 0) + mem_ps(s.cluster.cxl, 64)) + p.to_cpu;
}
std::int64_t store_ps(const Scenario& s) {
  const Paths p = paths(s);
  return tail_after(p.up, kReq, tail_after(p.down, kDataMsg, 0) + mem_ps(s.cluster.cxl, 64)) + p.to_cpu;
}

json readback_bench(const std::string& bytes, int ports) {
  json doc = test::cxl_bench("calibrated", 16, bytes);
  doc["cluster"]["node"]["cxl"]["readback"] = true;
  doc["cluster"]["node"]["cxl"]["mem_outstanding"] = 65536;  // the stream is not window-bound
  if (ports) doc["cluster"]["node"]["cxl"]["ports"] = ports;
  return doc;
}

TEST(CxlMem, AOneLineReadBackTakesTheLoadsClosedForm) {
  TRAINVP_REQUIRE_RTL();
  // 64 B over 4 GPUs: one job of one line, read back by one load.
  for (int ports : {1, 2}) {
    const json doc = readback_bench("64B", ports);
    const Scenario s = load_scenario(doc, "t");
    const json r = test::simulate(doc);
    const json& d = r["cxl"][0];
    ASSERT_EQ(d["jobs"], 1);
    EXPECT_EQ(d["mem_reads"], 1);
    EXPECT_EQ(d["mem_writes"], 0);
    EXPECT_EQ(d["mem_bytes"], 64);
    const std::int64_t want = load_ps(s);
    EXPECT_EQ(std::llround(d["mem_s"].get<double>() * 1e12), want) << ports << " ports";
    EXPECT_EQ(d["port_mem_bytes"][0], 64);  // the ring's first line: port 0
  }
}

TEST(CxlMem, ReadBackIsOffByDefaultAndReportedOnlyWhenUsed) {
  TRAINVP_REQUIRE_RTL();
  const json r = test::simulate(test::cxl_bench("calibrated", 16, "64B"));
  EXPECT_FALSE(r["cxl"][0].contains("mem_reads")) << r["cxl"][0].dump();
  EXPECT_FALSE(r["scenario"]["cluster"]["node"]["cxl"].contains("readback"));
}

// A streaming read: requests leave back to back, a message per four lines; every stage (memory,
// each link direction) passes one message per its own time, so past the first messages the stream
// moves at the slowest stage's pace: twice the lines take exactly (lines / 4) x that stage's time more.
TEST(CxlMem, AStreamingReadMovesAtTheSlowestStagesRate) {
  TRAINVP_REQUIRE_RTL();
  const json doc = readback_bench("256KiB", 1);
  const Scenario s = load_scenario(doc, "t");
  const CxlParams& cx = s.cluster.cxl;
  const Paths p = paths(s);
  const std::uint32_t group_req = 4 * kReq, group_data = 4 * kDataMsg;  // 1 flit, 5 flits
  std::int64_t stage = ser(256, cx.mem_bw);
  for (const Hop& h : p.down) stage = std::max(stage, ser(static_cast<double>(h.framed(group_req)), h.bps));
  for (const Hop& h : p.up) stage = std::max(stage, ser(static_cast<double>(h.framed(group_data)), h.bps));
  json big = doc;
  big["workload"]["bytes"] = "512KiB";
  const json a = test::simulate(doc), b = test::simulate(big);
  ASSERT_EQ(a["cxl"][0]["mem_reads"], 4096);
  ASSERT_EQ(b["cxl"][0]["mem_reads"], 8192);
  const std::int64_t ta = std::llround(a["cxl"][0]["mem_s"].get<double>() * 1e12),
                     tb = std::llround(b["cxl"][0]["mem_s"].get<double>() * 1e12);
  EXPECT_NEAR(static_cast<double>(tb - ta), 1024.0 * static_cast<double>(stage), 2.0)
      << "stage " << stage << " ps: " << 256e3 / static_cast<double>(stage) << " GB/s";
  // With these parameters (PCIe 5.0 x16 and CXL 2.0 x16 at the same 31.5 Gbit/s per lane) the
  // slowest stage is the PCIe hop to the root complex: 320 B in two TLPs of at most 256 B, each
  // with 24 B of framing (368 B), against the CXL link's 5 flits of 68 B (340 B): 43.8 GB/s.
  EXPECT_EQ(stage, ser(320.0 + 2 * s.cluster.pcie.framing, s.cluster.pcie.bandwidth_bps()));
  // And the whole stream is no faster than that rate, nor slower than it plus one line's load.
  EXPECT_GE(ta, 1024 * stage);
  EXPECT_LE(ta, 1024 * stage + load_ps(s) + tail_after(p.up, group_data, 0));
}

// With one message's lines allowed in flight (mem_outstanding 4), the next request leaves when the
// last answer reaches the CPU: a stream takes (lines / 4) whole round trips of a 4-line message.
TEST(CxlMem, AStreamLimitedToOneMessageInFlightTakesWholeRoundTrips) {
  TRAINVP_REQUIRE_RTL();
  json doc = readback_bench("64KiB", 1);
  doc["cluster"]["node"]["cxl"]["mem_outstanding"] = 4;
  const Scenario s = load_scenario(doc, "t");
  const Paths p = paths(s);
  const std::int64_t round_trip =
      tail_after(p.up, 4 * kDataMsg, tail_after(p.down, 4 * kReq, 0) + mem_ps(s.cluster.cxl, 256)) + p.to_cpu;
  const json r = test::simulate(doc);
  ASSERT_EQ(r["cxl"][0]["mem_reads"], 1024);
  EXPECT_EQ(std::llround(r["cxl"][0]["mem_s"].get<double>() * 1e12), 256 * round_trip);
}

// Stores and loads from the host through the driver's API: a store's and a load's latency are
// their closed forms, a later load returns what was stored, and the HDM decoder splits an access
// over the ports by the interleave granularity.
TEST(CxlMem, StoreAndLoadLatenciesAndALoadReturnsWhatWasStored) {
  TRAINVP_REQUIRE_RTL();
  json doc = test::cxl_bench("calibrated", 16, "64B");  // a tiny job, over long before the accesses
  doc["cluster"]["node"]["cxl"]["ports"] = 2;
  doc["cluster"]["node"]["cxl"]["interleave_granularity"] = "256B";
  const Scenario s = load_scenario(doc, "t");
  auto got = test::in_child([&] {
    Scenario sc = load_scenario(doc, "t");
    Simulation sim(sc);
    CxlDriver& drv = sim.cxl_device(0).driver();
    json out = json::object();
    const std::uint64_t a = kHdmBase + (1ull << 31);  // past the result ring
    std::vector<unsigned char> line(64), block(4096);
    for (std::size_t i = 0; i < line.size(); ++i) line[i] = static_cast<unsigned char>(3 * i + 1);
    for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<unsigned char>(i * 7 + i / 256);
    auto at = [](double us) { return static_cast<std::int64_t>(us * 1e6); };
    auto access = [&](const std::string& key, bool write, std::uint64_t addr, std::vector<unsigned char> data,
                      std::uint64_t bytes, std::int64_t t) {
      CxlDriver::MemAccess m;
      m.write = write, m.addr = addr, m.bytes = bytes, m.data = std::move(data), m.carry = !write, m.at_ps = t;
      m.done = [&out, key, t](std::int64_t done, const std::vector<unsigned char>& bytes) {
        out[key] = {{"ps", done - t}, {"bytes", bytes}};
      };
      drv.mem_access(std::move(m));
    };
    access("store", true, a, line, 64, at(1000));
    access("load", false, a, {}, 64, at(1100));
    access("fresh", false, a + 64, {}, 64, at(1200));              // never written: zeros
    access("store_block", true, a + 4096, block, 4096, at(1300));  // 16 stripes of 256 B over 2 ports
    access("load_block", false, a + 4096, {}, 4096, at(1400));
    sim.run();
    json ports = json::array();
    for (std::uint64_t b : sim.cxl_device(0).port_mem_bytes()) ports.push_back(b);
    out["ports"] = ports;
    const CxlDriverStats& st = sim.cxl_device(0).driver().stats();
    out["reads"] = st.mem_reads, out["writes"] = st.mem_writes;
    return out.dump();
  });
  ASSERT_TRUE(got.ok) << got.value;
  const json r = json::parse(got.value);
  std::vector<unsigned char> line(64), block(4096);
  for (std::size_t i = 0; i < line.size(); ++i) line[i] = static_cast<unsigned char>(3 * i + 1);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<unsigned char>(i * 7 + i / 256);
  EXPECT_EQ(r["store"]["ps"], store_ps(s));
  EXPECT_EQ(r["load"]["ps"], load_ps(s));
  EXPECT_EQ(r["load"]["bytes"], json(line));
  EXPECT_EQ(r["fresh"]["bytes"], json(std::vector<unsigned char>(64, 0)));
  EXPECT_EQ(r["load_block"]["bytes"], json(block));
  // Lines a + 0 (stripe 0 of the range: port 0) and a + 64; then 4 KiB from a + 4096 over both ports.
  EXPECT_EQ(r["ports"], json({3 * 64 + 2 * 2048, 2 * 2048}));
  EXPECT_EQ(r["reads"], 1 + 1 + 64);
  EXPECT_EQ(r["writes"], 1 + 64);
}

// Functional benchmark with read-back: the bytes the host reads are the reference sums of the
// job's inputs, computed here from the device's generator, in both fidelities.
TEST(CxlMem, FunctionalReadBackReturnsTheReferenceSums) {
  TRAINVP_REQUIRE_RTL();
  for (const char* fidelity : {"calibrated", "rtl"}) {
    json doc = test::cxl_bench(fidelity, 16, "2MiB");  // two jobs of 1 MiB (16,384 lines)
    doc["workload"]["functional"] = true;
    doc["cluster"]["node"]["cxl"]["readback"] = true;
    auto got = test::in_child([&] {
      Scenario s = load_scenario(doc, "t");
      Simulation sim(s);
      sim.cxl_device(0).keep_readbacks();
      sim.run();
      json out = json::object();
      out["seed"] = s.seed;
      out["checked"] = sim.cxl_device(0).mem_lines_checked();
      const auto& rb = sim.cxl_device(0).readbacks();
      out["jobs"] = rb.size();
      // The reference, from the generator: contributor c's element i of job j, summed from -0 in
      // contributor order (reduce_ref), compared word by word.
      std::string diff;
      for (std::size_t j = 0; j < rb.size() && diff.empty(); ++j) {
        const std::size_t words = rb[j].size() / 4;
        std::vector<std::uint32_t> in(4);
        for (std::size_t i = 0; i < words && diff.empty(); ++i) {
          std::vector<const std::uint32_t*> ptrs;
          for (std::uint64_t c = 0; c < 4; ++c) in[c] = cxl_synthetic(s.seed, j, c, i, false);
          for (std::uint64_t c = 0; c < 4; ++c) ptrs.push_back(&in[c]);
          std::uint32_t want = 0, read = 0;
          reduce_line(DType::FP32, ptrs, 1, &want, false);
          std::memcpy(&read, &rb[j][i * 4], 4);
          if (read != want) diff = "job " + std::to_string(j) + " element " + std::to_string(i);
        }
      }
      out["diff"] = diff;
      out["bytes"] = rb.empty() ? 0 : rb[0].size();
      return out.dump();
    });
    ASSERT_TRUE(got.ok) << got.value;
    const json r = json::parse(got.value);
    EXPECT_EQ(r["jobs"], 2) << fidelity;
    EXPECT_EQ(r["bytes"], 1 << 20) << fidelity;
    EXPECT_EQ(r["diff"], "") << fidelity;
    EXPECT_EQ(r["checked"], 2 * 16384) << fidelity;
  }
}

// In functional training, a bit flipped in the device's result is what the host's read-back of it
// catches first (before the GPUs read it).
TEST(CxlMem, AFlippedResultBitFailsTheReadBackCheck) {
  TRAINVP_REQUIRE_RTL();
  json doc = test::cxl_bench("calibrated", 16, "1MiB");
  doc["cluster"]["node"]["cxl"]["readback"] = true;
  json layers = json::array({{{"name", "a"}, {"params", 4096}, {"fwd_time", "20us"}, {"bwd_time", "40us"}}});
  json train = {
      {"trainvp", 1},
      {"name", "fn"},
      {"seed", 7},
      {"cluster", doc["cluster"]},
      {"workload", {{"layers", layers}, {"grad_dtype", "fp32"}, {"functional", true}}},
      {"training", {{"iterations", 1}, {"warmup", 0}, {"sync", {{"strategy", "ddp"}, {"algorithm", "cxl_allreduce"}}}}},
      {"output", {{"trace", false}}}};
  auto r = test::in_child([&] {
    Scenario s = load_scenario(train, "t");
    Simulation sim(s);
    sim.cxl_device(0).flip_result_bit(5, 3);
    return test::run_or_error(sim);
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_NE(r.value.find("CXL.mem read-back of the result at 0x1000000000 differs from the reference sums at byte 20"),
            std::string::npos)
      << r.value;
}

TEST(CxlMem, BadKeysNameTheirJsonPointer) {
  const std::string base = "validate scenarios/cxl/pcie-node-ring-vs-cxl.json --set ";
  test::Cmd r = test::trainvp(base + "/cluster/node/cxl/readback=1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/cluster/node/cxl/readback"), std::string::npos) << r.out;
  r = test::trainvp(base + "/cluster/node/cxl/mem_outstanding=0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/cluster/node/cxl/mem_outstanding"), std::string::npos) << r.out;
  r = test::trainvp(base + "/cluster/node/cxl/mem_outstanding=1.5");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/cluster/node/cxl/mem_outstanding"), std::string::npos) << r.out;
}

}  // namespace test_cxl_mem
}  // namespace trainvp
