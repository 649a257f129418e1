// The strategies' semantics on the real values (issue #17 item 6): DDP with equal shards is
// single-worker training on the full batch, Local SGD with H = 1 is DDP, partial averaging
// averages each slice once per period, top-k at ratio 1 is no compression.
#include <gtest/gtest.h>

#include <cmath>

#include "models/train/replicas.hpp"

namespace trainvp {
namespace test_replicas {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

struct Toy {
  TrainParams p;
  Dataset data;
  Mlp mlp;
  std::vector<Slice> slices;
  explicit Toy(double momentum = 0)
      : p(params(momentum)),
        data(make_dataset(p)),
        mlp({p.features, 24, 16, p.classes}),
        slices(proportional_slices({5, 0, 3, 8, 2}, mlp.parameters())) {}
  static TrainParams params(double momentum) {
    TrainParams p;
    p.features = 12, p.classes = 4, p.clusters = 2, p.noise = 1.0, p.train_samples = 4 * 40, p.test_samples = 64;
    p.hidden = {24, 16};
    p.batch = 5, p.lr = 0.0625, p.momentum = momentum;
    return p;
  }
  std::vector<int> all() const { return {0, 1, 2, 3, 4}; }
};

constexpr int kRanks = 4, kIterations = 30;

TEST(TrainReplicas, DdpWithEqualShardsIsSingleWorkerOnTheFullBatchBitForBit) {
  for (double momentum : {0.0, 0.9}) {
    Toy s(momentum);
    Replicas ddp(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
    // One worker, the whole batch (every rank's samples), its gradient summed shard by shard in rank order.
    std::vector<float> w = s.mlp.initial(s.p.seed), m(w.size(), 0.0f), sum(w.size()), block(w.size());
    const float lr = static_cast<float>(s.p.lr), mu = static_cast<float>(momentum);
    const float count = static_cast<float>(kRanks * s.p.batch);
    for (int it = 0; it < kIterations; ++it) {
      ddp.iteration(it, s.all());
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int r = 0; r < kRanks; ++r) {
        std::fill(block.begin(), block.end(), 0.0f);
        s.mlp.gradient_sum(w, s.data.train, batch_of(shard_of(s.data.train.size(), kRanks, r), s.p.batch, it), block);
        for (std::size_t i = 0; i < w.size(); ++i) sum[i] += block[i];
      }
      for (std::size_t i = 0; i < w.size(); ++i) {
        const float g = sum[i] / count;
        if (momentum > 0) m[i] = mu * m[i] + g, w[i] -= lr * m[i];
        else w[i] -= lr * g;
      }
      for (int r = 0; r < kRanks; ++r) ASSERT_EQ(ddp.params(r), w) << "iteration " << it << " rank " << r;
    }
    EXPECT_EQ(ddp.mean_model(), w);
    EXPECT_EQ(ddp.syncs(), std::vector<int>(5, kIterations));
  }
}

// Largest |a - b| over the values, relative to the largest |a|.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i])),
    scale = std::max(scale, std::fabs(static_cast<double>(a[i])));
  return diff / scale;
}

TEST(TrainReplicas, LocalSgdWithPeriodOneIsDdp) {
  // Mathematically equal; in floats avg(x - lr g_r) rounds differently from x - lr avg(g_r), so
  // they agree to float rounding (a few ulps per step), not bit for bit.
  for (double momentum : {0.0, 0.9}) {
    Toy s(momentum);
    Replicas ddp(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
    Replicas local(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::ParametersAfterStep);
    for (int it = 0; it < kIterations; ++it) {
      const Replicas::Step a = ddp.iteration(it, s.all()), b = local.iteration(it, s.all());
      EXPECT_NEAR(a.loss, b.loss, 1e-4 * a.loss);
    }
    EXPECT_LT(relative_difference(ddp.params(0), local.params(0)), 1e-4);
    for (int r = 1; r < kRanks; ++r) EXPECT_EQ(local.params(r), local.params(0));  // averaged after every step
    // Without averaging the ranks drift apart far beyond rounding: the comparison can fail.
    Replicas alone(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::ParametersAfterStep);
    for (int it = 0; it < kIterations; ++it) alone.iteration(it, {});
    EXPECT_GT(relative_difference(ddp.params(0), alone.params(0)), 1e-2);
  }
}

TEST(TrainReplicas, ElasticWithoutWeakSyncsIsDdpBitForBitAndAMergeRejoinsTheLateRank) {
  for (double momentum : {0.0, 0.9}) {
    Toy s(momentum);
    Replicas ddp(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
    Replicas on_time(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
    on_time.set_weak_syncs({});
    for (int it = 0; it < kIterations; ++it) {
      const Replicas::Step a = ddp.iteration(it, s.all()), b = on_time.iteration(it, s.all());
      EXPECT_EQ(a.loss, b.loss);
    }
    for (int r = 0; r < kRanks; ++r) EXPECT_EQ(on_time.params(r), ddp.params(r));
  }
  // Rank 1 steps iteration 3 without slice 2's mean: it applies its own gradient there, and the
  // step of iteration 4 adds mean - own. Without momentum the rank then holds what the others hold
  // (each has applied both means) to float rounding; never merged, it stays lr (mean - own) away.
  Toy s;
  Replicas ddp(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
  Replicas merged(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
  Replicas never(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
  merged.set_weak_syncs({{1, 3, 4, {2}}});
  never.set_weak_syncs({{1, 3, -1, {2}}});
  const Slice& late = s.slices[2];
  auto slice_of = [&late](const std::vector<float>& x) {
    return std::vector<float>(x.begin() + static_cast<std::ptrdiff_t>(late.begin),
                              x.begin() + static_cast<std::ptrdiff_t>(late.end));
  };
  for (int it = 0; it < 4; ++it)
    ddp.iteration(it, s.all()), merged.iteration(it, s.all()), never.iteration(it, s.all());
  EXPECT_EQ(merged.params(0), ddp.params(0));  // the on-time ranks are untouched
  EXPECT_EQ(merged.params(1), never.params(1));
  std::vector<float> away = merged.params(1), same = merged.params(0);
  for (std::size_t i = late.begin; i < late.end; ++i) away[i] = same[i];
  EXPECT_EQ(away, same);  // only the late slice differs...
  EXPECT_GT(relative_difference(slice_of(merged.params(0)), slice_of(merged.params(1))), 1e-3);  // ...and by far
  merged.iteration(4, s.all());
  never.iteration(4, s.all());
  EXPECT_LT(relative_difference(slice_of(merged.params(0)), slice_of(merged.params(1))), 1e-6);
  EXPECT_GT(relative_difference(slice_of(never.params(0)), slice_of(never.params(1))), 1e-3);
  // Entries must name a rank, and merge after their iteration.
  EXPECT_THROW(never.set_weak_syncs({{kRanks, 3, 4, {2}}}), std::invalid_argument);
  EXPECT_THROW(never.set_weak_syncs({{1, 3, 3, {2}}}), std::invalid_argument);
}

TEST(TrainReplicas, PartialAveragingAveragesEachSliceOncePerPeriodAndOnlyThose) {
  Toy s;
  const std::vector<std::vector<int>> sets = {{0, 1}, {2}, {3, 4}};  // H = 3
  for (SyncValues mode : {SyncValues::ParametersBeforeStep, SyncValues::ParametersAfterStep}) {
    Replicas r(s.mlp, s.data, kRanks, s.p, s.slices, mode);
    for (int it = 0; it < 12; ++it) {
      const std::vector<int>& set = sets[static_cast<std::size_t>(it % 3)];
      r.iteration(it, set);
      for (int sl = 0; sl < 5; ++sl) {
        const bool in = std::find(set.begin(), set.end(), sl) != set.end();
        EXPECT_EQ(r.syncs()[static_cast<std::size_t>(sl)], it / 3 + (it % 3 >= (sl < 2 ? 0 : sl < 3 ? 1 : 2) ? 1 : 0));
        // After the step (localsgd) the averaged slices agree across ranks; other non-empty slices do not.
        if (mode != SyncValues::ParametersAfterStep || s.slices[static_cast<std::size_t>(sl)].size() == 0) continue;
        const Slice& x = s.slices[static_cast<std::size_t>(sl)];
        bool equal = true;
        for (int k = 1; k < kRanks; ++k)
          equal = equal && std::equal(r.params(k).begin() + static_cast<std::ptrdiff_t>(x.begin),
                                      r.params(k).begin() + static_cast<std::ptrdiff_t>(x.end),
                                      r.params(0).begin() + static_cast<std::ptrdiff_t>(x.begin));
        EXPECT_EQ(equal, in) << "iteration " << it << " slice " << sl;
      }
    }
  }
}

TEST(TrainReplicas, TopKAtRatioOneIsNoCompression) {
  Toy s(0.9);
  TrainCompression topk{true, 1.0, true, {true, true, false, true, true}};
  for (SyncValues mode : {SyncValues::Gradients, SyncValues::ParametersBeforeStep, SyncValues::ParametersAfterStep}) {
    Replicas plain(s.mlp, s.data, kRanks, s.p, s.slices, mode),
        compressed(s.mlp, s.data, kRanks, s.p, s.slices, mode, topk);
    for (int it = 0; it < kIterations; ++it) {
      const std::vector<int> set = mode == SyncValues::Gradients ? s.all() : std::vector<int>{it % 5};
      plain.iteration(it, set), compressed.iteration(it, set);
    }
    for (int r = 0; r < kRanks; ++r) EXPECT_EQ(plain.params(r), compressed.params(r));
    // A real ratio changes the values (so the equality above can fail).
    TrainCompression sparse = topk;
    sparse.ratio = 0.05;
    Replicas lossy(s.mlp, s.data, kRanks, s.p, s.slices, mode, sparse);
    for (int it = 0; it < kIterations; ++it)
      lossy.iteration(it, mode == SyncValues::Gradients ? s.all() : std::vector<int>{it % 5});
    EXPECT_NE(lossy.params(0), plain.params(0));
  }
}

TEST(TrainReplicas, TrainingLearnsTheMixture) {
  Toy s(0.9);
  Replicas ddp(s.mlp, s.data, kRanks, s.p, s.slices, SyncValues::Gradients);
  const double before = static_cast<double>(s.mlp.evaluate(ddp.mean_model(), s.data.test).correct) / s.data.test.size();
  for (int it = 0; it < 200; ++it) ddp.iteration(it, s.all());
  const double after = static_cast<double>(s.mlp.evaluate(ddp.mean_model(), s.data.test).correct) / s.data.test.size();
  EXPECT_GT(after, before + 0.2);
  EXPECT_GT(after, 0.8);
}

}  // namespace test_replicas
}  // namespace trainvp
