// Bayesian online change-point detection (bocpd.hpp).
#include "models/health/algorithms/bocpd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace trainvp {
namespace {

constexpr double kKappa0 = 0.01;
constexpr double kPi = 3.14159265358979323846;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

}  // namespace

Bocpd::Bocpd(BocpdParams p) : p_(p) {
  if (!(p.hazard_lambda > 1) || !(p.noise > 0) || p.window < 1 || p.max_run < p.window)
    throw std::invalid_argument("Bocpd: needs hazard_lambda > 1, noise > 0, 1 <= window <= max_run");
  alpha0_ = std::max(1.0, p.max_run / 2.0);
  log_h_ = -std::log(p.hazard_lambda);
  log_1mh_ = std::log1p(-1 / p.hazard_lambda);
  lgamma_ratio_.resize(static_cast<std::size_t>(p.max_run) + 1);
  for (std::size_t r = 0; r < lgamma_ratio_.size(); ++r) {
    const double a = alpha0_ + 0.5 * static_cast<double>(r);
    lgamma_ratio_[r] = std::lgamma(a + 0.5) - std::lgamma(a);
  }
}

void Bocpd::reset() {
  n_ = 0;
  log_p_.clear(), mu_.clear(), beta_.clear();
}

double Bocpd::update(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("Bocpd::update: observation must be finite and > 0");
  if (n_ == 0) {
    mu0_ = x;
    beta0_ = alpha0_ * (p_.noise * x) * (p_.noise * x);
    log_p_.assign(1, 0.0), mu_.assign(1, mu0_), beta_.assign(1, beta0_);
  }
  ++n_;
  const std::size_t size = log_p_.size(), cap = static_cast<std::size_t>(p_.max_run);
  // Each run's Student-t predictive of x, joined with the run's posterior.
  joint_.resize(size);
  double hi = kNegInf;
  for (std::size_t r = 0; r < size; ++r) {
    const double kappa = kKappa0 + static_cast<double>(r), alpha = alpha0_ + 0.5 * static_cast<double>(r);
    const double s2 = beta_[r] * (kappa + 1) / (alpha * kappa), nu = 2 * alpha, d = x - mu_[r];
    joint_[r] =
        log_p_[r] + lgamma_ratio_[r] - 0.5 * std::log(nu * kPi * s2) - (alpha + 0.5) * std::log1p(d * d / (s2 * nu));
    hi = std::max(hi, joint_[r]);
  }
  double sum = 0;
  for (double j : joint_) sum += std::exp(j - hi);
  const double log_evidence = hi + std::log(sum);
  // Growth by one (the capped run absorbs the one beyond it) or a change (mass: the hazard).
  const std::size_t next_size = std::min(size + 1, cap + 1);
  next_p_.assign(next_size, kNegInf), next_mu_.resize(next_size), next_beta_.resize(next_size);
  next_p_[0] = log_h_, next_mu_[0] = mu0_, next_beta_[0] = beta0_;
  for (std::size_t r = 0; r < size; ++r) {
    const std::size_t t = std::min(r + 1, cap);
    next_p_[t] = log_add(next_p_[t], joint_[r] - log_evidence + log_1mh_);
    if (t == r + 1) {  // the capped run keeps the younger statistics: the last max_run observations
      const double kappa = kKappa0 + static_cast<double>(r), d = x - mu_[r];
      next_mu_[t] = (kappa * mu_[r] + x) / (kappa + 1);
      next_beta_[t] = beta_[r] + kappa * d * d / (2 * (kappa + 1));
    }
  }
  log_p_.swap(next_p_), mu_.swap(next_mu_), beta_.swap(next_beta_);
  return reset_probability();
}

double Bocpd::reset_probability() const {
  if (log_p_.size() <= static_cast<std::size_t>(p_.window)) return 1;  // every run is short
  double p = 0;
  for (std::size_t r = 0; r < log_p_.size() && r < static_cast<std::size_t>(p_.window); ++r) p += std::exp(log_p_[r]);
  return std::min(p, 1.0);
}

int Bocpd::most_likely_run() const {
  return static_cast<int>(std::max_element(log_p_.begin(), log_p_.end()) - log_p_.begin());
}

}  // namespace trainvp
