// ECN marking and DCQCN on the network links (docs/fabric.md#ecn-and-dcqcn): switch egress
// directions mark, NIC egress directions pace their queue pairs, and the direction into the
// destination NIC (the receiver's last hop) sends the CNPs. NVLink, PCIe and CXL links never take part.
#include "platform/system/fabric/fabric.hpp"

namespace trainvp {

void Fabric::attach_congestion_control() {
  const FabricConfig& f = s_.cluster.fabric;
  if (f.congestion_control_set)
    for (FabricDir& d : dirs_)
      if (d.packet) d.packet->report_pauses(true);  // flow fidelity reports no pauses
  if (f.congestion_control != CongestionControlKind::Dcqcn) return;
  cc_ = std::make_unique<CongestionControl>(f.dcqcn);
  for (std::size_t i = 0; i < dirs_.size(); ++i) {
    FabricDir& d = dirs_[i];
    if (links_[static_cast<std::size_t>(d.link)].kind != LinkKind::Ethernet) continue;
    const DeviceKind from = devices_[static_cast<std::size_t>(d.from)].kind;
    const DeviceKind to = devices_[static_cast<std::size_t>(d.to)].kind;
    unsigned roles = from == DeviceKind::Nic ? CcPort::kPace : CcPort::kMark;
    if (to == DeviceKind::Nic) roles |= CcPort::kNotify;
    cc_->set_network_latency(static_cast<int>(i), d.dir->params().latency_ps);
    CcPort& port = cc_->add_port(roles, d.dir->params().bandwidth_bps, ctx_.rng_for("ecn:" + d.dir->label())());
    d.packet->set_congestion(&port);  // DCQCN is refused in flow fidelity
  }
}

}  // namespace trainvp
