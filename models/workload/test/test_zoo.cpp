// The workload model zoo: published parameter counts, layer structure, closed-form FLOPs,
// byte/gradient accounting and shape validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/workload/layer.hpp"

namespace trainvp {
namespace test_zoo {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

WorkloadShape shape_for(const std::string& model, int batch = 1) {
  WorkloadShape s;
  s.batch = batch;
  s.seq = find_zoo_model(model)->family == "bert" ? 512 : 1024;
  s.image_size = 224;
  return s;
}

std::uint64_t total_params(const std::vector<Layer>& layers) {
  std::uint64_t sum = 0;
  for (const Layer& l : layers) sum += l.params;
  return sum;
}

double total_fwd_flops(const std::vector<Layer>& layers) {
  double sum = 0;
  for (const Layer& l : layers) sum += l.fwd_flops;
  return sum;
}

const Layer& layer_named(const std::vector<Layer>& layers, const std::string& name) {
  for (const Layer& l : layers) {
    if (l.name == name) return l;
  }
  throw std::runtime_error("no layer " + name);
}

std::vector<std::string> all_models() {
  std::vector<std::string> names;
  for (const ZooModelInfo& m : zoo_models()) names.push_back(m.name);
  return names;
}

// Published counts of the reference implementations (see docs/models.md for conventions).
const std::map<std::string, std::uint64_t> kPublished = {
    {"gpt2-small", 124439808ULL}, {"gpt2-medium", 354823168ULL}, {"gpt2-large", 774030080ULL},
    {"gpt2-xl", 1557611200ULL},   {"bert-base", 109482240ULL},   {"bert-large", 335141888ULL},
    {"resnet50", 25557032ULL},    {"vit-b16", 86567656ULL},      {"llama2-7b", 6738415616ULL},
};

TEST(ModelZoo, ListsTheElevenModelsInStableOrderWithFamilies) {
  const std::vector<std::string> expected = {"gpt2-small", "gpt2-medium", "gpt2-large", "gpt2-xl",
                                             "bert-base",  "bert-large",  "resnet50",   "vit-b16",
                                             "llama2-7b",  "gpt2-40b",    "gpt3-175b"};
  EXPECT_EQ(all_models(), expected);
  EXPECT_EQ(find_zoo_model("gpt2-xl")->family, "gpt2");
  EXPECT_EQ(find_zoo_model("bert-large")->family, "bert");
  EXPECT_EQ(find_zoo_model("resnet50")->family, "resnet");
  EXPECT_EQ(find_zoo_model("vit-b16")->family, "vit");
  EXPECT_EQ(find_zoo_model("llama2-7b")->family, "llama");
  EXPECT_EQ(find_zoo_model("gpt3-175b")->family, "gpt3");
  EXPECT_EQ(find_zoo_model("gpt3"), nullptr);
}

TEST(ModelZoo, SequenceModelFlagIsTrueForLanguageModelsOnly) {
  for (const ZooModelInfo& m : zoo_models()) {
    const bool language = m.family == "gpt2" || m.family == "gpt3" || m.family == "bert" || m.family == "llama";
    EXPECT_EQ(m.sequence_model, language) << m.name;
  }
}

TEST(ModelZoo, GeneratedParamsEqualPublishedReferenceCounts) {
  for (const auto& [name, published] : kPublished) {
    EXPECT_EQ(total_params(build_zoo_model(name, shape_for(name))), published) << name;
    EXPECT_EQ(find_zoo_model(name)->reference_params, published) << name;
  }
}

TEST(ModelZoo, ParamsDoNotDependOnBatchOrSequenceLength) {
  WorkloadShape s = shape_for("gpt2-small", 8);
  s.seq = 17;
  EXPECT_EQ(total_params(build_zoo_model("gpt2-small", s)), 124439808ULL);
}

TEST(ModelZoo, Gpt2IsAnAliasOfGpt2Small) {
  ASSERT_NE(find_zoo_model("gpt2"), nullptr);
  EXPECT_EQ(find_zoo_model("gpt2")->name, "gpt2-small");
  EXPECT_EQ(total_params(build_zoo_model("gpt2", shape_for("gpt2-small", 8))), 124439808ULL);
  EXPECT_EQ(find_zoo_model("gpt3"), nullptr);
}

TEST(ModelZoo, LayerCountsFollowTheArchitecture) {
  // Transformers: embed + 2 per block + final norm (not BERT) + head.
  const std::map<std::string, std::size_t> expected = {
      {"gpt2-small", 1 + 2 * 12 + 1 + 1},    {"gpt2-medium", 1 + 2 * 24 + 1 + 1}, {"gpt2-large", 1 + 2 * 36 + 1 + 1},
      {"gpt2-xl", 1 + 2 * 48 + 1 + 1},       {"bert-base", 1 + 2 * 12 + 1},       {"bert-large", 1 + 2 * 24 + 1},
      {"resnet50", 1 + (3 + 4 + 6 + 3) + 1},  // stem + bottlenecks + fc
      {"vit-b16", 1 + 2 * 12 + 1 + 1},        // patch_embed + blocks + ln + head
      {"llama2-7b", 1 + 2 * 32 + 1 + 1},
  };
  for (const auto& [name, count] : expected) {
    EXPECT_EQ(build_zoo_model(name, shape_for(name)).size(), count) << name;
  }
}

TEST(ModelZoo, LayerNamesAreUniqueInEveryModel) {
  for (const std::string& name : all_models()) {
    std::set<std::string> seen;
    for (const Layer& l : build_zoo_model(name, shape_for(name))) {
      EXPECT_TRUE(seen.insert(l.name).second) << name << " repeats " << l.name;
    }
  }
}

std::vector<std::string> names_of(const std::vector<Layer>& layers) {
  std::vector<std::string> names;
  for (const Layer& l : layers) names.push_back(l.name);
  return names;
}

TEST(ModelZoo, LayerNamesAreInForwardOrderInputSideFirst) {
  const auto gpt = names_of(build_zoo_model("gpt2-small", shape_for("gpt2-small")));
  EXPECT_EQ(gpt.front(), "embed");
  EXPECT_EQ(gpt[1], "h0.attn");
  EXPECT_EQ(gpt[2], "h0.mlp");
  EXPECT_EQ(gpt[24], "h11.mlp");
  EXPECT_EQ(gpt[25], "ln_f");
  EXPECT_EQ(gpt[26], "lm_head");

  const auto bert = names_of(build_zoo_model("bert-base", shape_for("bert-base")));
  EXPECT_EQ(bert.front(), "embed");
  EXPECT_EQ(bert.back(), "pooler");

  const auto llama = names_of(build_zoo_model("llama2-7b", shape_for("llama2-7b")));
  EXPECT_EQ(llama[llama.size() - 2], "norm");
  EXPECT_EQ(llama.back(), "lm_head");

  const auto vit = names_of(build_zoo_model("vit-b16", shape_for("vit-b16")));
  EXPECT_EQ(vit.front(), "patch_embed");
  EXPECT_EQ(vit[vit.size() - 2], "ln");
  EXPECT_EQ(vit.back(), "head");

  const std::vector<std::string> resnet = {"stem",     "layer1.0", "layer1.1", "layer1.2", "layer2.0", "layer2.1",
                                           "layer2.2", "layer2.3", "layer3.0", "layer3.1", "layer3.2", "layer3.3",
                                           "layer3.4", "layer3.5", "layer4.0", "layer4.1", "layer4.2", "fc"};
  EXPECT_EQ(names_of(build_zoo_model("resnet50", shape_for("resnet50"))), resnet);
}

TEST(ModelZoo, Gpt2SmallForwardFlopsMatchClosedForm) {
  const double d = 768, layers = 12, vocab = 50257, seq = 1024, tokens = 1 * seq;
  // Block matmul weights per layer: QKV 3d^2 + proj d^2 + fc 4d^2 + proj 4d^2 = 12 d^2.
  const double matmul = 2 * (12 * d * d * layers) * tokens;
  const double attention = layers * 2 * 2 * seq * d * tokens;
  const double head = 2 * d * vocab * tokens;  // tied LM head still multiplies
  EXPECT_DOUBLE_EQ(total_fwd_flops(build_zoo_model("gpt2-small", shape_for("gpt2-small"))), matmul + attention + head);
}

TEST(ModelZoo, BertBaseForwardFlopsMatchClosedForm) {
  const double d = 768, layers = 12, seq = 512, batch = 2, tokens = batch * seq;
  const double matmul = 2 * (12 * d * d * layers) * tokens;
  const double attention = layers * 2 * 2 * seq * d * tokens;
  const double pooler = 2 * d * d * batch;  // [CLS] token only
  EXPECT_DOUBLE_EQ(total_fwd_flops(build_zoo_model("bert-base", shape_for("bert-base", 2))),
                   matmul + attention + pooler);
}

TEST(ModelZoo, Llama2ForwardFlopsAreTwicePerMatmulParamPerTokenPlusAttention) {
  const double d = 4096, layers = 32, vocab = 32000, seq = 1024, tokens = seq;
  const double params = 6738415616.0;
  const double embedding = vocab * d;                               // a lookup, no matmul
  const double norms = (2 * layers + 1) * d;                        // RMSNorm weights, memory-bound
  const double matmul = 2 * (params - embedding - norms) * tokens;  // includes the untied head
  const double attention = layers * 2 * 2 * seq * d * tokens;
  EXPECT_DOUBLE_EQ(total_fwd_flops(build_zoo_model("llama2-7b", shape_for("llama2-7b"))), matmul + attention);
}

TEST(ModelZoo, VitB16UsesTokensDerivedFromImageAndPatch) {
  const double d = 768, tokens = (224.0 / 16) * (224.0 / 16) + 1;  // 196 patches + class token
  ASSERT_EQ(tokens, 197);
  const auto layers = build_zoo_model("vit-b16", shape_for("vit-b16"));
  EXPECT_DOUBLE_EQ(layer_named(layers, "h0.attn").fwd_flops, 2 * (4 * d * d) * tokens + 2 * 2 * tokens * d * tokens);
  EXPECT_DOUBLE_EQ(layer_named(layers, "h0.mlp").fwd_flops, 2 * (2 * d * 3072) * tokens);
  EXPECT_DOUBLE_EQ(layer_named(layers, "patch_embed").fwd_flops, 2 * (3 * 16 * 16 * d) * 196);
  EXPECT_DOUBLE_EQ(layer_named(layers, "head").fwd_flops, 2 * d * 1000);
}

TEST(ModelZoo, ResNet50BottleneckFlopsMatchHandComputationAt224px) {
  const auto layers = build_zoo_model("resnet50", shape_for("resnet50"));
  // layer1.0: input 64x56x56, 1x1 64->64, 3x3 64->64, 1x1 64->256, downsample 1x1 64->256.
  const double hw1 = 56 * 56;
  EXPECT_DOUBLE_EQ(layer_named(layers, "layer1.0").fwd_flops, 2 * hw1 * (64 * 64 + 64 * 64 * 9 + 64 * 256 + 64 * 256));
  // layer2.0: input 256x56x56; conv1 at 56x56, then stride 2 to 28x28 for conv2, conv3, downsample.
  const double hw2 = 28 * 28;
  EXPECT_DOUBLE_EQ(layer_named(layers, "layer2.0").fwd_flops,
                   2 * (hw1 * 256 * 128 + hw2 * (128 * 128 * 9 + 128 * 512 + 256 * 512)));
  // stem conv1: 7x7, 3->64, stride 2 -> 112x112.
  EXPECT_DOUBLE_EQ(layer_named(layers, "stem").fwd_flops, 2 * 3 * 64 * 49 * 112.0 * 112);
  EXPECT_DOUBLE_EQ(layer_named(layers, "fc").fwd_flops, 2 * 2048 * 1000);
  EXPECT_EQ(layer_named(layers, "layer1.0").params,
            64 * 64 + 64 * 64 * 9 + 64 * 256 + 64 * 256 + 2 * (64 + 64 + 256 + 256));
}

TEST(ModelZoo, BackwardIsTwiceForwardExceptFirstLayerInputGradient) {
  for (const std::string& name : all_models()) {
    const auto layers = build_zoo_model(name, shape_for(name));
    // The first layer's input (token ids, the image) needs no gradient.
    EXPECT_EQ(layers.front().bwd_input_flops, 0) << name;
    EXPECT_DOUBLE_EQ(layers.front().bwd_weight_flops, layers.front().fwd_flops) << name;
    for (std::size_t i = 1; i < layers.size(); ++i) {
      const Layer& l = layers[i];
      EXPECT_DOUBLE_EQ(l.bwd_input_flops + l.bwd_weight_flops, 2 * l.fwd_flops) << name << " " << l.name;
    }
  }
}

TEST(ModelZoo, MatmulLayersSplitBackwardIntoInputAndWeightHalves) {
  const auto layers = build_zoo_model("gpt2-small", shape_for("gpt2-small"));
  const Layer& mlp = layer_named(layers, "h0.mlp");  // no attention: halves are equal
  EXPECT_DOUBLE_EQ(mlp.bwd_input_flops, mlp.fwd_flops);
  EXPECT_DOUBLE_EQ(mlp.bwd_weight_flops, mlp.fwd_flops);
  const Layer& attn = layer_named(layers, "h0.attn");  // attention-score work lands in dX
  const double d = 768, seq = 1024;
  const double scores = 2 * 2 * seq * d * seq;
  EXPECT_DOUBLE_EQ(attn.bwd_weight_flops, attn.fwd_flops - scores);
  EXPECT_DOUBLE_EQ(attn.bwd_input_flops, attn.fwd_flops - scores + 2 * scores);
}

TEST(ModelZoo, FlopsAndActivationsScaleLinearlyWithBatch) {
  for (const std::string& name : all_models()) {
    const auto one = build_zoo_model(name, shape_for(name, 1));
    const auto four = build_zoo_model(name, shape_for(name, 4));
    ASSERT_EQ(one.size(), four.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_DOUBLE_EQ(four[i].fwd_flops, 4 * one[i].fwd_flops) << name << " " << one[i].name;
      EXPECT_DOUBLE_EQ(four[i].bwd_input_flops, 4 * one[i].bwd_input_flops) << name;
      EXPECT_DOUBLE_EQ(four[i].bwd_weight_flops, 4 * one[i].bwd_weight_flops) << name;
      EXPECT_EQ(four[i].activation_bytes, 4 * one[i].activation_bytes) << name;
      EXPECT_EQ(four[i].params, one[i].params) << name;
    }
  }
}

TEST(ModelZoo, GradBytesAreParamsTimesGradDtypeBytes) {
  for (const std::string& name : all_models()) {
    WorkloadShape s = shape_for(name);
    s.grad_dtype = DType::BF16;
    for (const Layer& l : build_zoo_model(name, s)) EXPECT_EQ(l.grad_bytes, l.params * 2) << l.name;
    s.grad_dtype = DType::FP32;
    for (const Layer& l : build_zoo_model(name, s)) EXPECT_EQ(l.grad_bytes, l.params * 4) << l.name;
  }
}

TEST(ModelZoo, WeightGradientPhaseWritesTheGradientBuffer) {
  for (const std::string& name : all_models()) {
    for (const Layer& l : build_zoo_model(name, shape_for(name))) {
      EXPECT_GE(l.bwd_weight_bytes, static_cast<double>(l.grad_bytes)) << name << " " << l.name;
      EXPECT_GT(l.fwd_bytes, 0) << name << " " << l.name;
      EXPECT_GT(l.fwd_kernels, 0) << name << " " << l.name;
      if (l.params > 0) {
        EXPECT_GT(l.bwd_weight_kernels, 0) << name << " " << l.name;
      }
    }
  }
}

TEST(ModelZoo, Gpt2TiedLmHeadHasNoParamsButFullHeadFlops) {
  const auto layers = build_zoo_model("gpt2-small", shape_for("gpt2-small"));
  const Layer& head = layer_named(layers, "lm_head");
  EXPECT_EQ(head.params, 0u);
  EXPECT_EQ(head.grad_bytes, 0u);
  EXPECT_DOUBLE_EQ(head.fwd_flops, 2 * 768.0 * 50257 * 1024);
  EXPECT_EQ(layer_named(layers, "embed").params, (50257u + 1024u) * 768u);
}

TEST(ModelZoo, Llama2LmHeadIsUntied) {
  const auto layers = build_zoo_model("llama2-7b", shape_for("llama2-7b"));
  EXPECT_EQ(layer_named(layers, "lm_head").params, 32000ull * 4096);
  EXPECT_EQ(layer_named(layers, "embed").params, 32000ull * 4096);  // rotary: no position table
}

TEST(ModelZoo, EmbeddingLookupIsMemoryBoundWithZeroFlops) {
  for (const std::string name : {"gpt2-small", "bert-base", "llama2-7b"}) {
    const Layer embed = build_zoo_model(name, shape_for(name)).front();
    EXPECT_EQ(embed.fwd_flops, 0) << name;
    EXPECT_GT(embed.fwd_bytes, 0) << name;
  }
}

TEST(ModelZoo, Gpt2MlpForwardBytesFollowTheDocumentedPerOpTraffic) {
  // ln (read d, write d), fc (d in, 4d out), GELU (4d, 4d), proj (4d, d), add (2d, d) = 23 d
  // activation elements per token, plus every weight read once; bf16 = 2 bytes.
  const double d = 768, tokens = 1024;
  const auto layers = build_zoo_model("gpt2-small", shape_for("gpt2-small"));
  const Layer& mlp = layer_named(layers, "h0.mlp");
  EXPECT_DOUBLE_EQ(mlp.fwd_bytes, (static_cast<double>(mlp.params) + 23 * d * tokens) * 2);
  // Saved for backward: ln input d, fc input d, GELU input 4d, proj input 4d.
  EXPECT_EQ(mlp.activation_bytes, static_cast<std::uint64_t>(10 * d * tokens * 2));
}

TEST(ModelZoo, DtypeChangesBytesButNotFlops) {
  WorkloadShape bf16 = shape_for("bert-base");
  WorkloadShape fp32 = bf16;
  fp32.dtype = DType::FP32;
  const auto a = build_zoo_model("bert-base", bf16);
  const auto b = build_zoo_model("bert-base", fp32);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_DOUBLE_EQ(b[i].fwd_flops, a[i].fwd_flops) << a[i].name;
    EXPECT_DOUBLE_EQ(b[i].fwd_bytes, 2 * a[i].fwd_bytes) << a[i].name;
  }
}

TEST(ModelZoo, KernelCountsPerSublayerMatchTheDocumentedKernels) {
  const auto gpt = build_zoo_model("gpt2-small", shape_for("gpt2-small"));
  // ln, QKV GEMM, flash attention, output GEMM, residual add.
  EXPECT_EQ(layer_named(gpt, "h0.attn").fwd_kernels, 5);
  EXPECT_EQ(layer_named(gpt, "h0.attn").bwd_input_kernels, 5);
  EXPECT_EQ(layer_named(gpt, "h0.attn").bwd_weight_kernels, 3);  // ln, QKV, output
  // ln, fc GEMM, GELU, proj GEMM, residual add.
  EXPECT_EQ(layer_named(gpt, "h0.mlp").fwd_kernels, 5);
  const auto bert = build_zoo_model("bert-base", shape_for("bert-base"));
  EXPECT_EQ(layer_named(bert, "h0.attn").fwd_kernels, 7);  // Q, K, V, flash, out, add, ln
  const auto llama = build_zoo_model("llama2-7b", shape_for("llama2-7b"));
  EXPECT_EQ(layer_named(llama, "h0.attn").fwd_kernels, 8);  // + rotary, three projections
  EXPECT_EQ(layer_named(llama, "h0.mlp").fwd_kernels, 6);   // norm, gate, up, SiLU*mul, down, add
  const auto resnet = build_zoo_model("resnet50", shape_for("resnet50"));
  EXPECT_EQ(layer_named(resnet, "layer1.0").fwd_kernels, 12);  // 4 conv+bn, 2 relu, add, relu
  EXPECT_EQ(layer_named(resnet, "layer1.1").fwd_kernels, 10);
}

TEST(ModelZoo, UnknownModelThrowsAndListsKnownModels) {
  try {
    build_zoo_model("gpt5", WorkloadShape{});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gpt5"), std::string::npos) << msg;
    for (const std::string& name : all_models()) EXPECT_NE(msg.find(name), std::string::npos);
  }
}

TEST(ModelZoo, NonPositiveBatchSeqOrImageSizeThrows) {
  for (const std::string& name : all_models()) {
    WorkloadShape s = shape_for(name);
    s.batch = 0;
    EXPECT_THROW(build_zoo_model(name, s), std::invalid_argument) << name;
  }
  WorkloadShape s = shape_for("gpt2-small");
  s.seq = 0;
  EXPECT_THROW(build_zoo_model("gpt2-small", s), std::invalid_argument);
  s = shape_for("resnet50");
  s.image_size = 0;
  EXPECT_THROW(build_zoo_model("resnet50", s), std::invalid_argument);
  EXPECT_THROW(build_zoo_model("vit-b16", s), std::invalid_argument);
}

TEST(ModelZoo, SequenceLongerThanMaxPositionsThrows) {
  const std::map<std::string, int> max_positions = {
      {"gpt2-small", 1024}, {"gpt2-xl", 1024}, {"bert-base", 512}, {"llama2-7b", 4096}};
  for (const auto& [name, max] : max_positions) {
    WorkloadShape s = shape_for(name);
    s.seq = max;
    EXPECT_NO_THROW(build_zoo_model(name, s)) << name;
    s.seq = max + 1;
    EXPECT_THROW(build_zoo_model(name, s), std::invalid_argument) << name;
  }
}

TEST(ModelZoo, VitRequiresImageSizeDivisibleByPatch) {
  WorkloadShape s = shape_for("vit-b16");
  s.image_size = 225;
  EXPECT_THROW(build_zoo_model("vit-b16", s), std::invalid_argument);
  s.image_size = 384;  // 24 x 24 patches: the position table grows with the image (torchvision)
  EXPECT_EQ(total_params(build_zoo_model("vit-b16", s)), 86567656ULL + (577 - 197) * 768ULL);
}

TEST(ModelZoo, ResNetAcceptsAnyImageSizeFrom32) {
  WorkloadShape s = shape_for("resnet50");
  s.image_size = 31;
  EXPECT_THROW(build_zoo_model("resnet50", s), std::invalid_argument);
  for (int size : {32, 33, 100, 299}) {
    s.image_size = size;
    const auto layers = build_zoo_model("resnet50", s);
    EXPECT_EQ(total_params(layers), 25557032ULL) << size;
    EXPECT_GT(total_fwd_flops(layers), 0) << size;
  }
}

}  // namespace test_zoo
}  // namespace trainvp
