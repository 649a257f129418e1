#pragma once
// /workload/chakra: Chakra execution traces as the workload (one per rank, or one replicated),
// run as they are instead of training iterations (docs/workloads.md#chakra-execution-traces).
// Here: finding the files, reading them, the process groups their collectives name, and the
// static check that every collective and send has its partners, each problem a ScenarioError at
// /workload/chakra naming the rank and the node.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/program.hpp"
#include "models/workload/chakra/plan.hpp"
#include "models/workload/chakra/trace.hpp"
#include "models/workload/dtype.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct ChakraWorkload {
  std::string traces;                                          // as given
  std::vector<std::string> files;                              // the files read (one when replicated)
  bool replicated = false;                                     // one trace for every rank
  std::vector<std::shared_ptr<const chakra::Trace>> trace_of;  // per rank
  chakra::Groups groups;                                       // process groups by name
  std::shared_ptr<const chakra::Plan> plan;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;  // all-reduces (the others run as rings)
  DType dtype = DType::BF16;                        // compute nodes timed by roofline run at this dtype's peak
};

struct ChakraRaw {
  std::string traces;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  DType dtype = DType::BF16;
};
const ParamSet<ChakraRaw>& chakra_schema();

// Reads /workload/chakra (`value`: an object, or a string as its `traces`) for a cluster of
// `ranks` GPUs whose node of each rank is nodes_of[rank]. Returns the resolved object.
nlohmann::json load_chakra_workload(ChakraWorkload& c, const nlohmann::json& value, const std::string& path, int ranks,
                                    const std::vector<int>& nodes_of, const std::string& scenario_dir);

}  // namespace trainvp
