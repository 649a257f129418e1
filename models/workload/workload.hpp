#pragma once
// What every GPU of a data-parallel job runs: the layers of one replica and how it trains them.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "models/workload/layer.hpp"

namespace trainvp {

enum class OptimizerKind { Adam, Sgd, None };

// A transformer's hyper-parameters, for the closed forms of DOMAIN.md section 7 (activation
// memory, model FLOPs). Zero for other models.
struct TransformerDims {
  int layers = 0;  // l: transformer layers (each an Attention and an Mlp Layer)
  int hidden = 0;  // h
  int heads = 0;   // a
  int vocab = 0;   // V
  bool valid() const { return layers > 0 && hidden > 0 && heads > 0; }
};

// The zoo model's transformer dimensions (aliases accepted); zero for other models and unknown names.
TransformerDims zoo_transformer_dims(const std::string& name);

struct Workload {
  std::string model;          // zoo name, "hf:NAME" for a Hugging Face config, or explicit layers' name ("custom")
  std::string convention;     // what the parameter count counts (zoo and HF models), for describe
  std::vector<Layer> layers;  // forward order
  WorkloadShape shape;
  int micro_batches = 1;  // gradient accumulation steps per iteration
  bool sequence_model = false;
  OptimizerKind optimizer = OptimizerKind::Adam;
  TransformerDims dims;      // transformer zoo models only
  int optimizer_shards = 1;  // ZeRO: the optimizer step updates 1/d of the parameters held
  // A measured optimizer step of the whole replica (a profiler trace's, or given); >= 0 replaces
  // the roofline's estimate (divided by optimizer_shards under ZeRO).
  std::int64_t optimizer_time_ps = -1;

  std::uint64_t total_params() const {
    return std::accumulate(layers.begin(), layers.end(), std::uint64_t{0},
                           [](std::uint64_t s, const Layer& l) { return s + l.params; });
  }
  std::uint64_t total_grad_bytes() const {
    return std::accumulate(layers.begin(), layers.end(), std::uint64_t{0},
                           [](std::uint64_t s, const Layer& l) { return s + l.grad_bytes; });
  }
  // Samples one replica processes per iteration.
  std::uint64_t samples_per_iteration() const {
    return static_cast<std::uint64_t>(shape.batch) * static_cast<std::uint64_t>(micro_batches);
  }
};

}  // namespace trainvp
