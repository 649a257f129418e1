#include "models/train/train_params.hpp"

namespace trainvp {

const ParamSet<TrainParams>& train_schema() {
  static const ParamSet<TrainParams> s = [] {
    ParamSet<TrainParams> p(
        "train", "/workload/train",
        "Real training in the loop (docs/strategies.md#time-to-accuracy): a small MLP trained on a "
        "seeded synthetic data set split across the ranks, every strategy applying its semantics to "
        "the real values, each iteration ending at the timed run's simulated time.");
    p.integer("features", &TrainParams::features, 64, "Input features of the synthetic data", {1, 4096})
        .integer("classes", &TrainParams::classes, 10, "Classes", {2, 1000})
        .integer("clusters", &TrainParams::clusters, 4, "Gaussian centres per class", {1, 1000})
        .number("noise", &TrainParams::noise, 2.0,
                "Standard deviation of a sample around its centre (centres: N(0, 1))", Range::positive())
        .integer("train_samples", &TrainParams::train_samples, 32768,
                 "Training samples, split into equal contiguous shards, one per rank", {1, 1 << 24})
        .integer("test_samples", &TrainParams::test_samples, 2048, "Test samples", {1, 1 << 24})
        .integer64("seed", &TrainParams::seed, 1, "Seed of the data set and the initial weights")
        .nested("hidden", "array", nlohmann::json::array({512, 256}), "Hidden layer widths, in order (may be empty)")
        .number("lr", &TrainParams::lr, 0.0625, "SGD learning rate", Range::positive())
        .number("momentum", &TrainParams::momentum, 0.0, "SGD momentum (local to each rank)", {0, 0.999})
        .integer("batch", &TrainParams::batch, 16, "Samples per rank per iteration", {1, 1 << 20})
        .integer(
            "eval_every", &TrainParams::eval_every, 10,
            "Iterations between evaluations of the ranks' mean model on the test set (the last is always evaluated)",
            Range::at_least(1))
        .number("target_accuracy", &TrainParams::target_accuracy, 0.8,
                "Test accuracy whose first evaluation reaching it gives time_to_target_s", {0, 1})
        .flag("error_feedback", &TrainParams::error_feedback, true,
              "topk: each rank adds what it did not send to its next values (as top-k SGD implementations do)");
    return p;
  }();
  return s;
}

std::uint64_t mlp_parameters(int features, const std::vector<int>& hidden, int classes) {
  std::uint64_t total = 0;
  int in = features;
  for (int h : hidden) total += static_cast<std::uint64_t>(in) * h + h, in = h;
  return total + static_cast<std::uint64_t>(in) * classes + classes;
}

}  // namespace trainvp
