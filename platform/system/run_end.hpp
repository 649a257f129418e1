#pragma once
// Ends a run when its work is done although activity is still pending: traffic that would go on
// for ever (congestion faults) keeps the kernel from starving, which is how runs end otherwise.
// It checks `done` at start and whenever poked (a GPU's last iteration, the benchmark's end) and
// then pauses the kernel (sc_pause: sc_start returns after the current delta cycle), so the run
// ends at exactly the time the work did. Nothing is done to the pending activity: it is simply
// never run.
#include <functional>
#include <vector>

#include <systemc>

namespace trainvp {

class RunEnd : public sc_core::sc_module {
 public:
  // `also`: further events after which to check (the benchmark's end).
  RunEnd(sc_core::sc_module_name name, std::function<bool()> done, std::vector<const sc_core::sc_event*> also)
      : sc_module(name), done_(std::move(done)) {
    SC_HAS_PROCESS(RunEnd);
    SC_METHOD(check);  // runs once at time 0 too
    sensitive << poke_;
    for (const sc_core::sc_event* e : also) sensitive << *e;
  }
  void poke() { poke_.notify(sc_core::SC_ZERO_TIME); }
  bool ended() const { return ended_; }

 private:
  void check() {
    if (ended_ || !done_()) return;
    ended_ = true;
    sc_core::sc_pause();
  }
  std::function<bool()> done_;
  sc_core::sc_event poke_;
  bool ended_ = false;
};

}  // namespace trainvp
