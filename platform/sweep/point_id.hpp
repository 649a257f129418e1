#pragma once
// Point ids: 12 hex digits of a 64-bit FNV-1a hash of the point's canonical assignment, the
// compact JSON object {"/json/pointer": value, ...} with keys sorted. The same assignment has
// the same id in every sweep, on every machine, whatever -j, --shard or the parameter order.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/hash.hpp"  // fnv1a64

namespace trainvp::sweep {

using Assignment = std::vector<std::pair<std::string, nlohmann::json>>;  // (pointer, value), spec order

// {"/a":1,"/b":"x"}: nlohmann's compact dump of an object, which sorts keys and writes numbers
// in shortest round-trip form.
std::string canonical_assignment(const Assignment& a);

// The low 48 bits of fnv1a64(canonical_assignment(a)) as 12 lower-case hex digits.
std::string point_id(const Assignment& a);

// "/cluster/nodes=2, /workload/model=\"gpt2-small\"": for messages.
std::string describe_assignment(const Assignment& a);

}  // namespace trainvp::sweep
