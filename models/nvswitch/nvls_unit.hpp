#pragma once
// NVLink SHARP (NVLS): the reduction and multicast engine of a third-generation NVSwitch (HGX
// H100/H200/H800). NCCL's NVLS all-reduce has each GPU load-reduce its slice through the switch
// (multimem.ld_reduce: the switch reads that slice from every GPU and sums it in the crossbar) and
// store the sum with one multicast write (multimem.st: the switch copies it to every GPU). The
// fabric models that engine as one endpoint hung off the node's NVSwitch: the GPUs' slices are
// sent to it, it reduces a slice once every contribution has arrived, and the sums leave it as
// transfers to the GPUs (docs/fabric.md#nvlink-sharp-nvls). The sum itself is done at the ports'
// rate as the data streams through (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022:
// "NVLink SHARP ... in-network reductions"), so a reduction ends the moment its last contribution
// has arrived; what limits NVLS is the GPUs' NVLink ports and NCCL's efficiency on them
// (models/collectives/nccl_tuner.hpp).
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include <nlohmann/json.hpp>

#include "models/link/endpoint.hpp"
#include "models/link/endpoint_port.hpp"
#include "platform/core/model_info.hpp"

namespace trainvp {

struct NvlsStats {
  std::uint64_t reductions = 0;
  std::uint64_t bytes_reduced = 0;  // contributions summed: contributors x bytes per reduction
};

class NvlsUnit : public sc_core::sc_module, public ReduceDevice {
 public:
  EndpointPort port;  // on the NVSwitch: contributions and stores in, sums and copies out

  explicit NvlsUnit(sc_core::sc_module_name name);

  void reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData data = {}) override;

  const NvlsStats& stats() const { return stats_; }
  // results.json `nvls` entry.
  void report(nlohmann::ordered_json& out) const;
  static const ModelInfo& info();

 private:
  void finish();  // hands the reductions of this delta cycle back, in the order they came

  std::vector<std::function<void()>> done_, running_;
  sc_core::sc_event reduced_;
  NvlsStats stats_;
};

}  // namespace trainvp
