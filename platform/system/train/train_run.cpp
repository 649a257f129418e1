#include "platform/system/train/train_run.hpp"

#include <algorithm>
#include <chrono>

#include "models/collectives/strategies/unit_sync.hpp"
#include "models/collectives/strategies/units.hpp"

namespace trainvp {

TrainSchedule schedule_of_run(const Scenario& s, const SyncStrategy* strategy, const std::vector<const Gpu*>& gpus) {
  const Workload& w = s.workload;
  const int n = s.training.iterations;
  TrainSchedule out;
  for (const Layer& l : w.layers) out.layer_params.push_back(l.params);
  for (int i = 0; i < n; ++i) {
    std::int64_t end = 0;
    for (const Gpu* g : gpus) end = std::max(end, g->iterations().at(static_cast<std::size_t>(i)).end_ps);
    out.end_s.push_back(static_cast<double>(end) * 1e-12);
  }
  out.synced.assign(static_cast<std::size_t>(n), {});
  if (!strategy) return out;
  if (const auto* u = dynamic_cast<const UnitSync*>(strategy)) {
    const UnitSyncConfig& cfg = u->config();
    out.mode = !cfg.parameters                         ? SyncValues::Gradients
               : cfg.trigger == SyncTrigger::AfterStep ? SyncValues::ParametersAfterStep
                                                       : SyncValues::ParametersBeforeStep;
    for (int i = 0; i < n; ++i) {
      std::vector<int>& layers = out.synced[static_cast<std::size_t>(i)];
      for (int unit : cfg.plans.at(static_cast<std::size_t>(u->plan_of(i))).units)
        for (int l : cfg.units.at(static_cast<std::size_t>(unit)).layers) layers.push_back(l);
      std::sort(layers.begin(), layers.end());
    }
    // Elastic: what each rank stepped without, and when it merged the late mean.
    for (const LateSync& l : u->late_syncs())
      out.weak.push_back({l.rank, l.iteration, l.merged, cfg.units.at(static_cast<std::size_t>(l.unit)).layers});
    if (cfg.compression.kind == CompressionKind::TopK) {
      // The layers the timed run compressed: those whose synchronization reaches min_bytes.
      const DType value = cfg.parameters ? w.shape.dtype : w.shape.grad_dtype;
      out.compression.topk = true;
      out.compression.ratio = cfg.compression.ratio;
      for (const LayerTraffic& t : layer_traffics(w, value, cfg.compression, static_cast<int>(gpus.size())))
        out.compression.slice_compressed.push_back(t.compressed);
    }
    return out;
  }
  // DDP (with or without overlap): every gradient, every iteration.
  out.mode = SyncValues::Gradients;
  std::vector<int> all = synced_layers(w);
  std::sort(all.begin(), all.end());
  for (auto& it : out.synced) it = all;
  return out;
}

TrainRun run_training(const TrainParams& p, const TrainSchedule& schedule, int ranks) {
  const auto wall0 = std::chrono::steady_clock::now();
  const Dataset data = make_dataset(p);
  std::vector<int> widths = {p.features};
  widths.insert(widths.end(), p.hidden.begin(), p.hidden.end());
  widths.push_back(p.classes);
  const Mlp mlp(widths);
  std::vector<Slice> slices = proportional_slices(schedule.layer_params, mlp.parameters());
  TrainCompression c = schedule.compression;
  c.error_feedback = p.error_feedback;
  Replicas replicas(mlp, data, ranks, p, slices, schedule.mode, c);
  replicas.set_weak_syncs(schedule.weak);

  TrainRun run;
  run.parameters = mlp.parameters();
  run.ranks = ranks;
  run.time_s = schedule.end_s;
  const int n = static_cast<int>(schedule.end_s.size());
  for (int i = 0; i < n; ++i) {
    const Replicas::Step st = replicas.iteration(i, schedule.synced.at(static_cast<std::size_t>(i)));
    run.train_loss.push_back(st.loss);
    if ((i + 1) % p.eval_every != 0 && i != n - 1) continue;
    const Mlp::Sums e = mlp.evaluate(replicas.mean_model(), data.test);
    TrainEvaluation ev{i, schedule.end_s[static_cast<std::size_t>(i)], st.loss, e.loss / data.test.size(),
                       static_cast<double>(e.correct) / data.test.size()};
    run.evaluations.push_back(ev);
    if (run.target_iteration < 0 && ev.accuracy >= p.target_accuracy)
      run.target_iteration = i, run.time_to_target_s = ev.time_s;
  }
  run.slice_syncs = replicas.syncs();
  for (const Slice& s : slices) run.slice_values.push_back(s.size());
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return run;
}

}  // namespace trainvp
