#pragma once
// Hugging Face `config.json` files as workloads: the architectures of GPT-2, BERT, Llama, Mistral
// and Mixtral read from their configs and expanded by the zoo's transformer generator, so an
// import has the same kind of layer table (and TP/PP metadata) as a zoo model. docs/workloads.md
// lists the keys read and how each architecture maps to layers.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/layer.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/zoo_ops.hpp"

namespace trainvp {

struct HfModel {
  std::string model_type;    // "gpt2", "bert", "llama", "mistral", "mixtral"
  std::string architecture;  // the HF class the parameters count, e.g. "HF LlamaForCausalLM; untied LM head"
  zoo::TransformerConfig config;
  TransformerDims dims;
  std::string positions_key;  // the key bounding seq: "n_positions" (GPT-2) or "max_position_embeddings"
};

// The model types parse_hf_config reads, in the order messages list them.
const std::vector<std::string>& hf_model_types();

// Reads an HF config. Throws ScenarioError naming the JSON pointer inside the config ("/n_embd")
// of the first missing, mistyped or inconsistent key, or of an unsupported model_type.
HfModel parse_hf_config(const nlohmann::json& config);

// Elements per token of the widest tensor the layers hold (logits, the MLP's hidden, the routed
// experts' hidden), for the loader's check that batch x seq x this fits.
double hf_widest_per_token(const HfModel& model);

// The layer table for `shape` (seq at most the config's position limit; else invalid_argument
// naming `name`), as build_zoo_model gives it for a zoo transformer.
std::vector<Layer> build_hf_model(const std::string& name, const HfModel& model, const WorkloadShape& shape);

}  // namespace trainvp
