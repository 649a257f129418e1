#pragma once
// `trainvp describe`: every parameter of every model, GPU presets and zoo models, generated from
// the same declarations the loader uses; and the per-layer table of a zoo model.
#include <string>

#include <nlohmann/json.hpp>

#include "models/workload/layer.hpp"

namespace trainvp {

std::string describe_text();
nlohmann::ordered_json describe_json();

// Throws std::invalid_argument for an unknown model or a bad shape.
std::string describe_model_text(const std::string& name, const WorkloadShape& shape);
nlohmann::ordered_json describe_model_json(const std::string& name, const WorkloadShape& shape);

}  // namespace trainvp
