// The synthetic data set: deterministic under its seed, its shards equal and disjoint.
#include <gtest/gtest.h>

#include <set>

#include "models/train/dataset.hpp"

namespace trainvp {
namespace test_dataset {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(TrainDataset, SameSeedSameValuesOtherSeedOthers) {
  TrainParams p;
  p.train_samples = 500, p.test_samples = 100;
  const Dataset a = make_dataset(p), b = make_dataset(p);
  EXPECT_EQ(a.train.x, b.train.x);
  EXPECT_EQ(a.train.label, b.train.label);
  EXPECT_EQ(a.test.x, b.test.x);
  p.seed = 2;
  EXPECT_NE(make_dataset(p).train.x, a.train.x);
}

TEST(TrainDataset, EveryClassDrawnAboutEqually) {
  TrainParams p;
  p.train_samples = 20000, p.test_samples = 10;
  const Dataset d = make_dataset(p);
  std::vector<int> count(static_cast<std::size_t>(p.classes), 0);
  for (int l : d.train.label) ++count[static_cast<std::size_t>(l)];
  for (int c : count) EXPECT_NEAR(c, 2000, 4 * 45);  // binomial sd sqrt(20000 x 0.1 x 0.9) = 42
}

TEST(TrainDataset, ShardsAreEqualDisjointAndCoverAMultipleOfTheRanks) {
  std::set<int> seen;
  for (int r = 0; r < 7; ++r) {
    const Shard s = shard_of(100, 7, r);
    EXPECT_EQ(s.size, 14);
    for (int i = s.first; i < s.first + s.size; ++i) EXPECT_TRUE(seen.insert(i).second);
  }
  EXPECT_EQ(seen.size(), 98u);
  EXPECT_EQ(*seen.rbegin(), 97);
}

TEST(TrainDataset, BatchesWalkTheShardAndWrap) {
  const Shard s{10, 5};
  EXPECT_EQ(batch_of(s, 3, 0), (std::vector<int>{10, 11, 12}));
  EXPECT_EQ(batch_of(s, 3, 1), (std::vector<int>{13, 14, 10}));
  EXPECT_EQ(batch_of(s, 3, 5), (std::vector<int>{10, 11, 12}));  // 15 samples later: back at the start
}

}  // namespace test_dataset
}  // namespace trainvp
