#pragma once
// Parameters of the real training that runs beside a timed run (/workload/train,
// docs/strategies.md#time-to-accuracy): a seeded synthetic classification data set, the MLP that
// learns it, SGD, and how often the model is evaluated. Defaults are ours (no paper fixes them).
#include <cstdint>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

struct TrainParams {
  // Data: a Gaussian mixture, `clusters` centres per class drawn N(0, I) in `features`
  // dimensions, each sample a centre plus N(0, noise^2 I).
  int features = 64;
  int classes = 10;
  int clusters = 4;
  double noise = 2.0;
  int train_samples = 32768;  // split into equal shards, one per rank
  int test_samples = 2048;
  std::uint64_t seed = 1;  // data and initial weights
  // The MLP: features -> hidden[0] -> ... -> classes, ReLU between, softmax cross-entropy.
  std::vector<int> hidden{512, 256};
  // SGD on each rank: m = momentum m + g; w -= lr m.
  double lr = 0.0625;
  double momentum = 0;
  int batch = 16;  // samples per rank per iteration
  // Evaluation of the ranks' mean model on the test set, every `eval_every` iterations and at the last.
  int eval_every = 10;
  double target_accuracy = 0.8;
  bool error_feedback = true;  // topk: what a rank does not send is added to its next values
};

const ParamSet<TrainParams>& train_schema();

// Parameters of an MLP of these sizes (weights and biases).
std::uint64_t mlp_parameters(int features, const std::vector<int>& hidden, int classes);

}  // namespace trainvp
