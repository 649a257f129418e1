#pragma once
// What the mitigation did, one entry of results.json `health.mitigation.actions` each. The part
// every step shares is here; what only a move (S3) or a restart (S4) decides is its own record.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/health.hpp"

namespace trainvp {

// S3: whole node slots exchanged, to consolidate slow GPUs or to keep bytes off a slow link.
struct MoveRecord {
  enum class Kind { Consolidate, RoleSwap };
  Kind kind = Kind::Consolidate;
  std::vector<std::pair<int, int>> swaps;          // node slots exchanged
  double estimate_before = 0, estimate_after = 0;  // consolidate: its cost model's iteration / healthy
  std::vector<std::string> suspect_links;          // role swap: the directions it avoids
  double share_before = 0, share_after = 0;        // role swap: bytes on suspect paths / inter-node
};

// S4: a restart from the checkpoint with spares in place of nodes.
struct RestartRecord {
  std::vector<int> nodes;        // replaced (named by the diagnoses or the fault)
  std::vector<int> spare_nodes;  // with `jobs`: the spares the job moved to, by its slots
};

struct MitigationAction {
  std::int64_t at_ps = 0;
  MitigationStep step = MitigationStep::S1;
  int diagnosis = -1;  // what it answers (-1: none, or the oracle)
  int fault = -1;      // the oracle: the fault index
  double loss_s = 0;   // accumulated loss that paid for it (ladder)
  std::int64_t pause_ps = 0;
  int after_iteration = -1;  // every rank stops at the end of this iteration (and moves there)
  std::vector<int> units;    // a split (S2, or redone after an S3 move): micro-batches per replica
  std::optional<MoveRecord> move;
  std::optional<RestartRecord> restart;
  std::string note;

  nlohmann::ordered_json to_json() const;
};

}  // namespace trainvp
