#include "platform/config/train.hpp"

#include "platform/config/scenario.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

json load_train(TrainConfig& t, const json& value) {
  const std::string path = "/workload/train";
  json resolved = train_schema().load(t.params, value, path);
  if (const json& h = member(value, "hidden"); !h.is_null()) {
    if (!h.is_array()) fail_expected(ptr_join(path, "hidden"), "an array of layer widths", h);
    t.params.hidden.clear();
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (!h[i].is_number_integer() || h[i].get<long long>() < 1 || h[i].get<long long>() > 65536)
        fail_expected(ptr_join(ptr_join(path, "hidden"), i), "a width in [1, 65536]", h[i]);
      t.params.hidden.push_back(h[i].get<int>());
    }
  }
  resolved["hidden"] = t.params.hidden;
  // The replicas hold ranks x parameters floats: keep one replica under 2^26 values (256 MiB).
  if (mlp_parameters(t.params.features, t.params.hidden, t.params.classes) > (1ull << 26))
    fail_expected(ptr_join(path, "hidden"),
                  "widths giving at most 2^26 parameters (" +
                      std::to_string(mlp_parameters(t.params.features, t.params.hidden, t.params.classes)) + " asked)",
                  resolved["hidden"]);
  t.enabled = true;
  return resolved;
}

void check_train(const Scenario& s) {
  if (!s.train.enabled) return;
  if (!s.trains())
    throw ScenarioError("/workload/train",
                        "real training needs a training workload, not a collective benchmark or Chakra traces");
  if (s.training.parallel.enabled)
    throw ScenarioError("/workload/train", "real training models data parallelism only: remove /training/parallel");
  if (s.training.sync.compression.kind == CompressionKind::PowerSgd)
    fail_expected("/training/sync/compression/kind",
                  "\"none\" or \"topk\" with /workload/train (PowerSGD's numerics are not modelled)", json("powersgd"));
  const int ranks = static_cast<int>(s.cluster.gpus.size());
  if (s.train.params.train_samples < ranks)
    fail_expected("/workload/train/train_samples", "at least one sample per rank (" + std::to_string(ranks) + ")",
                  json(s.train.params.train_samples));
}

}  // namespace trainvp
