#pragma once
// A TLM-2.0 memory manager that recycles generic payloads instead of allocating one per
// transaction (the simulator moves millions of chunks; allocation would dominate).
#include <memory>
#include <vector>

#include <tlm>

namespace trainvp {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  PayloadPool() = default;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // A payload with reference count 1, owned by the caller until release() brings it back.
  tlm::tlm_generic_payload* acquire() {
    tlm::tlm_generic_payload* p;
    if (free_.empty()) {
      all_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
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
    free_.push_back(p);
  }

  std::size_t allocated() const { return all_.size(); }
  std::size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace trainvp
