// Pipeline schedules (models/parallel/pipeline.hpp) against their definitions: each block once,
// backward after forward, each chunk's backwards in micro-batch order, the 1F1B and GPipe
// in-flight bounds of Narayanan et al., and a phase schedule's block mode.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "models/parallel/pipeline.hpp"

namespace trainvp {
namespace test_pipeline {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

void expect_well_formed(const std::vector<ScheduleBlock>& blocks, int m, int v) {
  ASSERT_EQ(blocks.size(), static_cast<std::size_t>(2 * m * v));
  std::set<std::tuple<bool, int, int>> seen;
  std::map<int, int> next_bwd;  // per chunk: the micro-batch its next backward must be
  for (const ScheduleBlock& b : blocks) {
    EXPECT_TRUE(seen.insert({b.backward, b.chunk, b.micro_batch}).second);
    if (b.backward) {
      EXPECT_TRUE(seen.count({false, b.chunk, b.micro_batch})) << "backward before its forward";
      EXPECT_EQ(b.micro_batch, next_bwd[b.chunk]++);
    }
  }
}

TEST(PipelineBlocks, EveryScheduleRunsEachBlockOnceBackwardAfterForward) {
  for (int p : {1, 2, 4, 8})
    for (int m : {1, 2, 4, 8, 16})
      for (int stage = 0; stage < p; ++stage) {
        expect_well_formed(pipeline_blocks(PipelineScheduleKind::GPipe, p, m, 1, stage), m, 1);
        expect_well_formed(pipeline_blocks(PipelineScheduleKind::OneFOneB, p, m, 1, stage), m, 1);
        for (int v : {2, 3})
          if (m % p == 0 && p > 1)
            expect_well_formed(pipeline_blocks(PipelineScheduleKind::Interleaved, p, m, v, stage), m, v);
      }
}

TEST(PipelineBlocks, OneFOneBHoldsAtMostPMinusStageMicroBatchesAndGPipeHoldsAll) {
  for (int p : {2, 4, 8})
    for (int m : {1, 3, 8, 32})
      for (int stage = 0; stage < p; ++stage) {
        EXPECT_EQ(peak_in_flight(pipeline_blocks(PipelineScheduleKind::OneFOneB, p, m, 1, stage), 1)[0],
                  std::min(p - stage, m));
        EXPECT_EQ(peak_in_flight(pipeline_blocks(PipelineScheduleKind::GPipe, p, m, 1, stage), 1)[0], m);
      }
}

TEST(PipelineBlocks, OneFOneBWarmsUpWithPMinusStageMinusOneForwards) {
  const auto b = pipeline_blocks(PipelineScheduleKind::OneFOneB, 4, 8, 1, 1);
  for (int i = 0; i < 2; ++i) EXPECT_FALSE(b[static_cast<std::size_t>(i)].backward);
  // then forward 2, backward 0, forward 3, backward 1, ...
  EXPECT_FALSE(b[2].backward);
  EXPECT_EQ(b[2].micro_batch, 2);
  EXPECT_TRUE(b[3].backward);
  EXPECT_EQ(b[3].micro_batch, 0);
}

TEST(PipelineBlocks, InterleavedVisitsMicroBatchesInGroupsOfPPerChunk) {
  // p = 2, v = 2, m = 4, last stage: warm-up (v - 1) p = 2 forwards: chunk 0 micro-batches 0, 1.
  const auto b = pipeline_blocks(PipelineScheduleKind::Interleaved, 2, 4, 2, 1);
  EXPECT_EQ(b[0].chunk, 0);
  EXPECT_EQ(b[0].micro_batch, 0);
  EXPECT_EQ(b[1].chunk, 0);
  EXPECT_EQ(b[1].micro_batch, 1);
  EXPECT_FALSE(b[2].backward);
  EXPECT_EQ(b[2].chunk, 1);
  EXPECT_EQ(b[2].micro_batch, 0);
  EXPECT_TRUE(b[3].backward);
  EXPECT_EQ(b[3].chunk, 1);
  EXPECT_EQ(b[3].micro_batch, 0);
}

TEST(PhaseScheduleBlocks, PhasesFollowTheBlocksAndSlotsCountTheirRepeats) {
  BlockPatterns pat;
  pat.forward = {{{PhaseKind::Forward, 0, 0}, {PhaseKind::Forward, 1, 0}}};
  pat.backward = {
      {{PhaseKind::BackwardInput, 1, 0}, {PhaseKind::BackwardWeight, 1, 0}, {PhaseKind::BackwardWeight, 0, 0}}};
  PhaseSchedule s(pipeline_blocks(PipelineScheduleKind::OneFOneB, 2, 3, 1, 0), pat, {{PhaseKind::Optimizer, -1, 2}});
  // Stage 0 of 2: F0, F1, B0, F2, B1, B2, then the optimizer.
  ASSERT_EQ(s.size(), 3u * 2 + 3u * 3 + 1);
  EXPECT_EQ(s.at(0).micro_batch, 0);
  EXPECT_EQ(s.at(2).micro_batch, 1);
  EXPECT_EQ(s.at(4).kind, PhaseKind::BackwardInput);
  EXPECT_EQ(s.at(4).micro_batch, 0);
  EXPECT_EQ(s.at(7).kind, PhaseKind::Forward);
  EXPECT_EQ(s.at(7).micro_batch, 2);
  EXPECT_EQ(s.at(15).kind, PhaseKind::Optimizer);
  EXPECT_EQ(s.slot(7), 0u);
  EXPECT_EQ(s.slot(15), 5u);
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(s.repeats(k), 3);
  EXPECT_EQ(s.repeats(5), 1);
}

}  // namespace test_pipeline
}  // namespace trainvp
