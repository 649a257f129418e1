#include "platform/config/torch_workload.hpp"

#include <cstdint>
#include <filesystem>

#include "platform/config/document.hpp"
#include "platform/config/input_file.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {

// A real step's Kineto trace runs to tens of megabytes; a file beyond this is not one step.
constexpr std::uintmax_t kMaxTorchTraceBytes = std::uintmax_t{256} << 20;

std::string find_torch_profile(const std::string& given, const std::string& scenario_dir, const std::string& pointer) {
  return find_input_file(given, scenario_dir, pointer, "PyTorch profiler trace");
}

TorchProfile read_torch_profile(const std::string& file, const std::string& pointer) {
  const std::string what = "PyTorch profiler trace", where = what + " \"" + file + "\"";
  const json trace = read_json_input(file, pointer, what, kMaxTorchTraceBytes, "record one training step");
  try {
    return parse_torch_profile(trace);
  } catch (const ScenarioError& e) {
    if (pointer.empty()) throw ScenarioError(e.path, "in " + where + ": " + message_of(e));
    throw ScenarioError(pointer, where + (e.path.empty() ? "" : " at " + clip_pointer(e.path)) + ": " + message_of(e));
  }
}

std::string torch_profile_name(const std::string& file) {
  std::string name = std::filesystem::path(file).filename().string();
  for (const char* suffix : {".pt.trace.json", ".trace.json", ".json"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return "torch:" + name;
}

void build_torch_workload(Workload& w, const TorchProfile& p, const std::string& name, DType grad_dtype) {
  w.layers = torch_profile_layers(p, grad_dtype);
  w.model = name;
  w.convention = "parameters from the trace's operator input shapes";
  w.sequence_model = false;
  w.optimizer_time_ps = p.optimizer_ps;
}

}  // namespace trainvp
