#pragma once
// The one driver of a Verilated grad_reduce (rtl/grad_reduce.sv) for both of its users: the
// platform's CXL engine (models/cxl/rtl_engine.cpp) and the RTL test bench
// (rtl/tests/grad_reduce_bench.hpp). It owns the Verilated context and model, holds the inputs idle
// from construction, and does the reset sequence and the APB3 accesses to the CSR block. Each user
// clocks the model its own way (waveforms, stream traffic), so `Clocked` (the deriving class, CRTP:
// no virtual call per cycle) provides tick(): one clock cycle with the current inputs.
#include <verilated.h>

#include <cstdint>
#include <memory>

namespace trainvp::rtl {

template <class Clocked, class Model>
class GradReduceDriver {
 public:
  GradReduceDriver(const GradReduceDriver&) = delete;
  GradReduceDriver& operator=(const GradReduceDriver&) = delete;

  Model& m() { return *m_; }
  const Model& m() const { return *m_; }

  // Reset asserted for four cycles, then one cycle with it released.
  void reset() {
    m_->rst_n = 0;
    for (int i = 0; i < 4; ++i) self().tick();
    m_->rst_n = 1;
    self().tick();
  }

  // APB3 transfers: a setup cycle, then an access cycle (PREADY is always 1) in which the
  // combinational PRDATA and PSLVERR are sampled.
  void write(std::uint32_t addr, std::uint32_t data, bool* slverr = nullptr) {
    m_->pwrite = 1;
    m_->pwdata = data;
    access(addr, slverr);
  }
  std::uint32_t read(std::uint32_t addr, bool* slverr = nullptr) {
    m_->pwrite = 0;
    return access(addr, slverr);
  }

 protected:
  // `trace`: waveforms may be dumped later (Verilator needs to know before the model is built).
  explicit GradReduceDriver(bool out_ready, bool trace = false) : ctx_(new VerilatedContext) {
    if (trace) ctx_->traceEverOn(true);
    m_ = std::make_unique<Model>(ctx_.get(), "grad_reduce");
    m_->clk = 0;
    m_->rst_n = 0;
    m_->psel = m_->penable = m_->pwrite = 0;
    m_->paddr = 0;
    m_->pwdata = 0;
    m_->in_valid = 0;
    m_->out_ready = out_ready;
    m_->eval();
  }
  ~GradReduceDriver() { m_->final(); }

 private:
  Clocked& self() { return static_cast<Clocked&>(*this); }
  std::uint32_t access(std::uint32_t addr, bool* slverr) {
    m_->psel = 1;
    m_->penable = 0;
    m_->paddr = addr;
    self().tick();
    m_->penable = 1;
    m_->eval();
    const std::uint32_t rdata = m_->prdata;
    if (slverr) *slverr = m_->pslverr;
    self().tick();
    m_->psel = m_->penable = m_->pwrite = 0;
    return rdata;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
};

}  // namespace trainvp::rtl
