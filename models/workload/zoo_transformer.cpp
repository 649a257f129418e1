// Transformer generators: GPT-2, BERT and Llama (build_transformer) and ViT (build_vit) share
// one block generator, parameterized by BlockConfig.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "models/workload/zoo_ops.hpp"

namespace trainvp::zoo {
namespace {

std::uint64_t norm_params(NormKind kind, int d) {
  const auto width = static_cast<std::uint64_t>(d);
  return kind == NormKind::LayerNorm ? 2 * width : width;  // LayerNorm: weight + bias
}

// The tokens of one micro-batch: `seq` per sample, `total` = batch * seq.
struct Tokens {
  double seq;
  double total;
};

Op block_norm(const BlockConfig& b, Tokens t) { return norm(b.d_model * t.total, norm_params(b.norm, b.d_model)); }

// Query and key/value widths: all heads, or fewer key/value heads (grouped-query attention).
double q_width(const BlockConfig& b) {
  const double head = b.head_dim > 0 ? b.head_dim : static_cast<double>(b.d_model) / b.n_heads;
  return head * b.n_heads;
}
double kv_width(const BlockConfig& b) { return q_width(b) / b.n_heads * (b.n_kv_heads > 0 ? b.n_kv_heads : b.n_heads); }

// norm (pre-norm) -> QKV -> [rotary] -> attention -> output projection -> residual add
// -> norm (post-norm).
std::vector<Op> attn_ops(const BlockConfig& b, Tokens t, bool flash) {
  const double d = b.d_model;
  const double q = q_width(b), kv = kv_width(b);
  const double n = t.total;
  std::vector<Op> ops;
  if (b.pre_norm) ops.push_back(block_norm(b, t));
  if (b.fused_qkv) {
    ops.push_back(gemm(d, q + 2 * kv, n, b.bias));
  } else {
    ops.push_back(gemm(d, q, n, b.bias));
    for (int i = 0; i < 2; ++i) ops.push_back(gemm(d, kv, n, b.bias, /*shares_input=*/true));
  }
  // Rotary rewrites q and k; its backward needs only the cos/sin tables.
  if (b.rotary) ops.push_back(pointwise((q + kv) * n, (q + kv) * n, 0));
  // A sliding window bounds the keys each query attends over.
  const double keys = b.window > 0 && b.window < t.seq ? b.window : t.seq;
  Op attn = attention(keys, q, kv, n, b.n_heads, b.causal, flash);
  attn.samples = t.total / t.seq;
  ops.push_back(attn);
  ops.push_back(row_parallel(gemm(q, d, n, b.bias)));
  ops.push_back(add(2 * d * n, d * n));
  if (!b.pre_norm) ops.push_back(block_norm(b, t));
  return ops;
}

// A mixture of experts (Mixtral): the router scores every token over the experts, each token
// goes through its top-k experts' SwiGLU MLPs, and their outputs are summed by router weight.
void moe_ops(std::vector<Op>& ops, const BlockConfig& b, double n, bool bias) {
  const double d = b.d_model, f = b.ffn, e = b.experts;
  const double routed = n * b.top_k;  // token copies, one per chosen expert
  ops.push_back(gemm(d, e, n, /*bias=*/false));
  ops.push_back(pointwise(e * n, e * n, e * n));  // softmax and top-k; backward reads the scores
  ops.push_back(expert_gemm(d, f, routed, b.experts, bias));
  ops.push_back(expert_gemm(d, f, routed, b.experts, bias, /*shares_input=*/true));
  ops.push_back(pointwise(2 * f * routed, f * routed, 2 * f * routed));  // SiLU(gate) * up
  ops.push_back(row_parallel(expert_gemm(f, d, routed, b.experts, bias)));
  // The weighted sum keeps the expert outputs for the router weights' gradient.
  ops.push_back(pointwise(d * routed, d * n, d * routed));
}

// norm (pre-norm) -> fc -> GELU -> proj, or gate/up -> SiLU*mul -> down (gated), or the
// experts -> residual add -> norm (post-norm).
std::vector<Op> mlp_ops(const BlockConfig& b, Tokens t) {
  const double d = b.d_model;
  const double f = b.ffn;
  const double n = t.total;
  const bool bias = b.mlp_bias < 0 ? b.bias : b.mlp_bias == 1;
  std::vector<Op> ops;
  if (b.pre_norm) ops.push_back(block_norm(b, t));
  if (b.experts > 0) {
    moe_ops(ops, b, n, bias);
  } else if (b.gated_mlp) {
    ops.push_back(gemm(d, f, n, bias));
    ops.push_back(gemm(d, f, n, bias, /*shares_input=*/true));
    ops.push_back(pointwise(2 * f * n, f * n, 2 * f * n));  // SiLU(gate) * up, fused
  } else {
    ops.push_back(gemm(d, f, n, bias));
    ops.push_back(pointwise(f * n, f * n, f * n));  // GELU saves its input
  }
  if (b.experts == 0) ops.push_back(row_parallel(gemm(f, d, n, bias)));
  ops.push_back(add(2 * d * n, d * n));
  if (!b.pre_norm) ops.push_back(block_norm(b, t));
  return ops;
}

// The b·s·h activation tensor a TP group all-reduces (Megatron: after the row-parallel GEMM in
// forward, for the column-parallel input's gradient in backward).
std::uint64_t hidden_bytes(const BlockConfig& b, Tokens t, const WorkloadShape& shape) {
  return static_cast<std::uint64_t>(std::llround(t.total * b.d_model)) * dtype_bytes(shape.dtype);
}

void append_blocks(std::vector<Layer>& layers, const BlockConfig& b, int n_layers, Tokens t,
                   const WorkloadShape& shape) {
  const std::uint64_t tp_bytes = hidden_bytes(b, t, shape);
  for (int i = 0; i < n_layers; ++i) {
    const std::string prefix = "h" + std::to_string(i);
    for (bool attn : {true, false}) {
      Layer l = make_layer(prefix + (attn ? ".attn" : ".mlp"),
                           attn ? attn_ops(b, t, shape.flash_attention) : mlp_ops(b, t), shape);
      l.part = attn ? Layer::Part::Attention : Layer::Part::Mlp;
      l.tp_fwd_bytes = l.tp_bwd_bytes = tp_bytes;
      layers.push_back(std::move(l));
    }
  }
}

// Token lookup, learned positions (unless rotary), token types, their sum, optional LayerNorm.
std::vector<Op> embed_ops(const TransformerConfig& c, Tokens t) {
  const double d = c.block.d_model;
  std::vector<Op> ops{lookup(c.vocab, d, t.total)};
  double summed = d * t.total;
  if (!c.block.rotary) {
    // Position ids are 0..seq-1 for every sample: seq rows, broadcast over the batch.
    ops.push_back(lookup(c.max_positions, d, t.seq));
    summed += d * t.seq;
  }
  if (c.token_types > 0) {
    ops.push_back(lookup(c.token_types, d, t.total));
    summed += d * t.total;
  }
  if (ops.size() > 1) ops.push_back(add(summed, d * t.total));
  if (c.embed_norm) ops.push_back(block_norm(c.block, t));
  return ops;
}

std::vector<Op> head_ops(const TransformerConfig& c, double batch, Tokens t) {
  const double d = c.block.d_model;
  const double vocab = c.vocab;
  switch (c.head) {
    case HeadKind::TiedLm: {
      // The weight (and its parameter count) belongs to the token embedding; the head still
      // does the matmul and computes its share of the tied weight's gradient.
      Op logits = gemm(d, vocab, t.total, /*bias=*/false);
      logits.params = 0;
      return {logits, cross_entropy(t.total, vocab)};
    }
    case HeadKind::UntiedLm: return {gemm(d, vocab, t.total, /*bias=*/false), cross_entropy(t.total, vocab)};
    case HeadKind::Pooler:
      // Dense + tanh on the first ([CLS]) token of each sample; tanh saves its output.
      return {gemm(d, d, batch, /*bias=*/true), pointwise(d * batch, d * batch, d * batch)};
  }
  return {};
}

// torchvision's VisionTransformer: conv_proj (patch x patch, stride patch), class token
// prepended, position embedding added. The position table has one row per token, so its size
// follows image_size (torchvision builds it from image_size too).
std::vector<Op> patch_embed_ops(const VitConfig& c, int image_size, double batch) {
  const double d = c.block.d_model;
  const int grid = image_size / c.patch;
  const double patches = static_cast<double>(grid) * grid;
  const double tokens = patches + 1;
  Op proj = conv(c.channels, c.block.d_model, c.patch, c.patch, 0, image_size, image_size, batch,
                 /*bias=*/true);
  proj.input_grad = false;  // the image needs no gradient
  return {
      proj, param_add(d * patches * batch, d * tokens * batch, c.block.d_model),                   // class token
      param_add(d * tokens * batch, d * tokens * batch, static_cast<std::uint64_t>(d * tokens))};  // position embedding
}

}  // namespace

std::vector<Layer> build_transformer(const std::string& model, const TransformerConfig& c, const WorkloadShape& shape) {
  require(shape.batch >= 1, model, "batch must be >= 1, got " + std::to_string(shape.batch));
  require(shape.seq >= 1, model, "seq must be >= 1, got " + std::to_string(shape.seq));
  require(shape.seq <= c.max_positions, model,
          "seq " + std::to_string(shape.seq) + " exceeds the model's maximum of " + std::to_string(c.max_positions) +
              " positions");
  const double batch = shape.batch;
  const Tokens t{static_cast<double>(shape.seq), batch * shape.seq};

  std::vector<Layer> layers;
  layers.push_back(make_layer("embed", embed_ops(c, t), shape));
  // The vocabulary-parallel lookup ends with an all-reduce of its partial embeddings.
  layers.back().tp_fwd_bytes = hidden_bytes(c.block, t, shape);
  append_blocks(layers, c.block, c.n_layers, t, shape);
  if (!c.final_norm.empty()) {
    layers.push_back(make_layer(c.final_norm, {block_norm(c.block, t)}, shape));
  }
  layers.push_back(make_layer(c.head_name, head_ops(c, batch, t), shape));
  // A column-parallel LM head (with its vocabulary-parallel loss) needs no forward all-reduce;
  // its input's gradient is summed over the TP group in backward.
  if (c.head != HeadKind::Pooler) layers.back().tp_bwd_bytes = hidden_bytes(c.block, t, shape);
  return layers;
}

std::vector<Layer> build_vit(const std::string& model, const VitConfig& c, const WorkloadShape& shape) {
  require(shape.batch >= 1, model, "batch must be >= 1, got " + std::to_string(shape.batch));
  require(shape.image_size >= c.patch && shape.image_size % c.patch == 0, model,
          "image_size must be a positive multiple of the patch size " + std::to_string(c.patch) + ", got " +
              std::to_string(shape.image_size));
  const double batch = shape.batch;
  const int grid = shape.image_size / c.patch;
  const double seq = static_cast<double>(grid) * grid + 1;  // patches + class token
  const Tokens t{seq, batch * seq};

  std::vector<Layer> layers;
  layers.push_back(make_layer("patch_embed", patch_embed_ops(c, shape.image_size, batch), shape));
  append_blocks(layers, c.block, c.n_layers, t, shape);
  layers.push_back(make_layer("ln", {block_norm(c.block, t)}, shape));  // over all tokens
  // The head reads the class token only.
  layers.push_back(make_layer("head", classifier(c.block.d_model, c.classes, batch), shape));
  return layers;
}

}  // namespace trainvp::zoo
