#include "platform/cli/workload_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/config/hf_workload.hpp"
#include "platform/config/torch_workload.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"

namespace trainvp {

WorkloadFileKind workload_file_kind(const std::string& file) {
  const json doc = read_json_file(file, "file");
  if (doc.is_object() && doc.contains("trainvp")) return WorkloadFileKind::Scenario;
  if (doc.is_object() && doc.contains("model_type")) return WorkloadFileKind::HfConfig;
  if (doc.is_array() || (doc.is_object() && doc.contains("traceEvents"))) return WorkloadFileKind::TorchTrace;
  throw ScenarioError("", "\"" + file +
                              "\" is neither a scenario (no \"trainvp\" key), a Hugging Face config.json "
                              "(no \"model_type\" key) nor a PyTorch profiler trace (no \"traceEvents\")");
}

Workload scenario_workload(const std::string& file, const std::vector<std::string>& sets) {
  Scenario s = load_scenario_file(file, sets);
  if (!s.jobs.empty())
    throw ScenarioError("/jobs", "holds one workload per job; this command reads a scenario with a top-level workload");
  if (!s.trains())
    fail_expected("/workload/kind", "a training workload (a collective benchmark or Chakra traces have no layers)",
                  json(s.chakra ? "chakra" : "collective"));
  return s.workload;
}

int hf_config_max_seq(const std::string& file) { return read_hf_config(file, "").config.max_positions; }

Workload hf_config_workload(const std::string& file, const WorkloadShape& shape) {
  Workload w;
  w.shape = shape;
  const HfModel m = read_hf_config(file, "");
  build_hf_workload(w, m, hf_model_name(file), "");
  return w;
}

Workload torch_trace_workload(const std::string& file, DType grad_dtype) {
  Workload w;
  w.shape.dtype = w.shape.grad_dtype = grad_dtype;
  build_torch_workload(w, read_torch_profile(file, ""), torch_profile_name(file), grad_dtype);
  return w;
}

std::string convert_scenario(const std::string& file) {
  const Scenario s = load_scenario_file(file, {});
  if (!s.jobs.empty())
    throw ScenarioError("/jobs", "convert freezes the top-level workload; a scenario with jobs has one per job");
  if (!s.trains())
    fail_expected("/workload/kind",
                  "a training workload (a collective benchmark or Chakra traces have no layers to convert)",
                  json(s.chakra ? "chakra" : "collective"));
  // The file parsed once more, keeping its key order (load_scenario_file has checked its text).
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text.str());
  doc["workload"] = frozen_workload(s.workload, doc["workload"]);
  const std::string out = doc.dump(2) + "\n";
  // What convert writes must load: a frozen workload the loader refused would be a defect here.
  const std::filesystem::path p(file);
  load_scenario(json::parse(out), p.stem().string(), p.parent_path().string());
  return out;
}

}  // namespace trainvp
