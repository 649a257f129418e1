#pragma once
// One layer of a training workload, as the GPU model executes it and as synchronization
// strategies see it. Quantities are for ONE micro-batch on ONE GPU (data parallel replica).
#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/dtype.hpp"
#include "models/workload/kernel.hpp"

namespace trainvp {

struct Layer {
  std::string name;          // e.g. "h3.attn", "layer2.1", "embed"
  std::uint64_t params = 0;  // trainable parameters owned by this layer (gradient elements)

  // Work per micro-batch. Backward is split into the input-gradient (dX) half and the
  // weight-gradient (dW) half; the layer's gradient is ready when dW is done.
  double fwd_flops = 0;
  double bwd_input_flops = 0;
  double bwd_weight_flops = 0;

  // HBM traffic of the kernels of each phase (bytes), for the roofline's memory term.
  double fwd_bytes = 0;
  double bwd_input_bytes = 0;
  double bwd_weight_bytes = 0;

  // Activations kept from forward for backward (bytes), and the gradient buffer size.
  std::uint64_t activation_bytes = 0;
  std::uint64_t grad_bytes = 0;  // params * dtype_bytes(grad dtype)

  // The weight matrices among the parameters (rows x cols: a Linear's in x out, a convolution's
  // (c_in k k) x c_out, an embedding's table rows x width). Zoo layers list them;
  // the rest of `params` are vectors (biases, norms). Gradient compression (PowerSGD) uses them.
  struct Matrix {
    std::uint64_t rows = 0, cols = 0;
  };
  std::vector<Matrix> matrices;

  // Kernel launches per phase (each pays the GPU's launch overhead).
  int fwd_kernels = 1;
  int bwd_input_kernels = 1;
  int bwd_weight_kernels = 1;
  // The phases' kernels with their shapes, which the kernel model times one by one (zoo and
  // Hugging Face layers; explicit lists may give them). Empty: the roofline of the sums above.
  PhaseKernels kernels;

  // Tensor parallelism (Megatron). The part of each phase's work a TP split leaves whole on every
  // TP rank (norms, residual adds: split only with sequence parallelism); the rest (GEMMs,
  // attention, vocabulary-parallel lookups and losses, activations on the split width) divides
  // by t. Zoo layers fill it; explicit layer lists leave it 0 (all split).
  struct Replicated {
    double fwd_flops = 0, bwd_input_flops = 0, bwd_weight_flops = 0;
    double fwd_bytes = 0, bwd_input_bytes = 0, bwd_weight_bytes = 0;
  };
  Replicated tp_replicated;
  // The TP group's activation all-reduce this layer's forward ends with (the row-parallel output
  // of attention and MLP; the vocabulary-parallel embedding) and its backward's input-gradient
  // all-reduce (the column-parallel input), bytes per micro-batch (b·s·h·dtype); 0: none.
  std::uint64_t tp_fwd_bytes = 0;
  std::uint64_t tp_bwd_bytes = 0;
  // Which half of a transformer layer this is, for the activation-memory formula.
  enum class Part { Other, Attention, Mlp };
  Part part = Part::Other;

  // Measured phase times in picoseconds; when >= 0 they replace the roofline estimate
  // (still scaled by the GPU's speed factor). Set only by explicit JSON layer lists.
  std::int64_t fwd_time_ps = -1;
  std::int64_t bwd_input_time_ps = -1;
  std::int64_t bwd_weight_time_ps = -1;
};

// The shape of the work: what the zoo needs to turn hyper-parameters into per-layer numbers.
struct WorkloadShape {
  int batch = 1;                   // samples per micro-batch per GPU
  int seq = 1024;                  // tokens per sample (sequence models)
  int image_size = 224;            // pixels per side (vision models)
  DType dtype = DType::BF16;       // activations/weights in compute
  DType grad_dtype = DType::BF16;  // gradients as communicated
  // Attention as one fused kernel that never stores the score matrix (FlashAttention-2, the
  // default), or as Megatron-LM's kernels of 2021-22: two batched GEMMs around a fused
  // scale-mask-softmax and a dropout, keeping the probabilities for backward (docs/models.md#kernels).
  bool flash_attention = true;
};

struct ZooModelInfo {
  std::string name;                // "gpt2-xl"
  std::string family;              // "gpt2", "bert", "resnet", "vit", "llama"
  bool sequence_model;             // tokens_per_s is meaningful
  std::uint64_t reference_params;  // published parameter count under `convention`
  std::string convention;          // e.g. "LM head tied to token embedding"
  std::string description;
  int max_seq = 0;  // longest sequence the position table allows; 0: not a sequence model
};

// Models the zoo can generate, in a stable order.
const std::vector<ZooModelInfo>& zoo_models();
// The zoo's own name for `name`: aliases in common use ("gpt2" for "gpt2-small") map to the
// entry's name; any other string is returned unchanged.
std::string zoo_canonical_name(const std::string& name);
// nullptr when unknown. Accepts the aliases of zoo_canonical_name.
const ZooModelInfo* find_zoo_model(const std::string& name);
// Generates the layer list (forward order, input side first) from the architecture's
// hyper-parameters (aliases accepted). Throws std::invalid_argument for an unknown name or a bad shape.
std::vector<Layer> build_zoo_model(const std::string& name, const WorkloadShape& shape);

}  // namespace trainvp
