// The pieces of another tenant's traffic (docs/jobs.md#checkpoint-jobs, docs/health.md#with-jobs):
// a checkpoint job's transfers go from each writer GPU to the storage GPU of the same local index,
// writers taking the storage nodes round-robin; and a communication diagnosis matches a neighbour
// only while it sends and only over a direction its transfers may take.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/scenario.hpp"
#include "platform/core/test/own_process.hpp"
#include "platform/system/health/score.hpp"
#include "platform/system/simulation.hpp"

namespace trainvp {
namespace test_neighbours {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using nlohmann::json;

// 8 nodes x 2 H100 with 2 NICs on 4-port leaves: nodes 0-1 on leaf 0, 2-3 on leaf 1, and so on.
json scenario() {
  json layers = json::array({{{"name", "l0"}, {"params", 1000}, {"fwd_time", "1ms"}, {"bwd_time", "2ms"}}});
  return {{"trainvp", 1},
          {"cluster",
           {{"nodes", 8},
            {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}, {"nics", 2}}},
            {"fabric", {{"topology", "leaf-spine"}, {"leaf_ports", 4}, {"spines", 2}}}}},
          {"jobs",
           {{{"name", "a"}, {"placement", {{"nodes", {0, 4}}}}, {"workload", {{"layers", layers}}}},
            {{"name", "ckpt"},
             {"kind", "checkpoint"},
             {"placement", {{"nodes", {1, 2, 3}}}},
             {"checkpoint", {{"bytes", "1GiB"}, {"period", "1s"}, {"storage", {6, 7}}}}}}},
          {"output", {{"trace", false}}}};
}

TEST(Neighbours, ACheckpointJobWritesFromEachGpuToTheStorageGpuOfItsRailRoundRobin) {
  test::in_own_process([] {
    Scenario s = load_scenario(scenario(), "t");
    Simulation sim(s);
    ASSERT_EQ(sim.checkpoints().size(), 1u);
    // Writers 1, 2, 3 (ranks 2-3, 4-5, 6-7) to storage 6, 7, 6 (ranks 12-13, 14-15).
    const std::vector<std::pair<int, int>> want = {{2, 12}, {3, 13}, {4, 14}, {5, 15}, {6, 12}, {7, 13}};
    EXPECT_EQ(sim.checkpoints()[0]->transfers(), want);
    EXPECT_EQ(sim.jobs().size(), 1u);  // the training job only: a checkpoint job runs no strategy
  });
}

TEST(Neighbours, ADiagnosisMatchesANeighbourOnlyWhileItSendsAndOverItsDirections) {
  test::in_own_process([] {
    Scenario s = load_scenario(scenario(), "t");
    Simulation sim(s);
    Fabric& f = sim.fabric();
    // The neighbour writes from rank 2 (node 1, leaf 0) to rank 12 (node 6, leaf 3) in [1 s, 2 s].
    NeighbourTruth n;
    n.job = "ckpt", n.kind = "checkpoint";
    n.spans = {{1'000'000'000'000, 2'000'000'000'000}};
    std::set<int> dirs;
    for (const std::vector<int>& hop : f.route_layers(2, 12)) dirs.insert(hop.begin(), hop.end());
    n.dirs.assign(dirs.begin(), dirs.end());
    Diagnosis d;
    d.cause = FailCause::Communication;
    d.change_ps = 1'500'000'000'000, d.diagnosed_ps = 1'600'000'000'000;
    d.links = {{0, 8}};  // node 0 (leaf 0) to node 4 (leaf 2): up leaf 0's uplinks, as the writer
    EXPECT_TRUE(neighbour_matches(d, n, f, 0));
    d.links = {{8, 0}};  // the other way: up leaf 2, down to leaf 0; the writer's bytes never go there
    EXPECT_FALSE(neighbour_matches(d, n, f, 0));
    d.links = {};  // unlocalized: the suspect communicator's ring edges, 0 -> 8 among them
    d.groups = {{0, 8}};
    EXPECT_TRUE(neighbour_matches(d, n, f, 0));
    d.change_ps = 900'000'000'000;  // before the burst, beyond the slack
    EXPECT_FALSE(neighbour_matches(d, n, f, 50'000'000'000));
    EXPECT_TRUE(neighbour_matches(d, n, f, 200'000'000'000));  // within one iteration's slack
    d.change_ps = 2'100'000'000'000;                           // after it
    EXPECT_FALSE(neighbour_matches(d, n, f, 0));
    d.change_ps = 1'500'000'000'000;
    d.cause = FailCause::Compute;
    EXPECT_FALSE(neighbour_matches(d, n, f, 0));
  });
}

}  // namespace test_neighbours
}  // namespace trainvp
