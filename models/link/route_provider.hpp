#pragma once
// How traffic finds its paths: the fabric's routing, keyed by a flow hash for ECMP.
#include <cstdint>

#include "models/link/chunk.hpp"

namespace trainvp {

class RouteProvider {
 public:
  virtual ~RouteProvider() = default;
  virtual const Route& route(int src_rank, int dst_rank, std::uint32_t flow) = 0;
  // Moves whenever routes handed out before may no longer be the ones route() gives (ranks moved,
  // a link went down): a caller that keeps routes asks again then.
  virtual std::uint64_t routes_version() const { return 0; }
};

}  // namespace trainvp
