// The model zoo: each model is an architecture's hyper-parameters plus the family generator
// that expands them into layers (zoo_transformer.cpp, zoo_resnet.cpp). No per-layer numbers
// are tabulated here; reference_params is the published count the generated layers must sum to
// (checked by models/workload/test/test_zoo.cpp).
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/workload/layer.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/zoo_ops.hpp"

namespace trainvp {
namespace {

using zoo::BlockConfig;
using zoo::HeadKind;
using zoo::NormKind;

struct ZooEntry {
  ZooModelInfo info;
  std::function<std::vector<Layer>(const WorkloadShape&)> build;
  TransformerDims dims;  // GPT-2, BERT and Llama families; zero otherwise
};

TransformerDims dims_of(const zoo::TransformerConfig& c) {
  return {c.n_layers, c.block.d_model, c.block.n_heads, c.vocab};
}

std::string describe_block(const BlockConfig& b, int n_layers) {
  return std::to_string(n_layers) + " layers, d_model " + std::to_string(b.d_model) + ", " + std::to_string(b.n_heads) +
         " heads, ffn " + std::to_string(b.ffn);
}

// HF GPT2LMHeadModel: pre-LayerNorm, fused QKV (c_attn), GELU MLP of 4*d, learned positions.
ZooEntry gpt2(const std::string& name, int d, int n_layers, int heads, std::uint64_t published, int positions = 1024) {
  zoo::TransformerConfig c;
  c.block = {d,
             heads,
             4 * d,
             NormKind::LayerNorm,
             /*pre_norm=*/true,
             /*bias=*/true,
             /*fused_qkv=*/true,
             /*gated_mlp=*/false,
             /*rotary=*/false};
  c.n_layers = n_layers;
  c.vocab = 50257;
  c.max_positions = positions;
  c.final_norm = "ln_f";
  c.head = HeadKind::TiedLm;
  c.head_name = "lm_head";
  ZooModelInfo info{
      name,
      "gpt2",
      true,
      published,
      "HF GPT2LMHeadModel; LM head tied to the token embedding (0 own params)",
      "GPT-2: " + describe_block(c.block, n_layers) + ", vocab 50257, " + std::to_string(positions) + " positions"};
  info.max_seq = c.max_positions;
  return {info, [name, c](const WorkloadShape& s) { return zoo::build_transformer(name, c, s); }, dims_of(c)};
}

// HF BertModel: post-LayerNorm, separate Q/K/V, GELU MLP of 4*d, token types, pooler.
ZooEntry bert(const std::string& name, int d, int n_layers, int heads, std::uint64_t published) {
  zoo::TransformerConfig c;
  c.block = {d,
             heads,
             4 * d,
             NormKind::LayerNorm,
             /*pre_norm=*/false,
             /*bias=*/true,
             /*fused_qkv=*/false,
             /*gated_mlp=*/false,
             /*rotary=*/false};
  c.block.causal = false;  // an encoder: every token attends to every other
  c.n_layers = n_layers;
  c.vocab = 30522;
  c.max_positions = 512;
  c.token_types = 2;
  c.embed_norm = true;
  c.head = HeadKind::Pooler;
  c.head_name = "pooler";
  ZooModelInfo info{name,
                    "bert",
                    true,
                    published,
                    "HF BertModel: encoder with pooler, no pre-training heads",
                    "BERT: " + describe_block(c.block, n_layers) + ", vocab 30522, 512 positions, 2 token types"};
  info.max_seq = c.max_positions;
  return {info, [name, c](const WorkloadShape& s) { return zoo::build_transformer(name, c, s); }, dims_of(c)};
}

// HF LlamaForCausalLM: pre-RMSNorm, no biases, rotary positions, SwiGLU MLP, untied LM head.
ZooEntry llama2_7b() {
  const std::string name = "llama2-7b";
  zoo::TransformerConfig c;
  c.block = {4096,
             32,
             11008,
             NormKind::RMSNorm,
             /*pre_norm=*/true,
             /*bias=*/false,
             /*fused_qkv=*/false,
             /*gated_mlp=*/true,
             /*rotary=*/true};
  c.n_layers = 32;
  c.vocab = 32000;
  c.max_positions = 4096;
  c.final_norm = "norm";
  c.head = HeadKind::UntiedLm;
  c.head_name = "lm_head";
  ZooModelInfo info{name,
                    "llama",
                    true,
                    6738415616ULL,
                    "HF LlamaForCausalLM; untied LM head",
                    "Llama-2-7B: " + describe_block(c.block, c.n_layers) + ", vocab 32000, 4096 positions (rotary)"};
  info.max_seq = c.max_positions;
  return {info, [name, c](const WorkloadShape& s) { return zoo::build_transformer(name, c, s); }, dims_of(c)};
}

// GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288, 96 heads, 2048 tokens of
// context, GPT-2's vocabulary. Built as GPT-2's architecture (tied LM head, learned positions,
// dense attention: GPT-3's alternating banded-sparse layers have the same parameters), which
// counts 174,604,259,328 parameters; the paper rounds to 175B, kept as the reference.
ZooEntry gpt3_175b() {
  ZooEntry e = gpt2("gpt3-175b", 12288, 96, 96, 175000000000ULL, 2048);
  e.info.family = "gpt3";
  e.info.convention = "GPT-2 architecture at GPT-3's shape, LM head tied; published 175B is rounded (ours 174.6B)";
  e.info.description =
      "GPT-3 175B (Brown et al. 2020): 96 layers, d_model 12288, 96 heads, ffn 49152, vocab 50257, "
      "2048 positions";
  return e;
}

// GREYHOUND's "40-billion-parameter GPT-2 configuration": the paper gives no shape, so this is
// GPT-2's architecture at h 8192, 48 layers, 64 heads and 2048 positions (39.09B parameters).
ZooEntry gpt2_40b() {
  ZooEntry e = gpt2("gpt2-40b", 8192, 48, 64, 39088316416ULL, 2048);
  e.info.description =
      "GPT-2 40B (GREYHOUND's configuration; the paper publishes no shape, this one is assumed): "
      "48 layers, d_model 8192, 64 heads, ffn 32768, vocab 50257, 2048 positions";
  e.info.convention = "HF GPT2LMHeadModel at an assumed shape; LM head tied; count = 12lh^2 + 13lh + (V + s)h + 2h";
  return e;
}

// torchvision vit_b_16: pre-LayerNorm encoder, packed in_proj, GELU MLP, class-token head.
ZooEntry vit_b16() {
  const std::string name = "vit-b16";
  zoo::VitConfig c;
  c.block = {768,
             12,
             3072,
             NormKind::LayerNorm,
             /*pre_norm=*/true,
             /*bias=*/true,
             /*fused_qkv=*/true,
             /*gated_mlp=*/false,
             /*rotary=*/false};
  c.block.causal = false;
  c.n_layers = 12;
  c.patch = 16;
  ZooModelInfo info{name,
                    "vit",
                    false,
                    86567656ULL,
                    "torchvision vit_b_16 at 224 px (position table grows with image_size)",
                    "ViT-B/16: patch 16, " + describe_block(c.block, c.n_layers) + ", 1000 classes"};
  return {info, [name, c](const WorkloadShape& s) { return zoo::build_vit(name, c, s); }, TransformerDims{}};
}

// torchvision resnet50: bottleneck blocks [3, 4, 6, 3], widths 64..512, expansion 4.
ZooEntry resnet50() {
  const std::string name = "resnet50";
  zoo::ResNetConfig c;
  c.blocks = {3, 4, 6, 3};
  ZooModelInfo info{name,
                    "resnet",
                    false,
                    25557032ULL,
                    "torchvision resnet50; BatchNorm weight+bias are params, running stats not",
                    "ResNet-50: bottleneck blocks [3, 4, 6, 3], widths 64-512 x4, 1000 classes"};
  return {info, [name, c](const WorkloadShape& s) { return zoo::build_resnet(name, c, s); }, TransformerDims{}};
}

const std::vector<ZooEntry>& entries() {
  static const std::vector<ZooEntry> all{
      gpt2("gpt2-small", 768, 12, 12, 124439808ULL),
      gpt2("gpt2-medium", 1024, 24, 16, 354823168ULL),
      gpt2("gpt2-large", 1280, 36, 20, 774030080ULL),
      gpt2("gpt2-xl", 1600, 48, 25, 1557611200ULL),
      bert("bert-base", 768, 12, 12, 109482240ULL),
      bert("bert-large", 1024, 24, 16, 335141888ULL),
      resnet50(),
      vit_b16(),
      llama2_7b(),
      gpt2_40b(),
      gpt3_175b(),
  };
  return all;
}

std::string known_names() {
  std::string names;
  for (const ZooEntry& e : entries()) names += (names.empty() ? "" : ", ") + e.info.name;
  return names;
}

}  // namespace

const std::vector<ZooModelInfo>& zoo_models() {
  static const std::vector<ZooModelInfo> infos = [] {
    std::vector<ZooModelInfo> out;
    for (const ZooEntry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

std::string zoo_canonical_name(const std::string& name) {
  if (name == "gpt2") return "gpt2-small";  // Hugging Face's and OpenAI's name for the 124M model
  return name;
}

const ZooModelInfo* find_zoo_model(const std::string& name) {
  const std::string canonical = zoo_canonical_name(name);
  for (const ZooModelInfo& info : zoo_models()) {
    if (info.name == canonical) return &info;
  }
  return nullptr;
}

TransformerDims zoo_transformer_dims(const std::string& name) {
  const std::string canonical = zoo_canonical_name(name);
  for (const ZooEntry& e : entries())
    if (e.info.name == canonical) return e.dims;
  return {};
}

std::vector<Layer> build_zoo_model(const std::string& name, const WorkloadShape& shape) {
  const std::string canonical = zoo_canonical_name(name);
  for (const ZooEntry& e : entries()) {
    if (e.info.name == canonical) return e.build(shape);
  }
  throw std::invalid_argument("unknown zoo model '" + name + "'; known models: " + known_names());
}

}  // namespace trainvp
