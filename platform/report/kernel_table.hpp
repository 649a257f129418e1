#pragma once
// `trainvp describe model NAME --kernels` and `describe workload FILE --kernels`: each layer's
// kernels on a GPU (a preset, after a tensor-parallel split), with the kernel model's time and
// efficiency of each (docs/models.md#kernels).
#include <string>

#include <nlohmann/json.hpp>

#include "models/gpu/gpu_params.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct KernelView {
  std::string gpu = "H100-SXM5-80GB";  // a GPU preset
  int tp = 1;                          // the kernels of one of tp ranks (Megatron's split)
  bool sequence_parallel = false;
};

// Throws std::invalid_argument for an unknown preset or a GPU without the kernel model.
nlohmann::ordered_json kernel_table_json(const Workload& w, const KernelView& view);
std::string kernel_table_text(const nlohmann::ordered_json& table);

}  // namespace trainvp
