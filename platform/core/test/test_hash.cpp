// The mixers against published values: SplitMix64's reference outputs for seed 0 (Vigna's
// splitmix64.c), FNV-1a's test vectors (Fowler, Noll and Vo), and MurmurHash3's finalizers worked
// out from the reference code. Every seeded result of the project rests on these staying put.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "platform/core/hash.hpp"
#include "platform/core/run_context.hpp"

namespace trainvp {
namespace test_hash {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(Hash, SplitMix64MatchesTheReferenceFromSeedZero) {
  SplitMix64 g{0};
  EXPECT_EQ(g.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(splitmix64_mix(kGoldenGamma), 0xe220a8397b1dcdafull);
  EXPECT_EQ(kGoldenGamma32, static_cast<std::uint32_t>(kGoldenGamma >> 32));
}

TEST(Hash, MurmurFinalizers) {
  EXPECT_EQ(fmix64(0), 0u);
  EXPECT_EQ(fmix64(1), 0xb456bcfc34c2cb2cull);
  EXPECT_EQ(fmix32(0), 0u);
  EXPECT_EQ(fmix32(1), 0x514e28b7u);
}

TEST(Hash, Fnv1aMatchesItsTestVectors) {
  EXPECT_EQ(fnv1a64(""), kFnvOffsetBasis);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cull);  // usable at compile time
}

// The named streams' seed: FNV-1a of the name from the project's own basis folded with the seed.
TEST(Hash, SeededStreamsStartFromTheFoldedBasis) {
  std::uint64_t h = 1469598103934665603ull ^ 42;
  for (unsigned char c : std::string("loss:x")) h = (h ^ c) * 1099511628211ull;
  EXPECT_EQ(seeded_stream(42, "loss:x")(), std::mt19937_64(h)());
}

}  // namespace test_hash
}  // namespace trainvp
