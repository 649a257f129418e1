#include "models/cxl/cxl_mem.hpp"

#include "platform/core/sim_time.hpp"

namespace trainvp {

tlm::tlm_generic_payload* make_mem_message(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlMemExt::Op op,
                                           std::uint64_t addr, std::uint32_t lines, std::uint64_t access, int port,
                                           std::vector<unsigned char> data) {
  tlm::tlm_generic_payload* p = pool.acquire();
  ChunkExt* c = chunk_of(*p);
  if (!c) {
    c = new ChunkExt;
    p->set_extension(c);  // stays with the pooled payload (reset() keeps non-auto extensions)
  }
  CxlMemExt* m = cxl_mem_of(*p);
  if (!m) {
    m = new CxlMemExt;
    p->set_extension(m);
  }
  const std::uint32_t bytes = mem_message_bytes(op, lines);
  c->route = &route;
  c->hop = 0;
  c->flow = flow;
  c->payload_bytes = bytes;
  c->tail_ps = now_ps();
  c->tag = access;
  c->more = false;
  c->express = true;  // CXL.mem flits interleave with bulk traffic at flit granularity, as CXL.io TLPs do
  c->sink = nullptr;
  m->op = op;
  m->addr = addr;
  m->lines = lines;
  m->access = access;
  m->port = port;
  m->carry = false;
  m->data = std::move(data);
  const bool write = op == CxlMemExt::MemWr || op == CxlMemExt::MemData;
  p->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p->set_address(addr);
  p->set_data_ptr(m->data.empty() ? nullptr : m->data.data());
  p->set_data_length(bytes);
  p->set_streaming_width(bytes);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return p;
}

}  // namespace trainvp
