// Ingress PFC as a whole scenario (docs/fabric.md#pfc): scenarios/fabric/pfc-incast-victim.json,
// a 3-to-1 incast and a victim sendrecv that shares only uncongested links with it. With PFC off
// (deep buffers) the victim runs at its closed form, alpha + n / beta over one 100 Gbit/s path;
// with ingress PFC the pause at the incast's leaf spreads back over the spine to the victim's NIC
// and slows it. The parameters are checked with errors that name their pointer.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_pfc_incast {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;

json shipped() {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/fabric/pfc-incast-victim.json");
  return json::parse(in);
}

// The victim's closed form: one 32 MiB transfer node0 -> node9 over GPU, PCIe switch, NIC, leaf0,
// spine0, leaf1, NIC, PCIe switch, GPU; the 100 Gbit/s NIC links are the bottleneck, the
// leaf-spine links (8 x 100 Gbit/s) add a latency and a switch each.
double victim_closed_form() {
  const double bps = 100e9, beta = bps / 8 * kMtu / (kMtu + kFraming), n = 32.0 * 1048576;
  const double latency = latency_between_nodes() + kEthLat + kSwitchLat;
  const double pcie_packet = (kPcieMtu + kPcieFraming) * 8 / kPcieBps;
  return latency + 4 * pcie_packet + 3 * (kMtu + kFraming) * 8 / bps + n / beta;
}

const json& link_named(const json& r, const std::string& name) {
  for (const json& l : r["links"])
    if (l["name"] == name) return l;
  static const json none = json::object();
  ADD_FAILURE() << "no link direction " << name;
  return none;
}

TEST(PfcIncast, WithPfcOffTheVictimRunsAtItsClosedForm) {
  json doc = shipped();
  doc["cluster"]["fabric"]["pfc"] = {{"mode", "off"}};
  const json r = simulate(doc);
  const double t = r["collectives"][0]["time_s"], expected = victim_closed_form();
  EXPECT_NEAR(t, expected, 0.01 * expected);
  EXPECT_EQ(r["pfc"]["mode"], "off");
  EXPECT_FALSE(r["pfc"].contains("pause_frames"));
  // The incast piles up at leaf1 instead: its port from the spine holds far more than XOFF would.
  EXPECT_GT(link_named(r, "spine0->leaf1")["pfc_peak_ingress_bytes"].get<double>(), 4.0 * 512 * 1024);
}

TEST(PfcIncast, IngressPfcSpreadsThePauseToTheVictim) {
  const json r = simulate(shipped());
  const double t = r["collectives"][0]["time_s"], uncongested = victim_closed_form();
  EXPECT_GT(t, 1.2 * uncongested) << "the victim must be measurably slower than alone";
  // The pause starts at leaf1's port from the spine (it holds incast chunks bound for node8) ...
  EXPECT_GT(link_named(r, "spine0->leaf1")["pfc_pause_frames"].get<int>(), 0);
  // ... and spreads upstream: the spine's port from leaf0, then leaf0's port from node0's NIC,
  // which the victim alone uses.
  EXPECT_GT(link_named(r, "leaf0->spine0")["pfc_pause_frames"].get<int>(), 0);
  EXPECT_GT(link_named(r, "node0.nic0->leaf0")["pfc_pause_frames"].get<int>(), 0);
  EXPECT_GT(r["pfc"]["pause_frames"].get<int>(), 0);
  EXPECT_EQ(r["pfc"]["mode"], "ingress");
  EXPECT_EQ(r["pfc"]["xoff_bytes"], 512 * 1024);
  EXPECT_EQ(r["pfc"]["xon_bytes"], 256 * 1024);
}

TEST(PfcIncast, EgressModeIsTheDefault) {
  // Naming the default changes nothing: the same results as a scenario without `pfc`.
  json plain = shipped();
  plain["cluster"]["fabric"].erase("pfc");
  plain["workload"]["bytes"] = "4MiB";
  json named = plain;
  named["cluster"]["fabric"]["pfc"] = {{"mode", "egress"}};
  const json a = simulate(plain), b = simulate(named);
  EXPECT_EQ(a["collectives"], b["collectives"]);
  EXPECT_EQ(a["links"], b["links"]);
  EXPECT_FALSE(a.contains("pfc"));
  EXPECT_FALSE(b.contains("pfc"));
}

TEST(PfcIncast, BadPfcSettingsAreClearErrors) {
  std::vector<BadCase> cases = {
      {"unknown mode", [](json& d) { d["cluster"]["fabric"]["pfc"]["mode"] = "xoff"; }, "/cluster/fabric/pfc/mode"},
      {"xon not below xoff", [](json& d) { d["cluster"]["fabric"]["pfc"]["xon"] = "512KiB"; },
       "/cluster/fabric/pfc/xon"},
      {"xoff below a chunk", [](json& d) { d["cluster"]["fabric"]["pfc"]["xoff"] = "32KiB"; },
       "/cluster/fabric/pfc/xoff"},
      {"thresholds without ingress",
       [](json& d) {
         d["cluster"]["fabric"]["pfc"] = {{"mode", "off"}, {"headroom", "1MiB"}};
       },
       "/cluster/fabric/pfc/mode"},
      {"flow fidelity", [](json& d) { d["cluster"]["fabric"]["fidelity"] = "flow"; }, "/cluster/fabric/pfc/mode"},
      {"unknown key", [](json& d) { d["cluster"]["fabric"]["pfc"]["xof"] = "1MiB"; }, "/cluster/fabric/pfc/xof"},
      {"negative headroom", [](json& d) { d["cluster"]["fabric"]["pfc"]["headroom"] = -1; },
       "/cluster/fabric/pfc/headroom"},
  };
  expect_load_errors(shipped(), cases);
}

}  // namespace test_pfc_incast
}  // namespace trainvp
