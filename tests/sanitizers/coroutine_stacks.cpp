// What SystemC's coroutine stacks do to ASan and LSan, so scripts/check-sanitizers' settings are
// checked, not assumed (scripts/sanitizers/README.md). Built and run only in a sanitizer build.
// usage: coroutine_stacks [leak-at-elaboration | throw-after-simulation | throw-after-reannounce]
#include <systemc>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "platform/core/asan_stack.hpp"

namespace {

// Two thread processes: `holder` keeps the only pointer to a heap block in a local and is still
// suspended when the program exits; `ticker` wakes it once and runs a few more steps.
struct Holder : sc_core::sc_module {
  sc_core::sc_event tick;
  int ticks = 0;
  SC_HAS_PROCESS(Holder);
  explicit Holder(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    SC_THREAD(holder);
    SC_THREAD(ticker);
  }
  void holder() {
    auto block = std::make_unique<std::vector<int>>(1000, 7);
    sc_core::wait(tick);
    ticks += (*block)[0];
    sc_core::wait();  // no static sensitivity: waits forever
  }
  void ticker() {
    for (int i = 0; i < 4; ++i) {
      std::vector<int> local(64, i);  // a frame with locals, left and re-entered across switches
      sc_core::wait(1, sc_core::SC_NS);
      ticks += local[0];
      tick.notify();
    }
  }
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc > 1 && std::strcmp(argv[1], "leak-at-elaboration") == 0) {
    // A real leak, outside any thread process: the suppression must not hide it.
    auto* lost = new std::vector<int>(1000, 1);
    std::printf("lost %d\n", (*lost)[0]);
    lost = nullptr;
  } else if (argc > 1 && std::strcmp(argv[1], "throw-after-simulation") != 0 &&
             std::strcmp(argv[1], "throw-after-reannounce") != 0) {
    std::fprintf(stderr,
                 "usage: coroutine_stacks [leak-at-elaboration | throw-after-simulation | "
                 "throw-after-reannounce]\n");
    return 2;
  }
  Holder h("h");
  sc_core::sc_start();
  // What Simulation::run does after sc_start, in every mode but the one that shows why: without
  // it ASan's (and so LSan's) idea of the main stack is SystemC's bogus one, and LSan's scan at
  // exit once crashed on it ("Tracer caught signal 11", about 1 run in 60).
  const bool bogus_bounds = argc > 1 && std::strcmp(argv[1], "throw-after-simulation") == 0;
  if (!bogus_bounds) trainvp::reannounce_stack_to_asan();
  if (argc > 1 && std::strncmp(argv[1], "throw-after-", 12) == 0) {
    // Back on the main stack, for which SystemC gave ASan no bounds.
    try {
      throw std::runtime_error("after the simulation");
    } catch (const std::exception& e) {
      std::printf("caught %s\n", e.what());
    }
  }
  std::printf("ticks %d\n", h.ticks);
  return h.ticks == 13 ? 0 : 1;  // 0+1+2+3 from ticker, 7 from holder
}
