#pragma once
// Runs a function in a forked child process and returns what it returned. SystemC elaborates once
// per process, so a second simulation (the strategies' profiling pass, each simulation of a test)
// runs in a child.
#include <functional>
#include <string>

namespace trainvp {

struct ChildResult {
  bool ok = false;    // fn returned normally
  std::string value;  // what fn returned, or the exception's message, or why the child died
};

// quiet_stdout: the child's stdout goes to /dev/null (no second SystemC banner on ours).
ChildResult run_in_child(const std::function<std::string()>& fn, bool quiet_stdout = false);

}  // namespace trainvp
