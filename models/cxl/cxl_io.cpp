#include "models/cxl/cxl_io.hpp"

#include <systemc>

#include "platform/core/sim_time.hpp"

namespace trainvp {

tlm::tlm_generic_payload* make_tlp(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlIoExt::Kind kind,
                                   std::uint32_t offset, std::uint32_t value) {
  tlm::tlm_generic_payload* p = pool.acquire();
  ChunkExt* c = chunk_of(*p);
  if (!c) {
    c = new ChunkExt;
    p->set_extension(c);  // stays with the pooled payload (reset() keeps non-auto extensions)
  }
  CxlIoExt* io = cxl_io_of(*p);
  if (!io) {
    io = new CxlIoExt;
    p->set_extension(io);
  }
  // A read request is a header only; writes, completions and MSIs carry one 32-bit word.
  const std::uint32_t bytes = kind == CxlIoExt::Read ? 0 : 4;
  c->route = &route;
  c->hop = 0;
  c->flow = flow;
  c->payload_bytes = bytes;
  c->tail_ps = now_ps();
  c->tag = 0;
  c->more = false;
  c->express = true;  // interleaved with bulk chunks at packet granularity
  c->sink = nullptr;
  io->kind = kind;
  io->offset = offset;
  io->value = value;
  p->set_command(kind == CxlIoExt::Read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  p->set_address(offset);
  p->set_data_ptr(reinterpret_cast<unsigned char*>(&io->value));
  p->set_data_length(bytes);
  p->set_streaming_width(bytes);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return p;
}

}  // namespace trainvp
