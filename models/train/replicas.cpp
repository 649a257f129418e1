#include "models/train/replicas.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/train/topk.hpp"

namespace trainvp {

Replicas::Replicas(const Mlp& mlp, const Dataset& data, int ranks, const TrainParams& p, std::vector<Slice> slices,
                   SyncValues mode, TrainCompression compression)
    : mlp_(mlp), data_(data), p_(p), slices_(std::move(slices)), mode_(mode), compression_(std::move(compression)) {
  if (ranks < 1) throw std::invalid_argument("training needs at least one rank");
  if (compression_.topk && compression_.slice_compressed.size() != slices_.size())
    throw std::invalid_argument("topk needs one compressed flag per slice");
  const std::vector<float> init = mlp_.initial(p_.seed);
  const std::size_t n = init.size();
  for (int r = 0; r < ranks; ++r) {
    shards_.push_back(shard_of(data_.train.size(), ranks, r));
    if (shards_.back().size < 1) throw std::invalid_argument("fewer training samples than ranks");
  }
  params_.assign(static_cast<std::size_t>(ranks), init);
  grad_.assign(static_cast<std::size_t>(ranks), std::vector<float>(n));
  if (p_.momentum > 0) momentum_.assign(static_cast<std::size_t>(ranks), std::vector<float>(n, 0.0f));
  if (compression_.topk && compression_.error_feedback)
    residual_.assign(static_cast<std::size_t>(ranks), std::vector<float>(n, 0.0f));
  anchor_ = init;
  sum_.assign(n, 0.0f);
  contribution_.assign(n, 0.0f);
  syncs_.assign(slices_.size(), 0);
}

template <class Value>
void Replicas::reduce(int s, Value value) {
  const Slice& sl = slices_[static_cast<std::size_t>(s)];
  const bool topk = compression_.topk && compression_.slice_compressed[static_cast<std::size_t>(s)];
  const std::size_t k = topk ? topk_count(sl.size(), compression_.ratio) : sl.size();
  std::fill(sum_.begin() + static_cast<std::ptrdiff_t>(sl.begin), sum_.begin() + static_cast<std::ptrdiff_t>(sl.end),
            0.0f);
  float* sum = sum_.data();
  for (int r = 0; r < ranks(); ++r) {
    if (!topk) {  // straight into the sum: the same additions in the same order
      for (std::size_t i = sl.begin; i < sl.end; ++i) sum[i] += value(r, i);
      continue;
    }
    float* c = contribution_.data();
    for (std::size_t i = sl.begin; i < sl.end; ++i) c[i] = value(r, i);
    topk_in_place(c + sl.begin, sl.size(), k,
                  residual_.empty() ? nullptr : residual_[static_cast<std::size_t>(r)].data() + sl.begin);
    for (std::size_t i = sl.begin; i < sl.end; ++i) sum[i] += c[i];
  }
  ++syncs_[static_cast<std::size_t>(s)];
}

void Replicas::average_gradients(const std::vector<int>& synced) {
  const float count = static_cast<float>(ranks()) * static_cast<float>(p_.batch);
  for (int s : synced) {
    reduce(s, [this](int r, std::size_t i) { return grad_[static_cast<std::size_t>(r)][i]; });
    const Slice& sl = slices_[static_cast<std::size_t>(s)];
    // The mean once per value, then copied rank by rank: a rank's values are contiguous, a value's
    // ranks are not (this was half of a time-to-accuracy run's time, done value by value).
    for (std::size_t i = sl.begin; i < sl.end; ++i) sum_[i] /= count;
    for (auto& gr : grad_)
      std::copy(sum_.begin() + static_cast<std::ptrdiff_t>(sl.begin),
                sum_.begin() + static_cast<std::ptrdiff_t>(sl.end), gr.begin() + static_cast<std::ptrdiff_t>(sl.begin));
  }
}

void Replicas::average_parameters(const std::vector<int>& synced) {
  const float count = static_cast<float>(ranks());
  for (int s : synced) {
    reduce(s, [this](int r, std::size_t i) { return params_[static_cast<std::size_t>(r)][i] - anchor_[i]; });
    const Slice& sl = slices_[static_cast<std::size_t>(s)];
    for (std::size_t i = sl.begin; i < sl.end; ++i) anchor_[i] += sum_[i] / count;
    for (auto& pr : params_)
      std::copy(anchor_.begin() + static_cast<std::ptrdiff_t>(sl.begin),
                anchor_.begin() + static_cast<std::ptrdiff_t>(sl.end),
                pr.begin() + static_cast<std::ptrdiff_t>(sl.begin));
  }
}

void Replicas::set_weak_syncs(std::vector<WeakSync> weak) {
  if (!weak.empty() && mode_ != SyncValues::Gradients) throw std::invalid_argument("weak-sync entries need gradients");
  weak_ = std::move(weak);
  weak_at_.clear();
  merge_at_.clear();
  correction_.assign(weak_.size(), {});
  for (std::size_t e = 0; e < weak_.size(); ++e) {
    const WeakSync& w = weak_[e];
    if (w.rank < 0 || w.rank >= ranks() || w.iteration < 0 || (w.merged >= 0 && w.merged <= w.iteration))
      throw std::invalid_argument("a weak-sync entry names a bad rank or iteration");
    const std::size_t need = static_cast<std::size_t>(std::max(w.iteration, w.merged)) + 1;
    if (weak_at_.size() < need) weak_at_.resize(need), merge_at_.resize(need);
    weak_at_[static_cast<std::size_t>(w.iteration)].push_back(e);
    if (w.merged >= 0) merge_at_[static_cast<std::size_t>(w.merged)].push_back(e);
  }
}

// After the means of `iteration` are in grad_: each weak-sync rank keeps its own gradient for the
// entry's slices (divided as local_step would) and the correction mean - own; then the entries
// merged in this step add their corrections, in entry order.
void Replicas::weak_syncs_of(int iteration, const std::vector<bool>& averaged) {
  const std::size_t it = static_cast<std::size_t>(iteration);
  if (it >= weak_at_.size()) return;
  const float batch = static_cast<float>(p_.batch);
  for (std::size_t e : weak_at_[it]) {
    const WeakSync& w = weak_[e];
    std::vector<float>& g = grad_[static_cast<std::size_t>(w.rank)];
    std::vector<float>& c = correction_[e];
    for (int s : w.slices) {
      const Slice& sl = slices_.at(static_cast<std::size_t>(s));
      for (std::size_t i = sl.begin; i < sl.end; ++i) {
        if (!averaged[i]) throw std::invalid_argument("a weak-sync slice was not synchronized in its iteration");
        const float own = own_[static_cast<std::size_t>(w.rank)][i] / batch;
        c.push_back(g[i] - own);
        g[i] = own;
      }
    }
  }
  for (std::size_t e : merge_at_[it]) {
    const WeakSync& w = weak_[e];
    std::vector<float>& g = grad_[static_cast<std::size_t>(w.rank)];
    std::size_t j = 0;
    for (int s : w.slices) {
      const Slice& sl = slices_[static_cast<std::size_t>(s)];
      for (std::size_t i = sl.begin; i < sl.end; ++i) {
        if (!averaged[i]) throw std::invalid_argument("a weak-sync correction merges into an unsynchronized slice");
        g[i] += correction_[e][j++];
      }
    }
    correction_[e] = {};
  }
}

// `averaged`: per value, whether grad_ already holds the mean gradient (else the rank's own sum).
void Replicas::local_step(int rank, const std::vector<bool>& averaged) {
  std::vector<float>& x = params_[static_cast<std::size_t>(rank)];
  std::vector<float>& g = grad_[static_cast<std::size_t>(rank)];
  const float lr = static_cast<float>(p_.lr), mu = static_cast<float>(p_.momentum);
  const float batch = static_cast<float>(p_.batch);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float gi = averaged[i] ? g[i] : g[i] / batch;
    if (momentum_.empty()) {
      x[i] -= lr * gi;
    } else {
      float& m = momentum_[static_cast<std::size_t>(rank)][i];
      m = mu * m + gi;
      x[i] -= lr * m;
    }
  }
}

Replicas::Step Replicas::iteration(int it, const std::vector<int>& synced) {
  Step st;
  int correct = 0;
  for (int r = 0; r < ranks(); ++r) {
    std::vector<float>& g = grad_[static_cast<std::size_t>(r)];
    std::fill(g.begin(), g.end(), 0.0f);
    const Mlp::Sums s = mlp_.gradient_sum(params_[static_cast<std::size_t>(r)], data_.train,
                                          batch_of(shards_[static_cast<std::size_t>(r)], p_.batch, it), g);
    st.loss += s.loss;
    correct += s.correct;
  }
  const double samples = static_cast<double>(ranks()) * p_.batch;
  st.loss /= samples;
  st.accuracy = correct / samples;
  std::vector<bool> averaged(sum_.size(), false);
  if (mode_ == SyncValues::Gradients) {
    // The weak-sync ranks' own gradients, before the means overwrite them.
    const bool weak = static_cast<std::size_t>(it) < weak_at_.size() && !weak_at_[static_cast<std::size_t>(it)].empty();
    if (weak) {
      own_.resize(grad_.size());
      for (std::size_t e : weak_at_[static_cast<std::size_t>(it)])
        own_[static_cast<std::size_t>(weak_[e].rank)] = grad_[static_cast<std::size_t>(weak_[e].rank)];
    }
    average_gradients(synced);
    for (int s : synced)
      std::fill(averaged.begin() + static_cast<std::ptrdiff_t>(slices_[static_cast<std::size_t>(s)].begin),
                averaged.begin() + static_cast<std::ptrdiff_t>(slices_[static_cast<std::size_t>(s)].end), true);
    weak_syncs_of(it, averaged);
  }
  if (mode_ == SyncValues::ParametersBeforeStep) average_parameters(synced);
  for (int r = 0; r < ranks(); ++r) local_step(r, averaged);
  if (mode_ == SyncValues::ParametersAfterStep) average_parameters(synced);
  return st;
}

std::vector<float> Replicas::mean_model() const {
  std::vector<float> out = params_.front();
  const float count = static_cast<float>(ranks());
  for (std::size_t i = 0; i < out.size(); ++i) {
    float d = 0.0f;
    for (const auto& pr : params_) d += pr[i] - params_.front()[i];
    out[i] += d / count;
  }
  return out;
}

}  // namespace trainvp
