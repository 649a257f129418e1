#pragma once
// /workload/train: real training in the loop (models/train, docs/strategies.md#time-to-accuracy).
// Off unless the key is present.
#include "models/train/train_params.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct TrainConfig {
  bool enabled = false;
  TrainParams params;
};

struct Scenario;

// Reads /workload/train (`value`) into `t`, hidden widths included. Returns the resolved object;
// throws ScenarioError naming the pointer.
json load_train(TrainConfig& t, const json& value);

// The rules across sections, once /training is loaded: a training workload without hybrid
// parallelism, a strategy whose real semantics are modelled, at least one sample per rank.
void check_train(const Scenario& s);

}  // namespace trainvp
