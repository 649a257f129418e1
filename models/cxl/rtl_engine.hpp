#pragma once
// The Verilated grad_reduce engine (rtl/grad_reduce.sv), driven cycle by cycle in C++: its CSRs
// over the APB port, contributions on the input stream, reduced lines taken from the output.
// One class per LANES variant and wave format behind one interface, each in a loadable module of its
// own (rtl_plugin.cpp) that make_rtl_engine loads the first time a run needs it; the scenario picks
// the variant.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trainvp {

struct RtlJob {
  int contributors = 2;
  std::uint64_t lines = 1;
  bool bf16 = false;
  bool ftz = false;
  // Optional data: contributors x lines x lanes 32-bit words (contributor-major); empty = zeros.
  const std::vector<std::uint32_t>* data = nullptr;
  std::vector<std::uint32_t>* result = nullptr;  // lines x lanes words, when data is given
  // true: run() programs CONFIG and LEN[0] itself; false: they were written over the APB port
  // already (write_csr: the driver's MMIO writes) and run() only writes CTRL.START.
  bool program = true;
};

// Waveform file formats: VCD (text, any viewer) or FST (GTKWave's compressed binary format).
enum class WaveFormat { Vcd, Fst };

// Where the engine's waveforms go and how much of them to keep.
struct WaveOptions {
  std::string path;  // "" for none
  WaveFormat format = WaveFormat::Vcd;
  std::uint64_t max_bytes = 0;  // 0: no cap; else recording stops once the file reaches it
};

// What happened to the waveform file: `capped` once the size cap stopped the recording (the file
// was closed then, so it ends cleanly at `capped_at_ps`).
struct WaveStatus {
  bool capped = false;
  std::uint64_t bytes = 0;         // written when recording stopped (counted as the writer flushes)
  std::uint64_t capped_at_ps = 0;  // simulated time of the last cycle recorded
};

struct RtlJobStats {
  std::uint64_t cycles = 0;  // from the CTRL.START write (its APB cycles included) to DONE
  std::uint64_t lines_out = 0;
};

class RtlEngine {
 public:
  virtual ~RtlEngine() = default;
  virtual int lanes() const = 0;
  virtual int max_contributors() const = 0;
  // Runs one job to completion (contributions fed line by line, all contributors of a line in
  // id order, so at most one line is open: the engine's window rule), returns its cycles.
  virtual RtlJobStats run(const RtlJob& job) = 0;
  // One APB access to the CSR block (csr_map.hpp); each takes the APB's two cycles.
  virtual void write_csr(std::uint32_t offset, std::uint32_t value) = 0;
  virtual std::uint32_t read_csr(std::uint32_t offset) = 0;
  virtual bool irq() const = 0;  // the engine's interrupt output
  // Waveforms: while enabled, every cycle is dumped to `w.path` in `w.format`, stamped with `t0_ps`
  // plus the cycle count times the period, until the file reaches `w.max_bytes`.
  virtual void trace_to(const WaveOptions& w, double period_ps) = 0;
  virtual void trace_window(bool on, std::uint64_t t0_ps) = 0;
  virtual const WaveStatus& wave_status() const = 0;
  virtual std::uint64_t total_cycles() const = 0;
};

// The variants this build has, e.g. {8, 16, 32}; none when configured with -DTRAINVP_RTL=OFF.
const std::vector<int>& rtl_lanes_available();
bool rtl_available();
// The Verilator that generates the variants ("5.006 2023-01-22"); "" without the RTL.
const char* rtl_verilator_version();
// Throws std::invalid_argument for a LANES value this build does not have, and RunError when its
// module is not built (the quickstart's build makes none: `cmake --build build --target
// trainvp_rtl` makes them all). Each variant is compiled twice, once per wave format (Verilator
// builds a model for one format); `waves` picks which.
std::unique_ptr<RtlEngine> make_rtl_engine(int lanes, WaveFormat waves = WaveFormat::Vcd);

// Where make_rtl_engine looks for the modules: $TRAINVP_RTL_DIR alone when it is set (modules built
// elsewhere, say from a changed grad_reduce.sv); else <prefix>/lib/trainvp/rtl beside an installed
// binary (<prefix>/bin/trainvp), then this build tree's lib/trainvp/rtl.
std::vector<std::string> rtl_module_dirs();
// A module's file name: grad_reduce_l16.so, grad_reduce_l16_fst.so.
std::string rtl_module_name(int lanes, WaveFormat waves);

// The modules' entry points (extern "C"), checked against this number when one is loaded, so that a
// module built against another RtlEngine is refused rather than called.
constexpr int kRtlPluginAbi = 1;

}  // namespace trainvp
