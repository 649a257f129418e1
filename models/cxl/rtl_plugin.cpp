// One grad_reduce variant's engine, built into a loadable module per variant and wave format
// (models/cxl/CMakeLists.txt: TRAINVP_RTL_MODEL, TRAINVP_RTL_LANES_N, TRAINVP_RTL_FST), so that a
// trainvp that never runs the CXL device neither builds nor loads a Verilated model, and an RTL
// change rebuilds these modules only. rtl_engine.cpp loads them (the plugin entry points below).
#include "models/cxl/csr_map.hpp"
#include "models/cxl/rtl_engine.hpp"

#include <filesystem>
#include <stdexcept>

#include <verilated.h>
#include <verilated_fst_c.h>
#include <verilated_vcd_c.h>

#include TRAINVP_RTL_HEADER
#include "rtl/driver/grad_reduce_driver.hpp"

namespace trainvp {

namespace {

using namespace csr;

// The VCD writer's file, counting the bytes handed to it: the cap then costs one comparison per
// cycle. The writer buffers up to 48 KiB before it writes, so the count lags the data by that much.
class CountingVcdFile final : public VerilatedVcdFile {
 public:
  ssize_t write(const char* buf, ssize_t len) override {
    const ssize_t n = VerilatedVcdFile::write(buf, len);
    if (n > 0) bytes += static_cast<std::uint64_t>(n);
    return n;
  }
  std::uint64_t bytes = 0;
};

// One waveform writer per format: its tracer, and the bytes it has written so far.
template <class Tracer>
struct WaveWriter;

template <>
struct WaveWriter<VerilatedVcdC> {
  static constexpr std::uint64_t kCheckEvery = 1;  // counting is free: check every cycle
  CountingVcdFile file;                            // declared first: it outlives the tracer
  VerilatedVcdC tracer{&file};
  std::uint64_t bytes(const std::string&) const { return file.bytes; }
};

template <>
struct WaveWriter<VerilatedFstC> {
  // The FST writer compresses blocks in memory and writes each whole; its size on disk is all
  // there is to read (a stat, so only every 4096 cycles: 4 us of engine time at 1 GHz).
  static constexpr std::uint64_t kCheckEvery = 4096;
  VerilatedFstC tracer;
  std::uint64_t bytes(const std::string& path) const {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<std::uint64_t>(n);
  }
};

template <class Model, int kLanes, class Tracer>
class Engine final : public RtlEngine, public rtl::GradReduceDriver<Engine<Model, kLanes, Tracer>, Model> {
  using Driver = rtl::GradReduceDriver<Engine<Model, kLanes, Tracer>, Model>;
  friend Driver;  // it clocks the model through tick()
  using Driver::read;
  using Driver::write;

 public:
  Engine() : Driver(/*out_ready=*/true, /*trace=*/true), m_(this->m()) {
    this->reset();
    max_contrib_ = static_cast<int>((read(kParams) >> 8) & 0xFF);
  }
  ~Engine() override { stop_waves(); }
  int lanes() const override { return kLanes; }
  int max_contributors() const override { return max_contrib_; }
  std::uint64_t total_cycles() const override { return cycle_; }

  void trace_to(const WaveOptions& w, double period_ps) override {
    waves_ = std::make_unique<WaveWriter<Tracer>>();
    m_.trace(&waves_->tracer, 99);
    waves_->tracer.open(w.path.c_str());
    opts_ = w;
    period_ps_ = period_ps;
  }
  void trace_window(bool on, std::uint64_t t0_ps) override {
    tracing_ = on && waves_ && !status_.capped;
    t0_ps_ = t0_ps;
    job_cycle0_ = cycle_;
  }
  const WaveStatus& wave_status() const override { return status_; }

  void write_csr(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }
  std::uint32_t read_csr(std::uint32_t offset) override { return read(offset); }
  bool irq() const override { return m_.irq; }

  RtlJobStats run(const RtlJob& job) override {
    if (job.program) {
      write(kCtrl, kDoneClr);
      write(kConfig,
            static_cast<std::uint32_t>(job.contributors) | (job.bf16 ? 1u << 8 : 0u) | (job.ftz ? 1u << 9 : 0u));
      write(len(0), static_cast<std::uint32_t>(job.lines));
    }
    const std::uint64_t c0 = cycle_;
    write(kCtrl, kStart);
    RtlJobStats st;
    if (job.result) job.result->assign(job.lines * kLanes, 0);
    std::uint64_t line = 0;
    int cid = 0;
    bool offered = false;
    while (st.lines_out < job.lines) {
      if (!offered && line < job.lines) {
        m_.in_slot = 0;
        m_.in_idx = static_cast<std::uint32_t>(line);
        m_.in_cid = static_cast<std::uint32_t>(cid);
        for (int w = 0; w < kLanes; ++w)
          m_.in_data[w] = job.data ? (*job.data)[(static_cast<std::size_t>(cid) * job.lines + line) * kLanes + w] : 0u;
        offered = true;
      }
      m_.in_valid = offered;
      const bool in_fire = offered && m_.in_ready;
      if (m_.out_valid) {
        if (job.result)
          for (int w = 0; w < kLanes; ++w)
            (*job.result)[static_cast<std::size_t>(m_.out_idx) * kLanes + w] = m_.out_data[w];
        ++st.lines_out;
      }
      tick();
      if (in_fire) {
        offered = false;
        if (++cid == job.contributors) cid = 0, ++line;
      }
    }
    m_.in_valid = 0;
    // DONE rises once the last line is out; poll the status as a driver would.
    for (int guard = 0; guard < 64 && !(read(kStatus) & kDone); ++guard) {
    }
    st.cycles = cycle_ - c0;
    return st;
  }

 private:
  void tick() {
    m_.clk = 1;
    m_.eval();
    if (tracing_)
      waves_->tracer.dump(static_cast<std::uint64_t>(t0_ps_ + (cycle_ - job_cycle0_) * period_ps_ + period_ps_ / 2));
    m_.clk = 0;
    m_.eval();
    if (tracing_) {
      const auto t = static_cast<std::uint64_t>(t0_ps_ + (cycle_ + 1 - job_cycle0_) * period_ps_);
      waves_->tracer.dump(t);
      if (opts_.max_bytes && cycle_ % WaveWriter<Tracer>::kCheckEvery == 0) check_cap(t);
    }
    ++cycle_;
  }
  // At the cap the file is closed at once, so it ends cleanly at the last whole cycle recorded.
  void check_cap(std::uint64_t t_ps) {
    const std::uint64_t bytes = waves_->bytes(opts_.path);
    if (bytes < opts_.max_bytes) return;
    status_ = {true, bytes, t_ps};
    tracing_ = false;
    stop_waves();
  }
  void stop_waves() {
    if (waves_ && !closed_) waves_->tracer.close();
    closed_ = true;
  }
  Model& m_;
  std::unique_ptr<WaveWriter<Tracer>> waves_;
  WaveOptions opts_;
  WaveStatus status_;
  bool closed_ = false;
  bool tracing_ = false;
  double period_ps_ = 1000;
  std::uint64_t t0_ps_ = 0, job_cycle0_ = 0, cycle_ = 0;
  int max_contrib_ = 0;
};

}  // namespace

}  // namespace trainvp

#if TRAINVP_RTL_FST
using PluginEngine = trainvp::Engine<TRAINVP_RTL_MODEL, TRAINVP_RTL_LANES_N, VerilatedFstC>;
#else
using PluginEngine = trainvp::Engine<TRAINVP_RTL_MODEL, TRAINVP_RTL_LANES_N, VerilatedVcdC>;
#endif

extern "C" {
int trainvp_rtl_plugin_abi() { return trainvp::kRtlPluginAbi; }
int trainvp_rtl_plugin_lanes() { return TRAINVP_RTL_LANES_N; }
const char* trainvp_rtl_plugin_verilator() { return VERILATOR_VERSION; }
trainvp::RtlEngine* trainvp_rtl_plugin_create() { return new PluginEngine(); }
}
