#include "models/train/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "platform/core/run_context.hpp"

namespace trainvp {

float dot(const float* a, const float* b, int n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += a[i + k] * b[i + k];
  for (int k = 0; i < n; ++i, ++k) acc[k] += a[i] * b[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

Mlp::Mlp(std::vector<int> widths) : widths_(std::move(widths)) {
  if (widths_.size() < 2) throw std::invalid_argument("an MLP needs at least its input and output widths");
  for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
    offset_.push_back(size_);
    size_ += static_cast<std::size_t>(widths_[l]) * static_cast<std::size_t>(widths_[l + 1]) +
             static_cast<std::size_t>(widths_[l + 1]);
  }
}

std::vector<float> Mlp::initial(std::uint64_t seed) const {
  std::mt19937_64 g = seeded_stream(seed, "train.init");
  std::vector<float> w(size_, 0.0f);
  for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
    const double scale = std::sqrt(2.0 / widths_[l]);
    const std::size_t n = static_cast<std::size_t>(widths_[l]) * static_cast<std::size_t>(widths_[l + 1]);
    // Box-Muller from the generator's bits (see dataset.cpp): the same values on every platform.
    for (std::size_t i = 0; i < n; i += 2) {
      const double u1 = (static_cast<double>(g() >> 11) + 1.0) * 0x1.0p-53,
                   u2 = static_cast<double>(g() >> 11) * 0x1.0p-53;
      const double r = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
      w[offset_[l] + i] = static_cast<float>(scale * r * std::cos(a));
      if (i + 1 < n) w[offset_[l] + i + 1] = static_cast<float>(scale * r * std::sin(a));
    }
  }
  return w;
}

double Mlp::forward(const std::vector<float>& w, const float* x, int label, std::vector<std::vector<float>>& acts,
                    bool& correct) const {
  const std::size_t layers = widths_.size() - 1;
  acts.resize(widths_.size());
  acts[0].assign(x, x + widths_[0]);
  for (std::size_t l = 0; l < layers; ++l) {
    const int in = widths_[l], out = widths_[l + 1];
    std::vector<float>& z = acts[l + 1];
    z.resize(static_cast<std::size_t>(out));
    const float* W = w.data() + weight_at(l);
    const float* b = w.data() + bias_at(l);
    for (int j = 0; j < out; ++j) {
      float v = dot(W + static_cast<std::size_t>(j) * static_cast<std::size_t>(in), acts[l].data(), in) + b[j];
      z[static_cast<std::size_t>(j)] = (l + 1 < layers && v < 0) ? 0.0f : v;  // ReLU except on the logits
    }
  }
  // Softmax cross-entropy in double, from the largest logit (no overflow).
  const std::vector<float>& z = acts[layers];
  const int best = static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
  double sum = 0;
  for (float v : z) sum += std::exp(static_cast<double>(v) - z[static_cast<std::size_t>(best)]);
  correct = best == label;
  return std::log(sum) - (static_cast<double>(z[static_cast<std::size_t>(label)]) - z[static_cast<std::size_t>(best)]);
}

Mlp::Sums Mlp::gradient_sum(const std::vector<float>& w, const Samples& data, const std::vector<int>& batch,
                            std::vector<float>& grad) const {
  const std::size_t layers = widths_.size() - 1;
  std::vector<std::vector<float>> acts;
  std::vector<float> delta, below;
  Sums s;
  for (int i : batch) {
    bool correct = false;
    const int label = data.label[static_cast<std::size_t>(i)];
    s.loss += forward(w, data.row(i), label, acts, correct);
    s.correct += correct;
    // dL/dz of the logits: softmax - one-hot.
    const std::vector<float>& z = acts[layers];
    const float top = *std::max_element(z.begin(), z.end());
    delta.resize(z.size());
    double sum = 0;
    for (std::size_t j = 0; j < z.size(); ++j) sum += std::exp(static_cast<double>(z[j]) - top);
    for (std::size_t j = 0; j < z.size(); ++j)
      delta[j] = static_cast<float>(std::exp(static_cast<double>(z[j]) - top) / sum) -
                 (static_cast<int>(j) == label ? 1.0f : 0.0f);
    for (std::size_t l = layers; l-- > 0;) {
      const int in = widths_[l], out = widths_[l + 1];
      const float* W = w.data() + weight_at(l);
      float* dW = grad.data() + weight_at(l);
      float* db = grad.data() + bias_at(l);
      const float* a = acts[l].data();
      if (l > 0) below.assign(static_cast<std::size_t>(in), 0.0f);
      for (int j = 0; j < out; ++j) {
        const float d = delta[static_cast<std::size_t>(j)];
        if (d == 0.0f) continue;  // adds nothing (a ReLU that was off)
        float* row = dW + static_cast<std::size_t>(j) * static_cast<std::size_t>(in);
        for (int k = 0; k < in; ++k) row[k] += d * a[k];
        db[j] += d;
        if (l > 0) {
          const float* wr = W + static_cast<std::size_t>(j) * static_cast<std::size_t>(in);
          for (int k = 0; k < in; ++k) below[static_cast<std::size_t>(k)] += d * wr[k];
        }
      }
      if (l > 0) {
        for (int k = 0; k < in; ++k)  // through the ReLU: zero where it was off
          if (a[k] <= 0.0f) below[static_cast<std::size_t>(k)] = 0.0f;
        delta.swap(below);
      }
    }
  }
  return s;
}

Mlp::Sums Mlp::evaluate(const std::vector<float>& w, const Samples& data) const {
  std::vector<std::vector<float>> acts;
  Sums s;
  for (int i = 0; i < data.size(); ++i) {
    bool correct = false;
    s.loss += forward(w, data.row(i), data.label[static_cast<std::size_t>(i)], acts, correct);
    s.correct += correct;
  }
  return s;
}

}  // namespace trainvp
