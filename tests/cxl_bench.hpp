#pragma once
// A one-node collective benchmark through the CXL device, shared by the CXL test files.
#include <string>

#include <nlohmann/json.hpp>

namespace trainvp::test {

inline nlohmann::json cxl_bench(const std::string& fidelity, int lanes, const std::string& bytes) {
  return {{"trainvp", 1},
          {"name", "cxl"},
          {"cluster",
           {{"nodes", 1},
            {"node",
             {{"gpus", 4},
              {"gpu", "RTX-A6000"},
              {"cxl", {{"present", true}, {"fidelity", fidelity}, {"engine_lanes", lanes}}}}}}},
          {"workload",
           {{"kind", "collective"},
            {"op", "all_reduce"},
            {"algorithm", "cxl_allreduce"},
            {"bytes", bytes},
            {"iterations", 1},
            {"warmup", 0}}},
          {"output", {{"trace", false}}}};
}

}  // namespace trainvp::test
