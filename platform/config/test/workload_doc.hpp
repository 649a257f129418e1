#pragma once
// What the workload-import tests share: a one-node scenario around a /workload object, the error
// loading it gives, where the shipped workload files are, and a temporary file to import.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"

namespace trainvp::test {

inline const std::string kWorkloads = std::string(TRAINVP_SOURCE_DIR) + "/scenarios/workloads";

inline nlohmann::json doc_with(const nlohmann::json& workload) {
  return {{"trainvp", 1},
          // HBM for any workload these readers' tests load (a whole Mixtral replica, 0.7 TiB): the
          // memory check has tests of its own.
          {"cluster",
           {{"nodes", 1}, {"node", {{"gpus", 8}, {"gpu", {{"preset", "H100-SXM5-80GB"}, {"mem_capacity", "1TiB"}}}}}}},
          {"workload", workload},
          {"training", {{"iterations", 2}, {"warmup", 1}}}};
}

// The ScenarioError loading `doc` (from a scenario file in `dir`) throws; "(none)" when it loads.
inline ScenarioError error_of(const nlohmann::json& doc, const std::string& dir = "") {
  try {
    load_scenario(doc, "t", dir);
  } catch (const ScenarioError& e) {
    return e;
  }
  return ScenarioError("(none)", "no error");
}

// A temporary directory holding one JSON file at `file` (relative to it), removed at the end.
struct TempJsonFile {
  std::filesystem::path dir;
  TempJsonFile(const std::string& prefix, const std::string& file, const nlohmann::json& content)
      : dir(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
    std::filesystem::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << content.dump();
  }
  ~TempJsonFile() { std::filesystem::remove_all(dir); }
};

}  // namespace trainvp::test
