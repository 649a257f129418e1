#pragma once
// /slo: the service level the degraded-throughput report measures against.
#include <cstdint>

#include "platform/core/params.hpp"

namespace trainvp {

struct SloConfig {
  bool given = false;             // the scenario has an `slo` object
  double fraction = 0.9;          // "degraded" = below fraction x baseline throughput
  std::int64_t baseline_ps = -1;  // declared healthy iteration time; -1: from a fault-free prefix
};

const ParamSet<SloConfig>& slo_schema();

// Reads /slo (`value`, null when absent: the defaults, not given). Returns the resolved object, or
// null without an `slo`.
json load_slo(SloConfig& slo, const json& value);

}  // namespace trainvp
