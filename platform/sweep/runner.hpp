#pragma once
// Child processes for sweep points (and gnuplot): fork + exec with stdout and stderr captured
// to files, at most `slots` at a time. The parent sleeps in poll() on a self-pipe that SIGCHLD,
// SIGINT and SIGTERM write to, reaps each child with waitpid (no zombies), and records its exit
// status or terminating signal and its wall time. Each child leads its own process group, so
// an interrupt (SIGINT/SIGTERM to the sweep) terminates a point and everything it started;
// children also get PR_SET_PDEATHSIG, so even a SIGKILLed sweep does not leave points running.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace trainvp::sweep {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the program (a path, or a name found in PATH)
  std::string stdout_path;        // "" = /dev/null
  std::string stderr_path;        // "" = /dev/null
};

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + signal when a signal ended the child
  int signal = 0;      // the terminating signal, 0 if it exited
  double wall_s = 0;
  std::string spawn_error;  // non-empty when the child could not be started at all
  bool ok() const { return spawn_error.empty() && signal == 0 && exit_code == 0; }
};

// "killed by signal 11 (Segmentation fault)", "exit code 1", or the spawn error.
std::string describe_result(const ProcessResult& r);

class ProcessPool {
 public:
  explicit ProcessPool(int slots);

  // Runs every spec, at most `slots` at once, in order of the vector. on_done(i, result) runs
  // in this thread when child i has been reaped; on_tick() at least every `tick_ms`. Returns
  // false when SIGINT or SIGTERM arrived: running children were sent SIGTERM (SIGKILL after 5 s)
  // and reaped, their on_done not called, and the rest not started; interrupt_signal() says which.
  bool run(const std::vector<ProcessSpec>& specs, const std::function<void(std::size_t, const ProcessResult&)>& on_done,
           const std::function<void()>& on_tick, int tick_ms = 250);

  int interrupt_signal() const { return interrupt_signal_; }

 private:
  int slots_;
  int interrupt_signal_ = 0;
};

// Runs one process to completion (blocking), with standard input from /dev/null.
ProcessResult run_process(const ProcessSpec& spec);

// The number of CPUs this process may run on (sched_getaffinity), at least 1.
int available_cpus();

}  // namespace trainvp::sweep
