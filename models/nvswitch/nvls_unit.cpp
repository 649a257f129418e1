#include "models/nvswitch/nvls_unit.hpp"

#include <utility>

namespace trainvp {

NvlsUnit::NvlsUnit(sc_core::sc_module_name name) : sc_module(name), port("port") {
  SC_HAS_PROCESS(NvlsUnit);
  SC_METHOD(finish);
  sensitive << reduced_;
  dont_initialize();
}

// In-line reduction: done in the next delta cycle, never inside the caller (the collective engine
// is handing the reduction over and must not be re-entered).
void NvlsUnit::reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData) {
  ++stats_.reductions;
  stats_.bytes_reduced += bytes * static_cast<std::uint64_t>(contributors);
  done_.push_back(std::move(done));
  reduced_.notify(sc_core::SC_ZERO_TIME);
}

void NvlsUnit::finish() {
  running_.swap(done_);
  for (auto& d : running_) d();
  running_.clear();
}

const ModelInfo& NvlsUnit::info() {
  static const ModelInfo i{
      "nvls",
      "NVLink SHARP: a third-generation NVSwitch's reduction and multicast engine, one per node whose GPUs are "
      "Hopper-class on an NVSwitch, present when an all-reduce uses algorithm nvls. It sums each slice as its "
      "last contribution arrives (in the crossbar, at the ports' rate) and multicasts the sums. No parameters of its "
      "own: its link takes the GPUs' NVLink rate (gpu) and framing (nvlink).",
      {"gpu", "nvlink"},
      "nvls[*]",
      {{"port.dma", "initiator, TLM-2.0 AT (multi-passthrough)", "its link into the node's NVSwitch: sums and copies"},
       {"port.mem", "target, TLM-2.0 AT (multi-passthrough)", "the NVSwitch's link into it: contributions and stores"}},
      {{"reductions", "count", "slices reduced"},
       {"bytes_reduced", "bytes", "contribution bytes summed (contributors x bytes per reduction)"},
       {"bytes_in", "bytes", "chunk bytes that arrived: contributions and multicast stores"},
       {"bytes_out", "bytes", "chunk bytes sent: sums to the GPUs that load-reduced them, multicast copies"}}};
  return i;
}

void NvlsUnit::report(nlohmann::ordered_json& out) const {
  out["name"] = basename();
  out["reductions"] = stats_.reductions;
  out["bytes_reduced"] = stats_.bytes_reduced;
  out["bytes_in"] = port.bytes_in();
  out["bytes_out"] = port.bytes_out();
}

}  // namespace trainvp
