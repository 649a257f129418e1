// What a GPU reports in results.json, and its sockets and statistics for `trainvp describe`.
#include "models/gpu/gpu.hpp"

#include "platform/core/sim_time.hpp"

namespace trainvp {

const ModelInfo& Gpu::info() {
  static const ModelInfo i{
      "gpu",
      "A GPU: runs its rank's phases (roofline-timed), sends collective chunks through its copy engines and serves "
      "peers' DMA from HBM.",
      {"gpu"},
      "ranks[*]",
      {{"dma", "initiator, TLM-2.0 AT (multi-passthrough)", "its NVLink, PCIe and NIC link directions (fabric)"},
       {"mem", "target, TLM-2.0 AT (multi-passthrough)", "link directions arriving at the GPU (its HBM)"}},
      {{"iteration_time_s", "s", "mean duration of the rank's measured iterations"},
       {"compute_s", "s", "mean time per measured iteration spent executing phases"},
       {"blocked_s", "s",
        "mean time per measured iteration waiting at the synchronization gate (exposed communication)"}},
      {},
      {},
      {{"gradient_ready", "GradientReady: rank, iteration, layer",
        "a layer's gradient is complete on the rank, its last micro-batch's dW ended (DDP and the layer-wise "
        "strategies launch their all-reduces here)"},
       {"phase_end", "rank, iteration, Phase",
        "a phase ended (pipeline sends and TP joins, Local SGD's average, the monitor's iteration ends)"}}};
  return i;
}

void Gpu::report(nlohmann::ordered_json& out, int warmup) const {
  double busy = 0, blocked = 0, dur = 0;
  for (int i = warmup; i < iterations_; ++i) {
    const RankIteration& ri = records_[static_cast<std::size_t>(i)];
    busy += sec(ri.compute_ps), blocked += sec(ri.blocked_ps), dur += sec(ri.end_ps - ri.start_ps);
  }
  const double measured = iterations_ - warmup;
  out["name"] = name();
  out["rank"] = rank_;
  out["gpu"] = params_.model;
  out["speed"] = params_.speed;
  out["iteration_time_s"] = dur / measured;
  out["compute_s"] = busy / measured;
  out["blocked_s"] = blocked / measured;
}

}  // namespace trainvp
