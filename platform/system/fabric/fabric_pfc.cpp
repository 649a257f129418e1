// results.json `pfc`: the fabric's PFC in one place (docs/fabric.md#pfc), with the per-direction
// figures in `links`.
#include <algorithm>

#include "platform/core/sim_time.hpp"
#include "platform/system/fabric/fabric.hpp"

namespace trainvp {

nlohmann::ordered_json Fabric::report_pfc(std::int64_t end_ps) const {
  const PfcConfig& c = s_.cluster.fabric.pfc;
  if (c.mode == PfcMode::Egress) return nullptr;  // the default: results keep their shape
  std::uint64_t pauses = 0, resumes = 0, overflow = 0, peak = 0;
  std::int64_t paused = 0;
  int ports = 0, paused_ports = 0;
  for (const FabricDir& d : dirs_) {
    const PfcPort* p = d.packet ? d.packet->pfc() : nullptr;  // PFC modes are refused in flow fidelity
    if (!p) continue;
    const PfcStats& f = d.dir->stats().pfc;
    ++ports;
    pauses += f.pause_frames, resumes += f.resume_frames, overflow += f.headroom_overflow_bytes;
    peak = std::max(peak, f.peak_ingress_bytes);
    paused += p->paused_ps(end_ps);
    if (f.pause_frames > 0) ++paused_ports;
  }
  nlohmann::ordered_json o = {{"mode", c.mode == PfcMode::Ingress ? "ingress" : "off"}, {"ports", ports}};
  if (c.mode == PfcMode::Ingress) {
    o["xoff_bytes"] = c.xoff;
    o["xon_bytes"] = c.xon;
    o["pause_frames"] = pauses;
    o["resume_frames"] = resumes;
    o["paused_ports"] = paused_ports;
    o["paused_s"] = sec(paused);
    o["headroom_overflow_bytes"] = overflow;
  }
  o["peak_ingress_bytes"] = peak;
  return o;
}

}  // namespace trainvp
