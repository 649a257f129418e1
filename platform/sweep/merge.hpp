#pragma once
// `trainvp merge OUT DIR...`: the union of several sweep.db files of the same sweep (shards,
// or a sweep and its reruns) into OUT/sweep.db. Rows are matched by point id; a point present
// twice must agree in every column except wall_s, except that a finished row replaces a
// "pending" one. Inputs of different sweeps (different spec) are an error.
#include <cstddef>
#include <string>
#include <vector>

namespace trainvp::sweep {

struct MergeSummary {
  std::size_t inputs = 0;
  std::size_t rows = 0, ok = 0, failed = 0, pending = 0, infeasible = 0;
  std::size_t duplicates = 0;    // rows seen in more than one input
  std::size_t points_total = 0;  // points in the whole sweep (from the spec's expansion)
  std::string db_path;           // OUT/sweep.db
  std::string best;              // the SPEC's "best" over the merged rows, described; "" without one
};

// DIR -> DIR/sweep.db; a path ending in .db is taken as is.
std::string sweep_db_path(const std::string& dir_or_db);

// Throws SweepInputError (exit 2) for missing or foreign inputs, conflicting rows, or an OUT
// that already holds a sweep.db.
MergeSummary merge_sweeps(const std::string& out_dir, const std::vector<std::string>& inputs);

}  // namespace trainvp::sweep
