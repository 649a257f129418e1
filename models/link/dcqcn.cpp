#include "models/link/dcqcn.hpp"

#include <algorithm>
#include <cmath>

namespace trainvp {

DcqcnRate::DcqcnRate(const DcqcnParams& p, double line_bps, std::int64_t start_ps)
    : p_(p),
      line_(line_bps),
      rc_(line_bps),
      rt_(line_bps),
      next_rate_timer_(start_ps + p.rate_timer_ps),
      next_alpha_timer_(start_ps + p.alpha_timer_ps),
      min_rc_(line_bps),
      start_ps_(start_ps),
      since_ps_(start_ps) {}

void DcqcnRate::set_rc(double rc, std::int64_t t) {
  rate_ps_ += rc_ * static_cast<double>(t - since_ps_);
  since_ps_ = t;
  rc_ = std::min(rc, line_);
  min_rc_ = std::min(min_rc_, rc_);
}

double DcqcnRate::mean_rate(std::int64_t t) const {
  if (t <= start_ps_) return rc_;
  return (rate_ps_ + rc_ * static_cast<double>(t - since_ps_)) / static_cast<double>(t - start_ps_);
}

void DcqcnRate::increase(bool timer) {
  (timer ? t_stage_ : bc_stage_) += 1;
  const int F = p_.fast_recovery;
  const int hi = std::max(t_stage_, bc_stage_), lo = std::min(t_stage_, bc_stage_);
  if (hi <= F) {
    // fast recovery: halve the distance to the target
  } else if (lo > F) {
    rt_ = std::min(line_, rt_ + static_cast<double>(lo - F) * p_.rate_hai_bps);
  } else {
    rt_ = std::min(line_, rt_ + p_.rate_ai_bps);
  }
}

void DcqcnRate::advance(std::int64_t t) {
  for (;;) {
    const std::int64_t next = std::min(next_rate_timer_, next_alpha_timer_);
    if (next > t) return;
    if (rc_ >= line_ && rt_ >= line_) {
      // At line rate the increases change nothing: the events up to t only count and decay alpha
      // (closed form, so a QP idle for a long time costs no loop).
      const std::int64_t kr = next_rate_timer_ <= t ? (t - next_rate_timer_) / p_.rate_timer_ps + 1 : 0;
      const std::int64_t ka = next_alpha_timer_ <= t ? (t - next_alpha_timer_) / p_.alpha_timer_ps + 1 : 0;
      t_stage_ = static_cast<int>(std::min<std::int64_t>(t_stage_ + kr, 1 << 30));
      next_rate_timer_ += kr * p_.rate_timer_ps;
      alpha_ *= std::pow(1.0 - p_.g, static_cast<double>(ka));
      next_alpha_timer_ += ka * p_.alpha_timer_ps;
      return;
    }
    if (next_alpha_timer_ <= next_rate_timer_) {  // same instant: decay first (no CNP came)
      alpha_ *= 1.0 - p_.g;
      next_alpha_timer_ += p_.alpha_timer_ps;
    } else {
      increase(true);
      set_rc((rt_ + rc_) / 2, next_rate_timer_);
      next_rate_timer_ += p_.rate_timer_ps;
    }
  }
}

void DcqcnRate::on_cnp(std::int64_t t) {
  advance(t);
  ++cuts_;
  rt_ = rc_;
  set_rc(std::max(p_.min_rate_bps, rc_ * (1.0 - alpha_ / 2)), t);
  alpha_ = (1.0 - p_.g) * alpha_ + p_.g;
  t_stage_ = bc_stage_ = 0;
  bytes_ = 0;
  next_rate_timer_ = t + p_.rate_timer_ps;
  next_alpha_timer_ = t + p_.alpha_timer_ps;
}

void DcqcnRate::on_sent(std::int64_t t, std::uint64_t bytes) {
  advance(t);
  bytes_ += bytes;
  while (bytes_ >= p_.byte_counter) {
    bytes_ -= p_.byte_counter;
    increase(false);
    set_rc((rt_ + rc_) / 2, t);
  }
}

}  // namespace trainvp
