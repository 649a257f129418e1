#pragma once
// SystemC elaborates once per process, so every test that simulates runs its simulation in a
// forked child and gets back a string (usually JSON). Running the whole test binary in one
// process then works as well as CTest's one-process-per-test.
#include <string>

#include "platform/core/child_process.hpp"
#include "platform/core/errors.hpp"

namespace trainvp::test {

using ChildResult = trainvp::ChildResult;

inline ChildResult in_child(const std::function<std::string()>& fn) { return run_in_child(fn); }

// Runs `sim` to its end, in the child: "RunError: " and the message if the run failed, else "ran
// to the end" (for tests that expect a run to fail with a given message).
template <class Sim>
std::string run_or_error(Sim& sim) {
  try {
    sim.run();
  } catch (const RunError& e) {
    return std::string("RunError: ") + e.what();
  }
  return "ran to the end";
}

}  // namespace trainvp::test
