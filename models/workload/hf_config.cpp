// Hugging Face config.json -> zoo::TransformerConfig. Each architecture reads only the keys that
// shape its parameters and work; the rest of a config (dropout, eps, rope scaling, dtype, ...)
// changes neither and is ignored. Keys HF's config classes default are defaulted the same way;
// the sizes have no default, so a config missing one is an error rather than a guess.
#include "models/workload/hf_config.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "platform/core/errors.hpp"

namespace trainvp {
namespace {

using json = nlohmann::json;

// Bounds that keep every element count of the generated layers well inside 2^63 (docs/workloads.md).
constexpr int kMaxWidth = 1 << 16;      // hidden_size, head_dim
constexpr int kMaxFfn = 1 << 20;        // intermediate_size
constexpr int kMaxLayers = 1 << 10;     // num_hidden_layers
constexpr int kMaxVocab = 1 << 22;      // vocab_size
constexpr int kMaxPositions = 1 << 24;  // position limits, sliding windows
constexpr int kMaxExperts = 1 << 10;    // num_local_experts

std::string ptr(const char* key) { return ptr_join("", key); }

// The key's value, or nullptr when absent or null (HF writes null for "use the default").
const json* present(const json& c, const char* key) {
  auto it = c.find(key);
  return it == c.end() || it->is_null() ? nullptr : &*it;
}

int as_count(const json& v, const char* key, int lo, int hi) {
  const bool integer = v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > INT_MAX);
  if (!integer || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    fail_expected(ptr(key), "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", v);
  return v.get<int>();
}

int count(const json& c, const char* key, const char* what, int hi, int lo = 1) {
  const json* v = present(c, key);
  if (!v) throw ScenarioError(ptr(key), std::string("missing key \"") + key + "\" (" + what + ")");
  return as_count(*v, key, lo, hi);
}

int count_or(const json& c, const char* key, int def, int hi, int lo = 1) {
  const json* v = present(c, key);
  return v ? as_count(*v, key, lo, hi) : def;
}

bool flag_or(const json& c, const char* key, bool def) {
  const json* v = present(c, key);
  if (!v) return def;
  if (!v->is_boolean()) fail_expected(ptr(key), "true or false", *v);
  return v->get<bool>();
}

void require_divides(int divisor, const char* key, int whole, const char* whole_key) {
  if (whole % divisor != 0)
    fail_expected(ptr(key), std::string("a divisor of ") + whole_key + " (" + std::to_string(whole) + ")",
                  json(divisor));
}

// The dimensions every architecture shares, under its own key names.
struct Keys {
  const char *hidden, *layers, *heads, *positions;
};

void read_common(const json& c, const Keys& k, HfModel& m) {
  zoo::TransformerConfig& t = m.config;
  t.block.d_model = count(c, k.hidden, "the hidden size", kMaxWidth);
  t.n_layers = count(c, k.layers, "the number of transformer layers", kMaxLayers);
  t.block.n_heads = count(c, k.heads, "the number of attention heads", kMaxWidth);
  t.vocab = count(c, "vocab_size", "the vocabulary size", kMaxVocab);
  t.max_positions = count(c, k.positions, "the longest sequence", kMaxPositions);
  m.dims = {t.n_layers, t.block.d_model, t.block.n_heads, t.vocab};
  m.positions_key = k.positions;
}

std::string head_text(bool tied) {
  return tied ? "LM head tied to the token embedding (0 own params)" : "untied LM head";
}

// GPT2LMHeadModel: pre-LayerNorm, fused QKV (c_attn), GELU MLP, learned positions.
void read_gpt2(const json& c, HfModel& m) {
  read_common(c, {"n_embd", "n_layer", "n_head", "n_positions"}, m);
  zoo::TransformerConfig& t = m.config;
  require_divides(t.block.n_heads, "n_head", t.block.d_model, "n_embd");
  t.block.ffn = count_or(c, "n_inner", 4 * t.block.d_model, kMaxFfn);
  t.block.norm = zoo::NormKind::LayerNorm;
  t.block.pre_norm = t.block.bias = t.block.fused_qkv = true;
  const bool tied = flag_or(c, "tie_word_embeddings", true);
  t.final_norm = "ln_f";
  t.head = tied ? zoo::HeadKind::TiedLm : zoo::HeadKind::UntiedLm;
  t.head_name = "lm_head";
  m.architecture = "HF GPT2LMHeadModel; " + head_text(tied);
}

// BertModel: post-LayerNorm, separate Q/K/V, GELU MLP, token types, embedding LayerNorm, pooler.
void read_bert(const json& c, HfModel& m) {
  read_common(c, {"hidden_size", "num_hidden_layers", "num_attention_heads", "max_position_embeddings"}, m);
  zoo::TransformerConfig& t = m.config;
  require_divides(t.block.n_heads, "num_attention_heads", t.block.d_model, "hidden_size");
  t.block.ffn = count(c, "intermediate_size", "the MLP width", kMaxFfn);
  t.block.norm = zoo::NormKind::LayerNorm;
  t.block.pre_norm = t.block.fused_qkv = false;
  t.block.bias = true;
  t.block.causal = false;
  t.token_types = count_or(c, "type_vocab_size", 2, kMaxVocab);
  t.embed_norm = true;
  t.head = zoo::HeadKind::Pooler;
  t.head_name = "pooler";
  m.architecture = "HF BertModel: encoder with pooler, no pre-training heads";
}

// LlamaForCausalLM and its descendants: pre-RMSNorm, rotary positions, grouped-query attention,
// SwiGLU MLP (or Mixtral's experts of SwiGLU MLPs), no biases by default.
void read_llama(const json& c, HfModel& m, const std::string& type) {
  read_common(c, {"hidden_size", "num_hidden_layers", "num_attention_heads", "max_position_embeddings"}, m);
  zoo::TransformerConfig& t = m.config;
  zoo::BlockConfig& b = t.block;
  b.n_kv_heads = count_or(c, "num_key_value_heads", b.n_heads, kMaxWidth);
  require_divides(b.n_kv_heads, "num_key_value_heads", b.n_heads, "num_attention_heads");
  b.head_dim = count_or(c, "head_dim", 0, kMaxWidth);
  if (b.head_dim == 0) require_divides(b.n_heads, "num_attention_heads", b.d_model, "hidden_size");
  b.ffn = count(c, "intermediate_size", type == "mixtral" ? "each expert's MLP width" : "the MLP width", kMaxFfn);
  b.norm = zoo::NormKind::RMSNorm;
  b.pre_norm = b.gated_mlp = b.rotary = true;
  b.fused_qkv = false;
  b.bias = flag_or(c, "attention_bias", false);
  b.mlp_bias = flag_or(c, "mlp_bias", false) ? 1 : 0;
  if (type != "llama") b.window = count_or(c, "sliding_window", 0, kMaxPositions);
  std::string experts;
  if (type == "mixtral") {
    b.experts = count(c, "num_local_experts", "experts per layer", kMaxExperts);
    b.top_k = count(c, "num_experts_per_tok", "experts each token is routed to", kMaxExperts);
    if (b.top_k > b.experts)
      fail_expected(ptr("num_experts_per_tok"), "at most num_local_experts (" + std::to_string(b.experts) + ")",
                    json(b.top_k));
    experts = "; parameters count all " + std::to_string(b.experts) + " experts, FLOPs the top " +
              std::to_string(b.top_k) + " a token is routed to";
  }
  const bool tied = flag_or(c, "tie_word_embeddings", false);
  t.final_norm = "norm";
  t.head = tied ? zoo::HeadKind::TiedLm : zoo::HeadKind::UntiedLm;
  t.head_name = "lm_head";
  const char* cls = type == "llama"     ? "LlamaForCausalLM"
                    : type == "mistral" ? "MistralForCausalLM"
                                        : "MixtralForCausalLM";
  m.architecture = std::string("HF ") + cls + "; " + head_text(tied) + experts;
}

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> types = {"gpt2", "bert", "llama", "mistral", "mixtral"};
  return types;
}

HfModel parse_hf_config(const nlohmann::json& config) {
  if (!config.is_object()) fail_expected("", "a Hugging Face config: a JSON object with a model_type", config);
  const json* type = present(config, "model_type");
  if (!type)
    throw ScenarioError("/model_type",
                        "missing key \"model_type\" (the architecture: gpt2, bert, llama, mistral or mixtral)");
  const auto& types = hf_model_types();
  if (!type->is_string() || std::find(types.begin(), types.end(), type->get<std::string>()) == types.end()) {
    std::string list;
    for (auto& t : types) list += (list.empty() ? "" : ", ") + ("\"" + t + "\"");
    fail_expected("/model_type", "a supported model type: one of " + list, *type);
  }
  HfModel m;
  m.model_type = type->get<std::string>();
  if (m.model_type == "gpt2") read_gpt2(config, m);
  else if (m.model_type == "bert") read_bert(config, m);
  else read_llama(config, m, m.model_type);
  return m;
}

double hf_widest_per_token(const HfModel& model) {
  const zoo::BlockConfig& b = model.config.block;
  const double head = b.head_dim > 0 ? b.head_dim : static_cast<double>(b.d_model) / b.n_heads;
  const double qkv = head * (b.n_heads + 2.0 * (b.n_kv_heads > 0 ? b.n_kv_heads : b.n_heads));
  const double mlp = 2.0 * b.ffn * std::max(1, b.top_k);
  return std::max({static_cast<double>(model.config.vocab), static_cast<double>(b.d_model), qkv, mlp,
                   static_cast<double>(b.experts)});
}

std::vector<Layer> build_hf_model(const std::string& name, const HfModel& model, const WorkloadShape& shape) {
  return zoo::build_transformer(name, model.config, shape);
}

}  // namespace trainvp
