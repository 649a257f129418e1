// Ski-rental escalation (ski_rental.hpp).
#include "models/health/algorithms/ski_rental.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainvp {

SkiRental::SkiRental(std::vector<double> step_costs_s) : cost_(std::move(step_costs_s)) {
  if (cost_.empty() || cost_[0] != 0) throw std::invalid_argument("SkiRental: needs steps, the first costing 0");
  for (double c : cost_)
    if (!(c >= 0) || !std::isfinite(c)) throw std::invalid_argument("SkiRental: costs must be finite and >= 0");
}

int SkiRental::add(double slow_s, double healthy_s) {
  if (slow_s > healthy_s) loss_ += slow_s - healthy_s;
  const std::size_t next = static_cast<std::size_t>(step_) + 1;
  if (next < cost_.size() && loss_ >= cost_[next]) {
    ++step_;
    loss_ = 0;
  }
  return step_;
}

void SkiRental::reset() {
  step_ = 0;
  loss_ = 0;
}

}  // namespace trainvp
