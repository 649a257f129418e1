#include "platform/system/sync/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/collectives/ddp.hpp"
#include "models/collectives/strategies/builders.hpp"

namespace trainvp {

namespace {

std::unique_ptr<SyncStrategy> no_sync(const SyncBuild&) { return nullptr; }

// A stage's DP group under hybrid parallelism gets a module of its own (named by its first rank).
std::string module_name(const SyncBuild& b, const char* base) {
  const std::string named = b.module_prefix.empty() ? std::string(base) : b.module_prefix + "_" + base;
  return b.workload ? named + "_s" + std::to_string(b.gpus.front()->rank()) : named;
}

std::unique_ptr<SyncStrategy> ddp(const SyncBuild& b, bool overlap) {
  const SyncConfig& sc = b.scenario.training.sync;
  DdpConfig d{sc.bucket, sc.first_bucket, sc.algorithm, sc.comm_streams, overlap};
  // ZeRO: each rank reduces only the shard of the gradients its optimizer updates.
  if (b.scenario.training.parallel.enabled && b.scenario.training.parallel.zero >= 1)
    d.op = CollectiveOp::ReduceScatter;
  return std::make_unique<DdpSync>(module_name(b, "ddp").c_str(), d, b.layers(), b.gpus, b.engine, b.nodes_of,
                                   b.iterations, b.ctx);
}

std::unique_ptr<SyncStrategy> unit_sync(const SyncBuild& b, UnitSyncConfig cfg) {
  const RetryConfig& r = b.scenario.training.sync.retry;
  if (r.enabled) cfg.retry = {true, r.backoff_ps, r.attempts, r.retry_cnt, r.timeout_ps};
  // ZeRO (only with gradient strategies, uncompressed: Simulation refuses the others): each unit
  // is reduce-scattered, each rank keeping the shard its optimizer updates.
  if (b.scenario.training.parallel.enabled && b.scenario.training.parallel.zero >= 1 && !cfg.parameters)
    for (SyncUnit& u : cfg.units)
      for (SyncStep& st : u.steps)
        if (st.op == CollectiveOp::AllReduce) st.op = CollectiveOp::ReduceScatter;
  return std::make_unique<UnitSync>(module_name(b, "sync").c_str(), std::move(cfg), b.layers(), b.gpus, b.engine,
                                    b.nodes_of, b.iterations, b.ctx);
}

// `world`: the communicator's size (every GPU, or one DP group), which sparse all-gathers scale with.
StrategyCommon common(const SyncBuild& b) {
  const SyncConfig& sc = b.scenario.training.sync;
  StrategyCommon c;
  c.world = static_cast<int>(b.gpus.size());
  c.algorithm = sc.algorithm;
  c.streams = sc.comm_streams;
  c.compression = sc.compression;
  return c;
}

GroupingOptions grouping(const SyncConfig& sc, int block) {
  GroupingOptions g;
  g.block = block;
  g.pack = sc.pack;
  g.large_bytes = sc.large_bytes;
  g.small_bytes = sc.small_bytes;
  g.streams = sc.comm_streams;
  if (sc.has_class_streams) g.class_streams = {sc.class_streams.large, sc.class_streams.medium, sc.class_streams.small};
  return g;
}

int configured_period(const Scenario& s, const DreamDdpPlan*) { return std::max(1, s.training.sync.period); }
// Without a plan (no DP group to synchronize: d = 1 under hybrid parallelism), the configured one.
int schedule_period(const Scenario& s, const DreamDdpPlan* plan) {
  return plan ? std::max<int>(1, static_cast<int>(plan->schedule.sets.size())) : configured_period(s, plan);
}

const SyncConfig& sync_of(const SyncBuild& b) { return b.scenario.training.sync; }

}  // namespace

const std::vector<SyncStrategyEntry>& sync_strategies() {
  static const std::vector<SyncStrategyEntry> table = {
      {SyncStrategyKind::None, no_sync, false, nullptr},
      // Under training.parallel, ddp's buckets overlap the backward as Megatron's --overlap-grad-reduce
      // says (its default: they do not).
      {SyncStrategyKind::Ddp,
       [](const SyncBuild& b) {
         const ParallelConfig& pc = b.scenario.training.parallel;
         return ddp(b, !pc.enabled || pc.overlap_grad_reduce);
       },
       false, nullptr},
      {SyncStrategyKind::DdpNoOverlap, [](const SyncBuild& b) { return ddp(b, false); }, false, nullptr},
      {SyncStrategyKind::Layerwise,
       [](const SyncBuild& b) {
         return unit_sync(b, grouped_config("layerwise", b.layers(), common(b), grouping(sync_of(b), 1)));
       },
       false, nullptr},
      {SyncStrategyKind::Blockwise,
       [](const SyncBuild& b) {
         const SyncConfig& sc = sync_of(b);
         return unit_sync(b, grouped_config("blockwise", b.layers(), common(b), grouping(sc, sc.block)));
       },
       false, nullptr},
      {SyncStrategyKind::Adaptive,
       [](const SyncBuild& b) {
         const SyncConfig& sc = sync_of(b);
         return unit_sync(b,
                          adaptive_config(b.layers(), common(b), grouping(sc, 1), sc.block, sc.util_high, sc.util_low));
       },
       false, nullptr},
      {SyncStrategyKind::AscWfbp,
       [](const SyncBuild& b) { return unit_sync(b, asc_wfbp_config(b.layers(), common(b))); }, false, nullptr},
      {SyncStrategyKind::LocalSgd,
       [](const SyncBuild& b) { return unit_sync(b, local_sgd_config(b.layers(), common(b), sync_of(b).period)); },
       false, configured_period},
      {SyncStrategyKind::Plsgd,
       [](const SyncBuild& b) {
         const Workload& w = b.layers();
         return unit_sync(b, partial_config("plsgd", w, common(b), plsgd_sets(w, sync_of(b).period)));
       },
       false, configured_period},
      {SyncStrategyKind::DreamDdp,
       [](const SyncBuild& b) {
         if (!b.plan) throw std::logic_error("dreamddp needs its plan");
         return unit_sync(b, partial_config("dreamddp", b.layers(), common(b), b.plan->schedule));
       },
       true, schedule_period},
      {SyncStrategyKind::Elastic,
       [](const SyncBuild& b) {
         const SyncConfig& sc = sync_of(b);
         return unit_sync(b, elastic_config(b.layers(), common(b), grouping(sc, 1), sc.elastic_timeout_ps));
       },
       false, nullptr},
  };
  return table;
}

// Why ZeRO cannot run under `sync` ("" when it can). ZeRO reduce-scatters each gradient unit so
// that every rank keeps the shard its optimizer updates: DDP's buckets, and the units of the
// strategies that synchronize every gradient in every iteration as it becomes ready.
std::string zero_refusal(const Scenario& s, const SyncStrategyEntry& sync) {
  const std::string name = std::string("\"") + sync.name() + "\"";
  switch (sync.kind) {
    case SyncStrategyKind::LocalSgd:
    case SyncStrategyKind::Plsgd:
    case SyncStrategyKind::DreamDdp:
      return name +
             " averages each layer's parameters once every H iterations and lets the replicas step alone "
             "in between; ZeRO shards the optimizer state over the DP group (ZeRO-3 the parameters too), so "
             "no rank holds a whole replica to step alone or to average: use zero 0, or ddp or layerwise";
    case SyncStrategyKind::Elastic:
      return name +
             " lets a rank step with its own gradient for a late layer; under ZeRO a rank updates only its "
             "shard, which needs every rank's reduce-scattered gradient: use zero 0, or layerwise";
    default: break;
  }
  if (s.training.sync.retry.enabled)
    return "training.sync.retry lets a rank whose retries are exhausted step with its own gradient; under ZeRO a "
           "rank updates only its shard, which needs every rank's reduce-scattered gradient: use zero 0 or no retry";
  if (s.training.sync.compression.kind != CompressionKind::None)
    return std::string("compression \"") + compression_name(s.training.sync.compression.kind) +
           "\" all-gathers top-k selections or all-reduces PowerSGD factors, neither of which leaves each rank the "
           "reduce-scattered shard its ZeRO optimizer updates: use compression none or zero 0";
  return "";
}

const SyncStrategyEntry& sync_strategy(SyncStrategyKind kind) {
  for (const SyncStrategyEntry& e : sync_strategies())
    if (e.kind == kind) return e;
  throw std::logic_error("no synchronization strategy registered for this kind");
}

}  // namespace trainvp
