#pragma once
// The real model: a multi-layer perceptron (dense layers, ReLU between, softmax cross-entropy)
// over one flat float parameter vector, laid out layer by layer in forward order, each layer's
// weights (out x in, row-major) then its biases. Every sum runs in a fixed order (samples in
// batch order, features in index order), so the same inputs give the same bits.
#include <cstdint>
#include <random>
#include <vector>

#include "models/train/dataset.hpp"

namespace trainvp {

class Mlp {
 public:
  // widths: features, hidden..., classes.
  explicit Mlp(std::vector<int> widths);

  std::size_t parameters() const { return size_; }
  const std::vector<int>& widths() const { return widths_; }
  // He-normal weights (N(0, 2 / fan-in)), zero biases, from the seed's "train.init" stream.
  std::vector<float> initial(std::uint64_t seed) const;

  struct Sums {
    double loss = 0;  // sum of the samples' cross-entropy
    int correct = 0;  // samples whose largest logit is their label
  };
  // Adds to `grad` (parameters() values) the sum over `batch` (indices into `data`, in order) of
  // each sample's loss gradient, and returns the sums of loss and correct predictions.
  Sums gradient_sum(const std::vector<float>& w, const Samples& data, const std::vector<int>& batch,
                    std::vector<float>& grad) const;
  // Loss and correct predictions over every sample of `data` (no gradient).
  Sums evaluate(const std::vector<float>& w, const Samples& data) const;

 private:
  std::size_t weight_at(std::size_t layer) const { return offset_[layer]; }
  std::size_t bias_at(std::size_t layer) const {
    return offset_[layer] + static_cast<std::size_t>(widths_[layer]) * static_cast<std::size_t>(widths_[layer + 1]);
  }
  // Activations of every layer for one sample (acts[0] = the input, acts[L] = the logits); returns
  // the sample's loss, and whether its largest logit is the label.
  double forward(const std::vector<float>& w, const float* x, int label, std::vector<std::vector<float>>& acts,
                 bool& correct) const;

  std::vector<int> widths_;
  std::vector<std::size_t> offset_;  // per layer: where its weights start
  std::size_t size_ = 0;
};

// A dot product summed in eight interleaved partial sums, combined in a fixed order: the same bits
// for the same inputs, and a loop the compiler can vectorize.
float dot(const float* a, const float* b, int n);

}  // namespace trainvp
