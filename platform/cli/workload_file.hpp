#pragma once
// The files `trainvp describe workload FILE` and `trainvp convert FILE` read: a scenario, whose
// workload is any kind (zoo model, Hugging Face config, explicit layers), or a Hugging Face
// config.json or a PyTorch profiler trace on its own.
#include <string>
#include <vector>

#include "models/workload/workload.hpp"

namespace trainvp {

enum class WorkloadFileKind { Scenario, HfConfig, TorchTrace };

// A scenario (a JSON object with "trainvp"), an HF config (with "model_type") or a PyTorch
// profiler trace (an array of events or an object with "traceEvents"); else a ScenarioError.
WorkloadFileKind workload_file_kind(const std::string& file);

// The training workload of the scenario `file` after the --set overrides; a collective benchmark
// is an error at /workload/kind (it has no layers).
Workload scenario_workload(const std::string& file, const std::vector<std::string>& sets);

// The longest sequence the HF config `file` allows.
int hf_config_max_seq(const std::string& file);

// The HF config `file` as a workload of `shape` (its grad_dtype = its dtype).
Workload hf_config_workload(const std::string& file, const WorkloadShape& shape);

// The profiler trace `file` as a workload, gradients in `grad_dtype`.
Workload torch_trace_workload(const std::string& file, DType grad_dtype);

// The scenario `file` as JSON text with its workload replaced by the explicit layer list it
// expands to (platform/config/layer_list.hpp), keys in the file's order. The result is loaded
// once more before it is returned, so what convert writes always validates.
std::string convert_scenario(const std::string& file);

}  // namespace trainvp
