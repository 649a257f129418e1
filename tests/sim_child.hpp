#pragma once
// SystemC elaborates once per process, so every test that simulates runs its simulation in a
// forked child and gets back a string (usually JSON). Running the whole test binary in one
// process then works as well as CTest's one-process-per-test.
#include "platform/core/child_process.hpp"

namespace trainvp::test {

using ChildResult = trainvp::ChildResult;

inline ChildResult in_child(const std::function<std::string()>& fn) { return run_in_child(fn); }

}  // namespace trainvp::test
