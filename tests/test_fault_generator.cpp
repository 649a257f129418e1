// The seeded random fault campaign (docs/faults.md#random-campaigns): the same seed draws the same
// events and another seed others; counts, durations and severities follow the configured Poisson
// rate, duration distribution and mix; targets come from the scope; the events pass the normal
// fault validation; a run replayed from its DIR/faults.json gives the same results.json; bad
// generator settings are errors naming /fault_generator/..., exit 2.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "platform/core/errors.hpp"
#include "platform/config/fault_generator.hpp"
#include "platform/system/faults/campaign.hpp"
#include "platform/core/glob.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/command.hpp"
#include "tests/sim_child.hpp"

namespace trainvp {
namespace test_fault_generator {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using test::in_child;

// 2 nodes x 4 H100; a 4-layer model with measured times (an iteration is ~40 ms) under DDP.
json job(const json& generator, int nodes = 2) {
  json layers = json::array();
  for (int i = 0; i < 4; ++i)
    layers.push_back(
        {{"name", "l" + std::to_string(i)}, {"params", 4000000}, {"fwd_time", "3ms"}, {"bwd_time", "6ms"}});
  return {{"trainvp", 1},
          {"name", "gen-test"},
          {"seed", 7},
          {"cluster", {{"nodes", nodes}, {"node", {{"gpus", 4}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"layers", layers}}},
          {"training", {{"iterations", 12}, {"sync", {{"strategy", "ddp"}}}}},
          {"fault_generator", generator},
          {"output", {{"trace", false}}}};
}

// Every kind off but the ones given.
json only(const json& kinds, const char* horizon = "24h") {
  json g = {{"horizon", horizon},
            {"gpu_slowdown", {{"rate", 0}}},
            {"cpu_contention", {{"rate", 0}}},
            {"link_degrade", {{"rate", 0}}},
            {"packet_loss", {{"rate", 0}}},
            {"link_down", {{"rate", 0}}},
            {"congestion", {{"rate", 0}}}};
  for (auto it = kinds.begin(); it != kinds.end(); ++it) g[it.key()] = it.value();
  return g;
}

std::size_t kind_index(const FaultGeneratorConfig& c, const std::string& name) {
  for (std::size_t i = 0; i < c.kinds.size(); ++i)
    if (c.kinds[i].name == name) return i;
  throw std::runtime_error("no generator kind " + name);
}

// Draws without a fabric: targets given by hand, one list per kind.
json draw(const json& generator, std::vector<std::string> names = {"a", "b", "c"}) {
  Scenario s = load_scenario(job(generator), "t");
  return generate_faults(s.fault_generator,
                         std::vector<std::vector<std::string>>(s.fault_generator.kinds.size(), names));
}

double seconds(const json& time) { return static_cast<double>(parse_time_ps(time.get<std::string>())) * 1e-12; }

TEST(FaultGenerator, SameSeedDrawsTheSameEventsAnotherSeedOthers) {
  json g = {{"horizon", "10h"}, {"seed", 11}, {"gpu_slowdown", {{"rate", 3}}}, {"link_degrade", {{"rate", 2}}}};
  const json a = draw(g), b = draw(g);
  ASSERT_GE(a.size(), 20u);
  EXPECT_EQ(a, b);
  g["seed"] = 12;
  EXPECT_NE(draw(g), a);
  // The generator's seed defaults to the scenario's.
  g.erase("seed");
  EXPECT_EQ(load_scenario(job(g), "t").fault_generator.seed, 7u);
}

TEST(FaultGenerator, EventCountFollowsRateTimesHorizonAndDurationsTheirMean) {
  // (500 h: scenario times stop at 720 h, docs/reliability.md.) Poisson: N ~ rate x horizon = 50,000 with sigma 224;
  // accept 4 sigma. The mean of 50,000 exponential durations has a relative sigma of 1/sqrt(N) = 0.45%, a lognormal's
  // (sigma 1) sqrt(e - 1)/sqrt(N) = 0.59%; accept 2.5% and 3%.
  const double expected = 100.0 * 500;
  for (const char* dist : {"exponential", "lognormal"}) {
    const json ev = draw(
        only({{"gpu_slowdown", {{"rate", 100}, {"duration", {{"distribution", dist}, {"mean", "10min"}}}}}}, "500h"));
    EXPECT_NEAR(static_cast<double>(ev.size()), expected, 4 * std::sqrt(expected)) << dist;
    double sum = 0, last = 0;
    for (const json& e : ev) {
      sum += seconds(e["duration"]);
      EXPECT_GE(seconds(e["start"]), last);  // in order of start
      last = seconds(e["start"]);
    }
    EXPECT_LT(last, 500 * 3600.0);
    EXPECT_NEAR(sum / static_cast<double>(ev.size()), 600.0, 600.0 * (std::string(dist) == "lognormal" ? 0.03 : 0.025))
        << dist;
  }
  const json fixed =
      draw(only({{"gpu_slowdown", {{"rate", 1}, {"duration", {{"distribution", "fixed"}, {"mean", "90s"}}}}}}, "100h"));
  ASSERT_FALSE(fixed.empty());
  for (const json& e : fixed) EXPECT_EQ(e["duration"], "90s");
}

TEST(FaultGenerator, SeveritiesFollowTheMixAndSetTheirLevels) {
  const json ev = draw(only(
      {{"gpu_slowdown", {{"rate", 100}, {"severity", {{"weak", 0.2}, {"medium", 0.3}, {"severe", 0.5}}}}}}, "500h"));
  std::map<std::string, double> count;
  const std::map<std::string, double> factor = {{"weak", 0.9}, {"medium", 0.8}, {"severe", 0.5}};
  for (const json& e : ev) {
    count[e["severity"]] += 1;
    EXPECT_EQ(e["factor"].get<double>(), factor.at(e["severity"])) << e.dump();
  }
  const double n = static_cast<double>(ev.size());
  for (auto [sev, p] : std::map<std::string, double>{{"weak", 0.2}, {"medium", 0.3}, {"severe", 0.5}})
    EXPECT_NEAR(count[sev] / n, p, 4 * std::sqrt(p * (1 - p) / n)) << sev;
  // A class of probability 0 never occurs; a level given replaces the default.
  const json two = draw(only({{"link_degrade",
                               {{"rate", 20},
                                {"severity", {{"weak", 0.5}, {"medium", 0.5}, {"severe", 0}}},
                                {"levels", {{"weak", {{"added_latency", "5us"}}}}}}}}));
  ASSERT_FALSE(two.empty());
  for (const json& e : two) {
    EXPECT_NE(e["severity"], "severe");
    const json weak = {{"kind", "link_degrade"},    {"target", e["target"]}, {"start", e["start"]},
                       {"duration", e["duration"]}, {"origin", "generator"}, {"severity", "weak"},
                       {"added_latency", "5us"}};
    if (e["severity"] == "weak") {
      EXPECT_EQ(e, weak);
    } else {
      EXPECT_EQ(e["bandwidth_factor"], 0.5);
    }
  }
}

TEST(FaultGenerator, GeneratedEventsPassTheNormalFaultValidation) {
  json g = {{"horizon", "200h"}};
  for (const char* k : {"gpu_slowdown", "cpu_contention", "link_degrade", "packet_loss", "link_down"})
    g[k] = {{"rate", 1}};
  const json ev = draw(g);
  std::map<std::string, int> kinds;
  for (const json& e : ev) kinds[e["kind"]]++;
  EXPECT_EQ(kinds.size(), 5u);
  json resolved;
  std::vector<FaultConfig> faults = load_fault_list(ev, resolved);
  ASSERT_EQ(faults.size(), ev.size());
  for (const FaultConfig& f : faults) {
    EXPECT_TRUE(f.generated);
    EXPECT_FALSE(f.severity.empty());
    EXPECT_GT(f.duration_ps, 0);
  }
}

TEST(FaultGenerator, DefaultsComeFromGreyhoundScaledToTheJob) {
  // docs/faults.md#random-campaigns: 2 GPU degradations and 4 CPU contentions in 392 single-node
  // probes of ~80 min on 4 GPUs; 42 congestion events in 107 four-node probes of ~5 h.
  Scenario s = load_scenario(job(json::object(), 8), "t");  // 8 nodes x 4 GPUs
  const FaultGeneratorConfig& c = s.fault_generator;
  const double probe_h = 392 * 80.0 / 60;
  EXPECT_DOUBLE_EQ(c.kinds[kind_index(c, "gpu_slowdown")].rate_per_h, 2 / (probe_h * 4) * 32);
  EXPECT_DOUBLE_EQ(c.kinds[kind_index(c, "cpu_contention")].rate_per_h, 4 / probe_h * 8);
  EXPECT_DOUBLE_EQ(c.kinds[kind_index(c, "link_degrade")].rate_per_h, 42 / (107 * 5.0 * 4) * 8);
  EXPECT_EQ(c.kinds[kind_index(c, "packet_loss")].rate_per_h, 0);
  EXPECT_EQ(c.kinds[kind_index(c, "gpu_slowdown")].mean_ps, parse_time_ps("10min"));
  EXPECT_EQ(c.kinds[kind_index(c, "link_degrade")].mean_ps, parse_time_ps("24min"));
  EXPECT_EQ(c.horizon_ps, parse_time_ps("24h"));  // /training/time_limit's default
  EXPECT_EQ(c.resolved["link_degrade"]["severity"], json({{"weak", 0.3}, {"medium", 0.5}, {"severe", 0.2}}));
  // At >= 512 GPUs network events last 72 min on average (GREYHOUND's production jobs).
  json big = job(json::object(), 128);  // 512 GPUs
  big["cluster"]["fabric"] = {{"switch_ports", 512}};
  Scenario b = load_scenario(big, "t");
  EXPECT_EQ(b.fault_generator.kinds[kind_index(b.fault_generator, "link_degrade")].mean_ps, parse_time_ps("72min"));
  EXPECT_EQ(b.fault_generator.kinds[kind_index(b.fault_generator, "gpu_slowdown")].mean_ps, parse_time_ps("10min"));
}

// Elaborates the job in a child and returns the injected faults (resolved) and the fabric's links.
json elaborate(const json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    json links = json::array();
    for (const FabricLink& l : sim.fabric().links())
      links.push_back({{"name", l.name}, {"kind", link_kind_name(l.kind)}});
    return json({{"faults", sim.fault_list()}, {"generated", sim.generated_faults()}, {"links", links}}).dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return json::parse(r.value);
}

TEST(FaultGenerator, EveryTargetMatchesTheScopeAndEachMatchIsDrawn) {
  json doc = job(only({{"gpu_slowdown", {{"rate", 100}, {"scope", "node1.gpu[1-3]"}}},
                       {"cpu_contention", {{"rate", 100}}},
                       {"link_degrade", {{"rate", 100}, {"scope", "link:node0.*"}}},
                       {"packet_loss", {{"rate", 100}}}},
                      "2h"));
  doc["faults"] = json::array({{{"kind", "gpu_slowdown"}, {"target", "node0.gpu0"}, {"factor", 0.9}}});
  const json e = elaborate(doc);
  std::map<std::string, std::map<std::string, int>> hits;
  std::map<std::string, std::string> link_kind;
  for (const json& l : e["links"]) link_kind[l["name"]] = l["kind"];
  ASSERT_EQ(e["faults"][0]["target"], "node0.gpu0");  // the scenario's own faults come first
  EXPECT_EQ(e["generated"].get<std::size_t>() + 1, e["faults"].size());
  for (std::size_t i = 1; i < e["faults"].size(); ++i) {
    const json& f = e["faults"][i];
    const std::string kind = f["kind"], target = f["target"];
    hits[kind][target]++;
    EXPECT_EQ(f["origin"], "generator");
    bool in_scope = true;
    if (kind == "gpu_slowdown") in_scope = glob_match("node1.gpu[1-3]", target);
    if (kind == "cpu_contention") in_scope = target == "node0.gpu*" || target == "node1.gpu*";
    if (kind == "link_degrade") in_scope = glob_match("link:node0.*", target);
    if (kind == "packet_loss") in_scope = link_kind[target] == "ethernet";  // default: network links
    EXPECT_TRUE(in_scope) << kind << " " << target;
  }
  // ~200 events each, spread uniformly: every candidate is drawn.
  EXPECT_EQ(hits["gpu_slowdown"].size(), 3u);
  EXPECT_EQ(hits["cpu_contention"].size(), 2u);
  std::size_t node0_links = 0, network = 0;
  for (auto& [name, kind] : link_kind) node0_links += glob_match("link:node0.*", name), network += kind == "ethernet";
  EXPECT_EQ(hits["link_degrade"].size(), node0_links);
  EXPECT_EQ(hits["packet_loss"].size(), network);
}

TEST(FaultGenerator, CongestionDrawsTwoDifferentNicsOfTheScopeAndTheTrafficRuns) {
  const char* scope = "node*.nic[0-1]";
  const json e = elaborate(job(only({{"congestion", {{"rate", 100}, {"scope", scope}}}}, "2h")));
  std::map<std::pair<std::string, std::string>, int> pairs;
  ASSERT_GT(e["faults"].size(), 100u);
  for (const json& f : e["faults"]) {
    ASSERT_EQ(f["kind"], "congestion");
    EXPECT_FALSE(f.contains("target"));
    const std::string src = f["source"], dst = f["destination"];
    EXPECT_NE(src, dst);
    EXPECT_TRUE(glob_match(scope, src) && glob_match(scope, dst)) << src << " -> " << dst;
    pairs[{src, dst}]++;
  }
  EXPECT_EQ(pairs.size(), 4u * 3u);  // ~200 events: every ordered pair of the 4 NICs is drawn

  // Events in the run's window inject real cross-traffic, and the run still ends with its work.
  json doc = job(
      only({{"congestion", {{"rate", 3600}, {"duration", {{"distribution", "fixed"}, {"mean", "200ms"}}}}}}, "300ms"));
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return sim.faults()->results().dump();
  });
  ASSERT_TRUE(r.ok) << r.value;
  const json res = json::parse(r.value);
  std::uint64_t delivered = 0;
  for (const json& f : res)
    if (f["applied"] == true) delivered += f["delivered_bytes"].get<std::uint64_t>();
  EXPECT_GT(delivered, 0u) << res.dump(1);
}

class FaultGeneratorCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-gen-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const json& doc) {
    std::ofstream(dir_ / name) << doc.dump(2);
    return (dir_ / name).string();
  }
  json read(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
  }
  fs::path dir_;
};

TEST_F(FaultGeneratorCli, ReplayOfFaultsJsonGivesIdenticalResults) {
  // Events every ~10 ms of a ~0.5 s run, lasting ~20 ms: many overlap the iterations.
  json gen = only({{"gpu_slowdown", {{"rate", 360000}, {"duration", {{"mean", "20ms"}}}}},
                   {"link_degrade", {{"rate", 360000}, {"duration", {{"mean", "20ms"}}}}},
                   {"packet_loss", {{"rate", 100000}, {"duration", {{"mean", "5ms"}}}}}});
  gen["start"] = "150ms";
  gen["horizon"] = "400ms";
  json doc = job(gen);
  doc["faults"] =
      json::array({{{"kind", "cpu_contention"}, {"target", "node1.*"}, {"launch_factor", 2}, {"start", "300ms"}}});
  doc["output"]["trace"] = true;
  const std::string scen = write("campaign.json", doc), out = (dir_ / "out").string();
  test::Cmd r = test::trainvp("run " + scen + " -q -o " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  const json first = read(dir_ / "out/results.json"), list = read(dir_ / "out/faults.json");
  ASSERT_TRUE(list.is_array());
  EXPECT_GT(first["fault_generator"]["events"].get<int>(), 10);
  EXPECT_EQ(list.size(), first["faults"].size());
  EXPECT_EQ(first["faults"][0]["origin"], "scenario");
  EXPECT_EQ(first["faults"][1]["origin"], "generator");
  EXPECT_EQ(first["scenario"]["faults"], list);  // the scenario as it ran
  bool applied_generated = false;
  for (const json& f : first["faults"]) applied_generated |= f["origin"] == "generator" && f["applied"] == true;
  EXPECT_TRUE(applied_generated);
  EXPECT_GT(first["degradation"]["time_below_slo_s"].get<double>(), 0);

  fs::copy_file(dir_ / "out/faults.json", dir_ / "replay.json");
  r = test::trainvp("run " + scen + " -q --faults " + (dir_ / "replay.json").string() + " -o " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  json second = read(dir_ / "out/results.json");
  EXPECT_EQ(second["faults_file"], (dir_ / "replay.json").string());
  EXPECT_FALSE(second.contains("fault_generator"));
  EXPECT_EQ(read(dir_ / "out/faults.json"), list);
  json a = first, b = second;
  for (json* j : {&a, &b}) j->erase("fault_generator"), j->erase("faults_file"), (*j)["sim"].erase("wall_s");
  EXPECT_EQ(a, b);
  // A plain scenario writes no faults.json (and removes a stale one).
  doc.erase("fault_generator");
  doc.erase("faults");
  r = test::trainvp("run " + write("plain.json", doc) + " -q -o " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out/faults.json"));
}

TEST_F(FaultGeneratorCli, BadGeneratorSettingsAreErrorsAtTheirPointerExitTwoNothingWritten) {
  struct Case {
    json generator;
    std::string pointer;
  };
  const std::vector<Case> cases = {
      {{{"gpu_slowdown", {{"rate", -1}}}}, "/fault_generator/gpu_slowdown/rate"},
      {{{"link_degrade", {{"severity", {{"weak", 0.5}, {"medium", 0.5}, {"severe", 0.5}}}}}},
       "/fault_generator/link_degrade/severity"},
      {{{"congestio", {{"rate", 1}}}}, "/fault_generator/congestio"},
      {{{"gpu_slowdown", {{"rate", 1}, {"scope", "node9.*"}}}}, "/fault_generator/gpu_slowdown/scope"},
      {{{"link_down", {{"rate", 1}, {"scope", "nothing*"}}}}, "/fault_generator/link_down/scope"},
      {{{"gpu_slowdown", {{"levels", {{"severe", {{"factor", 1.5}}}}}}}},
       "/fault_generator/gpu_slowdown/levels/severe/factor"},
      {{{"gpu_slowdown", {{"levels", {{"weak", {{"start", "1s"}}}}}}}},
       "/fault_generator/gpu_slowdown/levels/weak/start"},
      {{{"link_degrade", {{"levels", {{"medium", json::object()}}}}}}, "/fault_generator/link_degrade/levels/medium"},
      {{{"gpu_slowdown", {{"duration", {{"distribution", "weibull"}}}}}},
       "/fault_generator/gpu_slowdown/duration/distribution"},
      {{{"start", "2h"}, {"horizon", "1h"}}, "/fault_generator/horizon"},
      {{{"horizon", "100h"}, {"cpu_contention", {{"rate", 1e5}}}}, "/fault_generator/cpu_contention/rate"},
  };
  for (const Case& c : cases) {
    const std::string out = (dir_ / "out").string();
    test::Cmd r = test::trainvp("run " + write("bad.json", job(c.generator)) + " -q -o " + out);
    EXPECT_EQ(r.code, 2) << c.pointer << ": " << r.out;
    EXPECT_NE(r.out.find(c.pointer + ":"), std::string::npos) << c.pointer << ": " << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.pointer;
  }
  // validate elaborates the fabric, so it finds a scope that matches nothing too.
  test::Cmd v =
      test::trainvp("validate " + write("scope.json", job({{"gpu_slowdown", {{"rate", 1}, {"scope", "x*"}}}})));
  EXPECT_EQ(v.code, 2) << v.out;
  EXPECT_NE(v.out.find("/fault_generator/gpu_slowdown/scope:"), std::string::npos) << v.out;
  // --faults needs a list.
  test::Cmd r = test::trainvp("run " + write("ok.json", job(json::object())) + " --faults " + write("f.json", json(3)));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--faults"), std::string::npos) << r.out;
}

}  // namespace test_fault_generator
}  // namespace trainvp
