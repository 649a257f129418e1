#pragma once
// A TLM-2.0 memory manager that recycles generic payloads instead of allocating one per
// transaction (the simulator moves millions of chunks; allocation would dominate). `P` may be a
// subclass of tlm_generic_payload constructible from the memory manager, e.g. one that carries
// its extension in the same allocation (models/link/chunk.hpp: ChunkPayload).
#include <memory>
#include <vector>

#include <tlm>

namespace trainvp {

template <class P>
class BasicPayloadPool : public tlm::tlm_mm_interface {
 public:
  BasicPayloadPool() = default;
  BasicPayloadPool(const BasicPayloadPool&) = delete;
  BasicPayloadPool& operator=(const BasicPayloadPool&) = delete;

  // A payload with reference count 1, owned by the caller until release() brings it back.
  P* acquire() {
    P* p;
    if (free_.empty()) {
      all_.push_back(std::make_unique<P>(this));
      p = all_.back().get();
    } else {
      p = free_.back();
      free_.pop_back();
    }
    p->acquire();
    return p;
  }

  void free(tlm::tlm_generic_payload* p) override {
    p->reset();  // drops auto extensions
    p->set_data_ptr(nullptr);
    p->set_byte_enable_ptr(nullptr);
    p->set_byte_enable_length(0);
    p->set_streaming_width(0);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    free_.push_back(static_cast<P*>(p));
  }

  std::size_t allocated() const { return all_.size(); }
  std::size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<P>> all_;
  std::vector<P*> free_;
};

using PayloadPool = BasicPayloadPool<tlm::tlm_generic_payload>;

}  // namespace trainvp
