#pragma once
// Cycle-level test bench of the Verilated grad_reduce (rtl/grad_reduce.sv): a driver around one
// Verilated model (clock; reset and APB CSR accesses from rtl/driver/grad_reduce_driver.hpp, as the
// platform's engine does them; an input stream with random valid gaps, an output stream with random
// ready back-pressure), random traffic with windowed random arrival
// orders, and a scoreboard that checks every reduced line bit for bit against the C++ reference
// (models/cxl/reduce_ref.hpp). The same code drives every LANES variant (a template).
#include <verilated.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cxl/reduce_ref.hpp"
#include "platform/core/hash.hpp"
#include "rtl/driver/grad_reduce_driver.hpp"

namespace trainvp::rtl {

// ------------------------------------------------------------------------------------ CSR map
namespace csr {
constexpr std::uint32_t kId = 0x000, kParams = 0x004, kParams2 = 0x008, kCtrl = 0x010, kConfig = 0x014, kStatus = 0x018,
                        kError = 0x01C, kErrLine = 0x020, kErrSrc = 0x024, kIrqEn = 0x028, kLinesIn = 0x040,
                        kLinesOut = 0x044, kInStall = 0x048, kOutStall = 0x04C, kDropped = 0x050, kFullCycles = 0x054,
                        kActiveCycles = 0x058;
constexpr std::uint32_t slot_len(std::uint32_t s) { return 0x100 + 16 * s; }
constexpr std::uint32_t slot_base_lo(std::uint32_t s) { return 0x104 + 16 * s; }
constexpr std::uint32_t slot_base_hi(std::uint32_t s) { return 0x108 + 16 * s; }
constexpr std::uint32_t slot_done(std::uint32_t s) { return 0x10C + 16 * s; }
constexpr std::uint32_t kIdValue = 0x47524431;  // "GRD1"
// CTRL
constexpr std::uint32_t kStart = 1, kAbort = 2, kDoneClr = 4;
// STATUS
constexpr std::uint32_t kRunning = 1, kDone = 2, kIdle = 4, kFull = 8;
// ERROR
constexpr std::uint32_t kErrCid = 1, kErrDup = 2, kErrIdx = 4, kErrSlot = 8, kErrCfg = 16, kErrBusy = 32;
}  // namespace csr

// ------------------------------------------------------------------------------------ random
struct Rng : SplitMix64 {
  explicit Rng(std::uint64_t seed) : SplitMix64{seed} {}
  std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * std::uint64_t{n}) >> 32); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return p >= 1.0 || (p > 0.0 && uniform() < p); }
};

// ------------------------------------------------------------------------------------ values
// Special values at a controlled rate, and value "modes" that make the interesting cases of an
// adder common: clustered exponents (cancellation), short significands at staggered exponents
// (exact ties), the subnormal range, the overflow range, raw random bits.
inline std::uint32_t special_fp32(Rng& r) {
  std::uint32_t sign = r.u32() & 0x80000000u;
  switch (r.below(12)) {
    case 0: return sign;                                               // +-0
    case 1: return sign | 0x7F800000u;                                 // +-inf
    case 2: return sign | 0x7FC00000u | (r.u32() & 0x3FFFFFu);         // qNaN, payload
    case 3: return sign | 0x7F800000u | ((r.u32() & 0x3FFFFFu) | 1u);  // sNaN
    case 4: return sign | ((r.u32() & 0x7FFFFFu) | 1u);                // subnormal
    case 5: return sign | 1u;                                          // min subnormal
    case 6: return sign | 0x007FFFFFu;                                 // max subnormal
    case 7: return sign | 0x00800000u;                                 // min normal
    case 8: return sign | 0x7F7FFFFFu;                                 // max finite
    case 9: return sign | 0x7F000000u | (r.u32() & 0x7FFFFFu);         // near overflow
    case 10: return sign | 0x00800000u | (r.u32() & 0x7FFFFFu);        // smallest binade
    default: return sign | 0x73000000u;                                // half ulp of max
  }
}

inline std::uint16_t special_bf16(Rng& r) {
  std::uint16_t sign = static_cast<std::uint16_t>(r.u32() & 0x8000u);
  std::uint16_t m = static_cast<std::uint16_t>(r.u32() & 0x7Fu);
  switch (r.below(12)) {
    case 0: return sign;
    case 1: return sign | 0x7F80u;
    case 2: return sign | 0x7FC0u | (m & 0x3Fu);
    case 3: return sign | 0x7F80u | ((m & 0x3Fu) | 1u);
    case 4: return sign | (m | 1u);
    case 5: return sign | 1u;
    case 6: return sign | 0x007Fu;
    case 7: return sign | 0x0080u;
    case 8: return sign | 0x7F7Fu;
    case 9: return sign | 0x7F00u | m;
    case 10: return sign | 0x0080u | m;
    default: return sign | 0x7B00u;
  }
}

enum class ValueMode { Bits, Clustered, Ties, Subnormal, Overflow };

inline ValueMode pick_mode(Rng& r) {
  std::uint32_t k = r.below(100);
  if (k < 15) return ValueMode::Bits;
  if (k < 55) return ValueMode::Clustered;
  if (k < 80) return ValueMode::Ties;
  if (k < 90) return ValueMode::Subnormal;
  return ValueMode::Overflow;
}

// One element with an 8-bit exponent and an mb-bit mantissa (23: fp32, 7: bf16), as bits.
inline std::uint32_t gen_value(Rng& r, ValueMode mode, int base_exp, int mb) {
  const std::uint32_t man_mask = (1u << mb) - 1;
  std::uint32_t sign = (r.u32() & 1u) << (mb + 8);
  int e = 0;
  std::uint32_t m = r.u32() & man_mask;
  switch (mode) {
    // mb + 9 is 32 for fp32: the mask is computed in 64 bits (1u << 32 is undefined).
    case ValueMode::Bits: return r.u32() & static_cast<std::uint32_t>((std::uint64_t{1} << (mb + 9)) - 1);
    case ValueMode::Clustered: e = base_exp + static_cast<int>(r.below(7)) - 3; break;
    case ValueMode::Ties: {
      e = base_exp - static_cast<int>(r.below(static_cast<std::uint32_t>(mb) + 3));
      m &= ~((1u << r.below(static_cast<std::uint32_t>(mb) + 1)) - 1);
      break;
    }
    case ValueMode::Subnormal: e = static_cast<int>(r.below(3)); break;
    case ValueMode::Overflow: e = 250 + static_cast<int>(r.below(5)); break;
  }
  if (e < 0) e = 0;
  if (e > 254) e = 254;
  return sign | (static_cast<std::uint32_t>(e) << mb) | m;
}

// ------------------------------------------------------------------------------------ lines
struct Contribution {
  std::uint32_t slot = 0, idx = 0, cid = 0;
  std::vector<std::uint32_t> data;  // one word per lane
};

struct OutLine {
  std::uint32_t slot = 0, idx = 0;
  std::uint64_t addr = 0, cycle = 0;
  std::vector<std::uint32_t> data;
};

inline std::uint64_t line_key(std::uint32_t slot, std::uint32_t idx) { return (std::uint64_t{slot} << 32) | idx; }

struct JobConfig {
  std::uint32_t n = 2;  // contributors
  bool bf16 = false, ftz = false;
  std::vector<std::uint32_t> len;   // lines per slot
  std::vector<std::uint64_t> base;  // output base address per slot
};

inline std::uint64_t expected_addr(const JobConfig& j, int lanes, std::uint32_t slot, std::uint32_t idx) {
  return j.base[slot] + std::uint64_t{idx} * static_cast<std::uint64_t>(lanes) * (j.bf16 ? 2 : 4);
}

// Reference result of one line: contributions [cid][lane], summed in contributor order.
inline std::vector<std::uint32_t> reference_line(const JobConfig& j, int lanes,
                                                 const std::vector<std::vector<std::uint32_t>>& c) {
  std::vector<const std::uint32_t*> ptrs;
  for (auto& v : c) ptrs.push_back(v.data());
  std::vector<std::uint32_t> out(static_cast<std::size_t>(lanes));
  reduce_line(j.bf16 ? DType::BF16 : DType::FP32, ptrs, static_cast<std::size_t>(lanes), out.data(), j.ftz);
  return out;
}

// Expected reduced lines; every output must match one, exactly once.
class Scoreboard {
 public:
  struct Expect {
    std::uint64_t addr;
    std::vector<std::uint32_t> data;
    std::vector<std::vector<std::uint32_t>> inputs;  // for the failure report
  };
  void expect(std::uint32_t slot, std::uint32_t idx, Expect e) {
    auto [it, fresh] = pending_.emplace(line_key(slot, idx), std::move(e));
    if (!fresh) report("line expected twice: slot " + std::to_string(slot) + " idx " + std::to_string(idx));
  }
  void check(const OutLine& o) {
    auto it = pending_.find(line_key(o.slot, o.idx));
    if (it == pending_.end()) {
      report("unexpected or duplicated output: slot " + std::to_string(o.slot) + " idx " + std::to_string(o.idx));
      return;
    }
    const Expect& e = it->second;
    if (o.addr != e.addr) {
      std::ostringstream ss;
      ss << "slot " << o.slot << " idx " << o.idx << ": address 0x" << std::hex << o.addr << " expected 0x" << e.addr;
      report(ss.str());
    }
    for (std::size_t l = 0; l < e.data.size(); ++l) {
      if (o.data[l] != e.data[l]) {
        std::ostringstream ss;
        ss << std::hex << "slot " << o.slot << " idx 0x" << o.idx << " lane " << std::dec << l << std::hex << ": rtl 0x"
           << o.data[l] << " ref 0x" << e.data[l] << "; inputs by cid:";
        for (auto& c : e.inputs) ss << " 0x" << c[l];
        report(ss.str());
        ++lane_mismatches_;
      }
      ++lanes_checked_;
    }
    ++lines_checked_;
    pending_.erase(it);
  }
  std::size_t pending() const { return pending_.size(); }
  std::uint64_t lines_checked() const { return lines_checked_; }
  std::uint64_t lanes_checked() const { return lanes_checked_; }
  std::uint64_t errors() const { return errors_; }
  std::uint64_t lane_mismatches() const { return lane_mismatches_; }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  void report(const std::string& m) {
    ++errors_;
    if (messages_.size() < 20) messages_.push_back(m);
  }
  std::unordered_map<std::uint64_t, Expect> pending_;
  std::uint64_t lines_checked_ = 0, lanes_checked_ = 0, errors_ = 0, lane_mismatches_ = 0;
  std::vector<std::string> messages_;
};

// ------------------------------------------------------------------------------------ driver
template <class Model, int kLanes>
class Driver : public GradReduceDriver<Driver<Model, kLanes>, Model> {
  using Base = GradReduceDriver<Driver<Model, kLanes>, Model>;

 public:
  static constexpr int kL = kLanes;
  using Base::m;
  using Base::read;
  using Base::write;

  explicit Driver(std::uint64_t seed = 1) : Base(/*out_ready=*/false), rng(seed) {
    this->reset();
    std::uint32_t p = read(csr::kParams), p2 = read(csr::kParams2);
    lanes = static_cast<int>(p & 0xFF);
    max_contributors = static_cast<int>((p >> 8) & 0xFF);
    depth = static_cast<int>((p >> 16) & 0xFF);
    slots = static_cast<int>(p >> 24);
    idx_w = static_cast<int>(p2 & 0xFF);
  }

  Rng rng;

  // Stream policies. valid_prob: chance that a new item is offered in a cycle when the source has
  // one (an offered item stays valid, unchanged, until accepted). ready_prob: chance of
  // out_ready each cycle, unless ready_hold forces it low.
  double valid_prob = 1.0, ready_prob = 1.0;
  bool ready_hold = false;
  std::function<bool(Contribution&)> source;  // next item; false: nothing to send now
  std::function<void(const OutLine&)> sink;   // every output handshake

  // Counts of what the bench saw, since clear_counts().
  std::uint64_t in_fires = 0, out_fires = 0, in_stalls = 0, out_stalls = 0;
  std::uint64_t cycle = 0;  // total cycles since construction
  std::uint64_t last_in_fire_cycle = 0, last_out_fire_cycle = 0;
  void clear_counts() { in_fires = out_fires = in_stalls = out_stalls = 0; }

  // One clock cycle with the current inputs.
  void tick() {
    if (!offer_valid_ && source && rng.chance(valid_prob) && source(offer_)) {
      offer_valid_ = true;
      m_.in_slot = offer_.slot;
      m_.in_idx = offer_.idx;
      m_.in_cid = offer_.cid;
      for (int w = 0; w < kL; ++w) m_.in_data[w] = offer_.data[static_cast<std::size_t>(w)];
    }
    m_.in_valid = offer_valid_;
    const bool rdy = !ready_hold && rng.chance(ready_prob);
    m_.out_ready = rdy;
    // in_ready and out_* are registers: they already hold this cycle's values (the driver settles
    // the combinational APB read data itself).
    const bool in_fire = offer_valid_ && m_.in_ready;
    const bool out_fire = m_.out_valid && rdy;
    if (offer_valid_ && !m_.in_ready) ++in_stalls;
    if (m_.out_valid && !rdy) ++out_stalls;
    if (out_fire) {
      ++out_fires;
      last_out_fire_cycle = cycle;
      if (sink) {
        out_.slot = m_.out_slot;
        out_.idx = m_.out_idx;
        out_.addr = m_.out_addr;
        out_.cycle = cycle;
        out_.data.resize(kL);
        for (int w = 0; w < kL; ++w) out_.data[static_cast<std::size_t>(w)] = m_.out_data[w];
        sink(out_);
      }
    }
    if (in_fire) {
      ++in_fires;
      last_in_fire_cycle = cycle;
      offer_valid_ = false;
    }
    m_.clk = 1;
    m_.eval();
    m_.clk = 0;
    m_.eval();
    ++cycle;
  }

  void ticks(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) tick();
  }

  bool offering() const { return offer_valid_; }

  // Parameters of the model, read from PARAMS / PARAMS2 after reset.
  int lanes = 0, max_contributors = 0, depth = 0, slots = 0, idx_w = 0;

  // Withdraws the offered item (only legal after ABORT: a valid item must otherwise stay).
  void drop_offer() { offer_valid_ = false; }

  void configure(const JobConfig& j) {
    write(csr::kConfig, j.n | (j.bf16 ? 1u << 8 : 0u) | (j.ftz ? 1u << 9 : 0u));
    for (std::uint32_t s = 0; s < j.len.size(); ++s) {
      write(csr::slot_len(s), j.len[s]);
      write(csr::slot_base_lo(s), static_cast<std::uint32_t>(j.base[s]));
      write(csr::slot_base_hi(s), static_cast<std::uint32_t>(j.base[s] >> 32));
    }
  }
  // Writes START; the performance counters restart at the same clock edge as the bench's counts.
  void start() {
    write(csr::kCtrl, csr::kStart);
    clear_counts();
    start_cycle = cycle - 1;  // the cycle of the access phase (the START edge)
  }
  std::uint64_t start_cycle = 0;

  // Runs until pred() or max_cycles; returns pred().
  bool run_until(const std::function<bool()>& pred, std::uint64_t max_cycles) {
    for (std::uint64_t i = 0; i < max_cycles && !pred(); ++i) tick();
    return pred();
  }

 private:
  Model& m_ = m();
  Contribution offer_;
  bool offer_valid_ = false;
  OutLine out_;
};

// ------------------------------------------------------------------------------------ traffic
// Random traffic of one job: every line of every slot, lines opened in a random order, at most
// `window` lines open (some but not all contributions sent) at a time, each line's contributors
// in a random order, and each contribution sent from a random open line: so lines and slots
// interleave and contributors arrive in any order. The window keeps the sender within the
// engine's lines in flight (window <= DEPTH): see docs/rtl.md "Flow control".
// Optional error injection (duplicates, contributor ids >= N, line indices >= LEN).
struct TrafficConfig {
  std::uint32_t window = 4;
  double special_rate = 0.01;  // per element
  double error_rate = 0.0;     // per contribution sent
};

class RandomTraffic {
 public:
  RandomTraffic(Rng& rng, const JobConfig& job, const TrafficConfig& tc, int lanes, int max_contributors, int idx_w,
                Scoreboard& sb)
      : rng_(rng), job_(job), tc_(tc), lanes_(lanes), max_c_(max_contributors), idx_w_(idx_w), sb_(sb) {
    for (std::uint32_t s = 0; s < job.len.size(); ++s)
      for (std::uint32_t i = 0; i < job.len[s]; ++i) todo_.push_back(line_key(s, i));
    for (std::size_t i = todo_.size(); i > 1; --i)
      std::swap(todo_[i - 1], todo_[rng_.below(static_cast<std::uint32_t>(i))]);
  }

  bool next(Contribution& c) {
    while (open_.size() < tc_.window && next_todo_ < todo_.size()) open_line();
    if (open_.empty()) return false;
    Open& o = open_[rng_.below(static_cast<std::uint32_t>(open_.size()))];
    if (tc_.error_rate > 0 && rng_.chance(tc_.error_rate) && inject_error(o, c)) return true;
    std::uint32_t cid = o.order[o.sent++];
    c.slot = o.slot;
    c.idx = o.idx;
    c.cid = cid;
    c.data = o.data[cid];
    if (o.sent == o.order.size()) {
      if (&o != &open_.back()) o = std::move(open_.back());
      open_.pop_back();
    }
    ++sent_;
    return true;
  }

  bool all_sent() const { return open_.empty() && next_todo_ == todo_.size(); }
  std::uint64_t lines_opened() const { return next_todo_; }
  std::uint64_t contributions_sent() const { return sent_; }
  std::uint64_t errors_injected() const { return errors_; }
  std::uint32_t error_bits() const { return error_bits_; }
  bool has_first_error() const { return errors_ > 0; }
  std::uint32_t first_err_line = 0, first_err_src = 0;

 private:
  struct Open {
    std::uint32_t slot, idx;
    std::vector<std::uint32_t> order;
    std::size_t sent = 0;
    std::vector<std::vector<std::uint32_t>> data;  // [cid][lane]
  };

  void open_line() {
    std::uint64_t key = todo_[next_todo_++];
    Open o;
    o.slot = static_cast<std::uint32_t>(key >> 32);
    o.idx = static_cast<std::uint32_t>(key);
    for (std::uint32_t k = 0; k < job_.n; ++k) o.order.push_back(k);
    for (std::size_t i = o.order.size(); i > 1; --i)
      std::swap(o.order[i - 1], o.order[rng_.below(static_cast<std::uint32_t>(i))]);
    const int mb = job_.bf16 ? 7 : 23;
    const ValueMode mode = pick_mode(rng_);
    std::vector<int> base(static_cast<std::size_t>(lanes_));
    for (int& b : base) b = 1 + static_cast<int>(rng_.below(253));
    o.data.assign(job_.n, std::vector<std::uint32_t>(static_cast<std::size_t>(lanes_)));
    for (std::uint32_t k = 0; k < job_.n; ++k) {
      for (int l = 0; l < lanes_; ++l) {
        std::uint32_t v;
        if (rng_.chance(tc_.special_rate)) {
          v = job_.bf16 ? special_bf16(rng_) : special_fp32(rng_);
        } else {
          v = gen_value(rng_, mode, base[static_cast<std::size_t>(l)], mb);
        }
        if (job_.bf16) v |= rng_.u32() & 0xFFFF0000u;  // the high half must be ignored
        o.data[k][static_cast<std::size_t>(l)] = v;
      }
    }
    Scoreboard::Expect e;
    e.addr = expected_addr(job_, lanes_, o.slot, o.idx);
    e.data = reference_line(job_, lanes_, o.data);
    e.inputs = o.data;
    sb_.expect(o.slot, o.idx, std::move(e));
    open_.push_back(std::move(o));
  }

  // An erroneous contribution that the engine must drop (and not let disturb the line).
  bool inject_error(const Open& o, Contribution& c) {
    std::uint32_t kind = rng_.below(3), why = 0;
    c.slot = o.slot;
    c.idx = o.idx;
    c.data.assign(static_cast<std::size_t>(lanes_), 0x7F800001u);  // would poison the sum
    if (kind == 0 && o.sent > 0) {                                 // duplicate of a sent contribution
      c.cid = o.order[rng_.below(static_cast<std::uint32_t>(o.sent))];
      why = csr::kErrDup;
    } else if (kind == 1 && job_.n < static_cast<std::uint32_t>(max_c_)) {  // cid >= N
      c.cid = job_.n + rng_.below(static_cast<std::uint32_t>(max_c_) - job_.n);
      why = csr::kErrCid;
    } else if (kind == 2) {  // idx >= LEN[slot]
      c.cid = rng_.below(job_.n);
      c.idx = job_.len[o.slot] + rng_.below((1u << idx_w_) - job_.len[o.slot]);
      why = csr::kErrIdx;
    } else {
      return false;
    }
    if (errors_ == 0) {
      first_err_line = c.idx;
      first_err_src = (why << 16) | (c.slot << 8) | c.cid;
    }
    ++errors_;
    error_bits_ |= why;
    return true;
  }

  Rng& rng_;
  JobConfig job_;
  TrafficConfig tc_;
  int lanes_, max_c_, idx_w_;
  Scoreboard& sb_;
  std::vector<std::uint64_t> todo_;
  std::size_t next_todo_ = 0;
  std::vector<Open> open_;
  std::uint64_t sent_ = 0, errors_ = 0;
  std::uint32_t error_bits_ = 0;
};

}  // namespace trainvp::rtl
