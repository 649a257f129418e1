#pragma once
// A CPU aggregator node (BytePS's "server"): a host without GPUs whose NICs reach its memory over
// PCIe. Each NIC's side of the host is a port, a fabric endpoint like a GPU's (`dma` sends the
// sums back, `mem` takes the GPUs' pushes); the node is one ReduceDevice: the collective hands it
// a reduction once every contribution of a part has arrived, and it sums them with all its cores,
// one reduction at a time in arrival order, in the roofline time of cpu_reduce_ps.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include <nlohmann/json.hpp>

#include "models/aggregator/cpu_params.hpp"
#include "models/link/endpoint.hpp"
#include "models/link/endpoint_port.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/run_context.hpp"

namespace trainvp {

// A port: the NIC's side of the host (endpoint_port.hpp).
using AggregatorPort = EndpointPort;

struct AggregatorStats {
  std::uint64_t jobs = 0;
  std::uint64_t bytes_in = 0;   // contribution bytes summed (k x n per job)
  std::uint64_t bytes_out = 0;  // result bytes (n per job)
  std::int64_t busy_ps = 0;
};

class Aggregator : public sc_core::sc_module, public ReduceDevice {
 public:
  // `elem_bytes`: the gradients' element size (4 fp32, 2 bf16); one port per NIC.
  Aggregator(sc_core::sc_module_name name, const AggregatorParams& p, int elem_bytes, RunContext& ctx);

  std::vector<std::unique_ptr<AggregatorPort>> ports;

  void reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData data = {}) override;
  const AggregatorStats& stats() const { return stats_; }
  const CpuParams& cpu() const { return p_.cpu; }
  // results.json `aggregators` entry.
  void report(nlohmann::ordered_json& out) const;
  static const ModelInfo& info();

 private:
  struct Job {
    std::uint64_t bytes;
    int contributors;
    std::function<void()> done;
  };
  void run();

  AggregatorParams p_;
  int elem_bytes_;
  RunContext& ctx_;
  std::deque<Job> queue_;
  sc_core::sc_event submitted_;
  AggregatorStats stats_;
  int track_ = -1;
};

}  // namespace trainvp
