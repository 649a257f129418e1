#pragma once
// /workload/torch_profile: a PyTorch profiler trace as the workload (models/workload/torch_profile.hpp
// turns it into layers). Here: finding the file, reading it as every JSON input is read, and saying
// where a problem is, both in the scenario and in the trace.
#include <string>

#include "models/workload/torch_profile.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

// As find_hf_config: beside the scenario file, then in the current directory.
std::string find_torch_profile(const std::string& given, const std::string& scenario_dir, const std::string& pointer);

// Reads and parses `file`; every problem is a ScenarioError at `pointer` naming the file and, for
// a bad event, its JSON pointer inside the trace ("" as pointer: the error is at that pointer).
TorchProfile read_torch_profile(const std::string& file, const std::string& pointer);

// "torch:" and the file's name without .json, .trace.json or .pt.trace.json (Kineto's suffix).
std::string torch_profile_name(const std::string& file);

// Fills w.layers, w.model and w.optimizer_time_ps (when the trace has an optimizer step).
void build_torch_workload(Workload& w, const TorchProfile& p, const std::string& name, DType grad_dtype);

}  // namespace trainvp
