// `congestion` faults (docs/faults.md#congestion): background chunks from NIC to NIC share the
// links' round-robin queues with the training traffic. Against closed forms: a bandwidth-bound
// transfer keeps B - r of a bottleneck shared with r of background (B/2 when the background wants
// more than half); an on/off pattern sends rate x duty cycle; links off the background path are
// untouched; delivered equals sent; open-ended background traffic does not keep a run alive; bad
// keys are errors at /faults/<i>/.... Also the round-robin order of LinkDir for a new flow.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/link/chunk.hpp"
#include "models/link/link_dir.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/tlm/payload_pool.hpp"
#include "tests/command.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_faults_congestion {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_child;
using test::simulate;

// Fabric defaults: 400 Gbit/s RoCE, 4096-byte MTU, 82 bytes of framing per packet.
constexpr double kPayloadBps = 400e9 * 4096 / (4096 + 82);
constexpr double kBits = 64.0 * 1048576 * 8;  // the 64 MiB transfer

// A 64 MiB sendrecv between node0.gpu0 and node1.gpu0 of `nodes` single-GPU nodes on one switch;
// 256 KiB chunks keep the sharing fine-grained.
json sendrecv(const json& faults, int nodes = 2) {
  const json list = faults.is_array() ? faults : json::array({faults});  // {f} is f itself in nlohmann's braces
  return {{"trainvp", 1},
          {"cluster",
           {{"nodes", nodes},
            {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"topology", "switch"}, {"chunk", "256KiB"}}}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "sendrecv"},
            {"algorithm", "ring"},
            {"bytes", "64MiB"},
            {"iterations", 1},
            {"warmup", 0},
            {"communicator", {0, 1}}}},
          {"faults", list},
          {"output", {{"trace", false}}}};
}

json congestion(const std::string& src, const std::string& dst, const std::string& rate) {
  return {{"kind", "congestion"}, {"source", src}, {"destination", dst}, {"rate", rate}};
}

const json& link(const json& r, const std::string& name) {
  for (const json& l : r["links"])
    if (l["name"] == name) return l;
  static const json none;
  return none;
}

double time_s(const json& r) { return r["collectives"][0]["time_s"]; }

TEST(Congestion, TransferKeepsTheBottleneckMinusTheBackgroundRate) {
  const json base = simulate(sendrecv(json::array()));
  const double alpha = time_s(base) - kBits / kPayloadBps;  // latencies, unchanged by congestion
  const double r = 100e9;
  const json c = simulate(sendrecv({congestion("node0.nic0", "node1.nic0", "100Gbps")}));
  EXPECT_NEAR(time_s(c), alpha + kBits / (kPayloadBps - r), 0.01 * time_s(c));
  // The background got its rate on the shared links, and nothing on the others.
  const double bg = link(c, "node0.nic0->switch")["background_bytes"];
  EXPECT_NEAR(bg * 8 / c["sim"]["simulated_s"].get<double>(), r, 0.03 * r);
  EXPECT_EQ(link(c, "switch->node1.nic0")["background_bytes"], bg);
  EXPECT_EQ(link(c, "switch->node0.nic0")["background_bytes"], 0);
  // The fault lists the network links its traffic loads, and the NICs.
  const json& f = c["faults"][0];
  EXPECT_EQ(f["matched"], json({"link:node0.nic0-switch", "link:node1.nic0-switch"}));
  EXPECT_EQ(f["sources"], json({"node0.nic0"}));
  EXPECT_EQ(f["destinations"], json({"node1.nic0"}));
  EXPECT_EQ(f["pairs"], 1);
}

TEST(Congestion, BackgroundDemandingMoreThanHalfLeavesTheTransferHalf) {
  const json base = simulate(sendrecv(json::array()));
  const double alpha = time_s(base) - kBits / kPayloadBps;
  for (const char* rate : {"300Gbps", "400Gbps"}) {
    const json c = simulate(sendrecv({congestion("node0.nic0", "node1.nic0", rate)}));
    EXPECT_NEAR(time_s(c), alpha + kBits / (kPayloadBps / 2), 0.02 * time_s(c)) << rate;
  }
}

TEST(Congestion, OnOffPatternSendsTheDutyCycleAverageAndDeliversWhatItSent) {
  // 256 KiB at 200 Gbit/s is one chunk per 10.48576 us: 10 chunks per 104.8576 us on period, and
  // 5 periods of on + off in the 1.048576 ms window. The path node2 -> node3 is off the transfer's.
  json f = congestion("node2.nic0", "node3.nic0", "200Gbps");
  f["on"] = "104.8576us", f["off"] = "104.8576us", f["duration"] = "1.048576ms";
  const json c = simulate(sendrecv({f}, 4));
  const json& e = c["faults"][0];
  const double window = 1.048576e-3;
  EXPECT_EQ(e["sent_chunks"], 50);
  EXPECT_DOUBLE_EQ(e["sent_bytes"].get<double>() * 8 / window, 200e9 * 0.5);
  EXPECT_EQ(e["delivered_bytes"], e["sent_bytes"]);
  EXPECT_EQ(e["in_flight_bytes"], 0);
  EXPECT_EQ(link(c, "node2.nic0->switch")["background_bytes"], e["sent_bytes"]);
  EXPECT_EQ(link(c, "switch->node3.nic0")["bytes"], e["sent_bytes"]);
}

TEST(Congestion, RaisesQueueAndTimeOnTheSharedLinksOnly) {
  const json base = simulate(sendrecv(json::array(), 4));
  // Off the transfer's path: the transfer and every link it uses are unchanged, byte for byte.
  const json apart = simulate(sendrecv({congestion("node2.nic0", "node3.nic0", "200Gbps")}, 4));
  EXPECT_EQ(apart["collectives"], base["collectives"]);
  for (const json& l : base["links"]) {
    const json& a = link(apart, l["name"]);
    for (const char* k :
         {"bytes", "wire_bytes", "chunks", "busy_s", "peak_queue_bytes", "mean_queue_bytes", "paused_s"})
      EXPECT_EQ(a[k], l[k]) << l["name"] << " " << k;
  }
  // Into node1's downlink (an incast with the transfer): the collective and that link's mean
  // queue grow; the links the background does not cross carry the same bytes as before.
  const json shared = simulate(sendrecv({congestion("node2.nic0", "node1.nic0", "100Gbps")}, 4));
  EXPECT_GT(time_s(shared), time_s(base) * 1.2);
  const double q0 = link(base, "switch->node1.nic0")["mean_queue_bytes"],
               q1 = link(shared, "switch->node1.nic0")["mean_queue_bytes"];
  EXPECT_GT(q1, q0 + 100e3) << q0 << " " << q1;
  for (const json& l : base["links"]) {
    if (l["name"] == "switch->node1.nic0") continue;
    const json& s = link(shared, l["name"]);
    EXPECT_EQ(s["bytes"], l["bytes"]) << l["name"];
    EXPECT_EQ(s["background_bytes"], 0) << l["name"];
  }
  EXPECT_GT(link(shared, "node2.nic0->switch")["background_bytes"].get<double>(), 0);
}

TEST(Congestion, OpenEndedBackgroundTrafficEndsWithTheWork) {
  // A benchmark: the run ends when its collective does, with background chunks still under way.
  const json c = simulate(sendrecv({congestion("node0.nic0", "node1.nic0", "100Gbps")}));
  EXPECT_DOUBLE_EQ(c["sim"]["simulated_s"].get<double>(), time_s(c));  // its only iteration starts at 0
  const json& e = c["faults"][0];
  EXPECT_DOUBLE_EQ(e["end_s"].get<double>(), c["sim"]["simulated_s"].get<double>());
  EXPECT_EQ(e["in_flight_bytes"].get<double>() + e["delivered_bytes"].get<double>(), e["sent_bytes"].get<double>());
  // Training: the run ends with the last iteration.
  json t = {{"trainvp", 1},
            {"cluster",
             {{"nodes", 2}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"topology", "switch"}}}}},
            {"workload",
             {{"layers",
               {{{"name", "l0"},
                 {"params", 4000000},
                 {"fwd_time", "1ms"},
                 {"bwd_input_time", "1ms"},
                 {"bwd_weight_time", "1ms"}}}}}},
            {"training", {{"iterations", 3}, {"warmup", 0}, {"optimizer", "sgd"}, {"sync", {{"strategy", "ddp"}}}}},
            {"faults", json::array({congestion("node1.nic0", "node0.nic0", "50Gbps")})},
            {"output", {{"trace", false}}}};
  const json r = simulate(t);
  EXPECT_DOUBLE_EQ(r["sim"]["simulated_s"].get<double>(), r["iterations"].back()["end_s"].get<double>());
  EXPECT_GT(r["faults"][0]["sent_bytes"].get<double>(), 0);
  // DreamDDP's profiling pass (a run of its own) leaves congestion out and measures its transfers.
  t["training"]["iterations"] = 4, t["training"]["sync"] = {{"strategy", "dreamddp"}, {"period", 2}};
  const json d = simulate(t);
  EXPECT_DOUBLE_EQ(d["sim"]["simulated_s"].get<double>(), d["iterations"].back()["end_s"].get<double>());
  EXPECT_GT(d["sync"]["schedule"]["profile"]["layers"][0]["comm_s"].get<double>(), 0);
}

TEST(Congestion, TraceShowsTheFaultAndItsOnPeriodsOnItsOwnTrack) {
  const std::string out = testing::TempDir() + "congestion-trace";
  test::Cmd cmd = test::trainvp(
      "run scenarios/faults/congestion-4node-ring.json --set /workload/max_bytes=64MiB "
      "--set /faults/0/on=100us --set /faults/0/off=400us -q -o " +
      out);
  ASSERT_EQ(cmd.code, 0) << cmd.out;
  std::ifstream in(out + "/trace.json");
  const json trace = json::parse(in);
  std::vector<json> slices;
  for (const json& e : trace["traceEvents"])
    if (e.value("cat", "") == "fault") slices.push_back(e);
  ASSERT_GE(slices.size(), 2u);
  EXPECT_EQ(slices[0]["name"], "congestion node2.nic3");
  const double run_us = slices[0]["dur"];
  // One `on` slice per 500 us period that started within the run, each 100 us (the last may be cut).
  EXPECT_EQ(static_cast<double>(slices.size() - 1), std::ceil(run_us / 500));
  for (std::size_t i = 1; i < slices.size(); ++i) {
    EXPECT_EQ(slices[i]["tid"], slices[0]["tid"]);
    EXPECT_EQ(slices[i]["name"], "on");
    EXPECT_NEAR(slices[i]["ts"].get<double>(), 500.0 * static_cast<double>(i - 1), 1e-6);
    EXPECT_LE(slices[i]["dur"].get<double>(), 100 + 1e-6);
  }
}

TEST(Congestion, SameSeedGivesIdenticalResults) {
  json f = congestion("node0.nic0", "node1.nic0", "150Gbps");
  f["flows"] = 4, f["on"] = "50us", f["off"] = "30us";
  json a = simulate(sendrecv({f})), b = simulate(sendrecv({f}));
  a["sim"].erase("wall_s"), b["sim"].erase("wall_s");
  EXPECT_EQ(a.dump(), b.dump());
}

std::string load_error(const json& fault, std::string* path) {
  try {
    load_scenario(sendrecv({fault}), "t");
  } catch (const ScenarioError& e) {
    *path = e.path;
    return e.what();
  }
  return "no error";
}

TEST(CongestionValidation, BadKeysAreErrorsAtTheirPointer) {
  const json ok = congestion("node0.nic0", "node1.nic0", "100Gbps");
  auto with = [&](const char* k, const json& v) {
    json f = ok;
    if (v.is_null()) f.erase(k);
    else f[k] = v;
    return f;
  };
  struct Case {
    json fault;
    std::string path, text;
  } cases[] = {
      {with("rate", nullptr), "/faults/0/rate", "missing required key"},
      {with("rate", "fast"), "/faults/0/rate", "expected"},
      {with("rate", "0Gbps"), "/faults/0/rate", "expected"},
      {with("destination", nullptr), "/faults/0/destination", "missing required key"},
      {with("flows", 0), "/faults/0/flows", "expected"},
      {with("off", "10us"), "/faults/0/on", "needs the on time"},
      {with("on", "0s"), "/faults/0/on", "expected"},
      {with("chunk", "8B"), "/faults/0/chunk", "expected"},
      {with("burst", 3), "/faults/0/burst", "unknown key"},
  };
  std::string path;
  for (const Case& c : cases) {
    const std::string msg = load_error(c.fault, &path);
    EXPECT_EQ(path, c.path) << msg;
    EXPECT_NE(msg.find(c.text), std::string::npos) << msg;
  }
  EXPECT_EQ(load_error(ok, &path), "no error");
}

TEST(CongestionValidation, NicsMatchingNothingAreErrorsBeforeTheRunAndExitTwo) {
  struct Case {
    json fault;
    std::string path, text;
  } cases[] = {
      {congestion("node0.gpu0", "node1.nic0", "1Gbps"), "/faults/0/source", "NIC name or glob"},
      {congestion("node0.nic0", "node7.nic0", "1Gbps"), "/faults/0/destination", "node0.nic0 .. node1.nic0"},
      {congestion("node0.nic0", "node0.nic0", "1Gbps"), "/faults/0/destination", "other than the source"},
  };
  for (const Case& c : cases) {
    const std::string err = test::elaboration_error(sendrecv({c.fault}));
    EXPECT_EQ(err.substr(0, err.find('|')), c.path) << err;
    EXPECT_NE(err.find(c.text), std::string::npos) << err;
  }
  const std::string out = testing::TempDir() + "congestion-bad";
  test::Cmd cmd = test::trainvp(
      "run scenarios/faults/congestion-4node-ring.json --set /faults/0/destination=node9.nic0 -q -o " + out);
  EXPECT_EQ(cmd.code, 2) << cmd.out;
  EXPECT_NE(cmd.out.find("/faults/0/destination"), std::string::npos) << cmd.out;
  EXPECT_FALSE(std::filesystem::exists(out + "/results.json"));
}

// LinkDir's round-robin: a flow that becomes active while others wait joins the end of the round.
struct Feeder : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Feeder> out{"out"};
  PayloadPool pool;
  std::vector<std::pair<std::int64_t, std::uint32_t>> plan;  // (time, flow)
  explicit Feeder(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(Feeder);
    SC_THREAD(run);
  }
  void run() {
    for (auto [at, flow] : plan) {
      wait(ps_time(at - now_ps()));
      tlm::tlm_generic_payload* p = pool.acquire();
      auto* e = new ChunkExt;
      e->flow = flow;
      e->payload_bytes = 4096;
      p->set_extension(e);
      p->set_data_length(4096);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_core::sc_time t = sc_core::SC_ZERO_TIME;
      if (out->nb_transport_fw(*p, ph, t) != tlm::TLM_COMPLETED) throw std::runtime_error("not accepted at once");
      p->release();
    }
  }
};
struct Recorder : sc_core::sc_module {
  tlm_utils::simple_target_socket<Recorder> in{"in"};
  std::string order;
  explicit Recorder(sc_core::sc_module_name n) : sc_module(n) { in.register_nb_transport_fw(this, &Recorder::fw); }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase&, sc_core::sc_time&) {
    order += static_cast<char>('A' + chunk_of(p)->flow);
    return tlm::TLM_COMPLETED;
  }
};

TEST(LinkDirRoundRobin, NewFlowIsServedAfterTheFlowsAlreadyWaiting) {
  auto r = in_child([] {
    RunContext ctx(1, false);
    LinkDirParams p;
    p.bandwidth_bps = 4178 * 8 * 1e6;  // one 4096-byte chunk (one packet) per microsecond
    p.latency_ps = 0;
    LinkDir dir("dir", "a->b", p, 4096, ctx);
    Feeder feed("feed");
    Recorder rec("rec");
    feed.out.bind(dir.in);
    dir.out.bind(rec.in);
    // At 0: A1 goes on the wire at once; A2, A3, B1, B2 wait. A2 is sent at 1 us, B1 at 2 us; at
    // 2.5 us C1 arrives while A3 and B2 wait: both have their turn before C1. (Appending C behind
    // the round pointer, as LinkDir once did, sent C1 at 3 us: "AABCAB".)
    feed.plan = {{0, 0}, {0, 0}, {0, 0}, {0, 1}, {0, 1}, {2500000, 2}};
    sc_core::sc_start();
    return rec.order;
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_EQ(r.value, "AABABC");
}

}  // namespace test_faults_congestion
}  // namespace trainvp
