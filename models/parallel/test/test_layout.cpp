// The rank map, the stage partition, TP sharding and stage workloads against their definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "models/parallel/layout.hpp"

namespace trainvp {
namespace test_layout {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

ParallelConfig grid(int t, int p, int d) {
  ParallelConfig c;
  c.enabled = true;
  c.tp = t, c.pp = p, c.dp = d;
  return c;
}

TEST(ParallelLayout, MegatronOrderPutsTpFastestThenDpThenPp) {
  const int t = 4, p = 3, d = 2;
  ParallelLayout l(grid(t, p, d), t * p * d);
  for (int r = 0; r < t * p * d; ++r) {
    EXPECT_EQ(l.coord(r).tp, r % t) << r;
    EXPECT_EQ(l.coord(r).dp, (r / t) % d) << r;
    EXPECT_EQ(l.coord(r).pp, r / (t * d)) << r;
    EXPECT_EQ(l.rank(l.coord(r)), r);
  }
  EXPECT_EQ(l.tp_group(1, 1), (std::vector<int>{12, 13, 14, 15}));  // pp 1 starts at t d = 8; dp 1 adds t
  EXPECT_EQ(l.dp_group(2, 2), (std::vector<int>{18, 22}));
  std::vector<int> stage1(8);
  std::iota(stage1.begin(), stage1.end(), 8);
  EXPECT_EQ(l.stage_ranks(1), stage1);
}

TEST(ParallelLayout, CustomOrderIsMixedRadixFastestFirst) {
  ParallelConfig c = grid(2, 4, 3);
  c.order = {ParallelDim::Pp, ParallelDim::Tp, ParallelDim::Dp};
  ParallelLayout l(c, 24);
  for (int r = 0; r < 24; ++r) {
    EXPECT_EQ(l.coord(r).pp, r % 4);
    EXPECT_EQ(l.coord(r).tp, (r / 4) % 2);
    EXPECT_EQ(l.coord(r).dp, r / 8);
  }
}

TEST(ParallelLayout, ProductMismatchNamesTheFactors) {
  try {
    ParallelLayout(grid(2, 2, 3), 16);
    FAIL();
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.field, "tp");
    EXPECT_STREQ(e.what(), "tp x pp x dp = 2 x 2 x 3 = 12, but it runs on 16 GPUs");
  }
}

TEST(ParallelLayout, ExplicitRankMapIsUsedAndMustBeABijection) {
  ParallelConfig c = grid(2, 1, 2);
  c.rank_map = {{1, 0, 1}, {0, 0, 1}, {1, 0, 0}, {0, 0, 0}};
  ParallelLayout l(c, 4);
  EXPECT_EQ(l.rank({0, 0, 0}), 3);
  EXPECT_EQ(l.tp_group(0, 1), (std::vector<int>{1, 0}));
  auto field_of = [](const ParallelConfig& bad) {
    try {
      ParallelLayout(bad, 4);
    } catch (const LayoutError& e) {
      return e.field;
    }
    return std::string("none");
  };
  ParallelConfig dup = c;
  dup.rank_map[3] = {1, 0, 1};
  EXPECT_EQ(field_of(dup), "rank_map/3");
  ParallelConfig out = c;
  out.rank_map[2] = {0, 1, 0};
  EXPECT_EQ(field_of(out), "rank_map/2");
  ParallelConfig short_map = c;
  short_map.rank_map.pop_back();
  EXPECT_EQ(field_of(short_map), "rank_map");
}

int slowest(const StagePartition& p, const std::vector<double>& t) {
  double worst = 0;
  for (int c = 0; c < p.chunks(); ++c) {
    EXPECT_GE(p.end(c) - p.begin(c), 1);
    worst = std::max(worst, std::accumulate(t.begin() + p.begin(c), t.begin() + p.end(c), 0.0));
  }
  return static_cast<int>(worst);
}

TEST(BalancedPartition, UniformLayersSplitIntoCeilOfLayersOverChunks) {
  for (int n : {8, 10, 97})
    for (int k : {1, 2, 3, 4, 8}) {
      const std::vector<double> t(static_cast<std::size_t>(n), 1.0);
      StagePartition p = balanced_partition(t, k);
      ASSERT_EQ(p.chunks(), k);
      EXPECT_EQ(p.first.front(), 0);
      EXPECT_EQ(p.first.back(), n);
      EXPECT_EQ(slowest(p, t), (n + k - 1) / k) << n << " over " << k;
    }
}

TEST(BalancedPartition, SkewedTimesIsolateTheHeavyLayer) {
  // One layer of 10 among ones: the optimum puts it alone; the others share the rest.
  const std::vector<double> t{1, 1, 10, 1, 1, 1, 1, 1, 1};
  StagePartition p = balanced_partition(t, 3);
  EXPECT_EQ(slowest(p, t), 10);
  EXPECT_EQ(p.begin(1), 2);
  EXPECT_EQ(p.end(1), 3);
  // Brute force over every two cuts agrees on the optimum for a ragged vector.
  const std::vector<double> r{5, 3, 8, 1, 1, 9, 2, 2, 7, 4};
  int best = 1 << 30;
  for (int a = 1; a < 9; ++a)
    for (int b = a + 1; b < 10; ++b) {
      const auto sum = [&](int x, int y) {
        return static_cast<int>(std::accumulate(r.begin() + x, r.begin() + y, 0.0));
      };
      best = std::min(best, std::max({sum(0, a), sum(a, b), sum(b, 10)}));
    }
  EXPECT_EQ(slowest(balanced_partition(r, 3), r), best);
}

// The textbook O(k n^2) programme: the least possible slowest chunk.
double reference_optimum(const std::vector<double>& t, int k) {
  const int n = static_cast<int>(t.size());
  std::vector<std::vector<double>> f(static_cast<std::size_t>(k) + 1,
                                     std::vector<double>(static_cast<std::size_t>(n) + 1, 1e300));
  f[0][0] = 0;
  for (int c = 1; c <= k; ++c)
    for (int i = 1; i <= n; ++i) {
      double last = 0;
      for (int j = i - 1; j >= c - 1; --j) {
        last += t[static_cast<std::size_t>(j)];
        f[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)] =
            std::min(f[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)],
                     std::max(f[static_cast<std::size_t>(c) - 1][static_cast<std::size_t>(j)], last));
      }
    }
  return f[static_cast<std::size_t>(k)][static_cast<std::size_t>(n)];
}

TEST(BalancedPartition, MatchesTheExhaustiveProgrammeOnRaggedTimes) {
  std::uint64_t x = 12345;  // a fixed LCG: deterministic ragged integer times
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> t;
    const int n = 20 + trial * 3;
    for (int i = 0; i < n; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      t.push_back(static_cast<double>(1 + (x >> 33) % 100));
    }
    for (int k : {2, 5, 8, n}) {
      const StagePartition p = balanced_partition(t, k);
      ASSERT_EQ(p.chunks(), k);
      EXPECT_EQ(p.first.back(), n);
      EXPECT_EQ(slowest(p, t), static_cast<int>(reference_optimum(t, k))) << "trial " << trial << " k " << k;
    }
  }
}

TEST(BalancedPartition, FewerLayersThanChunksIsAnError) {
  EXPECT_THROW(balanced_partition(std::vector<double>(3, 1.0), 4), LayoutError);
}

TEST(ExplicitPartition, ChecksCountAndSum) {
  StagePartition p = explicit_partition({2, 3, 1}, 3, 6);
  EXPECT_EQ(p.first, (std::vector<int>{0, 2, 5, 6}));
  EXPECT_THROW(explicit_partition({2, 3}, 3, 5), LayoutError);
  EXPECT_THROW(explicit_partition({2, 3, 2}, 3, 6), LayoutError);
  try {
    explicit_partition({2, 0, 4}, 3, 6);
    FAIL();
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.field, "stage_layers/1");
  }
}

Layer sample_layer() {
  Layer l;
  l.name = "x";
  l.fwd_flops = 1000, l.bwd_input_flops = 1000, l.bwd_weight_flops = 1000;
  l.fwd_bytes = 400, l.bwd_input_bytes = 600, l.bwd_weight_bytes = 800;
  l.tp_replicated = {0, 0, 0, 100, 200, 0};  // a norm: memory-bound, no tensor FLOPs
  l.matrices = {{64, 32}};
  l.params = 64 * 32 + 10;  // a matrix and a 10-element vector
  l.activation_bytes = 800;
  return l;
}

TEST(TpShard, HalvesGemmWorkAndKeepsTheReplicatedPart) {
  const Layer l = sample_layer();
  const Layer s = tp_shard(l, 2, false, DType::FP32);
  EXPECT_DOUBLE_EQ(s.fwd_flops, 500);
  EXPECT_DOUBLE_EQ(s.bwd_weight_flops, 500);
  EXPECT_DOUBLE_EQ(s.fwd_bytes, 100 + 300 / 2.0);
  EXPECT_DOUBLE_EQ(s.bwd_input_bytes, 200 + 400 / 2.0);
  EXPECT_DOUBLE_EQ(s.bwd_weight_bytes, 400);
  EXPECT_EQ(s.params, 64u * 16u + 10u);
  EXPECT_EQ(s.grad_bytes, s.params * 4);
  // A quarter of the forward traffic is replicated: a quarter of the activations stay whole.
  EXPECT_EQ(s.activation_bytes, 200u + 600u / 2u);
  const Layer sp = tp_shard(l, 2, true, DType::BF16);
  EXPECT_DOUBLE_EQ(sp.fwd_bytes, 200);
  EXPECT_EQ(sp.activation_bytes, 400u);
  const Layer one = tp_shard(l, 1, false, DType::BF16);
  EXPECT_EQ(one.params, l.params);
  EXPECT_DOUBLE_EQ(one.fwd_bytes, l.fwd_bytes);
}

TEST(StageWorkload, InterleavedStageTakesChunksStagePlusKp) {
  Workload w;
  w.model = "custom";
  for (int i = 0; i < 8; ++i) {
    Layer l = sample_layer();
    l.name = "l" + std::to_string(i);
    w.layers.push_back(l);
  }
  ParallelConfig c = grid(2, 2, 1);
  c.schedule = PipelineScheduleKind::Interleaved;
  c.virtual_stages = 2;
  c.micro_batches = 4;
  const StagePartition part = explicit_partition({1, 2, 3, 2}, 4, 8);
  std::vector<int> chunk_of;
  const Workload s1 = stage_workload(w, c, part, 1, &chunk_of);
  ASSERT_EQ(s1.layers.size(), 4u);  // chunk 1 (layers 1, 2) and chunk 3 (layers 6, 7)
  EXPECT_EQ(s1.layers[0].name, "l1");
  EXPECT_EQ(s1.layers[3].name, "l7");
  EXPECT_EQ(chunk_of, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(s1.micro_batches, 4);
  EXPECT_DOUBLE_EQ(s1.layers[0].fwd_flops, 500);
}

}  // namespace test_layout
}  // namespace trainvp
