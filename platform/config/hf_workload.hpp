#pragma once
// /workload/hf_config: a Hugging Face config.json as the workload (models/workload/hf_config.hpp
// turns it into layers). Here: finding the file, reading it as every JSON input is read, and
// saying where a problem is, both in the scenario and in the config.
#include <string>

#include "models/workload/hf_config.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

// The file a scenario's hf_config names: an absolute path as given; a relative one in
// `scenario_dir` (the scenario file's directory), else in the current directory. Throws
// ScenarioError at `pointer` when neither holds it.
std::string find_hf_config(const std::string& given, const std::string& scenario_dir, const std::string& pointer);

// Reads and parses `file`. Every problem is a ScenarioError at `pointer` whose message names the
// file and, for a bad key, the key's JSON pointer inside the config; with `pointer` "" (a config
// read on its own) a bad key's error is at the key's pointer.
HfModel read_hf_config(const std::string& file, const std::string& pointer);

// The name reports give an import: "hf:" and the config's directory (Hugging Face keeps a model's
// config.json in a directory named for it), or the file's stem when it is not named config.json.
std::string hf_model_name(const std::string& file);

// Fills w.layers, w.model, w.dims and w.sequence_model for w.shape. `path` is the workload's
// pointer (/workload); a seq beyond the config's position limit is an error at path/seq.
void build_hf_workload(Workload& w, const HfModel& m, const std::string& name, const std::string& path);

}  // namespace trainvp
