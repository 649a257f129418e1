#include "models/link/congestion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainvp {

CcPort::CcPort(CongestionControl& cc, unsigned roles, double line_bps, std::uint64_t seed)
    : cc_(cc), roles_(roles), line_bps_(line_bps), rng_(seed) {}

void CcPort::on_enqueue(ChunkExt& c, std::uint64_t queued_ahead, std::uint32_t packets) {
  if (!(roles_ & kMark)) return;
  const double p = ecn_probability(cc_.params(), static_cast<double>(queued_ahead));
  if (p <= 0 || c.ecn_marked >= packets) return;
  std::uint32_t n = 0;
  if (p >= 1) {
    n = packets - c.ecn_marked;
  } else {
    // One draw per packet not yet marked: chunks are a few packets in the sizes DCQCN needs.
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::uint32_t k = c.ecn_marked; k < packets; ++k) n += u(rng_) < p ? 1 : 0;
  }
  c.ecn_marked += n;
  marked_ += n;
}

Qp* CcPort::qp_of(const ChunkExt& c, std::int64_t now) {
  const std::uint64_t key = CongestionControl::key(c);
  if (key == last_key_) return last_qp_;
  Qp* q = cc_.find(key);
  if (!q && (roles_ & kPace)) {
    q = &cc_.get(key, line_bps_, now);
    qps_.push_back(q);
  }
  last_key_ = key, last_qp_ = q;
  return q;
}

std::int64_t CcPort::eligible_ps(const ChunkExt& c, std::int64_t now) {
  if (!(roles_ & kPace) || !c.route || c.route->links.empty()) return std::numeric_limits<std::int64_t>::min();
  const Qp* q = qp_of(c, now);
  return q->next_ok_ps;
}

void CcPort::on_transmit(ChunkExt& c, std::uint64_t wire_bytes, std::int64_t now, std::int64_t head_ps) {
  if (!c.route || c.route->links.empty()) return;
  if (roles_ & kPace) {
    c.ecn_marked = 0;  // the chunk enters the network here
    Qp* q = qp_of(c, now);
    while (!q->cnps.empty() && q->cnps.front() <= now) {
      q->rate.on_cnp(q->cnps.front());
      q->cnps.pop_front();
    }
    q->rate.on_sent(now, wire_bytes);
    q->next_ok_ps =
        now + static_cast<std::int64_t>(std::llround(static_cast<double>(wire_bytes) * 8.0 / q->rate.rate() * 1e12));
    q->last_sent_ps = now;
  }
  if ((roles_ & kNotify) && c.ecn_marked > 0) {
    Qp* q = cc_.find(CongestionControl::key(c));
    if (!q) return;  // no reaction point on its way (not sent through a pacing NIC)
    if (q->last_cnp_gen_ps >= 0 && head_ps - q->last_cnp_gen_ps < cc_.params().cnp_interval_ps) return;
    q->last_cnp_gen_ps = head_ps;
    ++cnps_sent_;
    ++q->cnps_received;
    q->cnps.push_back(head_ps + cc_.return_delay(*c.route));
  }
}

bool CcPort::acted() const {
  if (marked_ > 0 || cnps_sent_ > 0) return true;
  for (const Qp* q : qps_)
    if (q->cnps_received > 0) return true;
  return false;
}

void CcPort::report(nlohmann::ordered_json& out, std::int64_t end_ps) const {
  if (roles_ & kMark) out["ecn_marked_packets"] = marked_;
  if (roles_ & kNotify) out["cnps_sent"] = cnps_sent_;
  if (!(roles_ & kPace) || qps_.empty()) return;
  std::uint64_t received = 0, cuts = 0;
  double min_rate = line_bps_, mean = 0;
  for (const Qp* q : qps_) {
    received += q->cnps_received;
    cuts += q->rate.cuts();
    min_rate = std::min(min_rate, q->rate.min_rate());
    // Mean over the QP's active span, from its first chunk to its last one's start.
    mean += q->rate.mean_rate(q->last_sent_ps);
  }
  nlohmann::ordered_json d;
  d["qps"] = qps_.size();
  d["cnps_received"] = received;
  d["rate_cuts"] = cuts;
  d["min_rate_bps"] = min_rate;
  d["mean_rate_bps"] = mean / static_cast<double>(qps_.size());
  out["dcqcn"] = d;
  (void)end_ps;
}

void CongestionControl::set_network_latency(int dir, std::int64_t ps) {
  if (dir >= static_cast<int>(latency_.size())) latency_.resize(static_cast<std::size_t>(dir) + 1, 0);
  latency_[static_cast<std::size_t>(dir)] = ps;
}

CcPort& CongestionControl::add_port(unsigned roles, double line_bps, std::uint64_t seed) {
  ports_.push_back(std::make_unique<CcPort>(*this, roles, line_bps, seed));
  return *ports_.back();
}

std::uint64_t CongestionControl::key(const ChunkExt& c) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.route->links.front())) << 32) |
         static_cast<std::uint32_t>(c.route->links.back());
}

Qp* CongestionControl::find(std::uint64_t key) {
  auto it = qps_.find(key);
  return it == qps_.end() ? nullptr : &it->second;
}

Qp& CongestionControl::get(std::uint64_t key, double line_bps, std::int64_t now) {
  auto it = qps_.find(key);
  if (it == qps_.end()) it = qps_.emplace(key, Qp(p_, line_bps, now)).first;
  return it->second;
}

std::int64_t CongestionControl::return_delay(const Route& r) const {
  std::int64_t d = 0;
  for (int l : r.links)
    if (l >= 0 && static_cast<std::size_t>(l) < latency_.size()) d += latency_[static_cast<std::size_t>(l)];
  return d;
}

bool CongestionControl::acted() const {
  for (const auto& p : ports_)
    if (p->acted()) return true;
  return false;
}

}  // namespace trainvp
