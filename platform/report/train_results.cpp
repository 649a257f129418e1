#include "platform/report/train_results.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "platform/core/units.hpp"

namespace trainvp {

namespace {

using ojson = nlohmann::ordered_json;

ojson or_null(double v) { return v < 0 ? ojson(nullptr) : ojson(v); }

}  // namespace

void add_train_results(ojson& j, const Simulation& sim) {
  const TrainRun* t = sim.train();
  if (!t) return;
  const TrainParams& p = sim.scenario().train.params;
  ojson evals = ojson::array();
  for (const TrainEvaluation& e : t->evaluations)
    evals.push_back({{"iteration", e.iteration},
                     {"time_s", e.time_s},
                     {"train_loss", e.train_loss},
                     {"loss", e.loss},
                     {"accuracy", e.accuracy}});
  ojson slices = ojson::array();
  const Workload& w = sim.scenario().workload;
  for (std::size_t l = 0; l < t->slice_values.size(); ++l)
    if (w.layers[l].params > 0)
      slices.push_back({{"layer", w.layers[l].name}, {"values", t->slice_values[l]}, {"syncs", t->slice_syncs[l]}});
  const TrainEvaluation& last = t->evaluations.back();
  double best = 0;
  for (const TrainEvaluation& e : t->evaluations) best = std::max(best, e.accuracy);
  j["train"] = {{"parameters", t->parameters},
                {"ranks", t->ranks},
                {"global_batch", t->ranks * p.batch},
                {"target_accuracy", p.target_accuracy},
                {"time_to_target_s", or_null(t->time_to_target_s)},
                {"iterations_to_target", t->target_iteration < 0 ? ojson(nullptr) : ojson(t->target_iteration + 1)},
                {"final_accuracy", last.accuracy},
                {"final_loss", last.loss},
                {"best_accuracy", best},
                {"evaluations", evals},
                {"slices", slices}};
}

std::string train_csv(const Simulation& sim) {
  const TrainRun* t = sim.train();
  if (!t) return "";
  std::ostringstream csv;
  csv << "iteration,time_s,train_loss,loss,accuracy\n";
  std::size_t e = 0;
  for (std::size_t i = 0; i < t->train_loss.size(); ++i) {
    csv << i << ',' << ojson(t->time_s[i]).dump() << ',' << ojson(t->train_loss[i]).dump();
    if (e < t->evaluations.size() && t->evaluations[e].iteration == static_cast<int>(i))
      csv << ',' << ojson(t->evaluations[e].loss).dump() << ',' << ojson(t->evaluations[e].accuracy).dump(), ++e;
    else csv << ",,";
    csv << '\n';
  }
  return csv.str();
}

std::string train_summary(const Simulation& sim) {
  const TrainRun* t = sim.train();
  if (!t) return "";
  const TrainParams& p = sim.scenario().train.params;
  const TrainEvaluation& last = t->evaluations.back();
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "  train            MLP of %llu parameters on %d ranks: accuracy %.4f, loss %.4f after %d iterations (%s)\n",
      static_cast<unsigned long long>(t->parameters), t->ranks, last.accuracy, last.loss, last.iteration + 1,
      format_time_s(last.time_s).c_str());
  std::string out = buf;
  if (t->time_to_target_s >= 0)
    std::snprintf(buf, sizeof buf, "  time to accuracy %.4f reached at iteration %d, %s simulated\n", p.target_accuracy,
                  t->target_iteration + 1, format_time_s(t->time_to_target_s).c_str());
  else
    std::snprintf(buf, sizeof buf, "  time to accuracy %.4f not reached in %zu iterations\n", p.target_accuracy,
                  t->train_loss.size());
  return out + buf;
}

}  // namespace trainvp
