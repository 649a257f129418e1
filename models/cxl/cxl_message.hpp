#pragma once
// What CXL.io TLPs and CXL.mem messages share: a pooled payload made an express fabric message.
#include <cstdint>

#include <tlm>

#include "models/link/chunk.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

// Takes a payload from `pool` into `p` as an express message of `bytes` along `route` and returns
// its extension E. The chunk extension and E are made once per pooled payload: reset() keeps
// extensions that are not auto-deleted. Express: the link layers interleave such messages with
// bulk chunks at packet (flit) granularity (docs/cxl.md).
template <class E>
E& express_message(PayloadPool& pool, tlm::tlm_generic_payload*& p, const Route& route, std::uint32_t flow,
                   std::uint32_t bytes, std::uint64_t tag) {
  p = pool.acquire();
  ChunkExt* c = chunk_of(*p);
  if (!c) {
    c = new ChunkExt;
    p->set_extension(c);
  }
  E* e = nullptr;
  p->get_extension(e);
  if (!e) {
    e = new E;
    p->set_extension(e);
  }
  c->route = &route;
  c->hop = 0;
  c->flow = flow;
  c->payload_bytes = bytes;
  c->tail_ps = now_ps();
  c->tag = tag;
  c->more = false;
  c->express = true;
  c->sink = nullptr;
  return *e;
}

}  // namespace trainvp
