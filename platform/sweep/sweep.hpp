#pragma once
// `trainvp sweep`: read and expand the SPEC, validate every point, run this shard's points as
// child processes (`trainvp run BASE --set ... -q -o DIR/points/ID`), record each in
// DIR/points/ID/point.json and DIR/sweep.db, then draw the SPEC's plots.
#include <ostream>
#include <string>

#include "platform/sweep/expand.hpp"

namespace trainvp::sweep {

struct SweepOptions {
  std::string spec_file;
  std::string out_dir;
  int jobs = 0;  // parallel points; 0 = available_cpus()
  Shard shard;
  bool resume = false;        // reuse points already finished with status ok and the same scenario
  bool dry_run = false;       // validate and list the points, run nothing
  bool progress = false;      // draw the progress bar on `err`
  std::string child_program;  // what runs a point; "" = this executable
  std::string build;          // the build record (JSON text) stored as sweep.db's `build`
};

// Returns the exit code: 0 every point succeeded, 1 some failed (all ran), 128 + signal when
// interrupted. Throws ScenarioError (the SPEC), PointError (a point's scenario) and
// SweepInputError (DIR in use or already a sweep) for bad input, std::runtime_error for I/O.
int run_sweep(const SweepOptions& options, std::ostream& out, std::ostream& err);

}  // namespace trainvp::sweep
