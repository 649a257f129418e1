#include "models/cxl/cxl_mem.hpp"

#include "models/cxl/cxl_message.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

tlm::tlm_generic_payload* make_mem_message(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlMemExt::Op op,
                                           std::uint64_t addr, std::uint32_t lines, std::uint64_t access, int port,
                                           std::vector<unsigned char> data) {
  const std::uint32_t bytes = mem_message_bytes(op, lines);
  tlm::tlm_generic_payload* p = nullptr;
  CxlMemExt* m = &express_message<CxlMemExt>(pool, p, route, flow, bytes, access);
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
