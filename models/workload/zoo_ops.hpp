#pragma once
// Internal to the model zoo: the kernel-level building blocks ("ops") a zoo layer is made of, and
// the one place that turns a list of ops into a Layer's FLOPs, bytes and kernel counts.
//
// Every op is one forward CUDA kernel. Its backward is derived from its kind by fixed rules
// (documented in docs/models.md), so the generators only describe forward structure.
#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/layer.hpp"

namespace trainvp::zoo {

enum class OpKind {
  Gemm,       // weight matmul (Linear, or a convolution as an implicit GEMM): tensor-core bound
  Attention,  // fused (flash) attention: QK^T and AV, no weights
  Memory,     // norms, activations, adds, lookups, pooling, loss: HBM-bandwidth bound, 0 FLOPs
};

// Element counts are per micro-batch; bytes follow from the shape's dtypes.
struct Op {
  OpKind kind = OpKind::Memory;
  double flops = 0;                   // forward FLOPs (only GEMM and attention do tensor-core work)
  double weight_elems = 0;            // parameter elements read by the forward (and by a GEMM's dX)
  double in_elems = 0;                // activations read forward = input-gradient elements written by dX
  double out_elems = 0;               // activations written forward = output-gradient elements read backward
  double saved_elems = 0;             // activations this op keeps alive for backward (each tensor once)
  double bwd_read_elems = 0;          // activations its backward kernels read (may alias another op's)
  std::uint64_t params = 0;           // trainable parameters this op owns
  double grad_elems = 0;              // weight-gradient elements written by dW; 0 means no dW kernel
  bool input_grad = true;             // false when the input needs no gradient (token ids, the image)
  double mat_rows = 0, mat_cols = 0;  // the weight matrix among `params` (GEMM, lookup table)
  int mat_count = 1;                  // how many such matrices (a mixture of experts' stack)
  bool tp_replicated = false;         // tensor parallelism leaves it whole on every rank (norms, adds)
  // Its kernel's shape (docs/models.md#kernels): a GEMM's rows (its m; per expert for a mixture,
  // whose `mat_count` GEMMs run batched), k = mat_rows, n = mat_cols; attention's queries (rows),
  // heads, head width, keys per query and mask; how tensor parallelism splits it (a GEMM: N when
  // column-parallel, K when row-parallel; the rest by their bytes unless tp_replicated).
  double rows = 0;
  double heads = 0, head_dim = 0, keys = 0, samples = 1;
  bool causal = false;
  bool flash = true;  // attention: one fused kernel; false: Megatron's batched GEMMs and softmax
  // A convolution (an implicit GEMM in cuDNN, whose per-shape rates are not the GEMM tiles'): its
  // layer keeps the roofline (docs/models.md#kernels).
  bool convolution = false;
  Kernel::Split split = Kernel::Split::Bytes;
};

// ---- Op constructors (all counts per micro-batch) ----

// y = x W (+ b) over `rows` rows: W is k x n. FLOPs are 2*k*n per row; the bias is fused and
// memory-bound. `shares_input`: a sibling GEMM already saved the same input tensor. Tensor
// parallelism splits its n (column-parallel) unless the generator says K (row-parallel).
Op gemm(double k, double n, double rows, bool bias, bool shares_input = false);
// The same GEMM, row-parallel under tensor parallelism (its k split: an attention output
// projection, an MLP's second GEMM).
Op row_parallel(Op gemm_op);

// A k x k convolution (groups = 1) as an implicit GEMM over the output positions.
struct ConvShape {
  int h = 0, w = 0;  // output spatial size
};
ConvShape conv_out(int h, int w, int kernel, int stride, int pad);
Op conv(int c_in, int c_out, int kernel, int stride, int pad, int h_in, int w_in, double batch, bool bias,
        bool shares_input = false);

// Attention over `tokens` = batch*seq tokens: each query (width q, all heads) attends over
// `keys` keys, 2*2*keys*q FLOPs per token. k and v are kv wide (grouped-query attention: fewer
// key/value heads than query heads; kv = q without it). `heads` query heads, `causal` masked to
// the keys before each query, `flash` as one fused kernel (else Megatron's unfused kernels).
Op attention(double keys, double q, double kv, double tokens, double heads, bool causal, bool flash);

// A mixture of experts' stacked GEMM: `experts` k x n weights, each routed token (rows counts
// every token once per expert it is sent to) multiplied by one of them. Parameters count every
// expert; FLOPs only the routed rows.
Op expert_gemm(double k, double n, double rows, int experts, bool bias, bool shares_input = false);

// LayerNorm / RMSNorm / BatchNorm over `elems` elements with `params` affine parameters.
Op norm(double elems, std::uint64_t params);

// An elementwise op (activation, rotary, pooling, loss) whose backward reads `saved` elements
// that it keeps alive.
Op pointwise(double in, double out, double saved);

// In-place ReLU: its backward reads its output, which is the very tensor the next conv saves,
// so it keeps nothing alive of its own.
Op relu_inplace(double elems);

// A residual (or embedding) sum: reads all its inputs (`in` elements in total), writes `out`.
// It saves nothing: the gradient of a sum is passed through unchanged.
Op add(double in, double out);

// Broadcast-add of a learned tensor (class token, position embedding): it owns `params`.
Op param_add(double in, double out, std::uint64_t params);

// Embedding lookup: gathers `gathered` rows of a `table_rows` x d table. Reads only the gathered
// rows; its weight gradient is the dense table (PyTorch's default for nn.Embedding).
Op lookup(double table_rows, double d, double gathered);

// Softmax cross-entropy over `rows` rows of `classes` logits (fused, one kernel).
Op cross_entropy(double rows, double classes);

// A classifier head: Linear(d, classes) on one feature vector per sample, then the loss.
std::vector<Op> classifier(int d, int classes, double batch);

// Turns a layer's ops into its per-phase work for the shape's dtypes.
Layer make_layer(std::string name, const std::vector<Op>& ops, const WorkloadShape& shape);

// Throws std::invalid_argument("<model>: <message>") unless `ok`.
void require(bool ok, const std::string& model, const std::string& message);

// ---- Architecture hyper-parameters and generators ----

enum class NormKind { LayerNorm, RMSNorm };

// One transformer block (an attention sublayer and an MLP sublayer).
struct BlockConfig {
  int d_model = 0;
  int n_heads = 0;
  int ffn = 0;  // hidden width of the MLP
  NormKind norm = NormKind::LayerNorm;
  bool pre_norm = true;    // GPT-2/Llama/ViT: norm first; BERT: norm after the residual add
  bool bias = true;        // Linear layers have biases
  bool fused_qkv = true;   // one QKV GEMM (GPT-2 c_attn, torchvision in_proj) or three
  bool gated_mlp = false;  // SwiGLU gate/up/down (Llama) instead of fc/GELU/proj
  bool rotary = false;     // rotary position embedding applied to q and k (no parameters)
  // Hugging Face architectures beyond the zoo's (hf_config.cpp); the defaults are the zoo's.
  int n_kv_heads = 0;  // key/value heads (grouped-query attention); 0: n_heads
  int head_dim = 0;    // width of one head; 0: d_model / n_heads
  int window = 0;      // sliding-window attention: keys per query at most this; 0: all
  int mlp_bias = -1;   // MLP Linear biases: -1 as `bias`, else 0 or 1
  int experts = 0;     // mixture of experts: expert MLPs per layer (0: one dense MLP)
  int top_k = 0;       // experts each token is routed to
  bool causal = true;  // decoder attention (GPT, Llama); encoders (BERT, ViT) attend both ways
};

enum class HeadKind {
  TiedLm,    // LM head sharing the token embedding: 0 params of its own, still 2*d*V FLOPs/token
  UntiedLm,  // LM head with its own V x d weight
  Pooler,    // BERT pooler: dense + tanh on the [CLS] token
};

struct TransformerConfig {
  BlockConfig block;
  int n_layers = 0;
  int vocab = 0;
  int max_positions = 0;    // longest sequence; learned position tables have this many rows
  int token_types = 0;      // BERT segment embeddings (0: none)
  bool embed_norm = false;  // LayerNorm after the embedding sum (BERT)
  std::string final_norm;   // name of the final norm layer ("ln_f", "norm"); empty: none
  HeadKind head = HeadKind::TiedLm;
  std::string head_name;  // "lm_head", "pooler"
};

struct VitConfig {
  BlockConfig block;
  int n_layers = 0;
  int patch = 0;
  int channels = 3;
  int classes = 1000;
};

struct ResNetConfig {
  std::vector<int> blocks;  // bottleneck blocks per stage, e.g. {3, 4, 6, 3}
  int base_width = 64;      // width of stage 1; doubles per stage
  int expansion = 4;        // bottleneck output = expansion * width
  int channels = 3;
  int classes = 1000;
};

// Each throws std::invalid_argument (naming `model`) for a shape the architecture cannot run.
std::vector<Layer> build_transformer(const std::string& model, const TransformerConfig& cfg,
                                     const WorkloadShape& shape);
std::vector<Layer> build_vit(const std::string& model, const VitConfig& cfg, const WorkloadShape& shape);
std::vector<Layer> build_resnet(const std::string& model, const ResNetConfig& cfg, const WorkloadShape& shape);

}  // namespace trainvp::zoo
