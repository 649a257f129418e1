#pragma once
// A chunk of a transfer travelling through the fabric. It rides on a tlm_generic_payload (the
// command is a write of `payload_bytes` to the destination) as this extension, which carries the
// source route and who to tell when it arrives. Framing is added per link: each link splits the
// chunk into its own packets (RoCE MTU, NVLink or PCIe TLP payload) and pays their overhead.
#include <cstdint>
#include <vector>

#include <tlm>

namespace trainvp {

// The out-port index to take at each device along a path: [0] is the source GPU's DMA socket,
// then one entry per forwarding device (NIC, switch, NVSwitch, PCIe switch).
struct Route {
  std::vector<int> ports;
  std::vector<int> links;  // fabric link-direction ids along the path, for reports and tests
};

class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // Called by the destination endpoint when the chunk has arrived (in simulated time order).
  virtual void chunk_delivered(tlm::tlm_generic_payload& p) = 0;
};

struct ChunkExt : tlm::tlm_extension<ChunkExt> {
  const Route* route = nullptr;
  int hop = 0;                 // index into route->ports of the device currently holding it
  std::uint32_t flow = 0;      // chunks of one flow share a FIFO at each link; flows are served round-robin
  std::uint32_t payload_bytes = 0;
  // When the chunk's last byte reaches the device now holding it (ps). Links forward a chunk
  // cut-through: it is handed on when its first packet arrives, and a link cannot finish sending
  // it before its tail has arrived, so multi-hop paths pipeline at packet granularity.
  std::int64_t tail_ps = 0;
  std::uint64_t tag = 0;       // owner's identifier (the collective engine's transfer id)
  bool more = false;           // more chunks of its transfer follow (a lost last packet is then NACKed)
  // A small control message (a CXL.io TLP): links send it between the packets of the chunk on the
  // wire instead of queueing it behind whole chunks (PCIe and CXL arbitrate per TLP and flit), and
  // take it whatever their queues hold.
  bool express = false;
  ChunkSink* sink = nullptr;

  tlm::tlm_extension_base* clone() const override { return new ChunkExt(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const ChunkExt&>(e); }
};

inline ChunkExt* chunk_of(tlm::tlm_generic_payload& p) {
  ChunkExt* e = nullptr;
  p.get_extension(e);
  return e;
}

}  // namespace trainvp
