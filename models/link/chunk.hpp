#pragma once
// A chunk of a transfer travelling through the fabric. It rides on a tlm_generic_payload (the
// command is a write of `payload_bytes` to the destination) as this extension, which carries the
// source route and who to tell when it arrives. Framing is added per link: each link splits the
// chunk into its own packets (RoCE MTU, NVLink or PCIe TLP payload) and pays their overhead.
#include <algorithm>
#include <cstdint>
#include <typeinfo>
#include <vector>

#include <tlm>

namespace trainvp {

class PfcPort;

// The out-port index to take at each device along a path: [0] is the source GPU's DMA socket,
// then one entry per forwarding device (NIC, switch, NVSwitch, PCIe switch).
struct Route {
  std::vector<int> ports;
  std::vector<int> links;  // fabric link-direction ids along the path, for reports and tests
  int owner = -1;          // the job whose rank sends by it, counted per link (LinkDir::owner_bytes); -1: none
  // Flow fidelity's path latency of a transfer whose first chunk fills a packet on every hop
  // (FlowNetwork::path_latency), kept here because every transfer of the route reads it: valid
  // while flow_latency_version is the flow network's (which moves when a link changes).
  mutable std::int64_t flow_latency_ps = -1;
  mutable std::uint64_t flow_latency_version = 0;
  mutable double flow_latency_min_bytes = 0;  // the path's largest MTU
};

class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // Called by the destination endpoint when the chunk has arrived (in simulated time order).
  virtual void chunk_delivered(tlm::tlm_generic_payload& p) = 0;
};

// Functional mode (docs/cxl.md): which bytes of a collective's buffer a transfer carries. The
// buffer is the collective's data (a bucket's gradients) as laid out at every rank; a device's
// reduction window holds it at the same offsets (one copy per slot). Transfer byte o is buffer
// byte address(o): contiguous from `offset`, or, with an HDM interleave (stripe > 0), only the
// bytes of [offset, offset + span) whose stripe (address / stripe) is `way` mod `ways`.
struct DataRange {
  std::uint64_t offset = 0, span = 0;
  std::uint64_t stripe = 0;
  int ways = 1, way = 0;
  int src_slot = 0, dst_slot = 0;  // device window slots (contribution c >= 0, or kSlot*); GPUs ignore them
  // Calls f(buffer address, transfer offset, bytes) for the contiguous pieces of transfer bytes [o, o + n).
  template <class F>
  void pieces(std::uint64_t o, std::uint64_t n, F f) const {
    if (stripe == 0) {
      f(offset + o, o, n);
      return;
    }
    // Walk this way's stripes from the start; the first may begin mid-stripe.
    const std::uint64_t w = static_cast<std::uint64_t>(ways), k = static_cast<std::uint64_t>(way), end = offset + span;
    std::uint64_t g = offset / stripe, pos = 0;
    g += (k + w - g % w) % w;
    for (; g * stripe < end && n > 0; g += w) {
      const std::uint64_t lo = std::max(g * stripe, offset), hi = std::min((g + 1) * stripe, end), len = hi - lo;
      if (o < pos + len) {
        const std::uint64_t skip = o > pos ? o - pos : 0, take = std::min(len - skip, n);
        f(lo + skip, pos + skip, take);
        o += take, n -= take;
      }
      pos += len;
    }
  }
};
constexpr int kSlotAcc = -1;   // a device's partial or final sum
constexpr int kSlotRecv = -2;  // a device's received partial (cxl_hierarchical's ring)

struct ChunkExt : tlm::tlm_extension<ChunkExt> {
  const Route* route = nullptr;
  int hop = 0;             // index into route->ports of the device currently holding it
  std::uint32_t flow = 0;  // chunks of one flow share a FIFO at each link; flows are served round-robin
  std::uint32_t payload_bytes = 0;
  // When the chunk's last byte reaches the device now holding it (ps). Links forward a chunk
  // cut-through: it is handed on when its first packet arrives, and a link cannot finish sending
  // it before its tail has arrived, so multi-hop paths pipeline at packet granularity.
  std::int64_t tail_ps = 0;
  std::uint64_t tag = 0;         // owner's identifier (the collective engine's transfer id)
  bool more = false;             // more chunks of its transfer follow (a lost last packet is then NACKed)
  std::uint32_t ecn_marked = 0;  // packets of it ECN-marked on its way (DCQCN, models/link/congestion.hpp)
  bool background = false;       // cross-traffic of a congestion fault (counted apart in link statistics)
  // A small control message (a CXL.io TLP): links send it between the packets of the chunk on the
  // wire instead of queueing it behind whole chunks (PCIe and CXL arbitrate per TLP and flit), and
  // take it whatever their queues hold.
  bool express = false;
  ChunkSink* sink = nullptr;
  PfcPort* pfc = nullptr;  // the ingress port counting it at the device now holding it (pfc.hpp)
  // Functional mode: the collective and the bytes this chunk carries (the payload's data pointer
  // points into `bytes`, kept with the pooled payload); null otherwise.
  const DataRange* data = nullptr;
  int collective = -1;
  std::vector<unsigned char> bytes;

  tlm::tlm_extension_base* clone() const override { return new ChunkExt(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const ChunkExt&>(e); }
};

// A payload with its ChunkExt in the same allocation (pooled by BasicPayloadPool<ChunkPayload>):
// the extension is set on it for good, so get_extension finds it as usual, and chunk_of reaches
// it without the extension array (a cache miss per chunk and hop at scale).
class ChunkPayload : public tlm::tlm_generic_payload {
 public:
  explicit ChunkPayload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) { set_extension(&chunk); }
  ChunkPayload(const ChunkPayload&) = delete;
  ChunkPayload& operator=(const ChunkPayload&) = delete;
  ~ChunkPayload() override { clear_extension(&chunk); }  // a member: the base must not free it
  ChunkExt chunk;
};

inline ChunkExt* chunk_of(tlm::tlm_generic_payload& p) {
  if (typeid(p) == typeid(ChunkPayload)) return &static_cast<ChunkPayload&>(p).chunk;
  ChunkExt* e = nullptr;  // a plain payload that may carry one (CXL.io TLPs, tests)
  p.get_extension(e);
  return e;
}

}  // namespace trainvp
