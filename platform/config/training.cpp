#include "platform/config/training.hpp"

#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<TrainingRaw>& training_schema() {
  static const ParamSet<TrainingRaw> s = [] {
    ParamSet<TrainingRaw> p("training", "/training", "How the job trains.");
    p.integer("iterations", &TrainingRaw::iterations, 10, "Iterations simulated, warm-up included", Range::at_least(1))
        .integer("warmup", &TrainingRaw::warmup, 1, "Leading iterations excluded from means; < iterations",
                 Range::non_negative())
        .choice("optimizer", &TrainingRaw::optimizer, "adam",
                {{"adam", OptimizerKind::Adam}, {"sgd", OptimizerKind::Sgd}, {"none", OptimizerKind::None}},
                "Optimizer step after backward: adam (fp32 w, m, v), sgd (fp32 w, momentum) or none")
        .nested("sync", "object", json{{"strategy", "none"}}, "Gradient synchronization (see `sync`)")
        .time("time_limit", &TrainingRaw::time_limit, "24h",
              "Simulated-time limit; a run that reaches it fails naming what each GPU waits for",
              Range::positive());
    return p;
  }();
  return s;
}

json load_training(TrainingConfig& t, Workload& w, const json& value, const ClusterConfig& c) {
  TrainingRaw tr;
  json resolved = training_schema().load(tr, object_or_empty(value), "/training");
  if (tr.warmup >= tr.iterations)
    fail_expected("/training/warmup", "fewer warm-up iterations than iterations (" + std::to_string(tr.iterations) + ")",
                  json(tr.warmup));
  SyncConfig sc;
  resolved["sync"] = load_sync(sc, member(value, "sync"), w, c);
  t = {tr.iterations, tr.warmup, sc, tr.time_limit};
  w.optimizer = tr.optimizer;
  return resolved;
}

}  // namespace trainvp
