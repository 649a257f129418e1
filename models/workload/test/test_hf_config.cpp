// Hugging Face configs as workloads: the shipped configs' parameter counts equal the published
// ones, an HF config the zoo also has gives the zoo's layer table field for field, Mixtral's
// FLOPs count only the routed experts, and bad configs name the key's JSON pointer.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/workload/hf_config.hpp"
#include "models/workload/test/expect_same_layers.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {
namespace test_hf_config {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

json shipped(const std::string& dir) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/workloads/hf/" + dir + "/config.json");
  return json::parse(in);
}

WorkloadShape shape(int seq) {
  WorkloadShape s;
  s.batch = 2;
  s.seq = seq;
  return s;
}

std::vector<Layer> build(const std::string& dir, int seq = 512) {
  return build_hf_model(dir, parse_hf_config(shipped(dir)), shape(seq));
}

std::uint64_t total(const std::vector<Layer>& layers) {
  std::uint64_t n = 0;
  for (const Layer& l : layers) n += l.params;
  return n;
}

// Published totals: transformers' model.num_parameters() of the class named (docs/workloads.md).
TEST(HfConfig, ParameterCountsEqualThePublishedOnes) {
  EXPECT_EQ(total(build("gpt2")), 124439808ULL);                 // GPT2LMHeadModel, head tied
  EXPECT_EQ(total(build("bert-base-uncased")), 109482240ULL);    // BertModel, pooler included
  EXPECT_EQ(total(build("Llama-2-7b-hf")), 6738415616ULL);       // LlamaForCausalLM
  EXPECT_EQ(total(build("Mistral-7B-v0.1")), 7241732096ULL);     // MistralForCausalLM
  EXPECT_EQ(total(build("Mixtral-8x7B-v0.1")), 46702792704ULL);  // MixtralForCausalLM, all experts
}

// The zoo's gpt2-small, bert-base and llama2-7b are these very architectures (zoo.cpp), so the
// imports must give their tables exactly, and the same transformer dimensions.
TEST(HfConfig, ConfigsTheZooHasGiveTheZoosLayerTable) {
  const struct {
    const char *dir, *zoo;
    int seq;
  } cases[] = {
      {"gpt2", "gpt2-small", 1024}, {"bert-base-uncased", "bert-base", 512}, {"Llama-2-7b-hf", "llama2-7b", 2048}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dir);
    const HfModel m = parse_hf_config(shipped(c.dir));
    test::expect_same_layers(build_hf_model(c.dir, m, shape(c.seq)), build_zoo_model(c.zoo, shape(c.seq)));
    const TransformerDims z = zoo_transformer_dims(c.zoo);
    EXPECT_EQ(m.dims.layers, z.layers);
    EXPECT_EQ(m.dims.hidden, z.hidden);
    EXPECT_EQ(m.dims.heads, z.heads);
    EXPECT_EQ(m.dims.vocab, z.vocab);
  }
}

// Grouped-query attention: Mistral's 8 key/value heads of 128 make k and v 1024 wide.
TEST(HfConfig, MistralAttentionIsGroupedQuery) {
  const std::vector<Layer> layers = build("Mistral-7B-v0.1", 512);
  const double d = 4096, kv = 1024, n = 2 * 512, s = 512;
  const Layer& attn = layers[1];
  ASSERT_EQ(attn.name, "h0.attn");
  EXPECT_EQ(attn.params, static_cast<std::uint64_t>(2 * d * d + 2 * d * kv + d));  // q, o; k, v; RMSNorm
  // GEMMs 2 n (d·d + 2 d·kv + d·d) plus attention 2·2·s·d per token.
  EXPECT_DOUBLE_EQ(attn.fwd_flops, 2 * n * (2 * d * d + 2 * d * kv) + 4 * s * d * n);
}

// The sliding window (4096) bounds the keys per query once the sequence is longer.
TEST(HfConfig, MistralSlidingWindowBoundsAttention) {
  const double d = 4096;
  const double at_4096 = build("Mistral-7B-v0.1", 4096)[1].fwd_flops;
  const double at_8192 = build("Mistral-7B-v0.1", 8192)[1].fwd_flops;
  // Twice the tokens: the GEMMs double, attention per token stays 4·4096·d.
  EXPECT_DOUBLE_EQ(at_8192, 2 * at_4096);
  json c = shipped("Mistral-7B-v0.1");
  c["sliding_window"] = nullptr;  // none: every key
  const double full = build_hf_model("m", parse_hf_config(c), shape(8192))[1].fwd_flops;
  EXPECT_DOUBLE_EQ(full - at_8192, 4.0 * (8192 - 4096) * d * 2 * 8192);
}

// Mixtral: parameters count all 8 experts, FLOPs the 2 each token is routed to (plus the router).
TEST(HfConfig, MixtralFlopsCountTheActiveExperts) {
  const std::vector<Layer> layers = build("Mixtral-8x7B-v0.1", 512);
  const double d = 4096, f = 14336, e = 8, k = 2, n = 2 * 512;
  const Layer& mlp = layers[2];
  ASSERT_EQ(mlp.name, "h0.mlp");
  EXPECT_EQ(mlp.params, static_cast<std::uint64_t>(e * 3 * d * f + d * e + d));  // experts, router, norm
  EXPECT_DOUBLE_EQ(mlp.fwd_flops, 2 * n * (d * e + k * 3 * d * f));
  EXPECT_DOUBLE_EQ(mlp.bwd_input_flops, mlp.fwd_flops);
  EXPECT_DOUBLE_EQ(mlp.bwd_weight_flops, mlp.fwd_flops);
  EXPECT_EQ(mlp.matrices.size(), 1 + 3 * 8u);  // the router's and each expert's three
  // Attention is Mistral's.
  EXPECT_EQ(layers[1].params, build("Mistral-7B-v0.1", 512)[1].params);
}

TEST(HfConfig, TiedHeadOwnsNoParameters) {
  json c = shipped("Llama-2-7b-hf");
  c["tie_word_embeddings"] = true;
  EXPECT_EQ(total(build_hf_model("m", parse_hf_config(c), shape(512))), 6738415616ULL - 32000ULL * 4096);
  c = shipped("gpt2");
  c["tie_word_embeddings"] = false;
  EXPECT_EQ(total(build_hf_model("m", parse_hf_config(c), shape(512))), 124439808ULL + 50257ULL * 768);
}

std::string error_path(const json& config) {
  try {
    parse_hf_config(config);
  } catch (const ScenarioError& e) {
    return e.path;
  }
  return "(no error)";
}

TEST(HfConfig, BadConfigsNameTheKey) {
  json c = shipped("Mistral-7B-v0.1");
  EXPECT_EQ(error_path(json::array()), "");
  EXPECT_EQ(error_path(json{{"n_embd", 768}}), "/model_type");
  EXPECT_EQ(error_path(json{{"model_type", "t5"}}), "/model_type");
  EXPECT_EQ(error_path(json{{"model_type", 7}}), "/model_type");
  json bad = c;
  bad.erase("hidden_size");
  EXPECT_EQ(error_path(bad), "/hidden_size");
  bad = c, bad["num_hidden_layers"] = "32";
  EXPECT_EQ(error_path(bad), "/num_hidden_layers");
  bad = c, bad["num_key_value_heads"] = 5;  // 32 heads do not group by 5
  EXPECT_EQ(error_path(bad), "/num_key_value_heads");
  bad = c, bad["tie_word_embeddings"] = "no";
  EXPECT_EQ(error_path(bad), "/tie_word_embeddings");
  bad = c, bad["intermediate_size"] = 0;
  EXPECT_EQ(error_path(bad), "/intermediate_size");
  bad = shipped("Mixtral-8x7B-v0.1"), bad["num_experts_per_tok"] = 9;
  EXPECT_EQ(error_path(bad), "/num_experts_per_tok");
  bad = shipped("Mixtral-8x7B-v0.1"), bad.erase("num_local_experts");
  EXPECT_EQ(error_path(bad), "/num_local_experts");
  bad = shipped("gpt2"), bad["n_head"] = 7;  // 768 is not a multiple of 7
  EXPECT_EQ(error_path(bad), "/n_head");
  bad = shipped("gpt2"), bad["n_embd"] = 1e12;
  EXPECT_EQ(error_path(bad), "/n_embd");
}

TEST(HfConfig, SeqBeyondThePositionLimitIsRefused) {
  EXPECT_THROW(build("gpt2", 1025), std::invalid_argument);
  EXPECT_NO_THROW(build("gpt2", 1024));
}

}  // namespace test_hf_config
}  // namespace trainvp
