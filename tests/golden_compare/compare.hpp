#pragma once
// Field-by-field comparison of two results.json documents (the golden results, tests/golden/):
// the same keys, the same array lengths, equal strings, booleans and integers, and floating-point
// numbers equal to a relative tolerance. Ignored pointers cover what differs between equal runs
// (wall time, the output directory) or counts the simulator's own work rather than a result.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainvp::golden {

struct Options {
  double rel_tol = 1e-9;
  bool integers_relative = false;    // integers too within rel_tol (results of different methods)
  std::vector<std::string> ignored;  // JSON pointers whose subtrees are not compared
  std::size_t max_reports = 20;
};

// The pointers that never take part: build (the build record: its git revision changes with every
// commit), sim.wall_s (wall time), scenario.output.dir (where it was written),
// sim.events and sim.delta_cycles (the simulator's work, which speed work is meant to change
// without moving any result).
Options default_options();

// Every difference as "POINTER: expected X, got Y" (at most max_reports, then a count).
std::vector<std::string> compare(const nlohmann::json& expected, const nlohmann::json& actual, const Options& opt);

// The largest relative difference between numbers at the same pointer (ignored subtrees and
// fields present on one side only left out), and where: for saying how far a reference moved.
struct MaxDifference {
  double relative = 0;
  std::string pointer;
};
MaxDifference max_difference(const nlohmann::json& expected, const nlohmann::json& actual, const Options& opt);

}  // namespace trainvp::golden
