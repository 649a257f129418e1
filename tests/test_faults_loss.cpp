// packet_loss (docs/faults.md#packet-loss) against the closed form of its go-back-N model: no data
// is lost, each loss costs one recovery window W = 2 x (packet time + latency) of the lossy link,
// the number of losses is binomial with mean packets x rate / (1 - rate); runs are reproducible
// per seed; bad rates are errors at /faults/<i>/rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "platform/core/errors.hpp"
#include "platform/config/scenario.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_faults_loss {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// Fabric defaults (docs/scenario-format.md): 400 Gbit/s, 4096-byte MTU, 82 bytes framing, links
// of 1 us, NIC and switch forwarding latency 500 ns each (added to the links leaving them).
constexpr double kEthBps = 400e9, kMtu = 4096, kFraming = 82;
constexpr double kLatency = 1e-6 + 500e-9;  // NIC->switch and switch->NIC alike
constexpr double kGiB = 1073741824.0;
const char* kLossyLink = "link:node0.nic0-switch";

json sendrecv(const std::string& bytes, const json& faults, int seed = 1) {
  return {{"trainvp", 1},
          {"name", "loss-test"},
          {"seed", seed},
          {"cluster",
           {{"nodes", 2}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}, {"fabric", {{"topology", "switch"}}}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "sendrecv"},
            {"algorithm", "ring"},
            {"bytes", bytes},
            {"iterations", 1},
            {"warmup", 0}}},
          {"faults", faults},
          {"output", {{"trace", false}}}};
}

json loss(double rate) { return json::array({{{"kind", "packet_loss"}, {"target", kLossyLink}, {"rate", rate}}}); }

const json* link_dir(const json& r, const std::string& name) {
  for (const json& l : r["links"])
    if (l["name"] == name) return &l;
  return nullptr;
}

double time_s(const json& r) { return r["collectives"][0]["time_s"].get<double>(); }

// The two directions of the lossy link each carry one of the sendrecv's transfers.
const char* kDirs[] = {"node0.nic0->switch", "switch->node0.nic0"};

TEST(FaultsLoss, LossCostsTimeNeverData) {
  json r = test::simulate(sendrecv("256MiB", loss(1e-3)));
  ASSERT_EQ(r["collectives"].size(), 1u);  // it completed
  const std::uint64_t bytes = 256ull << 20;
  for (const char* d : kDirs) {
    const json* l = link_dir(r, d);
    ASSERT_TRUE(l) << d;
    EXPECT_EQ((*l)["bytes"].get<std::uint64_t>(), bytes) << d;
    EXPECT_GT((*l)["lost_packets"].get<std::uint64_t>(), 0u) << d;
    EXPECT_GT((*l)["retransmitted_bytes"].get<std::uint64_t>(), 0u) << d;
    // Retransmissions are on the wire on top of every packet sent once (all packets are full here).
    const double resent = (*l)["retransmitted_bytes"].get<double>();
    EXPECT_DOUBLE_EQ((*l)["wire_bytes"].get<double>(), (bytes + resent) * (1 + kFraming / kMtu)) << d;
  }
  // What reaches the receiving GPUs is exactly what was sent.
  for (const char* d : {"node1.pcie0->node1.gpu0", "node0.pcie0->node0.gpu0"}) {
    const json* l = link_dir(r, d);
    ASSERT_TRUE(l) << d;
    EXPECT_EQ((*l)["bytes"].get<std::uint64_t>(), bytes) << d;
    EXPECT_EQ((*l)["lost_packets"].get<std::uint64_t>(), 0u) << d;
  }
}

TEST(FaultsLoss, TimeGrowsStrictlyWithTheRate) {
  const double base = time_s(test::simulate(sendrecv("1GiB", json::array())));
  double prev = base;
  for (double rate : {1e-5, 1e-4, 1e-3}) {
    const double t = time_s(test::simulate(sendrecv("1GiB", loss(rate))));
    EXPECT_GT(t, prev) << rate;
    prev = t;
  }
}

TEST(FaultsLoss, SlowdownIsOneRecoveryWindowPerLossAndLossesFollowTheRate) {
  const double rate = 1e-3;
  json base = test::simulate(sendrecv("1GiB", json::array()));
  json r = test::simulate(sendrecv("1GiB", loss(rate)));
  const double packet = (kMtu + kFraming) * 8 / kEthBps;
  const double window = 2 * (packet + kLatency);
  // Each direction sends 1 GiB = 262,144 packets; every one is retried until it gets through, so
  // the losses are negative-binomial with mean packets x rate / (1 - rate) (262.4) and standard
  // deviation about its square root: the two directions together are checked within 4 sigma.
  const double packets = kGiB / kMtu, mean = packets * rate / (1 - rate);
  double lost_sum = 0, lost_max = 0;
  for (const char* d : kDirs) {
    const json* l = link_dir(r, d);
    const json* b = link_dir(base, d);
    ASSERT_TRUE(l && b) << d;
    const double lost = (*l)["lost_packets"].get<double>();
    lost_sum += lost, lost_max = std::max(lost_max, lost);
    // The link is busy one window longer per loss (within the picosecond rounding per chunk).
    EXPECT_NEAR((*l)["busy_s"].get<double>() - (*b)["busy_s"].get<double>(), lost * window, 1e-9) << d;
  }
  EXPECT_NEAR(lost_sum, 2 * mean, 4 * std::sqrt(2 * mean));
  // Bandwidth-bound: the lossy link is the bottleneck and stays backlogged, so each transfer ends
  // one window later per loss on its direction, and the sendrecv with the slower of the two.
  const double extra = time_s(r) - time_s(base);
  EXPECT_NEAR(extra, lost_max * window, 1e-9);
  // And in expectation: the slowdown is about mean x W (the max of two directions adds a little,
  // within the 4-sigma spread of the counts).
  EXPECT_NEAR(extra, mean * window, 4 * std::sqrt(mean) * window);
}

TEST(FaultsLoss, SameSeedGivesTheSameRunAnotherSeedOtherLosses) {
  auto lost = [](const json& r) { return (*link_dir(r, kDirs[0]))["lost_packets"].get<std::uint64_t>(); };
  json a = test::simulate(sendrecv("256MiB", loss(1e-3), 7));
  json b = test::simulate(sendrecv("256MiB", loss(1e-3), 7));
  json c = test::simulate(sendrecv("256MiB", loss(1e-3), 8));
  EXPECT_EQ(a["links"], b["links"]);
  EXPECT_EQ(a["collectives"], b["collectives"]);
  EXPECT_NE(lost(a), lost(c));
  EXPECT_NE((*link_dir(a, kDirs[0]))["retransmitted_bytes"], (*link_dir(c, kDirs[0]))["retransmitted_bytes"]);
}

TEST(FaultsLoss, LostLastPacketWaitsForTheTimeout) {
  // One packet per transfer (1 KiB): a lost packet never has a successor, so every loss costs
  // its packet time plus the timeout. At rate 0.5 both directions lose some.
  const double timeout = 200e-6;
  json faults = loss(0.5);
  faults[0]["timeout"] = "200us";
  json base = test::simulate(sendrecv("1KiB", json::array()));
  json r = test::simulate(sendrecv("1KiB", faults, 3));
  const double packet = (1024 + kFraming) * 8 / kEthBps;
  double lost_max = 0;
  for (const char* d : kDirs) lost_max = std::max(lost_max, (*link_dir(r, d))["lost_packets"].get<double>());
  ASSERT_GT(lost_max, 0);
  EXPECT_NEAR(time_s(r) - time_s(base), lost_max * (packet + timeout), 1e-9);
  EXPECT_EQ(r["faults"][0]["params"]["timeout"], "200us");
}

TEST(FaultsLoss, OverlappingLossesCompose) {
  // Two faults of rate r act as one of 1 - (1 - r)^2: the same draws, so the same run.
  json two = loss(1e-3);
  two.push_back(two[0]);
  json one = loss(1 - (1 - 1e-3) * (1 - 1e-3));
  json a = test::simulate(sendrecv("64MiB", two)), b = test::simulate(sendrecv("64MiB", one));
  EXPECT_EQ(a["links"], b["links"]);
}

TEST(FaultsLoss, BadRateIsAnErrorAtTheFaultsRate) {
  for (const json& rate : {json(0), json(1), json(-0.1), json(1.5)}) {
    json faults = loss(0.1);
    faults.push_back({{"kind", "packet_loss"}, {"target", "switch"}, {"rate", rate}});
    try {
      load_scenario(sendrecv("1MiB", faults), "t");
      ADD_FAILURE() << "rate " << rate << " accepted";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.path, "/faults/1/rate") << e.what();
      EXPECT_NE(std::string(e.what()).find("(0, 1)"), std::string::npos) << e.what();
    }
  }
  json faults = json::array({{{"kind", "packet_loss"}, {"target", "switch"}}});
  try {
    load_scenario(sendrecv("1MiB", faults), "t");
    ADD_FAILURE() << "missing rate accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/faults/0/rate") << e.what();
  }
}

}  // namespace test_faults_loss
}  // namespace trainvp
