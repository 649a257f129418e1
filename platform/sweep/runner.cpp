#include "platform/sweep/runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace trainvp::sweep {

namespace {

using Clock = std::chrono::steady_clock;

int g_pipe[2] = {-1, -1};
volatile sig_atomic_t g_interrupt = 0;

extern "C" void sweep_on_signal(int sig) {
  int saved = errno;
  if ((sig == SIGINT || sig == SIGTERM) && g_interrupt == 0) g_interrupt = sig;
  if (g_pipe[1] >= 0) {
    char c = 0;
    ssize_t n = write(g_pipe[1], &c, 1);
    (void)n;
  }
  errno = saved;
}

// Installs the SIGCHLD/SIGINT/SIGTERM handlers and the self-pipe for one ProcessPool::run;
// restores the previous handlers when it ends.
class SignalScope {
 public:
  SignalScope() {
    if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    g_interrupt = 0;
    struct sigaction sa {};
    sa.sa_handler = sweep_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &old_chld_);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalScope() {
    sigaction(SIGCHLD, &old_chld_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    close(g_pipe[0]);
    close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
  }
  void drain() {
    char buf[256];
    while (read(g_pipe[0], buf, sizeof buf) > 0) {
    }
  }

 private:
  struct sigaction old_chld_ {
  }, old_int_{}, old_term_{};
};

int open_out(const std::string& path, std::string& error) {
  const char* p = path.empty() ? "/dev/null" : path.c_str();
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) error = std::string("cannot open \"") + p + "\": " + std::strerror(errno);
  return fd;
}

// Starts the child; returns its pid, or -1 with `error` set (nothing left running).
pid_t spawn(const ProcessSpec& spec, std::string& error) {
  if (spec.argv.empty()) {
    error = "empty command";
    return -1;
  }
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int out = open_out(spec.stdout_path, error);
  int err = out >= 0 ? open_out(spec.stderr_path, error) : -1;
  int ep[2] = {-1, -1};  // exec status: closed by a successful exec, else carries errno
  if (in < 0 || out < 0 || err < 0 || pipe2(ep, O_CLOEXEC) != 0) {
    if (error.empty()) error = std::string("cannot prepare a child: ") + std::strerror(errno);
    for (int fd : {in, out, err, ep[0], ep[1]})
      if (fd >= 0) close(fd);
    return -1;
  }
  // Everything the child touches is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const bool has_slash = spec.argv[0].find('/') != std::string::npos;
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: the pool signals the child and its descendants
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGPIPE}) sigaction(s, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (has_slash) execv(argv[0], argv.data());
    else execvp(argv[0], argv.data());
    int e = errno;
    ssize_t n = write(ep[1], &e, sizeof e);
    (void)n;
    _exit(127);
  }
  int fork_errno = errno;
  if (pid > 0) setpgid(pid, pid);  // also here, so that it holds before the parent signals the group
  close(ep[1]);
  close(in);
  close(out);
  close(err);
  if (pid < 0) {
    close(ep[0]);
    error = std::string("fork: ") + std::strerror(fork_errno);
    return -1;
  }
  int child_errno = 0;
  ssize_t n;
  do n = read(ep[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close(ep[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    error = "cannot run \"" + spec.argv[0] + "\": " + std::strerror(child_errno);
    return -1;
  }
  return pid;
}

ProcessResult result_of(int status, Clock::time_point t0) {
  ProcessResult r;
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.exit_code = 128 + r.signal;
  }
  return r;
}

}  // namespace

std::string describe_result(const ProcessResult& r) {
  if (!r.spawn_error.empty()) return r.spawn_error;
  if (r.signal) {
    const char* name = strsignal(r.signal);
    return "killed by signal " + std::to_string(r.signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(r.exit_code);
}

ProcessPool::ProcessPool(int slots) : slots_(slots < 1 ? 1 : slots) {}

bool ProcessPool::run(const std::vector<ProcessSpec>& specs,
                      const std::function<void(std::size_t, const ProcessResult&)>& on_done,
                      const std::function<void()>& on_tick, int tick_ms) {
  SignalScope scope;
  struct Running {
    pid_t pid;
    std::size_t index;
    Clock::time_point t0;
  };
  std::vector<Running> running;
  std::size_t next = 0;

  // Terminates and reaps whatever still runs (on interrupt, or when a callback throws).
  auto stop_all = [&] {
    for (auto& r : running) kill(-r.pid, SIGTERM);
    auto deadline = Clock::now() + std::chrono::seconds(5);
    while (!running.empty()) {
      for (std::size_t k = 0; k < running.size();) {
        pid_t w = waitpid(running[k].pid, nullptr, WNOHANG);
        if (w == running[k].pid || (w < 0 && errno == ECHILD)) running.erase(running.begin() + static_cast<long>(k));
        else ++k;
      }
      if (running.empty()) break;
      if (Clock::now() > deadline) {
        for (auto& r : running) {
          kill(-r.pid, SIGKILL);
          while (waitpid(r.pid, nullptr, 0) < 0 && errno == EINTR) {
          }
        }
        running.clear();
        break;
      }
      pollfd pfd{g_pipe[0], POLLIN, 0};
      poll(&pfd, 1, 50);
      scope.drain();
    }
  };

  try {
    while (true) {
      while (!g_interrupt && running.size() < static_cast<std::size_t>(slots_) && next < specs.size()) {
        std::string error;
        Clock::time_point t0 = Clock::now();
        pid_t pid = spawn(specs[next], error);
        if (pid < 0) {
          ProcessResult r;
          r.exit_code = 127;
          r.spawn_error = error;
          on_done(next++, r);
          continue;
        }
        running.push_back({pid, next++, t0});
      }
      if (g_interrupt || (running.empty() && next >= specs.size())) break;
      pollfd pfd{g_pipe[0], POLLIN, 0};
      poll(&pfd, 1, tick_ms);
      scope.drain();
      for (std::size_t k = 0; k < running.size();) {
        int status = 0;
        pid_t w = waitpid(running[k].pid, &status, WNOHANG);
        if (w == 0 || (w < 0 && errno == EINTR)) {
          ++k;
          continue;
        }
        Running done = running[k];
        running.erase(running.begin() + static_cast<long>(k));
        ProcessResult r;
        if (w < 0) {  // ECHILD: someone else reaped it; its status is lost
          r.exit_code = 127;
          r.spawn_error = "the child's exit status was lost (reaped elsewhere)";
          r.wall_s = std::chrono::duration<double>(Clock::now() - done.t0).count();
        } else {
          r = result_of(status, done.t0);
        }
        if (g_interrupt) break;  // do not record children that the interrupt may have killed
        on_done(done.index, r);
      }
      if (g_interrupt) break;
      if (on_tick) on_tick();
    }
  } catch (...) {
    stop_all();
    throw;
  }
  if (g_interrupt) {
    interrupt_signal_ = g_interrupt;
    stop_all();
    return false;
  }
  return true;
}

ProcessResult run_process(const ProcessSpec& spec) {
  std::string error;
  Clock::time_point t0 = Clock::now();
  pid_t pid = spawn(spec, error);
  if (pid < 0) {
    ProcessResult r;
    r.exit_code = 127;
    r.spawn_error = error;
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      ProcessResult r;
      r.exit_code = 127;
      r.spawn_error = std::string("waitpid: ") + std::strerror(errno);
      return r;
    }
  }
  return result_of(status, t0);
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace trainvp::sweep
