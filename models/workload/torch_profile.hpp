#pragma once
// PyTorch profiler traces as workloads: a Chrome trace of one training step on one device, as
// torch.profiler exports it (Kineto's event shape), turned into a layer table with measured times.
// docs/workloads.md says what is read and how each time is attributed.
//
// - Layers: record_function ranges named "layer:NAME" or, when there are none, the nn.Module ranges
//   (with_stack=True) just inside the outermost module; in the order they start.
// - Forward time: the range's duration, or with GPU kernels in the trace, the kernels launched by
//   the operators inside it.
// - Backward time: the autograd functions ("autograd::engine::evaluate_function: X") whose
//   "Sequence number" is that of a forward operator inside the layer's range (how the profiler
//   itself pairs forward and backward); with kernels, theirs.
// - Parameters: the weight and bias inputs ("Input Dims", record_shapes=True) of the operators that
//   take parameters (linear, embedding, convolutions, norms).
// - Optimizer step: the "Optimizer.step#..." ranges.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/dtype.hpp"
#include "models/workload/layer.hpp"

namespace trainvp {

struct TorchProfile {
  struct LayerTimes {
    std::string name;
    std::uint64_t params = 0;
    std::vector<Layer::Matrix> matrices;
    std::int64_t fwd_ps = 0, bwd_ps = 0;
    int fwd_ops = 0, bwd_ops = 0;  // operators (or kernels) whose time was summed
  };
  std::vector<LayerTimes> layers;
  std::int64_t optimizer_ps = -1;        // -1: no Optimizer.step range (the roofline estimates it)
  std::int64_t unattributed_bwd_ps = 0;  // autograd work outside every layer (the loss, AccumulateGrad)
  bool gpu_kernels = false;              // times are kernel times, not operator ranges
  std::string layers_from;               // "record_function" or "nn.Module"
};

// Reads a trace (an array of events, or an object with "traceEvents"). Throws ScenarioError
// naming the JSON pointer inside the trace of the first malformed event, or "" for a trace that
// holds no layers.
TorchProfile parse_torch_profile(const nlohmann::json& trace);

// The layer table: measured forward and backward times (backward split evenly into dX and dW, as
// an explicit layer's bwd_time is), parameters and gradient bytes in `grad_dtype`.
std::vector<Layer> torch_profile_layers(const TorchProfile& profile, DType grad_dtype);

}  // namespace trainvp
