#pragma once
// Synchronization units: groups of layers whose gradients (or parameters) one synchronization
// moves together, and the grouping rules of the strategies built on them (layer-wise, block-wise,
// wait-free back-propagation, Local SGD, partial Local SGD). Pure C++: no SystemC, no time.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/strategies/compression.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct SyncUnit {
  std::vector<int> layers;      // layer indices, in the order their gradients become ready
  std::uint64_t bytes = 0;      // uncompressed bytes (what the unit would all-reduce)
  std::vector<SyncStep> steps;  // the collectives that synchronize it, one after another
  int stream = 0;               // per-rank communication stream
  std::string size_class;       // "large", "medium", "small"; "" where classes do not apply
};

// The units active in an iteration.
struct SyncPlan {
  std::string label;  // "layerwise", "set 2", "average", "local"
  std::vector<int> units;
};

// Layers that have parameters, in backward order (the order their gradients become ready).
std::vector<int> synced_layers(const Workload& w);

// Per layer of `w`: what synchronizing it moves (values of `value_dtype`) under `compression`.
std::vector<LayerTraffic> layer_traffics(const Workload& w, DType value_dtype, const CompressionConfig& compression,
                                         int world);

// A unit of `layers` with its bytes and collectives filled in.
SyncUnit make_unit(std::vector<int> layers, const std::vector<LayerTraffic>& traffic, int world);

// The seed's multi-stream scheduler, for layer-wise and block-wise synchronization.
struct GroupingOptions {
  int block = 1;                         // adjacent layers per unit before packing (1: layer-wise)
  int pack = 10;                         // small units merged this many at a time (1: no packing)
  std::uint64_t large_bytes = 10000000;  // > large_bytes: large
  std::uint64_t small_bytes = 1000000;   // < small_bytes: small; in between: medium
  int streams = 1;                       // communication streams per rank
  // Stream of each class (large, medium, small); empty: unit u runs on stream u mod streams.
  std::vector<int> class_streams;
};

// Units in ready order: `block` adjacent parameter layers each (in backward order), classified
// by their uncompressed bytes; consecutive small units (in ready order) are merged `pack` at a
// time; streams by class or round-robin.
std::vector<SyncUnit> grouped_units(const Workload& w, const std::vector<LayerTraffic>& traffic, int world,
                                    const GroupingOptions& opt);

// One unit per parameter layer, in ready order, unit u on stream u mod streams.
std::vector<SyncUnit> per_layer_units(const Workload& w, const std::vector<LayerTraffic>& traffic, int world,
                                      int streams);

// Partial Local SGD's sets: `count` items in order split into `sets` contiguous runs of sizes
// differing by at most one (the first count mod sets runs one longer). Runs may be empty.
std::vector<std::vector<int>> even_sets(int count, int sets);

}  // namespace trainvp
