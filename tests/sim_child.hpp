#pragma once
// SystemC elaborates once per process, so every test that simulates runs its simulation in a
// forked child and gets back a string (usually JSON). Running the whole test binary in one
// process then works as well as CTest's one-process-per-test.
#include <sys/wait.h>
#include <unistd.h>

#include <exception>
#include <functional>
#include <string>

namespace trainvp::test {

struct ChildResult {
  bool ok = false;        // fn returned normally
  std::string value;      // what fn returned, or the exception's message
};

inline ChildResult in_child(const std::function<std::string()>& fn) {
  int fds[2];
  if (pipe(fds) != 0) return {false, "pipe failed"};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
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
  if (got.empty()) return {false, "child died (status " + std::to_string(status) + ")"};
  return {got[0] == '1', got.substr(1)};
}

}  // namespace trainvp::test
