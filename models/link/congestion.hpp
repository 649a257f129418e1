#pragma once
// ECN marking and DCQCN across a fabric (docs/fabric.md#ecn-and-dcqcn). One CongestionControl per
// fabric holds the queue pairs; each network link direction that takes part gets a CcPort with its
// roles, which its LinkDir calls at three points: when a chunk is queued (marking), when it asks
// whether a flow's head chunk may start (pacing) and when a chunk starts on the wire (rate
// bookkeeping at the sender, CNP generation at the receiver's last hop).
//
// A queue pair is an RDMA connection: (source endpoint, destination endpoint), persistent across
// transfers. It is recognised from the chunk's route: the first link direction leaves the source
// endpoint and the last enters the destination, so (first, last) names the pair.
//
// Approximations of the chunk-level model: a chunk's packets are marked as if each found the bytes
// queued ahead of the whole chunk when it was queued; a CNP is not simulated traffic but reaches
// the sender after a fixed delay, the sum of the latencies of the network links of the chunk's
// route (the reverse path's propagation), and takes effect on the sender's next chunk.
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/link/chunk.hpp"
#include "models/link/dcqcn.hpp"

namespace trainvp {

class CongestionControl;
struct Qp;

class CcPort {
 public:
  enum Role : unsigned { kMark = 1, kPace = 2, kNotify = 4 };
  CcPort(CongestionControl& cc, unsigned roles, double line_bps, std::uint64_t seed);
  unsigned roles() const { return roles_; }
  // Marking (switch egress): draws which of the chunk's `packets` packets are marked, given the
  // bytes queued ahead of it; packets marked upstream stay marked.
  void on_enqueue(ChunkExt& c, std::uint64_t queued_ahead, std::uint32_t packets);
  // Pacing (NIC egress): the earliest time the chunk's queue pair may start its next chunk.
  std::int64_t eligible_ps(const ChunkExt& c, std::int64_t now);
  // A chunk starts on the wire at `now`, its head reaching the far end at `head_ps`.
  void on_transmit(ChunkExt& c, std::uint64_t wire_bytes, std::int64_t now, std::int64_t head_ps);
  // results.json: ecn_marked_packets (marking), cnps_sent (notification), the sending NIC's QPs.
  void report(nlohmann::ordered_json& out, std::int64_t end_ps) const;
  std::uint64_t marked_packets() const { return marked_; }
  std::uint64_t cnps_sent() const { return cnps_sent_; }
  // Whether DCQCN has acted here: a mark drawn, a CNP sent or a rate cut taken.
  bool acted() const;

 private:
  Qp* qp_of(const ChunkExt& c, std::int64_t now);
  CongestionControl& cc_;
  unsigned roles_;
  double line_bps_;
  std::mt19937_64 rng_;
  std::uint64_t marked_ = 0, cnps_sent_ = 0;
  std::vector<Qp*> qps_;  // the queue pairs this NIC sends for
  std::uint64_t last_key_ = ~0ull;
  Qp* last_qp_ = nullptr;
};

struct Qp {
  DcqcnRate rate;
  std::int64_t next_ok_ps = 0;        // pacing: earliest start of the next chunk
  std::int64_t last_cnp_gen_ps = -1;  // receiver: when it last sent a CNP for this pair
  std::deque<std::int64_t> cnps;      // arrival times at the sender, not yet applied
  std::uint64_t cnps_received = 0;
  std::int64_t last_sent_ps = 0;
  Qp(const DcqcnParams& p, double line, std::int64_t now) : rate(p, line, now) {}
};

class CongestionControl {
 public:
  explicit CongestionControl(const DcqcnParams& p) : p_(p) {}
  const DcqcnParams& params() const { return p_; }
  // The latency (ps) of link direction `dir` if it is a network link, for the CNP's return trip.
  void set_network_latency(int dir, std::int64_t ps);
  CcPort& add_port(unsigned roles, double line_bps, std::uint64_t seed);
  static std::uint64_t key(const ChunkExt& c);
  Qp* find(std::uint64_t key);
  Qp& get(std::uint64_t key, double line_bps, std::int64_t now);
  std::int64_t return_delay(const Route& r) const;
  bool acted() const;

 private:
  DcqcnParams p_;
  std::vector<std::int64_t> latency_;
  std::unordered_map<std::uint64_t, Qp> qps_;  // node-based: ports keep pointers
  std::vector<std::unique_ptr<CcPort>> ports_;
};

}  // namespace trainvp
