#pragma once
// Expanding a SweepSpec into points, and slicing the points into shards.
//
//   grid    every combination; the first parameter varies slowest (nested loops in spec order)
//   zip     the i-th values of every parameter together (all lists have the same length)
//   random  `samples` distinct points; each draws every parameter independently: a "values"
//           parameter uniformly from its list, a "range" uniformly (linear) or log-uniformly (log)
//           Draws come from SplitMix64 seeded with `seed`, so they are the same on every platform.
#include <cstddef>
#include <string>
#include <vector>

#include "platform/sweep/point_id.hpp"
#include "platform/sweep/spec.hpp"

namespace trainvp::sweep {

struct Point {
  std::size_t index = 0;  // position in the expansion, from 0 (the idx column)
  std::string id;         // point_id(params)
  Assignment params;      // one value per parameter, in spec order
};

// Throws ScenarioError (pointer into the SPEC) when the random design cannot find `samples`
// distinct points, or when two points would share an id.
std::vector<Point> expand(const SweepSpec& spec);

// --shard I/N: shard I (1-based) of N holds the points whose index % N == I - 1.
struct Shard {
  int index = 1;
  int count = 1;
  bool all() const { return count == 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "I/N" (1 <= I <= N <= 1000000); throws std::invalid_argument with a message.
Shard parse_shard(const std::string& text);

std::vector<Point> shard_slice(const std::vector<Point>& points, const Shard& shard);

}  // namespace trainvp::sweep
