#pragma once
// The nested parts of /training/sync that the layer-wise and partial strategies add
// (compression, class_streams, profile) and the rules across sync keys.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/strategies/compression.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// One entry of /training/sync/profile: a layer's measured backward and synchronization times.
struct ProfileEntry {
  std::string layer;
  std::int64_t bwd_ps = 0;
  std::int64_t comm_ps = 0;
};

// /training/sync/class_streams: the stream of each size class.
struct ClassStreams {
  int large = 0, medium = 0, small = 0;
};

const ParamSet<CompressionConfig>& compression_schema();
const ParamSet<ClassStreams>& class_streams_schema();
const ParamSet<ProfileEntry>& profile_schema();

struct SyncConfig;

// Reads compression, class_streams and profile from `value` (the /training/sync object, whose
// plain keys `sync` already holds) into `sync`, checks the rules that involve several keys or the
// workload, and returns `resolved` completed with them. Throws ScenarioError naming the pointer.
json finish_sync(SyncConfig& sync, const json& value, json resolved, const Workload& w, const std::string& path);

}  // namespace trainvp
