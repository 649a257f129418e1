#pragma once
// Every synchronization strategy, once: its name, its kind, how its module is built from a
// scenario, and what the platform needs around it. Adding a strategy is one model class, one
// entry here and its config keys (platform/config).
#include <string>
#include <memory>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/sync/sync_setup.hpp"

namespace trainvp {

// What a strategy's module is built from.
struct SyncBuild {
  const Scenario& scenario;
  CollectiveEngine& engine;
  std::vector<Gpu*> gpus;     // by rank
  std::vector<int> nodes_of;  // per rank: its node
  int iterations;
  RunContext& ctx;
  const DreamDdpPlan* plan;  // the strategy's plan when it is `planned` (null otherwise)
  // Hybrid parallelism: the layers the GPUs hold (a pipeline stage's); null: the scenario's.
  const Workload* workload = nullptr;
  const Workload& layers() const { return workload ? *workload : scenario.workload; }
  // Several jobs on one cluster: their modules' names begin with this ("job1"), unique per job.
  std::string module_prefix = {};
};

struct SyncStrategyEntry {
  SyncStrategyKind kind;
  // As in /training/sync/strategy and results.json: the config layer's one name table.
  const char* name() const { return sync_strategy_name(kind); }
  // The module (null for `none`: nothing synchronizes).
  std::unique_ptr<SyncStrategy> (*make)(const SyncBuild& b);
  // Runs from a plan made before elaboration (DreamDDP's profile and schedule: plan_dreamddp).
  bool planned;
  // Strategies that synchronize every H iterations: H, the window their throughput is reported
  // over (null for the others, which synchronize every iteration).
  int (*period)(const Scenario& s, const DreamDdpPlan* plan);
};

const std::vector<SyncStrategyEntry>& sync_strategies();
// The entry of `kind`; throws std::logic_error when there is none.
const SyncStrategyEntry& sync_strategy(SyncStrategyKind kind);

// Why ZeRO cannot run under `sync` ("" when it can): the message for /training/parallel/zero.
std::string zero_refusal(const Scenario& s, const SyncStrategyEntry& sync);

}  // namespace trainvp
