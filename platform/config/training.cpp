#include "platform/config/training.hpp"

#include "platform/config/parallel.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<TrainingRaw>& training_schema() {
  static const ParamSet<TrainingRaw> s = [] {
    ParamSet<TrainingRaw> p("training", "/training", "How the job trains.");
    p.integer("iterations", &TrainingRaw::iterations, 10, "Iterations simulated, warm-up included", {1, 10000000})
        .integer("warmup", &TrainingRaw::warmup, 1, "Leading iterations excluded from means; < iterations",
                 Range::non_negative())
        .choice("optimizer", &TrainingRaw::optimizer, "adam",
                {{"adam", OptimizerKind::Adam}, {"sgd", OptimizerKind::Sgd}, {"none", OptimizerKind::None}},
                "Optimizer step after backward: adam (fp32 w, m, v), sgd (fp32 w, momentum) or none")
        .nested("sync", "object", json{{"strategy", "none"}}, "Gradient synchronization (see `sync`)")
        .nested("fast_forward", "object", json::object(), "Steady-state fast-forward (see `fast_forward`)")
        .nested("parallel", "object", nullptr,
                "Tensor, pipeline and data parallelism with ZeRO (see `parallel`); absent: data parallelism only")
        .time("time_limit", &TrainingRaw::time_limit, "24h",
              "Simulated-time limit; a run that reaches it fails naming what each GPU waits for", Range::positive());
    return p;
  }();
  return s;
}

const ParamSet<FastForwardConfig>& fast_forward_schema() {
  static const ParamSet<FastForwardConfig> s = [] {
    ParamSet<FastForwardConfig> p("fast_forward", "/training/fast_forward",
                                  "Steady-state fast-forward: when per-rank timing repeats with no fault change, "
                                  "background traffic or loss in the way, whole periods up to the next scheduled "
                                  "change are skipped and accounted in every result (docs/performance.md).");
    p.flag("enabled", &FastForwardConfig::enabled, true,
           "Skip repeating periods (results.json `fast_forward` says where)")
        .integer("repeats", &FastForwardConfig::repeats, 3, "Consecutive periods that must repeat before a skip",
                 {2, 1000})
        .number("tolerance", &FastForwardConfig::tolerance, 1e-5,
                "Largest difference between repeating per-rank timings, as a fraction of the period",
                Range::unit_closed())
        .integer("margin", &FastForwardConfig::margin, 2,
                 "Periods simulated before each scheduled change (fault start or end) and before the last iteration",
                 {1, 1000})
        .integer("max_period", &FastForwardConfig::max_period, 16,
                 "Longest repeating period searched, in iterations (a multiple of the strategy's own period)",
                 {1, 100000})
        .integer("min_skip", &FastForwardConfig::min_skip, 20,
                 "Fewest iterations worth a skip (short runs are simulated in full)", {1, 10000000});
    return p;
  }();
  return s;
}

json load_training(TrainingConfig& t, Workload& w, const json& value, const ClusterConfig& c) {
  TrainingRaw tr;
  json resolved = training_schema().load(tr, object_or_empty(value), "/training");
  if (tr.warmup >= tr.iterations)
    fail_expected("/training/warmup",
                  "fewer warm-up iterations than iterations (" + std::to_string(tr.iterations) + ")", json(tr.warmup));
  SyncConfig sc;
  resolved["sync"] = load_sync(sc, member(value, "sync"), w, c);
  // localsgd averages every `period` iterations and plsgd/dreamddp spread each layer's averaging
  // over `period` iterations: fewer iterations than that would report a run without communication.
  if ((sc.strategy == SyncStrategyKind::LocalSgd || sc.strategy == SyncStrategyKind::Plsgd ||
       sc.strategy == SyncStrategyKind::DreamDdp) &&
      tr.iterations < sc.period)
    fail_expected("/training/iterations",
                  "at least /training/sync/period (" + std::to_string(sc.period) +
                      ") iterations: " + sync_strategy_name(sc.strategy) +
                      " synchronizes once per period, so fewer would simulate no "
                      "(or partial) communication",
                  json(tr.iterations));
  FastForwardConfig ff;
  resolved["fast_forward"] =
      fast_forward_schema().load(ff, object_or_empty(member(value, "fast_forward")), "/training/fast_forward");
  t = TrainingConfig{};
  t.iterations = tr.iterations, t.warmup = tr.warmup, t.sync = sc, t.time_limit_ps = tr.time_limit;
  t.fast_forward = ff;
  if (json par = load_parallel(t.parallel, member(value, "parallel"), c, w.shape.batch); !par.is_null())
    resolved["parallel"] = par;
  w.optimizer = tr.optimizer;
  return resolved;
}

}  // namespace trainvp
