#pragma once
// A node: a SystemC module holding its GPUs, so every GPU's name is nodeN.gpuM. The fabric
// (NVSwitch, PCIe, NICs) joins them here.
#include <memory>
#include <vector>

#include <systemc>

#include "models/gpu/gpu.hpp"
#include "models/parallel/plan.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

class Node : public sc_core::sc_module {
 public:
  // `parallel`: the hybrid-parallel plan whose stages the GPUs run (null: the scenario's workload).
  // `job_of` (with /jobs; null otherwise): per rank, the job whose workload its GPU runs (null: idle).
  Node(sc_core::sc_module_name name, int index, const Scenario& s, RunContext& ctx, const ParallelPlan* parallel,
       const std::vector<const JobConfig*>* job_of = nullptr,
       const std::vector<const ParallelPlan*>* plan_of = nullptr);
  std::vector<std::unique_ptr<Gpu>> gpus;
};

}  // namespace trainvp
