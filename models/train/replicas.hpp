#pragma once
// One copy of the real model per rank, and what a synchronization strategy does to the real
// values (docs/strategies.md#time-to-accuracy):
//
// - Gradients (ddp, ddp_no_overlap, layerwise, blockwise, adaptive, asc_wfbp): the synchronized
//   slices' gradients are summed over the ranks (rank 0 first) and divided by ranks x batch before
//   the step; a slice not synchronized steps with the rank's own gradient.
// - ParametersBeforeStep (plsgd, dreamddp: the averages overlap the backward and the step waits
//   for them): the synchronized slices are averaged, then every rank steps with its own gradient.
// - ParametersAfterStep (localsgd): every rank steps, then the synchronized slices are averaged.
//
// - Elastic (Gradients with weak-sync entries, set_weak_syncs): a rank that was weak-sync for a
//   slice in iteration r steps with its own gradient there; the mean it missed is kept as the
//   correction mean - own, and added to the rank's gradient of that slice in the step that merges
//   it. With no weak-sync entries nothing differs from Gradients, bit for bit.
//
// Parameters are averaged as anchor + mean(x_r - anchor), with the anchor the value every rank
// held after the slice's last average: the change since then is what compressed Local SGD sends.
// Compression (topk) replaces each rank's contribution of a compressed slice by its top-k, with
// error feedback. Every sum runs in rank order, so results depend on nothing but the inputs.
#include <cstdint>
#include <vector>

#include "models/train/dataset.hpp"
#include "models/train/mlp.hpp"
#include "models/train/slices.hpp"
#include "models/train/train_params.hpp"

namespace trainvp {

enum class SyncValues { None, Gradients, ParametersBeforeStep, ParametersAfterStep };

struct TrainCompression {
  bool topk = false;
  double ratio = 1;
  bool error_feedback = true;
  std::vector<bool> slice_compressed;  // per slice: the modelled layer was compressed
};

// Elastic: rank `rank` stepped iteration `iteration` without the mean of `slices`, and merges it
// in the step of iteration `merged` (> iteration; -1: never).
struct WeakSync {
  int rank = 0;
  int iteration = 0;
  int merged = -1;
  std::vector<int> slices;
};

class Replicas {
 public:
  Replicas(const Mlp& mlp, const Dataset& data, int ranks, const TrainParams& p, std::vector<Slice> slices,
           SyncValues mode, TrainCompression compression = {});

  struct Step {
    double loss = 0;      // mean training loss over every rank's batch
    double accuracy = 0;  // fraction of those samples predicted right (before the step)
  };
  // Iteration `iteration`: every rank's gradient on its batch, then the strategy's semantics with
  // `synced` (indices of slices) synchronized.
  Step iteration(int iteration, const std::vector<int>& synced);

  // Elastic's weak-sync entries (mode Gradients only); each slice must be synchronized in its iteration.
  void set_weak_syncs(std::vector<WeakSync> weak);

  int ranks() const { return static_cast<int>(params_.size()); }
  const std::vector<float>& params(int rank) const { return params_[static_cast<std::size_t>(rank)]; }
  // The mean of the ranks' models (what one final average would give): rank 0's values plus the
  // mean difference, so identical replicas give exactly their own values.
  std::vector<float> mean_model() const;
  // Synchronizations of each slice so far.
  const std::vector<int>& syncs() const { return syncs_; }

 private:
  void average_gradients(const std::vector<int>& synced);
  void average_parameters(const std::vector<int>& synced);
  void local_step(int rank, const std::vector<bool>& averaged);
  void weak_syncs_of(int iteration, const std::vector<bool>& averaged);
  // Sums over the ranks of `value(r)` on slice s (compressed if the slice is), into sum_.
  template <class Value>
  void reduce(int s, Value value);

  const Mlp& mlp_;
  const Dataset& data_;
  TrainParams p_;
  std::vector<Slice> slices_;
  SyncValues mode_;
  TrainCompression compression_;
  std::vector<Shard> shards_;
  std::vector<std::vector<float>> params_, grad_, momentum_, residual_;  // [rank][value]
  std::vector<float> anchor_, sum_, contribution_;
  std::vector<int> syncs_;
  std::vector<WeakSync> weak_;
  std::vector<std::vector<std::size_t>> weak_at_, merge_at_;  // [iteration] -> indices into weak_
  std::vector<std::vector<float>> own_;                       // [rank] -> its gradient sum, when weak-sync
  std::vector<std::vector<float>> correction_;                // [weak entry] -> mean - own, slice by slice
};

}  // namespace trainvp
