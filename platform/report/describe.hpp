#pragma once
// `trainvp describe`: every parameter of every model, GPU presets and zoo models, generated from
// the same declarations the loader uses; and the per-layer table of a zoo model.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/layer.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/model_info.hpp"

namespace trainvp {

// The platform's models that have sockets and report statistics (each declares its own info()).
const std::vector<const ModelInfo*>& platform_models();
// Each platform model with its help, sockets or interfaces and statistics (part of describe_text;
// `trainvp describe models`).
std::string describe_models_text();
// One row per platform model (name, schemas, sockets or interfaces, statistics): the generated
// table of docs/architecture.md (`trainvp describe models --markdown`, scripts/update-docs).
std::string model_table();
constexpr const char* kModelTableBegin = "<!-- models:begin -->";
constexpr const char* kModelTableEnd = "<!-- models:end -->";

std::string describe_text();
nlohmann::ordered_json describe_json();

// A platform model (platform_models(): parameters, sockets, statistics) or the layers of a zoo
// model. Throws std::invalid_argument for an unknown model or a bad shape.
std::string describe_model_text(const std::string& name, const WorkloadShape& shape);
nlohmann::ordered_json describe_model_json(const std::string& name, const WorkloadShape& shape);

// Any workload's layer table (a zoo model, an HF import, explicit layers): its name, `convention`
// (what its parameter count counts; "" to leave out), shape, totals and one row per layer with
// parameters, FLOPs and bytes per phase, activation and gradient bytes and kernels.
nlohmann::ordered_json workload_table_json(const Workload& w, const std::string& convention);
std::string workload_table_text(const nlohmann::ordered_json& table);

}  // namespace trainvp
