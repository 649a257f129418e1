#pragma once
// The seeded synthetic classification data set of the real training (train_params.hpp): a
// Gaussian mixture with `clusters` centres per class, so the classes are not linearly separable
// and an MLP has something to learn. Drawn from the run's seed with its own generator (no
// std::normal_distribution, whose draws differ between standard libraries), so the same seed
// gives the same values everywhere.
#include <cstdint>
#include <vector>

#include "models/train/train_params.hpp"

namespace trainvp {

struct Samples {
  int features = 0;
  std::vector<float> x;  // row-major, one row of `features` values per sample
  std::vector<int> label;
  int size() const { return static_cast<int>(label.size()); }
  const float* row(int i) const { return x.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(features); }
};

struct Dataset {
  Samples train, test;
};

// Train and test sets of p.train_samples and p.test_samples, drawn from the same mixture.
Dataset make_dataset(const TrainParams& p);

// Rank r's shard of `samples` among `ranks`: the contiguous run [r n / ranks, (r + 1) n / ranks)
// with n the largest multiple of `ranks` not above the set's size (equal shards).
struct Shard {
  int first = 0, size = 0;
};
Shard shard_of(int samples, int ranks, int rank);

// The sample indices a rank trains on in `iteration`: `batch` consecutive samples of its shard,
// continuing where the last iteration stopped and wrapping around at the shard's end.
std::vector<int> batch_of(const Shard& s, int batch, int iteration);

}  // namespace trainvp
