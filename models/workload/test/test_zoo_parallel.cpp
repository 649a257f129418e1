// The zoo's large GPTs and the tensor-parallel facts its layers carry (Layer::tp_replicated,
// tp_fwd_bytes, tp_bwd_bytes, part; Workload dims), against closed forms.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/workload.hpp"

namespace trainvp {
namespace test_zoo_parallel {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// GPT-2's architecture: per layer 12h^2 (QKV, projection, fc, proj weights) + 13h (their biases
// 3h + h + 4h + h and two LayerNorms 4h); token and position tables (V + s)h; final LayerNorm 2h.
std::uint64_t gpt2_closed_form(std::uint64_t l, std::uint64_t h, std::uint64_t V, std::uint64_t s) {
  return 12 * l * h * h + 13 * l * h + (V + s) * h + 2 * h;
}

std::uint64_t params_of(const std::string& model) {
  WorkloadShape shape;
  shape.seq = 16;
  std::uint64_t sum = 0;
  for (const Layer& l : build_zoo_model(model, shape)) sum += l.params;
  return sum;
}

TEST(ZooLargeGpt, Gpt2_40bIsTheClosedFormAtItsAssumedShape) {
  EXPECT_EQ(params_of("gpt2-40b"), gpt2_closed_form(48, 8192, 50257, 2048));
  EXPECT_EQ(find_zoo_model("gpt2-40b")->reference_params, gpt2_closed_form(48, 8192, 50257, 2048));
  EXPECT_EQ(find_zoo_model("gpt2-40b")->max_seq, 2048);
}

TEST(ZooLargeGpt, Gpt3_175bIsTheClosedFormWithinHalfAPercentOfThePublished175B) {
  const std::uint64_t ours = params_of("gpt3-175b");
  EXPECT_EQ(ours, gpt2_closed_form(96, 12288, 50257, 2048));
  EXPECT_EQ(find_zoo_model("gpt3-175b")->reference_params, 175000000000ULL);
  EXPECT_NEAR(static_cast<double>(ours) / 175e9, 1.0, 0.005);
}

TEST(ZooLargeGpt, TransformerDimsByName) {
  const TransformerDims d = zoo_transformer_dims("gpt3-175b");
  EXPECT_EQ(d.layers, 96);
  EXPECT_EQ(d.hidden, 12288);
  EXPECT_EQ(d.heads, 96);
  EXPECT_EQ(d.vocab, 50257);
  EXPECT_EQ(zoo_transformer_dims("gpt2").hidden, 768);  // aliases resolve
  EXPECT_EQ(zoo_transformer_dims("llama2-7b").heads, 32);
  EXPECT_FALSE(zoo_transformer_dims("resnet50").valid());
  EXPECT_FALSE(zoo_transformer_dims("vit-b16").valid());
}

TEST(ZooTensorParallel, AllReduceBytesAreBshPerHalfEmbeddingForwardAndHeadBackward) {
  WorkloadShape shape;
  shape.batch = 3;
  shape.seq = 128;
  const std::uint64_t bsh = 3 * 128 * 768 * 2;  // bf16
  for (const Layer& l : build_zoo_model("gpt2-small", shape)) {
    const bool half = l.name.find(".attn") != std::string::npos || l.name.find(".mlp") != std::string::npos;
    const std::uint64_t fwd = half || l.name == "embed" ? bsh : 0;
    const std::uint64_t bwd = half || l.name == "lm_head" ? bsh : 0;
    EXPECT_EQ(l.tp_fwd_bytes, fwd) << l.name;
    EXPECT_EQ(l.tp_bwd_bytes, bwd) << l.name;
    const Layer::Part part = l.name.find(".attn") != std::string::npos  ? Layer::Part::Attention
                             : l.name.find(".mlp") != std::string::npos ? Layer::Part::Mlp
                                                                        : Layer::Part::Other;
    EXPECT_EQ(l.part, part) << l.name;
  }
  // BERT's pooler is no vocabulary-parallel head: no backward all-reduce.
  shape.seq = 64;
  const std::vector<Layer> bert = build_zoo_model("bert-base", shape);
  EXPECT_EQ(bert.back().name, "pooler");
  EXPECT_EQ(bert.back().tp_bwd_bytes, 0u);
}

TEST(ZooTensorParallel, ReplicatedPartIsTheNormAndResidualAdd) {
  WorkloadShape shape;
  shape.batch = 2;
  shape.seq = 64;
  const double n = 2 * 64, h = 768, act = 2, grad = 2;
  const std::vector<Layer> layers = build_zoo_model("gpt2-small", shape);
  for (const char* name : {"h0.attn", "h0.mlp"}) {
    const Layer* l = nullptr;
    for (const Layer& x : layers)
      if (x.name == name) l = &x;
    ASSERT_NE(l, nullptr);
    const Layer::Replicated& r = l->tp_replicated;
    // LayerNorm (2h params) reads weights and input, writes output; the residual add reads two
    // n x h tensors and writes one. Neither does tensor-core work.
    EXPECT_DOUBLE_EQ(r.fwd_flops + r.bwd_input_flops + r.bwd_weight_flops, 0.0) << name;
    EXPECT_DOUBLE_EQ(r.fwd_bytes, (2 * h + 2 * n * h) * act + 3 * n * h * act) << name;
    // Backward: the norm's dX reads weights, output gradient, input and writes the input
    // gradient; the add's reads the output gradient and writes both input gradients.
    EXPECT_DOUBLE_EQ(r.bwd_input_bytes, (2 * h + 3 * n * h) * act + 3 * n * h * act) << name;
    // The norm's dW reads its input and the output gradient and writes 2h gradients.
    EXPECT_DOUBLE_EQ(r.bwd_weight_bytes, 2 * n * h * act + 2 * h * grad) << name;
    EXPECT_LT(r.fwd_bytes, l->fwd_bytes);
  }
}

}  // namespace test_zoo_parallel
}  // namespace trainvp
