#pragma once
// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015): the
// reaction point's rate state machine of one queue pair, kept free of SystemC time so that it can
// be driven and tested alone: the caller feeds it CNP arrivals and bytes sent, each with the time
// (ps) at which it happens, and reads the current rate. Timer-driven events (the alpha decay and
// the rate-increase timer) between two calls are applied lazily, in time order, by advance().
//
// The rules (docs/fabric.md#ecn-and-dcqcn):
//  - CNP: Rt = Rc, Rc = max(min_rate, Rc (1 - alpha / 2)), alpha = (1 - g) alpha + g; the rate
//    timer, the byte counter and both stage counters restart, and so does the alpha timer.
//  - alpha timer: every alpha_timer without a CNP, alpha = (1 - g) alpha.
//  - rate-increase events: the timer (every rate_timer since the last CNP) increments T, the byte
//    counter (every byte_counter bytes sent since the last CNP) increments BC. After each event:
//    fast recovery while max(T, BC) <= F (the first F events), Rc = (Rt + Rc) / 2;
//    hyper increase when min(T, BC) > F: Rt += (min(T, BC) - F) R_HAI, then Rc = (Rt + Rc) / 2;
//    otherwise additive increase: Rt += R_AI, then Rc = (Rt + Rc) / 2. Rt and Rc never exceed the
//    line rate.
#include <cstdint>

namespace trainvp {

struct DcqcnParams {
  // ECN marking at switch egress queues (RED-like, on the instantaneous queue).
  std::uint64_t kmin = 5000;    // bytes: no marking below
  std::uint64_t kmax = 200000;  // bytes: marking probability pmax here, 1 above
  double pmax = 0.01;
  // Notification point (receiving NIC).
  std::int64_t cnp_interval_ps = 50000000;  // at most one CNP per QP per interval
  // Reaction point (sending NIC).
  double g = 1.0 / 256;
  std::int64_t alpha_timer_ps = 55000000;
  std::int64_t rate_timer_ps = 55000000;
  std::uint64_t byte_counter = 10000000;  // bytes
  int fast_recovery = 5;                  // F
  double rate_ai_bps = 40e6;
  double rate_hai_bps = 200e6;
  double min_rate_bps = 100e6;
};

// Marking probability of a packet that finds `queue` bytes ahead of it.
inline double ecn_probability(const DcqcnParams& p, double queue) {
  if (queue <= static_cast<double>(p.kmin)) return 0;
  if (queue > static_cast<double>(p.kmax)) return 1;
  return p.pmax * (queue - static_cast<double>(p.kmin)) / static_cast<double>(p.kmax - p.kmin);
}

class DcqcnRate {
 public:
  DcqcnRate(const DcqcnParams& p, double line_bps, std::int64_t start_ps = 0);
  // Applies the timer events due up to and including `t` (t never decreases between calls).
  void advance(std::int64_t t);
  void on_cnp(std::int64_t t);
  void on_sent(std::int64_t t, std::uint64_t bytes);

  double rate() const { return rc_; }
  double target() const { return rt_; }
  double alpha() const { return alpha_; }
  int timer_stage() const { return t_stage_; }
  int byte_stage() const { return bc_stage_; }
  // Statistics: CNPs taken, the lowest rate reached, the time-weighted mean rate since start.
  std::uint64_t cuts() const { return cuts_; }
  double min_rate() const { return min_rc_; }
  double mean_rate(std::int64_t t) const;

 private:
  void increase(bool timer);
  void set_rc(double rc, std::int64_t t);

  const DcqcnParams& p_;
  double line_;
  double rc_, rt_, alpha_ = 1.0;
  int t_stage_ = 0, bc_stage_ = 0;
  std::uint64_t bytes_ = 0;  // sent since the last byte-counter event or CNP
  std::int64_t next_rate_timer_, next_alpha_timer_;
  std::uint64_t cuts_ = 0;
  double min_rc_;
  std::int64_t start_ps_, since_ps_;  // rate integral from start to since
  double rate_ps_ = 0;
};

}  // namespace trainvp
