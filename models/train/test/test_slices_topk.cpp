// The modelled layers' slices of the real parameters, and top-k with error feedback.
#include <gtest/gtest.h>

#include "models/train/slices.hpp"
#include "models/train/topk.hpp"

namespace trainvp {
namespace test_slices_topk {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(TrainSlices, ProportionalToTheLayersParameters) {
  // Weights 3, 0, 1, 4 of 8 over 16 values: cuts at 16 x {0, 3, 3, 4, 8} / 8.
  const auto s = proportional_slices({3, 0, 1, 4}, 16);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].end, 6u);
  EXPECT_EQ(s[1].size(), 0u);
  EXPECT_EQ(s[2].begin, 6u);
  EXPECT_EQ(s[2].end, 8u);
  EXPECT_EQ(s[3].begin, 8u);
  EXPECT_EQ(s[3].end, 16u);
}

TEST(TrainSlices, EveryValueInExactlyOneSlice) {
  // GPT-2 small's layers (embed, 12 x attn and mlp, ln_f, the tied head) over a 167,178-value model.
  std::vector<std::uint64_t> w = {39383808};
  for (int i = 0; i < 12; ++i) w.push_back(2363904), w.push_back(4723968);
  w.push_back(1536), w.push_back(0);
  const auto s = proportional_slices(w, 167178);
  EXPECT_EQ(s.front().begin, 0u);
  EXPECT_EQ(s.back().end, 167178u);
  EXPECT_EQ(s.back().size(), 0u);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i].begin, s[i - 1].end);
  EXPECT_EQ(s[0].size(), 52909u);  // floor(167178 x 39383808 / 124439808)
}

TEST(TrainTopK, KeepsTheLargestMagnitudes) {
  std::vector<float> v = {0.5f, -3.0f, 1.0f, 2.0f, -0.25f};
  topk_in_place(v.data(), v.size(), 2, nullptr);
  EXPECT_EQ(v, (std::vector<float>{0, -3.0f, 0, 2.0f, 0}));
  EXPECT_EQ(topk_count(1000, 0.01), 10u);
  EXPECT_EQ(topk_count(1001, 0.01), 11u);  // ceil
  EXPECT_EQ(topk_count(5, 0.01), 1u);
  EXPECT_EQ(topk_count(5, 1.0), 5u);
}

TEST(TrainTopK, ErrorFeedbackKeepsWhatWasNotSent) {
  std::vector<float> v = {1, 4, 2, 3}, residual = {0.5f, 0, 0, 0};
  topk_in_place(v.data(), v.size(), 1, residual.data());
  EXPECT_EQ(v, (std::vector<float>{0, 4, 0, 0}));
  EXPECT_EQ(residual, (std::vector<float>{1.5f, 0, 2, 3}));
  std::vector<float> next = {0, 0, 0, 0};
  topk_in_place(next.data(), next.size(), 1, residual.data());
  EXPECT_EQ(next, (std::vector<float>{0, 0, 0, 3}));  // the residual's largest goes out next
  EXPECT_EQ(residual, (std::vector<float>{1.5f, 0, 2, 0}));
}

TEST(TrainTopK, RatioOneSendsEverythingAndLeavesNoResidual) {
  std::vector<float> v = {1, -2, 3}, residual = {0.25f, 0, -1};
  topk_in_place(v.data(), v.size(), topk_count(3, 1.0), residual.data());
  EXPECT_EQ(v, (std::vector<float>{1.25f, -2, 2}));
  EXPECT_EQ(residual, (std::vector<float>{0, 0, 0}));
}

}  // namespace test_slices_topk
}  // namespace trainvp
