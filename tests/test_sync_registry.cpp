// The synchronization strategy registry (platform/system/sync/registry.hpp): one entry per kind
// the scenario format knows, under the same name, and each entry's make builds that strategy.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/system/cluster_builder.hpp"
#include "platform/system/sync/registry.hpp"
#include "tests/sim_child.hpp"

namespace trainvp {
namespace test_sync_registry {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// The names /training/sync/strategy accepts, from the scenario format's own schema.
std::vector<std::string> format_strategy_names() {
  for (const SchemaInfo& s : all_schemas())
    if (s.name == "sync")
      for (const ParamInfo& p : s.params)
        if (p.name == "strategy") return p.choices;
  return {};
}

json scenario(const std::string& strategy) {
  json layers = json::array();
  for (auto [name, params] : {std::pair<const char*, int>{"a", 1000000}, {"b", 3000000}})
    layers.push_back({{"name", name}, {"params", params}, {"fwd_time", "1ms"}, {"bwd_time", "2ms"}});
  return {{"trainvp", 1},
          {"name", "registry"},
          {"cluster", {{"nodes", 2}, {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}}}},
          {"workload", {{"layers", layers}}},
          {"training", {{"iterations", 3}, {"warmup", 1}, {"sync", {{"strategy", strategy}, {"period", 2}}}}},
          {"output", {{"trace", false}}}};
}

TEST(SyncRegistry, EveryStrategyOfTheFormatHasExactlyOneEntryUnderItsName) {
  const std::vector<std::string> names = format_strategy_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(sync_strategies().size(), names.size());
  std::set<std::string> seen;
  for (const SyncStrategyEntry& e : sync_strategies()) EXPECT_TRUE(seen.insert(e.name()).second) << e.name();
  for (const std::string& name : names) {
    const SyncStrategyKind kind = load_scenario(scenario(name), "t").training.sync.strategy;
    int entries = 0;
    for (const SyncStrategyEntry& e : sync_strategies()) entries += e.kind == kind;
    EXPECT_EQ(entries, 1) << name;
    EXPECT_EQ(sync_strategy(kind).name(), name);
  }
}

TEST(SyncRegistry, MakeBuildsTheStrategyOfItsEntry) {
  for (const SyncStrategyEntry& e : sync_strategies()) {
    auto r = test::in_child([&] {
      const Scenario s = load_scenario(scenario(e.name()), "t");
      std::unique_ptr<DreamDdpPlan> plan;
      if (e.planned) plan = plan_dreamddp(s);  // forks: before any module exists
      RunContext ctx(s.seed, false);
      Cluster c = build_cluster(s, ctx, WaveOptions{});
      auto module = e.make({s, *c.engine, c.gpus, c.nodes_of, s.training.iterations, ctx, plan.get()});
      return std::string(module ? module->name() : "none");
    });
    ASSERT_TRUE(r.ok) << e.name() << ": " << r.value;
    EXPECT_EQ(r.value, e.name());
  }
}

TEST(SyncRegistry, PeriodicStrategiesReportTheirPeriod) {
  const Scenario s = load_scenario(scenario("localsgd"), "t");
  for (const SyncStrategyEntry& e : sync_strategies()) {
    const std::string name = e.name();
    const bool periodic = name == "localsgd" || name == "plsgd" || name == "dreamddp";
    EXPECT_EQ(e.period != nullptr, periodic) << name;
  }
  EXPECT_EQ(sync_strategy(SyncStrategyKind::LocalSgd).period(s, nullptr), 2);
}

}  // namespace test_sync_registry
}  // namespace trainvp
