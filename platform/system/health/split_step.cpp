#include "platform/system/health/split_step.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "models/health/algorithms/rebalance.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

SplitStep::SplitStep(Shape shape, CommonBoundary& boundary, DiagnosisSource* monitor,
                     std::function<void(std::vector<int>)> healed)
    : shape_(std::move(shape)),
      boundary_(boundary),
      monitor_(monitor),
      on_healed_(std::move(healed)),
      factor_(static_cast<std::size_t>(shape_.replicas), 1.0),
      gpu_factor_(shape_.replica_of.size(), 1.0) {}

bool SplitStep::note(const Diagnosis& d) {
  bool more = false;
  for (int g : d.gpus) {
    double f = d.cause == FailCause::Cpu ? d.slowdown : 1.0;
    if (d.cause == FailCause::Compute)
      for (const GemmProbeResult& r : monitor_->gemm_probes())
        if (r.rank == g && r.expected_s > 0) f = std::max(f, r.measured_s / r.expected_s);
    double& cur = factor_[static_cast<std::size_t>(replica_of(g))];
    if (f > cur) cur = f, more = true;
    if (d.cause == FailCause::Compute && std::find(slow_gpus_.begin(), slow_gpus_.end(), g) == slow_gpus_.end())
      slow_gpus_.push_back(g);
    double& own = gpu_factor_[static_cast<std::size_t>(g)];
    own = std::max(own, f);
  }
  return more;
}

void SplitStep::known_slow(int rank, double speed) {
  double& cur = factor_[static_cast<std::size_t>(replica_of(rank))];
  cur = std::max(cur, 1.0 / speed);
}

void SplitStep::known_healthy(int rank) { factor_[static_cast<std::size_t>(replica_of(rank))] = 1.0; }

bool SplitStep::rebalance(MitigationAction& a) {
  if (std::all_of(factor_.begin(), factor_.end(), [](double f) { return f <= 1.0; })) return false;
  const std::vector<int> m = rebalance_micro_batches(factor_, shape_.units * shape_.replicas);
  for (int k : boundary_.ranks())
    boundary_.scale(k, static_cast<double>(m[static_cast<std::size_t>(replica_of(k))]) / shape_.units);
  a.units = m;
  split_ = true;
  return true;
}

void SplitStep::even(MitigationAction& a) {
  boundary_.scale_all(1.0);
  a.units.assign(static_cast<std::size_t>(shape_.replicas), shape_.units);
  split_ = false;
}

void SplitStep::drop() {
  if (split_) boundary_.scale_all(1.0);
  split_ = false;
}

void SplitStep::forget() {
  slow_gpus_.clear(), found_slow_ps_.clear();
  std::fill(gpu_factor_.begin(), gpu_factor_.end(), 1.0);
  std::fill(factor_.begin(), factor_.end(), 1.0);
}

void SplitStep::follow(const std::vector<int>& where) {
  std::vector<double> moved(gpu_factor_.size(), 1.0);
  for (std::size_t r = 0; r < where.size(); ++r) moved[static_cast<std::size_t>(where[r])] = gpu_factor_[r];
  gpu_factor_ = std::move(moved);
  for (int& g : slow_gpus_) g = where[static_cast<std::size_t>(g)];
  found_slow_ps_.clear();  // probed where the hardware was
  std::fill(factor_.begin(), factor_.end(), 1.0);
  for (std::size_t r = 0; r < gpu_factor_.size(); ++r) {
    double& f = factor_[static_cast<std::size_t>(shape_.replica_of[r])];
    f = std::max(f, gpu_factor_[r]);
  }
}

void SplitStep::window(const MonitorWindow& w, bool move_pending, int every, std::int64_t last_fault_change_ps) {
  if (!split_ || slow_gpus_.empty() || checking_ || move_pending || ++since_check_ < every) return;
  if (w.fast_forwarded && known(last_fault_change_ps)) since_check_ = 0, ++rechecks_fast_forwarded_;
  else recheck();
}

void SplitStep::recheck() {
  since_check_ = 0;
  checking_ = true;
  ++rechecks_;
  auto left = std::make_shared<int>(static_cast<int>(slow_gpus_.size()));
  auto healed = std::make_shared<std::vector<int>>();
  for (int g : slow_gpus_)
    monitor_->gemm_check(g, [this, g, left, healed, at = now_ps()](double ratio) {
      if (ratio < 1 + monitor_->params().probe_threshold) healed->push_back(g);
      else found_slow_ps_[g] = at;
      if (--*left > 0) return;
      checking_ = false;
      if (split_ && !healed->empty()) on_healed_(*healed);
    });
}

bool SplitStep::known(std::int64_t last_fault_change_ps) const {
  return std::all_of(slow_gpus_.begin(), slow_gpus_.end(), [&](int g) {
    auto it = found_slow_ps_.find(g);
    return it != found_slow_ps_.end() && it->second > last_fault_change_ps;
  });
}

std::int64_t SplitStep::windows_to_recheck(int every, std::int64_t last_fault_change_ps) const {
  if (!split_ || slow_gpus_.empty() || known(last_fault_change_ps)) return -1;
  return std::max<std::int64_t>(every - since_check_ - 2, 0);
}

void SplitStep::healed(const std::vector<int>& healed) {
  std::set<int> replicas;
  for (int g : healed) {
    slow_gpus_.erase(std::find(slow_gpus_.begin(), slow_gpus_.end(), g));
    gpu_factor_[static_cast<std::size_t>(g)] = 1.0;
    replicas.insert(replica_of(g));
  }
  for (int r : replicas) {
    double f = 1.0;
    for (int g : slow_gpus_)
      if (replica_of(g) == r) f = std::max(f, gpu_factor_[static_cast<std::size_t>(g)]);
    factor_[static_cast<std::size_t>(r)] = f;
  }
}

}  // namespace trainvp
