#pragma once
// /workload/layers: an explicit layer list, both ways. load_layer reads one layer; layer_json
// writes a Layer (a zoo model's, an HF import's) in the same form, every field the platform uses
// included, so `trainvp convert` freezes a workload that runs exactly as the original.
#include <cstdint>
#include <string>

#include "models/workload/workload.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// The keys of /workload/layers/* as given.
struct LayerRaw {
  std::string name;
  std::uint64_t params = 0, fwd_bytes = 0, bwd_input_bytes = 0, bwd_weight_bytes = 0, activation_bytes = 0;
  double fwd_flops = -1, bwd_flops = -1, bwd_input_flops = -1, bwd_weight_flops = -1;
  std::int64_t fwd_time = -1, bwd_time = -1, bwd_input_time = -1, bwd_weight_time = -1;
  int kernels = 1;
  int fwd_kernels = -1, bwd_input_kernels = -1, bwd_weight_kernels = -1;  // -1: `kernels`
  // What a zoo or HF layer carries besides its work (`trainvp convert` writes them all).
  Layer::Part part = Layer::Part::Other;
  std::uint64_t tp_fwd_bytes = 0, tp_bwd_bytes = 0;
};
const ParamSet<LayerRaw>& layer_schema();
// /workload/layers/*/tp_replicated.
const ParamSet<Layer::Replicated>& tp_replicated_schema();
// /workload/layers/*/kernel_shapes/{phase}/*: one kernel of an explicit layer.
const ParamSet<Kernel>& kernel_schema();

// Reads the layer `value` at `path`; `resolved` receives its resolved object. Throws ScenarioError
// naming the pointer.
Layer load_layer(const json& value, const std::string& path, DType grad_dtype, json& resolved);

// `l` as a layer object load_layer reads back into the same Layer (the gradient dtype aside,
// which the workload gives).
nlohmann::ordered_json layer_json(const Layer& l);

// `w` as a /workload object of explicit layers: `original`'s shape keys (batch, seq, dtypes,
// functional ...) kept, its model, hf_config or torch_profile replaced by `name`, `layers`,
// `sequence`, a measured `optimizer_time` and, for a transformer, `transformer`.
nlohmann::ordered_json frozen_workload(const Workload& w, const nlohmann::ordered_json& original);

}  // namespace trainvp
