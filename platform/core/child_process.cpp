#include "platform/core/child_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <exception>

namespace trainvp {

ChildResult run_in_child(const std::function<std::string()>& fn, bool quiet_stdout) {
  int fds[2];
  if (pipe(fds) != 0) return {false, "pipe failed"};
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return {false, "fork failed"};
  }
  if (pid == 0) {
    close(fds[0]);
    if (quiet_stdout) {
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) dup2(devnull, 1);
    }
    std::string out;
    try {
      out = "1" + fn();
    } catch (const std::exception& e) {
      out = "0" + std::string(e.what());
    } catch (...) {
      out = "0unknown exception";
    }
    const char* p = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n <= 0) break;
      p += n, left -= static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got.empty()) return {false, "the child process died (status " + std::to_string(status) + ")"};
  return {got[0] == '1', got.substr(1)};
}

}  // namespace trainvp
