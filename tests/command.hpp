#pragma once
// Runs a shell command (SystemC's banner silenced), capturing stdout and stderr together.
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace trainvp::test {

struct Cmd {
  int code;         // exit status, -1 when killed by a signal
  std::string out;  // stdout and stderr together
};

inline Cmd run_command(const std::string& command) {
  std::string cmd = "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The trainvp binary under test, run from the source tree (scenario paths are relative to it).
inline Cmd trainvp(const std::string& args) {
  return run_command(std::string("cd ") + TRAINVP_SOURCE_DIR + " && " + TRAINVP_BINARY + " " + args);
}

}  // namespace trainvp::test
